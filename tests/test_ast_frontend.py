"""@tf.kernel_program: native Python control flow, checked against numpy and against the
tracing style (the same kernels for every seed README example)."""

import re

import numpy as np
import pytest

import tensorfrost as tf
from tensorfrost.ast_frontend import function as ast_function

DT = 0.1
WEIGHTS = [0.5, 0.25, 2.0]


def normalized(kernels):
    """Kernel sources with the numbers in names renumbered in order of appearance: node ids
    come from a process-wide counter, so two compilations of a program differ in them."""
    def renumber(source):
        ids = {}

        def name(match):
            token = match.group(0)
            return re.sub(r"\d+", "", token) + "#" + ids.setdefault(token, str(len(ids)))
        return re.sub(r"\b[A-Za-z_]\w*\d\w*", name, source)
    return [renumber(source) for source in kernels]


def compile_twins(tracing_fn, native_fn, name):
    traced = tf.compile(tracing_fn, name=name)
    native = tf.kernel_program(native_fn, name=name)
    assert normalized(native.get_kernels()) == normalized(traced.get_kernels())
    return traced, native


def outputs(result):
    return [t.numpy for t in result] if isinstance(result, tuple) else [result.numpy]


def assert_same_results(traced, native, *args):
    for a, b in zip(outputs(traced(*args)), outputs(native(*args))):
        np.testing.assert_array_equal(a, b)  # the same kernels: bit-identical results


# -- the seed README examples, in both styles ----------------------------------------------------


def wave_eq():
    u = tf.input([-1, -1], tf.float32)
    v = tf.input(u.shape, tf.float32)
    i, j = u.indices
    laplacian = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - u * 4.0
    v_new = v + DT * laplacian
    u_new = u + DT * v_new
    return [v_new, u_new]


def index_windows():
    B = tf.input([-1, -1], tf.float32)
    B = B * 1.0
    i, j = tf.indices([16, 16])
    B[i + 16, j + 16] = 1.0
    i, j = tf.indices([16, 16])
    C = B[i + 8, j + 8]
    p, k = tf.index_grid([0, 2], [B.shape[0], B.shape[1]])
    return [B, C, B[p, k]]


def matmul_scatter():
    A = tf.input([-1, -1], tf.float32)
    N, M = A.shape
    B = tf.input([M, -1], tf.float32)
    K = B.shape[1]
    C = tf.zeros([N, K])
    i, j, k = tf.indices([N, K, M])
    tf.scatterAdd(C[i, j], A[i, k] * B[k, j])
    return [C]


def matmul_sum():
    A = tf.input([-1, -1], tf.float32)
    N, M = A.shape
    B = tf.input([M, -1], tf.float32)
    K = B.shape[1]
    i, j, k = tf.indices([N, K, M])
    C = tf.sum(A[i, k] * B[k, j], axis=2)
    return [C, tf.matmul(A, B), A @ B]


def shapes():
    A = tf.input([2, 3], tf.float32)
    B = tf.input([3, 1], tf.float32)
    C = A[0:1, :] + B
    return [C, tf.reshape(A, [3, 2]), tf.transpose(A), tf.transpose(A).T, tf.unsqueeze(A, 1)]


def conv2d():
    X = tf.input([-1, -1, -1, -1], tf.float32)
    W = tf.input([-1, X.shape[3], -1, -1], tf.float32)
    b = tf.input([W.shape[0]], tf.float32)
    bi, wi, hi, cout, cin, it = tf.indices([X.shape[0], X.shape[1] - W.shape[2] + 1, X.shape[2] - W.shape[3] + 1,
                                            W.shape[0], W.shape[1], W.shape[2] * W.shape[3]])
    # The seed writes `it / W.shape[2]` (C's integer division in tf.compile); as a helper of
    # a kernel program `/` is Python's true division, so both twins use `//`.
    i, j = it % W.shape[2], it // W.shape[2]
    conv = tf.sum(tf.sum(X[bi, wi + i, hi + j, cin] * W[cout, cin, i, j]))
    return conv + b


def gradients():
    x = tf.input([-1, -1], tf.float32)
    W = tf.input([x.shape[1], -1], tf.float32)
    b = tf.input([W.shape[1]], tf.float32)
    y = tf.input([x.shape[0], W.shape[1]], tf.float32)
    y_pred = x @ W + b
    loss = tf.mean((y - y_pred) ** 2)
    dW = tf.grad(loss, W)
    db = tf.grad(loss, b)
    dx = x - y_pred[0, 0]
    dist = tf.sqrt(tf.sum(dx ** 2))
    force = -tf.grad(1.0 / dist, dx)
    return [dW, db, force]


def qr_tracing():
    A = tf.input([-1, -1], tf.float32)
    m, n = A.shape
    Q = tf.zeros([m, n])
    R = tf.zeros([n, n])
    j = tf.index(0, [m])
    with tf.loop(n - 1) as i:
        R[i, i] = tf.norm(A[j, i])
        Q[j, i] = A[j, i] / R[i, i]
        p, k = tf.index_grid([0, i + 1], [m, n])
        t, = tf.index_grid([i + 1], [n])
        R[i, t] = tf.sum(Q[p, i] * A[p, k], axis=0)
        A[p, k] -= Q[p, i] * R[i, k]
    R[n - 1, n - 1] = tf.norm(A[j, n - 1])
    Q[j, n - 1] = A[j, n - 1] / R[n - 1, n - 1]
    return [Q, R]


def qr_native():
    A = tf.input([-1, -1], tf.float32)
    m, n = A.shape
    Q = tf.zeros([m, n])
    R = tf.zeros([n, n])
    j = tf.index(0, [m])
    for i in range(n - 1):
        R[i, i] = tf.norm(A[j, i])
        Q[j, i] = A[j, i] / R[i, i]
        p, k = tf.index_grid([0, i + 1], [m, n])
        t, = tf.index_grid([i + 1], [n])
        R[i, t] = tf.sum(Q[p, i] * A[p, k], axis=0)
        A[p, k] -= Q[p, i] * R[i, k]
    R[n - 1, n - 1] = tf.norm(A[j, n - 1])
    Q[j, n - 1] = A[j, n - 1] / R[n - 1, n - 1]
    return [Q, R]


def mandelbrot_tracing():
    c_re = tf.input([-1, -1], tf.float32)
    c_im = tf.input(c_re.shape, tf.float32)
    z_re = tf.const(0.0)
    z_im = tf.const(0.0)
    with tf.loop(128):
        z_re_new = z_re*z_re - z_im*z_im + c_re
        z_im_new = 2.0*z_re*z_im + c_im
        z_re.val = z_re_new
        z_im.val = z_im_new
        with tf.if_cond(z_re*z_re + z_im*z_im > 256.0):
            tf.break_loop()
    return [z_re, z_im]


def mandelbrot_function_form():
    c_re = tf.input([-1, -1], tf.float32)
    c_im = tf.input(c_re.shape, tf.float32)
    z_re = tf.const(0.0)
    z_im = tf.const(0.0)

    def loop_body(k):
        z_re_new = z_re*z_re - z_im*z_im + c_re
        z_im_new = 2.0*z_re*z_im + c_im
        z_re.set(z_re_new)
        z_im.set(z_im_new)
        with tf.if_cond(z_re*z_re + z_im*z_im > 256.0):
            tf.break_loop()

    tf.loop(0, 128, 1, loop_body)
    return [z_re, z_im]


def mandelbrot_native():
    c_re = tf.input([-1, -1], tf.float32)
    c_im = tf.input(c_re.shape, tf.float32)
    z_re = 0.0
    z_im = 0.0
    for _ in range(128):
        z_re_new = z_re*z_re - z_im*z_im + c_re
        z_im_new = 2.0*z_re*z_im + c_im
        z_re = z_re_new
        z_im = z_im_new
        if z_re*z_re + z_im*z_im > 256.0:
            break
    return [z_re, z_im]


def mandelbrot_native_range3():
    c_re = tf.input([-1, -1], tf.float32)
    c_im = tf.input(c_re.shape, tf.float32)
    z_re = 0.0
    z_im = 0.0
    for _ in range(0, 128, 1):
        z_re_new = z_re*z_re - z_im*z_im + c_re
        z_im_new = 2.0*z_re*z_im + c_im
        z_re = z_re_new
        z_im = z_im_new
        if z_re*z_re + z_im*z_im > 256.0:
            break
    return [z_re, z_im]


def _mandelbrot_grid(shape=(24, 32)):
    y, x = np.mgrid[-1.3:1.3:complex(0, shape[0]), -2.1:0.8:complex(0, shape[1])]
    return x.astype(np.float32), y.astype(np.float32)


def _rand(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def seed_basics():
    """The examples without control flow, in one program (one compilation per style); as a
    kernel program, the example functions are helpers and get rewritten too."""
    return [*wave_eq(), *index_windows(), *matmul_scatter(), *matmul_sum(), *shapes(), conv2d(), *gradients()]


def _basics_inputs(rng):
    return [_rand(rng, 9, 7), _rand(rng, 9, 7), _rand(rng, 40, 40), _rand(rng, 5, 4), _rand(rng, 4, 3),
            _rand(rng, 5, 4), _rand(rng, 4, 3), _rand(rng, 2, 3), _rand(rng, 3, 1), _rand(rng, 2, 6, 5, 3),
            _rand(rng, 4, 3, 2, 2), _rand(rng, 4), _rand(rng, 6, 3), _rand(rng, 3, 2), _rand(rng, 2),
            _rand(rng, 6, 2)]


SEED_EXAMPLES = {
    "basics": (seed_basics, seed_basics, _basics_inputs),
    "qr": (qr_tracing, qr_native, lambda rng: [_rand(rng, 7, 5)]),
    "mandelbrot": (mandelbrot_tracing, mandelbrot_native, lambda rng: list(_mandelbrot_grid())),
    "mandelbrot_function_form": (mandelbrot_function_form, mandelbrot_native_range3,
                                 lambda rng: list(_mandelbrot_grid())),
}


@pytest.mark.parametrize("example", list(SEED_EXAMPLES))
def test_seed_example_twins_give_same_kernels_and_results(backend, rng, example):
    tracing_fn, native_fn, make_inputs = SEED_EXAMPLES[example]
    traced, native = compile_twins(tracing_fn, native_fn, example)
    assert_same_results(traced, native, *make_inputs(rng))


def test_native_mandelbrot_matches_numpy(backend):
    c_re, c_im = _mandelbrot_grid()
    z_re, z_im = tf.kernel_program(mandelbrot_native)(c_re, c_im)
    escaped = z_re.numpy ** 2 + z_im.numpy ** 2 > 256.0
    zr, zi = np.zeros_like(c_re), np.zeros_like(c_re)
    alive = np.ones(c_re.shape, bool)
    for _ in range(128):
        nr, ni = zr * zr - zi * zi + c_re, np.float32(2.0) * zr * zi + c_im
        zr, zi = np.where(alive, nr, zr), np.where(alive, ni, zi)
        alive &= ~(zr * zr + zi * zi > 256.0)
    # Escape is discontinuous in c: a contracted multiply-add may flip a boundary pixel.
    assert (escaped != ~alive).mean() < 0.01


def test_native_qr_is_a_decomposition(backend, rng):
    a = _rand(rng, 9, 6)
    q, r = outputs(tf.kernel_program(qr_native)(a))
    # Gram-Schmidt in float32 on a random 9x6 matrix: errors ~ n * eps * |A|.
    np.testing.assert_allclose(q @ r, a, atol=50 * 6 * 1.2e-7 * np.abs(a).max())
    np.testing.assert_allclose(q.T @ q, np.eye(6), atol=2e-4)


def test_design_example_tuple_assignments(backend):
    @tf.kernel_program(name="mandel")
    def mandel(c_re: tf.Arg([-1, -1], tf.float32), c_im: tf.Arg([-1, -1], tf.float32)):
        tf.assert_tensor(c_im, c_re.shape)  # works around a hang when widening n (see the report)
        z_re, z_im, n = 0.0, 0.0, 0.0
        for _ in range(128):
            z_re, z_im = z_re*z_re - z_im*z_im + c_re, 2.0*z_re*z_im + c_im
            n += 1.0
            if z_re*z_re + z_im*z_im > 256.0:
                break
        return n
    assert mandel.name == "mandel"
    c_re, c_im = _mandelbrot_grid()
    zr, zi = np.zeros_like(c_re), np.zeros_like(c_re)
    count = np.zeros(c_re.shape, np.float32)
    alive = np.ones(c_re.shape, bool)
    for _ in range(128):
        nr, ni = zr * zr - zi * zi + c_re, np.float32(2.0) * zr * zi + c_im
        zr, zi = np.where(alive, nr, zr), np.where(alive, ni, zi)
        count += alive
        alive &= ~(zr * zr + zi * zi > 256.0)
    assert (mandel(c_re, c_im).numpy != count).mean() < 0.01


# -- control flow ------------------------------------------------------------------------------


def test_nested_while_true_with_breaks(backend):
    @tf.kernel_program
    def collatz(a: tf.Arg([-1], tf.int32)):
        x = a
        steps = 0
        while True:
            if x <= 1:
                break
            while True:  # a nested loop left by its own break: divide out the twos
                if x % 2 != 0:
                    break
                x = x // 2
                steps += 1
            if x > 1:
                x = 3 * x + 1
                steps += 1
        return steps, x

    def steps(v):
        s = 0
        while v > 1:
            v, s = (v // 2 if v % 2 == 0 else 3 * v + 1), s + 1
        return s
    a = np.array([1, 2, 3, 6, 7, 27], np.int32)
    got_steps, got_x = outputs(collatz(a))
    np.testing.assert_array_equal(got_steps, [steps(int(v)) for v in a])
    np.testing.assert_array_equal(got_x, np.ones(6))


def test_continue_in_nested_ifs_zero_trips_and_negative_steps(backend):
    @tf.kernel_program
    def program(a: tf.Arg([-1], tf.int32), bound: tf.Arg([1], tf.int32)):
        s = 0
        for k in range(bound[0]):  # a bound read from a tensor; 0 runs no iteration
            if k % 2 == 0:
                if a > k:
                    continue
                s += 100
            s += k
        t = 0
        for k in range(10, a.shape[0] - 3, -3):  # a negative step, an end from a shape
            t = t * 10 + k
        return s, t

    def reference(v, n):
        s = 0
        for k in range(n):
            if k % 2 == 0:
                if v > k:
                    continue
                s += 100
            s += k
        return s
    a = np.array([0, 3, 10], np.int32)
    for n in (6, 0):
        s, t = outputs(program(a, np.array([n], np.int32)))
        np.testing.assert_array_equal(s, [reference(int(v), n) for v in a])
        assert t == 10741


def test_loop_carried_tuples_swaps_and_aliases(backend):
    @tf.kernel_program
    def program(count: tf.Arg([1], tf.int32), c: tf.Arg([-1], tf.float32)):
        a, b = 0, 1
        for _ in range(count[0]):
            a, b = b, a + b
        x, y = c, 2.0 * c
        for _ in range(3):
            x, y = y, x  # a swap: the second value is x before the first assignment
        z, d = c, 0.0
        for _ in range(3):
            old = z  # another name for z's value: it keeps the old value
            if c > 0.0:
                z = z * 2.0
            d = d + (z - old)
        return a, x, y, z, d
    c = np.array([-1.0, 0.5, 2.0], np.float32)
    a, x, y, z, d = outputs(program(np.array([10], np.int32), c))
    assert a == 55
    np.testing.assert_array_equal(x, 2 * c)
    np.testing.assert_array_equal(y, c)
    np.testing.assert_array_equal(z, np.where(c > 0, 8 * c, c))
    np.testing.assert_array_equal(d, np.where(c > 0, 7 * c, 0))


def test_branches_expressions_and_python_loops(backend):
    @tf.kernel_program
    def program(x: tf.Arg([-1], tf.float32)):
        if x < 0.0:
            y, kind = -x, 0  # no value before the if: every branch gives one
        elif x < 1.0:
            y = x * 2.0
            kind = 1
        else:
            y = x * 6.0
            kind = 2
        z = x if x > 0.5 else 0.0
        inside = 0 < x < 2 and not (x == 1.0)
        outside = x < -1.0 or x > 3.0
        acc = 0.0
        for w in WEIGHTS:  # Python loops unroll
            acc += w * x
        for i, (w, v) in enumerate(zip(WEIGHTS, (1.0, 2.0, 3.0))):
            acc = acc + i * w * v
        for i in tf.static_range(2):
            acc = acc + WEIGHTS[i]
        i = 0
        while i < 2:  # a Python condition: a Python loop
            acc = acc + 1.0
            i += 1
        m = x
        while m > 0.1:  # a tensor condition: a loop in the program
            m = m * 0.5
        return y, kind, z, tf.int(inside), tf.int(outside), acc, m
    x = np.array([-2.0, -0.5, 0.3, 0.7, 1.0, 1.5, 4.0], np.float32)
    y, kind, z, inside, outside, acc, m = outputs(program(x))
    np.testing.assert_array_equal(y, np.where(x < 0, -x, np.where(x < 1, 2 * x, 6 * x)))
    np.testing.assert_array_equal(kind, np.where(x < 0, 0, np.where(x < 1, 1, 2)))
    np.testing.assert_array_equal(z, np.where(x > 0.5, x, 0))
    np.testing.assert_array_equal(inside, (0 < x) & (x < 2) & (x != 1))
    np.testing.assert_array_equal(outside, (x < -1) | (x > 3))
    # a few float32 operations on values below 20: a few ulp.
    np.testing.assert_allclose(acc, x * 2.75 + (0.25 * 2 + 2.0 * 6) + 0.75 + 2.0, rtol=1e-6)
    want_m = x.copy()
    for _ in range(10):
        want_m = np.where(want_m > 0.1, want_m * np.float32(0.5), want_m)
    np.testing.assert_array_equal(m, want_m)


def _make_scaled(power, python_flag):
    """A kernel program whose closure holds compile-time constants."""
    def scaled(x: tf.Arg([-1], tf.float32)):
        r = x
        for _ in tf.static_range(power - 1):
            r = r * x
        if python_flag:  # a Python condition: only one branch is traced
            r = r + 1.0
        return r
    return tf.kernel_program(scaled)


def test_closures_and_python_conditions_are_compile_time(backend):
    x = np.array([1.0, 2.0, 3.0], np.float32)
    cube = _make_scaled(3, False)
    square_plus = _make_scaled(2, True)
    np.testing.assert_array_equal(cube(x).numpy, x ** 3)
    np.testing.assert_array_equal(square_plus(x).numpy, x ** 2 + 1)
    assert "if(" not in cube.list_operations(traced=True)


def _twice(v):
    total = v
    for _ in tf.static_range(1):
        total = total + v
    return total


def _scale_then_clamp(v, s):
    out = _twice(v) * s  # a helper calling a helper
    if out > 10.0:  # a tensor if inside a helper
        out = 10.0
    return out


def test_helpers_calling_helpers_are_rewritten_once(backend):
    @tf.kernel_program
    def program(x: tf.Arg([-1], tf.float32)):
        a = _scale_then_clamp(x, 3.0)
        b = _scale_then_clamp(x, 1.0)
        return a, b
    x = np.array([0.5, 1.0, 2.0], np.float32)
    a, b = outputs(program(x))
    np.testing.assert_array_equal(a, np.minimum(6 * x, 10))
    np.testing.assert_array_equal(b, 2 * x)
    assert ast_function.compile_function(_twice) is ast_function.compile_function(_twice)  # cached
    source = program.transformed_source
    assert "_tf_rt.call(_scale_then_clamp, x, 3.0)" in source
    assert "def _scale_then_clamp" in source and "def _twice" in source


def test_scatter_histogram_and_augmented_subscripts(backend):
    calls = []

    def first_bin():
        calls.append(1)
        return 0

    @tf.kernel_program
    def program(values: tf.Arg([-1], tf.int32), bins: tf.Arg([-1], tf.float32)):
        counts = tf.zeros(bins.shape, tf.int32)
        i, = values.indices
        tf.scatterAdd(counts[values[i]], 1)  # duplicate indices add up
        b = bins * 1.0
        for k in range(3):
            b[k] += 1.0  # a load, an add and a store
        b[first_bin()] *= 10.0  # the index is evaluated once
        return counts, b
    values = np.array([0, 1, 1, 3, 3, 3, 3], np.int32)
    counts, b = outputs(program(values, np.full(5, 2.0, np.float32)))
    np.testing.assert_array_equal(counts, np.bincount(values, minlength=5))
    np.testing.assert_array_equal(b, [30.0, 3.0, 3.0, 2.0, 2.0])
    assert calls == [1]


def test_a_python_number_becomes_a_tensor_and_tf_input_style(backend):
    @tf.kernel_program
    def program():
        a = tf.input([-1], tf.float32)
        total = 0.0
        for k in range(a.shape[0]):
            total = total + a[k]
        return total
    a = np.arange(5, dtype=np.float32)
    assert program(a).numpy == 10.0
    assert "_tf_l1.range(a.shape[0])" in program.transformed_source


def _doubled(x, n):
    """A recursive helper: the depth is a Python int, so the recursion unrolls while tracing."""
    return x if n == 0 else _doubled(x * 2.0, n - 1)


def test_recursive_helper_with_a_python_depth(backend):
    @tf.kernel_program
    def program(x: tf.Arg([-1], tf.float32)):
        return _doubled(x, 3) + _doubled(x, 0)
    x = np.array([1.0, -2.0, 0.5], np.float32)
    np.testing.assert_array_equal(program(x).numpy, x * 9)
