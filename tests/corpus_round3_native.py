"""Corpus, round three (issue 27): programs of kinds the corpus lacked, in native style
(@tf.kernel_program): particles with neighbour searches, lattice Boltzmann, DP tables, flood
fill, a rasterizer, a sieve (more in corpus_round3_native_b.py)."""

import numpy as np
from corpus import program

import tensorfrost as tf

F32, I32, U32 = np.float32, np.int32, np.uint32


# -- particles ---------------------------------------------------------------------------------


def _sph_reference(pos, cells):
    h2 = (1.0 / cells) ** 2
    d = pos[:, None, :].astype(np.float64) - pos[None, :, :]
    r2 = (d * d).sum(axis=2)
    rho = np.where(r2 < h2, (h2 - r2) ** 3, 0.0).sum(axis=1) / h2 ** 3
    cx, cy = (np.minimum((pos[:, k] * cells).astype(I32), cells - 1) for k in (0, 1))
    cell = cy * cells + cx
    return rho, np.bincount(cell, minlength=cells * cells).astype(I32)

# Each density sums ~10 cubes of O(1) float32 terms; pairs at r ~ h add ~0 whichever side they fall.
@program("native", lambda rng: (rng.random((160, 2)).astype(F32), 8), _sph_reference, rtol=1e-4, atol=1e-5)
def sph_density_cell_list():
    @tf.kernel_program
    def sph_density_cell_list(pos: tf.Arg([-1, 2], tf.float32), cells: tf.Arg([], tf.int32)):
        n = pos.shape[0]
        h = 1.0 / cells
        p, = tf.indices([n])
        cx = min(int(pos[p, 0] * cells), cells - 1)
        cy = min(int(pos[p, 1] * cells), cells - 1)
        cell = cy * cells + cx
        count = tf.zeros([cells * cells], tf.int32)
        tf.scatterAdd(count[cell], 1)
        c, = count.indices
        start = 0  # exclusive prefix sum of the counts, by hand
        for q in range(c):
            start += count[q]
        rank = 0  # a stable counting sort: earlier particles of the same cell go first
        for q in range(p):
            if cell[q] == cell:
                rank += 1
        order = tf.zeros([n], tf.int32)
        order[start[cell] + rank] = p
        rho = 0.0
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                nx = cx + dx
                ny = cy + dy
                if nx >= 0 and nx < cells and ny >= 0 and ny < cells:
                    nc = ny * cells + nx
                    for k in range(start[nc], start[nc] + count[nc]):
                        q = order[k]
                        ddx = pos[q, 0] - pos[p, 0]
                        ddy = pos[q, 1] - pos[p, 1]
                        r2 = ddx * ddx + ddy * ddy
                        if r2 < h * h:
                            rho += (h * h - r2) ** 3
        return rho / (h * h) ** 3, count
    return sph_density_cell_list


def _boids_reference(px, py, vx, vy, steps):
    px, py, vx, vy = (a.astype(np.float64) for a in (px, py, vx, vy))
    for _ in range(steps):
        dx, dy = px[None, :] - px[:, None], py[None, :] - py[:, None]
        d2 = dx * dx + dy * dy
        near = (d2 < 0.04) & ~np.eye(len(px), dtype=bool)
        close = near & (d2 < 0.0025)
        count = near.sum(axis=1)
        safe = np.maximum(count, 1)
        ax = np.where(count > 0, 0.05 * ((near * vx).sum(1) / safe - vx) + 0.01 * (near * dx).sum(1) / safe, 0.0)
        ay = np.where(count > 0, 0.05 * ((near * vy).sum(1) / safe - vy) + 0.01 * (near * dy).sum(1) / safe, 0.0)
        vx, vy = vx + ax - 0.1 * (close * dx).sum(1), vy + ay - 0.1 * (close * dy).sum(1)
        speed = np.sqrt(vx * vx + vy * vy)
        scale = np.where(speed > 0.03, 0.03 / np.maximum(speed, 1e-30), 1.0)
        vx, vy = vx * scale, vy * scale
        px, py = np.mod(px + vx, 1.0), np.mod(py + vy, 1.0)
    return px, py

# 4 steps of O(1) float32 sums; no pair sits within rounding of a radius.
@program("native", lambda rng: (*rng.random((2, 48)).astype(F32), *rng.uniform(-0.02, 0.02, (2, 48)).astype(F32), 4),
         _boids_reference, rtol=1e-4, atol=1e-5)
def boids_neighbour_rules():
    @tf.kernel_program
    def boids_neighbour_rules(px0: tf.Arg([-1], tf.float32), py0: tf.Arg([-1], tf.float32),
                              vx0: tf.Arg([-1], tf.float32), vy0: tf.Arg([-1], tf.float32),
                              steps: tf.Arg([], tf.int32)):
        px, py, vx, vy = px0, py0, vx0, vy0
        n = px.shape[0]
        for _ in range(steps):
            i, = px.indices
            count = 0
            mean_vx = mean_vy = to_x = to_y = push_x = push_y = 0.0
            for j in range(n):
                dx = px[j] - px[i]
                dy = py[j] - py[i]
                d2 = dx * dx + dy * dy
                if j == i or d2 >= 0.04:
                    continue
                count += 1
                mean_vx += vx[j]
                mean_vy += vy[j]
                to_x += dx
                to_y += dy
                if d2 < 0.0025:  # too close: separation
                    push_x -= dx
                    push_y -= dy
            nvx, nvy = vx + 0.1 * push_x, vy + 0.1 * push_y
            if count > 0:
                nvx += 0.05 * (mean_vx / count - vx) + 0.01 * to_x / count
                nvy += 0.05 * (mean_vy / count - vy) + 0.01 * to_y / count
            speed = (nvx * nvx + nvy * nvy) ** 0.5
            if speed > 0.03:
                nvx *= 0.03 / speed
                nvy *= 0.03 / speed
            vx, vy = nvx, nvy
            px = (px + vx) % 1.0  # the unit torus
            py = (py + vy) % 1.0
        return px, py
    return boids_neighbour_rules


# -- lattice Boltzmann -------------------------------------------------------------------------

D2Q9_CX = np.array([0, 1, 0, -1, 0, 1, -1, -1, 1], I32)
D2Q9_CY = np.array([0, 0, 1, 0, -1, 1, 1, -1, -1], I32)
D2Q9_W = np.array([4 / 9] + [1 / 9] * 4 + [1 / 36] * 4, F32)


def _lbm_inputs(rng):
    i, j = np.indices((20, 28))
    rho = 1.0 + 0.05 * np.exp(-((i - 10) ** 2 + (j - 12) ** 2) / 8.0)
    return rho.astype(F32), rng.uniform(-0.02, 0.02, (20, 28)).astype(F32), np.zeros((20, 28), F32), \
        D2Q9_CX, D2Q9_CY, D2Q9_W, 12


def _lbm_equilibrium(rho, ux, uy, cx, cy, w):
    cu = 3.0 * (cx[:, None, None] * ux + cy[:, None, None] * uy)
    return w[:, None, None] * rho * (1.0 + cu + 0.5 * cu * cu - 1.5 * (ux * ux + uy * uy))


def _lbm_reference(rho, ux, uy, cx, cy, w, steps):
    w = w.astype(np.float64)
    f = _lbm_equilibrium(rho.astype(np.float64), ux, uy, cx, cy, w)
    for _ in range(steps):
        f = np.stack([np.roll(f[k], (cy[k], cx[k]), (0, 1)) for k in range(9)])
        rho = f.sum(0)
        ux, uy = (f * cx[:, None, None]).sum(0) / rho, (f * cy[:, None, None]).sum(0) / rho
        f = f + 1.2 * (_lbm_equilibrium(rho, ux, uy, cx, cy, w) - f)
    return f.sum(0), (f * cx[:, None, None]).sum(0) / f.sum(0)

# 12 BGK steps of O(1) float32 populations: errors of a few ulps per step.
@program("native", _lbm_inputs, _lbm_reference, rtol=1e-5, atol=1e-5)
def lattice_boltzmann_d2q9():
    @tf.kernel_program
    def lattice_boltzmann_d2q9(rho0: tf.Arg([-1, -1], tf.float32), ux0: tf.Arg([-1, -1], tf.float32),
                               uy0: tf.Arg([-1, -1], tf.float32), cx: tf.Arg([9], tf.int32),
                               cy: tf.Arg([9], tf.int32), w: tf.Arg([9], tf.float32),
                               steps: tf.Arg([], tf.int32)):
        n, m = rho0.shape
        k, i, j = tf.indices([9, n, m])
        ex, ey = float(cx[k]), float(cy[k])
        cu = 3.0 * (ex * ux0[i, j] + ey * uy0[i, j])
        f = w[k] * rho0[i, j] * (1.0 + cu + 0.5 * cu * cu - 1.5 * (ux0[i, j] ** 2 + uy0[i, j] ** 2))
        for _ in range(steps):
            f = f[k, (i - cy[k]) % n, (j - cx[k]) % m]  # streaming: pull from the upwind cell
            rho = tf.sum(f, axis=0)
            ux = tf.sum(f * ex, axis=0) / rho
            uy = tf.sum(f * ey, axis=0) / rho
            cu = 3.0 * (ex * ux[i, j] + ey * uy[i, j])
            feq = w[k] * rho[i, j] * (1.0 + cu + 0.5 * cu * cu - 1.5 * (ux[i, j] ** 2 + uy[i, j] ** 2))
            f = f + 1.2 * (feq - f)
        rho = tf.sum(f, axis=0)
        return rho, tf.sum(f * ex, axis=0) / rho
    return lattice_boltzmann_d2q9


# -- DP tables ---------------------------------------------------------------------------------


def _levenshtein(a, b):
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + int(a[i - 1] != b[j - 1]))
    return np.array(d, I32), np.int32(d[-1][-1])

@program("native", lambda rng: (rng.integers(0, 4, 23).astype(I32), rng.integers(0, 4, 17).astype(I32)), _levenshtein)
def edit_distance_wavefront():
    @tf.kernel_program
    def edit_distance_wavefront(a: tf.Arg([-1], tf.int32), b: tf.Arg([-1], tf.int32)):
        n, m = a.shape[0], b.shape[0]
        d = tf.zeros([n + 1, m + 1], tf.int32)
        i, j = d.indices
        if i == 0 or j == 0:
            d = i + j
        for diagonal in range(2, n + m + 1):  # cells of one anti-diagonal depend only on earlier ones
            if i >= 1 and j >= 1 and i + j == diagonal:
                cost = 0 if a[i - 1] == b[j - 1] else 1
                d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + cost)
        return d, d[n, m]
    return edit_distance_wavefront


def _knapsack_reference(weights, values, capacity):
    best = [0] * (capacity + 1)
    for w, v in zip(weights, values):
        best = [max(best[c], best[c - w] + v) if c >= w else best[c] for c in range(capacity + 1)]
    return np.array(best, I32), np.int32(best[capacity])

@program("native", lambda rng: (rng.integers(1, 15, 18).astype(I32), rng.integers(1, 40, 18).astype(I32), 50),
         _knapsack_reference)
def knapsack_capacity_from_input():
    @tf.kernel_program
    def knapsack_capacity_from_input(weights: tf.Arg([-1], tf.int32), values: tf.Arg([-1], tf.int32),
                                     capacity: tf.Arg([], tf.int32)):
        best = tf.zeros([capacity + 1], tf.int32)
        for item in range(weights.shape[0]):
            c, = best.indices
            w = weights[item]
            if c >= w:
                best = max(best, best[c - w] + values[item])
        return best, best[capacity]
    return knapsack_capacity_from_input


def _flood_reference(mask):
    h, w = mask.shape
    label = np.full((h, w), -1, I32)
    for start in range(h * w):
        if mask.flat[start] and label.flat[start] < 0:
            stack = [start]
            label.flat[start] = start  # the first pixel of a component (row-major) labels it
            while stack:
                y, x = divmod(stack.pop(), w)
                for yy, xx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
                    if 0 <= yy < h and 0 <= xx < w and mask[yy, xx] and label[yy, xx] < 0:
                        label[yy, xx] = start
                        stack.append(yy * w + xx)
    return label, np.int32(len(np.unique(label[label >= 0])))

@program("native", lambda rng: ((rng.random((18, 24)) < 0.55).astype(I32),), _flood_reference)
def flood_fill_grid_labels():
    @tf.kernel_program
    def flood_fill_grid_labels(mask: tf.Arg([-1, -1], tf.int32)):
        h, w = mask.shape
        i, j = mask.indices
        label = -1
        if mask == 1:
            label = i * w + j
        while True:  # each pixel takes the smallest label of its 4-neighbours until none changes
            best = label
            if mask == 1:
                for di, dj in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                    y, x = i + di, j + dj
                    if y >= 0 and y < h and x >= 0 and x < w and mask[y, x] == 1:
                        best = min(best, label[y, x])
            changed = tf.sum(tf.sum(tf.int(best != label)))
            label = best
            if changed == 0:
                break
        components = tf.sum(tf.sum(tf.int(label == i * w + j)))
        return label, components
    return flood_fill_grid_labels


# -- rasterizer --------------------------------------------------------------------------------


def _raster_inputs(rng, count=7, width=40, height=28):
    xy = rng.integers(0, 4 * np.array([width, height]), (count, 3, 2)) / 4.0  # quarter pixels: exact edge functions
    z = rng.uniform(0.1, 0.9, (count, 3, 1))
    return np.concatenate([xy, z], axis=2).astype(F32), width, height


def _edge_fn(ax, ay, bx, by, x, y):
    return (bx - ax) * (y - ay) - (by - ay) * (x - ax)


def _raster_reference(tris, width, height):
    y, x = np.indices((height, width)).astype(F32) + F32(0.5)
    depth, ident = np.full((height, width), np.inf, F32), np.full((height, width), -1, I32)
    for t, ((x0, y0, z0), (x1, y1, z1), (x2, y2, z2)) in enumerate(tris):
        area = _edge_fn(x0, y0, x1, y1, x2, y2)
        if area == 0:
            continue
        w0, w1, w2 = _edge_fn(x1, y1, x2, y2, x, y), _edge_fn(x2, y2, x0, y0, x, y), _edge_fn(x0, y0, x1, y1, x, y)
        if area < 0:
            area, w0, w1, w2 = -area, -w0, -w1, -w2
        z = (w0 * z0 + w1 * z1 + w2 * z2) / area
        inside = (area > 0) & (w0 >= 0) & (w1 >= 0) & (w2 >= 0)
        nearer = inside & ((z < depth) | ((z == depth) & (t > ident)))
        depth, ident = np.where(nearer, z, depth), np.where(nearer, t, ident)
    return np.where(ident >= 0, depth, F32(2.0)), ident

# Edge functions of quarter-pixel vertices at pixel centres are exact in float32; the depth may
# differ by an ulp (a contracted multiply-add), which never reorders these triangles.
# The recompute pass computes z again in the second kernel: before -ffp-contract=off, g++ fused
# other multiply-adds there than in the first, so the z compared with the z-buffer differed by an
# ulp from the z scatterMin stored, and 77 of 456 covered pixels got no triangle (cpu).
@program("native", _raster_inputs, _raster_reference, rtol=1e-6, atol=1e-7)
def triangle_raster_zbuffer():
    def edge(ax, ay, bx, by, x, y):
        return (bx - ax) * (y - ay) - (by - ay) * (x - ax)

    @tf.kernel_program
    def triangle_raster_zbuffer(tris: tf.Arg([-1, 3, 3], tf.float32), width: tf.Arg([], tf.int32),
                                height: tf.Arg([], tf.int32)):
        zbuf = tf.zeros([height, width], tf.int32) + 0x7FFFFFFF
        t, y, x = tf.indices([tris.shape[0], height, width])
        px, py = float(x) + 0.5, float(y) + 0.5
        x0, y0, z0 = tris[t, 0, 0], tris[t, 0, 1], tris[t, 0, 2]
        x1, y1, z1 = tris[t, 1, 0], tris[t, 1, 1], tris[t, 1, 2]
        x2, y2, z2 = tris[t, 2, 0], tris[t, 2, 1], tris[t, 2, 2]
        area = edge(x0, y0, x1, y1, x2, y2)
        w0, w1, w2 = edge(x1, y1, x2, y2, px, py), edge(x2, y2, x0, y0, px, py), edge(x0, y0, x1, y1, px, py)
        if area < 0.0:  # either winding
            area, w0, w1, w2 = -area, -w0, -w1, -w2
        inside = area > 0.0 and w0 >= 0.0 and w1 >= 0.0 and w2 >= 0.0
        z = (w0 * z0 + w1 * z1 + w2 * z2) / area
        if inside:
            tf.scatterMin(zbuf[y, x], tf.asint(z))  # positive floats order as their bits
        ident = tf.zeros([height, width], tf.int32) - 1
        if inside and tf.asint(z) == zbuf[y, x]:
            tf.scatterMax(ident[y, x], t)
        depth = tf.asfloat(zbuf)
        if ident < 0:
            depth = 2.0
        return depth, ident
    return triangle_raster_zbuffer


# -- number theory -----------------------------------------------------------------------------


def _sieve_reference(n):
    flags = np.array([int(k > 1 and all(k % d for d in range(2, int(k ** 0.5) + 1))) for k in range(n + 1)], I32)
    twins = sum(1 for k in range(2, n - 1) if flags[k] and flags[k + 2])
    return flags, np.int32(flags.sum()), np.int32(twins)

@program("native", lambda rng: (300,), _sieve_reference)
def sieve_of_eratosthenes():
    @tf.kernel_program
    def sieve_of_eratosthenes(n: tf.Arg([], tf.int32)):
        is_prime = tf.ones([n + 1], tf.int32)
        is_prime[0] = 0
        is_prime[1] = 0
        p = 2
        while p * p <= n:
            if is_prime[p] == 1:
                k, = tf.indices([(n - p * p) // p + 1])
                is_prime[p * p + k * p] = 0
            p += 1
        i, = tf.indices([n - 1])
        twins = tf.sum(is_prime[i] * is_prime[i + 2])
        return is_prime, tf.sum(is_prime), twins
    return sieve_of_eratosthenes
