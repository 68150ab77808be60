"""Python's and numpy's conventions where a newcomer expects them: ``reshape`` infers a -1,
compiled programs keep their function's name, docstring and signature and take keyword
arguments."""

import inspect

import numpy as np
import pytest

import tensorfrost as tf


def test_reshape_infers_one_minus_one_in_both_front_ends(backend):
    def traced():
        x = tf.input([-1], tf.float32)
        return x.reshape([2, -1]), tf.reshape(x, [-1, 3, 1])

    @tf.kernel_program
    def flattened(m: tf.Arg([-1, -1], tf.float32)):
        return m.reshape([-1]) * 2.0
    x = np.arange(12, dtype=np.float32)
    a, b = tf.compile(traced)(x)
    np.testing.assert_array_equal(a.numpy, x.reshape(2, -1))
    np.testing.assert_array_equal(b.numpy, x.reshape(-1, 3, 1))
    m = x.reshape(3, 4)
    np.testing.assert_array_equal(flattened(m).numpy, m.reshape(-1) * 2)
    with pytest.raises(tf.RuntimeCheckError, match="reshape: the tensor has 10 elements"):
        tf.compile(traced)(np.arange(10, dtype=np.float32))  # [-1, 3, 1]: 10 is not a multiple of 3


def test_two_minus_ones_are_refused_at_the_users_line():
    def program():
        x = tf.input([6], tf.float32)
        return x.reshape([-1, -1])
    with pytest.raises(tf.ShapeError, match=r"only one entry of the new shape may be -1, got \[-1, -1\]") as error:
        tf.compile(program)
    assert "test_conventions.py" in str(error.value)


def test_compiled_programs_keep_name_doc_and_signature():
    @tf.compile
    def scaled(x: tf.Arg([-1], tf.float32), k: tf.Arg([], tf.float32)):
        """x times k."""
        return x * k
    assert scaled.__name__ == "scaled" and scaled.__doc__ == "x times k."
    assert list(inspect.signature(scaled).parameters) == ["x", "k"]
    assert scaled.__wrapped__ is not None


def test_kernel_programs_keep_name_doc_and_signature_too():
    @tf.kernel_program
    def blend(a: tf.Arg([-1], tf.float32), b: tf.Arg([-1], tf.float32), t: tf.Arg([], tf.float32)):
        """a + t (b - a)."""
        return a + t * (b - a)
    assert blend.__name__ == "blend" and blend.__doc__ == "a + t (b - a)."
    assert str(inspect.signature(blend)) == "(a, b, t)"
    assert blend.__module__ == __name__


def _inputs_created_inside():
    A = tf.input([-1, -1], tf.float32)
    N, M = A.shape
    v = tf.input([M], tf.float32)
    return tf.matmul(A, tf.reshape(v, [M, 1]))


@pytest.mark.parametrize("front_end", ["compile", "kernel_program"])
def test_arguments_by_keyword_match_numpy(backend, front_end):
    @getattr(tf, front_end)
    def blend(a: tf.Arg([-1], tf.float32), b: tf.Arg([-1], tf.float32), t: tf.Arg([], tf.float32)):
        return a + t * (b - a)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(5).astype(np.float32), rng.standard_normal(5).astype(np.float32)
    expected = a + np.float32(0.25) * (b - a)
    for result in (blend(a, b, 0.25), blend(a, b=b, t=0.25), blend(t=0.25, b=b, a=a), blend(a, t=0.25, b=b)):
        np.testing.assert_allclose(result.numpy, expected, rtol=1e-6)
    with pytest.raises(tf.ArgumentError, match=r"blend\(a, b, t\): got an unexpected keyword argument 'c'"):
        blend(a, b, 0.25, c=0.25)
    with pytest.raises(tf.ArgumentError, match=r"blend\(a, b, t\): .*multiple values for argument 'a'"):
        blend(a, b, 0.25, a=a)
    with pytest.raises(tf.ArgumentError, match=r"missing a required argument: 't'"):
        blend(a, b=b)


def test_inputs_made_with_tf_input_are_keywords_by_their_variable_names(backend):
    matvec = tf.compile(_inputs_created_inside)
    assert str(inspect.signature(matvec)) == "(A, v)"
    A = np.arange(6, dtype=np.float32).reshape(2, 3)
    v = np.array([1, -2, 0.5], np.float32)
    np.testing.assert_allclose(matvec(v=v, A=A).numpy, (A @ v).reshape(2, 1), rtol=1e-6)


def test_names_that_cannot_be_keywords_are_positional_only():
    def program():
        x = tf.input([-1], tf.float32, name="x")
        y = tf.input([-1], tf.float32, name="not a name")
        z = tf.input([-1], tf.float32, name="z")
        return x + y * z
    prog = tf.compile(program)
    assert str(inspect.signature(prog)) == "(x, input1, /, z)"
    ones = np.ones(3, np.float32)
    np.testing.assert_array_equal(prog(ones, 2 * ones, z=3 * ones).numpy, 7 * ones)
    with pytest.raises(tf.ArgumentError, match="positional only, but was passed as a keyword"):
        prog(x=ones, input1=ones, z=ones)
