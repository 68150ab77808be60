"""Tensors outside programs act as arrays (eager.py): operators with tensors, numpy arrays and
Python numbers, numpy's ufuncs, indexing, conversions, printing and pickling, against numpy
on every backend. The operations are the traced ones, so results are those of a program:
exact for integer and comparison results, float32 rounding (rtol 1e-6) for float arithmetic
and a few ulp (rtol 1e-5) for transcendental functions."""

import copy
import operator
import pickle

import numpy as np
import pytest

import tensorfrost as tf
from tensorfrost import eager_programs

RNG = np.random.default_rng(3)
A = RNG.uniform(-2, 2, (3, 4)).astype(np.float32)
B = RNG.uniform(0.5, 2, (3, 4)).astype(np.float32)
I = RNG.integers(-9, 9, (3, 4)).astype(np.int32)  # noqa: E741 (beside A and B)


def same(got, want, rtol=1e-6):
    assert isinstance(got, tf.TensorMemory), type(got)
    want = np.asarray(want)
    assert got.numpy.dtype == want.dtype, (got.numpy.dtype, want.dtype)
    assert tuple(got.shape) == want.shape
    np.testing.assert_allclose(got.numpy, want, rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "truediv", "pow"])
def test_float_arithmetic_with_tensors_arrays_and_numbers(backend, op):
    f = getattr(operator, op)
    a, b = tf.tensor(A), tf.tensor(B)
    with np.errstate(invalid="ignore"):  # (a negative number to a fractional power is NaN in both)
        same(f(a, b), f(A, B).astype(np.float32), rtol=2e-6)
        same(f(b, 2), f(B, np.float32(2)))  # a Python number is weak: the result stays float32
        same(f(2.5, b), f(np.float32(2.5), B))
        same(f(a, B[:1]), f(A, B[:1]))  # broadcasting a size-1 axis, either operand a numpy array
        same(f(B[:, :1], b), f(B[:, :1], B))


@pytest.mark.parametrize("op", ["add", "sub", "mul", "floordiv", "mod", "and_", "or_", "xor"])
def test_integer_arithmetic_is_exact(backend, op):
    f = getattr(operator, op)
    divisor = np.where(I == 0, 3, I).astype(np.int32)
    i, d = tf.tensor(I), tf.tensor(divisor)
    same(f(i, d), f(I, divisor))
    same(f(i, 4), f(I, np.int32(4)))
    same(f(7, d), f(np.int32(7), divisor))


def test_dtypes_follow_the_programs_rules(backend):
    i = tf.tensor(I)
    same(i / 2, I.astype(np.float32) / np.float32(2))  # / of integers is float32, as in programs
    same(i + 1.5, I.astype(np.float32) + np.float32(1.5))  # a float meets an int tensor as float32
    same(i << 2, I << 2)
    same(-i, -I)
    same(~i, ~I)
    same(abs(i), np.abs(I))
    same(tf.tensor(A).astype(tf.int32), A.astype(np.int32))  # truncation toward zero, as numpy
    with pytest.raises(tf.DTypeError, match="does not fit in tf.int8"):
        _ = tf.tensor(np.int8([1, 2])) + 1000


def test_comparisons_give_bool_tensors(backend):
    a, b = tf.tensor(A), tf.tensor(B)
    for op in (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne):
        same(op(a, b), op(A, B))
        same(op(a, 0.5), op(A, np.float32(0.5)))
        same(op(0.5, a), op(np.float32(0.5), A))  # Python reflects it to the tensor's method
    assert (a == None) is False and (a != "x") is True  # noqa: E711 (what numpy does for other types)
    assert bool(tf.tensor(np.float32([3])) > 2) and not bool(tf.tensor(np.float32([1])) > 2)
    with pytest.raises(tf.TensorFrostError, match="truth value of a tensor of 12 elements is ambiguous"):
        bool(a > 0)


def test_matmul_transpose_and_broadcast_errors(backend):
    a, b = tf.tensor(A), tf.tensor(B)
    same(a @ b.T, A @ B.T, rtol=1e-5)
    same(A @ b.T, A @ B.T, rtol=1e-5)  # numpy's operator defers to the tensor's
    cube = RNG.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    same(tf.tensor(cube).T, cube.T)
    assert tf.tensor(A[0]).T.shape == (4,)
    with pytest.raises(tf.ShapeError, match=r"shapes \[3, 4\] and \[5\] do not broadcast"):
        _ = a + np.ones(5, np.float32)


def test_numpy_ufuncs_and_functions_accept_tensors(backend):
    a = tf.tensor(A)
    same(np.sin(a), np.sin(A), rtol=1e-5)
    same(np.maximum(a, 0.0), np.maximum(A, np.float32(0)))
    same(np.add(B, a), B + A)
    assert np.asarray(a).dtype == np.float32 and np.array_equal(np.asarray(a), A)
    np.testing.assert_allclose(np.sum(a), A.sum(), rtol=1e-6)  # other numpy functions read the values
    np.testing.assert_allclose(np.add.reduce(a, axis=0), A.sum(0), rtol=1e-6)
    with pytest.raises(TypeError, match="a tensor cannot be its out="):
        np.sin(A, out=a)


def test_indexing_and_python_conversions(backend):
    a, i = tf.tensor(A), tf.tensor(I)
    same(a[1], A[1])
    same(a[1:, ::2], A[1:, ::2])
    same(a[A > 0], A[A > 0])
    same(a[-1, 2], A[-1, 2])
    assert len(a) == 3 and a.tolist() == A.tolist()
    assert float(a[2, 3]) == float(A[2, 3]) and a[2, 3].item() == A[2, 3].item()
    assert int(i[0, 1]) == int(I[0, 1]) and [10, 20, 30][tf.tensor(np.int32([2]))] == 30
    with pytest.raises(TypeError, match=r"only a tensor of one element .* shape \[3, 4\]"):
        float(a)
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(tf.tensor(np.float32(1)))


def test_repr_shows_values_dtype_shape_and_backend(backend):
    text = repr(tf.tensor(np.arange(6, dtype=np.float32).reshape(2, 3)))
    assert text.startswith("tf.tensor([[0., 1., 2.],\n           [3., 4., 5.]]")
    assert text.endswith(f"dtype=tf.float32, shape=[2, 3], backend={backend.name})") and str(text) == text
    big = str(tf.tensor(np.zeros((100, 100), np.int32)))
    assert "..." in big and len(big) < 1000 and "shape=[100, 100]" in big


def test_pickle_and_deepcopy_round_trip(backend):
    a = tf.tensor(A)
    for b in (pickle.loads(pickle.dumps(a)), copy.deepcopy(a), copy.copy(a)):
        assert b is not a and b.backend is a.backend and b.dtype is tf.float32
        np.testing.assert_array_equal(b.numpy, A)


def test_each_operation_compiles_once_per_kind(backend):
    a = tf.tensor(A)
    _ = a * 3.0 - 1.0
    before = eager_programs.COUNTS["compiled"]
    for k in range(5):  # other values and sizes of the same dtypes and ranks: no new program
        x = tf.tensor(RNG.uniform(-1, 1, (k + 2, 7)).astype(np.float32))
        same(x * 3.0 - 1.0, x.numpy * np.float32(3) - np.float32(1))
    assert eager_programs.COUNTS["compiled"] == before


def test_a_loop_written_as_with_numpy(backend):
    """What a numpy user writes: a relaxation with an early exit, outside any program."""
    x, want = tf.tensor(np.zeros(5, np.float32)), np.zeros(5, np.float32)
    target = np.arange(5, dtype=np.float32)
    steps = 0
    while float(abs(x - target).numpy.max()) > 1e-3:
        x = x + 0.5 * (target - x)
        want = want + np.float32(0.5) * (target - want)
        steps += 1
    assert steps == 12  # 4 * 0.5**12 < 1e-3 < 4 * 0.5**11
    same(x, want)


def test_program_outputs_are_tensors_of_the_same_kind(backend):
    prog = tf.compile(lambda: [tf.input([-1], tf.float32) * 2.0])
    out = prog(A[0])
    same(out + 1, A[0] * 2 + 1)
    (first,) = out  # a one-element list's output still unpacks
    assert first is out and out[0] is out


def test_what_tensors_cannot_do_outside_programs_says_what_to_do_instead():
    t = tf.tensor(np.arange(4, dtype=np.float32))
    with pytest.raises(TypeError, match=r"change only inside programs: make a new one \(tf.tensor"):
        t[0] = 5.0
    with pytest.raises(AttributeError, match=r"no \.cumsum\(\) outside programs: use its values, t.numpy.cumsum"):
        t.cumsum()
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        t.no_such_name  # noqa: B018
    assert np.asarray(t).cumsum().tolist() == [0.0, 1.0, 3.0, 6.0]  # (numpy's on the values)


def test_an_operation_compiled_before_debug_mode_is_checked_in_it():
    """The cached program of an operation is one per build: one compiled before
    tf.initialize(..., debug="nan") is not reused in debug mode (nor after it)."""
    t = tf.tensor(np.zeros(3, np.float32))
    assert np.isnan((t / t).numpy).all()
    tf.initialize(tf.cpu, debug="nan")
    try:
        with pytest.raises(tf.DebugNanError, match="NaN or Inf"):
            t / t
        g = tf.random.Generator(3)
        np.testing.assert_array_equal(g.rand([4]).numpy, tf.random.Generator(3).rand([4]).numpy)
    finally:
        tf.initialize(tf.cpu)
    assert np.isnan((t / t).numpy).all()
