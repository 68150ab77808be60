"""A @tf.kernel_program means what its Python means (issue 27, items B and E, and integer
``/`` and ``%``): Python's builtins on tensors, variables first assigned in a loop, a Python
int variable that is given a float, print and assert when the program runs, true division
and a remainder with the sign of the divisor. Every program is written as a user writes it
and compared with the same code run by plain Python / numpy on the same inputs; tf.compile
programs keep upstream's C semantics."""

import functools

import numpy as np
import pytest

import tensorfrost as tf
from tensorfrost.ast_frontend import KernelProgramError
from tensorfrost.ir.errors import RuntimeCheckError

LO, HI = -1.0, 1.0
WEIGHTS = [0.25, 0.5, 0.25]
ROWS = 4


def outputs(result):
    return [t.numpy for t in result] if isinstance(result, (list, tuple)) else [result.numpy]


def _clamp_helper(x, lo, hi):
    return max(min(x, hi), lo)  # a helper of the user's: rewritten like the program


def _mean_of(a, b):
    return (a + b) / 2  # ints meet /: a float, in a helper too


# -- B: builtins on tensors --------------------------------------------------------------------------


def test_edit_distance_with_min(backend):
    """The DP table of Levenshtein's distance: ``nd = min(nd, d[i - 1, j] + 1)``."""
    @tf.kernel_program
    def edit_distance(a: tf.Arg([-1], tf.int32), b: tf.Arg([-1], tf.int32)):
        n, m = a.shape[0], b.shape[0]
        d = tf.zeros([n + 1, m + 1], tf.int32)
        i, = tf.indices([n + 1])
        d[i, 0] = i
        j, = tf.indices([m + 1])
        d[0, j] = j
        for i in range(1, n + 1):
            for j in range(1, m + 1):
                nd = d[i - 1, j - 1] + (0 if a[i - 1] == b[j - 1] else 1)
                nd = min(nd, d[i - 1, j] + 1)
                nd = min(nd, d[i, j - 1] + 1)
                d[i, j] = nd
        return d

    def reference(a, b):
        d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
        for i in range(len(a) + 1):
            d[i][0] = i
        for j in range(len(b) + 1):
            d[0][j] = j
        for i in range(1, len(a) + 1):
            for j in range(1, len(b) + 1):
                nd = d[i - 1][j - 1] + (0 if a[i - 1] == b[j - 1] else 1)
                d[i][j] = min(nd, d[i - 1][j] + 1, d[i][j - 1] + 1)
        return np.array(d, np.int32)

    for a, b in (("kitten", "sitting"), ("flaw", "lawn"), ("", "abc")):
        a_codes, b_codes = (np.frombuffer(s.encode(), np.uint8).astype(np.int32) for s in (a, b))
        np.testing.assert_array_equal(edit_distance(a_codes, b_codes).numpy, reference(a, b))


def test_clamp_with_min_and_max_of_numbers_tensors_and_a_helper(backend, rng):
    @tf.kernel_program
    def clamp(x: tf.Arg([-1], tf.float32), lo: tf.Arg([-1], tf.float32)):
        return max(min(x, HI), LO), max(min(x, 0.5), lo), _clamp_helper(x, lo, HI), min(x, lo, 0.0, HI)

    x = rng.uniform(-2, 2, 50).astype(np.float32)
    lo = rng.uniform(-1, 0, 50).astype(np.float32)
    got = outputs(clamp(x, lo))
    want = [np.array([max(min(v, HI), LO) for v in x], np.float32),
            np.array([max(min(v, 0.5), w) for v, w in zip(x, lo)], np.float32),
            np.array([max(min(v, HI), w) for v, w in zip(x, lo)], np.float32),
            np.array([min(v, w, 0.0, HI) for v, w in zip(x, lo)], np.float32)]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_min_max_sum_of_a_list_a_generator_and_a_tensor(backend, rng):
    """Over a static list or a generator: elementwise; of one tensor: over its first axis
    (what iterating it gives), a scalar for a 1-D tensor."""
    @tf.kernel_program
    def stats(m: tf.Arg([ROWS, -1], tf.float32), v: tf.Arg([-1], tf.float32)):
        rows = [m[k, :] for k in range(ROWS)]
        smooth = sum(w * m[k, :] for k, w in enumerate(WEIGHTS))
        return max(rows), min(rows), sum(rows), smooth, max(m), min(v), max(v), sum(v), sum(v, 1.0)

    m = rng.standard_normal((ROWS, 6)).astype(np.float32)
    v = rng.standard_normal(9).astype(np.float32)
    got = outputs(stats(m, v))
    rows = list(m)
    want = [functools.reduce(np.maximum, rows), functools.reduce(np.minimum, rows), sum(rows),
            sum(w * m[k] for k, w in enumerate(WEIGHTS)), functools.reduce(np.maximum, rows),
            min(v), max(v), np.sum(v), np.sum(v) + 1.0]
    for g, w in zip(got[:5], want[:5]):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)
    assert got[5].shape == () and got[5] == want[5] and got[6] == want[6]
    np.testing.assert_allclose(got[7:], want[7:], rtol=1e-5)  # float32 sums of 9 terms


def test_round_abs_divmod_pow_and_conversions(backend):
    @tf.kernel_program
    def numbers(x: tf.Arg([-1], tf.float32), k: tf.Arg([-1], tf.int32)):
        return (round(x), round(x, 1), abs(x), abs(k), *divmod(k, 3), *divmod(k, -4), pow(x, 2), pow(2.0, x),
                float(k) * 0.5, int(x), bool(k), round(k))

    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4999, -3.75, 7.0], np.float32)
    k = np.array([-7, -6, -1, 0, 1, 5, 6, 7, 100], np.int32)
    got = outputs(numbers(x, k))
    (r, r1, ax, ak, q3, r3, q4, r4, sq, p2, half, tr, nz, rk) = got
    py_x = [float(v) for v in x]
    assert r.dtype == np.int32  # Python's round of a float is an int
    np.testing.assert_array_equal(r, [round(v) for v in py_x])  # half to even
    np.testing.assert_allclose(r1, [round(v, 1) for v in py_x], atol=1e-6)
    np.testing.assert_array_equal(ax, np.abs(x))
    np.testing.assert_array_equal(ak, np.abs(k))
    np.testing.assert_array_equal(np.stack([q3, r3]), np.array([divmod(int(v), 3) for v in k]).T)
    np.testing.assert_array_equal(np.stack([q4, r4]), np.array([divmod(int(v), -4) for v in k]).T)
    np.testing.assert_array_equal(sq, x * x)
    np.testing.assert_allclose(p2, np.power(np.float32(2), x), rtol=1e-6)
    np.testing.assert_array_equal(half, k.astype(np.float32) * 0.5)
    assert tr.dtype == np.int32 and nz.dtype == np.bool_ and rk.dtype == np.int32
    np.testing.assert_array_equal(tr, [int(v) for v in py_x])  # toward zero
    np.testing.assert_array_equal(nz, [bool(v) for v in k])
    np.testing.assert_array_equal(rk, k)


def test_builtins_of_python_values_stay_python(backend):
    """Plain Python values keep Python's builtins: sizes and loop counts at trace time."""
    width = 2.5

    @tf.kernel_program
    def sized(x: tf.Arg([-1], tf.float32)):
        out = tf.zeros([min(len(WEIGHTS), 2) + round(width)])  # round(2.5) == 2: a Python int
        i, = out.indices
        out[i] = x[i] * max(WEIGHTS) + sum(WEIGHTS) + abs(-3) + int("4") + float(divmod(7, 2)[1])
        return out

    x = np.arange(6, dtype=np.float32)
    got = sized(x).numpy
    assert got.shape == (4,)
    np.testing.assert_array_equal(got, x[:4] * 0.5 + 1.0 + 3 + 4 + 1.0)


def test_builtins_keep_python_errors_and_refuse_what_has_no_tensor_meaning(backend):
    def keyed(x: tf.Arg([-1], tf.float32)):
        return min(x, x * 2.0, key=abs)

    def modular(x: tf.Arg([-1], tf.int32)):
        return pow(x, 3, 7)

    with pytest.raises(tf.TraceError, match=r"key=\.\.\.\) of tensors is not supported(.|\n)*key=abs"):
        tf.kernel_program(keyed)
    with pytest.raises(tf.TraceError, match=r"pow\(base, exp, mod\) of tensors(.|\n)*pow\(x, 3, 7\)"):
        tf.kernel_program(modular)


# -- E: scoping and typing ----------------------------------------------------------------------------


def test_a_variable_first_assigned_in_a_loop_is_read_after_it(backend, rng):
    """Its value after the last trip, as in Python and Numba; after no trip, the zero of its
    dtype (Python would raise UnboundLocalError)."""
    @tf.kernel_program
    def last_positive_magnitude(a: tf.Arg([-1], tf.float32), n: tf.Arg([], tf.int32)):
        for k in range(n):
            if a[k] > 0.0:
                y = a[k]  # both branches assign: no value needed before the loop
            else:
                y = -a[k]
            scaled = y * 2.0
        return y, scaled

    a = rng.standard_normal(8).astype(np.float32)
    for n in (8, 3):
        y, scaled = outputs(last_positive_magnitude(a, np.int32(n)))
        assert y == abs(a[n - 1]) and scaled == 2 * abs(a[n - 1])
    y, scaled = outputs(last_positive_magnitude(a, np.int32(0)))
    assert y == 0.0 and scaled == 0.0


def test_first_assignments_in_nested_loops_and_in_a_while(backend, rng):
    @tf.kernel_program
    def nested(a: tf.Arg([-1], tf.float32)):
        for k in range(3):
            for m in range(2):
                inner = a * (k * 2 + m)
            outer = inner + 1.0
        steps = 0
        x = a * 1.0
        while x < 100.0:  # per element
            doubled = x * 2.0
            x = doubled
            steps += 1
        return outer, inner, doubled, steps

    a = np.abs(rng.standard_normal(5)).astype(np.float32) + 1.0
    outer, inner, doubled, steps = outputs(nested(a))
    np.testing.assert_array_equal(inner, a * 5)
    np.testing.assert_array_equal(outer, a * 5 + 1.0)
    for v, d, count in zip(a, doubled, steps):
        trips = 0
        while v < 100.0:
            v, trips = v * 2.0, trips + 1
        assert d == v and count == trips
    assert steps.dtype == np.int32


def test_a_python_int_variable_given_a_float_becomes_float32(backend, rng):
    """``total = 0`` then ``total += x * 0.5`` (Numba and Taichi promote the variable)."""
    @tf.kernel_program
    def weighted(x: tf.Arg([-1], tf.float32), n: tf.Arg([], tf.int32)):
        total = 0
        for _ in range(n):
            total += x * 0.5
        best = 0
        for k in range(x.shape[0]):
            if x[k] > best:  # read as an int first: traced again with it float32 from its creation
                best = x[k]
        y = 0
        if x[0] > 0.0:
            y = x * 2.0
        count = 0
        for k in range(x.shape[0]):
            if x[k] > 0.0:
                count += 1  # only ints: stays int32
        return total, best, y, count

    for x in (rng.standard_normal(7).astype(np.float32), -np.abs(rng.standard_normal(7)).astype(np.float32)):
        total, best, y, count = outputs(weighted(x, np.int32(3)))
        assert total.dtype == best.dtype == y.dtype == np.float32 and count.dtype == np.int32
        np.testing.assert_allclose(total, x * 0.5 * 3, rtol=1e-6)
        assert best == max(0.0, *x.tolist())
        np.testing.assert_array_equal(y, x * 2.0 if x[0] > 0 else np.zeros_like(x))
        assert count == int(np.sum(x > 0))


def test_a_scalar_variable_read_through_a_conversion_sees_its_updates(backend):
    """An int32 scalar variable read by an op of another dtype was converted once, at its
    starting value, so the loop's updates were lost (in both front ends)."""
    def tracing_style():
        a = tf.input([-1], tf.float32)
        x = tf.const(0)
        with tf.loop(3):
            x.val = x + 1.5  # C: x = int(x + 1.5): 1, 2, 3
        return [a + tf.float(x)]

    @tf.kernel_program
    def total_of(a: tf.Arg([-1], tf.uint32)):
        total = 0
        for _ in range(3):
            total += a  # a Python int meeting uint32: a uint32 variable
        return total

    np.testing.assert_array_equal(tf.compile(tracing_style)(np.zeros(2, np.float32)).numpy, [3.0, 3.0])
    a = np.array([1, 2, 4000000000], np.uint32)
    got = total_of(a).numpy
    assert got.dtype == np.uint32
    np.testing.assert_array_equal(got, a * np.uint32(3))  # wraps as uint32


def test_an_int_variable_divided_in_a_loop(backend):
    @tf.kernel_program
    def halves(x: tf.Arg([-1], tf.float32)):
        v = 7
        for _ in range(2):
            v /= 2  # Python: 7 / 2 / 2 == 1.75
        return x * 0.0 + v

    np.testing.assert_array_equal(halves(np.zeros(3, np.float32)).numpy, [1.75] * 3)


def test_print_prints_tensors_after_every_run(backend, capsys):
    scale = 3

    @tf.kernel_program
    def report(x: tf.Arg([-1], tf.float32)):
        s = tf.sum(x)
        print("scale", scale)  # a Python value: printed while tracing, as Python prints it
        print("sum", s)
        print(f"mean = {s / x.shape[0]}")
        print(x * 2.0, "doubled")
        return x + 1.0

    assert capsys.readouterr().out.splitlines() == ["scale 3"]
    for x in (np.array([1.0, 2.0, 3.0], np.float32), np.array([4.0, 4.0], np.float32)):
        np.testing.assert_array_equal(report(x).numpy, x + 1.0)
        assert capsys.readouterr().out.splitlines() == [f"sum: {x.sum()}", f"mean: {x.mean()}",
                                                         f"x * 2.0 (doubled): {x * 2.0}"]


def test_print_of_a_tensor_inside_a_loop_in_the_program_is_refused(backend):
    def program(x: tf.Arg([-1], tf.float32)):
        for k in range(3):
            print(k, x)
        return x

    with pytest.raises(KernelProgramError, match="cannot be inside a loop or if that is in the program"):
        tf.kernel_program(program)


def test_assert_of_a_tensor_is_checked_when_the_program_runs(backend):
    @tf.kernel_program
    def normalized(x: tf.Arg([-1], tf.float32)):
        total = tf.sum(x)
        assert total > 0.0, "the weights must have a positive sum"
        for k in range(x.shape[0]):
            assert x[k] >= 0.0  # inside a loop in the program
        return x / total

    x = np.array([1.0, 3.0], np.float32)
    np.testing.assert_array_equal(normalized(x).numpy, x / x.sum())
    with pytest.raises(RuntimeCheckError, match=r"assertion failed: the weights must have a positive sum"
                                                r"(.|\n)*test_python_semantics.py"):
        normalized(np.array([-1.0, -3.0], np.float32))
    with pytest.raises(RuntimeCheckError, match=r"assertion failed: x\[k\] >= 0.0"):
        normalized(np.array([-1.0, 3.0], np.float32))
    np.testing.assert_array_equal(normalized(x).numpy, x / x.sum())  # it goes on working


def test_an_assert_under_per_element_control_flow_checks_the_elements_that_run_it(backend):
    @tf.kernel_program
    def grow(a: tf.Arg([-1], tf.float32)):
        x = a * 1.0
        if a > 0.0:
            assert a > 0.0, "only where the branch runs"
            x = a * 2.0
        while x < 100.0:
            assert x < 100.0, "only while the element loops"  # those that left have x >= 100
            assert x != 7.0, "no seven"
            x = x * 3.0
        return x

    def reference(v):
        x = v * 2.0 if v > 0 else v
        while x < 100.0:
            assert x != 7.0
            x = x * 3.0
        return x

    a = np.array([1.0, 60.0, 0.5], np.float32)
    np.testing.assert_array_equal(grow(a).numpy, [reference(v) for v in a])
    with pytest.raises(RuntimeCheckError, match="assertion failed: no seven"):
        grow(np.array([3.5, 200.0], np.float32))


def test_assert_of_a_python_value_fails_while_tracing(backend):
    def program(x: tf.Arg([-1], tf.float32)):
        assert len(WEIGHTS) == 2, "three weights"
        return x

    with pytest.raises(KernelProgramError, match="AssertionError: three weights"):
        tf.kernel_program(program)


# -- integer / and % ------------------------------------------------------------------------------------


def test_true_division_of_ints_gives_float32(backend):
    """``j / (width - 1)`` of int indices: a gradient from 0 to 1, not integer division."""
    width = 5

    @tf.kernel_program
    def gradient(img: tf.Arg([-1, width], tf.float32)):
        i, j = img.indices
        n = img.shape[0]
        return j / (width - 1), i / n, _mean_of(i, j), img * (j / 2)

    img = np.ones((3, width), np.float32)
    ramp, rows, mean, scaled = outputs(gradient(img))
    i, j = np.indices(img.shape)
    assert ramp.dtype == rows.dtype == mean.dtype == np.float32
    np.testing.assert_array_equal(ramp, (j / (width - 1)).astype(np.float32))
    np.testing.assert_allclose(rows, i / 3, rtol=1e-7)
    np.testing.assert_array_equal(mean, ((i + j) / 2).astype(np.float32))
    np.testing.assert_array_equal(scaled, j / 2)


def test_remainder_takes_the_sign_of_the_divisor_and_agrees_with_floor_division(backend, rng):
    @tf.kernel_program
    def wrap(k: tf.Arg([-1], tf.int32), d: tf.Arg([-1], tf.int32), x: tf.Arg([-1], tf.float32)):
        n = k.shape[0]
        i, = k.indices
        return (i - 3) % n, k % d, k // d, k % -3, x % 1.5, x % -1.5, x % d

    k = rng.integers(-50, 50, 40).astype(np.int32)
    d = rng.choice([-7, -3, -1, 1, 2, 5], 40).astype(np.int32)
    x = rng.uniform(-10, 10, 40).astype(np.float32)
    back, r, q, r3, f15, fm15, fd = outputs(wrap(k, d, x))
    i = np.arange(40)
    np.testing.assert_array_equal(back, [(int(v) - 3) % 40 for v in i])
    np.testing.assert_array_equal(r, [int(a) % int(b) for a, b in zip(k, d)])
    np.testing.assert_array_equal(q * d + r, k)  # a == (a // b) * b + a % b
    np.testing.assert_array_equal(r3, [int(a) % -3 for a in k])
    # float32 remainders: exact (fmod is exact), then + divisor where the sign differs
    np.testing.assert_allclose(f15, np.mod(x, np.float32(1.5)), atol=1e-6)
    np.testing.assert_allclose(fm15, np.mod(x, np.float32(-1.5)), atol=1e-6)
    np.testing.assert_allclose(fd, np.mod(x, d.astype(np.float32)), atol=1e-5)
    assert np.all(np.sign(fm15) <= 0) and np.all(np.sign(r3) <= 0)


def test_periodic_neighbours_with_negative_offsets(backend, rng):
    """A Game-of-Life step on a torus, with the remainder of negative indices (no `+ n`)."""
    @tf.kernel_program
    def life(board: tf.Arg([-1, -1], tf.int32)):
        n, m = board.shape
        i, j = board.indices
        count = 0
        for di in (-1, 0, 1):
            for dj in (-1, 0, 1):
                if di != 0 or dj != 0:
                    count += board[(i + di) % n, (j + dj) % m]
        return tf.select((count == 3) | ((count == 2) & (board == 1)), 1, 0)

    board = (rng.random((9, 11)) < 0.4).astype(np.int32)
    neighbours = sum(np.roll(np.roll(board, -di, 0), -dj, 1) for di in (-1, 0, 1) for dj in (-1, 0, 1)
                     if di or dj)
    want = ((neighbours == 3) | ((neighbours == 2) & (board == 1))).astype(np.int32)
    np.testing.assert_array_equal(life(board).numpy, want)


def test_augmented_division_and_remainder(backend):
    @tf.kernel_program
    def update(x: tf.Arg([-1], tf.int32)):
        i, = x.indices
        acc = tf.zeros([x.shape[0]], tf.int32)
        acc[i] = x
        acc[i] %= 4
        v = x * 1
        v %= -3
        w = x + 0
        w /= 4
        return acc, v, w

    x = np.array([-9, -4, -1, 0, 3, 10], np.int32)
    acc, v, w = outputs(update(x))
    np.testing.assert_array_equal(acc, [int(a) % 4 for a in x])
    np.testing.assert_array_equal(v, [int(a) % -3 for a in x])
    np.testing.assert_array_equal(w, x / 4)


def test_vectors_divide_per_component(backend):
    @tf.kernel_program
    def uv(img: tf.Arg([-1, -1], tf.float32)):
        i, j = img.indices
        p = tf.vec(i, j) / 2
        q = tf.vec(i - 2, j) % 3
        return p.x, p.y, q.x

    px, py, qx = outputs(uv(np.zeros((4, 3), np.float32)))
    i, j = np.indices((4, 3))
    np.testing.assert_array_equal(px, i / 2)
    np.testing.assert_array_equal(py, j / 2)
    np.testing.assert_array_equal(qx, (i - 2) % 3)


def test_python_numbers_keep_pythons_operators(backend):
    @tf.kernel_program
    def scaled(x: tf.Arg([-1], tf.float32)):
        n = len(WEIGHTS)
        steps = 7 // 2 + 7 % -3  # Python ints: 3 + (-2)
        return x * (1 / 4) + steps + n % 2 + float("%d" % n)  # noqa: UP031 (a str % stays Python's)

    x = np.array([4.0, 8.0], np.float32)
    np.testing.assert_array_equal(scaled(x).numpy, x * 0.25 + 1 + 1 + 3.0)


def test_tf_compile_keeps_c_semantics(backend):
    """Upstream's programs (tf.compile with tf.input) are unchanged: `/` of ints truncates
    and `%` takes the sign of the dividend."""
    def program():
        k = tf.input([-1], tf.int32)
        return [k / 4, k % 4, k // 4]

    k = np.array([-9, -4, -1, 0, 3, 10], np.int32)
    div, rem, floor = outputs(tf.compile(program)(k))
    np.testing.assert_array_equal(div, np.trunc(k / 4).astype(np.int32))
    np.testing.assert_array_equal(rem, np.fmod(k, 4))
    np.testing.assert_array_equal(floor, k // 4)


def test_library_code_keeps_c_semantics_inside_a_kernel_program(backend):
    """tensorfrost's own functions are not rewritten: the same results in both front ends."""
    def tracing_style():
        flat = tf.input([-1], tf.int32)
        return list(tf.indices_from_flat_index(flat, [3, 4]))

    @tf.kernel_program
    def native(flat: tf.Arg([-1], tf.int32)):
        return tuple(tf.indices_from_flat_index(flat, [3, 4]))

    flat = np.array([-7, -1, 0, 5, 11], np.int32)
    for a, b in zip(outputs(tf.compile(tracing_style)(flat)), outputs(native(flat))):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(outputs(native(flat))[1], np.fmod(flat, 4))  # C's remainder there


def test_a_float_where_an_integer_must_be_suggests_floor_division(backend):
    def index(a: tf.Arg([-1], tf.float32)):
        i, = a.indices
        return a[i / 2]

    def size(a: tf.Arg([-1], tf.float32)):
        return tf.zeros([a.shape[0] / 2])

    def bound(a: tf.Arg([-1], tf.float32)):
        s = 0.0
        for k in range(a.shape[0] / 2):
            s += a[k]
        return s

    for program, error in ((index, tf.DTypeError), (size, tf.ShapeError), (bound, KernelProgramError)):
        with pytest.raises(error, match=r"use // for an integer quotient \(in a @tf.kernel_program, / gives a "
                                        r"float\)(.|\n)*test_python_semantics.py"):
            tf.kernel_program(program)
