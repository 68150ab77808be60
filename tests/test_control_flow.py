"""Loops and conditions: per-element control flow inside kernels, host loops that dispatch
kernels, loop bounds read back from tensors, break and continue."""

import numpy as np

import tensorfrost as tf


def test_continue_and_scalar_accumulator(backend, rng):
    v = rng.standard_normal(25).astype(np.float32)

    def program():
        x = tf.input([-1], tf.float32)
        s = tf.const(0.0)
        with tf.loop(x.shape[0]) as i:
            with tf.if_cond(x[i] < 0.0):
                tf.continue_loop()
            s.val = s + x[i]
        return s
    got = tf.compile(program)(v).numpy
    np.testing.assert_allclose(got, v[v >= 0].astype(np.float64).sum(), rtol=1e-5)


def test_per_element_loop_count_and_break(backend):
    n = np.array([0, 1, 5, 9, 3], np.int32)

    def program():
        count = tf.input([-1], tf.int32)
        total = tf.zeros(count.shape, tf.int32)
        with tf.loop(100) as k:
            with tf.if_cond(k >= count):
                tf.break_loop()
            total.val = total + k
        return total
    np.testing.assert_array_equal(tf.compile(program)(n).numpy, n * (n - 1) // 2)


def test_loop_bound_read_back_from_a_tensor(backend):
    def program():
        steps = tf.input([1], tf.int32)
        x = tf.input([-1], tf.float32)
        y = x * 1.0
        with tf.loop(steps[0] * 2):
            i, = y.indices
            y[(i + 1) % y.shape[0]] = y[i] + 1.0  # a neighbour shift: needs a kernel per step
        return y
    x = np.arange(6, dtype=np.float32)
    got = tf.compile(program)(np.array([2], np.int32), x).numpy
    want = x.copy()
    for _ in range(4):
        want = np.roll(want + 1, 1)
    np.testing.assert_allclose(got, want)


def test_host_if_around_kernels(backend):
    def program():
        flag = tf.input([1], tf.int32)
        x = tf.input([-1], tf.float32)
        y = x * 1.0
        with tf.if_cond(flag[0] > 0):
            y.val = y * 3.0
        return y
    prog = tf.compile(program)
    x = np.array([1.0, 2.0, -1.0], np.float32)
    np.testing.assert_array_equal(prog(np.array([1], np.int32), x).numpy, x * 3)
    np.testing.assert_array_equal(prog(np.array([0], np.int32), x).numpy, x)


def test_nested_loops_with_condition(backend):
    def program():
        x = tf.input([-1, -1], tf.float32)
        n, m = x.shape
        out = tf.zeros([n])
        i, = out.indices
        with tf.loop(m) as j:
            with tf.if_cond(x[i, j] > 0.0):
                with tf.loop(j + 1) as k:
                    out.val = out + tf.float(k)
        return out
    x = np.array([[1, -1, 1], [-1, -1, -1], [1, 1, 1]], np.float32)
    want = np.array([sum(range(j + 1)) for j in range(3)], np.float32)
    want = (x > 0).astype(np.float32) @ want
    np.testing.assert_array_equal(tf.compile(program)(x).numpy, want)


def test_regions_do_not_change_results(backend):
    def program():
        x = tf.input([-1])
        tf.region_begin("double")
        y = x * 2.0
        tf.region_end("double")
        return y
    x = np.arange(5, dtype=np.float32)
    np.testing.assert_array_equal(tf.compile(program)(x).numpy, x * 2)


def test_zero_trip_loop_and_empty_tensors(backend):
    def program():
        x = tf.input([-1])
        acc = tf.zeros(x.shape)
        with tf.loop(x.shape[0] - 10):
            acc.val = acc + 1.0
        return [acc, tf.sum(x * 2.0)]
    acc, total = tf.compile(program)(np.arange(3, dtype=np.float32))
    np.testing.assert_array_equal(acc.numpy, np.zeros(3))
    acc, total = tf.compile(program)(np.zeros(0, np.float32))
    assert acc.shape == (0,) and total.numpy.tolist() == [0.0]
