"""Scans (tf.prefix_sum / cumsum, cumprod, cummax, cummin, segmented_prefix_sum) on every
backend, against numpy; gradients against central finite differences in float64."""

import numpy as np
import pytest
from conftest import central_differences

import tensorfrost as tf
from tensorfrost.backend import current_device


def _outputs(result) -> list:
    return [t.numpy for t in (result if isinstance(result, tuple) else (result,))]


def _numpy_scan(fn, x, axis, exclusive=False, reverse=False, identity=0):
    """numpy's accumulate with the exclusive / reverse variants spelled out."""
    x = np.flip(x, axis) if reverse else x
    out = fn(x, axis=axis)
    if exclusive:
        first = np.full_like(np.take(out, [0], axis=axis), identity)
        out = np.concatenate([first, np.take(out, np.arange(x.shape[axis] - 1), axis=axis)], axis=axis)
    return np.flip(out, axis) if reverse else out


_COMPILED = {}


def _cached(key, program):
    """``tf.compile(program)``, once per backend and ``key``: sizes are free, so one compiled
    program serves every size of a parametrized test."""
    full_key = (key, current_device())
    if full_key not in _COMPILED:
        _COMPILED[full_key] = tf.compile(program)
    return _COMPILED[full_key]


def _scan_program(fn, rank, dtype, key=None, **kwargs):
    def program():
        x = tf.input([-1] * rank, dtype)
        result = fn(x, **kwargs)
        return result if isinstance(result, list) else [result]
    return tf.compile(program) if key is None else _cached(key, program)


_VARIANTS = [(False, False), (True, False), (False, True), (True, True)]  # (exclusive, reverse)


def _all_variants(fn):
    return lambda t: [fn(t, exclusive=e, reverse=r) for e, r in _VARIANTS]


# Sizes: 1, small, not powers of two, and long enough for many blocks (sqrt(n) of them).
@pytest.mark.parametrize("n", [1, 2, 7, 100, 1023, 40001])
def test_prefix_sum_of_ints_matches_cumsum_exactly(backend, rng, n):
    x = rng.integers(-50, 50, n).astype(np.int32)
    got = _outputs(_scan_program(_all_variants(tf.prefix_sum), 1, tf.int32, key="sum")(x))
    for out, (exclusive, reverse) in zip(got, _VARIANTS):
        np.testing.assert_array_equal(out, _numpy_scan(np.cumsum, x, 0, exclusive, reverse))


@pytest.mark.parametrize("shape,axis", [((3, 50), 1), ((50, 3), 0), ((37, 5, 3), 1), ((4, 9, 130), -1), ((1, 1), 0)])
def test_prefix_sum_along_any_axis(backend, rng, shape, axis):
    x = rng.integers(-9, 9, shape).astype(np.int32)
    prog = _scan_program(lambda t: [tf.prefix_sum(t, axis), tf.cumsum(t, axis, exclusive=True)], len(shape), tf.int32,
                         key=("axis", len(shape), axis))
    inclusive, exclusive = _outputs(prog(x))
    np.testing.assert_array_equal(inclusive, np.cumsum(x, axis))
    np.testing.assert_array_equal(exclusive, _numpy_scan(np.cumsum, x, axis, exclusive=True))


def test_scans_of_scans_and_of_views(backend, rng):
    def program():
        x = tf.input([-1, -1], tf.int32)
        return [tf.prefix_sum(tf.prefix_sum(x), axis=0), tf.cummax(tf.transpose(x), axis=1),
                tf.cumsum(x[1:, :], axis=0)]
    x = rng.integers(-9, 9, (37, 300)).astype(np.int32)
    twice, high, tail = _outputs(tf.compile(program)(x))
    np.testing.assert_array_equal(twice, np.cumsum(np.cumsum(x, 1), 0))
    np.testing.assert_array_equal(high, np.maximum.accumulate(x.T, 1))
    np.testing.assert_array_equal(tail, np.cumsum(x[1:], 0))


def test_prefix_sum_of_floats_is_within_a_float32_sums_error(backend, rng):
    n = 30011
    x = rng.uniform(-1.0, 1.0, n).astype(np.float32)
    got, = _outputs(_scan_program(tf.prefix_sum, 1, tf.float32, key="float")(x))
    want = np.cumsum(x.astype(np.float64))
    # A float32 sum of k terms of |x| <= 1 errs by at most about k * eps * max|partial|; the
    # blocked order (block offsets + in-block sums of ~sqrt(n) terms) does much better than
    # that bound; 2 * sqrt(n) * eps * max|partial sums| is a safe margin for it.
    bound = 2 * np.sqrt(n) * np.finfo(np.float32).eps * max(np.max(np.abs(want)), 1.0)
    assert np.max(np.abs(got - want)) <= bound


def test_uint32_scans_wrap_and_start_from_the_uint_identities(backend, rng):
    x = rng.integers(0, 2**32, 999, dtype=np.uint32)
    prog = _scan_program(lambda t: [tf.cumsum(t), tf.cummin(t, exclusive=True), tf.cummax(t, reverse=True)], 1,
                         tf.uint32, key="uint")
    total, low, high = _outputs(prog(x))
    np.testing.assert_array_equal(total, np.cumsum(x, dtype=np.uint32))  # wraps modulo 2^32
    np.testing.assert_array_equal(low, _numpy_scan(np.minimum.accumulate, x, 0, exclusive=True, identity=2**32 - 1))
    np.testing.assert_array_equal(high, _numpy_scan(np.maximum.accumulate, x, 0, reverse=True))


def test_prefix_sum_of_bools_counts_as_int32(backend, rng):
    def program():
        x = tf.input([-1], tf.float32)
        return [tf.prefix_sum(x > 0.0)]
    x = rng.standard_normal(333).astype(np.float32)
    got, = _outputs(tf.compile(program)(x))
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, np.cumsum(x > 0).astype(np.int32))


def test_prefix_sum_with_static_shapes_and_many_rows_fuses_with_its_producer(backend, rng):
    def program():
        x = tf.input([5000, 7], tf.int32)
        return [tf.prefix_sum(x * 2, axis=1) + 1]
    x = rng.integers(-9, 9, (5000, 7)).astype(np.int32)
    prog = tf.compile(program)
    got, = _outputs(prog(x))
    np.testing.assert_array_equal(got, np.cumsum(2 * x, axis=1) + 1)
    # 5000 independent rows: one serial loop per row (plus the output's zeroing and the + 1),
    # no block totals or block offsets
    assert len(prog.get_kernels()) <= 3


def test_prefix_sum_of_one_long_line_runs_in_block_passes(backend, rng):
    def program():
        x = tf.input([100000], tf.int32)
        return [tf.prefix_sum(x)]
    x = rng.integers(-9, 9, 100000).astype(np.int32)
    prog = tf.compile(program)
    got, = _outputs(prog(x))
    np.testing.assert_array_equal(got, np.cumsum(x))
    # block totals, their scan, the scan within blocks (+ zeroing): more than one serial loop
    kernels = prog.get_kernels()
    assert len(kernels) >= 3
    if backend is tf.cpu:
        # Regression: a 1-D grid whose elements each run a loop (here the ~316 blocks) was cut
        # into chunks of 4096 elements for the threads, so it ran on one thread
        assert all("tf_chunk * 4096" not in k for k in kernels if "for (int32_t v_" in k)


def test_prefix_sum_with_runtime_sizes_and_many_rows(backend, rng):
    x = rng.integers(-9, 9, (6000, 5)).astype(np.int32)
    got, = _outputs(_scan_program(lambda t: tf.prefix_sum(t, axis=1, reverse=True), 2, tf.int32)(x))
    np.testing.assert_array_equal(got, _numpy_scan(np.cumsum, x, 1, reverse=True))


def test_scans_on_the_reference_interpreter(rng):
    """The interpreter runs the blocked scan's kernels too (per-element loop bounds)."""
    tf.initialize(tf.interpreter)
    try:
        x = rng.integers(-9, 9, (3, 700)).astype(np.int32)
        prog = _scan_program(lambda t: [tf.cumsum(t, axis=1, exclusive=True), tf.cummin(t, axis=1, reverse=True)], 2,
                             tf.int32)
        total, low = _outputs(prog(x))
    finally:
        tf.initialize(tf.cpu)
    np.testing.assert_array_equal(total, _numpy_scan(np.cumsum, x, 1, exclusive=True))
    np.testing.assert_array_equal(low, _numpy_scan(np.minimum.accumulate, x, 1, reverse=True))


def test_prefix_sum_of_an_empty_tensor(backend):
    for got in _outputs(_scan_program(_all_variants(tf.prefix_sum), 1, tf.int32, key="sum")(np.zeros(0, np.int32))):
        assert got.shape == (0,)


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_prefix_sum_of_4m_elements_on_cpu(rng, dtype):
    tf.initialize(tf.cpu)
    n = 1 << 22
    x = rng.integers(-3, 4, n).astype(dtype)  # small integers: every partial sum is exact in float32 too
    if dtype is np.float32:
        got, = _outputs(_scan_program(tf.prefix_sum, 1, tf.float32, key="float")(x))
    else:
        got = _outputs(_scan_program(_all_variants(tf.prefix_sum), 1, tf.int32, key="sum")(x))[0]
    np.testing.assert_array_equal(got, np.cumsum(x.astype(np.int64)).astype(dtype))


# -- cumprod, cummax, cummin -------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 6, 257, 5000])
def test_cummax_and_cummin_match_numpy(backend, rng, n):
    x = rng.integers(-1000, 1000, n).astype(np.int32)  # many ties at this range and size
    prog = _scan_program(lambda t: _all_variants(tf.cummax)(t) + _all_variants(tf.cummin)(t), 1, tf.int32, key="ext")
    got = _outputs(prog(x))
    info = np.iinfo(np.int32)
    for high, low, (exclusive, reverse) in zip(got[:4], got[4:], _VARIANTS):
        np.testing.assert_array_equal(high, _numpy_scan(np.maximum.accumulate, x, 0, exclusive, reverse, info.min))
        np.testing.assert_array_equal(low, _numpy_scan(np.minimum.accumulate, x, 0, exclusive, reverse, info.max))


def test_cummax_of_floats_with_nan_and_exclusive_infinity(backend, rng):
    x = rng.standard_normal((3, 301)).astype(np.float32)
    x[1, 150] = np.nan
    prog = _scan_program(lambda t: [tf.cummax(t, axis=1), tf.cummin(t, axis=1, exclusive=True)], 2, tf.float32)
    high, low = _outputs(prog(x))
    np.testing.assert_array_equal(high, np.maximum.accumulate(x, axis=1))  # NaN from column 150 on
    np.testing.assert_array_equal(low, _numpy_scan(np.minimum.accumulate, x, 1, exclusive=True, identity=np.inf))


@pytest.mark.parametrize("n", [1, 5, 300, 4099])
def test_cumprod_matches_numpy(backend, rng, n):
    x = rng.choice(np.array([-1, 1, 1, 2], np.int32), n)  # exact products; wraps like numpy's int32
    x[:-30] = np.where(x[:-30] == 2, 1, x[:-30])  # keep the products within int32
    got = _outputs(_scan_program(_all_variants(tf.cumprod), 1, tf.int32, key="prod")(x))
    for out, (exclusive, reverse) in zip(got, _VARIANTS):
        np.testing.assert_array_equal(out, _numpy_scan(np.cumprod, x, 0, exclusive, reverse, 1))


def test_cumprod_of_floats_is_within_float32_rounding(backend, rng):
    x = rng.uniform(0.9, 1.1, (2, 2000)).astype(np.float32)
    got, = _outputs(_scan_program(lambda t: tf.cumprod(t, axis=1), 2, tf.float32)(x))
    want = np.cumprod(x.astype(np.float64), axis=1)
    # each of k products rounds once (relative eps/2): relative error below k * eps
    np.testing.assert_allclose(got, want, rtol=2000 * np.finfo(np.float32).eps)


# -- segmented scan ------------------------------------------------------------------------------


def _segmented_reference(x, flags, exclusive):
    out = np.zeros_like(x)
    total = 0
    for i in range(len(x)):
        if i == 0 or flags[i]:
            total = 0
        if exclusive:
            out[i] = total
        total += x[i]
        if not exclusive:
            out[i] = total
    return out


def _segmented_program():
    def program():
        values = tf.input([-1], tf.int32)
        starts = tf.input([-1], tf.int32)
        return [tf.segmented_prefix_sum(values, starts), tf.segmented_prefix_sum(values, starts, exclusive=True)]
    return program


@pytest.mark.parametrize("n", [1, 10, 999, 20000])
def test_segmented_prefix_sum_matches_a_loop(backend, rng, n):
    x = rng.integers(-20, 20, n).astype(np.int32)
    flags = (rng.random(n) < 0.01).astype(np.int32)  # long segments crossing blocks, first unset
    flags[0] = 0
    flags[n // 2] = 1
    inclusive, exclusive = _outputs(_cached("segmented", _segmented_program())(x, flags))
    np.testing.assert_array_equal(inclusive, _segmented_reference(x, flags, False))
    np.testing.assert_array_equal(exclusive, _segmented_reference(x, flags, True))


def test_segmented_prefix_sum_along_axis_0_with_bool_flags(backend, rng):
    x = rng.uniform(-1, 1, (50, 3)).astype(np.float32)
    flags = rng.random((50, 3)) < 0.2

    def program():
        values = tf.input([-1, -1], tf.float32)
        starts = tf.input([-1, -1], tf.int32)
        return [tf.segmented_prefix_sum(values, starts > 0, axis=0)]
    got, = _outputs(tf.compile(program)(x, flags.astype(np.int32)))
    want = np.stack([_segmented_reference(x[:, c], flags[:, c], False) for c in range(3)], axis=1)
    np.testing.assert_allclose(got, want, atol=1e-5)  # sums of at most 50 terms of |x| <= 1


# -- gradients --------------------------------------------------------------------------------


def test_prefix_sum_gradient_matches_finite_differences(backend, rng):
    shape = (3, 11)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal(shape).astype(np.float32)
    variants = _VARIANTS[:3]

    def program():
        xs = tf.input([-1, -1], tf.float32)
        ws = tf.input([-1, -1], tf.float32)
        losses = [tf.sum(tf.sum(ws * tf.prefix_sum(xs * xs, axis=1, exclusive=e, reverse=r))) for e, r in variants]
        return [tf.grad(loss, xs) for loss in losses]
    got = _outputs(tf.compile(program)(x, w))
    w64 = w.astype(np.float64)
    for grad, (exclusive, reverse) in zip(got, variants):
        def loss(v, e=exclusive, r=reverse):
            return np.sum(w64 * _numpy_scan(np.cumsum, v * v, 1, e, r))
        want = central_differences(loss, x.astype(np.float64), h=1e-4)
        # float32 sums of 11 products of size ~1: errors of a few 1e-6
        np.testing.assert_allclose(grad, want, atol=1e-4)


def test_cumprod_gradient_matches_finite_differences(backend, rng):
    x = (rng.uniform(0.5, 1.5, 9) * rng.choice([-1.0, 1.0], 9)).astype(np.float32)
    w = rng.standard_normal(9).astype(np.float32)
    variants = [(False, False), (True, True)]

    def program():
        xs = tf.input([-1], tf.float32)
        ws = tf.input([-1], tf.float32)
        return [tf.grad(tf.sum(ws * tf.cumprod(xs, exclusive=e, reverse=r)), xs) for e, r in variants]
    got = _outputs(tf.compile(program)(x, w))
    w64 = w.astype(np.float64)
    for grad, (exclusive, reverse) in zip(got, variants):
        def loss(v, e=exclusive, r=reverse):
            return np.sum(w64 * _numpy_scan(np.cumprod, v, 0, e, r, 1.0))
        want = central_differences(loss, x.astype(np.float64), h=1e-4)
        # products of up to 9 factors in [0.5, 1.5]: float32 relative errors of ~1e-6
        np.testing.assert_allclose(grad, want, rtol=1e-4, atol=1e-5)


def _extreme_gradient(x, w, better, axis, reverse):
    """d sum(w * cummax(x)) / dx by a loop: each output's weight goes to the element its
    running extreme came from, the latest in scan order among ties (as torch.cummax)."""
    x, w = np.moveaxis(x, axis, -1), np.moveaxis(w, axis, -1)
    grad = np.zeros_like(x)
    order = range(x.shape[-1] - 1, -1, -1) if reverse else range(x.shape[-1])
    for line in np.ndindex(x.shape[:-1]):
        source = None
        for i in order:
            if source is None or not better(x[line][source], x[line][i]):
                source = i
            grad[line][source] += w[line][i]
    return np.moveaxis(grad, -1, axis)


def test_cummax_and_cummin_gradients_with_ties(backend, rng):
    x = rng.integers(-3, 4, (5, 9)).astype(np.float32)  # many ties: the latest in scan order gets the gradient
    w = rng.standard_normal((5, 9)).astype(np.float32)
    cases = [("cummax", 1, False), ("cummin", 0, True), ("cummax", 0, True)]

    def program():
        xs = tf.input([-1, -1], tf.float32)
        ws = tf.input([-1, -1], tf.float32)
        return [tf.grad(tf.sum(tf.sum(ws * getattr(tf, name)(xs, axis=axis, reverse=reverse))), xs)
                for name, axis, reverse in cases]
    got = _outputs(tf.compile(program)(x, w))
    for grad, (name, axis, reverse) in zip(got, cases):
        better = np.greater if name == "cummax" else np.less  # strictly better keeps the old source
        # each gradient is a sum of at most 9 weights: float32 rounding only
        np.testing.assert_allclose(grad, _extreme_gradient(x, w, better, axis, reverse), atol=1e-5)


def test_scatter_into_a_fresh_buffer_of_the_same_shape_keeps_every_update(backend):
    """Regression: the zeroing of a buffer joined the kernel of its first use, a scatter of
    the same shape, so an element could zero a place another element had already added to
    (cummax's gradient scatters this way)."""
    def program():
        index = tf.input([-1], tf.int32)
        counts = tf.zeros(index.shape)
        tf.scatterAdd(counts[index], 1.0)
        return [counts]
    index = np.array([1, 1, 1, 1, 0, 4, 4], np.int32)
    got, = _outputs(tf.compile(program)(index))
    np.testing.assert_array_equal(got, np.bincount(index, minlength=7).astype(np.float32))


# -- the AST front end, and errors ---------------------------------------------------------------


def test_scans_in_a_kernel_program(backend, rng):
    @tf.kernel_program
    def running(x: tf.Arg([-1, -1], tf.float32)):
        total = tf.cumsum(x, axis=1)
        for k in range(3):  # a loop in the program: the scan runs in its body
            total = total + tf.float(k) * tf.cummax(x, axis=0)
        return total

    x = rng.uniform(-1, 1, (21, 13)).astype(np.float32)
    got, = _outputs(running(x))
    # sums of at most 13 terms of |x| <= 1 in float32
    np.testing.assert_allclose(got, np.cumsum(x, axis=1) + 3 * np.maximum.accumulate(x, axis=0), atol=1e-5)


def test_scan_errors_name_the_argument():
    tf.initialize(tf.cpu)

    def scalar():
        x = tf.input([-1], tf.float32)
        return [tf.prefix_sum(tf.sum(x, axis=0)[0])]

    with pytest.raises(tf.ShapeError, match="prefix_sum: cannot scan a scalar"):
        tf.compile(scalar)

    def bad_flag():
        x = tf.input([-1], tf.float32)
        return [tf.cumsum(x, exclusive=1)]

    with pytest.raises(tf.ArgumentError, match="exclusive must be True or False, got 1"):
        tf.compile(bad_flag)

    def bad_flags():
        x = tf.input([-1, -1], tf.float32)
        f = tf.input([-1], tf.int32)
        return [tf.segmented_prefix_sum(x, f)]

    with pytest.raises(tf.ShapeError, match="flags must have the shape of x"):
        tf.compile(bad_flags)
