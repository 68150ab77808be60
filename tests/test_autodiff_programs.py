"""Gradients of whole programs: the seed's examples, a small CNN, loops and branches,
second derivatives, and what the backward kernels look like."""

import numpy as np
import numpy_nn as nn
from conftest import central_differences
from test_autodiff import numeric_gradient

import tensorfrost as tf
from tensorfrost.opt import autodiff
from tensorfrost.tracing.trace import trace


def test_linear_regression(backend):
    def program():
        x = tf.input([-1, -1], tf.float32)
        y = tf.input([-1, -1], tf.float32)
        W = tf.input([x.shape[1], y.shape[1]], tf.float32)
        b = tf.input([y.shape[1]], tf.float32)
        y_pred = x @ W + b
        loss = tf.mean(tf.mean((y - y_pred) ** 2))
        dW = tf.grad(loss, W)
        db = tf.grad(loss, b)
        return [loss, dW, db]
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((16, 3)).astype(np.float32), rng.standard_normal((16, 2)).astype(np.float32)
    W, b = rng.standard_normal((3, 2)).astype(np.float32), rng.standard_normal(2).astype(np.float32)
    loss, dW, db = tf.compile(program)(x, y, W, b)
    residual = (x @ W + b - y).astype(np.float64)
    n = residual.size
    np.testing.assert_allclose(loss.numpy, [np.mean(residual ** 2)], rtol=1e-5)
    np.testing.assert_allclose(dW.numpy, 2 * x.T @ residual / n, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(db.numpy, 2 * residual.sum(0) / n, rtol=1e-4, atol=1e-6)


def test_force_from_potential(backend):
    def program():
        x1 = tf.input([-1, 3], tf.float32)
        x2 = tf.input([-1, 3], tf.float32)
        dx = x1 - x2
        dist = tf.sqrt(tf.sum(dx ** 2))
        pot = 1.0 / dist
        force = -tf.grad(pot, dx)
        return force
    rng = np.random.default_rng(1)
    x1, x2 = rng.standard_normal((5, 3)).astype(np.float32), rng.standard_normal((5, 3)).astype(np.float32)
    dx = (x1 - x2).astype(np.float64)
    dist = np.linalg.norm(dx, axis=1, keepdims=True)
    # a non-scalar loss (one potential per pair) is seeded with ones: one force per pair
    np.testing.assert_allclose(tf.compile(program)(x1, x2).numpy, dx / dist ** 3, rtol=1e-4)


def conv2d(X, W, b):
    """The seed README's convolution: indices and sums, no convolution op."""
    bi, wi, hi, cout, cin, it = tf.indices([X.shape[0], X.shape[1] - W.shape[2] + 1, X.shape[2] - W.shape[3] + 1,
                                            W.shape[0], W.shape[1], W.shape[2] * W.shape[3]])
    i, j = it % W.shape[2], it / W.shape[2]
    conv = tf.sum(tf.sum(X[bi, wi + i, hi + j, cin] * W[cout, cin, i, j]))
    return conv + b


def cnn_loss(X, Y, W1, b1, W2, b2):
    h = conv2d(X, W1, b1)  # [B, 4, 4, C]
    B, H, Wd, C = h.shape
    b, i, j, c = tf.indices([B, H / 2, Wd / 2, C])
    pooled = tf.max(tf.max(h[b, 2 * i, 2 * j, c], h[b, 2 * i + 1, 2 * j, c]),
                    tf.max(h[b, 2 * i, 2 * j + 1, c], h[b, 2 * i + 1, 2 * j + 1, c]))
    features = tf.reshape(tf.tanh(pooled), [B, H / 2 * (Wd / 2) * C])
    logits = features @ W2 + b2
    top = tf.max(logits, axis=1)
    shifted = logits - tf.unsqueeze(top, 1)
    log_softmax = shifted - tf.unsqueeze(tf.log(tf.sum(tf.exp(shifted), axis=1)), 1)
    return -tf.mean(tf.sum(Y * log_softmax, axis=1))


def cnn_numpy(X, Y, W1, b1, W2, b2):
    B, H, Wd, _ = X.shape
    C, _, kh, kw = W1.shape
    h = np.zeros((B, H - kh + 1, Wd - kw + 1, C))
    for p in range(kh):
        for q in range(kw):
            h += np.einsum("bxyi,oi->bxyo", X[:, p:p + h.shape[1], q:q + h.shape[2]], W1[:, :, p, q])
    h += b1
    pooled = h.reshape(B, h.shape[1] // 2, 2, h.shape[2] // 2, 2, C).max(axis=(2, 4))
    logits = np.tanh(pooled).reshape(B, -1) @ W2 + b2
    shifted = logits - logits.max(1, keepdims=True)
    log_softmax = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    return -np.mean(np.sum(Y * log_softmax, axis=1))


def _cnn_data():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((2, 6, 6, 1)).astype(np.float32)
    Y = np.eye(3, dtype=np.float32)[[0, 2]]
    params = [rng.standard_normal((2, 1, 3, 3)).astype(np.float32) * 0.5, rng.standard_normal(2).astype(np.float32),
              rng.standard_normal((8, 3)).astype(np.float32) * 0.5, rng.standard_normal(3).astype(np.float32)]
    return X, Y, params


def _cnn_program():
    X = tf.input([-1, -1, -1, -1], tf.float32)
    Y = tf.input([-1, -1], tf.float32)
    W1 = tf.input([-1, X.shape[3], -1, -1], tf.float32)
    b1 = tf.input([W1.shape[0]], tf.float32)
    W2 = tf.input([-1, Y.shape[1]], tf.float32)
    b2 = tf.input([Y.shape[1]], tf.float32)
    loss = cnn_loss(X, Y, W1, b1, W2, b2)
    return [loss] + [tf.grad(loss, p) for p in (W1, b1, W2, b2)]


def test_small_cnn_matches_finite_differences(backend):
    X, Y, params = _cnn_data()
    loss, *grads = tf.compile(_cnn_program)(X, Y, *params)
    arrays = [X, Y, *params]
    np.testing.assert_allclose(loss.numpy, [cnn_numpy(*[a.astype(np.float64) for a in arrays])], rtol=1e-5)
    for k, grad in enumerate(grads):
        want = numeric_gradient(cnn_numpy, arrays, k + 2)
        np.testing.assert_allclose(grad.numpy, want, rtol=2e-3, atol=2e-5, err_msg=f"parameter {k}")


def cnn_closed_form_gradients(X, Y, W1, b1, W2, b2):
    """The gradients of cnn_numpy's loss with respect to (W1, b1, W2, b2), float64, by the chain
    rule through tests/numpy_nn.py's layers (as torch's autograd would compute them)."""
    h, conv_back = nn.conv2d(np.transpose(X, (0, 3, 1, 2)), W1, b1)  # NHWC -> NCHW
    pooled, pool_back = nn.max_pool2d(h, 2)
    activated = np.tanh(np.transpose(pooled, (0, 2, 3, 1)))  # NHWC again, as the program flattens it
    features = activated.reshape(len(X), -1)
    log_softmax, log_softmax_back = nn.log_softmax(features @ W2 + b2, 1)
    g_logits = log_softmax_back(-np.asarray(Y, np.float64) / len(X))
    g_activated = (g_logits @ W2.T).reshape(activated.shape) * (1 - activated ** 2)
    _, gW1, gb1 = conv_back(pool_back(np.transpose(g_activated, (0, 3, 1, 2))))
    return [gW1, gb1, features.T @ g_logits, g_logits.sum(axis=0)]


def test_small_cnn_matches_closed_form_gradients(backend):
    X, Y, params = _cnn_data()
    _, *grads = tf.compile(_cnn_program)(X, Y, *params)
    arrays = [a.astype(np.float64) for a in (X, Y, *params)]
    for k, want in enumerate(cnn_closed_form_gradients(*arrays)):
        # the closed form itself, against central differences (step 1e-4: error about 1e-8 f''')
        np.testing.assert_allclose(want, numeric_gradient(cnn_numpy, arrays, k + 2), rtol=1e-6, atol=1e-7)
        # an exact reference leaves only float32 rounding of sums of <= 32 O(1) terms, ~1e-6 (the
        # finite-difference test above needs 2e-3)
        np.testing.assert_allclose(grads[k].numpy, want, rtol=1e-5, atol=1e-5, err_msg=f"parameter {k}")


def test_convolution_weight_gradient_has_no_atomics():
    def program():
        X = tf.input([-1, -1, -1, -1], tf.float32)
        W = tf.input([-1, X.shape[3], -1, -1], tf.float32)
        b = tf.input([W.shape[0]], tf.float32)
        return tf.grad(tf.sum(tf.sum(tf.sum(tf.sum(conv2d(X, W, b) ** 2)))), W)
    prog = tf.compile(program)
    assert not any("tf_atomic" in k for k in prog.get_kernels())
    rng = np.random.default_rng(3)
    X, W = rng.standard_normal((2, 5, 5, 2)).astype(np.float32), rng.standard_normal((3, 2, 2, 2)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)

    def reference(X, W, b):
        out = np.zeros((2, 4, 4, 3))
        for p in range(2):
            for q in range(2):
                out += np.einsum("bxyi,oi->bxyo", X[:, p:p + 4, q:q + 4], W[:, :, p, q])
        return np.sum((out + b) ** 2)
    np.testing.assert_allclose(prog(X, W, b).numpy, numeric_gradient(reference, [X, W, b], 1), rtol=1e-3)


def test_power_loop_with_runtime_length(backend):
    def program():
        a = tf.input([-1], tf.float32)
        n = tf.input([1], tf.int32)
        r = tf.ones(a.shape)
        with tf.loop(n[0]):
            r.val = r * a
        return tf.grad(tf.sum(r), a)
    a = np.array([1.5, 2.0, -1.0, 0.5], np.float32)
    prog = tf.compile(program)
    for n in (0, 1, 5):
        want = n * a.astype(np.float64) ** (n - 1) if n else np.zeros(4)
        np.testing.assert_allclose(prog(a, np.array([n], np.int32)).numpy, want, rtol=1e-5)


def test_doubling_loop(backend):
    def program():
        x = tf.input([-1], tf.float32)
        n = tf.input([1], tf.int32)
        y = x * 1.0
        with tf.loop(n[0]):
            y.val = y * 2.0
        return tf.grad(tf.sum(y * y), x)
    x = np.array([1.5, 2.0, -1.0], np.float32)
    np.testing.assert_allclose(tf.compile(program)(x, np.array([3], np.int32)).numpy, 128 * x)


def test_loop_with_tensor_if(backend):
    def program():
        x = tf.input([-1], tf.float32)
        y = x * 1.0
        with tf.loop(4):
            with tf.if_cond(y < 10.0):
                y.val = y * y + 1.0
        return tf.grad(tf.sum(y), x)

    def reference(x):
        for _ in range(4):
            x = np.where(x < 10, x * x + 1, x)
        return x
    x = np.array([1.5, 2.0, -1.0, 0.3], np.float32)
    np.testing.assert_allclose(tf.compile(program)(x).numpy, numeric_gradient(reference, [x], 0), rtol=1e-4)


def test_loop_with_break(backend):
    def program():
        x = tf.input([-1], tf.float32)
        y = x * 1.0
        with tf.loop(10):
            y.val = y * 1.5 + tf.sin(y)
            with tf.if_cond(y > 5.0):
                tf.break_loop()
        return tf.grad(tf.sum(y * y), x)

    def reference(x):
        alive = np.ones(x.shape, bool)
        for _ in range(10):
            x = np.where(alive, x * 1.5 + np.sin(x), x)
            alive &= ~(x > 5)
        return x * x
    x = np.array([0.3, 1.0, 2.0, 4.0, 0.05], np.float32)
    np.testing.assert_allclose(tf.compile(program)(x).numpy, numeric_gradient(reference, [x], 0), rtol=1e-3)


def test_second_derivatives(backend):
    def program():
        x = tf.input([-1], tf.float32)
        return [tf.grad(tf.grad(f(x), x), x) for f in (tf.sin, tf.tanh, lambda v: v ** 3)]
    x = np.linspace(-1.5, 1.5, 7).astype(np.float32)
    sin2, tanh2, cube2 = tf.compile(program)(x)
    t = np.tanh(x.astype(np.float64))
    np.testing.assert_allclose(sin2.numpy, -np.sin(x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tanh2.numpy, -2 * t * (1 - t * t), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cube2.numpy, 6 * x, rtol=1e-5, atol=1e-6)


def test_detach_and_pass_grad(backend):
    def program():
        x = tf.input([-1], tf.float32)
        stopped = tf.sum(x * x.detach_grad())
        rounded = tf.sum(tf.round(x * 3.0).pass_grad())
        return [tf.grad(stopped, x), tf.grad(rounded, x)]
    x = np.array([0.2, -1.3, 2.0], np.float32)
    stopped, rounded = tf.compile(program)(x)
    np.testing.assert_allclose(stopped.numpy, x)  # d(x * c)/dx with c = x held constant
    np.testing.assert_allclose(rounded.numpy, np.full(3, 3.0))  # round passed as identity


def test_grads_of_one_loss_share_one_backward_pass():
    def program():
        x = tf.input([-1], tf.float32)
        w = tf.input([-1], tf.float32)
        loss = tf.sum(tf.sin(x * w))
        return [tf.grad(loss, x), tf.grad(loss, w)]
    expanded = autodiff.run(trace(program))
    seeds = [n for n in expanded.walk() if n.op.name == "const" and n.attrs["value"] == 1.0 and n.rank == 1]
    assert len(seeds) == 1
    assert sum(n.op.name == "cos" for n in expanded.walk()) == 1


def test_in_place_write_that_the_gradient_needs_is_differentiated(backend):
    """Each trip overwrites y with values read from other elements of it: the backward pass
    needs every trip's y, which the gradient keeps (compared with float64 differences)."""
    def program():
        x = tf.input([-1], tf.float32)
        y = x * 1.0
        i, = y.indices
        with tf.loop(3):
            y[i] = y[(i + 1) % y.shape[0]] * y[i]  # reads earlier values of y by index
        return tf.grad(tf.sum(y), x)

    def loss(x):
        y = x.copy()
        for _ in range(3):
            y = np.roll(y, -1) * y  # numpy's meaning: the right side read before the store
        return y.sum()
    x = np.array([0.9, -1.2, 1.1, 0.7, -0.8], np.float32)
    want = central_differences(loss, x)
    np.testing.assert_allclose(tf.compile(program)(x).numpy, want, rtol=1e-4, atol=1e-5)


def test_in_place_update_outside_loops_is_differentiated(backend):
    def program():
        x = tf.input([-1], tf.float32)
        y = x * x
        total = tf.sum(y)  # uses y before it changes
        i, = y.indices
        y[i] = y[i] * 3.0
        return tf.grad(total + tf.sum(y * x), x)
    x = np.array([0.5, -2.0, 1.5], np.float32)
    # total + sum(3 x^3): gradient 2x + 9x^2
    np.testing.assert_allclose(tf.compile(program)(x).numpy, 2 * x + 9 * x * x, rtol=1e-5)


def test_gradient_of_a_reduction_gradient(backend):
    def program():
        x = tf.input([-1, -1], tf.float32)
        energy = tf.sum(tf.sum(x * x, axis=1) ** 2)  # sum_i (sum_j x_ij^2)^2
        g = tf.grad(energy, x)  # 4 s_i x_ij
        return tf.grad(tf.sum(g * tf.sin(x)), x)

    def first(x):
        return 4 * np.sum(x * x, axis=1, keepdims=True) * x

    x = np.random.default_rng(11).uniform(-1, 1, (3, 4)).astype(np.float32)
    want = numeric_gradient(lambda v: first(v) * np.sin(v), [x], 0)
    np.testing.assert_allclose(tf.compile(program)(x).numpy, want, rtol=1e-3, atol=1e-4)


def test_native_control_flow_gradients(backend):
    """The loop tests above, written with Python control flow (@tf.kernel_program)."""
    @tf.kernel_program
    def program(a: tf.Arg([-1], tf.float32), n: tf.Arg([1], tf.int32)):
        r = tf.ones(a.shape)
        for _ in range(n[0]):
            r = r * a
        y = a * 1.0
        for _ in range(4):
            if y < 10.0:
                y = y * y + 1.0
        z = a * 1.0
        for _ in range(10):
            z = z * 1.5 + tf.sin(z)
            if z > 5.0:
                break
        return [tf.grad(tf.sum(r), a), tf.grad(tf.sum(y), a), tf.grad(tf.sum(z * z), a)]

    def squares(x):
        for _ in range(4):
            x = np.where(x < 10, x * x + 1, x)
        return x

    def breaking(x):
        alive = np.ones(x.shape, bool)
        for _ in range(10):
            x = np.where(alive, x * 1.5 + np.sin(x), x)
            alive &= ~(x > 5)
        return x * x
    a = np.array([0.3, 1.5, 2.0, -1.0], np.float32)
    power, square, broke = program(a, np.array([5], np.int32))
    np.testing.assert_allclose(power.numpy, 5 * a.astype(np.float64) ** 4, rtol=1e-5)
    np.testing.assert_allclose(square.numpy, numeric_gradient(squares, [a], 0), rtol=1e-4)
    np.testing.assert_allclose(broke.numpy, numeric_gradient(breaking, [a], 0), rtol=1e-3)
