"""Modules, parameters and optimizers (tf.Module, tf.Parameter, tf.ParameterArray,
tf.optimizers): registration order, programs that take modules, the two initialization
modes, saving, and optimizer updates against numpy references, step by step."""

import numpy as np
import pytest

import tensorfrost as tf

# Five float32 steps against a float64 reference: parameters are O(1) and each update is
# computed from O(1) inputs, so float32 rounding stays near 1e-6 relative; atol covers
# entries that pass near zero.
RTOL, ATOL = 1e-4, 1e-6


class Linear(tf.Module):
    def __init__(self, n_in=-1, n_out=-1, frozen_bias=False):
        super().__init__()
        self.W = tf.Parameter([n_in, n_out], tf.float32)
        self.b = tf.Parameter([n_out], tf.float32, random_scale=0.0, requires_grad=not frozen_bias)

    def assert_parameters(self):
        self.b = tf.assert_tensor(self.b, [self.W.shape[1]], tf.float32)

    def forward(self, x):
        return x @ self.W + self.b

    def loss(self, x, y):
        d = self.forward(x) - y
        return tf.mean(tf.mean(d * d))


class Net(tf.Module):
    """A parameter, a child module, a parameter array and a parameter, in that order."""

    def __init__(self):
        self.scale = tf.Parameter([1], tf.float32, random_scale=0.0, random_offset=1.0)
        self.first = Linear(3, 4)
        self.extra = tf.ParameterArray()
        self.extra[1] = tf.Parameter([4], tf.float32)
        self.extra[0] = tf.Parameter([4, 4], tf.float32)
        self.last = tf.Parameter([-1], tf.float32)

    def assert_parameters(self):
        self.last = tf.assert_tensor(self.last, [self.first.W.shape[1]], tf.float32)

    def forward(self, x):
        h = self.first.forward(x) * self.scale[0]
        return tf.tanh(h @ self.extra[0] + self.extra[1]) * self.last


NET_ORDER = ["scale", "first.W", "first.b", "extra[0]", "extra[1]", "last"]


def _net_numpy(values, x):
    scale, W, b, e0, e1, last = (np.asarray(v, np.float64) for v in values)
    return np.tanh(((x @ W + b) * scale[0]) @ e0 + e1) * last


class SmolNet(tf.Module):
    """The seed README's module (its loss called forward(x, y); fixed here)."""

    def __init__(self):
        self.W = tf.Parameter([16, -1], tf.float32, random_scale=0.01, random_offset=0.0)
        self.b = tf.Parameter([-1], tf.float32, requires_grad=False)

    def assert_parameters(self):
        self.b = tf.assert_tensor(self.b, [self.W.shape[1]], tf.float32)

    def forward(self, x):
        return x @ self.W + self.b

    def loss(self, x, y):
        y_pred = self.forward(x)
        return tf.mean(tf.mean((y - y_pred) ** 2))


def test_seed_readme_examples(backend):
    def ComputeForward():
        model = SmolNet()
        model.initialize_input()
        X = tf.input([-1, -1], tf.float32)
        return model.forward(X)
    forward = tf.compile(ComputeForward)
    model_container = SmolNet()
    model_container.initialize_parameters()
    model_container.W = tf.tensor(np.zeros([16, 100], dtype=np.float32))
    X = tf.tensor(np.ones([100, 16], dtype=np.float32))
    with pytest.raises(tf.TensorFrostError, match="parameter 'b' of SmolNet has no value"):
        forward(model_container, X)  # b has a free dim: the README forgets to assign it
    model_container.b = np.arange(100, dtype=np.float32)
    np.testing.assert_array_equal(forward(model_container, X).numpy, np.tile(np.arange(100), (100, 1)))

    def OptimizerStep():
        X = tf.input([-1, -1], tf.float32)
        Y = tf.input([-1, 10], tf.float32)
        model = SmolNet()
        opt = tf.optimizers.adam(model, learning_rate=0.001, beta1=0.9, beta2=0.999)
        opt.initialize_input()
        L = opt.step(X, Y)
        params = opt.parameters()
        params.append(L)
        return params
    step = tf.compile(OptimizerStep)
    model_container = SmolNet()
    opt = tf.optimizers.adam(model_container)
    opt.initialize_parameters()
    model_container.W = np.full((16, 10), 0.5, np.float32)  # after initialize_parameters:
    model_container.b = np.zeros(10, np.float32)             # the state starts at zero lazily
    X, Y = np.ones((4, 16), np.float32), np.zeros((4, 10), np.float32)
    res = step(X, Y, opt)
    opt.update_parameters(res[:-1])
    loss = res[-1].numpy[0]
    assert loss == pytest.approx(64.0)  # (16 * 0.5)^2
    # Adam's first step moves every weight by the learning rate against its gradient's sign
    np.testing.assert_allclose(model_container.W.numpy, np.full((16, 10), 0.499), rtol=1e-6)
    np.testing.assert_array_equal(model_container.b.numpy, np.zeros(10))  # requires_grad=False
    model_container.W = np.zeros((16, 5), np.float32)
    with pytest.raises(tf.TensorFrostError, match=r"state 'm' of 'W' has shape \[16, 10\].*reset_state"):
        step(X, Y, opt)


def test_parameter_order_follows_attributes_recursively():
    net = Net()
    assert [name for name, _ in net._walk()] == NET_ORDER

    def forward():
        x = tf.input([-1, 3], tf.float32)
        model = Net()
        model.initialize_input()
        return model.forward(x)
    prog = tf.compile(forward)
    assert prog.input_names == ["x", *NET_ORDER]


def test_module_argument_expands_to_parameters(backend):
    def forward():
        x = tf.input([-1, 3], tf.float32)
        model = Net()
        model.initialize_input()
        return model.forward(x)
    prog = tf.compile(forward)
    net = Net()
    net.initialize_parameters(seed=3)
    net.last = np.linspace(-1, 1, 4).astype(np.float32)  # free dims: assigned by hand
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    want = _net_numpy([v.numpy for v in net.parameters()], x)
    np.testing.assert_allclose(prog(x, net).numpy, want, rtol=1e-5, atol=1e-6)
    # the same program through Module.compile, with no twin module inside
    predict = net.compile(lambda m, x: m.forward(x), tf.Arg([-1, 3], tf.float32))
    np.testing.assert_allclose(predict(x).numpy, want, rtol=1e-5, atol=1e-6)
    assert net.scale.numpy.tolist() == [1.0]  # random_scale 0, random_offset 1


def test_initialize_parameters_xavier_and_seed():
    a, b = Linear(300, 200), Linear(300, 200)
    a.initialize_parameters(seed=7)
    b.initialize_parameters(seed=7)
    W = a.W.numpy
    np.testing.assert_array_equal(W, b.W.numpy)
    assert W.dtype == np.float32 and W.shape == (300, 200)
    assert abs(W.std() - np.sqrt(2.0 / 500)) < 0.02 * np.sqrt(2.0 / 500)  # 60,000 samples
    assert abs(W.mean()) < 0.002
    assert not a.b.numpy.any()
    conv = tf.Parameter([8, 2, 3, 3], tf.float32)
    values = conv.initial_value(np.random.default_rng(0))
    assert abs(values.std() - np.sqrt(2.0 / (10 * 9))) < 0.15 * np.sqrt(2.0 / 90)


def test_free_dims_need_a_value():
    model = Linear()
    model.initialize_parameters()
    assert isinstance(model.W, tf.Parameter)  # nothing to initialize: the shape is free
    prog = tf.compile(lambda: _forward_program(Linear))
    with pytest.raises(tf.TensorFrostError, match="parameter 'W' of Linear has no value"):
        prog(np.ones((2, 3), np.float32), model)


def _forward_program(cls):
    x = tf.input([-1, -1], tf.float32)
    model = cls()
    model.initialize_input()
    return model.forward(x)


def test_reassigned_parameters(backend):
    prog = tf.compile(lambda: _forward_program(Linear))
    model = Linear()
    model.W = tf.tensor(np.eye(3, 2, dtype=np.float32) * 2)
    model.b = np.array([1.0, -1.0], np.float32)  # numpy arrays are uploaded
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(prog(x, model).numpy, x @ (np.eye(3, 2) * 2) + [1, -1])
    model.W = np.ones((3, 2), np.float32)
    np.testing.assert_allclose(prog(x, model).numpy, x @ np.ones((3, 2)) + [1, -1])
    fixed = Linear(3, 2)
    with pytest.raises(tf.ShapeError, match=r"parameter 'W': declared shape \[3, 2\], got a tensor of shape \[2, 2\]"):
        fixed.W = np.zeros((2, 2), np.float32)
    with pytest.raises(tf.ShapeError, match="rank 2"):
        fixed.W = np.zeros(6, np.float32)
    with pytest.raises(tf.TensorFrostError, match="declared dtype float32, got int32"):
        fixed.W = tf.tensor(np.zeros((3, 2), np.int32))
    with pytest.raises(tf.TensorFrostError, match="ParameterArray; it can only be replaced"):
        Net().extra = 3


def test_assert_parameters_contradiction_is_a_clear_error():
    class Contradiction(tf.Module):
        def __init__(self):
            self.W = tf.Parameter([3, 2], tf.float32)
            self.b = tf.Parameter([5], tf.float32)

        def assert_parameters(self):
            self.b = tf.assert_tensor(self.b, [self.W.shape[1]], tf.float32)

    with pytest.raises(tf.ShapeError, match=r"shape\[0\] is 5, expected 2"):
        tf.compile(lambda: _forward_program(Contradiction))
    # free dims: the relation is checked when the program runs, naming the parameter
    prog = tf.compile(lambda: _forward_program(Linear))
    model = Linear()
    model.W, model.b = np.ones((3, 2), np.float32), np.ones(4, np.float32)
    with pytest.raises(tf.RuntimeCheckError, match=r"'b': shape\[0\] must be 2 \(W.shape\[1\]\), got 4"):
        prog(np.ones((1, 3), np.float32), model)


def test_modes_do_not_mix():
    model = Linear(3, 2)
    model.initialize_parameters()

    def program():
        model.initialize_input()
        return model.W
    with pytest.raises(tf.TensorFrostError, match="already holds tensors"):
        tf.compile(program)


def test_save_load_round_trip(tmp_path):
    net = Net()
    net.initialize_parameters(seed=1)
    net.last = np.arange(4, dtype=np.float32)
    path = tmp_path / "net.npz"
    net.save(path)
    other = Net().load(path)
    for (name, a), (name2, b) in zip(net.named_parameters(), other.named_parameters()):
        assert name == name2
        np.testing.assert_array_equal(a.numpy, b.numpy)
    with pytest.raises(tf.TensorFrostError, match=r"missing: \['W', 'b'\]"):
        Linear().load(path)


def test_update_parameters_checks_the_count():
    model = Linear(3, 2)
    model.initialize_parameters()
    with pytest.raises(tf.ArgumentError, match="expected 2 values"):
        model.update_parameters([model.W])


# -- optimizers against numpy ------------------------------------------------------------------


def _problem(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((8, 3)).astype(np.float32)
    y = rng.standard_normal((8, 2)).astype(np.float32)
    W = rng.standard_normal((3, 2)).astype(np.float32)
    b = rng.standard_normal(2).astype(np.float32)
    return x, y, W, b


def _gradients(x, y, W, b):
    r = x @ W + b - y
    return [2 * x.T @ r / r.size, 2 * r.sum(0) / r.size]


def _clip(grads, limit, mode):
    if mode == "value":
        return [np.clip(g, -limit, limit) for g in grads]
    if mode == "norm":
        return [g * limit / max(np.linalg.norm(g), limit) for g in grads]
    total = np.sqrt(sum(np.sum(g * g) for g in grads))
    return [g * limit / max(total, limit) for g in grads]


class Reference:
    """The optimizers in float64 numpy, as the docstrings of tf.optimizers define them."""

    def __init__(self, kind, params, lr, beta1=0.9, beta2=0.999, decay=0.9, eps=1e-8, clip=0.0, mode="value",
                 l1=0.0, l2=0.0):
        self.kind, self.lr, self.b1, self.b2, self.decay, self.eps = kind, lr, beta1, beta2, decay, eps
        self.clip, self.mode, self.l1, self.l2 = clip, mode, l1, l2
        self.params = [p.astype(np.float64) for p in params]
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]
        self.t = 0

    def step(self, x, y):
        grads = _gradients(x.astype(np.float64), y, *self.params)
        if self.clip:
            grads = _clip(grads, self.clip, self.mode)
        self.t += 1
        for k, (p, g) in enumerate(zip(self.params, grads)):
            if self.kind == "sgd":
                u = g
            elif self.kind == "adam":
                self.m[k] = self.b1 * self.m[k] + (1 - self.b1) * g
                self.v[k] = self.b2 * self.v[k] + (1 - self.b2) * g * g
                u = self.m[k] / (1 - self.b1 ** self.t) / (np.sqrt(self.v[k] / (1 - self.b2 ** self.t)) + self.eps)
            else:
                self.v[k] = self.decay * self.v[k] + (1 - self.decay) * g * g
                u = g / (np.sqrt(self.v[k]) + self.eps)
            self.params[k] = p - self.lr * u - self.lr * (self.l2 * p + self.l1 * np.sign(p))


def _seed_style_step(make_opt):
    def train_step():
        x = tf.input([-1, -1], tf.float32)
        y = tf.input([x.shape[0], -1], tf.float32)
        opt = make_opt(Linear())
        opt.initialize_input()
        loss = opt.step(x, y)
        params = opt.parameters()
        params.append(loss)
        return params
    return tf.compile(train_step)


CASES = {
    "sgd": (lambda m: tf.optimizers.sgd(m, learning_rate=0.1), {}),
    "adam": (lambda m: tf.optimizers.adam(m, learning_rate=0.05, beta1=0.8, beta2=0.99), dict(beta1=0.8, beta2=0.99)),
    "rmsprop": (lambda m: tf.optimizers.rmsprop(m, learning_rate=0.01, decay=0.8), dict(decay=0.8)),
}
LEARNING_RATES = {"sgd": 0.1, "adam": 0.05, "rmsprop": 0.01}


@pytest.mark.parametrize("kind", list(CASES))
def test_optimizer_matches_numpy_step_by_step(backend, kind):
    make_opt, options = CASES[kind]
    x, y, W, b = _problem()
    step = _seed_style_step(make_opt)
    model = Linear()
    opt = make_opt(model)
    model.W, model.b = W, b
    opt.initialize_parameters()
    ref = Reference(kind, [W, b], LEARNING_RATES[kind], **options)
    for _ in range(5):
        r = x.astype(np.float64) @ ref.params[0] + ref.params[1] - y
        out = step(x, y, opt)
        opt.update_parameters(out[:-1])
        ref.step(x, y)
        np.testing.assert_allclose(out[-1].numpy, [np.mean(r * r)], rtol=RTOL)
        np.testing.assert_allclose(model.W.numpy, ref.params[0], rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(model.b.numpy, ref.params[1], rtol=RTOL, atol=ATOL)
        if kind == "adam":
            np.testing.assert_allclose(opt.m[0].numpy, ref.m[0], rtol=RTOL, atol=ATOL)
            np.testing.assert_allclose(opt.v[1].numpy, ref.v[1], rtol=RTOL, atol=ATOL)
    if kind == "adam":
        assert opt.t.numpy.tolist() == [5.0]
    assert [n for n, _ in opt.named_parameters()] == {
        "sgd": ["net.W", "net.b"], "rmsprop": ["net.W", "net.b", "v[0]", "v[1]"],
        "adam": ["net.W", "net.b", "m[0]", "m[1]", "v[0]", "v[1]", "t"]}[kind]


@pytest.mark.parametrize("mode", ["value", "norm", "global_norm"])
def test_gradient_clipping_matches_numpy(backend, mode):
    x, y, W, b = _problem(1)
    model = Linear()
    opt = tf.optimizers.sgd(model, learning_rate=0.5, grad_clip=0.3, clip_mode=mode)
    model.W, model.b = W, b
    step = opt.compile_step(tf.Arg([-1, 3], tf.float32), tf.Arg([-1, 2], tf.float32))
    ref = Reference("sgd", [W, b], 0.5, clip=0.3, mode=mode)
    assert max(np.abs(g).max() for g in _gradients(x, y, W, b)) > 0.3  # the clip is active
    for _ in range(5):
        step(x, y)
        ref.step(x, y)
        np.testing.assert_allclose(model.W.numpy, ref.params[0], rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(model.b.numpy, ref.params[1], rtol=RTOL, atol=ATOL)


def test_decoupled_weight_decay_matches_numpy(backend):
    x, y, W, b = _problem(2)
    model = Linear()
    opt = tf.optimizers.adam(model, learning_rate=0.05, l1=0.01, l2=0.1)
    model.W, model.b = W, b
    step = opt.compile_step(tf.Arg([-1, 3], tf.float32), tf.Arg([-1, 2], tf.float32))
    ref = Reference("adam", [W, b], 0.05, l1=0.01, l2=0.1)
    for _ in range(5):
        step(x, y)
        ref.step(x, y)
    np.testing.assert_allclose(model.W.numpy, ref.params[0], rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(model.b.numpy, ref.params[1], rtol=RTOL, atol=ATOL)


def test_requires_grad_false_is_passed_through(backend):
    x, y, W, b = _problem(3)
    model = Linear(frozen_bias=True)
    opt = tf.optimizers.adam(model, learning_rate=0.05)
    model.W, model.b = W, b
    step = opt.compile_step(tf.Arg([-1, 3], tf.float32), tf.Arg([-1, 2], tf.float32))
    assert [n for n, _ in opt.named_parameters()] == ["net.W", "net.b", "m[0]", "v[0]", "t"]
    ref = Reference("adam", [W], 0.05)
    for _ in range(3):  # the bias is frozen: only W moves
        r = x @ ref.params[0] + b - y
        g = 2 * x.T.astype(np.float64) @ r / r.size
        ref.t += 1
        ref.m[0] = 0.9 * ref.m[0] + 0.1 * g
        ref.v[0] = 0.999 * ref.v[0] + 0.001 * g * g
        ref.params[0] = ref.params[0] - 0.05 * ref.m[0] / (1 - 0.9 ** ref.t) / (
            np.sqrt(ref.v[0] / (1 - 0.999 ** ref.t)) + 1e-8)
        step(x, y)
    np.testing.assert_array_equal(model.b.numpy, b)
    np.testing.assert_allclose(model.W.numpy, ref.params[0], rtol=RTOL, atol=ATOL)

    def program():  # tf.grad still works on a frozen parameter
        m = Linear(frozen_bias=True)
        m.initialize_input()
        xs = tf.input([-1, 3], tf.float32)
        ys = tf.input([xs.shape[0], 2], tf.float32)
        return tf.grad(m.loss(xs, ys), m.b)
    db = tf.compile(program)(model, x, y).numpy
    np.testing.assert_allclose(db, _gradients(x, y, model.W.numpy, b)[1], rtol=1e-4, atol=1e-6)


def test_compile_step_equals_seed_style_and_follows_the_learning_rate(backend):
    x, y, W, b = _problem(4)
    seed_step = _seed_style_step(lambda m: tf.optimizers.rmsprop(m, learning_rate=0.01))
    a, b_model = Linear(), Linear()
    opt_a, opt_b = tf.optimizers.rmsprop(a, learning_rate=0.01), tf.optimizers.rmsprop(b_model, learning_rate=0.01)
    for model in (a, b_model):
        model.W, model.b = W, b
    opt_a.initialize_parameters()
    short = opt_b.compile_step(tf.Arg([-1, 3], tf.float32), tf.Arg([-1, 2], tf.float32))
    assert short.program.input_names[:3] == ["learning_rate", "x", "y"]
    for _ in range(3):
        out = seed_step(x, y, opt_a)
        opt_a.update_parameters(out[:-1])
        loss = short(x, y)
        np.testing.assert_allclose(loss.numpy, out[-1].numpy, rtol=1e-6)
    np.testing.assert_allclose(b_model.W.numpy, a.W.numpy, rtol=1e-6)
    np.testing.assert_allclose(opt_b.v[0].numpy, opt_a.v[0].numpy, rtol=1e-6)
    before = b_model.W.numpy
    opt_b.learning_rate = 0.0
    short(x, y)
    np.testing.assert_array_equal(b_model.W.numpy, before)


def test_custom_loss_and_loss_argument(backend):
    x, y, W, b = _problem(5)
    model = Linear()
    model.W, model.b = W, b
    opt = tf.optimizers.sgd(model, learning_rate=0.1)
    step = opt.compile_step(tf.Arg([-1, 3], tf.float32), tf.Arg([-1, 2], tf.float32),
                            loss=lambda net, xs, ys: tf.mean(tf.mean(tf.abs(net.forward(xs) - ys))))
    step(x, y)
    r = x @ W + b - y
    gW, gb = x.T @ np.sign(r) / r.size, np.sign(r).sum(0) / r.size
    np.testing.assert_allclose(model.W.numpy, W - 0.1 * gW, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(model.b.numpy, b - 0.1 * gb, rtol=RTOL, atol=ATOL)


def test_first_step_initializes_parameters_without_a_value(backend):
    """A fresh model trains without an explicit initialize_parameters(): the step gives
    static-shape parameters their random initial values on its first call, and keeps
    values the user assigned."""
    x, y, W, b = _problem(6)
    model = Linear(3, 2)
    model.b = b + 5.0  # far from the zeros a fresh bias would get
    opt = tf.optimizers.sgd(model, learning_rate=0.1)
    step = opt.compile_step(tf.Arg([-1, 3], tf.float32), tf.Arg([-1, 2], tf.float32))
    step(x, y)
    W0, b0 = model.W.numpy, model.b.numpy  # W drawn on the first call; both updated once
    assert np.all(np.isfinite(W0)) and np.std(W0) > 0.1
    assert np.max(np.abs(b0 - (b + 5.0))) < 2.0  # the assigned bias was kept (one step from it)
    r0 = x @ W0 + b0 - y
    loss = step(x, y).numpy[0]  # the loss at the values before this step
    np.testing.assert_allclose(loss, np.mean(r0 * r0), rtol=1e-5)
    r1 = x @ model.W.numpy + model.b.numpy - y
    assert np.mean(r1 * r1) < np.mean(r0 * r0)


def test_step_outside_a_program_and_bad_options():
    model = Linear(3, 2)
    opt = tf.optimizers.adam(model)
    opt.initialize_parameters()
    with pytest.raises(tf.TensorFrostError, match="runs inside a tensor program"):
        opt.step(1.0)
    with pytest.raises(tf.TensorFrostError, match="clip_mode must be one of"):
        tf.optimizers.sgd(model, clip_mode="max")
    with pytest.raises(tf.TensorFrostError, match="expected a tf.Module"):
        tf.optimizers.sgd([model.W])
    with pytest.raises(tf.TensorFrostError, match="expected a tf.Arg"):
        opt.compile_step([-1, 3])


def test_compile_step_sees_what_changed_between_calls():
    """The step passes the parameters it stored last time without checking them again; a
    value assigned in between, or a parameter added to the model, must still be seen."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((8, 3)).astype(np.float32)
    y = rng.standard_normal((8, 2)).astype(np.float32)
    model = Linear(3, 2)
    opt = tf.optimizers.sgd(model, learning_rate=0.1)
    opt.initialize_parameters(seed=0)
    step = opt.compile_step(tf.Arg([-1, 3], tf.float32), tf.Arg([-1, 2], tf.float32))
    for _ in range(3):
        step(x, y)
    model.W = np.zeros((3, 2), np.float32)  # between calls: the next loss is that of W = 0
    b = model.b.numpy
    loss = step(x, y).numpy[0]
    assert loss == pytest.approx(np.mean(np.mean((b - y) ** 2, axis=1)), rel=1e-5)
    W_after = model.W.numpy  # and the step from W = 0 was stored
    assert np.abs(W_after).max() > 0 and not np.array_equal(W_after, np.zeros((3, 2)))
    model.extra = tf.Parameter([2], tf.float32, random_scale=0.0)  # the model grew: retrace
    with pytest.raises(tf.ArgumentError, match=r"takes 5 input\(s\) \(learning_rate, x, y, net.W, net.b\), got 6"):
        step(x, y)
