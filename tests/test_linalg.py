"""tf.linalg against numpy/scipy on every backend: factorisations, solvers, determinants,
eigen and singular value decompositions, their gradients, and their errors.

Tolerances: float32 LU/Cholesky/substitution have backward errors of about n * eps * |A|,
so a result's error is bounded by about n * eps * cond(A) * |result| (eps = 2**-23). The
matrices are well conditioned (SPD ones are x x^T + n I, cond <= ~6; general ones are a
row-shuffled x + 3 sqrt(n) I, cond of a few), and ``_tolerance`` allows 8 times that bound.
"""

import numpy as np
import pytest
import scipy.linalg
from conftest import central_differences

import tensorfrost as tf
from tensorfrost.lib import linalg

EPS32 = float(np.finfo(np.float32).eps)
SIZES = [1, 3, 17, 64]


def _spd(rng, shape):
    n = shape[-1]
    x = rng.standard_normal(shape)
    return (x @ np.swapaxes(x, -1, -2) + n * np.eye(n)).astype(np.float32)


def _general(rng, shape):
    """Well conditioned and not symmetric, with rows shuffled so that pivoting must swap them."""
    n = shape[-1]
    a = rng.standard_normal(shape) + 3 * np.sqrt(n) * np.eye(n)
    return np.take(a, rng.permutation(n), axis=-2).astype(np.float32)


def _tolerance(a, want):
    """8 n eps cond(a) |want|: the float32 error bound of a backward-stable algorithm, with room."""
    n = a.shape[-1]
    return 8 * n * EPS32 * float(np.max(np.linalg.cond(a.astype(np.float64)))) * float(np.max(np.abs(want)))


def _assert_close(got, want, a):
    np.testing.assert_allclose(got, want, rtol=0, atol=_tolerance(a, want))


def _run(fn, *arrays):
    """Compile ``fn`` over inputs of the arrays' ranks (all sizes free) and run it."""
    def program():
        tensors = [tf.input([-1] * x.ndim, tf.int32 if x.dtype == np.int32 else tf.float32) for x in arrays]
        result = fn(*tensors)
        return list(result) if isinstance(result, (tuple, list)) else [result]
    out = tf.compile(program)(*arrays)
    return [t.numpy for t in (out if isinstance(out, tuple) else (out,))]


# -- factorisations -------------------------------------------------------------------------------


def test_cholesky_matches_numpy(backend, rng):
    def program():
        a = tf.input([-1, -1], tf.float32)
        return [linalg.cholesky(a)]
    prog = tf.compile(program)
    for n in SIZES + [130]:  # 130: three panels of the blocked algorithm, the last one partial
        a = _spd(rng, (n, n))
        got = prog(a)
        got = (got[0] if isinstance(got, tuple) else got).numpy
        want = np.linalg.cholesky(a.astype(np.float64))
        _assert_close(got, want, a)
        np.testing.assert_array_equal(np.triu(got, 1), np.zeros((n, n)))


def test_lu_matches_scipy(backend, rng):
    def program():
        a = tf.input([-1, -1], tf.float32)
        p, low, up = linalg.lu(a)
        packed, piv = linalg.lu_factor(a)
        return [p, low, up, packed, piv]
    prog = tf.compile(program)
    for n in SIZES:
        a = _general(rng, (n, n))
        p, low, up, packed, piv = (t.numpy for t in prog(a))
        want_p, want_l, want_u = scipy.linalg.lu(a.astype(np.float64))
        want_packed, want_piv = scipy.linalg.lu_factor(a.astype(np.float64))
        # Same pivots as LAPACK (the first largest entry), so the same factors.
        np.testing.assert_array_equal(p, want_p)
        np.testing.assert_array_equal(piv, want_piv)
        _assert_close(low, want_l, a)
        _assert_close(up, want_u, a)
        _assert_close(packed, want_packed, a)
        np.testing.assert_array_equal(np.diag(low), np.ones(n))
        np.testing.assert_array_equal(np.tril(up, -1), np.zeros((n, n)))


def test_lu_of_a_singular_matrix_has_no_nan(backend):
    # A zero column: the pivot is 0, and the column is left as it is (as LAPACK does).
    a = np.array([[0.0, 1.0, 2.0], [0.0, 3.0, 4.0], [0.0, 5.0, 7.0]], np.float32)
    p, low, up = _run(linalg.lu, a)
    assert np.isfinite(low).all() and np.isfinite(up).all()
    np.testing.assert_allclose(p @ low @ up, a, atol=1e-5)  # entries of size 10: float32 rounding
    (d,) = _run(linalg.det, a)
    sign, logdet = _run(linalg.slogdet, a)
    assert d[0] == 0.0 and sign[0] == 0.0 and logdet[0] == -np.inf


def test_empty_matrices_as_numpy(backend):
    def program():
        a, b = tf.input([-1, -1], tf.float32), tf.input([-1], tf.float32)
        sign, logdet = linalg.slogdet(a)
        return [linalg.cholesky(a), linalg.solve(a, b), linalg.det(a), sign, logdet]
    low, x, d, sign, logdet = (t.numpy for t in tf.compile(program)(np.zeros((0, 0), np.float32),
                                                                      np.zeros(0, np.float32)))
    assert low.shape == (0, 0) and x.shape == (0,)
    want_sign, want_logdet = np.linalg.slogdet(np.zeros((0, 0)))
    assert (d[0], sign[0], logdet[0]) == (np.linalg.det(np.zeros((0, 0))), want_sign, want_logdet)


# -- solvers and determinants --------------------------------------------------------------------------


def test_solve_inv_det_slogdet_match_numpy(backend, rng):
    def program():
        a = tf.input([-1, -1], tf.float32)
        b = tf.input([-1], tf.float32)
        rhs = tf.input([-1, -1], tf.float32)
        sign, logdet = linalg.slogdet(a)
        return [linalg.solve(a, b), linalg.solve(a, rhs), linalg.inv(a), linalg.det(a), sign, logdet]
    prog = tf.compile(program)
    for n in SIZES:
        a = _general(rng, (n, n))
        b = rng.standard_normal(n).astype(np.float32)
        rhs = rng.standard_normal((n, 4)).astype(np.float32)
        x, xs, inverse, d, sign, logdet = (t.numpy for t in prog(a, b, rhs))
        a64 = a.astype(np.float64)
        _assert_close(x, np.linalg.solve(a64, b), a)
        _assert_close(xs, np.linalg.solve(a64, rhs), a)
        _assert_close(inverse, np.linalg.inv(a64), a)
        want_sign, want_logdet = np.linalg.slogdet(a64)
        assert d.shape == (1,) and sign.shape == (1,) and logdet.shape == (1,)
        assert sign[0] == want_sign
        # log|det| = sum log|u_ii|: each term off by about n eps cond relative, summed over n terms
        np.testing.assert_allclose(logdet[0], want_logdet, atol=8 * n * n * EPS32 * np.linalg.cond(a64))
        if n <= 17:  # 64 overflows float32 (|det| ~ 24^64), as numpy's float32 det does
            np.testing.assert_allclose(d[0], np.linalg.det(a64), rtol=8 * n * n * EPS32 * np.linalg.cond(a64))


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("unit", [False, True])
def test_triangular_solve_matches_scipy(backend, rng, lower, unit):
    def program():
        a = tf.input([-1, -1], tf.float32)
        b = tf.input([-1], tf.float32)
        rhs = tf.input([-1, -1], tf.float32)
        return [linalg.triangular_solve(a, b, lower=lower, unit_diagonal=unit),
                linalg.triangular_solve(a, rhs, lower=lower, unit_diagonal=unit)]
    prog = tf.compile(program)
    for n in (1, 17):
        # A triangular factor of a well-conditioned matrix is well conditioned; the other
        # triangle holds garbage that must not be read.
        factor = np.linalg.cholesky(_spd(rng, (n, n)).astype(np.float64))
        factor = factor if lower else factor.T
        if unit:
            factor = factor / np.diag(factor)[:, None]
        a = (factor + (np.triu(np.full((n, n), 1e3), 1) if lower else np.tril(np.full((n, n), 1e3), -1)))
        a = a.astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        rhs = rng.standard_normal((n, 3)).astype(np.float32)
        x, xs = (t.numpy for t in prog(a, b, rhs))
        kwargs = {"lower": lower, "unit_diagonal": unit}
        _assert_close(x, scipy.linalg.solve_triangular(a.astype(np.float64), b, **kwargs), factor)
        _assert_close(xs, scipy.linalg.solve_triangular(a.astype(np.float64), rhs, **kwargs), factor)


def test_batched_along_leading_axes(backend, rng):
    a = _spd(rng, (2, 3, 5, 5))
    b = rng.standard_normal((2, 3, 5)).astype(np.float32)

    def all_of_them(a, b):
        sign, logdet = linalg.slogdet(a)
        p, low, up = linalg.lu(a)
        return [linalg.cholesky(a), linalg.solve(a, b), linalg.inv(a), linalg.det(a), sign, logdet, p @ low @ up,
                linalg.triangular_solve(a, b)]
    chol, x, inverse, d, sign, logdet, plu, tri = _run(all_of_them, a, b)
    a64 = a.astype(np.float64)
    _assert_close(chol, np.linalg.cholesky(a64), a)
    _assert_close(x, np.linalg.solve(a64, b[..., None])[..., 0], a)
    _assert_close(inverse, np.linalg.inv(a64), a)
    want_sign, want_logdet = np.linalg.slogdet(a64)
    assert d.shape == sign.shape == logdet.shape == (2, 3)
    np.testing.assert_allclose(d, np.linalg.det(a64), rtol=1e-5)  # 8 n^2 eps cond, cond <= 6 here
    np.testing.assert_array_equal(sign, want_sign)
    np.testing.assert_allclose(logdet, want_logdet, atol=1e-5)
    _assert_close(plu, a64, a)
    _assert_close(tri, np.linalg.solve(np.tril(a64), b[..., None])[..., 0], a)


def test_kernel_program_front_end(backend, rng):
    @tf.kernel_program
    def solve_twice(a: tf.Arg([-1, -1, -1], tf.float32), b: tf.Arg([-1, -1, -1], tf.float32)):
        x = b
        for _ in tf.static_range(2):  # x = A^-2 b, in Python (unrolled) control flow
            x = linalg.solve(a, x)
        return x
    a = _general(rng, (3, 6, 6))
    b = rng.standard_normal((3, 6, 2)).astype(np.float32)
    got = solve_twice(a, b)
    got = (got[0] if isinstance(got, tuple) else got).numpy
    a64 = a.astype(np.float64)
    want = np.linalg.solve(a64, np.linalg.solve(a64, b))
    _assert_close(got, want, np.einsum("bij,bjk->bik", a64, a64))


# -- eigen and singular value decompositions -----------------------------------------------------------


def _symmetric(rng, shape):
    x = rng.standard_normal(shape)
    return ((x + np.swapaxes(x, -1, -2)) / 2).astype(np.float32)


def _eigh_program():
    def program():
        single = tf.input([-1, -1], tf.float32)
        stack = tf.input([-1, -1, -1], tf.float32)
        return [*linalg.eigh(single), *linalg.eigh(stack)]
    return tf.compile(program)


def _check_eigh(a, w, v):
    """Against np.linalg.eigvalsh: Jacobi takes each entry through about n rotations a sweep,
    each adding eps |A| of rounding, so errors reach a few n eps |A| (1e-4 at n = 64)."""
    a64 = a.astype(np.float64)
    n = a.shape[-1]
    norm = max(float(np.max(np.abs(np.linalg.eigvalsh(a64)))), 1.0)
    tolerance = 4 * n * EPS32 * norm
    np.testing.assert_allclose(w, np.linalg.eigvalsh(a64), atol=tolerance)
    assert np.all(np.diff(w, axis=-1) >= 0)
    residual = a64 @ v - v * w[..., None, :]
    assert np.max(np.abs(residual)) <= tolerance
    np.testing.assert_allclose(np.swapaxes(v, -1, -2) @ v, np.broadcast_to(np.eye(n), a.shape), atol=4 * n * EPS32)


def _jacobi_sizes(backend):
    """64 on the cpu only: a 64 x 64 Jacobi solve is ~1,000 dispatches, seconds on llvmpipe."""
    return SIZES if backend is tf.cpu else [n for n in SIZES if n < 64]


def test_eigh_matches_numpy(backend, rng):
    prog = _eigh_program()
    for n in _jacobi_sizes(backend):
        a, stack = _symmetric(rng, (n, n)), _symmetric(rng, (3 if n < 64 else 1, n, n))
        w, v, stack_w, stack_v = (t.numpy for t in prog(a, stack))
        _check_eigh(a, w, v)
        _check_eigh(stack, stack_w, stack_v)


def test_eigh_of_repeated_and_diagonal_eigenvalues(backend, rng):
    q, _ = np.linalg.qr(rng.standard_normal((5, 5)))
    repeated = (q @ np.diag([2.0, -1.0, 2.0, 2.0, 0.5]) @ q.T).astype(np.float32)
    diagonal = np.diag([3.0, -2.0, 3.0, 0.0, 1.0]).astype(np.float32)[None]  # ties sort in index order
    w, v, stack_w, stack_v = (t.numpy for t in _eigh_program()(repeated, diagonal))
    _check_eigh(repeated, w, v)
    _check_eigh(diagonal, stack_w, stack_v)
    np.testing.assert_array_equal(stack_w[0], [-2.0, 0.0, 1.0, 3.0, 3.0])
    np.testing.assert_array_equal(np.abs(stack_v[0][:, 3:]), np.eye(5)[:, [0, 2]])


def _check_svd(a, u, s, vh, orthonormal=True):
    """Against np.linalg.svd: one-sided Jacobi in float32, errors of a few n eps |A| as for eigh."""
    a64 = a.astype(np.float64)
    m, n = a.shape[-2:]
    k = min(m, n)
    assert u.shape == a.shape[:-2] + (m, k) and s.shape == a.shape[:-2] + (k,) and vh.shape == a.shape[:-2] + (k, n)
    want = np.linalg.svd(a64, compute_uv=False)
    tolerance = 4 * max(m, n) * EPS32 * max(float(np.max(want)), 1.0)
    np.testing.assert_allclose(s, want, atol=tolerance)
    np.testing.assert_allclose((u * s[..., None, :]) @ vh, a64, atol=tolerance)
    if orthonormal:
        eye = np.broadcast_to(np.eye(k), a.shape[:-2] + (k, k))
        np.testing.assert_allclose(np.swapaxes(u, -1, -2) @ u, eye, atol=4 * max(m, n) * EPS32)
        np.testing.assert_allclose(vh @ np.swapaxes(vh, -1, -2), eye, atol=4 * max(m, n) * EPS32)


def test_svd_matches_numpy(backend, rng):
    def program():
        single = tf.input([-1, -1], tf.float32)
        stack = tf.input([-1, -1, -1], tf.float32)
        return [*linalg.svd(single), *linalg.svd(stack)]
    prog = tf.compile(program)
    for m, n in [(1, 1), (3, 3), (17, 5), (5, 17)] + [(n, n) for n in _jacobi_sizes(backend) if n == 64]:
        a = rng.standard_normal((m, n)).astype(np.float32)
        stack = rng.standard_normal((2 if m < 64 else 1, m, n)).astype(np.float32)
        u, s, vh, stack_u, stack_s, stack_vh = (t.numpy for t in prog(a, stack))
        _check_svd(a, u, s, vh)
        _check_svd(stack, stack_u, stack_s, stack_vh)
    # Rank 2 of 6 x 4: two singular values at rounding level (their vectors are noise).
    low_rank = (rng.standard_normal((6, 2)) @ rng.standard_normal((2, 4))).astype(np.float32)
    u, s, vh, *_ = (t.numpy for t in prog(low_rank, low_rank[None]))
    _check_svd(low_rank, u, s, vh, orthonormal=False)


# -- gradients -----------------------------------------------------------------------------------------


GRADIENT_CASES = {
    "cholesky": (lambda a, b, w: tf.sum(tf.sum(linalg.cholesky(a) * w)),
                 lambda a, b, w: np.sum(np.linalg.cholesky(a) * w)),
    "inv": (lambda a, b, w: tf.sum(tf.sum(linalg.inv(a) * w)),
            lambda a, b, w: np.sum(np.linalg.inv(a) * w)),
    "solve": (lambda a, b, w: tf.sum(linalg.solve(a, b) * w[0, :]),
              lambda a, b, w: np.sum(np.linalg.solve(a, b) * w[0])),
    "det": (lambda a, b, w: linalg.det(a),
            lambda a, b, w: np.linalg.det(a)),
    "slogdet": (lambda a, b, w: linalg.slogdet(a)[1],
                lambda a, b, w: np.linalg.slogdet(a)[1]),
    "triangular_solve": (lambda a, b, w: tf.sum(linalg.triangular_solve(a, b, lower=False) * w[0, :]),
                         lambda a, b, w: np.sum(scipy.linalg.solve_triangular(a, b, lower=False) * w[0])),
}


@pytest.mark.parametrize("name", sorted(GRADIENT_CASES))
def test_gradient_matches_central_differences(backend, rng, name):
    traced, reference = GRADIENT_CASES[name]
    n = 5
    a = _spd(rng, (n, n)) if name == "cholesky" else _general(rng, (n, n))
    b = rng.standard_normal(n).astype(np.float32)
    w = rng.standard_normal((n, n)).astype(np.float32)

    def program():
        a_in, b_in, w_in = tf.input([-1, -1]), tf.input([-1]), tf.input([-1, -1])
        loss = traced(a_in, b_in, w_in)
        return [tf.grad(loss, a_in), tf.grad(loss, b_in)]
    grad_a, grad_b = (t.numpy for t in tf.compile(program)(a, b, w))
    a64, b64, w64 = (x.astype(np.float64) for x in (a, b, w))
    want_a = central_differences(lambda x: reference(x, b64, w64), a64)
    want_b = central_differences(lambda x: reference(a64, x, w64), b64)
    # float32 gradients of well-conditioned 5x5 problems: relative errors of a few 1e-6
    scale = max(np.abs(want_a).max(), np.abs(want_b).max())
    np.testing.assert_allclose(grad_a, want_a, atol=2e-5 * scale)
    np.testing.assert_allclose(grad_b, want_b, atol=2e-5 * scale)


def test_eigh_gradient_matches_central_differences(backend, rng):
    n = 5
    a = _symmetric(rng, (n, n))
    w = rng.standard_normal((n, n)).astype(np.float32)
    c = rng.standard_normal(n).astype(np.float32)

    def program():
        a_in, w_in, c_in = tf.input([-1, -1]), tf.input([-1, -1]), tf.input([-1])
        values, vectors = linalg.eigh(a_in)
        loss = tf.sum(values * c_in) + tf.sum(tf.sum(vectors * vectors * w_in))  # independent of signs
        return [tf.grad(loss, a_in)]
    grad = tf.compile(program)(a, w, c)
    grad = (grad[0] if isinstance(grad, tuple) else grad).numpy

    def loss(x):
        values, vectors = np.linalg.eigh(x)
        return np.sum(values * c) + np.sum(vectors * vectors * w)
    # numpy reads one triangle, so compare derivatives along symmetric directions.
    for _ in range(3):
        direction = rng.standard_normal((n, n))
        direction = direction + direction.T
        h, a64 = 1e-6, a.astype(np.float64)
        want = (loss(a64 + h * direction) - loss(a64 - h * direction)) / (2 * h)
        # float32 eigenvectors carry ~n eps / gap errors; the gaps of a random 5 x 5 are ~0.3
        np.testing.assert_allclose(np.sum(grad * direction), want, rtol=1e-4, atol=1e-4)


def test_select_on_a_constant_condition_is_folded():
    """Regression (simplify): the gradient surrogates of tf.linalg rely on it, so a program
    that asks for no gradient computes none of them."""
    def program():
        x = tf.input([-1], tf.float32)
        return [tf.select(tf.const(False), tf.sin(x) * 3.0, x + 1.0)]
    prog = tf.compile(program)
    assert not any("sin" in source for source in prog.get_kernels())
    out = prog(np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal((out[0] if isinstance(out, tuple) else out).numpy, [2.0, 3.0])


# -- errors ---------------------------------------------------------------------------------------------


def test_errors_name_the_argument():
    def not_square():
        a = tf.input([3, 4], tf.float32)
        return [linalg.cholesky(a)]
    with pytest.raises(tf.ShapeError, match=r"tf.linalg.cholesky: expected square matrices \[..., n, n\], "
                                            r"got \[..., 3, 4\]"):
        tf.compile(not_square)

    def wrong_rhs():
        a = tf.input([4, 4], tf.float32)
        b = tf.input([3], tf.float32)
        return [linalg.solve(a, b)]
    with pytest.raises(tf.ShapeError, match="tf.linalg.solve: b has 3 rows, a has 4"):
        tf.compile(wrong_rhs)

    def vector_matrix():
        a = tf.input([4], tf.float32)
        return [linalg.inv(a)]
    with pytest.raises(tf.ShapeError, match="tf.linalg.inv: a: expected a tensor of rank 2 or more, got rank 1"):
        tf.compile(vector_matrix)


def test_sizes_known_only_at_run_time_are_checked_when_it_runs():
    def program():
        a = tf.input([-1, -1], tf.float32)
        return [linalg.det(a)]
    with pytest.raises(tf.RuntimeCheckError, match="square"):
        tf.compile(program)(np.zeros((3, 4), np.float32))


# -- QR --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(6, 6), (40, 13)])
def test_qr_factors_and_leaves_its_argument_unchanged(backend, rng, shape):
    def program():
        a = tf.input([-1, -1], tf.float32)
        doubled = a * 2.0
        q, r = linalg.qr(doubled)
        return [q, r, doubled]
    a = rng.standard_normal(shape).astype(np.float32)
    q, r, doubled = (t.numpy for t in tf.compile(program)(a))
    n = shape[1]
    # float32 Gram-Schmidt on a well-conditioned random matrix: errors of a few 1e-6
    np.testing.assert_allclose(q @ r, 2 * a, atol=2e-5)
    np.testing.assert_allclose(q.T @ q, np.eye(n), atol=2e-5)
    np.testing.assert_array_equal(np.tril(r, -1), np.zeros((n, n)))
    np.testing.assert_array_equal(doubled, 2 * a)


def test_a_triangular_solve_carries_an_infinite_right_hand_side_as_substitution_does():
    """Each row's sum starts at 0, not at 0 times its right-hand side (inf * 0 is NaN)."""
    solve = tf.compile(lambda: tf.linalg.triangular_solve(tf.input([-1, -1], tf.float32), tf.input([-1], tf.float32)))
    low = np.array([[2, 0, 0], [1, 1, 0], [1, 2, 4]], np.float32)
    for b in ([1, 1, np.inf], [1, np.inf, 1]):
        b = np.array(b, np.float32)
        want = np.zeros(3)
        with np.errstate(all="ignore"):
            for i in range(3):
                want[i] = (b[i] - sum(low[i, k] * want[k] for k in range(i))) / low[i, i]
        np.testing.assert_array_equal(solve(low, b).numpy, want)
