"""Corpus, round three (issue 27): programs of kinds the corpus lacked, in tracing style
(tf.compile with tf.loop, tf.if_cond, .val): DP tables, reaction-diffusion, jump flooding,
cellular automata, a totient sieve, a spatial hash, n-body, Gauss-Jordan, Cholesky, morphology with a run-time
radius, counting sort and compaction with atomics, marching squares."""

import numpy as np
from corpus import program

import tensorfrost as tf

F32, I32 = np.float32, np.int32


def _lcs_reference(a, b):
    table = np.zeros((len(a) + 1, len(b) + 1), I32)
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            table[i, j] = table[i - 1, j - 1] + 1 if a[i - 1] == b[j - 1] else max(table[i - 1, j], table[i, j - 1])
    return table[-1, -1], table

@program("tracing", lambda rng: (rng.integers(0, 4, 26).astype(I32), rng.integers(0, 4, 19).astype(I32)),
         _lcs_reference)
def lcs_wavefront_traced():
    def lcs():
        a = tf.input([-1], tf.int32)
        b = tf.input([-1], tf.int32)
        n, m = a.shape[0], b.shape[0]
        table = tf.zeros([n + 1, m + 1], tf.int32)
        i, j = table.indices
        with tf.loop(2, n + m + 1) as diagonal:  # one anti-diagonal at a time
            on = (i >= 1) & (j >= 1) & (i + j == diagonal)
            grown = tf.select(a[i - 1] == b[j - 1], table[i - 1, j - 1] + 1, tf.max(table[i - 1, j], table[i, j - 1]))
            table.val = tf.select(on, grown, table)
        return [table[n, m], table]
    return tf.compile(lcs)


def _gray_scott_inputs(rng, n=32):
    u, v = np.ones((n, n)), np.zeros((n, n))
    u[12:20, 12:20], v[12:20, 12:20] = 0.5, 0.25
    return (u + rng.normal(0, 0.01, (n, n))).astype(F32), (v + rng.normal(0, 0.01, (n, n))).astype(F32)


def _gray_scott_reference(u, v):
    u, v = u.astype(np.float64), v.astype(np.float64)
    for _ in range(60):
        lap_u = np.roll(u, 1, 0) + np.roll(u, -1, 0) + np.roll(u, 1, 1) + np.roll(u, -1, 1) - 4 * u
        lap_v = np.roll(v, 1, 0) + np.roll(v, -1, 0) + np.roll(v, 1, 1) + np.roll(v, -1, 1) - 4 * v
        uvv = u * v * v
        u, v = u + 0.16 * lap_u - uvv + 0.035 * (1 - u), v + 0.08 * lap_v + uvv - 0.1 * v
    return u, v

# 60 explicit steps of a stable scheme on O(1) values: float32 rounding, ~1e-6 per step.
@program("tracing", _gray_scott_inputs, _gray_scott_reference, rtol=1e-4, atol=1e-5)
def gray_scott_traced():
    def gray_scott():
        u0 = tf.input([-1, -1], tf.float32)
        v0 = tf.input(u0.shape, tf.float32)
        n, m = u0.shape
        u = u0 * 1.0
        v = v0 * 1.0
        with tf.loop(60):
            i, j = u.indices
            up, down, left, right = (i - 1 + n) % n, (i + 1) % n, (j - 1 + m) % m, (j + 1) % m
            lap_u = u[up, j] + u[down, j] + u[i, left] + u[i, right] - 4.0 * u
            lap_v = v[up, j] + v[down, j] + v[i, left] + v[i, right] - 4.0 * v
            uvv = u * v * v
            u_new = u + 0.16 * lap_u - uvv + 0.035 * (1.0 - u)
            v.val = v + 0.08 * lap_v + uvv - 0.1 * v
            u.val = u_new
        return [u, v]
    return tf.compile(gray_scott)


def _jfa_inputs(rng, n=32, seeds=9):
    flat = rng.choice(n * n, seeds, replace=False)
    return (flat % n).astype(I32), (flat // n).astype(I32), n


def _jfa_reference(sx, sy, n):
    owner = np.full((n, n), -1)
    owner[sy, sx] = np.arange(len(sx))
    i, j = np.indices((n, n))
    step = n // 2
    while step >= 1:
        best, best_d = np.full((n, n), -1), np.full((n, n), 1 << 30)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                ii, jj = i + dy * step, j + dx * step
                inside = (ii >= 0) & (ii < n) & (jj >= 0) & (jj < n)
                c = np.where(inside, owner[np.clip(ii, 0, n - 1), np.clip(jj, 0, n - 1)], -1)
                d = (sx[np.maximum(c, 0)] - j) ** 2 + (sy[np.maximum(c, 0)] - i) ** 2
                take = (c >= 0) & ((d < best_d) | ((d == best_d) & (c < best)))
                best, best_d = np.where(take, c, best), np.where(take, d, best_d)
        owner, step = best, step // 2
    return owner.astype(I32)

@program("tracing", _jfa_inputs, _jfa_reference)
def jump_flood_voronoi_traced():
    def jump_flood():
        sx = tf.input([-1], tf.int32)
        sy = tf.input(sx.shape, tf.int32)
        n = tf.input([], tf.int32)
        owner = tf.zeros([n, n], tf.int32) - 1
        s, = sx.indices
        owner[sy[s], sx[s]] = s
        with tf.loop(31) as level:
            step = n >> (level + 1)  # n/2, n/4, ..., 1
            with tf.if_cond(step < 1):
                tf.break_loop()
            i, j = owner.indices
            best = tf.zeros(owner.shape, tf.int32) - 1
            best_d = tf.zeros(owner.shape, tf.int32) + (1 << 30)
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    ii, jj = i + dy * step, j + dx * step
                    inside = (ii >= 0) & (ii < n) & (jj >= 0) & (jj < n)
                    c = tf.select(inside, owner[ii, jj], -1)
                    ex, ey = sx[c] - j, sy[c] - i
                    d = ex * ex + ey * ey
                    take = (c >= 0) & ((d < best_d) | ((d == best_d) & (c < best)))
                    best.val = tf.select(take, c, best)
                    best_d.val = tf.select(take, d, best_d)
            owner.val = best
        return [owner]
    return tf.compile(jump_flood)


def _automaton_reference(state, rule, steps):
    s, history = state.copy(), []
    for _ in range(steps):
        pattern = np.roll(s, 1) * 4 + s * 2 + np.roll(s, -1)
        s = (rule >> pattern) & 1
        history.append(s)
    return s, np.array(history, I32)

@program("tracing", lambda rng: (rng.integers(0, 2, 45).astype(I32), 110, 30), _automaton_reference)
def elementary_automaton_traced():
    def automaton():
        state = tf.input([-1], tf.int32)
        rule = tf.input([], tf.int32)
        steps = tf.input([], tf.int32)
        n = state.shape[0]
        s = state * 1
        history = tf.zeros([steps, n], tf.int32)
        with tf.loop(steps) as t:
            i, = s.indices
            pattern = s[(i - 1 + n) % n] * 4 + s * 2 + s[(i + 1) % n]
            s.val = (rule >> pattern) & 1  # Wolfram's numbering: bit `pattern` of the rule
            history[t, i] = s
        return [s, history]
    return tf.compile(automaton)


def _totient_reference(n):
    return np.array([sum(1 for k in range(1, m + 1) if np.gcd(k, m) == 1) for m in range(n + 1)], I32)

@program("tracing", lambda rng: (150,), _totient_reference)
def euler_totient_sieve_traced():
    def totient():
        n = tf.input([], tf.int32)
        i, = tf.indices([n + 1])
        phi = i * 1
        with tf.loop(2, n + 1) as p:
            with tf.if_cond(phi[p] == p):  # untouched so far: p is prime
                k, = phi.indices
                phi.val = tf.select(k % p == 0, phi - phi / p, phi)  # exact: p divides phi[k]
        return [phi]
    return tf.compile(totient)


def _nbody_inputs(rng, n=24):
    return rng.standard_normal((n, 3)).astype(F32), (0.1 * rng.standard_normal((n, 3))).astype(F32), \
        rng.uniform(0.5, 1.5, n).astype(F32)


def _nbody_accel(pos, mass):
    d = pos[None, :, :] - pos[:, None, :]
    r2 = (d * d).sum(axis=2) + 0.01
    return (d * (mass[None, :] / (r2 * np.sqrt(r2)))[:, :, None]).sum(axis=1)


def _nbody_reference(pos, vel, mass):
    pos, vel, mass = pos.astype(np.float64), vel.astype(np.float64), mass.astype(np.float64)
    acc = _nbody_accel(pos, mass)
    for _ in range(20):
        vel = vel + 0.005 * acc
        pos = pos + 0.01 * vel
        acc = _nbody_accel(pos, mass)
        vel = vel + 0.005 * acc
    return pos, vel

# 20 softened leapfrog steps: float32 sums of 24 forces, a few ulps of O(1) values per step.
@program("tracing", _nbody_inputs, _nbody_reference, rtol=1e-4, atol=1e-5)
def nbody_leapfrog_traced():
    def nbody():
        pos0 = tf.input([-1, 3], tf.float32)
        vel0 = tf.input(pos0.shape, tf.float32)
        mass = tf.input([pos0.shape[0]], tf.float32)
        n = pos0.shape[0]

        def accel(p):
            i, j, k = tf.indices([n, n, 3])
            d = p[j, k] - p[i, k]
            r2 = tf.sum(d * d, axis=2) + 0.01
            a, b = r2.indices
            w = mass[b] / (r2 * tf.sqrt(r2))
            return tf.sum(d * w[i, j], axis=1)

        pos = pos0 * 1.0
        vel = vel0 * 1.0
        acc = accel(pos)
        with tf.loop(20):
            vel.val = vel + 0.005 * acc
            pos.val = pos + 0.01 * vel
            acc.val = accel(pos)
            vel.val = vel + 0.005 * acc
        return [pos, vel]
    return tf.compile(nbody)


def _dominant(rng, n=10):
    return (rng.standard_normal((n, n)) + n * np.eye(n)).astype(F32),

# float32 elimination of a diagonally dominant 10x10 system (condition ~2): ~n ulps.
@program("tracing", _dominant, lambda a: np.linalg.inv(a.astype(np.float64)), rtol=1e-4, atol=1e-6)
def gauss_jordan_inverse_traced():
    def gauss_jordan():
        A = tf.input([-1, -1], tf.float32)
        n = A.shape[0]
        i, j = tf.indices([n, 2 * n])
        M = tf.select(j < n, A[i, j], tf.select(j - n == i, 1.0, 0.0))  # [A | I]
        with tf.loop(n) as k:
            row = M[k, j] / M[k, k]
            M.val = tf.select(i == k, row, M - M[i, k] * row)
        r, c = tf.indices([n, n])
        return [M[r, c + n]]
    return tf.compile(gauss_jordan)


def _spd(rng, n=12):
    m = rng.standard_normal((n, n))
    return (m @ m.T / n + np.eye(n)).astype(F32),

# float32 Cholesky of an SPD matrix of condition ~10: entries of L to ~1e-6.
@program("tracing", _spd, lambda a: np.linalg.cholesky(a.astype(np.float64)), rtol=1e-4, atol=1e-5)
def cholesky_columns_traced():
    def cholesky():
        A = tf.input([-1, -1], tf.float32)
        n = A.shape[0]
        L = tf.zeros([n, n])
        i, j = L.indices
        with tf.loop(n) as c:
            r, k = tf.indices([n, n])
            dots = tf.sum(tf.select(k < c, L[r, k] * L[c, k], 0.0), axis=1)  # row r of L times row c
            d = tf.sqrt(A[c, c] - dots[c])
            column = (A[i, c] - dots[i]) / d
            L.val = tf.select((j == c) & (i > c), column, tf.select((j == c) & (i == c), d, L))
        return [L]
    return tf.compile(cholesky)


def _dilate_reference(img, r):
    p = np.pad(img, r, mode="edge")
    h, w = img.shape
    return np.max([p[r + dy:r + dy + h, r + dx:r + dx + w] for dy in range(-r, r + 1)
                   for dx in range(-r, r + 1) if dy * dy + dx * dx <= r * r], axis=0)

@program("tracing", lambda rng: (rng.random((23, 30)).astype(F32), 3), _dilate_reference, rtol=0, atol=0)
def dilation_disk_radius_traced():
    def dilate():
        img = tf.input([-1, -1], tf.float32)
        r = tf.input([], tf.int32)
        i, j = img.indices
        best = img * 1.0
        with tf.loop(-r, r + 1) as dy:
            with tf.loop(-r, r + 1) as dx:
                with tf.if_cond(dy * dy + dx * dx <= r * r):  # a disk of run-time radius
                    best.val = tf.max(best, img[i + dy, j + dx])
        return [best]
    return tf.compile(dilate)


def _counting_reference(keys, buckets):
    hist = np.bincount(keys, minlength=buckets)
    ordered = np.sort(keys).astype(I32)
    return ordered, ordered, np.ones(len(keys), I32), (np.cumsum(hist) - hist).astype(I32)

@program("tracing", lambda rng: (rng.integers(0, 21, 150).astype(I32), 21), _counting_reference)
def counting_sort_atomics_traced():
    def counting_sort():
        keys = tf.input([-1], tf.int32)
        buckets = tf.input([], tf.int32)
        hist = tf.zeros([buckets], tf.int32)
        tf.scatterAdd(hist[keys], 1)
        c, = hist.indices
        inclusive = hist * 1
        with tf.loop(31) as s:  # Hillis-Steele scan
            offset = 1 << s
            with tf.if_cond(offset >= buckets):
                tf.break_loop()
            inclusive.val = tf.select(c >= offset, inclusive + inclusive[c - offset], inclusive)
        start = inclusive - hist
        cursor = start * 1
        e, = keys.indices
        slot = tf.scatterAddPrev(cursor[keys[e]], 1)  # any order within a bucket
        ordered = tf.zeros(keys.shape, tf.int32)
        perm = tf.zeros(keys.shape, tf.int32)
        ordered[slot] = keys[e]
        perm[slot] = e
        seen = tf.zeros(keys.shape, tf.int32)
        tf.scatterAdd(seen[perm], 1)
        return [ordered, keys[perm], seen, start]
    return tf.compile(counting_sort)


SEGMENTS = np.array([0, 1, 1, 1, 1, 2, 1, 1, 1, 1, 2, 1, 1, 1, 1, 0], I32)  # per marching-squares case


def _squares_reference(field, iso, table):
    above = (field > iso).astype(I32)
    case = above[:-1, :-1] * 8 + above[:-1, 1:] * 4 + above[1:, 1:] * 2 + above[1:, :-1]
    return case, np.bincount(case.ravel(), minlength=16).astype(I32), np.int32(table[case].sum())

@program("tracing", lambda rng: (rng.standard_normal((18, 25)).astype(F32), 0.25, SEGMENTS), _squares_reference)
def marching_squares_traced():
    def marching_squares():
        field = tf.input([-1, -1], tf.float32)
        iso = tf.input([], tf.float32)
        table = tf.input([16], tf.int32)
        h, w = field.shape
        i, j = tf.indices([h - 1, w - 1])
        case = tf.int(field[i, j] > iso) * 8 + tf.int(field[i, j + 1] > iso) * 4 \
            + tf.int(field[i + 1, j + 1] > iso) * 2 + tf.int(field[i + 1, j] > iso)
        counts = tf.zeros([16], tf.int32)
        tf.scatterAdd(counts[case], 1)
        total = tf.sum(tf.sum(table[case]))
        return [case, counts, total]
    return tf.compile(marching_squares)


def _hash32(v):
    v = (v ^ np.uint32(61)) ^ (v >> np.uint32(16))  # Wang's integer hash, in uint32 as the program's
    v = v * np.uint32(9)
    v = v ^ (v >> np.uint32(4))
    v = v * np.uint32(0x27D4EB2D)
    return v ^ (v >> np.uint32(15))


def _spatial_hash_reference(pos, buckets):
    cell = (pos * F32(16.0)).astype(np.uint32)
    bucket = _hash32(cell[:, 0] * np.uint32(73856093) ^ cell[:, 1] * np.uint32(19349663)) % np.uint32(buckets)
    counts = np.bincount(bucket, minlength=buckets).astype(I32)
    return counts, (counts[bucket] - 1).astype(I32), np.int32((counts * (counts - 1) // 2).sum())

@program("tracing", lambda rng: (rng.random((200, 2)).astype(F32), 61), _spatial_hash_reference)
def spatial_hash_buckets_traced():
    def hash32(v):
        v = (v ^ 61) ^ (v >> 16)
        v = v * 9
        v = v ^ (v >> 4)
        v = v * 0x27D4EB2D
        return v ^ (v >> 15)

    def spatial_hash():
        pos = tf.input([-1, 2], tf.float32)
        buckets = tf.input([], tf.int32)
        p, = tf.indices([pos.shape[0]])
        cx, cy = tf.uint(pos[p, 0] * 16.0), tf.uint(pos[p, 1] * 16.0)
        bucket = hash32(cx * 73856093 ^ cy * 19349663) % tf.uint(buckets)  # a uint32 index
        counts = tf.zeros([buckets], tf.int32)
        tf.scatterAdd(counts[bucket], 1)
        pairs = tf.sum(counts * (counts - 1) / 2)
        return [counts, counts[bucket] - 1, pairs]
    return tf.compile(spatial_hash)


def _compaction_reference(v, threshold):
    kept = np.sort(v[v > threshold])
    out = np.zeros_like(v)
    out[:len(kept)] = kept
    return out, np.array([len(kept)], I32)

@program("tracing", lambda rng: (rng.standard_normal(90).astype(F32), 0.3), _compaction_reference, rtol=0, atol=0)
def stream_compaction_traced():
    def compaction():
        v = tf.input([-1], tf.float32)
        threshold = tf.input([], tf.float32)
        n = v.shape[0]
        count = tf.zeros([1], tf.int32)
        keep = v > threshold
        slot = tf.scatterAddPrev(count[0], tf.int(keep))  # slots in whatever order the elements run
        packed = tf.zeros(v.shape)
        with tf.if_cond(keep):
            packed[slot] = v
        kept = count[0]
        s, t = tf.indices([n, n])
        rank = tf.sum(tf.select((t < kept) & (packed[t] < packed[s]), 1, 0), axis=1)  # an order-independent result
        ordered = tf.zeros(v.shape)
        q, = ordered.indices
        with tf.if_cond(q < kept):
            ordered[rank] = packed
        return [ordered, count]
    return tf.compile(compaction)
