"""Integer semantics on every backend: int32 arithmetic wraps as numpy's int32 does, wherever
it is computed (data values, index arithmetic, host scalars, loop counters); shifts, ``//``,
``%`` and division by 0 follow the op table's references; a variable that starts as a Python
int takes uint32 from what is assigned to it; sizes computed on the host are checked as the
numbers they stand for (issue 26, items 3, 6 and 10)."""

import numpy as np
import pytest

import tensorfrost as tf
from tensorfrost.ir.errors import RuntimeCheckError

I32_MIN, I32_MAX = np.iinfo(np.int32).min, np.iinfo(np.int32).max
N = 37  # elements of the index tests: more than one vector of lanes, not a multiple of one


def _wrapped(fn, *arrays):
    with np.errstate(all="ignore"):
        return fn(*arrays)


# -- item 10: int32 arithmetic on indices wraps (C++ signed overflow is undefined) -------------


def test_index_product_that_overflows_wraps(backend):
    """g++ took ``j * 2**30`` for arithmetic that cannot overflow, concluded that j < 2 and
    stopped the whole loop after 4 elements (the float output was garbage too)."""
    def program():
        x = tf.input([-1], tf.float32)
        j, = x.indices
        return [x * 2.0, (j * 1073741824) >> 30]

    x = np.arange(N, dtype=np.float32)
    doubled, shifted = tf.compile(program)(x)
    np.testing.assert_array_equal(doubled.numpy, x * 2.0)
    j = np.arange(N, dtype=np.int32)
    np.testing.assert_array_equal(shifted.numpy, _wrapped(lambda: (j * np.int32(1073741824)) >> 30))


def test_comparison_of_index_hashes_is_a_bool(backend):
    """A comparison of two overflowing index products gave values outside {0, 1}."""
    def program():
        x = tf.input([-1, -1], tf.float32)
        i, j = x.indices
        return [tf.select((i * 1103515245) > (j * 1103515245), 1, 0)]

    got = tf.compile(program)(np.zeros((N, 9), np.float32)).numpy
    i, j = np.meshgrid(np.arange(N, dtype=np.int32), np.arange(9, dtype=np.int32), indexing="ij")
    want = _wrapped(lambda: (i * np.int32(1103515245)) > (j * np.int32(1103515245))).astype(np.int32)
    np.testing.assert_array_equal(got, want)


def test_arithmetic_on_a_variable_is_not_folded(backend):
    """``(acc * 4) // 4`` of a variable was folded to ``acc`` (a variable's constant start
    was taken for index arithmetic, which cannot overflow)."""
    def program():
        x = tf.input([-1], tf.int32)
        acc = tf.zeros([x.shape[0]], tf.int32)
        acc.val = x * 1
        return [(acc * 4) // 4]

    x = np.array([2**30, 2**29 + 3, -2**30 - 5, 7, I32_MAX, I32_MIN], np.int32)
    np.testing.assert_array_equal(tf.compile(program)(x).numpy, _wrapped(lambda: (x * np.int32(4)) // 4))


def test_variable_index_is_clamped(backend):
    """A variable that starts as a constant and counts past the end of a buffer is an index
    like any other: clamped to the buffer (it was read unclamped, out of bounds)."""
    def program():
        x = tf.input([3], tf.float32)
        out = tf.zeros([4], tf.float32)
        i, = out.indices
        k = tf.const(0)
        acc = tf.float(i)
        with tf.loop(8):
            acc.val = acc + x[k]
            k.val = k + 1
        out[i] = acc
        return [out]

    x = np.array([1.0, 10.0, 100.0], np.float32)
    np.testing.assert_array_equal(tf.compile(program)(x).numpy, np.arange(4) + 1.0 + 10.0 + 100.0 * 6)


@pytest.mark.parametrize(("begin", "end", "step"), [
    (0, I32_MAX, 2**30), (0, I32_MAX, I32_MAX), (5, I32_MIN, -2**30), (I32_MAX, I32_MIN, I32_MIN),
    (-3, 10, 3), (10, -3, -4), (0, 10, 0)])
def test_loop_counter_stops_at_its_end(backend, begin, end, step):
    """A counter whose last step passes INT32_MAX (or INT32_MIN) ends the loop as Python's
    range does, instead of wrapping around into more trips (the cpu loop never ended)."""
    def program():
        bounds = tf.input([3], tf.int32)
        out = tf.zeros([2], tf.int32)
        i, = out.indices
        trips = i * 0
        with tf.loop(bounds[0], bounds[1], bounds[2]):
            trips.val = trips + 1
        out[i] = trips
        return [out]

    want = len(range(begin, end, step)) if step else 0
    got = tf.compile(program)(np.array([begin, end, step], np.int32)).numpy
    np.testing.assert_array_equal(got, [want, want])


def test_loop_with_a_large_constant_step(backend):
    def program():
        bounds = tf.input([2], tf.int32)
        out = tf.zeros([2], tf.int32)
        i, = out.indices
        trips = i * 0
        with tf.loop(bounds[0], bounds[1], 2**30):
            trips.val = trips + 1
        out[i] = trips
        return [out]

    run = tf.compile(program)
    for begin, end in [(0, I32_MAX), (0, 2**30 - 1), (I32_MIN, I32_MAX), (5, 3)]:
        want = len(range(begin, end, 2**30))
        np.testing.assert_array_equal(run(np.array([begin, end], np.int32)).numpy, [want, want])


# -- the table: each op on edge values, as data, as index arithmetic and on the host ------------

def _c_division(a, b):
    """C's integer division: truncated, x / 0 is 0, INT_MIN / -1 wraps to INT_MIN."""
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    q = np.abs(a64) // np.where(b64 == 0, 1, np.abs(b64))
    return np.where(b64 == 0, 0, np.where((a64 < 0) != (b64 < 0), -q, q)).astype(a.dtype)


def _c_remainder(a, b):
    """C's remainder (the sign of the dividend); x % 0 is 0."""
    return np.where(b == 0, 0, np.fmod(a, np.where(b == 0, 1, b))).astype(a.dtype)


# (name, the operation on tensors, its numpy reference); numpy's own where it has the semantics
BINARY = [
    ("add", lambda a, b: a + b, lambda a, b: a + b),
    ("sub", lambda a, b: a - b, lambda a, b: a - b),
    ("mul", lambda a, b: a * b, lambda a, b: a * b),
    ("div", lambda a, b: a / b, _c_division),
    ("floordiv", lambda a, b: a // b, lambda a, b: a // b),  # x // 0 is 0, INT_MIN // -1 is INT_MIN
    ("mod", lambda a, b: a % b, _c_remainder),
    ("shl", lambda a, b: a << b, lambda a, b: a << (b & 31)),  # amounts modulo 32 (numpy: 0 from 32 on)
    ("shr", lambda a, b: a >> b, lambda a, b: a >> (b & 31)),
    ("min", tf.min, np.minimum),
    ("max", tf.max, np.maximum),
]
INT_EDGES = np.array([I32_MIN, I32_MIN + 1, -65537, -46341, -7, -1, 0, 1, 2, 7, 31, 32, 33, 46341, 65536,
                      1103515245, I32_MAX - 1, I32_MAX], np.int32)
UINT_EDGES = np.array([0, 1, 2, 7, 31, 32, 33, 65536, 2**31 - 1, 2**31, 2**32 - 2, 2**32 - 1], np.uint32)


@pytest.mark.parametrize("edges", [INT_EDGES, UINT_EDGES], ids=["int32", "uint32"])
def test_edge_values_as_data(backend, edges):
    a, b = (v.ravel() for v in np.meshgrid(edges, edges, indexing="ij"))
    dtype = tf.int32 if edges.dtype == np.int32 else tf.uint32

    def program():
        x = tf.input([-1], dtype)
        y = tf.input([-1], dtype)
        return [op(x, y) for _, op, _ in BINARY] + [-x]

    got = tf.compile(program)(a, b)
    for (name, _, reference), result in zip(BINARY, got):
        np.testing.assert_array_equal(result.numpy, _wrapped(reference, a, b).astype(a.dtype), err_msg=name)
    np.testing.assert_array_equal(got[-1].numpy, _wrapped(np.negative, a), err_msg="neg")


class _Numpy:
    """The functions of the index expressions below, for numpy arrays."""
    min, max, abs = np.minimum, np.maximum, np.abs
    fma = staticmethod(lambda a, b, c: a * b + c)
    clamp = staticmethod(lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi))
    shl = staticmethod(lambda a, b: a << (b & 31))
    shr = staticmethod(lambda a, b: a >> (b & 31))
    mod = staticmethod(_c_remainder)


class _Tensor:
    min, max, abs, fma, clamp = tf.min, tf.max, tf.abs, tf.fma, tf.clamp
    shl = staticmethod(lambda a, b: a << b)
    shr = staticmethod(lambda a, b: a >> b)
    mod = staticmethod(lambda a, b: a % b)


# Index arithmetic (grid indices and constants), whose ranges straddle the int32 limits: the
# cpu backend spells it as plain C++ only where it proves that it cannot overflow.
INDEX_EXPRESSIONS = [
    lambda i, f: i + 2147483630,
    lambda i, f: -2147483630 - i,
    lambda i, f: (i + 2147483600) * 3,
    lambda i, f: (i - 20) * -1103515245,
    lambda i, f: -(i * 1073741824),
    lambda i, f: i * i * i * i * i * i,
    lambda i, f: (i * 134217728) // (i - 3),
    lambda i, f: f.mod(i * 134217728, i - 3),
    lambda i, f: f.fma(i, 1103515245, 12345),
    lambda i, f: f.min(i * 100000000, 7) + f.max(i * 100000000, 7),
    lambda i, f: f.abs((i - 18) * 1000000000),
    lambda i, f: f.clamp(i * 100000000, -5, 2000000000) + 1000000000,
    lambda i, f: (i * 0 - 2147483647 - 1) // (i * 0 - 1) + f.mod(i * 0 - 2147483647 - 1, i * 0 - 1),
    lambda i, f: i // (i - i) + f.mod(i, i * 0) + 1,
    lambda i, f: f.shl(i - 18, i) + f.shr(i - 18, i) + f.shl(i, 27),
    lambda i, f: (i * 65536 + i) * 65536,
]


def test_edge_values_as_index_arithmetic(backend):
    def program():
        x = tf.input([-1], tf.float32)
        i, = x.indices
        return [expression(i, _Tensor) for expression in INDEX_EXPRESSIONS]

    got = tf.compile(program)(np.zeros(N, np.float32))
    i = np.arange(N, dtype=np.int32)
    for k, (expression, result) in enumerate(zip(INDEX_EXPRESSIONS, got)):
        np.testing.assert_array_equal(result.numpy, _wrapped(expression, i, _Numpy), err_msg=f"expression {k}")


def test_edge_values_on_the_host(backend):
    """Scalars computed on the host (from input sizes) wrap too, and reach kernels as such."""
    def program():
        x = tf.input([-1], tf.float32)
        n = x.shape[0]
        out = tf.zeros([6], tf.int32)
        i, = out.indices
        values = [n * 1103515245, n + 2147483600, -(n * 1073741824), (n * 65536) // -1, (n - n - 2147483647 - 1) // -1,
                  (n * 0 - 2147483647 - 1) % -1]
        result = i * 0
        for k, v in enumerate(values):
            result = tf.select(i == k, v, result)
        out[i] = result
        return [out]

    def numpy_values(m):
        return [m * np.int32(1103515245), m + np.int32(2147483600), -(m * np.int32(1073741824)),
                (m * np.int32(65536)) // np.int32(-1), np.int32(I32_MIN) // np.int32(-1),
                np.int32(I32_MIN) % np.int32(-1)]

    for n in (1, 65536, 65537):
        want = _wrapped(numpy_values, np.int32(n))
        got = tf.compile(program)(np.zeros(n, np.float32)).numpy
        np.testing.assert_array_equal(got, np.array(want, np.int32), err_msg=f"n = {n}")


# -- item 6: a variable that starts as a Python int is as wide as what is assigned to it --------


@tf.kernel_program
def _reverse_bits(x: tf.Arg([-1], tf.uint32)):
    r = 0
    v = x
    for _ in range(32):
        r = (r << 1) | (v & 1)
        v = v >> 1
    return r


@tf.kernel_program
def _one_step(x: tf.Arg([-1], tf.uint32)):
    r = 0
    v = x
    r = (r << 1) | (v & 1)
    return r


@tf.kernel_program
def _set_in_an_if(x: tf.Arg([-1], tf.uint32)):
    r = 0
    if x > 5:
        r = x * 2
    return r


@tf.kernel_program
def _int_counter(x: tf.Arg([-1], tf.int32)):
    count = 0
    for _ in range(3):
        count = count + x
    return count


def test_loop_variable_from_a_python_int_becomes_uint32(backend):
    x = np.array([1, 3, 2**31, 12345, 0, 2**32 - 1], np.uint32)
    out = _reverse_bits(x)
    assert out.dtype == tf.uint32 == _one_step(x).dtype
    np.testing.assert_array_equal(out.numpy, [int(f"{v:032b}"[::-1], 2) for v in x])


def test_variable_set_under_an_if_becomes_uint32(backend):
    x = np.array([1, 7, 2**31 + 3], np.uint32)
    out = _set_in_an_if(x)
    assert out.dtype == tf.uint32
    np.testing.assert_array_equal(out.numpy, np.where(x > 5, x * np.uint32(2), 0).astype(np.uint32))


def test_loop_variable_from_a_python_int_stays_int32_for_int32_values(backend):
    x = np.array([-5, 7, 2**30], np.int32)
    out = _int_counter(x)
    assert out.dtype == tf.int32
    np.testing.assert_array_equal(out.numpy, _wrapped(lambda: x * np.int32(3)))


# -- item 3: sizes computed on the host are the numbers they stand for ---------------------------


def _square():
    a = tf.input([-1], tf.float32)
    n = a.shape[0]
    return [tf.zeros([n * n])]


def _square_over_n():
    a = tf.input([-1], tf.float32)
    n = a.shape[0]
    return [tf.zeros([(n * n) // n])]


def _square_minus_square():
    a = tf.input([-1], tf.float32)
    n = a.shape[0]
    return [tf.zeros([n * n - (n * n - 5)]), tf.zeros([n * 1])]


def _square_grid():
    a = tf.input([-1], tf.float32)
    n = a.shape[0]
    out = tf.zeros([1], tf.int32)
    i, = tf.indices([n * n])
    tf.scatterAdd(out[i * 0], i * 0 + 1)
    return [out]


@pytest.mark.parametrize("n", [46341, 65536, 65537])
def test_computed_size_over_the_limit_is_an_error(backend, n):
    """``tf.zeros([N * N])`` gave shape (0,) at N = 65536 and (131073,) at 65537."""
    with pytest.raises(RuntimeCheckError, match=rf"shape \[{n * n}\] has more elements than the {I32_MAX}"):
        tf.compile(_square)(np.zeros(n, np.float32))


@pytest.mark.parametrize("n", [46341, 65536, 65537])
def test_size_computed_through_a_wrapping_product_is_an_error(backend, n):
    with pytest.raises(RuntimeCheckError, match=rf"computed through {n * n}, which does not fit in the 32-bit"):
        tf.compile(_square_over_n)(np.zeros(n, np.float32))


@pytest.mark.parametrize("n", [46341, 65536, 65537])
def test_the_interpreter_checks_computed_sizes_as_the_backends_do(n):
    tf.initialize(tf.interpreter)
    try:
        with pytest.raises(RuntimeCheckError, match=rf"shape \[{n * n}\] has more elements than the {I32_MAX}"):
            tf.compile(_square)(np.zeros(n, np.float32))
        with pytest.raises(RuntimeCheckError, match=rf"computed through {n * n}, which does not fit in the 32-bit"):
            tf.compile(_square_over_n)(np.zeros(n, np.float32))
        five, same = tf.compile(_square_minus_square)(np.zeros(n, np.float32))
        assert five.shape == (5,) and same.shape == (n,)
    finally:
        tf.initialize(tf.cpu)


def test_computed_sizes_that_fit_are_exact(backend):
    np.testing.assert_array_equal(tf.compile(_square_over_n)(np.zeros(46340, np.float32)).shape, (46340,))
    for n in (65536, 65537):
        five, same = tf.compile(_square_minus_square)(np.zeros(n, np.float32))
        assert five.shape == (5,) and same.shape == (n,)


@pytest.mark.parametrize("n", [65536, 65537])
def test_kernel_over_a_computed_size_is_checked(backend, n):
    """A kernel over ``[N * N]`` that allocates nothing of that shape ran 0 or 131073 times."""
    run = tf.compile(_square_grid)
    np.testing.assert_array_equal(run(np.zeros(300, np.float32)).numpy, [90000])
    with pytest.raises(RuntimeCheckError, match=rf"computed through {n * n}, which does not fit"):
        run(np.zeros(n, np.float32))

