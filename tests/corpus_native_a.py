"""Corpus: realistic programs in native style (@tf.kernel_program)."""

import numpy as np
from corpus import program

import tensorfrost as tf

F32 = np.float32


def _grid(rows, cols, x0, x1, y0, y1):
    y, x = np.mgrid[y0:y1:complex(0, rows), x0:x1:complex(0, cols)]
    return x.astype(F32), y.astype(F32)


def _per_element(fn, *arrays, dtype=np.int32):
    flat = [np.asarray(a).ravel() for a in arrays]
    out = [fn(*(v.item() for v in values)) for values in zip(*flat)]
    return np.array(out, dtype).reshape(np.shape(arrays[0]))


# The grids are chosen so that float32 and float64 orbits give the same counts at every pixel
# (no pixel sits on an escape boundary), so a contracted multiply-add cannot change a count.
def _mandel_reference(c_re, c_im, dtype=F32):
    zr, zi, cr, ci = np.zeros(c_re.shape, dtype), np.zeros(c_re.shape, dtype), c_re.astype(dtype), c_im.astype(dtype)
    count, live = np.zeros(c_re.shape, np.int32), np.ones(c_re.shape, bool)
    for _ in range(48):
        live &= zr * zr + zi * zi <= 4.0
        zr, zi = np.where(live, zr * zr - zi * zi + cr, zr), np.where(live, dtype(2.0) * zr * zi + ci, zi)
        count += live
    return count


@program("native", lambda rng: _grid(18, 25, -2.05, 0.55, -1.139, 1.161), _mandel_reference)
def mandelbrot_iteration_counts():
    @tf.kernel_program
    def mandelbrot_iteration_counts(c_re: tf.Arg([-1, -1], tf.float32), c_im: tf.Arg([-1, -1], tf.float32)):
        z_re, z_im = 0.0, 0.0
        count = 0
        for _ in range(48):
            if z_re * z_re + z_im * z_im > 4.0:
                break
            z_re, z_im = z_re * z_re - z_im * z_im + c_re, 2.0 * z_re * z_im + c_im
            count += 1
        return count
    return mandelbrot_iteration_counts


def _julia_reference(z_re, z_im, dtype=F32):
    zr, zi, n = z_re.astype(dtype), z_im.astype(dtype), np.zeros(z_re.shape, np.int32)
    for _ in range(40):
        live = (zr * zr + zi * zi < 4.0) & (n < 40)
        zr, zi = (np.where(live, zr * zr - zi * zi + dtype(-0.8), zr),
                  np.where(live, dtype(2.0) * zr * zi + dtype(0.156), zi))
        n += live
    return n


@program("native", lambda rng: _grid(16, 24, -1.6, 1.6, -1.0, 1.0), _julia_reference)
def julia_escape_while():
    @tf.kernel_program
    def julia_escape_while(z_re: tf.Arg([-1, -1], tf.float32), z_im: tf.Arg([-1, -1], tf.float32)):
        n = 0
        while z_re * z_re + z_im * z_im < 4.0 and n < 40:
            z_re, z_im = z_re * z_re - z_im * z_im - 0.8, 2.0 * z_re * z_im + 0.156
            n += 1
        return n
    return julia_escape_while


def _ship_reference(c_re, c_im, dtype=F32):
    x, y = np.zeros(c_re.shape, dtype), np.zeros(c_re.shape, dtype)
    out = np.full(c_re.shape, 24, np.int32)
    for k in range(24):
        live = out == 24
        x, y = (np.where(live, x * x - y * y + c_re.astype(dtype), x),
                np.where(live, dtype(2.0) * np.abs(x * y) + c_im.astype(dtype), y))
        out[live & (x * x + y * y > 4.0)] = k
    return out


@program("native", lambda rng: _grid(16, 19, -2.163, 1.237, -1.771, 0.629), _ship_reference)
def burning_ship_escape():
    @tf.kernel_program
    def burning_ship_escape(c_re: tf.Arg([-1, -1], tf.float32), c_im: tf.Arg([-1, -1], tf.float32)):
        escaped_at = 24
        x, y = 0.0, 0.0
        for k in range(24):
            x, y = x * x - y * y + c_re, 2.0 * tf.abs(x * y) + c_im
            if x * x + y * y > 4.0:
                escaped_at = k
                break
        return escaped_at
    return burning_ship_escape


def _trace_reference(size):
    j, i = np.meshgrid(np.arange(size), np.arange(size))
    u = (j.astype(F32) + F32(0.5)) / F32(size) * F32(2.0) - F32(1.0)
    v = F32(1.0) - (i.astype(F32) + F32(0.5)) / F32(size) * F32(2.0)
    norm = np.sqrt(u * u + v * v + F32(2.25))
    dx, dy, dz = u / norm, v / norm, F32(1.5) / norm
    t, hit, live = np.zeros((size, size), F32), np.zeros((size, size), np.int32), np.ones((size, size), bool)
    for _ in range(80):
        px, py, pz = dx * t, dy * t, dz * t - F32(3.0)
        ball = np.sqrt(px * px + py * py + pz * pz) - F32(1.0)
        small = np.sqrt((px - F32(1.2)) ** 2 + (py + F32(0.6)) ** 2 + pz * pz) - F32(0.4)
        d = np.minimum(np.minimum(ball, small), py + F32(1.0))
        hit[live & (d < 1e-3)] = 1
        live &= d >= 1e-3
        t = np.where(live, t + d, t)
        live &= t <= 20.0
    return t, hit


# A lane that stops one step earlier (its distance within rounding of the 1e-3 hit threshold)
# has a depth shorter by that last step, under 2e-3.
@program("native", lambda rng: (20,), _trace_reference, rtol=1e-4, atol=2e-3)
def sphere_trace_scene():
    @tf.kernel_program
    def sphere_trace_scene(size: tf.Arg([], tf.int32)):
        i, j = tf.indices([size, size])
        u = (tf.float(j) + 0.5) / tf.float(size) * 2.0 - 1.0
        v = 1.0 - (tf.float(i) + 0.5) / tf.float(size) * 2.0
        norm = tf.sqrt(u * u + v * v + 2.25)
        dx, dy, dz = u / norm, v / norm, 1.5 / norm
        t, hit = 0.0, 0
        for _ in range(80):
            px, py, pz = dx * t, dy * t, dz * t - 3.0
            ball = tf.sqrt(px * px + py * py + pz * pz) - 1.0
            small = tf.sqrt((px - 1.2) ** 2 + (py + 0.6) ** 2 + pz * pz) - 0.4
            d = tf.min(tf.min(ball, small), py + 1.0)
            if d < 1e-3:
                hit = 1
                break
            t += d
            if t > 20.0:
                break
        return t, hit
    return sphere_trace_scene


def _search_inputs(rng):
    table = np.sort(rng.integers(0, 40, 33)).astype(F32)  # with duplicates
    return table, np.concatenate([rng.uniform(-5, 45, 40), table[::4]]).astype(F32)


@program("native", _search_inputs, lambda a, q: np.searchsorted(a, q, side="left").astype(np.int32))
def searchsorted_binary():
    @tf.kernel_program
    def searchsorted_binary(a: tf.Arg([-1], tf.float32), q: tf.Arg([-1], tf.float32)):
        lo = 0
        hi = a.shape[0]
        while lo < hi:
            mid = (lo + hi) // 2
            if a[mid] < q:
                lo = mid + 1
            else:
                hi = mid
        return lo
    return searchsorted_binary


def _collatz(n):
    steps = 0
    while n != 1:
        n, steps = (n // 2 if n % 2 == 0 else 3 * n + 1), steps + 1
    return steps


@program("native", lambda rng: (np.concatenate([[1, 2, 27], rng.integers(1, 300, 45)]).astype(np.int32),),
         lambda n: _per_element(_collatz, n))
def collatz_steps():
    @tf.kernel_program
    def collatz_steps(n: tf.Arg([-1], tf.int32)):
        steps = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        return steps
    return collatz_steps


@program("native", lambda rng: (np.r_[0, 12, 7, 0, rng.integers(0, 5000, 36)].astype(np.int32),
                                np.r_[5, 0, 7, 0, rng.integers(0, 5000, 36)].astype(np.int32)),
         lambda a, b: np.gcd(a, b).astype(np.int32))
def gcd_euclid():
    @tf.kernel_program
    def gcd_euclid(a: tf.Arg([-1], tf.int32), b: tf.Arg([-1], tf.int32)):
        while b != 0:
            a, b = b, a % b
        return a
    return gcd_euclid


@program("native", lambda rng: (np.r_[0, 1, 2, 3, 4, 15, 16, 17, 99, rng.integers(0, 2**21, 30)].astype(np.int32),),
         lambda n: _per_element(lambda v: int(np.sqrt(float(v))), n))
def isqrt_newton():
    @tf.kernel_program
    def isqrt_newton(n: tf.Arg([-1], tf.int32)):
        x = n
        y = (x + 1) // 2
        while y < x:
            x = y
            y = (x + n // x) // 2
        return x
    return isqrt_newton


def _prime_reference(n):
    factor = _per_element(lambda v: next((d for d in range(2, v) if d * d <= v and v % d == 0), v), n)
    return ((n >= 2) & (factor == n)).astype(np.int32), factor


@program("native", lambda rng: (np.concatenate([np.arange(0, 20), rng.integers(20, 5000, 40)]).astype(np.int32),),
         _prime_reference)
def prime_trial_division():
    @tf.kernel_program
    def prime_trial_division(n: tf.Arg([-1], tf.int32)):
        is_prime = 1
        if n < 2:
            is_prime = 0
        factor, d = n, 2
        while d * d <= n:
            if n % d == 0:
                is_prime = 0
                factor = d
                break
            d += 1
        return is_prime, factor
    return prime_trial_division


def _digit_inputs(rng):
    return (np.concatenate([[0, 1, 9, 10, 2**31 - 1], rng.integers(0, 10**9, 30)]).astype(np.int32),)


@program("native", _digit_inputs,
         lambda n: (_per_element(lambda v: sum(map(int, str(v))), n), _per_element(lambda v: bin(v).count("1"), n)))
def digit_sum_and_popcount():
    @tf.kernel_program
    def digit_sum_and_popcount(n: tf.Arg([-1], tf.int32)):
        digit_sum, v = 0, n
        while v > 0:
            digit_sum += v % 10
            v //= 10
        bits, w = 0, n
        while w != 0:
            w &= w - 1  # clears the lowest set bit
            bits += 1
        return digit_sum, bits
    return digit_sum_and_popcount


@program("native", lambda rng: (rng.integers(0, 30, 40).astype(np.int32),),
         lambda n: _per_element(lambda m: sum(a * a for a in range(m) if a % 3 != 0), n))
def sum_squares_skip_multiples():
    @tf.kernel_program
    def sum_squares_skip_multiples(n: tf.Arg([-1], tf.int32)):
        total = 0
        for a in range(n):  # each element runs its own number of iterations
            if a % 3 == 0:
                continue
            total += a * a
        return total
    return sum_squares_skip_multiples


# Newton stops within an ulp or two of the root.
@program("native", lambda rng: (np.concatenate([[1.0, 4.0, 1e-3], rng.uniform(0.01, 900.0, 40)]).astype(F32),),
         lambda a: np.sqrt(a.astype(np.float64)), rtol=2e-6, atol=0.0)
def newton_sqrt_converge():
    @tf.kernel_program
    def newton_sqrt_converge(a: tf.Arg([-1], tf.float32)):
        x = tf.max(a, 1.0)
        for _ in range(60):
            x_next = 0.5 * (x + a / x)
            if tf.abs(x_next - x) <= 1e-6 * x_next:
                x = x_next
                break
            x = x_next
        return x
    return newton_sqrt_converge


def _cubic_root(c):  # the real root of x^3 + x = c, by Cardano's formula
    h = c.astype(np.float64) / 2
    return np.cbrt(h + np.sqrt(h * h + 1 / 27)) + np.cbrt(h - np.sqrt(h * h + 1 / 27))


# The loop stops once the bracket is under 1e-5, so the midpoint is within 5e-6 of the root.
@program("native", lambda rng: (rng.uniform(-25.0, 25.0, 40).astype(F32),), _cubic_root, rtol=0.0, atol=1e-5)
def bisection_cubic_root():
    @tf.kernel_program
    def bisection_cubic_root(c: tf.Arg([-1], tf.float32)):
        lo, hi = -3.0, 3.0
        while hi - lo > 1e-5:
            mid = 0.5 * (lo + hi)
            if mid * mid * mid + mid - c > 0.0:
                hi = mid
            else:
                lo = mid
        return 0.5 * (lo + hi)
    return bisection_cubic_root


def _kepler_reference(m, e):
    x, m, e = m.astype(np.float64), m.astype(np.float64), e.astype(np.float64)
    for _ in range(200):
        x = m + e * np.sin(x)
    return x


# Stopping at a step under 1e-6 leaves an error under e/(1-e) * 1e-6 < 3e-6; float32 sin of
# arguments up to 7 adds a few 1e-7.
@program("native", lambda rng: (rng.uniform(0.0, 6.28, 40).astype(F32), rng.uniform(0.0, 0.7, 40).astype(F32)),
         _kepler_reference, rtol=0.0, atol=1e-5)
def kepler_fixed_point():
    @tf.kernel_program
    def kepler_fixed_point(mean_anomaly: tf.Arg([-1], tf.float32), ecc: tf.Arg([-1], tf.float32)):
        E = mean_anomaly
        for _ in range(100):
            E_next = mean_anomaly + ecc * tf.sin(E)
            step = E_next - E
            E = E_next
            if tf.abs(step) < 1e-6:
                break
        return E
    return kepler_fixed_point


# The minimizer of (x - a)^2 (1 + x^2 / 10) is a (unimodal on [-4, 4] for |a| < 8); after 30
# golden steps the bracket is 4.4e-6 wide; float32 rounding of x - a (ulp(4) = 5e-7) adds a little.
@program("native", lambda rng: (rng.uniform(-3.0, 3.0, 40).astype(F32),), lambda a: a.astype(np.float64),
         rtol=0.0, atol=5e-6)
def golden_section_minimum():
    @tf.kernel_program
    def golden_section_minimum(a: tf.Arg([-1], tf.float32)):
        def f(x):
            return (x - a) * (x - a) * (1.0 + 0.1 * x * x)
        inv_phi = 0.6180339887
        lo, hi = -4.0, 4.0
        x1, x2 = hi - inv_phi * (hi - lo), lo + inv_phi * (hi - lo)
        f1, f2 = f(x1), f(x2)
        for _ in range(30):
            if f1 < f2:
                hi, x2, f2 = x2, x1, f1
                x1 = hi - inv_phi * (hi - lo)
                f1 = f(x1)
            else:
                lo, x1, f1 = x1, x2, f2
                x2 = lo + inv_phi * (hi - lo)
                f2 = f(x2)
        return 0.5 * (lo + hi)
    return golden_section_minimum


def _horner_reference(coeffs, x):
    c, x = coeffs.astype(np.float64), x.astype(np.float64)
    return np.polyval(c, x), np.polyval(np.polyder(c), x)


# float32 Horner on |x| <= 1.5 with 7 coefficients: errors up to ~n * eps * sum |c_k x^k| ~ 2e-5.
@program("native", lambda rng: (rng.uniform(-1.0, 1.0, 7).astype(F32), rng.uniform(-1.5, 1.5, 50).astype(F32)),
         _horner_reference, rtol=1e-5, atol=5e-5)
def horner_with_derivative():
    @tf.kernel_program
    def horner_with_derivative(coeffs: tf.Arg([-1], tf.float32), x: tf.Arg([-1], tf.float32)):
        value, slope = 0.0, 0.0
        for k in range(coeffs.shape[0]):
            slope = slope * x + value
            value = value * x + coeffs[k]
        return value, slope
    return horner_with_derivative


def _piecewise_reference(x):
    conditions = [x < -2.0, x < 0.0, x < 1.0, x < 3.0]
    xs = x.astype(np.float64)
    y = np.select(conditions, [np.zeros_like(xs), 0.5 * (xs + 2.0) ** 2, 2.0 + xs, 3.0 * np.sqrt(np.abs(xs))],
                  6.0 - np.sqrt(np.abs(xs)))
    return y, np.select(conditions, [0, 1, 2, 3], 4).astype(np.int32)


@program("native", lambda rng: (np.r_[-3.0, -2.0, 0.0, 1.0, 4.0, rng.uniform(-4.0, 5.0, 40)].astype(F32),),
         _piecewise_reference)
def piecewise_elif_chain():
    @tf.kernel_program
    def piecewise_elif_chain(x: tf.Arg([-1], tf.float32)):
        if x < -2.0:
            y, label = 0.0, 0
        elif x < 0.0:
            y, label = 0.5 * (x + 2.0) ** 2, 1
        elif x < 1.0:
            y, label = 2.0 + x, 2
        elif x < 3.0:
            y, label = 3.0 * tf.sqrt(x), 3
        else:
            y, label = 6.0 - tf.sqrt(x), 4
        return y, label
    return piecewise_elif_chain


def _oscillator_reference(x0, v0, steps, dt):
    x, v, dt = x0.copy(), v0.copy(), F32(dt)
    for _ in range(steps):
        v = v - dt * (x + F32(0.1) * v)
        x = x + dt * v
    return x, v


# 120 float32 steps of a stable system: rounding (and contracted multiply-adds) add up to ~1e-5.
@program("native", lambda rng: (rng.standard_normal(30).astype(F32), rng.standard_normal(30).astype(F32), 120, 0.05),
         _oscillator_reference, rtol=1e-4, atol=2e-5)
def damped_oscillator_steps():
    @tf.kernel_program
    def damped_oscillator_steps(x0: tf.Arg([-1], tf.float32), v0: tf.Arg([-1], tf.float32),
                                steps: tf.Arg([], tf.int32), dt: tf.Arg([], tf.float32)):
        x, v = x0, v0
        for _ in range(steps):
            v = v - dt * (x + 0.1 * v)
            x = x + dt * v
        return x, v
    return damped_oscillator_steps


def _rows_inputs(rng):
    x = rng.standard_normal((12, 9)).astype(F32)
    x[::3] = np.abs(x[::3]) + 0.1  # some rows are all positive
    return x, 1.5


def _rows_reference(x, t):
    above = x > t
    first = np.where(above.any(axis=1), above.argmax(axis=1), -1).astype(np.int32)
    return first, (x > 0).all(axis=1).astype(np.int32), np.maximum.accumulate(x, axis=1)


@program("native", _rows_inputs, _rows_reference)
def row_scans_early_exit():
    @tf.kernel_program
    def row_scans_early_exit(x: tf.Arg([-1, -1], tf.float32), t: tf.Arg([], tf.float32)):
        n, m = x.shape
        i, = tf.indices([n])
        first = -1
        for j in range(m):
            if x[i, j] > t:
                first = j
                break
        all_positive = 1
        for j in range(m):
            if x[i, j] <= 0.0:
                all_positive = 0
                break
        running = tf.zeros([n, m])
        best = x[i, 0]
        for j in range(m):
            best = tf.max(best, x[i, j])
            running[i, j] = best
        return first, all_positive, running
    return row_scans_early_exit


def _kmeans_inputs(rng):
    centers = np.array([[-4.0, -3.0], [4.0, -2.0], [0.0, 4.5]], F32)
    points = (centers[rng.integers(0, 3, 60)] + rng.standard_normal((60, 2))).astype(F32)
    return points, points[[0, 1, 2]].copy(), 6


def _kmeans_reference(points, init, iters):
    centroids = init.copy()
    for _ in range(iters):
        labels = ((points[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=2).argmin(axis=1).astype(np.int32)
        for c in range(len(centroids)):
            if (labels == c).any():
                centroids[c] = points[labels == c].astype(np.float64).mean(axis=0)
    return centroids, labels


# Well-separated clusters: assignments are exact; centroid sums of ~20 points come in any order.
@program("native", _kmeans_inputs, _kmeans_reference, rtol=1e-5, atol=1e-5)
def kmeans_lloyd():
    @tf.kernel_program
    def kmeans_lloyd(points: tf.Arg([-1, 2], tf.float32), init: tf.Arg([-1, 2], tf.float32),
                     iters: tf.Arg([], tf.int32)):
        n, k = points.shape[0], init.shape[0]
        centroids = init
        labels = tf.zeros([n], tf.int32)
        for _ in range(iters):
            p, = tf.indices([n])
            best, label = 1e30, 0
            for c in range(k):
                dx = points[p, 0] - centroids[c, 0]
                dy = points[p, 1] - centroids[c, 1]
                d = dx * dx + dy * dy
                if d < best:
                    best = d
                    label = c
            labels = label
            sums = tf.zeros([k, 2])
            counts = tf.zeros([k])
            tf.scatterAdd(sums[labels, 0], points[p, 0])
            tf.scatterAdd(sums[labels, 1], points[p, 1])
            tf.scatterAdd(counts[labels], 1.0)
            r, _ = sums.indices
            centroids = tf.select(counts[r] > 0.0, sums / tf.max(counts[r], 1.0), centroids)
        return centroids, labels
    return kmeans_lloyd


def _relax(u, f):
    """One Jacobi sweep of -laplace(u) = f (grid step 1), zero on the boundary."""
    new = np.zeros_like(f)
    new[1:-1, 1:-1] = F32(0.25) * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] + f[1:-1, 1:-1])
    return new


def _jacobi_reference(f):
    u, err = np.zeros_like(f), 1.0
    while err > 1e-4:
        u, err = _relax(u, f), np.abs(_relax(u, f) - u).max()
    return u


# The last sweeps change u by about 1e-4 each; rounding may stop the loop a sweep earlier or later.
@program("native", lambda rng: (rng.uniform(0.0, 0.2, (12, 10)).astype(F32),), _jacobi_reference,
         rtol=0.0, atol=2e-4)
def jacobi_poisson_converge():
    @tf.kernel_program
    def jacobi_poisson_converge(f: tf.Arg([-1, -1], tf.float32)):
        n, m = f.shape
        u = tf.zeros([n, m])
        i, j = u.indices
        err = 1.0
        while err > 1e-4:
            if 0 < i < n - 1 and 0 < j < m - 1:
                new = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] + f[i, j])
            else:
                new = 0.0
            err = tf.max(tf.max(tf.abs(new - u)))
            u = new
        return u
    return jacobi_poisson_converge


def _gauss_seidel_reference(f):
    u = np.zeros_like(f)
    i, j = np.indices(f.shape)
    interior = (i > 0) & (i < f.shape[0] - 1) & (j > 0) & (j < f.shape[1] - 1)
    for _ in range(40):
        for color in range(2):  # the neighbours of one color all have the other
            u = np.where(interior & ((i + j) % 2 == color), _relax(u, f), u)
    return u


@program("native", lambda rng: (rng.uniform(0.0, 0.2, (10, 12)).astype(F32),), _gauss_seidel_reference,
         rtol=1e-5, atol=1e-6)
def red_black_gauss_seidel():
    @tf.kernel_program
    def red_black_gauss_seidel(f: tf.Arg([-1, -1], tf.float32)):
        n, m = f.shape
        u = tf.zeros([n, m])
        i, j = u.indices
        for _ in range(40):
            for color in range(2):
                if (i + j) % 2 == color and 0 < i < n - 1 and 0 < j < m - 1:
                    u[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] + f[i, j])
        return u
    return red_black_gauss_seidel


def _power_inputs(rng):
    q, _ = np.linalg.qr(rng.standard_normal((6, 6)))
    return (((q * np.array([9.0, 4.0, 3.0, -2.0, 1.0, 0.5])) @ q.T).astype(F32),)


def _power_reference(a):
    w, v = np.linalg.eigh(a.astype(np.float64))
    top = v[:, np.argmax(np.abs(w))]
    return w[np.argmax(np.abs(w))], top * np.sign(top.sum())  # the sign the start vector (ones) picks


# 60 steps with |lambda2 / lambda1| = 4/9 converge far below float32 resolution; each step's
# matrix-vector product rounds at ~n * eps.
@program("native", _power_inputs, _power_reference, rtol=1e-5, atol=1e-5)
def power_iteration_eigen():
    @tf.kernel_program
    def power_iteration_eigen(A: tf.Arg([-1, -1], tf.float32)):
        n = A.shape[0]
        v = tf.ones([n])
        for _ in range(60):
            w = A @ v
            v = w / tf.norm(w)
        eigenvalue = tf.sum(v * (A @ v))
        return eigenvalue, v
    return power_iteration_eigen
