"""Variables, shapes and control flow as a user writes them (the defects of the control-flow
issue, A-H, one test each): variables that start as Python numbers and become per element
after something used them, reductions of such variables, host loops on values computed on
the device, per-element loop bounds with continue, free sizes combined elementwise, stores
under per-element ifs that read neighbours, rank-0 arguments, and deterministic code."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tensorfrost as tf


def single(result):
    return result[0] if isinstance(result, tuple) else result


# -- A: a variable used before it turns out to be per element ------------------------------------


def test_a_counter_used_by_an_if_before_it_widens(backend):
    @tf.kernel_program
    def program(x: tf.Arg([-1], tf.float32)):
        k = 0
        if x > 0.0:
            k = 1
        if k == 1:
            x = x + 1.0
        return x
    x = np.array([-1.0, 2.0, 0.5, -3.0, 4.0], np.float32)
    np.testing.assert_array_equal(program(x).numpy, np.where(x > 0, x + 1, x))


def test_a_seed_mandelbrot_with_an_iteration_counter(backend):
    """The seed's tracing-style pattern plus a counter that the final store reads."""
    def mandelbrot():
        canvas = tf.zeros([16, 24], tf.float32)
        i, j = canvas.indices
        c_re = tf.float(j) / 8.0 - 2.0
        c_im = tf.float(i) / 8.0 - 1.0
        z_re, z_im, count = tf.const(0.0), tf.const(0.0), tf.const(0.0)
        with tf.loop(32):
            z_re_new = z_re * z_re - z_im * z_im + c_re
            z_im.val = 2.0 * z_re * z_im + c_im
            z_re.val = z_re_new
            count.val = count + 1.0
            with tf.if_cond(z_re * z_re + z_im * z_im > 256.0):
                tf.break_loop()
        canvas[i, j] = count
        return [canvas]
    got = single(tf.compile(mandelbrot)()).numpy
    i, j = np.indices((16, 24))
    c = (j / 8.0 - 2.0) + 1j * (i / 8.0 - 1.0)
    want = np.zeros((16, 24), np.float32)
    for index, ci in np.ndenumerate(c):
        z = 0j
        for _ in range(32):
            z = z * z + ci
            want[index] += 1
            if abs(z) ** 2 > 256.0:
                break
    # grid values are exact in float32; orbits this short escape at the same step in float64
    np.testing.assert_array_equal(got, want)


def test_a_widening_discovered_after_a_load_index_and_a_store(backend):
    """``lo`` is read as an index and stored before the per-element if that widens it."""
    @tf.kernel_program
    def program(table: tf.Arg([-1], tf.float32), q: tf.Arg([-1], tf.float32)):
        out = tf.zeros(q.shape, tf.int32)
        i, = q.indices
        lo = 0
        for step in range(3):
            out[i] = lo + tf.int(table[lo] * 0.0)
            if q > tf.float(step):
                lo = lo + 1
        out[i] = out[i] * 10 + lo
        return out
    table = np.arange(4, dtype=np.float32)
    q = np.array([-1.0, 0.5, 1.5, 2.5], np.float32)
    lo = np.zeros(4, np.int32)
    for step in range(3):
        before = lo.copy()
        lo = lo + (q > step)
    np.testing.assert_array_equal(program(table, q).numpy, before * 10 + lo)


# -- B: a reduction of a variable that widens in a loop -------------------------------------------


def test_b_reduction_of_a_counter_widened_by_a_while(backend):
    @tf.kernel_program
    def program(x: tf.Arg([-1], tf.float32)):
        n = 0
        while x > 1.0:
            x = x * 0.5
            n += 1
        return tf.max(n), n
    x = np.array([1.0, 3.0, 100.0, 0.25], np.float32)
    steps = np.array([0, 2, 7, 0], np.int32)
    top, n = program(x)
    np.testing.assert_array_equal(n.numpy, steps)
    assert top.numpy.reshape(-1).tolist() == [7]


# -- C: host loops whose condition is computed on the device --------------------------------------


def test_c_log_step_while_on_a_shape_value(backend):
    @tf.kernel_program
    def program(a: tf.Arg([-1], tf.float32)):
        i, = a.indices
        x = a * 1.0
        j = a.shape[0] // 2
        while j > 0:
            x = x + x[i ^ j]
            j = j // 2
        return x
    a = np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(program(a).numpy, np.full(8, a.sum()))


def _jacobi_reference(a, tol):
    u = a.copy()
    left, right = np.clip(np.arange(len(a)) - 1, 0, len(a) - 1), np.clip(np.arange(len(a)) + 1, 0, len(a) - 1)
    for _ in range(1000):
        new = (u[left] + u[right]) * np.float32(0.5)
        err = np.abs(new - u).max()
        u = new
        if err <= tol:
            break
    return u


def test_c_convergence_while_in_both_front_ends(backend):
    @tf.kernel_program
    def native(a: tf.Arg([-1], tf.float32)):
        i, = a.indices
        u = a * 1.0
        err = 1.0
        while err > 1e-3:
            new = (u[i - 1] + u[i + 1]) * 0.5
            err = tf.max(tf.abs(new - u))
            u = new
        return u

    def traced():
        a = tf.input([-1], tf.float32)
        i, = a.indices
        u = a * 1.0
        with tf.loop(1000):
            new = (u[i - 1] + u[i + 1]) * 0.5
            err = tf.max(tf.abs(new - u))
            u.val = new
            with tf.if_cond(err <= 1e-3):
                tf.break_loop()
        return u
    a = np.arange(12, dtype=np.float32)
    want = _jacobi_reference(a, 1e-3)
    np.testing.assert_allclose(native(a).numpy, want, rtol=1e-6)
    np.testing.assert_allclose(single(tf.compile(traced)(a)).numpy, want, rtol=1e-6)


# -- D: per-element loop bounds with continue -----------------------------------------------------


def test_d_continue_in_a_loop_with_per_element_bounds(backend):
    @tf.kernel_program
    def program(n: tf.Arg([-1], tf.int32)):
        s = 0
        for a in range(n):
            if a == 1:
                continue
            s += a
        return s
    n = np.array([0, 1, 2, 3, 5, 9], np.int32)
    want = [sum(a for a in range(k) if a != 1) for k in n]
    np.testing.assert_array_equal(program(n).numpy, want)


# -- E: free sizes combined elementwise are one size -----------------------------------------------


def test_e_two_any_size_inputs_in_one_fused_loop(backend):
    @tf.kernel_program
    def gcd(a: tf.Arg([-1], tf.int32), b: tf.Arg([-1], tf.int32)):
        x, y = a, b
        while y != 0:
            x, y = y, x % y
        return x
    a = np.array([12, 7, 9, 0, 35], np.int32)
    b = np.array([18, 3, 6, 4, 14], np.int32)
    np.testing.assert_array_equal(gcd(a, b).numpy, np.gcd(a, b))
    assert len(gcd.get_kernels()) == 2  # the fused loop, and the reduction of its trip-limit flag (issue 26)


def test_e_different_sizes_name_both_arguments(backend):
    @tf.kernel_program
    def add(first: tf.Arg([-1], tf.float32), second: tf.Arg([-1], tf.float32)):
        return first + second
    with pytest.raises(tf.RuntimeCheckError) as error:
        add(np.ones(3, np.float32), np.ones(4, np.float32))
    message = str(error.value)
    assert "first.shape[0]" in message and "second.shape[0]" in message
    assert "test_variable_shapes.py" in message  # the user's line
    np.testing.assert_array_equal(add(np.ones(3, np.float32), np.ones(3, np.float32)).numpy, np.full(3, 2.0))


# -- F: an in-place store under a per-element if that reads neighbours -----------------------------


def test_f_store_under_a_per_element_if_reading_neighbours(backend):
    @tf.kernel_program
    def program(u0: tf.Arg([-1], tf.float32), f: tf.Arg([-1], tf.float32)):
        u = u0 * 1.0
        i, = u.indices
        if i % 2 == 0:
            u[i] = u[i - 1] + f[i]
        return u
    u0 = np.arange(7, dtype=np.float32)
    f = np.linspace(1, 2, 7).astype(np.float32)
    want = u0.copy()
    even = np.arange(0, 7, 2)
    want[even] = u0[np.maximum(even - 1, 0)] + f[even]  # all reads before the writes, clamped
    np.testing.assert_array_equal(program(u0, f).numpy, want)


# -- G: rank-0 arguments ---------------------------------------------------------------------------


def test_g_rank_0_argument_takes_python_and_numpy_scalars(backend):
    @tf.kernel_program
    def program(x: tf.Arg([-1], tf.float32), n: tf.Arg([], tf.int32)):
        out = tf.zeros([n])
        i, = out.indices
        out[i] = x[i] * tf.float(n)
        return out
    x = np.arange(5, dtype=np.float32)
    for n in (3, np.int32(2), np.int64(4), np.array(1, np.int32)):
        got = program(x, n).numpy
        assert got.shape == (int(n),)
        np.testing.assert_array_equal(got, x[:int(n)] * int(n))
    with pytest.raises(tf.ArgumentError, match="rank 0"):
        program(x, np.array([3], np.int32))


# -- H: deterministic generated code ----------------------------------------------------------------


_PROGRAMS = textwrap.dedent("""
    import hashlib, sys
    sys.path.insert(0, {tests!r})
    import tensorfrost as tf
    import corpus_native_a, corpus_native_b, corpus_tracing
    from corpus import CASES
    junk = [object() for _ in range({junk})]  # other addresses for every node
    for name in sorted(CASES):
        print(name, hashlib.sha256(CASES[name].build().compiled_code().encode()).hexdigest())
""")


def test_h_generated_code_is_the_same_in_another_process():
    """Node addresses, hash seeds and the order programs are traced in do not change the
    generated code (the disk cache key)."""
    tests = os.path.dirname(os.path.abspath(__file__))
    runs = []
    for seed, junk in (("1", 10), ("2", 3001)):
        script = _PROGRAMS.format(tests=tests, junk=junk)
        out = subprocess.run([sys.executable, "-c", "import tensorfrost as tf; tf.initialize(tf.codegen)\n" + script],
                             env=dict(os.environ, PYTHONHASHSEED=seed), capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr[-2000:]
        runs.append(out.stdout)
    assert runs[0] == runs[1]
    assert len(runs[0].splitlines()) >= 55
