"""tf.sort: radix and bitonic sorts (upstream's test pattern), sort/argsort/topk against numpy's
stable sorts on both backends, numpy's float order (-0.0, NaN), stability, batched rows, any
length, empty rows, 2^22 keys on the CPU, gradients, the AST front end and clear errors.

Sorting moves values without arithmetic, so every comparison is exact (bit for bit), except
the gradient check, which compares float32 against float64 finite differences."""

import numpy as np
import pytest

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
    def wide_keys():
        return [tf.sort.sort(tf.input([-1], tf.int64))]
    with pytest.raises(tf.DTypeError, match="keys must be of 32 bits or fewer .*got tf.int64"):
        tf.compile(wide_keys)
    with pytest.raises(tf.ArgumentError, match="k=9 is more than the 4 elements along axis 1"):
        tf.compile(lambda: list(tf.sort.topk(tf.input([3, 4], tf.float32), 9)))
    with pytest.raises(tf.ArgumentError, match=r"axis must be an int in \[-2, 1\] for keys of rank 2, got 2"):
        tf.compile(lambda: [tf.sort.argsort(tf.input([-1, -1], tf.int32), axis=2)])
    with pytest.raises(tf.ShapeError, match="values must have the shape of keys"):
        tf.compile(lambda: list(tf.sort.radix(tf.input([-1], tf.uint32), tf.input([-1, -1], tf.uint32))))
    with pytest.raises(tf.ArgumentError, match=r"bits_per_pass must be an int in \[1, 16\], got 0"):
        tf.compile(lambda: [tf.sort.radix(tf.input([-1], tf.uint32), bits_per_pass=0)])
