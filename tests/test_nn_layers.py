"""tf.nn layers: forward values and gradients against float64 numpy references (tests/numpy_nn.py:
torch's definitions with closed-form gradients, themselves checked here against central
differences) on cpu and opengl, central finite differences of a chain of layers, the layers as
modules in a compiled training step, the AST front end, and the errors of bad arguments.

Each test compiles one program with several outputs (a compile costs seconds on two cores).
Tolerances: float32 keeps 24 bits (eps = 6e-8 relative); a sum of K terms of size ~1 is off
by about sqrt(K) * eps * K in the worst order, so sums of up to a few hundred terms are
compared to 1e-5 relative to their scale, with 2e-5 absolute for values near 0."""

import math

import numpy as np
import numpy_nn as nn
import pytest

import tensorfrost as tf

RTOL, ATOL = 2e-5, 2e-5


def total(t):
    """The sum of every element (rank 1 result)."""
    while t.ndim > 1:
        t = tf.sum(t)
    return tf.sum(t)


def close(got, want, rtol=RTOL, atol=ATOL):
    want = np.asarray(want)
    scale = max(float(np.max(np.abs(want), initial=0.0)), 1.0)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol * scale)


def close_all(got, want, **tolerances):
    """Every output: its shape, then its values."""
    assert len(got) == len(want)
    for k, (a, b) in enumerate(zip(got, want)):
        assert a.shape == np.shape(b), f"output {k}: shape {a.shape}, want {np.shape(b)}"
        close(a, b, **tolerances)


def f32(arrays):
    return {k: np.asarray(a, np.float32) for k, a in arrays.items()}


# -- the references themselves -------------------------------------------------------------------

def _reference_cases():
    r = np.random.default_rng(5)

    def normal(*shape):
        return r.standard_normal(shape)
    labels, probs = r.integers(0, 6, 4), r.dirichlet(np.ones(6), 4)
    pools = normal(2, 3, 7, 9)
    return {
        "conv2d grouped": (lambda x, w, b: nn.conv2d(x, w, b, stride=2, padding=1, dilation=2, groups=2),
                           [normal(2, 4, 9, 7), normal(6, 2, 3, 2), normal(6)]),
        "conv2d depthwise": (lambda x, w: nn.conv2d(x, w, stride=(2, 1), padding=(1, 0), groups=3),
                             [normal(1, 3, 6, 5), normal(6, 1, 3, 3)]),
        "max_pool2d padded": (lambda x: nn.max_pool2d(x, 3, 2, 1), [pools]),
        "max_pool2d dilated": (lambda x: nn.max_pool2d(x, (2, 3), 1, 0, 2), [pools]),
        "avg_pool2d": (lambda x: nn.avg_pool2d(x, 3, 2, 1), [pools]),
        "avg_pool2d without pads": (lambda x: nn.avg_pool2d(x, (3, 2), 2, (1, 0), count_include_pad=False), [pools]),
        "layer_norm": (lambda x, w, b: nn.layer_norm(x, 2, w, b), [normal(3, 5, 4, 7), normal(4, 7), normal(4, 7)]),
        "batch_norm training": (lambda x, w, b: nn.batch_norm(x, weight=w, bias=b, training=True),
                                [normal(3, 5, 4, 7), normal(5), normal(5)]),
        "batch_norm flat": (lambda x: nn.batch_norm(x, training=True), [normal(6, 5)]),
        "batch_norm eval": (lambda x, w, b: nn.batch_norm(x, np.arange(5.0), np.linspace(0.5, 2, 5), w, b),
                            [normal(3, 5, 4, 7), normal(5), normal(5)]),
        "softmax": (lambda x: nn.softmax(x, 1), [normal(4, 6)]),
        "log_softmax": (lambda x: nn.log_softmax(x, 0), [normal(4, 6)]),
        "cross_entropy": (lambda x: nn.cross_entropy(x, labels), [normal(4, 6)]),
        "cross_entropy soft": (lambda x: nn.cross_entropy(x, probs), [normal(4, 6)]),
        "cross_entropy sum": (lambda x: nn.cross_entropy(x, labels, "sum"), [normal(4, 6)]),
        "cross_entropy none": (lambda x: nn.cross_entropy(x, labels, "none"), [normal(4, 6)]),
        "relu": (nn.relu, [normal(50)]),
        "sigmoid": (nn.sigmoid, [normal(50) * 4]),
        "silu": (nn.silu, [normal(50) * 4]),
        "gelu": (nn.gelu, [normal(50) * 4]),
        "gelu tanh": (lambda x: nn.gelu(x, "tanh"), [normal(50) * 4]),
        "linear": (nn.linear, [normal(4, 6), normal(3, 6), normal(3)]),
    }


@pytest.mark.parametrize("case", list(_reference_cases()))
def test_numpy_references_match_finite_differences(case):
    """Each reference's closed-form gradients against central differences in float64 along a
    random direction per input: h = 1e-5 leaves about h^2 |f'''| + 1e-16 |f| / h = 1e-9, so
    1e-6 relative tells a right formula from a wrong one by orders of magnitude."""
    fn, arrays = _reference_cases()[case]
    r = np.random.default_rng(6)
    y, back = fn(*arrays)
    upstream = r.standard_normal(np.shape(y))
    grads = back(upstream)
    grads = [g for g in grads if g is not None] if isinstance(grads, tuple) else [grads]
    assert len(grads) == len(arrays)
    h = 1e-5
    for k, grad in enumerate(grads):
        assert grad.shape == arrays[k].shape
        direction = r.standard_normal(arrays[k].shape)
        plus, minus = (np.sum(fn(*[a + sign * h * direction if i == k else a for i, a in enumerate(arrays)])[0]
                              * upstream) for sign in (1.0, -1.0))
        numeric = (plus - minus) / (2 * h)
        assert abs(np.sum(grad * direction) - numeric) < 1e-6 * max(1.0, abs(numeric)), f"input {k}"


def test_numpy_references_keep_torchs_conventions():
    """What central differences cannot see: max pooling's gradient goes to the first largest
    element of a window (row-major), padding is -inf for max and 0 for mean, the running
    variance is unbiased, and a label picks its class."""
    x = np.array([[[[1.0, 1.0], [1.0, 0.0]]]])
    np.testing.assert_array_equal(nn.max_pool2d(x, 2)[1](np.ones((1, 1, 1, 1))), [[[[1, 0], [0, 0]]]])
    negative = -np.ones((1, 1, 2, 2))
    np.testing.assert_array_equal(nn.max_pool2d(negative, 2, 1, 1)[0], -np.ones((1, 1, 3, 3)))
    np.testing.assert_array_equal(nn.avg_pool2d(negative, 2, 1, 1)[0][0, 0, 0], [-0.25, -0.5, -0.25])
    np.testing.assert_array_equal(nn.avg_pool2d(negative, 2, 1, 1, count_include_pad=False)[0], -np.ones((1, 1, 3, 3)))
    mean, var = nn.batch_norm_running_stats(np.array([[1.0], [3.0]]), np.zeros(1), np.zeros(1), momentum=0.5)
    np.testing.assert_array_equal([mean[0], var[0]], [1.0, 1.0])  # batch mean 2, unbiased variance 2
    rows = nn.cross_entropy(np.log([[0.25, 0.75], [0.5, 0.5]]), np.array([1, 0]), "none")[0]
    np.testing.assert_allclose(rows, -np.log([0.75, 0.5]))


# -- convolution ---------------------------------------------------------------------------------

# Case A: sizes known only at run time, odd sizes, stride 2, padding 1, dilation 2, two groups, a
# 3x2 kernel and a bias. Case B: static sizes, batch 1, depthwise (groups = channels), stride (2, 1),
# padding (1, 0), no bias. Case C: a 1x1 kernel.
def conv_program():
    xa = tf.input([-1, -1, -1, -1], tf.float32)
    wa = tf.input([-1, -1, -1, -1], tf.float32)
    ba = tf.input([-1], tf.float32)
    ga = tf.input([-1, -1, -1, -1], tf.float32)
    xb = tf.input([1, 3, 6, 5], tf.float32)
    wb = tf.input([6, 1, 3, 3], tf.float32)
    gb = tf.input([1, 6, 3, 3], tf.float32)
    wc = tf.input([5, 4, 1, 1], tf.float32)
    ya = tf.nn.conv2d(xa, wa, ba, stride=2, padding=1, dilation=2, groups=2)
    yb = tf.nn.conv2d(xb, wb, stride=(2, 1), padding=(1, 0), groups=3)
    yc = tf.nn.conv2d(xa, wc)
    loss = total(ya * ga) + total(yb * gb) + total(yc * yc)
    return [ya, yb, yc, *[tf.grad(loss, v) for v in (xa, wa, ba, xb, wb, wc)]]


def test_conv2d_matches_numpy(backend, rng):
    shapes = {"xa": (2, 4, 9, 7), "wa": (6, 2, 3, 2), "ba": (6,), "ga": (2, 6, 4, 4), "xb": (1, 3, 6, 5),
              "wb": (6, 1, 3, 3), "gb": (1, 6, 3, 3), "wc": (5, 4, 1, 1)}
    v = f32({k: rng.standard_normal(s) for k, s in shapes.items()})
    got = [o.numpy for o in tf.compile(conv_program)(*v.values())]
    ya, ya_back = nn.conv2d(v["xa"], v["wa"], v["ba"], stride=2, padding=1, dilation=2, groups=2)
    yb, yb_back = nn.conv2d(v["xb"], v["wb"], stride=(2, 1), padding=(1, 0), groups=3)
    yc, yc_back = nn.conv2d(v["xa"], v["wc"])
    (gxa, gwa, gba), (gxb, gwb, _), (gxa_c, gwc, _) = ya_back(v["ga"]), yb_back(v["gb"]), yc_back(2 * yc)
    close_all(got, [ya, yb, yc, gxa + gxa_c, gwa, gba, gxb, gwb, gwc])


def _fd_loss(x, w, gamma, labels):
    """conv -> layer norm over (H, W) -> mean over H -> cross-entropy over W as classes, float64."""
    y = nn.layer_norm(nn.conv2d(x, w, stride=2, padding=1)[0], 2, gamma)[0]
    return nn.cross_entropy(y.mean(axis=2).reshape(-1, y.shape[3]), labels)[0]


def test_gradients_match_finite_differences(rng):
    """The gradient of a chain of layers against central differences (float64) along random
    directions: float32 gradients of O(1) quantities agree to about 1e-4 relative."""
    def chain():
        x = tf.input([-1, -1, -1, -1], tf.float32)
        w = tf.input([-1, -1, 3, 3], tf.float32)
        gamma = tf.input([-1, -1], tf.float32)
        labels = tf.input([-1], tf.int32)
        y = tf.nn.layer_norm(tf.nn.conv2d(x, w, stride=2, padding=1), [-1, -1], gamma)
        logits = tf.reshape(tf.mean(tf.transpose(y, 2, 3)), [x.shape[0] * w.shape[0], y.shape[3]])
        loss = tf.nn.cross_entropy(logits, labels)
        return [loss, tf.grad(loss, x), tf.grad(loss, w), tf.grad(loss, gamma)]

    tf.initialize(tf.cpu)
    x, w = rng.standard_normal((2, 3, 7, 9)), rng.standard_normal((2, 3, 3, 3))
    gamma = rng.uniform(0.5, 1.5, (4, 5))
    labels = rng.integers(0, 5, 4).astype(np.int32)
    loss, *grads = [o.numpy.astype(np.float64) for o in tf.compile(chain)(
        x.astype(np.float32), w.astype(np.float32), gamma.astype(np.float32), labels)]
    assert abs(loss[0] - _fd_loss(x, w, gamma, labels)) < 1e-5
    args = [x, w, gamma]
    for k, g in enumerate(grads):
        for _ in range(2):
            direction = rng.standard_normal(args[k].shape)
            h = 1e-4
            plus = [a + h * direction if i == k else a for i, a in enumerate(args)]
            minus = [a - h * direction if i == k else a for i, a in enumerate(args)]
            numeric = (_fd_loss(*plus, labels) - _fd_loss(*minus, labels)) / (2 * h)
            assert abs(np.sum(g * direction) - numeric) < 1e-4 * max(1.0, abs(numeric))


# -- pooling -------------------------------------------------------------------------------------

def pool_program():
    x = tf.input([-1, -1, -1, -1], tf.float32)
    g = tf.input([-1, -1, -1, -1], tf.float32)
    outs = [tf.nn.max_pool2d(x, 3, 2, 1), tf.nn.max_pool2d(x, 2), tf.nn.max_pool2d(x, (2, 3), 1, 0, 2),
            tf.nn.avg_pool2d(x, 3, 2, 1), tf.nn.avg_pool2d(x, (3, 2), 2, (1, 0), count_include_pad=False)]
    loss = total(outs[0] * outs[0]) + total(outs[1] * g) + total(outs[2]) + total(outs[3] * outs[3]) + total(outs[4])
    return [*outs, tf.grad(loss, x)]


def test_pools_match_numpy(backend, rng):
    # Small integers make ties in most windows: the gradient must go to the first largest
    # element of each window in row-major order, as torch's does. One channel is all below
    # -90, where a padded value read as 0 would win.
    x = rng.integers(-2, 3, (2, 3, 7, 9)).astype(np.float32)
    x[1, 2] -= 100.0
    g = rng.standard_normal((2, 3, 3, 4)).astype(np.float32)
    got = [o.numpy for o in tf.compile(pool_program)(x, g)]
    pooled = [nn.max_pool2d(x, 3, 2, 1), nn.max_pool2d(x, 2), nn.max_pool2d(x, (2, 3), 1, 0, 2),
              nn.avg_pool2d(x, 3, 2, 1), nn.avg_pool2d(x, (3, 2), 2, (1, 0), count_include_pad=False)]
    outs = [out for out, _ in pooled]
    upstream = [2 * outs[0], g, np.ones_like(outs[2]), 2 * outs[3], np.ones_like(outs[4])]
    close_all(got, [*outs, sum(back(u) for (_, back), u in zip(pooled, upstream))])


# -- normalization -------------------------------------------------------------------------------

def norm_program():
    x = tf.input([-1, -1, -1, -1], tf.float32)
    flat = tf.input([-1, -1], tf.float32)
    gamma = tf.input([-1, -1], tf.float32)
    beta = tf.input([-1, -1], tf.float32)
    scale = tf.input([-1], tf.float32)
    shift = tf.input([-1], tf.float32)
    mean = tf.input([-1], tf.float32)
    var = tf.input([-1], tf.float32)
    g = tf.input([-1, -1, -1, -1], tf.float32)
    ln = tf.nn.layer_norm(x, [-1, -1], gamma, beta)
    ln1 = tf.nn.layer_norm(flat, -1)
    bn, new_mean, new_var = tf.nn.batch_norm(x, mean, var, scale, shift, training=True, momentum=0.25)
    bn_flat = tf.nn.batch_norm(flat, training=True)
    bn_eval = tf.nn.batch_norm(x, mean, var, scale, shift)
    loss = total(ln * g) + total(ln1 * ln1 * flat) + total(bn * bn * g) + total(bn_flat * flat) + total(bn_eval * g)
    grads = [tf.grad(loss, v) for v in (x, flat, gamma, beta, scale, shift)]
    return [ln, ln1, bn, new_mean, new_var, bn_flat, bn_eval, *grads]


def test_norms_match_numpy(backend, rng):
    v = {"x": rng.standard_normal((3, 5, 4, 7)) * 3 + 10,  # a large mean: the variance must not cancel
         "flat": rng.standard_normal((6, 5)), "gamma": rng.uniform(0.5, 2, (4, 7)), "beta": rng.standard_normal((4, 7)),
         "scale": rng.uniform(0.5, 2, 5), "shift": rng.standard_normal(5), "mean": rng.standard_normal(5),
         "var": rng.uniform(0.5, 2, 5), "g": rng.standard_normal((3, 5, 4, 7))}
    v = f32(v)
    got = [o.numpy for o in tf.compile(norm_program)(*v.values())]
    x, flat, g = v["x"], v["flat"], v["g"]
    ln, ln_back = nn.layer_norm(x, 2, v["gamma"], v["beta"])
    ln1, ln1_back = nn.layer_norm(flat, 1)
    bn, bn_back = nn.batch_norm(x, weight=v["scale"], bias=v["shift"], training=True)
    new_mean, new_var = nn.batch_norm_running_stats(x, v["mean"], v["var"], momentum=0.25)
    bn_flat, bn_flat_back = nn.batch_norm(flat, training=True)
    bn_eval, bn_eval_back = nn.batch_norm(x, v["mean"], v["var"], v["scale"], v["shift"])
    # loss = sum(ln g) + sum(ln1^2 flat) + sum(bn^2 g) + sum(bn_flat flat) + sum(bn_eval g)
    (gx_ln, ggamma, gbeta), (gflat_ln1, _, _) = ln_back(g), ln1_back(2 * ln1 * flat)
    (gx_bn, gscale_bn, gshift_bn), (gflat_bn, _, _) = bn_back(2 * bn * g), bn_flat_back(flat)
    gx_eval, gscale_eval, gshift_eval = bn_eval_back(g)
    grads = [gx_ln + gx_bn + gx_eval, gflat_ln1 + ln1 ** 2 + gflat_bn + bn_flat, ggamma, gbeta,
             gscale_bn + gscale_eval, gshift_bn + gshift_eval]
    # 2e-5 (1e-4 against torch's float32): the float64 reference leaves only tensorfrost's rounding
    close_all(got, [ln, ln1, bn, new_mean, new_var, bn_flat, bn_eval, *grads])


# -- softmax, losses, activations ------------------------------------------------------------------

def softmax_program():
    logits = tf.input([-1, -1], tf.float32)
    labels = tf.input([-1], tf.int32)
    probs = tf.input([-1, -1], tf.float32)
    g = tf.input([-1, -1], tf.float32)
    sm, lsm0 = tf.nn.softmax(logits), tf.nn.log_softmax(logits, axis=0)
    ce, ce_soft = tf.nn.cross_entropy(logits, labels), tf.nn.cross_entropy(logits, probs)
    ce_sum, ce_rows = tf.nn.cross_entropy(logits, labels, "sum"), tf.nn.cross_entropy(logits, labels, "none")
    # three gradients, not one of the sum: on OpenGL one kernel would need more than 16 buffers
    losses = [total(sm * g) + total(lsm0 * g), ce * 3.0 + ce_soft, ce_sum * 0.5 + total(ce_rows * ce_rows)]
    return [sm, lsm0, ce, ce_soft, ce_sum, ce_rows, *[tf.grad(loss, logits) for loss in losses]]


def test_softmax_and_cross_entropy_match_numpy(backend, rng):
    logits = rng.standard_normal((7, 10)).astype(np.float32) * 4
    logits[0] += 1e4  # far from 0: exp would overflow without the max subtracted
    logits[1, 3] = 200.0  # one class dominates: log-softmax of the others is about -200, not -inf
    logits[2] = 1.5  # all equal: a tie everywhere
    labels = rng.integers(0, 10, 7).astype(np.int32)
    probs = rng.dirichlet(np.ones(10), 7).astype(np.float32)
    g = rng.standard_normal((7, 10)).astype(np.float32)
    got = [o.numpy for o in tf.compile(softmax_program)(logits, labels, probs, g)]
    (sm, sm_back), (lsm0, lsm0_back) = nn.softmax(logits, 1), nn.log_softmax(logits, 0)
    (ce, ce_back), (ce_soft, ce_soft_back) = nn.cross_entropy(logits, labels), nn.cross_entropy(logits, probs)
    (ce_sum, ce_sum_back), (ce_rows, ce_rows_back) = (nn.cross_entropy(logits, labels, "sum"),
                                                      nn.cross_entropy(logits, labels, "none"))
    grads = [sm_back(g) + lsm0_back(g), 3 * ce_back(1.0) + ce_soft_back(1.0),
             0.5 * ce_sum_back(1.0) + ce_rows_back(2 * ce_rows)]
    for a in got:
        assert np.all(np.isfinite(a))
    # log-softmax of a row shifted by 1e4 keeps 1e4 * 6e-8 = 1e-3 absolute (the input's own rounding),
    # within atol * scale = 2e-5 * 1e4; 2e-5 relative (1e-4 against torch's float32)
    close_all(got, [sm, lsm0, ce.reshape(1), ce_soft.reshape(1), ce_sum.reshape(1), ce_rows, *grads], atol=1e-5)


def activation_program():
    x = tf.input([-1], tf.float32)
    outs = [tf.nn.relu(x), tf.nn.sigmoid(x), tf.nn.silu(x), tf.nn.gelu(x), tf.nn.gelu(x, approximate="tanh")]
    grads = [tf.grad(total(o), x) for o in outs]
    return [*outs, *grads]


def test_activations_match_numpy(backend):
    x = np.concatenate([np.linspace(-9, 9, 181), [0.0, -0.0, 1e-30, -1e-30, 40.0, -40.0, 100.0, -100.0]])
    x = x.astype(np.float32)
    got = [o.numpy for o in tf.compile(activation_program)(x)]
    fns = [nn.relu, nn.sigmoid, nn.silu, nn.gelu, lambda v: nn.gelu(v, approximate="tanh")]
    for k, fn in enumerate(fns):
        y, back = fn(x)
        close(got[k], y, rtol=1e-6, atol=3e-7)  # erf's approximation is 1.5e-7 absolute
        close(got[k + len(fns)], back(np.ones_like(y)), rtol=1e-5, atol=3e-6)  # the derivative of erf's fit is 2e-6
    nan = tf.compile(activation_program)(np.array([np.nan, 1.0], np.float32))
    assert np.isnan(nan[0].numpy[0]) and nan[0].numpy[1] == 1.0  # relu keeps NaN, as torch


# -- embedding, dropout ----------------------------------------------------------------------------

def embed_program():
    ids = tf.input([-1, -1], tf.int32)
    table = tf.input([-1, -1], tf.float32)
    g = tf.input([-1, -1, -1], tf.float32)
    seed = tf.input([1], tf.uint32)
    vectors = tf.nn.embedding(ids, table)
    dropped = tf.nn.dropout(vectors, 0.3, seed)
    kept = tf.nn.dropout(vectors, 0.3, seed, training=False)
    loss = total(vectors * g) + total(dropped)
    return [vectors, dropped, kept, tf.grad(loss, table)]


def test_embedding_and_dropout(backend, rng):
    table = rng.standard_normal((11, 3)).astype(np.float32)
    ids = rng.integers(0, 11, (5, 40)).astype(np.int32)
    ids[0, :3] = [0, 10, 10]  # first and last rows, a repeated id
    g = rng.standard_normal((5, 40, 3)).astype(np.float32)
    prog = tf.compile(embed_program)
    vectors, dropped, kept, grad = [o.numpy for o in prog(ids, table, g, np.array([7], np.uint32))]
    np.testing.assert_array_equal(vectors, table[ids])
    np.testing.assert_array_equal(kept, vectors)
    mask = dropped != 0
    close(dropped[mask], vectors[mask] / 0.7, rtol=1e-6, atol=0)
    # 600 draws of p = 0.3: 4 standard deviations
    assert abs((1 - mask.mean()) - 0.3) < 4 * math.sqrt(0.3 * 0.7 / mask.size)
    want = np.zeros_like(table)
    np.add.at(want, ids, g + mask / 0.7)  # each row adds the gradients of every place that read it
    close(grad, want, rtol=1e-5, atol=1e-5)
    again = prog(ids, table, g, np.array([8], np.uint32))[1].numpy
    assert np.any((again != 0) != mask)  # another seed, another mask, same program



# -- modules ---------------------------------------------------------------------------------------

class Net(tf.Module):
    def __init__(self):
        super().__init__()
        self.features = tf.nn.Sequential(tf.nn.Conv2d(2, 4, 3, padding=1), tf.nn.BatchNorm2d(4), tf.nn.ReLU(),
                                         tf.nn.MaxPool2d(2), tf.nn.Flatten())
        self.classifier = tf.nn.Linear(4 * 3 * 3, 5)

    def forward(self, x):
        return self.classifier(self.features(x))

    def loss(self, x, labels):
        return tf.nn.cross_entropy(self.forward(x), labels)


def _net_numpy(p, x, labels=None):
    """Net in float64 with torch's defaults (batch norm eps 1e-5, momentum 0.1): with labels,
    one training step's loss, the gradients of the trainable parameters and the new running
    statistics; without, the evaluation's logits."""
    h, conv_back = nn.conv2d(x, p["features.0.weight"], p["features.0.bias"], padding=1)
    normalized, bn_back = nn.batch_norm(h, p["features.1.running_mean"], p["features.1.running_var"],
                                        p["features.1.weight"], p["features.1.bias"], training=labels is not None)
    activated, relu_back = nn.relu(normalized)
    pooled, pool_back = nn.max_pool2d(activated, 2)
    logits, linear_back = nn.linear(pooled.reshape(len(x), -1), p["classifier.weight"], p["classifier.bias"])
    if labels is None:
        return logits
    loss, loss_back = nn.cross_entropy(logits, labels)
    g = {}
    g_features, g["classifier.weight"], g["classifier.bias"] = linear_back(loss_back(1.0))
    g_h, g["features.1.weight"], g["features.1.bias"] = bn_back(relu_back(pool_back(g_features.reshape(pooled.shape))))
    _, g["features.0.weight"], g["features.0.bias"] = conv_back(g_h)
    running = nn.batch_norm_running_stats(h, p["features.1.running_mean"], p["features.1.running_var"])
    return loss, g, dict(zip(["features.1.running_mean", "features.1.running_var"], running))


def test_modules_train_like_torch(rng):
    """Two SGD steps of a Sequential CNN (conv, batch norm, relu, pool, linear) in one
    compiled program each: losses, new weights and running statistics as a float64 numpy
    SGD loop with torch's definitions (closed-form gradients), then the evaluation's logits."""
    tf.initialize(tf.cpu)
    model = Net()
    opt = tf.optimizers.sgd(model, learning_rate=0.1)
    opt.initialize_parameters(seed=3)
    names = [name for name, _ in model.named_parameters()]
    assert names == ["features.0.weight", "features.0.bias", "features.1.weight", "features.1.bias",
                     "features.1.running_mean", "features.1.running_var", "classifier.weight", "classifier.bias"]
    reference = {name: value.numpy.astype(np.float64) for name, value in model.named_parameters()}
    step = opt.compile_step(tf.Arg([-1, 2, 7, 6], tf.float32), tf.Arg([-1], tf.int32))
    for _ in range(2):
        x = rng.standard_normal((5, 2, 7, 6)).astype(np.float32)
        labels = rng.integers(0, 5, 5).astype(np.int32)
        loss = step(x, labels).numpy
        want, grads, running = _net_numpy(reference, x, labels)
        reference.update({name: reference[name] - 0.1 * grad for name, grad in grads.items()}, **running)
        close(loss, want.reshape(1), rtol=1e-5, atol=1e-6)
    for name, value in model.named_parameters():
        close(value.numpy, reference[name], 1e-4, 1e-5)
    tf.nn.set_training(model, False)  # evaluation: the running statistics
    predict = model.compile(lambda m, x: m.forward(x), tf.Arg([-1, 2, 7, 6], tf.float32))
    x = rng.standard_normal((3, 2, 7, 6)).astype(np.float32)
    close(predict(x).numpy, _net_numpy(reference, x), 1e-4, 1e-5)


def test_dropout_layer_state_and_initialization(rng):
    tf.initialize(tf.cpu)

    class Dropper(tf.Module):
        def __init__(self):
            super().__init__()
            self.fc = tf.nn.Linear(8, 3, bias=False)
            self.drop = tf.nn.Dropout(0.5, seed=41)

        def forward(self, x):
            return self.fc(self.drop(x))

        def loss(self, x):
            return tf.mean(tf.sum(self.forward(x) ** 2))

    model = Dropper()
    opt = tf.optimizers.sgd(model, learning_rate=0.0)  # no update: the masks alone change the loss
    opt.initialize_parameters(seed=0)
    assert [name for name, _ in model.named_parameters()] == ["fc.weight", "drop.seed"]
    bound = 1 / math.sqrt(8)  # torch's default: uniform in +-1/sqrt(fan_in)
    weight = model.fc.weight.numpy
    assert weight.shape == (3, 8) and np.abs(weight).max() <= bound and np.abs(weight).max() > 0.5 * bound
    step = opt.compile_step(tf.Arg([-1, 8], tf.float32))
    x = rng.standard_normal((64, 8)).astype(np.float32)
    losses = [float(step(x).numpy[0]) for _ in range(3)]
    assert model.drop.seed.numpy[0] == 44 and len(set(losses)) == 3  # a new seed, a new mask, each step
    tf.nn.set_training(model, False)
    predict = model.compile(lambda m, x: m.forward(x), tf.Arg([-1, 8], tf.float32))
    close(predict(x).numpy, x @ weight.T, 1e-5, 1e-6)

    conv = tf.nn.Conv2d(4, 6, (3, 2), groups=2)
    conv.initialize_parameters(seed=1)
    bound = 1 / math.sqrt(2 * 3 * 2)
    for value in (conv.weight.numpy, conv.bias.numpy):
        assert np.abs(value).max() <= bound
    assert conv.weight.numpy.shape == (6, 2, 3, 2) and abs(conv.weight.numpy.std() - bound / math.sqrt(3)) < 0.3 * bound


def test_kernel_program_front_end(rng):
    """The layers inside @tf.kernel_program, with Python control flow around them."""
    tf.initialize(tf.cpu)

    @tf.kernel_program
    def features(x: tf.Arg([-1, 1, -1, -1], tf.float32), w: tf.Arg([-1, 1, 3, 3], tf.float32)):
        y = x
        for k in tf.static_range(2):  # unrolled at trace time: two layers
            y = tf.nn.conv2d(y, w if k == 0 else w[0:1], padding=1)
            y = tf.nn.relu(y) if k == 0 else tf.nn.gelu(y)
        pooled = tf.nn.max_pool2d(y, 2)
        acc = pooled * 0.0
        for j in range(3):  # a tensor loop whose body pools (a reduction: a loop on the host)
            acc = acc + tf.nn.max_pool2d(y + tf.float(j), 2)
        return acc

    x = rng.standard_normal((2, 1, 9, 8)).astype(np.float32)
    w = rng.standard_normal((1, 1, 3, 3)).astype(np.float32)
    got = features(x, w).numpy
    y = nn.relu(nn.conv2d(x, w, padding=1)[0])[0]
    y = nn.gelu(nn.conv2d(y, w, padding=1)[0])[0]
    close(got, 3 * nn.max_pool2d(y, 2)[0] + 3, 1e-5, 1e-5)


# -- errors ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("body, error, message", [
    (lambda x, w: tf.nn.conv2d(x, w), tf.ShapeError, r"tf.nn.conv2d: x has 3 channels, but weight expects 2 per "
                                                     r"group x 1 group\(s\) = 2"),
    (lambda x, w: tf.nn.conv2d(x, w, stride=0), tf.ArgumentError, r"tf.nn.conv2d: stride must be at least 1"),
    (lambda x, w: tf.nn.max_pool2d(x, 2, padding=2), tf.ArgumentError, r"padding \(2, 2\) must be at most half"),
    (lambda x, w: tf.nn.cross_entropy(tf.reshape(x, [4, 24]), tf.sum(tf.reshape(x, [4, 24]))), tf.DTypeError,
     r"class labels \[B\] must be int32 or uint32, got float32"),
    (lambda x, w: tf.nn.conv2d(x[0], w), tf.ShapeError, r"tf.nn.conv2d: x must have rank 4, got rank 3"),
])
def test_bad_arguments_name_what_was_expected(body, error, message):
    def program():
        x = tf.input([2, 3, 4, 4], tf.float32)
        w = tf.input([5, 2, 3, 3], tf.float32)
        return body(x, w)

    with pytest.raises(error, match=message) as info:
        tf.compile(program)
    assert "test_nn_layers.py" in str(info.value)  # the user's line, not the library's


# -- compiler ----------------------------------------------------------------------------------

def reshape_program():
    a = tf.input([-1, 6, 4], tf.float32)
    g = tf.input([-1, 3, 8], tf.float32)
    shared = tf.reshape(a, [a.shape[0], 3, 8])  # the batch axis is kept: no division by its size
    regrouped = tf.reshape(a, [4, a.shape[0] * 6])  # no shared axis: the whole flat index
    merged = tf.reshape(a, [a.shape[0] * 6, 4])
    loss = total(shared * g) + total(regrouped * regrouped) + total(merged)
    return [shared, regrouped, merged, tf.grad(loss, a)]


def test_reshape_lowering_keeps_shared_leading_axes(backend, rng):
    """Regression of a change in opt/lower.py (conv2d's NCHW reshape): a reshape keeps the index
    of leading axes both shapes share and takes no modulo of the outermost remaining one."""
    a = rng.standard_normal((5, 6, 4)).astype(np.float32)
    g = rng.standard_normal((5, 3, 8)).astype(np.float32)
    shared, regrouped, merged, grad = [o.numpy for o in tf.compile(reshape_program)(a, g)]
    np.testing.assert_array_equal(shared, a.reshape(5, 3, 8))
    np.testing.assert_array_equal(regrouped, a.reshape(4, 30))
    np.testing.assert_array_equal(merged, a.reshape(30, 4))
    close(grad, g.reshape(5, 6, 4) + 2 * a + 1, 1e-6, 1e-6)
