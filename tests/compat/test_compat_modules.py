"""Modules and optimizers as upstream TensorFrost programs use them: parameter specs before
initialization, requires-grad lists, upstream's optimizer keywords, and a loss that is not
a scalar passed to ``opt.step``."""

import numpy as np
import pytest

import tensorfrost as tf


class Net(tf.Module):
    def __init__(self):
        super().__init__()
        self.W = tf.Parameter([4, 3], tf.float32)
        self.b = tf.Parameter([3], tf.float32, random_scale=0.0, optimize=False)  # upstream's keyword
        self.frozen = Frozen()

    def forward(self, x):
        return x @ self.W + self.b + self.frozen.c

    def loss(self, x, y):
        d = self.forward(x) - y
        return tf.mean(tf.mean(d * d))


class Frozen(tf.Module):
    def __init__(self):
        super().__init__(requires_grad=False)  # no parameter of it is trained
        self.c = tf.Parameter([3], tf.float32, random_scale=0.0)


def test_parameters_before_initialization_are_the_specs_as_upstreams_adgrad_uses_them():
    net = Net()
    specs = net.parameters()
    assert [p.shape for p in specs] == [[4, 3], [3], [3]]
    assert all(p.dtype == tf.float32 for p in specs)
    grads = tf.ParameterArray()  # upstream's ADGrad module builds one gradient per parameter like this
    for i, param in enumerate(net.parameters()):
        grads[i] = tf.Parameter(param.shape, param.dtype)
    assert len(grads) == 3
    assert net.requires_grads_list() == [True, False, False]
    assert net.param_requires_grad("W") and not net.param_requires_grad("b")
    assert not net.param_requires_grad("frozen")
    assert net.hasattr("W") and not net.hasattr("V")
    with pytest.raises(tf.TensorFrostError, match="parameter 'W' of Net has no value"):
        tf.compile(lambda: [tf.input([-1], tf.float32)])(net)


def test_create_input_lists_the_parameters_then_the_data():
    net = Net()
    net.initialize_parameters(seed=0)
    x = tf.tensor(np.ones((2, 4), np.float32))
    inputs = net.create_input(x)
    assert len(inputs) == 4 and inputs[-1] is x and inputs[0] is net.W


def _train(opt_factory, steps=30):
    """Fit y = x @ W_true with the given optimizer; returns (first loss, last loss, net)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 4)).astype(np.float32)
    y = (x @ rng.standard_normal((4, 3))).astype(np.float32)
    net = Net()
    opt = opt_factory(net)
    opt.initialize_parameters(seed=1)
    b_before = net.b.numpy.copy()
    step = opt.compile_step(tf.Arg([-1, 4], tf.float32), tf.Arg([-1, 3], tf.float32))
    losses = [float(step(x, y).numpy.ravel()[0]) for _ in range(steps)]
    np.testing.assert_array_equal(net.b.numpy, b_before)  # optimize=False: never updated
    return losses[0], losses[-1], opt


def test_upstream_optimizer_keywords_train():
    first, last, opt = _train(lambda net: tf.optimizers.adam(net, tf.regularizers.l2, 0.05, clip=10.0, reg=1e-4))
    assert opt.l2 == pytest.approx(1e-4) and opt.grad_clip == 10.0
    assert last < 0.2 * first, (first, last)
    first, last, opt = _train(lambda net: tf.optimizers.sgd(net, learning_rate=0.05, reg_type=tf.regularizers.l1,
                                                            reg=1e-5))
    assert opt.l1 == pytest.approx(1e-5) and last < 0.5 * first, (first, last)


def test_set_clipping_type_switches_the_mode():
    opt = tf.optimizers.rmsprop(Net(), 0.01, clip=1.0)
    assert opt.clip_mode == "value"
    opt.set_clipping_type(tf.clipping.norm)
    assert opt.clip_mode == "norm" and opt.grad_clip == 1.0
    opt.set_clipping_type(tf.clipping.none)
    assert opt.grad_clip == 0.0
    with pytest.raises(tf.TensorFrostError, match="reg_type must be"):
        tf.optimizers.adam(Net(), reg_type="l3")


def test_step_with_one_non_scalar_tensor_says_a_loss_is_a_scalar():
    def program():
        opt = tf.optimizers.adam(Net())
        opt.initialize_input()
        x = tf.input([-1, 4], tf.float32)
        opt.step(x)  # the mistake: x is the data, not the loss
        return opt.parameters()
    with pytest.raises(tf.TensorFrostError, match=r"one argument is the loss, a scalar, but this tensor has shape"):
        tf.compile(program)
