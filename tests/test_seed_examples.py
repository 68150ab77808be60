"""Every tracing-style example of the seed README, checked against numpy."""

import numpy as np
import pytest

import tensorfrost as tf

DT = 0.1


def wave_eq():
    u = tf.input([-1, -1], tf.float32)
    v = tf.input(u.shape, tf.float32)
    i, j = u.indices
    laplacian = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - u * 4.0
    v_new = v + DT * laplacian
    u_new = u + DT * v_new
    return [v_new, u_new]


def wave_numpy(u, v):
    p = np.pad(u, 1, mode="edge")
    laplacian = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - u * 4.0
    v_new = v + np.float32(DT) * laplacian
    return v_new, u + np.float32(DT) * v_new


def test_wave_equation(backend, rng):
    step = tf.compile(wave_eq)
    u = rng.standard_normal((37, 41)).astype(np.float32)
    v = rng.standard_normal((37, 41)).astype(np.float32)
    a, b = tf.tensor(u), tf.tensor(v)
    for _ in range(3):  # outputs feed the next call
        a, b = step(a, b)
        v, u = wave_numpy(u, v)
        a, b = b, a  # the program returns [v_new, u_new]
    # 3 steps of sums of ~6 terms: float32 rounding only (a few ulp of values ~10).
    np.testing.assert_allclose(a.numpy, u, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(b.numpy, v, rtol=1e-5, atol=1e-5)


def test_same_program_runs_on_two_shapes(backend, rng):
    step = tf.compile(wave_eq)
    for shape in [(8, 8), (19, 5)]:
        u = rng.standard_normal(shape).astype(np.float32)
        v = rng.standard_normal(shape).astype(np.float32)
        v_new, u_new = step(u, v)
        want_v, want_u = wave_numpy(u, v)
        assert v_new.shape == shape
        np.testing.assert_allclose(u_new.numpy, want_u, rtol=1e-5, atol=1e-6)


def matmul_scatter():
    A = tf.input([-1, -1], tf.float32)
    N, M = A.shape
    B = tf.input([M, -1], tf.float32)
    K = B.shape[1]
    C = tf.zeros([N, K])
    i, j, k = tf.indices([N, K, M])
    tf.scatterAdd(C[i, j], A[i, k] * B[k, j])
    return [C]


def matmul_sum():
    A = tf.input([-1, -1], tf.float32)
    N, M = A.shape
    B = tf.input([M, -1], tf.float32)
    K = B.shape[1]
    i, j, k = tf.indices([N, K, M])
    C = tf.sum(A[i, k] * B[k, j], axis=2)
    return [C]


def matmul_op():
    A = tf.input([-1, -1], tf.float32)
    N, M = A.shape
    B = tf.input([M, -1], tf.float32)
    C = tf.matmul(A, B)
    return [C, A @ B]


@pytest.mark.parametrize("program", [matmul_scatter, matmul_sum, matmul_op])
def test_matrix_multiplication(backend, rng, program):
    A = rng.standard_normal((23, 17)).astype(np.float32)
    B = rng.standard_normal((17, 9)).astype(np.float32)
    outs = tf.compile(program)(A, B)
    want = A.astype(np.float64) @ B
    for out in outs:
        # 17-term float32 dot products: |error| <= 17 * eps * sum|a*b|.
        bound = 17 * 1.2e-7 * (np.abs(A) @ np.abs(B))
        assert np.all(np.abs(out.numpy - want) <= bound + 1e-6)


def test_matmul_sum_is_one_kernel():
    prog = tf.compile(matmul_sum)
    assert len(prog.get_kernels()) == 1


def test_broadcasting(backend, rng):
    def broadcasting():
        A = tf.input([1, 3], tf.float32)
        B = tf.input([3, 1], tf.float32)
        C = A + B
        return [C]
    a = rng.standard_normal((1, 3)).astype(np.float32)
    b = rng.standard_normal((3, 1)).astype(np.float32)
    (c,) = tf.compile(broadcasting)(a, b)
    assert c.shape == (3, 3)
    np.testing.assert_array_equal(c.numpy, a + b)


def test_reshape_transpose_unsqueeze(backend, rng):
    def reshape():
        A = tf.input([2, 3], tf.float32)
        B = tf.reshape(A, [3, 2])
        return [B]

    def transpose():
        A = tf.input([2, 3], tf.float32)
        B = tf.transpose(A)
        C = B.T
        return [B, C]

    def unsqueeze():
        A = tf.input([2, 3], tf.float32)
        B = tf.unsqueeze(A, 1)
        return [B]
    a = rng.standard_normal((2, 3)).astype(np.float32)
    (b,) = tf.compile(reshape)(a)
    np.testing.assert_array_equal(b.numpy, a.reshape(3, 2))
    bt, c = tf.compile(transpose)(a)
    assert bt.shape == (3, 2) and c.shape == (2, 3)
    np.testing.assert_array_equal(bt.numpy, a.T)
    np.testing.assert_array_equal(c.numpy, a)
    (u,) = tf.compile(unsqueeze)(a)
    np.testing.assert_array_equal(u.numpy, a[:, None, :])


def test_index_windows(backend, rng):
    def windows():
        B = tf.input([-1, -1], tf.float32)
        B = B * 1.0  # a new tensor, so the input is not modified
        i, j = tf.indices([16, 16])
        B[i + 16, j + 16] = 1.0  # set elements [16:32, 16:32] to 1.0
        i, j = tf.indices([16, 16])
        C = B[i + 8, j + 8]  # read elements [8:24, 8:24]
        return [B, C]
    b = rng.standard_normal((40, 40)).astype(np.float32)
    out_b, out_c = tf.compile(windows)(b)
    want = b.copy()
    want[16:32, 16:32] = 1.0
    np.testing.assert_array_equal(out_b.numpy, want)
    np.testing.assert_array_equal(out_c.numpy, want[8:24, 8:24])
    np.testing.assert_array_equal(b, b)  # the input array is unchanged


def test_out_of_range_indices_are_clamped(backend, rng):
    def shifted():
        A = tf.input([-1], tf.float32)
        i, = A.indices
        return [A[i - 3], A[i + 100]]
    a = rng.standard_normal(10).astype(np.float32)
    lo, hi = tf.compile(shifted)(a)
    np.testing.assert_array_equal(lo.numpy, a[np.clip(np.arange(10) - 3, 0, 9)])
    np.testing.assert_array_equal(hi.numpy, np.full(10, a[9]))


def test_index_grid(backend):
    def grid():
        A = tf.input([-1, -1], tf.float32)
        m, n = A.shape
        p, k = tf.index_grid([0, 2], [m, n])
        return [tf.float(p), tf.float(k), A[p, k]]
    a = np.arange(30, dtype=np.float32).reshape(5, 6)
    p, k, window = tf.compile(grid)(a)
    want_p, want_k = np.meshgrid(np.arange(0, 5), np.arange(2, 6), indexing="ij")
    np.testing.assert_array_equal(p.numpy, want_p)
    np.testing.assert_array_equal(k.numpy, want_k)
    np.testing.assert_array_equal(window.numpy, a[:, 2:])


def mandelbrot_numpy(c_re, c_im, iterations=128):
    z_re = np.zeros_like(c_re)
    z_im = np.zeros_like(c_re)
    count = np.zeros(c_re.shape, np.int32)
    alive = np.ones(c_re.shape, bool)
    for _ in range(iterations):
        new_re = z_re * z_re - z_im * z_im + c_re
        new_im = np.float32(2.0) * z_re * z_im + c_im
        z_re, z_im = np.where(alive, new_re, z_re), np.where(alive, new_im, z_im)
        count += alive
        alive &= ~(z_re * z_re + z_im * z_im > 256.0)
    return count


def _mandelbrot_grid(shape=(48, 64)):
    y, x = np.mgrid[-1.3:1.3:complex(0, shape[0]), -2.1:0.8:complex(0, shape[1])]
    return x.astype(np.float32), y.astype(np.float32)


def _check_escape_counts(got, want):
    # Escape counts are discontinuous in c: one rounding difference (a fused multiply-add)
    # can flip a pixel on the set's boundary. Allow a handful, and only small differences
    # away from the interior.
    differs = got != want
    assert differs.mean() < 0.01, differs.sum()


def test_mandelbrot_break_loop(backend):
    def mandelbrot():
        c_re = tf.input([-1, -1], tf.float32)
        c_im = tf.input(c_re.shape, tf.float32)
        z_re = tf.const(0.0)
        z_im = tf.const(0.0)
        n = tf.const(0)
        with tf.loop(128):
            z_re_new = z_re * z_re - z_im * z_im + c_re
            z_im_new = 2.0 * z_re * z_im + c_im
            z_re.val = z_re_new
            z_im.val = z_im_new
            n.val = n + 1
            with tf.if_cond(z_re * z_re + z_im * z_im > 256.0):
                tf.break_loop()
        return n
    prog = tf.compile(mandelbrot)
    c_re, c_im = _mandelbrot_grid()
    _check_escape_counts(prog(c_re, c_im).numpy, mandelbrot_numpy(c_re, c_im))
    assert len(prog.get_kernels()) == 1


def test_loop_function_form_and_set(backend):
    def mandelbrot():
        c_re = tf.input([-1, -1], tf.float32)
        c_im = tf.input(c_re.shape, tf.float32)
        z_re = tf.const(0.0)
        z_im = tf.const(0.0)
        n = tf.const(0)

        def loop_body(k):
            z_re_new = z_re * z_re - z_im * z_im + c_re
            z_im_new = 2.0 * z_re * z_im + c_im
            z_re.set(z_re_new)
            z_im.set(z_im_new)
            n.set(n + 1)
            with tf.if_cond(z_re * z_re + z_im * z_im > 256.0):
                tf.break_loop()

        tf.loop(0, 128, 1, loop_body)
        return n
    c_re, c_im = _mandelbrot_grid((20, 30))
    _check_escape_counts(tf.compile(mandelbrot)(c_re, c_im).numpy, mandelbrot_numpy(c_re, c_im))


@pytest.mark.parametrize("bounds", [(10,), (2, 10), (1, 10, 3), (9, -1, -2)])
def test_loop_forms(backend, bounds):
    def program():
        x = tf.input([-1], tf.float32)
        acc = tf.zeros(x.shape)
        with tf.loop(*bounds) as k:
            acc.val = acc * 2.0 + tf.float(k) + x
        return acc
    x = np.arange(4, dtype=np.float32)
    want = np.zeros(4, np.float32)
    for k in range(*bounds):
        want = want * 2 + k + x
    np.testing.assert_allclose(tf.compile(program)(x).numpy, want, rtol=1e-6)


def qr_decomposition():
    A = tf.input([-1, -1], tf.float32)
    m, n = A.shape
    Q = tf.zeros([m, n])
    R = tf.zeros([n, n])
    j = tf.index(0, [m])
    with tf.loop(n - 1) as i:
        R[i, i] = tf.norm(A[j, i])
        Q[j, i] = A[j, i] / R[i, i]
        p, k = tf.index_grid([0, i + 1], [m, n])
        t, = tf.index_grid([i + 1], [n])
        R[i, t] = tf.sum(Q[p, i] * A[p, k], axis=0)
        A[p, k] -= Q[p, i] * R[i, k]
    R[n - 1, n - 1] = tf.norm(A[j, n - 1])
    Q[j, n - 1] = A[j, n - 1] / R[n - 1, n - 1]
    return [Q, R]


@pytest.mark.parametrize("shape", [(8, 8), (20, 11)])
def test_qr_decomposition(backend, rng, shape):
    qr = tf.compile(qr_decomposition)
    a = rng.standard_normal(shape).astype(np.float32)
    a_before = a.copy()
    q, r = (t.numpy for t in qr(a))
    n = shape[1]
    # Gram-Schmidt in float32 on well-conditioned random matrices: errors ~ n * eps * |A|.
    np.testing.assert_allclose(q @ r, a, atol=50 * n * 1.2e-7 * np.abs(a).max())
    np.testing.assert_allclose(q.T @ q, np.eye(n), atol=2e-4)
    assert np.allclose(np.tril(r, -1), 0)
    np.testing.assert_array_equal(a, a_before)  # the caller's matrix is not modified


def test_qr_dispatches_kernels_from_a_host_loop():
    qr = tf.compile(qr_decomposition)
    lines = qr.get_main_function().splitlines()
    start = next(k for k, line in enumerate(lines) if line.lstrip().startswith("for ("))
    indent = lines[start][:len(lines[start]) - len(lines[start].lstrip())]
    end = next(k for k in range(start + 1, len(lines)) if lines[k] == indent + "}")
    loop_body = "\n".join(lines[start:end])
    assert loop_body.count("qr_decomposition_k") >= 4  # the kernels of one Gram-Schmidt step
