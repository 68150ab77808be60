"""``tf.register_custom_operation`` / ``tf.custom``: upstream's custom-operation example,
and a straight-through operation whose gradient differs from its forward's."""

import numpy as np
import pytest

import tensorfrost as tf


def _tanh_forward(inputs, tensor, axes):
    return [tf.tanh(inputs[0])]


def _tanh_vjp(inputs, gradient, tensor):
    return [gradient * (1.0 - tensor * tensor)]


def _round_forward(inputs, tensor, axes):
    assert len(axes) == tensor.ndim == inputs[0].ndim  # the indices of the result, one per axis
    return [tf.round(inputs[0])]


def _straight_through(inputs, gradient, tensor):
    return [gradient]


tf.register_custom_operation("new_tanh", ["f_f"], _tanh_forward, _tanh_vjp)
tf.register_custom_operation("ste_round", ["f_f"], _round_forward, _straight_through)


def test_upstreams_custom_tanh_and_its_gradient(backend):
    def program():
        A = tf.input([-1], tf.float32)
        B = tf.custom("new_tanh", [A])
        return B, tf.grad(B, A)
    a = np.linspace(-2.0, 2.0, 9).astype(np.float32)
    value, grad = (t.numpy for t in tf.compile(program)(a))
    # tanh in float32 (tf's is a polynomial on opengl): a few ulps; the vjp adds one product
    np.testing.assert_allclose(value, np.tanh(a), atol=2e-6)
    np.testing.assert_allclose(grad, 1.0 - np.tanh(a) ** 2, atol=5e-6)


def test_the_gradient_comes_from_the_vjp_not_from_the_forward(backend):
    def program():
        A = tf.input([-1, -1], tf.float32)
        R = tf.custom("ste_round", [A * 3.0])
        loss = tf.sum(tf.sum(R * R))
        return R, tf.grad(loss, A)
    a = np.array([[0.2, -0.7], [1.1, 0.49]], np.float32)
    rounded, grad = (t.numpy for t in tf.compile(program)(a))
    np.testing.assert_array_equal(rounded, np.round(3 * a))
    # d/dA sum(R^2) with dR/dx = 1 (straight through) and x = 3A: 2 R * 3; round's own is 0
    np.testing.assert_array_equal(grad, 6.0 * np.round(3 * a))


def test_custom_operation_errors_name_what_is_wrong():
    with pytest.raises(tf.TensorFrostError, match="overloads must be strings like 'ff_f'"):
        tf.register_custom_operation("bad", ["ff"], _tanh_forward, _tanh_vjp)

    def program():
        A = tf.input([-1], tf.float32)
        return [tf.custom("never_registered", [A])]
    with pytest.raises(tf.TraceError, match="no operation 'never_registered' is registered"):
        tf.compile(program)
