"""Loops over each element's own row, as users write them (issue 33's ``apart_axes``): a
running sum updated in place along each row with a counter that starts at 0, a ``while`` on
the data with an early exit, two inputs of any size; in both front ends, on every backend.
Each reads the element before the one it writes, so it runs inside one kernel."""

import numpy as np

import tensorfrost as tf


def _running_sum_until(x, y, limit):
    """numpy: along each row, out[j] = out[j-1] + x[j] * y[j] until the sum passes limit;
    the rest of the row keeps x. Returns out and the column each row stopped at."""
    out = x.astype(np.float64).copy()
    stop = np.full(x.shape[0], x.shape[1], np.int32)
    for r in range(x.shape[0]):
        j = 1
        while j < x.shape[1]:
            out[r, j] = out[r, j - 1] + x[r, j] * y[r, j]
            if out[r, j] > limit:
                stop[r] = j
                break
            j += 1
    return out, stop


def tracing_program():
    x = tf.input([-1, -1], tf.float32)
    y = tf.input(x.shape, tf.float32)
    rows, cols = x.shape
    out = tf.zeros(x.shape, tf.float32)
    i, j = x.indices
    out[i, j] = x
    r, = tf.indices([rows])
    stop = tf.zeros([rows], tf.int32)
    stop[r] = cols
    k = tf.copy(1)
    with tf.loop(cols):  # a while on the data: leaves early
        with tf.if_cond(k >= cols):
            tf.break_loop()
        out[r, k] = out[r, k - 1] + x[r, k] * y[r, k]
        with tf.if_cond(out[r, k] > 4.0):
            stop[r] = k
            tf.break_loop()
        k.val = k + 1
    return out, stop


def native_program(x: tf.Arg([-1, -1], tf.float32), y: tf.Arg([-1, -1], tf.float32)):
    rows, cols = x.shape
    out = tf.zeros(x.shape, tf.float32)
    i, j = x.indices
    out[i, j] = x
    r, = tf.indices([rows])
    stop = tf.zeros([rows], tf.int32)
    stop[r] = cols
    k = 1
    while k < cols:
        out[r, k] = out[r, k - 1] + x[r, k] * y[r, k]
        if out[r, k] > 4.0:
            stop[r] = k
            break
        k += 1
    return out, stop


def test_a_running_sum_along_each_row_stops_where_numpy_does(backend):
    rng = np.random.default_rng(4)
    for shape in [(1, 1), (3, 17), (40, 9), (65, 33)]:
        x = (rng.integers(-4, 9, shape) / 4).astype(np.float32)  # quarters: every sum exact
        y = (rng.integers(0, 5, shape) / 4).astype(np.float32)
        want, want_stop = _running_sum_until(x, y, 4.0)
        for name, program in [("tracing", tf.compile(tracing_program)), ("native", tf.kernel_program(native_program))]:
            out, stop = (t.numpy for t in program(x, y))
            np.testing.assert_array_equal(out, want, err_msg=f"{name} {shape}")
            np.testing.assert_array_equal(stop, want_stop, err_msg=f"{name} {shape}")


def test_the_row_loop_runs_inside_one_kernel():
    tf.initialize(tf.cpu)
    with tf.optimizations.recording() as fired:
        program = tf.compile(tracing_program)
    assert "apart_axes" in fired
    kernels = program.executable.kernel_sources
    assert sum("out" in k and "break" in k for k in kernels) == 1, "the loop stayed on the host"
