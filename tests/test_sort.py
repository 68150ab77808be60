"""tf.sort: radix and bitonic sorts (upstream's test pattern), sort/argsort/topk against numpy's
stable sorts on both backends, numpy's float order (-0.0, NaN), stability, batched rows, any
length, empty rows, 2^22 keys on the CPU, gradients, the AST front end and clear errors; the
same for 64-bit keys (int64, uint64, float64: their extremes, values above 2^53, subnormals)
and for the narrower dtypes, which sort as the 32-bit ones that hold them.

Sorting moves values without arithmetic, so every comparison is exact (bit for bit), except
the gradient checks, which compare against float64 finite differences."""

import numpy as np
import pytest
from dtype_cases import refused_64

import tensorfrost as tf


def _upstream_radix_uint():
    keys = tf.input([-1], tf.uint32)
    values = tf.input([-1], tf.uint32)
    sorted_keys, sorted_values = tf.sort.radix(keys, values)
    return sorted_keys, sorted_values


def _upstream_bitonic_uint():
    keys = tf.input([-1], tf.uint32)
    values = tf.input([-1], tf.uint32)
    sorted_keys, sorted_values = tf.sort.bitonic(keys, values)
    return sorted_keys, sorted_values


def _upstream_radix_float():
    keys = tf.input([-1], tf.float32)
    values = tf.input([-1], tf.float32)
    sorted_keys, sorted_values = tf.sort.radix(keys, values)
    return sorted_keys, sorted_values


def test_upstream_sorting_pattern(backend):
    """Upstream's tests/sorting_opengl_test.py, at a size that is not a power of two."""
    rng = np.random.default_rng(5)
    n = 100_003
    keys = rng.integers(0, 2**31 - 1, n).astype(np.uint32)
    values = rng.integers(0, 2**31 - 1, n).astype(np.uint32)
    order = np.argsort(keys, kind="stable")
    radix_keys, radix_values = tf.compile(_upstream_radix_uint)(keys, values)
    np.testing.assert_array_equal(radix_keys.numpy, keys[order])
    np.testing.assert_array_equal(radix_values.numpy, values[order])  # stable: ties keep their order
    bitonic_keys, bitonic_values = tf.compile(_upstream_bitonic_uint)(keys, values)
    np.testing.assert_array_equal(bitonic_keys.numpy, keys[order])
    # Not stable: each key still carries its own value.
    got = np.lexsort((bitonic_values.numpy, bitonic_keys.numpy))
    want = np.lexsort((values, keys))
    np.testing.assert_array_equal(bitonic_values.numpy[got], values[want])
    fkeys, fvalues = rng.random(n).astype(np.float32), rng.random(n).astype(np.float32)
    forder = np.argsort(fkeys, kind="stable")
    float_keys, float_values = tf.compile(_upstream_radix_float)(fkeys, fvalues)
    np.testing.assert_array_equal(float_keys.numpy, fkeys[forder])
    np.testing.assert_array_equal(float_values.numpy, fvalues[forder])


def _keys(dtype, shape, rng):
    """Keys with ties and the edge values of each dtype."""
    size = int(np.prod(shape))
    if dtype == np.float32:
        x = rng.integers(-4, 4, size).astype(np.float32) * 0.5  # many ties
        specials = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1e-45, -1e-45, 3.4e38, -3.4e38]
        x[rng.integers(0, size, size // 3)] = rng.choice(np.array(specials, np.float32), size // 3)
        return x.reshape(shape)
    if dtype == np.int32:
        x = rng.integers(-3, 3, size).astype(np.int32)
        x[rng.integers(0, size, size // 4)] = rng.choice(np.array([-2**31, 2**31 - 1, -1, 0], np.int32), size // 4)
        return x.reshape(shape)
    x = rng.integers(0, 2**32, size, dtype=np.uint32) >> rng.integers(0, 32, size).astype(np.uint32)
    x[rng.integers(0, size, size // 4)] = rng.choice(np.array([0, 2**32 - 1, 1], np.uint32), size // 4)
    return x.reshape(shape)


def _stable_order(x, axis, descending):
    """The stable order (ties keep their order, NaN is the largest), as torch.sort(stable=True)
    gives it: descending is numpy's stable ascending order of the reversed keys, reversed."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    return n - 1 - np.flip(np.argsort(np.flip(x, axis), axis=axis, kind="stable"), axis)


def test_stable_order_reference_keeps_ties_in_order():
    x = np.array([[1.0, 2.0, 1.0, np.nan, 2.0, -0.0, 0.0]], np.float32)
    np.testing.assert_array_equal(_stable_order(x, -1, True), [[3, 1, 4, 0, 2, 5, 6]])
    np.testing.assert_array_equal(_stable_order(x, -1, False), [[5, 6, 0, 2, 1, 4, 3]])


def test_sort_argsort_topk_match_numpy(backend):
    def program():
        x = tf.input([-1, -1], tf.float32)
        ints = tf.input([-1, -1], tf.int32)
        words = tf.input([-1, -1], tf.uint32)
        values, where = tf.sort.topk(x, 3)
        return [tf.sort.sort(x), tf.sort.argsort(x, axis=0, descending=True), values, where,
                tf.sort.sort(ints), tf.sort.argsort(words)]

    compiled = tf.compile(program)
    rng = np.random.default_rng(11)
    for shape in [(1, 3), (3, 5), (2, 3001), (5, 70)]:
        x, ints, words = (_keys(dtype, shape, rng) for dtype in (np.float32, np.int32, np.uint32))
        sorted_x, order_down, top_values, top_where, sorted_ints, word_order = (t.numpy for t in
                                                                              compiled(x, ints, words))
        # Bit for bit: -0.0 and 0.0 keep their order, and NaNs keep their bits.
        np.testing.assert_array_equal(sorted_x.view(np.uint32), np.sort(x, kind="stable").view(np.uint32))
        np.testing.assert_array_equal(order_down, _stable_order(x, 0, True))
        np.testing.assert_array_equal(top_where, _stable_order(x, -1, True)[:, :3])
        np.testing.assert_array_equal(top_values.view(np.uint32), np.take_along_axis(x, top_where, -1).view(np.uint32))
        np.testing.assert_array_equal(sorted_ints, np.sort(ints))
        np.testing.assert_array_equal(word_order, np.argsort(words, kind="stable"))
    small = [_keys(dtype, (2, 2), rng) for dtype in (np.float32, np.int32, np.uint32)]
    with pytest.raises(tf.RuntimeCheckError, match="topk: k=3 is more than the 2 elements along axis 1"):
        compiled(*small)


def test_radix_options_batches_empty_rows_and_the_ast_front_end(backend):
    @tf.kernel_program
    def low_bits(keys: tf.Arg([-1, -1, -1], tf.uint32), scale: tf.Arg([], tf.uint32)):
        # 3 passes of 6 bits (an odd count) over keys below 2^18, fused with the user's arithmetic.
        return tf.sort.radix(keys * scale, keys, bits_per_pass=6, max_bits=18)

    rng = np.random.default_rng(3)
    for shape in [(2, 3, 1001), (1, 1, 1), (2, 2, 0)]:
        keys = rng.integers(0, 2**17, shape).astype(np.uint32)
        sorted_keys, moved = low_bits(keys, np.uint32(2))
        order = np.argsort(keys * 2, axis=-1, kind="stable")
        np.testing.assert_array_equal(sorted_keys.numpy, np.take_along_axis(keys * 2, order, -1))
        np.testing.assert_array_equal(moved.numpy, np.take_along_axis(keys, order, -1))
        assert sorted_keys.numpy.shape == shape


def test_bitonic_any_length_and_batch(backend):
    def program():
        keys = tf.input([-1, -1], tf.float32)
        return tf.sort.bitonic(keys)

    compiled = tf.compile(program)
    rng = np.random.default_rng(8)
    for n in [1, 2, 3, 5, 8, 1000, 1025]:
        x = rng.standard_normal((3, n)).astype(np.float32)
        x[:, ::4] = np.nan
        x[:, 1::5] = -0.0
        got = compiled(x).numpy
        want = np.sort(x, axis=-1)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))  # NaNs last
        np.testing.assert_array_equal(got[~np.isnan(got)], want[~np.isnan(want)])


def test_two_to_the_22_keys_on_the_cpu():
    """Several passes over 2^22 keys: many blocks per row, every digit of every pass."""
    tf.initialize(tf.cpu)
    rng = np.random.default_rng(22)
    keys = rng.integers(0, 2**32, 1 << 22, dtype=np.uint32)
    values = np.arange(1 << 22, dtype=np.uint32)
    sorted_keys, sorted_values = tf.compile(_upstream_radix_uint)(keys, values)
    order = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(sorted_keys.numpy, keys[order])
    np.testing.assert_array_equal(sorted_values.numpy, order)


def test_gradients_of_sort_and_topk_against_finite_differences():
    tf.initialize(tf.cpu)

    def program():
        x = tf.input([-1, -1], tf.float32)
        w = tf.input([-1, -1], tf.float32)
        top, _ = tf.sort.topk(x, 2)
        loss = tf.sum(tf.sum(tf.sort.sort(x, axis=0) * w)) + tf.sum(tf.sum(top * top))
        return tf.grad(loss, x)

    rng = np.random.default_rng(4)
    x = rng.permutation(35).reshape(5, 7).astype(np.float32) * 0.25  # distinct: the order is locally fixed
    w = rng.standard_normal((5, 7)).astype(np.float32)

    def loss(v):
        return float((np.sort(v, axis=0) * w).sum() + (np.sort(v, axis=-1)[:, -2:] ** 2).sum())

    numeric = np.zeros_like(x, np.float64)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x, np.float64)
        step[index] = 1e-3  # well below the gap of 0.25 between keys
        numeric[index] = (loss(x + step) - loss(x - step)) / 2e-3
    # The loss is piecewise quadratic, so the central difference is exact up to float64 rounding;
    # float32 products and sums of a few terms differ by ~1e-6 relative.
    np.testing.assert_allclose(tf.compile(program)(x, w).numpy, numeric, rtol=1e-5, atol=1e-5)


def test_a_zeroed_buffer_is_not_fused_with_a_scatter_into_it():
    """Regression (opt/fuse.py): the gradient of a gather zeroes a buffer and scatter-adds
    into it at the gathered indices; both were fused into one kernel, where an element's
    zeroing could land after another element's add (entries lost)."""
    tf.initialize(tf.cpu)

    def program():
        x = tf.input([-1], tf.float32)
        w = tf.input([-1], tf.float32)
        i, = tf.indices(x.shape)
        reverse = (x.shape[0] - 1) - i
        return tf.grad(tf.sum(x[reverse] * w), x)

    w = np.arange(1, 8, dtype=np.float32)
    np.testing.assert_array_equal(tf.compile(program)(np.zeros(7, np.float32), w).numpy, w[::-1])


def test_bad_arguments_are_named():
    with pytest.raises(tf.ArgumentError, match=r"max_bits must be an int in \[1, 64\] \(keys of 64-bit order words\), "
                       "got 65"):
        tf.compile(lambda: [tf.sort.radix(tf.input([-1], tf.float64), max_bits=65)])
    with pytest.raises(tf.ArgumentError, match=r"max_bits must be an int in \[1, 32\] .*got 33"):
        tf.compile(lambda: [tf.sort.radix(tf.input([-1], tf.int16), max_bits=33)])
    with pytest.raises(tf.ArgumentError, match="k=9 is more than the 4 elements along axis 1"):
        tf.compile(lambda: list(tf.sort.topk(tf.input([3, 4], tf.float32), 9)))
    with pytest.raises(tf.ArgumentError, match=r"axis must be an int in \[-2, 1\] for keys of rank 2, got 2"):
        tf.compile(lambda: [tf.sort.argsort(tf.input([-1, -1], tf.int32), axis=2)])
    with pytest.raises(tf.ShapeError, match="values must have the shape of keys"):
        tf.compile(lambda: list(tf.sort.radix(tf.input([-1], tf.uint32), tf.input([-1, -1], tf.uint32))))
    with pytest.raises(tf.ArgumentError, match=r"bits_per_pass must be an int in \[1, 16\], got 0"):
        tf.compile(lambda: [tf.sort.radix(tf.input([-1], tf.uint32), bits_per_pass=0)])


# -- 64-bit keys -------------------------------------------------------------------------------------

INT64_MIN, INT64_MAX = -2**63, 2**63 - 1
_SPECIALS_64 = {
    np.float64: [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 5e-324, -5e-324, 1e-310, -2.2250738585072014e-308,
                 2.2250738585072014e-308, 1.7976931348623157e308, -1.7976931348623157e308, 2.0**53, 2.0**53 + 2,
                 -(2.0**53) - 2, 2.0**63, 2.0**64, 1.0, -1.0],
    np.int64: [INT64_MIN, INT64_MAX, INT64_MIN + 1, INT64_MAX - 1, 2**53, 2**53 + 1, -(2**53) - 1, 2**32, -2**32,
               -1, 0],
    np.uint64: [0, 2**64 - 1, 2**63, 2**63 - 1, 2**53 + 1, 2**32, 2**32 - 1, 1],
}


def _keys64(dtype, shape, rng):
    """64-bit keys of every magnitude, with ties and each dtype's edge values."""
    size = int(np.prod(shape))
    if dtype == np.float64:
        x = rng.standard_normal(size) * 10.0 ** rng.integers(-320, 300, size)
        x[: size // 3] = rng.integers(-3, 3, size // 3) * 0.5  # many ties
    else:
        x = rng.integers(0, 2**64, size, dtype=np.uint64).view(dtype) >> rng.integers(0, 64, size).astype(dtype)
        x[: size // 3] = rng.integers(-3 if dtype == np.int64 else 0, 3, size // 3)
    x = x.astype(dtype)
    x[rng.integers(0, size, size // 3)] = rng.choice(np.array(_SPECIALS_64[dtype], dtype), size // 3)
    return rng.permutation(x).reshape(shape)


def _same_bits(got, want):
    np.testing.assert_array_equal(got.view(np.uint64), np.asarray(want).view(np.uint64))


def sorts64():
    floats = tf.input([-1, -1], tf.float64)
    ints = tf.input([-1, -1], tf.int64)
    words = tf.input([-1, -1], tf.uint64)
    top, where = tf.sort.topk(floats, 3)
    radix_floats, moved_ints = tf.sort.radix(floats, ints)
    return [tf.sort.sort(floats), tf.sort.argsort(floats, axis=0, descending=True), top, where, radix_floats,
            moved_ints, tf.sort.sort(ints), tf.sort.argsort(ints, descending=True), tf.sort.sort(words, axis=0),
            tf.sort.argsort(words), tf.sort.bitonic(floats), tf.sort.bitonic(ints, words)[0]]


def test_64_bit_keys_match_numpy(backend):
    if refused_64(backend, [tf.float64, tf.int64, tf.uint64], sorts64):
        return
    compiled = tf.compile(sorts64)
    rng = np.random.default_rng(64)
    for shape in [(1, 3), (3, 5), (2, 3001), (5, 70)]:
        floats, ints, words = (_keys64(d, shape, rng) for d in (np.float64, np.int64, np.uint64))
        out = [t.numpy for t in compiled(floats, ints, words)]
        order = np.argsort(floats, axis=-1, kind="stable")
        _same_bits(out[0], np.sort(floats, kind="stable"))  # -0.0, 0.0 and NaNs keep their bits and order
        np.testing.assert_array_equal(out[1], _stable_order(floats, 0, True))
        np.testing.assert_array_equal(out[3], _stable_order(floats, -1, True)[:, :3])
        _same_bits(out[2], np.take_along_axis(floats, out[3], -1))
        _same_bits(out[4], np.take_along_axis(floats, order, -1))
        np.testing.assert_array_equal(out[5], np.take_along_axis(ints, order, -1))  # stable: ties keep their values
        np.testing.assert_array_equal(out[6], np.sort(ints))
        np.testing.assert_array_equal(out[7], _stable_order(ints, -1, True))
        np.testing.assert_array_equal(out[8], np.sort(words, axis=0))
        np.testing.assert_array_equal(out[9], np.argsort(words, kind="stable"))
        # The bitonic network is not stable: the same values, NaNs last (with any sign bit).
        want = np.sort(floats)
        np.testing.assert_array_equal(np.isnan(out[10]), np.isnan(want))
        np.testing.assert_array_equal(out[10][~np.isnan(out[10])], want[~np.isnan(want)])
        np.testing.assert_array_equal(out[11], np.sort(ints))


def test_float64_order_words_are_numpy_order_of_the_bits(backend):
    """The words float64 keys sort by are computed arithmetically (no 64-bit reinterpretation):
    every bit pattern, subnormals and both zeros included, against the words made from the bits."""
    def program():
        return tf.sort.ordered_bits(tf.input([-1], tf.float64))
    if refused_64(backend, [tf.float64], program):
        return

    rng = np.random.default_rng(53)
    bits = rng.integers(0, 2**64, 20000, dtype=np.uint64)
    bits[:2000] &= np.uint64(0x800FFFFFFFFFFFFF)  # subnormals of both signs (and zeros)
    x = np.concatenate([bits.view(np.float64), np.array(_SPECIALS_64[np.float64])])
    raw = x.view(np.uint64)
    want = np.where(raw >> np.uint64(63) == 1, ~raw, raw | np.uint64(1 << 63))
    want = np.where(x == 0, np.uint64(1 << 63), want)  # -0.0 sorts as 0.0
    want = np.where(np.isnan(x), np.uint64(2**64 - 1), want)
    np.testing.assert_array_equal(tf.compile(program)(x).numpy, want)


def test_64_bit_radix_options_and_the_ast_front_end(backend):
    def declared():
        @tf.kernel_program
        def keys64(keys: tf.Arg([-1], tf.int64)):
            return tf.sort.argsort(keys)
    if refused_64(backend, [tf.int64], run=declared):
        return

    @tf.kernel_program
    def low_bits(keys: tf.Arg([-1, -1], tf.uint64), values: tf.Arg([-1, -1], tf.float64)):
        # 9 passes of 5 bits (an odd count) over keys below 2^45, fused with the user's arithmetic.
        return tf.sort.radix(keys + keys, values, bits_per_pass=5, max_bits=45)

    @tf.kernel_program
    def ranks(keys: tf.Arg([-1], tf.int64)):
        order = tf.sort.argsort(keys)
        return keys[order]

    rng = np.random.default_rng(45)
    for shape in [(2, 1001), (1, 1), (2, 0)]:
        keys = rng.integers(0, 2**44, shape, dtype=np.uint64)
        keys[:, ::3] = 2**44 - 1  # ties
        values = rng.standard_normal(shape)
        sorted_keys, moved = low_bits(keys, values)
        order = np.argsort(keys, axis=-1, kind="stable")
        np.testing.assert_array_equal(sorted_keys.numpy, np.take_along_axis(keys + keys, order, -1))
        _same_bits(moved.numpy, np.take_along_axis(values, order, -1))
    ints = _keys64(np.int64, (777,), rng)
    np.testing.assert_array_equal(ranks(ints).numpy, np.sort(ints))


def test_two_to_the_20_float64_keys_on_the_cpu():
    """Eight passes over 2^20 keys of every exponent: many blocks per row, every digit."""
    tf.initialize(tf.cpu)

    def program():
        keys = tf.input([-1], tf.float64)
        return tf.sort.radix(keys, tf.indices(keys.shape)[0])

    rng = np.random.default_rng(20)
    keys = rng.integers(0, 2**64, 1 << 20, dtype=np.uint64).view(np.float64)
    sorted_keys, positions = tf.compile(program)(keys)
    order = np.argsort(keys, kind="stable")
    _same_bits(sorted_keys.numpy, keys[order])
    np.testing.assert_array_equal(positions.numpy, order)


def test_float64_gradients_of_sort_and_topk_against_finite_differences():
    """Piecewise quadratic: central differences within a piece are exact but for float64 rounding."""
    tf.initialize(tf.cpu)

    def program():
        x = tf.input([-1, -1], tf.float64)
        w = tf.input([-1, -1], tf.float64)
        top, _ = tf.sort.topk(x, 2)
        loss = tf.sum(tf.sum(tf.sort.sort(x, axis=0, descending=True) * w)) + tf.sum(tf.sum(top * top))
        return tf.grad(loss, x)

    rng = np.random.default_rng(6)
    x = rng.permutation(35).reshape(5, 7) * 0.25 - 4.0  # distinct: the order is locally fixed
    w = rng.standard_normal((5, 7))

    def loss(v):
        return float((-np.sort(-v, axis=0) * w).sum() + (np.sort(v, axis=-1)[:, -2:] ** 2).sum())

    step = 2.0**-4  # below the gap of 0.25; x +- step is exact
    numeric = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        delta = np.zeros_like(x)
        delta[index] = step
        numeric[index] = (loss(x + delta) - loss(x - delta)) / (2 * step)
    grad = tf.compile(program)(x, w).numpy
    assert grad.dtype == np.float64
    # The loss sums 49 terms below 20 in size: each evaluation rounds by ~49 * 20 eps, over 2 step
    np.testing.assert_allclose(grad, numeric, rtol=0, atol=49 * 20 * 2.0**-53 / step)


@pytest.mark.parametrize("dtype", [tf.int8, tf.uint16, tf.float16, tf.bfloat16, tf.bool1],
                         ids=["int8", "uint16", "float16", "bfloat16", "bool1"])
def test_narrow_keys_sort_as_the_32_bit_dtype_that_holds_them(dtype):
    tf.initialize(tf.cpu)

    def program():
        x = tf.input([-1, -1], dtype)
        return [tf.sort.sort(x, descending=True), tf.sort.argsort(x, axis=0), tf.sort.topk(x, 2)[1]]

    rng = np.random.default_rng(16)
    x = (rng.integers(-4, 4, (3, 50)) * 0.5 if dtype.is_float else rng.integers(0, 2, (3, 50))).astype(dtype.numpy)
    if dtype.is_float:
        x[:, ::7] = np.nan
        x[:, 1::9] = -0.0
    down, order, top = (t.numpy for t in tf.compile(program)(x))
    assert down.dtype == x.dtype
    wide = x.astype(np.float32 if dtype.is_float else np.int32)
    want = np.take_along_axis(x, _stable_order(wide, -1, True), -1)
    np.testing.assert_array_equal(down.view(np.uint8), want.view(np.uint8))  # bit for bit: -0.0, NaN
    np.testing.assert_array_equal(order, np.argsort(wide, axis=0, kind="stable"))
    np.testing.assert_array_equal(top, _stable_order(wide, -1, True)[:, :2])
