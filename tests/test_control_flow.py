"""Loops and conditions: per-element control flow inside kernels, host loops that dispatch
kernels, loop bounds read back from tensors, break and continue."""

import numpy as np
import pytest

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


# -- per-element control flow in loops: on the CPU, tiles of lanes run it masked -----------------

def _escape_counts(c_re, c_im, limit):
    """Iterations until |z| > 2 for z <- z^2 + c, the reference for the escape-time loops."""
    z = np.zeros_like(c_re, np.complex64)
    c = (c_re + 1j * c_im).astype(np.complex64)
    count = np.zeros(c_re.shape, np.float32)
    live = np.ones(c_re.shape, bool)
    for _ in range(limit):
        z = np.where(live, z * z + c, z)
        count += live
        live &= np.abs(z) ** 2 <= 4.0
    return count


@pytest.mark.parametrize("shape", [(3, 45), (37, 70), (130,)])
def test_escape_time_loop_with_break_on_partial_tiles(backend, shape):
    rng = np.random.default_rng(3)
    c_re = rng.uniform(-2.0, 0.6, shape).astype(np.float32)
    c_im = rng.uniform(-1.2, 1.2, shape).astype(np.float32)

    def program():
        cr = tf.input([-1] * len(shape), tf.float32)
        ci = tf.input(cr.shape, tf.float32)
        zr, zi, count = tf.const(0.0), tf.const(0.0), tf.const(0.0)
        with tf.loop(64):
            zr_next = zr * zr - zi * zi + cr
            zi.val = 2.0 * zr * zi + ci
            zr.val = zr_next
            count.val = count + 1.0
            with tf.if_cond(zr * zr + zi * zi > 4.0):
                tf.break_loop()
        return count
    got = tf.compile(program)(c_re, c_im).numpy
    want = _escape_counts(c_re, c_im, 64)
    # float32 orbits near the boundary may escape an iteration apart from complex64 ones
    assert np.mean(got != want) < 0.01
    assert np.max(np.abs(got - want)) <= 64


def test_if_else_updates_and_stores_inside_a_loop(backend):
    """Collatz steps: each lane takes its own branch every iteration; a store under an if
    records the step at which a lane first reached 1."""
    start = np.arange(1, 71, dtype=np.int32).reshape(2, 35)

    def program():
        x0 = tf.input([-1, -1], tf.int32)
        x = x0 * 1
        first_one = tf.const(-1, x0.shape, tf.int32)
        with tf.loop(120) as k:
            with tf.if_cond(x % 2 == 0):
                x.val = x / 2
            with tf.if_cond(x % 2 == 1):
                with tf.if_cond(x > 1):
                    x.val = 3 * x + 1
            with tf.if_cond((x == 1) & (first_one < 0)):
                first_one.val = k
        return x, first_one

    def collatz_first_one(n):
        for k in range(120):
            if n % 2 == 0:
                n //= 2
            if n % 2 == 1 and n > 1:
                n = 3 * n + 1
            if n == 1:
                return k
        return -1
    x, first_one = tf.compile(program)(start)
    want = np.vectorize(collatz_first_one)(start)
    np.testing.assert_array_equal(first_one.numpy, want)
    np.testing.assert_array_equal(x.numpy, np.where(want >= 0, 1, x.numpy))


def test_break_out_of_an_outer_loop_around_an_inner_loop(backend, rng):
    """Lanes leave the outer loop at different times; the inner loop runs only for live ones."""
    limit = rng.integers(0, 40, (4, 33)).astype(np.float32)

    def program():
        lim = tf.input([-1, -1], tf.float32)
        total = tf.zeros(lim.shape)
        with tf.loop(20) as k:
            with tf.loop(3) as j:
                total.val = total + tf.float(k + j)
            with tf.if_cond(total > lim):
                tf.break_loop()
        return total
    want = np.zeros_like(limit)
    for index, lim in np.ndenumerate(limit):
        total = 0.0
        for k in range(20):
            total += 3 * k + 3
            if total > lim:
                break
        want[index] = total
    np.testing.assert_array_equal(tf.compile(program)(limit).numpy, want)


def test_store_under_a_condition_in_a_loop_writes_only_taken_lanes(backend, rng):
    x = rng.standard_normal((3, 40)).astype(np.float32)

    def program():
        a = tf.input([-1, -1], tf.float32)
        out = tf.const(7.0, a.shape)
        i, j = a.indices
        with tf.loop(4) as k:
            with tf.if_cond(a > tf.float(k) * 0.5):
                out[i, j] = a * tf.float(k)
        return out
    want = np.full_like(x, 7.0)
    for k in range(4):
        want = np.where(x > k * 0.5, x * k, want)
    np.testing.assert_allclose(tf.compile(program)(x).numpy, want, rtol=1e-6)


# -- loops that elements leave at different times, with bodies of several kernels -------------


def _clamped(i, n):
    return np.clip(i, 0, n - 1)


def test_per_element_while_reading_neighbours_runs_masked(backend):
    """Each step reads a neighbour of the value the loop updates, so the body needs two
    kernels and the elements run in lockstep under masks, as the numpy version does."""
    @tf.kernel_program
    def native(x: tf.Arg([-1], tf.float32)):
        i, = x.indices
        y = x * 1.0
        while y > 1.0:
            y = y * 0.5 + 0.1 * y[i - 1]
        return y

    def traced():
        x = tf.input([-1], tf.float32)
        i, = x.indices
        y = x * 1.0
        with tf.loop(1000):
            with tf.if_cond(y <= 1.0):
                tf.break_loop()
            y.val = y * 0.5 + 0.1 * y[i - 1]
        return y
    x = np.array([0.5, 3.0, 8.0, 1.5, 40.0, 0.25], np.float32)
    want = x.copy()
    while (want > 1).any():
        want = np.where(want > 1, want * np.float32(0.5) + np.float32(0.1) * want[_clamped(np.arange(6) - 1, 6)], want)
    np.testing.assert_allclose(native(x).numpy, want, rtol=1e-6)
    traced_result = tf.compile(traced)(x)
    np.testing.assert_allclose(traced_result.numpy, want, rtol=1e-6)


def test_masked_loop_with_continue_and_a_counter(backend):
    """continue skips the rest of the step for some elements; a counter counts the steps each
    element took; the body reads the neighbours of the updated value (several kernels)."""
    @tf.kernel_program
    def program(x: tf.Arg([-1], tf.float32)):
        i, = x.indices
        y = x * 1.0
        steps = 0
        for k in range(8):
            if y < 0.0:
                break
            steps += 1
            if k % 2 == 1 and y > 4.0:
                continue
            y = y - 1.0 + 0.25 * (y[i + 1] - y)
        return y, steps
    x = np.array([0.5, 3.0, 9.0, 5.5, 2.0], np.float32)
    y, steps, live = x.copy(), np.zeros(5, np.int32), np.ones(5, bool)
    for k in range(8):
        live &= ~(y < 0)
        steps += live
        going = live & ~((k % 2 == 1) & (y > 4.0))
        y = np.where(going, y - np.float32(1.0) + np.float32(0.25) * (y[_clamped(np.arange(5) + 1, 5)] - y), y)
    got_y, got_steps = program(x)
    np.testing.assert_allclose(got_y.numpy, y, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(got_steps.numpy, steps)


def test_variables_made_in_python_loops_all_widen_in_one_retrace(backend, rng):
    """Each trip of a Python loop creates its own variable; all that must widen are found by
    one trace (the limit of 16 traces once failed a program with 20 of them)."""
    @tf.kernel_program
    def _counts_in_python_loops(x: tf.Arg([-1], tf.float32)):
        total = x * 0.0
        trip = 0
        while trip < 4:  # Python while loops on Python ints, unrolled: 20 `count = 0` variables
            trip += 1
            step = 0
            while step < 5:
                step += 1
                count = 0  # each widens: the while below counts per element
                while float(step) <= x * 4.0 and count < 10:
                    count += 1
                    x = x - 0.125
                total = total + count
        return total

    x0 = rng.uniform(0.2, 2.0, 37).astype(np.float32)
    x, want = x0.copy(), np.zeros(37, np.float32)
    for _ in range(4):
        for step in range(1, 6):
            count = np.zeros(37, np.float32)
            for _ in range(10):
                going = np.float32(step) <= x * np.float32(4.0)
                count += going
                x = np.where(going, x - np.float32(0.125), x)
            want += count
    np.testing.assert_array_equal(_counts_in_python_loops(x0).numpy, want)


def test_a_counter_tested_after_its_increment_counts_on_every_backend(backend):
    """Mesa's shader compiler once computed a wrong trip count for this loop (a counter from
    a constant, tested after its increment): every element came back 0 on OpenGL."""
    @tf.kernel_program
    def counted(b: tf.Arg([-1], tf.float32)):
        f = b * 0.0
        k = 0
        while f < 100.0 and k < 4:
            k += 1
            if k < 1:
                break
            f = f + 1.0
        return f
    np.testing.assert_array_equal(counted(np.zeros(5, np.float32)).numpy, np.full(5, 4.0, np.float32))
