"""Corpus, round three (issue 27), native style (@tf.kernel_program), continued: image filters
with run-time radii and sizes, graphs and matrix powers, cloth, rays, hashes as indices."""

import numpy as np
from corpus import program

import tensorfrost as tf

F32, I32, U32 = np.float32, np.int32, np.uint32


def _edge(u, width=1):
    return np.pad(u, width, mode="edge")  # out-of-range indices clamp: replicated borders


# -- image filters -----------------------------------------------------------------------------


def _box_reference(img, radius):
    h, w = img.shape
    out = np.zeros((h, w))
    for i in range(h):
        for j in range(w):
            out[i, j] = img[max(i - radius, 0):i + radius + 1, max(j - radius, 0):j + radius + 1].mean()
    return out

# Exact integer sums over the window; one float32 division.
@program("native", lambda rng: (rng.integers(0, 256, (22, 31)).astype(I32), 3), _box_reference, rtol=1e-6, atol=0)
def box_blur_summed_area_table():
    @tf.kernel_program
    def box_blur_summed_area_table(img: tf.Arg([-1, -1], tf.int32), radius: tf.Arg([], tf.int32)):
        h, w = img.shape
        s = img * 1
        offset = 1
        while offset < w:  # Hillis-Steele scan along the rows, then the columns
            i, j = s.indices
            if j >= offset:
                s = s + s[i, j - offset]
            offset *= 2
        offset = 1
        while offset < h:
            i, j = s.indices
            if i >= offset:
                s = s + s[i - offset, j]
            offset *= 2

        def table(y, x):  # the summed-area table with a zero row and column before it
            return 0 if y < 0 or x < 0 else s[y, x]

        i, j = img.indices
        top, left = max(i - radius, 0) - 1, max(j - radius, 0) - 1
        bottom, right = min(i + radius, h - 1), min(j + radius, w - 1)
        total = table(bottom, right) - table(top, right) - table(bottom, left) + table(top, left)
        return total / ((bottom - top) * (right - left))
    return box_blur_summed_area_table


def _median_reference(img):
    p = _edge(img)
    windows = np.stack([p[di:di + img.shape[0], dj:dj + img.shape[1]] for di in range(3) for dj in range(3)])
    return np.median(windows, axis=0).astype(F32)

# Paeth's 19 exchanges that leave the median of 9 values in the middle.
MEDIAN9 = ((1, 2), (4, 5), (7, 8), (0, 1), (3, 4), (6, 7), (1, 2), (4, 5), (7, 8), (0, 3), (5, 8), (4, 7),
           (3, 6), (1, 4), (2, 5), (4, 7), (4, 2), (6, 4), (4, 2))

@program("native", lambda rng: (rng.random((19, 26)).astype(F32),), _median_reference, rtol=0, atol=0)
def median_3x3_exchange_network():
    @tf.kernel_program
    def median_3x3_exchange_network(img: tf.Arg([-1, -1], tf.float32)):
        i, j = img.indices
        v = [img[i + di, j + dj] for di in (-1, 0, 1) for dj in (-1, 0, 1)]
        for a, b in MEDIAN9:
            v[a], v[b] = min(v[a], v[b]), max(v[a], v[b])
        return v[4]
    return median_3x3_exchange_network


def _resize_reference(img, out_h, out_w):
    h, w = img.shape
    sy = np.clip((np.arange(out_h) + 0.5) * h / out_h - 0.5, 0, h - 1)
    sx = np.clip((np.arange(out_w) + 0.5) * w / out_w - 0.5, 0, w - 1)
    y0, x0 = np.floor(sy).astype(int), np.floor(sx).astype(int)
    y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
    fy, fx = (sy - y0)[:, None], (sx - x0)[None, :]
    img = img.astype(np.float64)
    top = img[y0][:, x0] * (1 - fx) + img[y0][:, x1] * fx
    bottom = img[y1][:, x0] * (1 - fx) + img[y1][:, x1] * fx
    return top * (1 - fy) + bottom * fy

# float32 coordinates and weights of O(1) values against float64.
@program("native", lambda rng: (rng.random((13, 17)).astype(F32), 30, 23), _resize_reference, rtol=1e-5, atol=1e-6)
def bilinear_resize_to_size():
    @tf.kernel_program
    def bilinear_resize_to_size(img: tf.Arg([-1, -1], tf.float32), out_h: tf.Arg([], tf.int32),
                                out_w: tf.Arg([], tf.int32)):
        h, w = img.shape
        y, x = tf.indices([out_h, out_w])
        sy = min(max((y + 0.5) * h / out_h - 0.5, 0.0), h - 1.0)
        sx = min(max((x + 0.5) * w / out_w - 0.5, 0.0), w - 1.0)
        y0, x0 = int(sy), int(sx)  # sy, sx >= 0: truncation is the floor
        y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
        fy, fx = sy - y0, sx - x0
        top = img[y0, x0] * (1.0 - fx) + img[y0, x1] * fx
        bottom = img[y1, x0] * (1.0 - fx) + img[y1, x1] * fx
        return top * (1.0 - fy) + bottom * fy
    return bilinear_resize_to_size


def _sobel_reference(img):
    p = _edge(img).astype(np.int64)
    h, w = img.shape

    def at(di, dj):
        return p[1 + di:1 + di + h, 1 + dj:1 + dj + w]
    gx = at(-1, 1) + 2 * at(0, 1) + at(1, 1) - at(-1, -1) - 2 * at(0, -1) - at(1, -1)
    gy = at(1, -1) + 2 * at(1, 0) + at(1, 1) - at(-1, -1) - 2 * at(-1, 0) - at(-1, 1)
    mag = gx * gx + gy * gy
    m = _edge(mag)
    ax, ay = np.abs(gx), np.abs(gy)
    horizontal, vertical = 5 * ay <= 2 * ax, 5 * ax <= 2 * ay
    diagonal = gx * gy > 0
    out = np.zeros((h, w), I32)
    for i in range(h):
        for j in range(w):
            if horizontal[i, j]:
                n1, n2 = m[i + 1, j], m[i + 1, j + 2]
            elif vertical[i, j]:
                n1, n2 = m[i, j + 1], m[i + 2, j + 1]
            elif diagonal[i, j]:
                n1, n2 = m[i, j], m[i + 2, j + 2]
            else:
                n1, n2 = m[i, j + 2], m[i + 2, j]
            if mag[i, j] >= n1 and mag[i, j] >= n2 and mag[i, j] > 20:
                out[i, j] = mag[i, j]
    return out

@program("native", lambda rng: (rng.integers(0, 10, (21, 27)).astype(I32),), _sobel_reference)
def sobel_non_maximum_suppression():
    @tf.kernel_program
    def sobel_non_maximum_suppression(img: tf.Arg([-1, -1], tf.int32)):
        i, j = img.indices
        gx = img[i - 1, j + 1] + 2 * img[i, j + 1] + img[i + 1, j + 1] \
            - img[i - 1, j - 1] - 2 * img[i, j - 1] - img[i + 1, j - 1]
        gy = img[i + 1, j - 1] + 2 * img[i + 1, j] + img[i + 1, j + 1] \
            - img[i - 1, j - 1] - 2 * img[i - 1, j] - img[i - 1, j + 1]
        mag = gx * gx + gy * gy
        if 5 * abs(gy) <= 2 * abs(gx):  # tan(22.5 degrees) ~ 2/5: integer sectors
            n1, n2 = mag[i, j - 1], mag[i, j + 1]
        elif 5 * abs(gx) <= 2 * abs(gy):
            n1, n2 = mag[i - 1, j], mag[i + 1, j]
        elif gx * gy > 0:
            n1, n2 = mag[i - 1, j - 1], mag[i + 1, j + 1]
        else:
            n1, n2 = mag[i - 1, j + 1], mag[i + 1, j - 1]
        edge = 0
        if mag >= n1 and mag >= n2 and mag > 20:
            edge = mag
        return edge
    return sobel_non_maximum_suppression


# -- graphs and matrices -----------------------------------------------------------------------


def _floyd_inputs(rng, n=22):
    w = rng.integers(1, 30, (n, n))
    return np.where(rng.random((n, n)) < 0.15, w, 1_000_000).astype(I32),


def _floyd_reference(w):
    d = w.astype(np.int64)
    np.fill_diagonal(d, 0)
    for k in range(len(d)):
        d = np.minimum(d, d[:, k:k + 1] + d[k:k + 1, :])
    return d.astype(I32)

@program("native", _floyd_inputs, _floyd_reference)
def floyd_warshall_all_pairs():
    @tf.kernel_program
    def floyd_warshall_all_pairs(weights: tf.Arg([-1, -1], tf.int32)):
        n = weights.shape[0]
        i, j = weights.indices
        dist = 0 if i == j else weights
        for k in range(n):
            dist = min(dist, dist[i, k] + dist[k, j])
        return dist
    return floyd_warshall_all_pairs


def _rotation_like(rng, n=6):
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    return (q * 1.01).astype(F32), 37  # |eigenvalues| = 1.01: A^37 stays O(1)

# About log2(37) + popcount(37) = 8 float32 products, each within ~n ulps.
@program("native", _rotation_like, lambda a, p: np.linalg.matrix_power(a.astype(np.float64), p), rtol=1e-4, atol=1e-5)
def matrix_power_by_squaring():
    @tf.kernel_program
    def matrix_power_by_squaring(a: tf.Arg([-1, -1], tf.float32), power: tf.Arg([], tf.int32)):
        i, j = a.indices
        result = 1.0 if i == j else 0.0
        base = a
        p = power
        while p > 0:
            if p % 2 == 1:
                result = result @ base
            base = base @ base
            p = p // 2
        return result
    return matrix_power_by_squaring


# -- cloth, rays -------------------------------------------------------------------------------


def _cloth_reference(x, y, steps, iterations):
    x, y = x.astype(np.float64), y.astype(np.float64)
    px, py, rest = x.copy(), y.copy(), 1.0 / (x.shape[1] - 1)
    pinned = np.zeros(x.shape, bool)
    pinned[0, 0] = pinned[0, -1] = True
    for _ in range(steps):
        nx, ny = np.where(pinned, x, 2 * x - px), np.where(pinned, y, 2 * y - py - 0.0005)
        px, py, x, y = x, y, nx, ny
        for _ in range(iterations):
            cx, cy = np.zeros_like(x), np.zeros_like(y)
            for axis, shift in ((0, 1), (0, -1), (1, 1), (1, -1)):
                ox, oy = np.roll(x, shift, axis), np.roll(y, shift, axis)
                dx, dy = ox - x, oy - y
                length = np.sqrt(dx * dx + dy * dy)
                valid = np.ones(x.shape, bool)
                edge = 0 if shift == 1 else -1
                if axis == 0:
                    valid[edge, :] = False
                else:
                    valid[:, edge] = False
                s = np.where(valid, 0.5 * (length - rest) / length, 0.0)
                cx, cy = cx + s * dx, cy + s * dy
            x, y = np.where(pinned, x, x + 0.5 * cx), np.where(pinned, y, y + 0.5 * cy)
    return x, y


def _cloth_inputs(rng, n=9):
    i, j = np.indices((n, n)) / (n - 1)
    return (j + rng.normal(0, 0.01, (n, n))).astype(F32), (-i + rng.normal(0, 0.01, (n, n))).astype(F32), 10, 6

# 60 relaxation sweeps of O(1) positions with unit-scale spring corrections, in float32.
@program("native", _cloth_inputs, _cloth_reference, rtol=1e-4, atol=1e-5)
def cloth_verlet_relaxation():
    @tf.kernel_program
    def cloth_verlet_relaxation(x0: tf.Arg([-1, -1], tf.float32), y0: tf.Arg([-1, -1], tf.float32),
                                steps: tf.Arg([], tf.int32), iterations: tf.Arg([], tf.int32)):
        n, m = x0.shape
        rest = 1.0 / (m - 1)
        x, y, prev_x, prev_y = x0, y0, x0, y0
        i, j = x0.indices
        pinned = i == 0 and (j == 0 or j == m - 1)
        for _ in range(steps):
            nx, ny = 2.0 * x - prev_x, 2.0 * y - prev_y - 0.0005  # Verlet with gravity
            if pinned:
                nx, ny = x, y
            prev_x, prev_y, x, y = x, y, nx, ny
            for _ in range(iterations):
                cx = cy = 0.0
                for di, dj in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                    if i + di >= 0 and i + di < n and j + dj >= 0 and j + dj < m:
                        dx, dy = x[i + di, j + dj] - x, y[i + di, j + dj] - y
                        length = tf.sqrt(dx * dx + dy * dy)
                        s = 0.5 * (length - rest) / length
                        cx += s * dx
                        cy += s * dy
                if not pinned:
                    x, y = x + 0.5 * cx, y + 0.5 * cy
        return x, y
    return cloth_verlet_relaxation


def _spheres(rng):
    return np.array([[0.0, 0.0, -3.0, 1.0], [1.3, 0.4, -3.5, 0.6], [-1.2, -0.5, -2.6, 0.5],
                     [0.0, -101.0, -3.0, 100.0]], F32), 36, 24


def _trace_reference(spheres, width, height):
    y, x = np.indices((height, width)).astype(np.float64)
    d = np.stack([(x + 0.5) / width * 2 - 1, 1 - (y + 0.5) / height * 2, -np.ones_like(x)])
    d /= np.linalg.norm(d, axis=0)
    o, color, through = np.zeros_like(d), np.zeros_like(x), np.ones_like(x)
    alive = np.ones(x.shape, bool)
    light = np.array([0.5, 0.8, 0.3]) / np.linalg.norm([0.5, 0.8, 0.3])
    for _ in range(3):
        best, hit = np.full(x.shape, 1e30), np.full(x.shape, -1)
        for s, (cx, cy, cz, r) in enumerate(spheres.astype(np.float64)):
            oc = o - np.array([cx, cy, cz])[:, None, None]
            b = (oc * d).sum(0)
            disc = b * b - ((oc * oc).sum(0) - r * r)
            t = -b - np.sqrt(np.maximum(disc, 0))
            take = (disc > 0) & (t > 1e-3) & (t < best)
            best, hit = np.where(take, t, best), np.where(take, s, hit)
        sky = alive & (hit < 0)
        color += np.where(sky, through * (0.5 + 0.5 * d[1]), 0)
        alive &= hit >= 0
        p = o + best * d
        centre = spheres[np.maximum(hit, 0), :3].transpose(2, 0, 1).astype(np.float64)
        normal = (p - centre) / spheres[np.maximum(hit, 0), 3].astype(np.float64)
        color += np.where(alive, through * 0.3 * np.maximum((normal * light[:, None, None]).sum(0), 0), 0)
        d = np.where(alive, d - 2 * (d * normal).sum(0) * normal, d)
        o = np.where(alive, p, o)
        through = np.where(alive, through * 0.6, through)
    return color

# float32 rays against float64; no pixel centre of this scene lies within rounding of a silhouette.
@program("native", _spheres, _trace_reference, rtol=1e-4, atol=1e-5)
def ray_sphere_reflections():
    @tf.kernel_program
    def ray_sphere_reflections(spheres: tf.Arg([-1, 4], tf.float32), width: tf.Arg([], tf.int32),
                               height: tf.Arg([], tf.int32)):
        y, x = tf.indices([height, width])
        dx, dy, dz = (x + 0.5) / width * 2.0 - 1.0, 1.0 - (y + 0.5) / height * 2.0, -1.0
        norm = tf.sqrt(dx * dx + dy * dy + dz * dz)
        dx, dy, dz = dx / norm, dy / norm, dz / norm
        ox = oy = oz = 0.0
        lx, ly, lz = 0.5 / 0.9899495, 0.8 / 0.9899495, 0.3 / 0.9899495
        color, through = 0.0, 1.0
        for _ in range(3):
            best, hit = 1e30, -1
            for s in range(spheres.shape[0]):
                qx, qy, qz = ox - spheres[s, 0], oy - spheres[s, 1], oz - spheres[s, 2]
                b = qx * dx + qy * dy + qz * dz
                disc = b * b - (qx * qx + qy * qy + qz * qz - spheres[s, 3] ** 2)
                if disc > 0.0:
                    t = -b - tf.sqrt(disc)
                    if t > 1e-3 and t < best:
                        best, hit = t, s
            if hit < 0:
                color += through * (0.5 + 0.5 * dy)
                break
            ox, oy, oz = ox + best * dx, oy + best * dy, oz + best * dz
            r = spheres[hit, 3]
            nx, ny, nz = (ox - spheres[hit, 0]) / r, (oy - spheres[hit, 1]) / r, (oz - spheres[hit, 2]) / r
            color += through * 0.3 * max(nx * lx + ny * ly + nz * lz, 0.0)
            dn = dx * nx + dy * ny + dz * nz
            dx, dy, dz = dx - 2.0 * dn * nx, dy - 2.0 * dn * ny, dz - 2.0 * dn * nz
            through *= 0.6
        return color
    return ray_sphere_reflections


# -- hashing and random ------------------------------------------------------------------------


def _pcg32(v):
    state = (v * U32(747796405) + U32(2891336453)).astype(U32)
    word = (((state >> ((state >> U32(28)) + U32(4))) ^ state) * U32(277803737)).astype(U32)
    return (word >> U32(22)) ^ word


SKETCH_SEEDS = (0x9E3779B9, 0x85EBCA6B, 0xC2B2AE35, 0x27D4EB2F)  # one hash per row


def _sketch_reference(keys, width):
    rows = [(_pcg32(keys.astype(U32) ^ U32(seed)) % U32(width)).astype(np.int64) for seed in SKETCH_SEEDS]
    sketch = np.zeros((len(rows), width), I32)
    for r, h in enumerate(rows):
        np.add.at(sketch[r], h, 1)
    return sketch, np.min([sketch[r][h] for r, h in enumerate(rows)], axis=0).astype(I32)

@program("native", lambda rng: (rng.integers(0, 40, 300).astype(U32), 29), _sketch_reference)
def count_min_sketch_pcg():
    def pcg32(v):
        state = v * 747796405 + 2891336453
        word = ((state >> ((state >> 28) + 4)) ^ state) * 277803737
        return (word >> 22) ^ word

    @tf.kernel_program
    def count_min_sketch_pcg(keys: tf.Arg([-1], tf.uint32), width: tf.Arg([], tf.int32)):
        sketch = tf.zeros([len(SKETCH_SEEDS), width], tf.int32)
        for row, seed in enumerate(SKETCH_SEEDS):
            tf.scatterAdd(sketch[row, pcg32(keys ^ seed) % width], 1)
        estimate = min(sketch[row, pcg32(keys ^ seed) % width] for row, seed in enumerate(SKETCH_SEEDS))
        return sketch, estimate
    return count_min_sketch_pcg


def _ising_reference(spins, beta, sweeps):
    s = spins.astype(I32).copy()
    i, j = np.indices(s.shape)
    site = (i * s.shape[1] + j).astype(U32)
    for sweep in range(sweeps):
        for colour in (0, 1):
            nb = np.roll(s, 1, 0) + np.roll(s, -1, 0) + np.roll(s, 1, 1) + np.roll(s, -1, 1)
            de = 2 * s * nb
            h = _pcg32(site * U32(4) + U32(sweep * 2 + colour) * U32(65536))
            u = (h >> U32(8)).astype(F32) / F32(16777216.0)
            flip = ((i + j) % 2 == colour) & ((de <= 0) | (u < np.exp(F32(-beta) * de.astype(F32))))
            s = np.where(flip, -s, s)
    return s, np.int32(s.sum())

@program("native", lambda rng: (np.where(rng.random((16, 20)) < 0.5, 1, -1).astype(I32), 0.4, 15), _ising_reference)
def ising_checkerboard_metropolis():
    def pcg32(v):
        state = v * 747796405 + 2891336453
        word = ((state >> ((state >> 28) + 4)) ^ state) * 277803737
        return (word >> 22) ^ word

    @tf.kernel_program
    def ising_checkerboard_metropolis(spins: tf.Arg([-1, -1], tf.int32), beta: tf.Arg([], tf.float32),
                                      sweeps: tf.Arg([], tf.int32)):
        n, m = spins.shape
        s = spins
        i, j = s.indices
        site = tf.uint(i * m + j)
        for sweep in range(sweeps):
            for colour in range(2):
                nb = s[(i - 1) % n, j] + s[(i + 1) % n, j] + s[i, (j - 1) % m] + s[i, (j + 1) % m]
                de = 2 * s * nb
                u = float(pcg32(site * 4 + tf.uint(sweep * 2 + colour) * 65536) >> 8) / 16777216.0
                if (i + j) % 2 == colour and (de <= 0 or u < tf.exp(-beta * float(de))):
                    s = -s
        return s, tf.sum(tf.sum(s))  # tf.sum reduces the last axis
    return ising_checkerboard_metropolis
