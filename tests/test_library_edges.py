"""The library's fast and unusual paths against numpy, as tables (issue 26): empty, size-1,
non-power-of-two and batched inputs of tf.fft, tf.sort, the scans, tf.linalg, matmul, the
reductions and tf.random. numpy's answer, or an error where numpy raises one (a transform
of length 0, the maximum of nothing): never values that no kernel wrote.

Every program is compiled once per backend and run at every size of its table (sizes are
known only when it runs). Tolerances are float32 rounding bounds of each algorithm, given
with its section.
"""

import math

import numpy as np
import pytest
import scipy.linalg

import tensorfrost as tf

EPS = 2.0 ** -24  # float32 unit roundoff
_COMPILED: dict = {}


def compiled(backend, build):
    """``build`` compiled once per backend (the program cache keys on the backend)."""
    key = (str(backend), build.__qualname__)
    if key not in _COMPILED:
        _COMPILED[key] = tf.compile(build)
    return _COMPILED[key]


def run(backend, build, *arrays) -> list:
    out = compiled(backend, build)(*arrays)
    return [t.numpy for t in (out if isinstance(out, (list, tuple)) else [out])]


def free(rank: int, dtype=tf.float32, last=None):
    """An input of ``rank`` axes whose sizes are known when the program runs (``last``: a
    static last axis)."""
    return tf.input([-1] * (rank - 1) + [-1 if last is None else last], dtype)


# -- tf.fft ------------------------------------------------------------------------------------
# An FFT of length m rounds log2(m) times per output (and Bluestein transforms m >= 2n - 1):
# errors of a few eps log2(m) max|want|, allowed 8 times.

FFT_SIZES = [0, 1, 2, 3, 5, 7, 8, 12, 16, 17, 100]


def _padded(n: int) -> int:
    return n if n & (n - 1) == 0 else 1 << (2 * n - 2).bit_length()


def _fft_close(got, want, n: int) -> None:
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.size:
        bound = 8 * EPS * max(math.log2(_padded(n)), 1) * max(np.abs(want).max(), 1e-30)
        assert np.abs(got - want).max() <= bound, (np.abs(got - want).max(), bound)


def _pairs(z) -> np.ndarray:
    return np.stack([z.real, z.imag], -1).astype(np.float32)


def _complex(y) -> np.ndarray:
    return y[..., 0].astype(np.float64) + 1j * y[..., 1]


def complex_transforms():
    rows = free(3, last=2)   # [batch, n, 2]
    cols = free(3, last=2)   # [n, 3, 2]: along axis 0, and both axes
    return [tf.fft.fft(rows), tf.fft.ifft(rows), tf.fft.fft(cols, axis=0), tf.fft.fft2(cols)]


def real_transforms():
    rows, cols = free(2), free(2)  # [batch, n] and [n, 3]
    spectrum = tf.fft.rfft(rows)
    return [spectrum, tf.fft.irfft(spectrum, rows.shape[1]), tf.fft.rfft2(cols)]


@pytest.mark.parametrize("n", FFT_SIZES)
def test_fft_of_every_length(backend, rng, n):
    rows = rng.standard_normal((2, n)) + 1j * rng.standard_normal((2, n))
    cols = rng.standard_normal((n, 3)) + 1j * rng.standard_normal((n, 3))
    real_rows, real_cols = (rng.standard_normal(shape).astype(np.float32) for shape in ((2, n), (n, 3)))
    if n == 0:  # numpy: "Invalid number of FFT data points (0)"; here the same, when the program runs
        for build, arrays in ((complex_transforms, (_pairs(rows), _pairs(cols))),
                              (real_transforms, (real_rows, real_cols))):
            with pytest.raises(tf.RuntimeCheckError, match="the transformed axis has length 0; a transform needs"):
                run(backend, build, *arrays)
        return
    forward, inverse, down, planar = run(backend, complex_transforms, _pairs(rows), _pairs(cols))
    _fft_close(_complex(forward), np.fft.fft(rows), n)
    _fft_close(_complex(inverse), np.fft.ifft(rows), n)
    _fft_close(_complex(down), np.fft.fft(cols, axis=0), n)
    _fft_close(_complex(planar), np.fft.fft2(cols), max(n, 3))
    spectrum, back, planar = run(backend, real_transforms, real_rows, real_cols)
    _fft_close(_complex(spectrum), np.fft.rfft(real_rows), n)
    _fft_close(back, real_rows, n)
    _fft_close(_complex(planar), np.fft.rfft2(real_cols), max(n, 3))


def batched_transforms():
    rows, real = free(3, last=2), free(2)
    return [tf.fft.fft(rows), tf.fft.ifft(rows), tf.fft.rfft(real), tf.fft.irfft(tf.fft.rfft(real), real.shape[1])]


@pytest.mark.parametrize("n", [1, 5, 8])
def test_fft_of_an_empty_batch_is_empty(backend, n):
    outs = run(backend, batched_transforms, np.zeros((0, n, 2), np.float32), np.zeros((0, n), np.float32))
    assert [o.shape for o in outs] == [(0, n, 2), (0, n, 2), (0, n // 2 + 1, 2), (0, n)]


def test_irfft_lengths_at_the_edges(backend, rng):
    def program():
        spectrum = free(3, last=2)
        return [tf.fft.irfft(spectrum), tf.fft.irfft(spectrum, 4)]
    one = _pairs(rng.standard_normal((3, 1)) + 0j)
    with pytest.raises(tf.RuntimeCheckError, match=r"irfft: the output length n \(2 \* \(m - 1\)"):
        run(backend, program, one)  # numpy: n = 2 * (1 - 1) = 0 points
    spectrum = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    default, padded = run(backend, program, _pairs(spectrum))
    _fft_close(default, np.fft.irfft(spectrum), 4)
    _fft_close(padded, np.fft.irfft(spectrum, 4), 4)


def test_fft_of_a_static_empty_axis_fails_when_traced():
    def program():
        return [tf.fft.rfft2(tf.input([4, 0], tf.float32))]
    with pytest.raises(tf.ShapeError, match="tf.fft.rfft2: the transformed axis has length 0"):
        tf.compile(program)


# -- tf.sort -----------------------------------------------------------------------------------
# Sorting moves values: exact. Keys have duplicates (a few distinct values), -0.0 and NaN.

SORT_SIZES = [0, 1, 2, 31, 32, 33, 1000]


def sorts():
    floats, ints, words, payload = free(2), free(2, tf.int32), free(2, tf.uint32), free(2, tf.int32)
    radix_keys, radix_values = tf.sort.radix(words, payload)
    return [tf.sort.sort(floats), tf.sort.argsort(floats), tf.sort.argsort(ints, descending=True),
            tf.sort.argsort(floats, axis=0), tf.sort.sort(ints, axis=0, descending=True), radix_keys, radix_values,
            tf.sort.bitonic(ints), tf.sort.radix(words, bits_per_pass=5, max_bits=12)]


def _duplicates(rng, shape):
    floats = rng.integers(-3, 4, shape).astype(np.float32)
    floats[rng.random(shape) < 0.05] = np.nan
    floats[rng.random(shape) < 0.1] = -0.0
    return floats


@pytest.mark.parametrize("n", SORT_SIZES)
def test_sorts_with_duplicates(backend, rng, n):
    floats = _duplicates(rng, (3, n))
    ints = rng.integers(-5, 5, (3, n)).astype(np.int32)
    words = rng.integers(0, 4096, (3, n)).astype(np.uint32)
    payload = rng.integers(0, 1 << 20, (3, n)).astype(np.int32)
    out = run(backend, sorts, floats, ints, words, payload)
    stable = {"kind": "stable"}
    np.testing.assert_array_equal(out[0], np.sort(floats, **stable))
    np.testing.assert_array_equal(out[1], np.argsort(floats, **stable))
    np.testing.assert_array_equal(out[2], np.argsort(-ints, **stable))  # descending, ties in order
    np.testing.assert_array_equal(out[3], np.argsort(floats, axis=0, **stable))
    np.testing.assert_array_equal(out[4], -np.sort(-ints, axis=0))
    order = np.argsort(words, **stable)
    np.testing.assert_array_equal(out[5], np.take_along_axis(words, order, -1))
    np.testing.assert_array_equal(out[6], np.take_along_axis(payload, order, -1))
    np.testing.assert_array_equal(out[7], np.sort(ints))
    np.testing.assert_array_equal(out[8], np.sort(words))
    for got, dtype in zip(out, [np.float32, np.int32, np.int32, np.int32, np.int32, np.uint32, np.int32]):
        assert got.dtype == dtype and got.shape == (3, n)


def test_topk_of_every_size(backend, rng):
    def program():
        values, where = tf.sort.topk(free(2), 3)
        return [values, where]
    for n in (3, 4, 33, 1000):
        x = rng.integers(-3, 4, (2, n)).astype(np.float32)
        values, where = run(backend, program, x)
        order = np.argsort(-x, kind="stable")[:, :3]
        np.testing.assert_array_equal(where, order)
        np.testing.assert_array_equal(values, np.take_along_axis(x, order, -1))
    with pytest.raises(tf.RuntimeCheckError, match="k=3 is more than the 2 elements"):
        run(backend, program, np.zeros((2, 2), np.float32))
    values, where = run(backend, program, np.zeros((0, 5), np.float32))
    assert values.shape == where.shape == (0, 3)


# -- scans -------------------------------------------------------------------------------------
# int32 scans are exact; a float32 running sum is within n eps sum|x| (any order of adding),
# a product of n values within n eps |result| (values near 1, so 1000 of them stay in range);
# max and min are exact.


def scans():
    x, ints, flags = free(2), free(2, tf.int32), free(2, tf.int32)
    return [tf.cumsum(x), tf.cumsum(x, exclusive=True), tf.cumsum(x, axis=0, reverse=True), tf.cumprod(x),
            tf.cummax(x), tf.cummin(x, axis=0), tf.cummax(x, exclusive=True), tf.cumsum(ints),
            tf.cumsum(ints, axis=0, exclusive=True), tf.segmented_prefix_sum(ints, flags)]


def _exclusive(scan, x, axis, identity):
    """The exclusive scan: ``identity``, then the inclusive scan of all but the last element."""
    first = list(x.shape)
    first[axis] = 1
    shifted = np.concatenate([np.full(first, identity, x.dtype), x], axis)
    return scan(np.take(shifted, range(x.shape[axis]), axis), axis=axis)


def _segmented(ints, flags):
    out = np.zeros_like(ints)
    for row in range(ints.shape[0]):
        total = 0
        for k in range(ints.shape[1]):
            total = ints[row, k] if (flags[row, k] or k == 0) else total + ints[row, k]
            out[row, k] = total
    return out


@pytest.mark.parametrize("n", SORT_SIZES)
def test_scans_of_every_size(backend, rng, n):
    x = rng.uniform(0.99, 1.01, (3, n)).astype(np.float32) * rng.choice([-1, 1], (3, n)).astype(np.float32)
    ints = rng.integers(-9, 10, (3, n)).astype(np.int32)
    flags = (rng.random((3, n)) < 0.2).astype(np.int32)
    out = run(backend, scans, x, ints, flags)
    x64 = x.astype(np.float64)
    sum_bound = n * 2 * EPS * max(float(np.abs(x64).sum(-1).max(initial=0)), float(np.abs(x64).sum(0).max(initial=0)))
    np.testing.assert_allclose(out[0], np.cumsum(x64, -1), rtol=0, atol=sum_bound + 1e-30)
    np.testing.assert_allclose(out[1], _exclusive(np.cumsum, x64, 1, 0.0), rtol=0, atol=sum_bound + 1e-30)
    np.testing.assert_allclose(out[2], np.flip(np.cumsum(np.flip(x64, 0), 0), 0), rtol=0, atol=sum_bound + 1e-30)
    want = np.cumprod(x64, -1)
    np.testing.assert_allclose(out[3], want, rtol=4 * n * EPS + 1e-30, atol=1e-30)
    np.testing.assert_array_equal(out[4], np.maximum.accumulate(x, -1))
    np.testing.assert_array_equal(out[5], np.minimum.accumulate(x, 0))
    np.testing.assert_array_equal(out[6], _exclusive(np.maximum.accumulate, x, 1, -np.inf))
    np.testing.assert_array_equal(out[7], np.cumsum(ints, -1, dtype=np.int32))
    np.testing.assert_array_equal(out[8], _exclusive(np.cumsum, ints, 0, 0).astype(np.int32))
    np.testing.assert_array_equal(out[9], _segmented(ints, flags))
    assert all(o.shape == (3, n) for o in out)


# -- tf.linalg ---------------------------------------------------------------------------------
# Backward-stable float32 algorithms: errors within n eps cond(a) |result|, allowed 8 times
# (the matrices have cond of a few). Singular vectors and eigenvectors are checked through
# the relations they satisfy (their signs are free).

LINALG_SIZES = [0, 1, 2, 3, 7]


def _bound(a, want) -> float:
    n = max(a.shape[-1], 1)
    cond = float(np.max(np.linalg.cond(a.astype(np.float64)))) if a.size else 1.0
    return 8 * n * 2 * EPS * cond * max(float(np.max(np.abs(want), initial=0)), 1.0)


def _close(got, want, a) -> None:
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=0, atol=_bound(a, want))


def solvers():
    a, t, b, m = free(3), free(3), free(2), free(3)  # stacks of matrices, triangles, vectors, right sides
    sign, logdet = tf.linalg.slogdet(a)
    return [tf.linalg.inv(a), tf.linalg.det(a), sign, logdet, tf.linalg.solve(a, b), tf.linalg.triangular_solve(t, m),
            tf.linalg.triangular_solve(t, b, lower=False, unit_diagonal=True)]


def factors():
    a, spd = free(3), free(3)
    permutation, lower, upper = tf.linalg.lu(a)
    packed, pivots = tf.linalg.lu_factor(a)
    values, vectors = tf.linalg.eigh(spd)
    u, s, vh = tf.linalg.svd(a)
    return [tf.linalg.cholesky(spd), permutation, lower, upper, packed, pivots, values, vectors, u, s, vh]


@pytest.mark.parametrize("batch", [0, 1, 2])
@pytest.mark.parametrize("n", LINALG_SIZES)
def test_linalg_of_every_size(backend, rng, n, batch):
    """Stacks of matrices [batch, n, n] (single matrices, rank 2, are tests/test_linalg.py's)."""
    shape = (batch, n, n)
    t = (rng.standard_normal(shape) + 3 * np.sqrt(max(n, 1)) * np.eye(n)).astype(np.float32)
    a = np.take(t, rng.permutation(n), axis=-2)  # pivoting must swap rows
    x = rng.standard_normal(shape)
    spd = (x @ np.swapaxes(x, -1, -2) + n * np.eye(n)).astype(np.float32)
    b = rng.standard_normal((batch, n)).astype(np.float32)
    m = rng.standard_normal((batch, n, 3)).astype(np.float32)
    inv, det, sign, logdet, x_b, low_m, unit_up_b = run(backend, solvers, a, t, b, m)
    _close(inv, np.linalg.inv(a), a)
    _close(det, np.linalg.det(a), a)
    want_sign, want_logdet = np.linalg.slogdet(a)
    np.testing.assert_array_equal(sign, want_sign)
    _close(logdet, want_logdet, a)
    _close(x_b, np.linalg.solve(a, b[..., None])[..., 0], a)
    lower, unit_upper = np.tril(t), np.triu(t, 1) + np.eye(n, dtype=np.float32)
    _close(low_m, np.linalg.solve(lower, m), lower)
    _close(unit_up_b, np.linalg.solve(unit_upper, b[..., None])[..., 0], unit_upper)

    chol, perm, low, up, packed, pivots, values, vectors, u, s, vh = run(backend, factors, a, spd)
    _close(chol, np.linalg.cholesky(spd), spd)
    _close(perm @ low @ up, a, a)
    for k in range(batch if n else 0):
        want_packed, want_pivots = scipy.linalg.lu_factor(a[k])
        _close(packed[k], want_packed, a[k])
        np.testing.assert_array_equal(pivots[k], want_pivots)
    _close(values, np.linalg.eigh(spd)[0], spd)
    _close(spd @ vectors, vectors * values[..., None, :], spd)
    _close(s, np.linalg.svd(a, compute_uv=False), a)
    _close((u * s[..., None, :]) @ vh, a, a)
    assert chol.shape == perm.shape == packed.shape == vectors.shape == u.shape == vh.shape == shape
    assert pivots.shape == values.shape == s.shape == (batch, n)


@pytest.mark.parametrize("rows, cols", [(0, 0), (1, 1), (3, 0), (2, 2), (3, 3), (9, 7), (7, 7)])
def test_qr_of_every_size(backend, rng, rows, cols):
    def program():
        q, r = tf.linalg.qr(free(2))
        return [q, r]
    a = (rng.standard_normal((rows, cols)) + 3 * np.eye(rows, cols)).astype(np.float32)
    q, r = run(backend, program, a)
    assert q.shape == (rows, cols) and r.shape == (cols, cols)
    _close(q @ r, a, a)
    _close(q.T @ q, np.eye(cols), a)
    np.testing.assert_array_equal(np.tril(r, -1), 0)


# -- matmul ------------------------------------------------------------------------------------
# A dot product of k float32 terms is within k eps sum|a_i b_i|.


def matmuls():
    a, b, stack_a, stack_b = free(2), free(2), free(3), free(3)
    return [a @ b, stack_a @ stack_b]


@pytest.mark.parametrize("m, k, n", [(3, 0, 4), (0, 3, 4), (3, 4, 0), (0, 0, 0), (1, 1, 1), (1, 7, 1), (5, 1, 6),
                                     (1, 300, 300), (300, 300, 1), (256, 0, 256), (256, 1, 256), (130, 67, 129)])
def test_matmul_with_empty_and_unit_dims(backend, rng, m, k, n):
    a, b, stack_a, stack_b = (rng.standard_normal(shape).astype(np.float32)
                              for shape in ((m, k), (k, n), (2, m, k), (2, k, n)))
    product, stacked = run(backend, matmuls, a, b, stack_a, stack_b)
    for got, x, y in ((product, a, b), (stacked, stack_a, stack_b)):
        want = x.astype(np.float64) @ y
        bound = 2 * k * EPS * (np.abs(x).astype(np.float64) @ np.abs(y)) + 1e-30
        assert got.shape == want.shape
        assert np.all(np.abs(got - want) <= bound)


# -- reductions --------------------------------------------------------------------------------


def reductions():
    x = free(2)
    return [tf.sum(x), tf.sum(x, axis=0), tf.prod(x), tf.mean(x), tf.norm(x), tf.any(x > 0.0), tf.all(x > 0.0)]


def extremes():
    x = free(2)
    return [tf.max(x), tf.min(x, axis=0)]


@pytest.mark.parametrize("rows, cols", [(3, 0), (0, 3), (0, 0), (1, 1), (3, 33)])
def test_reductions_over_empty_and_unit_axes(backend, rng, rows, cols):
    x = rng.uniform(0.5, 1.5, (rows, cols)).astype(np.float32)
    out = run(backend, reductions, x)
    x64 = x.astype(np.float64)
    with np.errstate(invalid="ignore"):  # the mean of nothing is 0 / 0: NaN, in numpy too
        wants = [np.sum(x64, -1), np.sum(x64, 0), np.prod(x64, -1), np.sum(x64, -1) / cols,
                 np.linalg.norm(x64, axis=-1), np.any(x > 0, -1), np.all(x > 0, -1)]
    for got, want in zip(out[:5], wants):  # float32 sums and products of up to 33 terms
        np.testing.assert_allclose(got, want, rtol=4 * max(cols, rows, 1) * EPS)
    for got, want in zip(out[5:], wants[5:]):
        np.testing.assert_array_equal(got, want)
    if cols == 0 or rows == 0:  # numpy: "zero-size array to reduction operation maximum which has no identity"
        with pytest.raises(tf.RuntimeCheckError, match="tf.(max|min): the axis to reduce has 0 elements"):
            run(backend, extremes, x)
    else:
        largest, smallest = run(backend, extremes, x)
        np.testing.assert_array_equal(largest, np.max(x, -1))
        np.testing.assert_array_equal(smallest, np.min(x, 0))


# -- tf.random ---------------------------------------------------------------------------------


def randoms():
    x = free(1)
    return [tf.random.rand(x.shape, 1), tf.random.randn(x.shape, 2), tf.random.permutation(x.shape[0], 3),
            tf.random.shuffle(x, 4), tf.random.rand_int(x.shape, -3, 4, 5)]


@pytest.mark.parametrize("n", [0, 1, 2, 33])
def test_random_of_every_size(backend, n):
    x = np.arange(n, dtype=np.float32)
    uniform, normal, order, shuffled, ints = run(backend, randoms, x)
    assert all(o.shape == (n,) for o in (uniform, normal, order, shuffled, ints))
    assert np.all((uniform >= 0) & (uniform < 1)) and np.all(np.isfinite(normal))
    np.testing.assert_array_equal(np.sort(order), np.arange(n))
    np.testing.assert_array_equal(np.sort(shuffled), x)
    assert np.all((ints >= -3) & (ints < 4))


# -- tf.scatterAddPrev -------------------------------------------------------------------------


def slots():
    places = free(1, tf.int32)
    count = tf.zeros([4], tf.int32)
    return [tf.scatterAddPrev(count[places], 1), count]


@pytest.mark.parametrize("n", [0, 1, 2, 33])
def test_scatter_add_prev_of_every_size(backend, rng, n):
    places = rng.integers(0, 4, n).astype(np.int32)
    previous, count = run(backend, slots, places)
    want = [int(np.sum(places[:k] == places[k])) for k in range(n)]  # as if added in order
    np.testing.assert_array_equal(previous, np.array(want, np.int32).reshape(n))
    np.testing.assert_array_equal(count, np.bincount(places, minlength=4))
