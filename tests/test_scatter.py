"""Scatters (atomic read-modify-write at arbitrary indices) and indexed updates."""

import numpy as np
import pytest

import tensorfrost as tf


@pytest.mark.parametrize("dtype", [tf.float32, tf.int32])
def test_scatter_add_min_max_with_duplicates(backend, rng, dtype):
    values = rng.integers(-50, 50, 2000).astype(dtype.numpy)
    slots = rng.integers(0, 16, 2000).astype(np.int32)

    def program():
        v = tf.input([-1], dtype)
        s = tf.input([-1], tf.int32)
        total = tf.zeros([16], dtype)
        low = tf.const(1000, [16], dtype)
        high = tf.const(-1000, [16], dtype)
        i, = v.indices
        tf.scatterAdd(total[s[i]], v[i])
        tf.scatterMin(low[s], v)
        tf.scatterMax(high[s], v)
        return [total, low, high]
    total, low, high = tf.compile(program)(values, slots)
    want_total = np.zeros(16, values.dtype)
    np.add.at(want_total, slots, values)
    want_low = np.full(16, 1000, values.dtype)
    np.minimum.at(want_low, slots, values)
    want_high = np.full(16, -1000, values.dtype)
    np.maximum.at(want_high, slots, values)
    np.testing.assert_array_equal(total.numpy, want_total)  # small integers: float sums are exact
    np.testing.assert_array_equal(low.numpy, want_low)
    np.testing.assert_array_equal(high.numpy, want_high)


def test_scatter_bitwise(backend, rng):
    values = rng.integers(0, 2**31, 500).astype(np.int32)
    slots = rng.integers(0, 4, 500).astype(np.int32)

    def program():
        v = tf.input([-1], tf.int32)
        s = tf.input([-1], tf.int32)
        a, o, x = tf.const(-1, [4], tf.int32), tf.zeros([4], tf.int32), tf.zeros([4], tf.int32)
        tf.scatterAnd(a[s], v)
        tf.scatterOr(o[s], v)
        tf.scatterXor(x[s], v)
        return [a, o, x]
    outs = [t.numpy for t in tf.compile(program)(values, slots)]
    for out, ufunc, start in zip(outs, (np.bitwise_and, np.bitwise_or, np.bitwise_xor), (-1, 0, 0)):
        want = np.full(4, start, np.int32)
        ufunc.at(want, slots, values)
        np.testing.assert_array_equal(out, want)


def test_scatter_into_scalar_slot(backend, rng):
    x = rng.standard_normal(300).astype(np.float32)

    def program():
        a = tf.input([-1])
        total = tf.zeros([1])
        i, = a.indices
        tf.scatterAdd(total[0], a[i] * a[i])
        return total
    got = tf.compile(program)(x).numpy
    # 300 float32 additions in any order: error <= 300 * eps * sum(x^2)
    np.testing.assert_allclose(got, [np.sum(x.astype(np.float64) ** 2)], rtol=300 * 1.2e-7)


def test_indexed_augmented_assignment(backend, rng):
    x = rng.standard_normal((6, 5)).astype(np.float32)

    def program():
        a = tf.input([-1, -1])
        b = a * 1.0
        i, j = tf.indices([3, 5])
        b[i + 2, j] += 10.0
        b[i, j] *= 2.0
        b[0, j] -= a[1, j]
        return b
    want = x.copy()
    want[2:5] += 10
    want[0:3] *= 2
    want[0] -= x[1]
    np.testing.assert_allclose(tf.compile(program)(x).numpy, want, rtol=1e-6)
