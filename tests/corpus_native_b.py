"""Corpus: realistic programs in native style (@tf.kernel_program)."""

import numpy as np
from corpus import program

import tensorfrost as tf

F32, I32, U32 = np.float32, np.int32, np.uint32


def _edge(u, width=1):
    return np.pad(u, width, mode="edge")  # tensorfrost clamps out-of-range indices: replicated borders


# Time-stepped float cases allow rtol 1e-4: a contracted multiply-add may move each of their steps by an ulp.
def _heat_1d_reference(u, steps):
    for _ in range(steps):
        p = _edge(u)
        u = u + F32(0.25) * (p[:-2] - F32(2.0) * u + p[2:])
    return u

@program("native", lambda rng: (rng.random(64).astype(F32), 50), _heat_1d_reference, rtol=1e-4, atol=1e-5)
def heat_equation_1d():
    @tf.kernel_program
    def heat_equation_1d(u0: tf.Arg([-1], tf.float32), steps: tf.Arg([], tf.int32)):
        u = u0 * 1.0
        for _ in range(steps):
            i, = u.indices
            u = u + 0.25 * (u[i - 1] - 2.0 * u + u[i + 1])
        return u
    return heat_equation_1d


def _heat_2d_reference(u):
    for _ in range(40):
        p = _edge(u)
        new = u + F32(0.2) * (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - F32(4.0) * u)
        new[0, :], new[-1, :], new[:, 0], new[:, -1] = u[0, :], u[-1, :], u[:, 0], u[:, -1]
        u = new
    return u

@program("native", lambda rng: (rng.random((24, 32)).astype(F32),), _heat_2d_reference, rtol=1e-4, atol=1e-5)
def heat_equation_2d_fixed_border():
    @tf.kernel_program
    def heat_equation_2d_fixed_border(u0: tf.Arg([-1, -1], tf.float32)):
        u = u0 * 1.0
        n, m = u.shape
        for _ in range(40):
            i, j = u.indices
            new = u + 0.2 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u)
            if i == 0 or i == n - 1 or j == 0 or j == m - 1:
                new = u  # Dirichlet border: the boundary keeps its values
            u = new
        return u
    return heat_equation_2d_fixed_border


def _wave_reference(u, v, steps):
    for _ in range(steps):
        p = _edge(u)
        v = v + F32(0.25) * (p[:-2] - F32(2.0) * u + p[2:])
        u = u + v
        u[0] = u[-1] = 0.0
    return u, v

@program("native", lambda rng: (np.exp(-80.0 * (np.linspace(0, 1, 48) - 0.4) ** 2).astype(F32),
                                rng.normal(0.0, 0.01, 48).astype(F32), 60), _wave_reference, rtol=1e-4, atol=1e-5)
def wave_string_pinned_ends():
    @tf.kernel_program
    def wave_string_pinned_ends(u0: tf.Arg([-1], tf.float32), v0: tf.Arg([-1], tf.float32),
                                steps: tf.Arg([], tf.int32)):
        u, v = u0 * 1.0, v0 * 1.0
        n = u.shape[0]
        for _ in range(steps):
            i, = u.indices
            v = v + 0.25 * (u[i - 1] - 2.0 * u + u[i + 1])
            u = u + v
            u[0] = 0.0
            u[n - 1] = 0.0
        return u, v
    return wave_string_pinned_ends


def _life_reference(b):
    for _ in range(12):
        nb = sum(np.roll(b, (di, dj), (0, 1)) for di in (-1, 0, 1) for dj in (-1, 0, 1) if di or dj)
        b = (((b == 1) & ((nb == 2) | (nb == 3))) | ((b == 0) & (nb == 3))).astype(I32)
    return b

@program("native", lambda rng: ((rng.random((20, 28)) < 0.35).astype(I32),), _life_reference)
def game_of_life_torus():
    @tf.kernel_program
    def game_of_life_torus(board0: tf.Arg([-1, -1], tf.int32)):
        board = board0
        n, m = board.shape
        for _ in range(12):
            i, j = board.indices
            neighbours = 0
            for di in (-1, 0, 1):
                for dj in (-1, 0, 1):
                    if di != 0 or dj != 0:
                        neighbours += board[(i + di + n) % n, (j + dj + m) % m]
            if board == 1 and (neighbours == 2 or neighbours == 3):
                new = 1
            elif board == 0 and neighbours == 3:
                new = 1
            else:
                new = 0
            board = new
        return board
    return game_of_life_torus


def _particles_reference(px, py, vx, vy, steps):
    e, dt, gdt = F32(0.8), F32(0.01), F32(9.8 * 0.01)
    for _ in range(steps):
        vy = vy - gdt
        px, py = px + vx * dt, py + vy * dt
        floor, left, right = py < 0, px < 0, px > 1
        py, vy = np.where(floor, -py, py), np.where(floor, -vy * e, vy)
        px = np.where(left, -px, np.where(right, F32(2.0) - px, px))
        vx = np.where(left | right, -vx * e, vx)
    return px, py, vx, vy

# 150 steps; a contracted multiply-add moves a position by an ulp per step (bounces are linear).
@program("native", lambda rng: (*rng.random((2, 40)).astype(F32), *rng.uniform(-2, 2, (2, 40)).astype(F32), 150),
         _particles_reference, rtol=1e-4, atol=1e-4)
def bouncing_particles_box():
    @tf.kernel_program
    def bouncing_particles_box(px0: tf.Arg([-1], tf.float32), py0: tf.Arg([-1], tf.float32),
                               vx0: tf.Arg([-1], tf.float32), vy0: tf.Arg([-1], tf.float32),
                               steps: tf.Arg([], tf.int32)):
        px, py, vx, vy = px0, py0, vx0, vy0
        for _ in range(steps):
            vy = vy - 9.8 * 0.01
            px = px + vx * 0.01
            py = py + vy * 0.01
            if py < 0.0:  # the floor
                py = -py
                vy = -vy * 0.8
            if px < 0.0:  # the walls
                px = -px
                vx = -vx * 0.8
            elif px > 1.0:
                px = 2.0 - px
                vx = -vx * 0.8
        return px, py, vx, vy
    return bouncing_particles_box


def _springs_reference(x, v, steps):
    for _ in range(steps):
        force = np.zeros_like(x)
        force[1:] += F32(40.0) * (x[:-1] - x[1:])
        force[:-1] += F32(40.0) * (x[1:] - x[:-1])
        v = v + F32(0.01) * (force - F32(0.5) * v)
        v[0] = v[-1] = 0.0
        x = x + F32(0.01) * v
    return x, v

@program("native", lambda rng: (rng.standard_normal(32).astype(F32), np.zeros(32, F32), 100), _springs_reference,
         rtol=1e-4, atol=1e-5)  # ulps per step over 100 steps
def spring_chain_pinned():
    @tf.kernel_program
    def spring_chain_pinned(x0: tf.Arg([-1], tf.float32), v0: tf.Arg([-1], tf.float32),
                            steps: tf.Arg([], tf.int32)):
        x, v = x0, v0
        n = x.shape[0]
        for _ in range(steps):
            i, = x.indices
            force = 0.0
            if i > 0:
                force += 40.0 * (x[i - 1] - x)
            if i < n - 1:
                force += 40.0 * (x[i + 1] - x)
            v = v + 0.01 * (force - 0.5 * v)
            if i == 0 or i == n - 1:
                v = 0.0
            x = x + 0.01 * v
        return x, v
    return spring_chain_pinned


@program("native", lambda rng: (rng.standard_normal(64).astype(F32),), np.sort)
def bitonic_sort_network():
    @tf.kernel_program
    def bitonic_sort_network(keys: tf.Arg([-1], tf.float32)):  # the length is a power of two
        a = keys * 1.0
        n = a.shape[0]
        k = 2
        while k <= n:
            j = k // 2
            while j > 0:
                i, = a.indices
                partner = i ^ j
                if partner > i:  # one thread per pair compares and swaps
                    mine, other = a[i], a[partner]
                    ascending = (i & k) == 0
                    if (ascending and mine > other) or (not ascending and mine < other):
                        a[i] = other
                        a[partner] = mine
                j = j // 2
            k = k * 2
        return a
    return bitonic_sort_network


@program("native", lambda rng: (rng.integers(-100, 100, 37).astype(I32),), np.sort)
def odd_even_transposition_sort():
    @tf.kernel_program
    def odd_even_transposition_sort(values: tf.Arg([-1], tf.int32)):
        a = values * 1
        n = a.shape[0]
        for phase in range(n):
            i, = a.indices
            if i % 2 == phase % 2 and i + 1 < n:
                left, right = a[i], a[i + 1]
                if left > right:
                    a[i] = right
                    a[i + 1] = left
        return a
    return odd_even_transposition_sort


def pcg_hash(v):
    state = v * 747796405 + 2891336453
    word = ((state >> ((state >> 28) + 4)) ^ state) * 277803737
    return (word >> 22) ^ word


def _pi_reference(seeds):
    state, hits = seeds.astype(U32), np.zeros(len(seeds), I32)
    for _ in range(100):
        xy = []
        for _ in range(2):
            state = state * U32(747796405) + U32(2891336453)
            word = ((state >> ((state >> U32(28)) + U32(4))) ^ state) * U32(277803737)
            state = (word >> U32(22)) ^ word
            xy.append((state >> U32(8)).astype(F32) / F32(16777216.0))
        hits += xy[0] * xy[0] + xy[1] * xy[1] <= F32(1.0)
    return hits, F32(4.0) * F32(hits.sum()) / F32(100 * len(seeds))

@program("native", lambda rng: (rng.integers(0, 2**31 - 1, 64).astype(I32),), _pi_reference)
def monte_carlo_pi_pcg():
    @tf.kernel_program
    def monte_carlo_pi_pcg(seeds: tf.Arg([-1], tf.int32)):
        state = tf.uint(seeds)
        hits = 0
        for _ in range(100):
            state = pcg_hash(state)
            x = tf.float(state >> 8) / 16777216.0
            state = pcg_hash(state)
            y = tf.float(state >> 8) / 16777216.0
            if x * x + y * y <= 1.0:
                hits += 1
        pi = 4.0 * tf.float(tf.sum(hits)) / tf.float(100 * seeds.shape[0])
        return hits, pi
    return monte_carlo_pi_pcg


def _walk_reference(seeds):
    out = []
    for seed in seeds:
        state, pos, t = int(seed), 0, 0
        while -10 < pos < 10 and t < 200:
            state = (state * 1664525 + 1013904223) % 2**32
            pos, t = pos + (1 if state >= 2**31 else -1), t + 1
        out.append((pos, t))
    return tuple(np.array(column, I32) for column in zip(*out))

@program("native", lambda rng: (rng.integers(0, 2**31 - 1, 40).astype(I32),), _walk_reference)
def lcg_random_walk_barrier():
    @tf.kernel_program
    def lcg_random_walk_barrier(seeds: tf.Arg([-1], tf.int32)):
        state = tf.uint(seeds)
        pos = 0
        t = 0
        while pos < 10 and pos > -10 and t < 200:
            state = state * 1664525 + 1013904223  # Numerical Recipes LCG
            if state >> 31 == 1:
                pos += 1
            else:
                pos -= 1
            t += 1
        return pos, t
    return lcg_random_walk_barrier


def _bf_inputs(rng, n=24, e=70):
    dist0 = np.where(np.arange(n) == 3, 0, 1_000_000).astype(I32)  # the source is node 3
    return (*rng.integers(0, n, (2, e)).astype(I32), rng.integers(1, 20, e).astype(I32), dist0)


def _bf_reference(src, dst, w, dist0):
    dist = [int(d) for d in dist0]
    for _ in range(len(dist) - 1):
        for s, d, c in zip(src, dst, w):
            dist[d] = min(dist[d], dist[s] + int(c)) if dist[s] < 1_000_000 else dist[d]
    return np.array(dist, I32)

@program("native", _bf_inputs, _bf_reference)
def bellman_ford_edge_list():
    @tf.kernel_program
    def bellman_ford_edge_list(src: tf.Arg([-1], tf.int32), dst: tf.Arg([-1], tf.int32),
                               weight: tf.Arg([-1], tf.int32), dist0: tf.Arg([-1], tf.int32)):
        dist = dist0 * 1
        n = dist.shape[0]
        for _ in range(n - 1):
            before = dist * 1
            e, = src.indices
            du = dist[src[e]]
            if du < 1000000:
                tf.scatterMin(dist[dst[e]], du + weight[e])
            changed = tf.sum(tf.int(dist != before))
            if changed == 0:
                break  # no edge relaxed: the distances are final
        return dist
    return bellman_ford_edge_list


def _dense_paths_reference(weights, source):  # Jacobi sweeps in float32, as the program does
    dist = np.full(len(weights), F32(1e30))
    dist[source] = 0.0
    for _ in range(len(weights) - 1):
        via = np.where(weights > 0, dist[:, None] + weights, F32(np.inf))
        dist = np.minimum(dist, via.min(axis=0))
    return dist

@program("native", lambda rng: (np.where(rng.random((20, 20)) < 0.2, rng.uniform(0.5, 5, (20, 20)), 0).astype(F32), 1),
         _dense_paths_reference)
def shortest_paths_dense_matrix():
    @tf.kernel_program
    def shortest_paths_dense_matrix(weights: tf.Arg([-1, -1], tf.float32), source: tf.Arg([], tf.int32)):
        n = weights.shape[0]
        dist = tf.zeros([n]) + 1e30
        dist[source] = 0.0
        for _ in range(n - 1):
            i, = dist.indices
            best = dist[i]
            for u in range(n):
                w = weights[u, i]
                if w > 0.0 and dist[u] + w < best:
                    best = dist[u] + w
            dist = best
        return dist
    return shortest_paths_dense_matrix


def _bfs_reference(adj, source):
    level, queue = [-1] * len(adj), [source]
    level[source] = 0
    for u in queue:
        for v in np.nonzero(adj[u])[0]:
            if level[v] < 0:
                level[v] = level[u] + 1
                queue.append(v)
    return np.array(level, I32)

@program("native", lambda rng: ((rng.random((30, 30)) < 0.07).astype(I32), 0), _bfs_reference)
def bfs_levels_dense():
    @tf.kernel_program
    def bfs_levels_dense(adj: tf.Arg([-1, -1], tf.int32), source: tf.Arg([], tf.int32)):
        n = adj.shape[0]
        level = tf.zeros([n], tf.int32) - 1
        level[source] = 0
        depth = 0
        changed = 1
        while changed > 0:
            i, = level.indices
            reached = 0
            for u in range(n):
                if level[u] == depth and adj[u, i] != 0:
                    reached = 1
                    break
            new_level = level
            if level == -1 and reached == 1:
                new_level = depth + 1
            changed = tf.sum(tf.int(new_level != level))
            level = new_level
            depth += 1
        return level
    return bfs_levels_dense


def _components_inputs(rng, n=26):
    group = rng.integers(0, 5, n)
    adj = (rng.random((n, n)) < 0.3) & (group[:, None] == group[None, :])
    return ((adj | adj.T) & ~np.eye(n, dtype=bool)).astype(I32),


def _components_reference(adj):  # transitive closure: the first node each one reaches is its label
    reach = (adj + np.eye(len(adj), dtype=I32)) > 0
    for _ in range(5):  # paths of up to 2**5 > n edges
        reach = (reach.astype(I32) @ reach.astype(I32)) > 0
    return reach.argmax(axis=1).astype(I32)

@program("native", _components_inputs, _components_reference)
def connected_components_labels():
    @tf.kernel_program
    def connected_components_labels(adj: tf.Arg([-1, -1], tf.int32)):
        n = adj.shape[0]
        labels, = tf.indices([n])
        while True:
            i, = labels.indices
            best = labels
            for u in range(n):
                if adj[i, u] == 0:
                    continue
                if labels[u] < best:
                    best = labels[u]
            changed = tf.sum(tf.int(best != labels))
            labels = best
            if changed == 0:
                break
        return labels
    return connected_components_labels


def _gauss_reference(img, taps):
    r = len(taps) // 2
    p = _edge(img, r)
    rows = sum(taps[k] * p[r:-r, k:k + img.shape[1]] for k in range(len(taps)))
    p = _edge(rows, r)
    return sum(taps[k] * p[k:k + img.shape[0], r:-r] for k in range(len(taps)))

@program("native", lambda rng: (rng.random((28, 36)).astype(F32), (np.array([1, 4, 6, 4, 1]) / 16).astype(F32)),
         _gauss_reference, rtol=1e-5, atol=1e-6)
def separable_gaussian_blur():
    @tf.kernel_program
    def separable_gaussian_blur(img: tf.Arg([-1, -1], tf.float32), taps: tf.Arg([-1], tf.float32)):
        r = taps.shape[0] // 2
        i, j = img.indices
        rows = 0.0
        for k in range(taps.shape[0]):
            rows += taps[k] * img[i, j + k - r]
        out = 0.0
        for k in range(taps.shape[0]):
            out += taps[k] * rows[i + k - r, j]
        return out
    return separable_gaussian_blur


def _equalize_reference(img):
    b = np.minimum((img * F32(16)).astype(I32), 15)
    hist = np.bincount(b.ravel(), minlength=16).astype(I32)
    cdf = np.cumsum(hist).astype(I32)
    return hist, cdf, cdf[b].astype(F32) / F32(img.size)

@program("native", lambda rng: (rng.random((24, 20)).astype(F32) ** 2,), _equalize_reference)
def histogram_equalization():
    @tf.kernel_program
    def histogram_equalization(img: tf.Arg([-1, -1], tf.float32)):
        b = tf.int(img * 16.0)
        if b >= 16:
            b = 15
        hist = tf.zeros([16], tf.int32)
        i, j = img.indices
        tf.scatterAdd(hist[b[i, j]], 1)
        k, = hist.indices
        cdf = 0
        for q in range(16):
            if q <= k:
                cdf += hist[q]
        equalized = tf.float(cdf[b]) / tf.float(img.shape[0] * img.shape[1])
        return hist, cdf, equalized
    return histogram_equalization


def _spd_inputs(rng, n=16):
    m = rng.standard_normal((n, n))
    return (m @ m.T / n + np.eye(n)).astype(F32), rng.standard_normal(n).astype(F32)

# float32 CG stopped at |r| < 1e-5 on a system of condition ~4 against float64 solve: x to ~1e-6.
@program("native", _spd_inputs, lambda a, b: np.linalg.solve(a.astype(np.float64), b), rtol=1e-4, atol=1e-5)
def conjugate_gradient_early_stop():
    @tf.kernel_program
    def conjugate_gradient_early_stop(A: tf.Arg([-1, -1], tf.float32), b: tf.Arg([-1], tf.float32)):
        i, k = A.indices
        x = tf.zeros(b.shape)
        r = b * 1.0
        p = r * 1.0
        rs_old = tf.sum(r * r)
        for _ in range(100):
            Ap = tf.sum(A[i, k] * p[k], axis=1)
            alpha = rs_old / tf.sum(p * Ap)
            x = x + alpha * p
            r = r - alpha * Ap
            rs_new = tf.sum(r * r)
            if tf.sqrt(rs_new) < 1e-5:
                break
            p = r + (rs_new / rs_old) * p
            rs_old = rs_new
        return x
    return conjugate_gradient_early_stop


def _mgs_reference(a):
    q = a.astype(np.float64)
    for c in range(q.shape[1]):
        for p in range(c):
            q[:, c] -= (q[:, p] @ q[:, c]) * q[:, p]
        q[:, c] /= np.linalg.norm(q[:, c])
    return q

# float32 Gram-Schmidt on a well-conditioned random 12x6 matrix: ~n * eps * cond.
@program("native", lambda rng: (rng.standard_normal((12, 6)).astype(F32),), _mgs_reference, rtol=1e-4, atol=2e-5)
def gram_schmidt_columns():
    @tf.kernel_program
    def gram_schmidt_columns(A: tf.Arg([-1, -1], tf.float32)):
        m, n = A.shape
        Q = tf.zeros([m, n])
        r, = tf.indices([m])
        for c in range(n):
            v = A[r, c]
            for p in range(c):
                q = Q[r, p]
                v = v - tf.sum(q * v) * q
            Q[r, c] = v / tf.norm(v)
        return Q
    return gram_schmidt_columns


@program("native", lambda rng: (rng.integers(-50, 50, 50).astype(I32),), lambda x: np.cumsum(x).astype(I32))
def prefix_sum_hillis_steele():
    @tf.kernel_program
    def prefix_sum_hillis_steele(x: tf.Arg([-1], tf.int32)):
        s = x * 1
        n = s.shape[0]
        offset = 1
        while offset < n:
            i, = s.indices
            if i >= offset:
                nxt = s + s[i - offset]
            else:
                nxt = s
            s = nxt
            offset *= 2
        return s
    return prefix_sum_hillis_steele


@program("native", lambda rng: (rng.integers(-1000, 1000, 64).astype(I32),),
         lambda x: (np.full(64, x.sum(), I32), np.full(64, x.max(), I32)))
def butterfly_allreduce_xor():
    @tf.kernel_program
    def butterfly_allreduce_xor(x: tf.Arg([-1], tf.int32)):  # the length is a power of two
        total = x
        largest = x
        j = x.shape[0] // 2
        while j > 0:
            i, = total.indices
            total = total + total[i ^ j]
            largest = tf.max(largest, largest[i ^ j])
            j = j // 2
        return total, largest
    return butterfly_allreduce_xor


@program("native", lambda rng: (rng.standard_normal(45).astype(F32),), np.maximum.accumulate, rtol=0, atol=0)
def cumulative_max_scan():
    @tf.kernel_program
    def cumulative_max_scan(x: tf.Arg([-1], tf.float32)):
        i, = x.indices
        best = x[0]
        for k in range(1, i + 1):  # each element scans its own prefix
            if x[k] > best:
                best = x[k]
        return best
    return cumulative_max_scan


def _haar_reference(x):
    u, idx, stride = x.copy(), np.arange(len(x)), 1
    while stride < len(x):
        odd, even = idx[idx % (2 * stride) == stride], idx[idx % (2 * stride) == 0]
        u[odd] = u[odd] - u[odd - stride]
        u[even] = u[even] + F32(0.5) * u[even + stride]
        stride *= 2
    return u

@program("native", lambda rng: (rng.standard_normal(64).astype(F32),), _haar_reference, rtol=1e-5, atol=1e-6)
def haar_lifting_inplace():
    @tf.kernel_program
    def haar_lifting_inplace(signal: tf.Arg([-1], tf.float32)):  # the length is a power of two
        u = signal * 1.0
        n = u.shape[0]
        stride = 1
        while stride < n:
            i, = u.indices
            if i % (2 * stride) == stride:  # predict: odd samples become details
                u[i] = u[i] - u[i - stride]
            if i % (2 * stride) == 0:  # update: even samples become averages
                u[i] = u[i] + 0.5 * u[i + stride]
            stride *= 2
        return u
    return haar_lifting_inplace
