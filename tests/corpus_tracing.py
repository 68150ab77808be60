"""Corpus: realistic programs in tracing style (tf.compile with tf.loop, tf.if_cond, .val)."""

import numpy as np
from corpus import program

import tensorfrost as tf

F32 = np.float32


def _positive(rng):
    return (rng.uniform(0.01, 100.0, 73).astype(F32),)


def _seeds(rng):
    return (rng.integers(1, 2**32, 40, dtype=np.uint64).astype(np.uint32),)


def _pad(u):
    """Edge padding: out-of-range loads clamp to the border, as in tensorfrost."""
    return np.pad(u, 1, mode="edge")


def _escape(z_re, z_im, c_re, c_im, iters, bound, dtype):
    """Escape counts, one plain-Python orbit per pixel, in float32 with the program's operation order."""
    out = np.zeros(z_re.shape, dtype)
    for idx in np.ndindex(z_re.shape):
        zr, zi, cr, ci = z_re[idx], z_im[idx], c_re[idx], c_im[idx]
        count = 0
        for _ in range(iters):
            zr, zi = zr * zr - zi * zi + cr, F32(2.0) * zr * zi + ci
            count += 1
            if zr * zr + zi * zi > bound:
                break
        out[idx] = count
    return out

def _reference_mandelbrot():
    i, j = np.indices((64, 96)).astype(F32)
    c_re, c_im = j / F32(32.0) - F32(2.0), i / F32(32.0) - F32(1.0)  # dyadic: exact in float32
    zero = np.zeros_like(c_re)
    return _escape(zero, zero, c_re, c_im, 64, F32(256.0), F32)

@program("tracing", lambda rng: (), _reference_mandelbrot, rtol=0.0, atol=0.0)
def mandelbrot_traced():
    def mandelbrot():
        canvas = tf.zeros([64, 96], tf.float32)
        i, j = canvas.indices
        c_re = tf.float(j) / 32.0 - 2.0
        c_im = tf.float(i) / 32.0 - 1.0
        z_re = tf.const(0.0)
        z_im = tf.const(0.0)
        count = tf.const(0.0)
        with tf.loop(64):  # at 128 a few boundary pixels depend on fused multiply-adds
            z_re_new = z_re * z_re - z_im * z_im + c_re
            z_im_new = 2.0 * z_re * z_im + c_im
            z_re.val = z_re_new
            z_im.val = z_im_new
            count.val = count + 1.0
            with tf.if_cond(z_re * z_re + z_im * z_im > 256.0):
                tf.break_loop()
        canvas[i, j] = count
        return [canvas]
    return tf.compile(mandelbrot)


def _inputs_julia(rng):
    i, j = np.indices((40, 56)).astype(F32)
    return j / F32(16.0) - F32(1.75), i / F32(16.0) - F32(1.25)

def _reference_julia(z_re, z_im):
    c_re, c_im = np.full_like(z_re, F32(-1.0)), np.full_like(z_re, F32(0.25))
    return _escape(z_re, z_im, c_re, c_im, 100, F32(4.0), np.int32)

@program("tracing", _inputs_julia, _reference_julia)
def julia_traced():
    def julia():
        z0_re = tf.input([-1, -1], tf.float32)
        z0_im = tf.input(z0_re.shape, tf.float32)
        z_re = z0_re * 1.0
        z_im = z0_im * 1.0
        n = tf.const(0)

        def body(k):
            z_re_new = z_re * z_re - z_im * z_im - 1.0
            z_im.val = 2.0 * z_re * z_im + 0.25
            z_re.val = z_re_new
            n.val = n + 1
            with tf.if_cond(z_re * z_re + z_im * z_im > 4.0):
                tf.break_loop()

        tf.loop(0, 100, 1, body)
        return [n]
    return tf.compile(julia)


def _reference_collatz(n):
    def steps(x):
        count = 0
        while x != 1:
            x = x // 2 if x % 2 == 0 else 3 * x + 1
            count += 1
        return count
    return np.array([steps(int(x)) for x in n], np.int32)  # at most 118 steps below 100

@program("tracing", lambda rng: (np.arange(1, 101, dtype=np.int32),), _reference_collatz)
def collatz_traced():
    def collatz():
        n = tf.input([-1], tf.int32)
        x = n * 1
        steps = tf.const(0)
        with tf.loop(200):
            with tf.if_cond(x == 1):
                tf.break_loop()
            x.val = tf.select(x % 2 == 0, x / 2, 3 * x + 1)
            steps.val = steps + 1
        return [steps]
    return tf.compile(collatz)


@program("tracing", lambda rng: tuple(rng.integers(1, 1000, (2, 50)).astype(np.int32)),
         lambda a, b: np.gcd(a, b).astype(np.int32))
def gcd_traced():
    def gcd():
        a = tf.input([-1], tf.int32)
        b = tf.input(a.shape, tf.int32)
        x = a * 1
        y = b * 1
        with tf.loop(64):  # Euclid needs < 20 steps below 1000
            with tf.if_cond(y == 0):
                tf.break_loop()
            t = x % y
            x.val = y
            y.val = t
        return [x]
    return tf.compile(gcd)


def _inputs_search(rng):
    table = np.sort(rng.uniform(0, 100, 57)).astype(F32)
    queries = np.concatenate([rng.uniform(-5, 105, 40), table[::5]]).astype(F32)
    return table, queries

@program("tracing", _inputs_search, lambda table, q: np.searchsorted(table, q, side="left").astype(np.int32))
def binary_search_traced():
    def lower_bound():
        table = tf.input([-1], tf.float32)
        q = tf.input([-1], tf.float32)
        lo = tf.const(0)
        hi = tf.const(0)
        hi.val = table.shape[0]
        with tf.loop(32):
            with tf.if_cond(lo >= hi):
                tf.break_loop()
            mid = (lo + hi) / 2
            with tf.if_cond(table[mid] < q):
                lo.val = mid + 1
            with tf.if_cond(table[mid] >= q):
                hi.val = mid
        return [lo]
    return tf.compile(lower_bound)


@program("tracing", _positive, lambda a: np.sqrt(a.astype(np.float64)), rtol=2e-7, atol=0.0)  # converged: 1 ulp
def newton_sqrt_traced():
    def newton_sqrt():
        a = tf.input([-1], tf.float32)
        x = a * 0.5 + 0.5
        with tf.loop(50):
            x_new = 0.5 * (x + a / x)
            done = tf.abs(x_new - x) <= 1e-6 * x_new
            x.val = x_new
            with tf.if_cond(done):
                tf.break_loop()
        return [x]
    return tf.compile(newton_sqrt)


# Bisection stops at an interval of 1e-6 relative; mid^3 rounds by ~2 ulp: 2e-6 covers both.
@program("tracing", _positive, lambda a: np.cbrt(a.astype(np.float64)), rtol=2e-6, atol=0.0)
def bisection_cbrt_traced():
    def cbrt():
        a = tf.input([-1], tf.float32)
        lo = tf.const(0.0)
        hi = tf.max(a, 1.0)
        with tf.loop(100):
            mid = (lo + hi) * 0.5
            with tf.if_cond(mid * mid * mid > a):
                hi.val = mid
            with tf.if_cond(mid * mid * mid <= a):
                lo.val = mid
            with tf.if_cond(hi - lo <= 1e-6 * hi):
                tf.break_loop()
        return [(lo + hi) * 0.5]
    return tf.compile(cbrt)


def _reference_first(x):
    hit = x > 1.5
    return np.where(hit.any(axis=1), hit.argmax(axis=1), -1).astype(np.int32)

@program("tracing", lambda rng: (rng.standard_normal((30, 24)).astype(F32),), _reference_first)
def first_above_traced():
    def first_above():
        x = tf.input([-1, -1], tf.float32)
        n, m = x.shape
        i, = tf.indices([n])
        first = tf.const(-1)
        with tf.loop(m) as j:
            with tf.if_cond(x[i, j] > 1.5):
                first.val = j
                tf.break_loop()
        return [first]
    return tf.compile(first_above)


def _reference_row_pos(x):
    out = np.zeros(x.shape[0], F32)
    for j in range(x.shape[1]):  # same order of additions as the program
        out = np.where(x[:, j] < 0, out, out + x[:, j])
    return out

@program("tracing", lambda rng: (rng.standard_normal((30, 24)).astype(F32),), _reference_row_pos)
def row_positive_sum_traced():
    def row_positive_sum():
        x = tf.input([-1, -1], tf.float32)
        n, m = x.shape
        i, = tf.indices([n])
        s = tf.const(0.0)
        with tf.loop(m) as j:
            v = x[i, j]
            with tf.if_cond(v < 0.0):
                tf.continue_loop()
            s.val = s + v
        return [s]
    return tf.compile(row_positive_sum)


def _reference_piecewise(x):
    y = np.where(x < -1, -2 * x - 1, np.where(x < 1, x * x, np.where(x < 2, 2 * x - 1, F32(3.0))))
    cls = np.where(x < -1, 0, np.where(x < 1, 1, np.where(x < 2, 2, 3)))
    return y.astype(F32), cls.astype(np.int32)

@program("tracing", lambda rng: (np.linspace(-3, 3, 61).astype(F32),), _reference_piecewise)
def piecewise_elif_traced():
    def piecewise():
        x = tf.input([-1], tf.float32)
        y = tf.zeros(x.shape)
        cls = tf.const(0)
        with tf.if_cond(x < -1.0):
            y.val = -2.0 * x - 1.0
        with tf.if_cond(x >= -1.0):
            with tf.if_cond(x < 1.0):  # elif
                y.val = x * x
                cls.val = 1
            with tf.if_cond(x >= 1.0):
                with tf.if_cond(x < 2.0):  # elif
                    y.val = 2.0 * x - 1.0
                    cls.val = 2
                with tf.if_cond(x >= 2.0):  # else
                    y.val = 3.0
                    cls.val = 3
        return [y, cls]
    return tf.compile(piecewise)


def _inputs_wave(rng):
    u = np.zeros((32, 40), F32)
    u[12:20, 16:24] = 1.0
    return u, rng.standard_normal((32, 40)).astype(F32) * F32(0.1)

def _reference_wave(u, v):
    u, v = u.astype(np.float64), v.astype(np.float64)
    for _ in range(30):
        p = _pad(u)
        lap = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4.0 * u
        v = v + 0.1 * lap
        u = u + 0.1 * v
    return u, v

# 30 stable steps of O(1) values: float32 rounding accumulates to ~1e-5.
@program("tracing", _inputs_wave, _reference_wave, rtol=1e-4, atol=1e-4)
def wave_steps_traced():
    def wave():
        u0 = tf.input([-1, -1], tf.float32)
        v0 = tf.input(u0.shape, tf.float32)
        u = u0 * 1.0
        v = v0 * 1.0
        with tf.loop(30):
            i, j = u.indices
            laplacian = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - u * 4.0
            v.val = v + 0.1 * laplacian
            u.val = u + 0.1 * v
        return [u, v]
    return tf.compile(wave)


def _reference_heat(u, steps):
    u = u.astype(np.float64)
    for _ in range(steps):
        p = _pad(u)
        u = u + 0.2 * (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4.0 * u)
    return u

# Diffusion is a contraction: float32 rounding stays ~ a few ulp of values <= 1.
@program("tracing", lambda rng: (rng.uniform(0, 1, (24, 33)).astype(F32), 25), _reference_heat, rtol=1e-5, atol=1e-5)
def heat_steps_traced():
    def heat():
        u0 = tf.input([-1, -1], tf.float32)
        steps = tf.input([], tf.int32)
        u = u0 * 1.0
        with tf.loop(steps):
            i, j = u.indices
            u.val = u + 0.2 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u)
        return [u]
    return tf.compile(heat)


def _reference_jacobi(b):
    # (8 - neighbours) u = b with clamped borders: Jacobi contracts by <= 1/2 per sweep.
    b = b.astype(np.float64)
    u = np.zeros_like(b)
    for _ in range(200):
        p = _pad(u)
        u_new = (b + p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:]) / 8.0
        err = np.abs(u_new - u).max()
        u = u_new
        if err < 1e-5:
            break
    return u

# Stops once a sweep changes u by < 1e-5, so u is within 2e-5 of the fixed point either way.
@program("tracing", lambda rng: (rng.standard_normal((20, 28)).astype(F32),), _reference_jacobi, rtol=0.0, atol=5e-5)
def jacobi_converge_traced():
    def jacobi():
        b = tf.input([-1, -1], tf.float32)
        u = tf.zeros(b.shape)
        with tf.loop(200):
            i, j = u.indices
            u_new = (b + u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]) / 8.0
            err = tf.max(tf.max(tf.abs(u_new - u)))
            u.val = u_new
            with tf.if_cond(err < 1e-5):
                tf.break_loop()
        return [u]
    return tf.compile(jacobi)


def _reference_life(g):
    for _ in range(10):
        nb = sum(np.roll(np.roll(g, di, 0), dj, 1) for di in (-1, 0, 1) for dj in (-1, 0, 1)) - g
        g = ((nb == 3) | ((g == 1) & (nb == 2))).astype(np.int32)
    return g

@program("tracing", lambda rng: (rng.integers(0, 2, (24, 30)).astype(np.int32),), _reference_life)
def game_of_life_traced():
    def life():
        g0 = tf.input([-1, -1], tf.int32)
        n, m = g0.shape
        g = g0 * 1
        with tf.loop(10):
            i, j = g.indices
            nb = tf.zeros(g.shape, tf.int32)
            with tf.loop(-1, 2) as di:
                with tf.loop(-1, 2) as dj:
                    nb.val = nb + g[(i + di + n) % n, (j + dj + m) % m]
            nb.val = nb - g
            alive = (nb == 3) | ((g == 1) & (nb == 2))
            g.val = tf.select(alive, 1, 0)
        return [g]
    return tf.compile(life)


def _reference_blur(img):
    p = np.pad(img, 2, mode="edge")
    acc = np.zeros_like(img)
    for dy in range(-2, 3):  # same order of float32 additions as the program
        for dx in range(-2, 3):
            acc = acc + p[2 + dy:p.shape[0] - 2 + dy, 2 + dx:p.shape[1] - 2 + dx]
    return acc / F32(25.0)

@program("tracing", lambda rng: (rng.uniform(0, 1, (32, 45)).astype(F32),), _reference_blur, rtol=1e-6, atol=1e-7)
def box_blur_traced():
    def box_blur():
        img = tf.input([-1, -1], tf.float32)
        i, j = img.indices
        acc = tf.zeros(img.shape)
        with tf.loop(-2, 3) as dy:
            with tf.loop(-2, 3) as dx:
                acc.val = acc + img[i + dy, j + dx]
        return [acc / 25.0]
    return tf.compile(box_blur)


def _reference_particles(pos, vel):
    pos, vel = pos.astype(np.float64), vel.astype(np.float64)
    for _ in range(100):
        vel = vel - np.array([0.0, 0.05])
        pos = pos + vel * 0.02
        low, high = pos < 0.0, pos > 1.0
        pos = np.where(low, -pos, np.where(high, 2.0 - pos, pos))
        vel = np.where(low | high, -0.9 * vel, vel)
    return pos, vel

# 100 steps of float32 updates of O(1) values; no bounce sits within rounding of a wall.
@program("tracing", lambda rng: (rng.uniform(0.1, 0.9, (50, 2)).astype(F32), rng.uniform(-1, 1, (50, 2)).astype(F32)),
         _reference_particles, rtol=1e-4, atol=1e-5)
def bouncing_particles_traced():
    def particles():
        pos0 = tf.input([-1, 2], tf.float32)
        vel0 = tf.input(pos0.shape, tf.float32)
        pos = pos0 * 1.0
        vel = vel0 * 1.0
        i, k = pos.indices
        gravity = tf.select(k == 1, 0.05, 0.0)
        with tf.loop(100):
            vel.val = vel - gravity
            pos.val = pos + vel * 0.02
            with tf.if_cond(pos < 0.0):
                pos.val = -pos
                vel.val = -0.9 * vel
            with tf.if_cond(pos > 1.0):
                pos.val = 2.0 - pos
                vel.val = -0.9 * vel
        return [pos, vel]
    return tf.compile(particles)


@program("tracing", lambda rng: (rng.standard_normal(64).astype(F32),), lambda x: np.sort(x), rtol=0.0, atol=0.0)
def bitonic_sort_traced():
    def bitonic_sort():
        x = tf.input([-1], tf.float32)  # length a power of two
        y = x * 1.0
        log2n = tf.int(tf.round(tf.log2(tf.float(x.shape[0]))))
        with tf.loop(log2n) as s:
            k = 2 << s  # size of the bitonic blocks being merged
            with tf.loop(s, -1, -1) as t:
                j = 1 << t  # compare distance: k/2, k/4, ..., 1
                i, = y.indices
                p = i ^ j
                a, b = y[i], y[p]
                ascending = (i & k) == 0
                take_min = ascending == (i < p)
                y.val = tf.select(take_min, tf.min(a, b), tf.max(a, b))
        return [y]
    return tf.compile(bitonic_sort)


@program("tracing", lambda rng: (rng.integers(-50, 50, 100).astype(np.int32),), lambda x: np.cumsum(x).astype(np.int32))
def prefix_sum_traced():
    def prefix_sum():
        x = tf.input([-1], tf.int32)
        n = x.shape[0]
        y = x * 1
        with tf.loop(32) as s:
            offset = 1 << s
            with tf.if_cond(offset >= n):
                tf.break_loop()
            i, = y.indices
            y.val = tf.select(i >= offset, y + y[i - offset], y)
        return [y]
    return tf.compile(prefix_sum)


def _reference_hist(v):
    inside = v[(v >= 0) & (v < 1)]
    return np.bincount((inside * F32(16.0)).astype(np.int32), minlength=16).astype(np.int32)

@program("tracing", lambda rng: (rng.uniform(-0.2, 1.2, 500).astype(F32),), _reference_hist)
def histogram_traced():
    def histogram():
        v = tf.input([-1], tf.float32)
        bins = tf.zeros([16], tf.int32)
        with tf.if_cond((v >= 0.0) & (v < 1.0)):
            tf.scatterAdd(bins[tf.int(v * 16.0)], 1)
        return [bins]
    return tf.compile(histogram)


def _reference_xorshift(seed):
    s, acc = seed.copy(), np.zeros(seed.shape, F32)
    for _ in range(100):
        s ^= s << np.uint32(13)  # numpy uint32 shifts wrap like the program's
        s ^= s >> np.uint32(17)
        s ^= s << np.uint32(5)
        acc = acc + s.astype(F32) * F32(1.0 / 4294967296.0)
    return s, acc

# The float sum of 100 uniforms mirrors the program's order; a fused multiply-add may round
# each term once less: far below 1e-6 relative.
@program("tracing", _seeds, _reference_xorshift, rtol=1e-6, atol=0.0)
def xorshift_traced():
    def xorshift():
        seed = tf.input([-1], tf.uint32)
        s = seed * 1
        acc = tf.const(0.0)
        with tf.loop(100):
            s.val = s ^ (s << 13)
            s.val = s ^ (s >> 17)
            s.val = s ^ (s << 5)
            acc.val = acc + tf.float(s) * (1.0 / 4294967296.0)
        return [s, acc]
    return tf.compile(xorshift)


def _reference_lcg_pi(seed):
    s, hits = seed.astype(np.int64), np.zeros(seed.shape, np.int32)
    for _ in range(150):
        s = (s * 1664525 + 1013904223) % 2**32
        a = s >> 20
        s = (s * 1664525 + 1013904223) % 2**32
        hits += a * a + (s >> 20) ** 2 < 4096 * 4096
    return hits

@program("tracing", _seeds, _reference_lcg_pi)
def lcg_monte_carlo_traced():
    def lcg_pi():
        seed = tf.input([-1], tf.uint32)
        s = seed * 1
        hits = tf.const(0)
        with tf.loop(150):
            s.val = s * 1664525 + 1013904223
            a = s >> 20  # 12 random bits
            s.val = s * 1664525 + 1013904223
            b = s >> 20
            with tf.if_cond(a * a + b * b < 4096 * 4096):
                hits.val = hits + 1
        return [hits]
    return tf.compile(lcg_pi)


def _inputs_power(rng):
    q, _ = np.linalg.qr(rng.standard_normal((8, 8)))
    eig = np.array([5.0, 2.0, 1.5, 1.0, 0.5, -0.5, -1.0, 0.25])
    return ((q * eig) @ q.T).astype(F32),

def _reference_power(a):
    w, v = np.linalg.eigh(a.astype(np.float64))
    top = v[:, np.argmax(np.abs(w))]
    top = top * np.sign(top.sum())  # the iteration starts from ones: keeps that sign
    return np.float64(w[np.argmax(np.abs(w))]), top

# Gap 5/2: 100 iterations converge fully; float32 eigenpairs of an 8x8 matrix: ~1e-6.
@program("tracing", _inputs_power, _reference_power, rtol=1e-5, atol=1e-5)
def power_iteration_traced():
    def power_iteration():
        A = tf.input([-1, -1], tf.float32)
        n = A.shape[0]
        i, j = A.indices
        v = tf.ones([n])
        with tf.loop(100):
            w = tf.sum(A * v[j], axis=1)
            v.val = w / tf.sqrt(tf.sum(w * w))
        lam = tf.sum(v * tf.sum(A * v[j], axis=1))
        return [lam, v]
    return tf.compile(power_iteration)


def _reference_two(a, b):
    out = np.full(a.shape, -np.inf, F32)
    for k in range(5):  # float32, same operation order
        t = F32(k) * F32(0.25)
        out = np.maximum(out, a * (F32(1.0) - t) + b * t)
    return out

# a * (1 - t) + b * t may become a fused multiply-add: one rounding less, ~1 ulp.
@program("tracing", lambda rng: tuple(rng.standard_normal((2, 37)).astype(F32)), _reference_two, rtol=1e-6, atol=1e-6)
def two_inputs_traced():
    def max_on_segment():
        a = tf.input([-1], tf.float32)
        b = tf.input([-1], tf.float32)
        out = tf.const(-1e30)
        with tf.loop(5) as k:
            t = tf.float(k) * 0.25
            out.val = tf.max(out, a * (1.0 - t) + b * t)
        return [out]
    return tf.compile(max_on_segment)


def _reference_power_n(x, n):
    acc = np.ones_like(x)
    for _ in range(n):
        acc = acc * x
    return acc

@program("tracing", lambda rng: (rng.uniform(-1.5, 1.5, 29).astype(F32), 7), _reference_power_n, rtol=0.0, atol=0.0)
def int_power_traced():
    def int_power():
        x = tf.input([-1], tf.float32)
        n = tf.input([], tf.int32)
        acc = tf.ones(x.shape)
        with tf.loop(n):
            acc.val = acc * x
        return [acc]
    return tf.compile(int_power)
