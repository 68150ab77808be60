"""Bad input gets a clear error that names what was expected and what was given, points at
the user's line, and leaves everything usable."""

import os
import sys

import numpy as np
import pytest

import tensorfrost as tf


def matmul():
    A = tf.input([-1, -1], tf.float32)
    N, M = A.shape
    B = tf.input([M, -1], tf.float32)
    return A @ B


def test_wrong_argument_count(backend):
    prog = tf.compile(matmul)
    with pytest.raises(tf.ArgumentError, match=r"matmul takes 2 input\(s\) \(A, B\), got 1"):
        prog(np.zeros((2, 2), np.float32))


def test_wrong_rank(backend):
    prog = tf.compile(matmul)
    with pytest.raises(tf.ArgumentError, match=r"argument 1 \('B'\).*rank 2, got rank 1"):
        prog(np.zeros((2, 3), np.float32), np.zeros(3, np.float32))


def test_broken_shape_relation_names_input_expected_and_given(backend):
    prog = tf.compile(matmul)
    with pytest.raises(tf.RuntimeCheckError) as info:
        prog(np.zeros((2, 3), np.float32), np.zeros((4, 5), np.float32))
    message = str(info.value)
    assert "'B'" in message and "must be 3" in message and "got 4" in message
    assert "A.shape[1]" in message and "test_errors.py" in message
    # the program is still usable after a bad call
    out = prog(np.ones((2, 3), np.float32), np.ones((3, 5), np.float32))
    np.testing.assert_array_equal(out.numpy, np.full((2, 5), 3.0))


def test_fixed_dims_are_checked(backend):
    def program():
        x = tf.input([3, -1], tf.float32)
        return x * 2.0
    prog = tf.compile(program)
    with pytest.raises(tf.RuntimeCheckError, match=r"argument 0 \('x'\): shape\[0\] must be 3.*got 4"):
        prog(np.zeros((4, 2), np.float32))


def test_wrong_dtype(backend):
    prog = tf.compile(matmul)
    ints = tf.tensor(np.zeros((2, 3), np.int32))
    with pytest.raises(tf.ArgumentError, match=r"argument 0 \('A'\).*expected tf.float32, got a tf.int32"):
        prog(ints, np.zeros((3, 2), np.float32))

    def int_program():
        return tf.input([-1], tf.int32) + 1
    with pytest.raises(tf.ArgumentError, match="expected tf.int32 values, got a float64 array"):
        tf.compile(int_program)(np.zeros(3))


def test_float64_and_int64_arrays_are_converted(backend):
    def program():
        return [tf.input([-1], tf.float32) * 2.0, tf.input([-1], tf.int32) + 1]
    a, b = tf.compile(program)(np.arange(3.0), np.arange(3))
    np.testing.assert_array_equal(a.numpy, [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(b.numpy, [1, 2, 3])
    with pytest.raises(tf.ArgumentError, match="do not fit in tf.int32"):
        tf.compile(program)(np.arange(3.0), np.array([2**40]))


def test_tensor_operations_outside_a_program():
    with pytest.raises(tf.TraceError, match="only be used inside a tensor program"):
        tf.input([-1], tf.float32)
    with pytest.raises(tf.TraceError, match="only be used inside a tensor program"):
        tf.sin(1.0)


def test_trace_errors_point_at_the_users_line():
    def program():
        a = tf.input([3], tf.float32)
        b = tf.input([4], tf.float32)
        return a + b  # shapes [3] and [4] cannot broadcast
    with pytest.raises(tf.ShapeError) as info:
        tf.compile(program)
    assert "cannot broadcast" in str(info.value)
    assert f"{os.path.basename(__file__)}" in str(info.value) and "return a + b" in str(info.value)
    if sys.version_info >= (3, 11):  # columns of the expression, from the frame (co_positions)
        lines = str(info.value).splitlines()
        code = next(k for k, line in enumerate(lines) if "return a + b" in line)
        assert lines[code + 1].strip() == "^^^^^" and lines[code + 1].index("^") == lines[code].index("a + b")
        assert ", column " in lines[code - 1]


def test_python_truth_value_of_a_tensor():
    def program():
        x = tf.input([-1])
        if x > 0:  # not allowed: use tf.if_cond
            return x
        return -x
    with pytest.raises(tf.TraceError, match="no Python truth value"):
        tf.compile(program)


def test_compiler_failure_reports_message_and_source():
    tf.initialize(tf.cpu, flags="-fno-such-flag-for-tensorfrost")
    try:
        with pytest.raises(tf.CompileError) as info:
            tf.compile(matmul)
        message = str(info.value)
        assert "-fno-such-flag-for-tensorfrost" in message and ".cpp" in message
    finally:
        tf.initialize(tf.cpu)
    assert tf.compile(matmul)(np.ones((1, 1), np.float32), np.ones((1, 1), np.float32)).numpy[0, 0] == 1.0


def test_using_a_value_outside_its_block():
    def program():
        x = tf.input([-1])
        with tf.loop(3):
            y = x * 2.0
        return y
    with pytest.raises(tf.TraceError, match="defined inside a tf.loop"):
        tf.compile(program)


def test_invalid_dtype_and_shape_arguments():
    with pytest.raises(tf.DTypeError, match="dtype"):
        tf.compile(lambda: tf.input([-1], "complex64"))
    with pytest.raises(tf.ShapeError, match="non-negative"):
        tf.compile(lambda: tf.zeros([-3]))
    with pytest.raises(tf.ShapeError, match="out of range"):
        tf.compile(lambda: tf.sum(tf.input([-1, -1]), axis=2))


def test_rejected_generated_code_names_the_users_line(backend, monkeypatch):
    """A compiler or driver failure on generated code is an InternalError (CompileError) that
    points at the user's line of the op whose code it was, and the process goes on."""
    from tensorfrost.ir.ops import OPS
    lang = {"opengl": "glsl", "webgpu": "wgsl"}.get(backend.name, "cpp")
    monkeypatch.setitem(OPS["sin"].emit, lang, "no_such_function_in_tensorfrost({0})")

    def program():
        x = tf.input([-1], tf.float32)
        return tf.sin(x) * 2.0  # the rejected line
    with pytest.raises(tf.InternalError) as info:
        tf.compile(program)
    message = str(info.value)
    assert isinstance(info.value, tf.CompileError)
    assert "test_errors.py" in message and "the rejected line" in message
    assert "no_such_function_in_tensorfrost" in message and "bug in tensorfrost" in message
    monkeypatch.undo()
    np.testing.assert_allclose(tf.compile(program)(np.zeros(2, np.float32)).numpy, [0.0, 0.0])


def test_a_failing_pass_is_an_internal_error_at_the_users_line(monkeypatch):
    from tensorfrost.opt import pipeline

    def broken(program):
        for node in program.walk():
            if node.op.name == "sin":
                raise ValueError("broken on purpose")
        return program
    monkeypatch.setattr(pipeline, "PASSES", [("broken", broken), *pipeline.PASSES])

    def program():
        x = tf.input([-1], tf.float32)
        return tf.sin(x) + 1.0  # the line the pass was working on
    with pytest.raises(tf.InternalError) as info:
        tf.compile(program)
    message = str(info.value)
    assert "pass 'broken'" in message and "broken on purpose" in message
    assert "test_errors.py" in message and "the line the pass was working on" in message
