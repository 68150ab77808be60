"""float64 numpy references of the tf.nn layers, for the tests (torch's definitions, so the
tests need no torch).

Each layer returns ``(output, back)``: ``back(g)`` takes the gradient of a loss with respect
to the output and returns the gradients with respect to the layer's inputs, in closed form
(the chain rule written out, as an autodiff system would); None for an argument not given.
tests/test_nn_layers.py checks every ``back`` against central differences, so the references
are tested themselves."""

import math

import numpy as np


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _f64(*arrays):
    return [None if a is None else np.asarray(a, np.float64) for a in arrays]


def _windows(size, kernel, stride, dilation):
    """The output size of a sliding window and, per kernel offset, the slice of the (padded)
    input that the outputs read at that offset."""
    out = (size - dilation * (kernel - 1) - 1) // stride + 1
    return out, [slice(k * dilation, k * dilation + stride * (out - 1) + 1, stride) for k in range(kernel)]


# -- convolution and pooling (x is [N, C, H, W]) ----------------------------------------------------

def conv2d(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """torch.nn.functional.conv2d; back(gy) -> (gx, gw, gb)."""
    x, w, b = _f64(x, w, b)
    (sh, sw), (ph, pw), (dh, dw) = _pair(stride), _pair(padding), _pair(dilation)
    n, _, h, width = x.shape
    out_channels, per_group, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    oh, rows = _windows(xp.shape[2], kh, sh, dh)
    ow, cols = _windows(xp.shape[3], kw, sw, dw)
    xg = xp.reshape(n, groups, per_group, *xp.shape[2:])
    wg = w.reshape(groups, out_channels // groups, per_group, kh, kw)
    y = np.zeros((n, groups, out_channels // groups, oh, ow))
    for ky, kx in np.ndindex(kh, kw):
        y += np.einsum("ngchw,goc->ngohw", xg[..., rows[ky], cols[kx]], wg[..., ky, kx])
    y = y.reshape(n, out_channels, oh, ow) + (0.0 if b is None else b[:, None, None])

    def back(gy):
        gyg = np.asarray(gy, np.float64).reshape(n, groups, out_channels // groups, oh, ow)
        gxg, gwg = np.zeros_like(xg), np.zeros_like(wg)
        for ky, kx in np.ndindex(kh, kw):
            gxg[..., rows[ky], cols[kx]] += np.einsum("ngohw,goc->ngchw", gyg, wg[..., ky, kx])
            gwg[..., ky, kx] = np.einsum("ngohw,ngchw->goc", gyg, xg[..., rows[ky], cols[kx]])
        gx = gxg.reshape(xp.shape)[:, :, ph:ph + h, pw:pw + width]
        return gx, gwg.reshape(w.shape), (None if b is None else gyg.sum(axis=(0, 3, 4)).reshape(-1))
    return y, back


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1):
    """torch.nn.functional.max_pool2d (padding reads -inf); the gradient goes to the first
    largest element of each window in row-major order, as torch's. back(gy) -> gx."""
    x, = _f64(x)
    (kh, kw), (ph, pw), (dh, dw) = _pair(kernel_size), _pair(padding), _pair(dilation)
    sh, sw = _pair(kernel_size if stride is None else stride)
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=-np.inf)
    oh, rows = _windows(xp.shape[2], kh, sh, dh)
    ow, cols = _windows(xp.shape[3], kw, sw, dw)
    best = np.full(x.shape[:2] + (oh, ow), -np.inf)
    best_ky, best_kx = np.zeros(best.shape, int), np.zeros(best.shape, int)
    for ky, kx in np.ndindex(kh, kw):  # row-major: an equal value later in the window does not win
        v = xp[..., rows[ky], cols[kx]]
        better = v > best
        best, best_ky, best_kx = np.where(better, v, best), np.where(better, ky, best_ky), np.where(better, kx, best_kx)

    def back(gy):
        gxp = np.zeros(xp.shape)
        ni, ci, i, j = np.indices(best.shape)
        np.add.at(gxp, (ni, ci, i * sh + best_ky * dh, j * sw + best_kx * dw), gy)
        return gxp[:, :, ph:ph + x.shape[2], pw:pw + x.shape[3]]
    return best, back


def avg_pool2d(x, kernel_size, stride=None, padding=0, count_include_pad=True):
    """torch.nn.functional.avg_pool2d (floor mode); back(gy) -> gx."""
    x, = _f64(x)
    (kh, kw), (ph, pw) = _pair(kernel_size), _pair(padding)
    sh, sw = _pair(kernel_size if stride is None else stride)
    pad = ((0, 0), (0, 0), (ph, ph), (pw, pw))
    xp, inside = np.pad(x, pad), np.pad(np.ones(x.shape[2:]), pad[2:])
    oh, rows = _windows(xp.shape[2], kh, sh, 1)
    ow, cols = _windows(xp.shape[3], kw, sw, 1)
    total, count = np.zeros(x.shape[:2] + (oh, ow)), np.zeros((oh, ow))
    for ky, kx in np.ndindex(kh, kw):
        total += xp[..., rows[ky], cols[kx]]
        count += inside[rows[ky], cols[kx]]
    divisor = kh * kw if count_include_pad else count

    def back(gy):
        gxp = np.zeros(xp.shape)
        for ky, kx in np.ndindex(kh, kw):
            gxp[..., rows[ky], cols[kx]] += gy / divisor
        return gxp[:, :, ph:ph + x.shape[2], pw:pw + x.shape[3]]
    return total / divisor, back


# -- normalization ------------------------------------------------------------------------------

def _standardize(x, axes, eps):
    """(x - mean) / sqrt(biased var + eps) over ``axes``; back(g) -> gx."""
    mean = x.mean(axis=axes, keepdims=True)
    inv_std = 1.0 / np.sqrt(((x - mean) ** 2).mean(axis=axes, keepdims=True) + eps)
    xhat = (x - mean) * inv_std

    def back(g):
        return inv_std * (g - g.mean(axis=axes, keepdims=True) - xhat * (g * xhat).mean(axis=axes, keepdims=True))
    return xhat, back


def layer_norm(x, normalized_ndim, weight=None, bias=None, eps=1e-5):
    """torch.nn.functional.layer_norm over the last ``normalized_ndim`` axes;
    back(gy) -> (gx, gweight, gbias)."""
    x, weight, bias = _f64(x, weight, bias)
    leading = tuple(range(x.ndim - normalized_ndim))
    xhat, standardize_back = _standardize(x, tuple(range(x.ndim - normalized_ndim, x.ndim)), eps)
    y = xhat * (1.0 if weight is None else weight) + (0.0 if bias is None else bias)

    def back(gy):
        gx = standardize_back(gy * (1.0 if weight is None else weight))
        return (gx, None if weight is None else (gy * xhat).sum(axis=leading),
                None if bias is None else gy.sum(axis=leading))
    return y, back


def batch_norm(x, running_mean=None, running_var=None, weight=None, bias=None, training=False, eps=1e-5):
    """torch.nn.functional.batch_norm per channel (axis 1): the batch's statistics when
    training, else the running ones (constants); back(gy) -> (gx, gweight, gbias)."""
    x, running_mean, running_var, weight, bias = _f64(x, running_mean, running_var, weight, bias)
    axes = (0, *range(2, x.ndim))
    channel = (1, -1) + (1,) * (x.ndim - 2)

    def per_channel(v, default):
        return default if v is None else v.reshape(channel)
    if training:
        xhat, standardize_back = _standardize(x, axes, eps)
    else:
        inv_std = 1.0 / np.sqrt(running_var.reshape(channel) + eps)
        xhat = (x - running_mean.reshape(channel)) * inv_std

        def standardize_back(g):
            return g * inv_std
    y = xhat * per_channel(weight, 1.0) + per_channel(bias, 0.0)

    def back(gy):
        return (standardize_back(gy * per_channel(weight, 1.0)), None if weight is None else (gy * xhat).sum(axis=axes),
                None if bias is None else gy.sum(axis=axes))
    return y, back


def batch_norm_running_stats(x, running_mean, running_var, momentum=0.1):
    """The running statistics after a training step: moved by ``momentum`` towards the
    batch's mean and unbiased variance."""
    x, running_mean, running_var = _f64(x, running_mean, running_var)
    axes = (0, *range(2, x.ndim))
    count = x.size // x.shape[1]
    batch_var = x.var(axis=axes) * count / (count - 1)
    new_mean = (1 - momentum) * running_mean + momentum * x.mean(axis=axes)
    return new_mean, (1 - momentum) * running_var + momentum * batch_var


# -- softmax and losses ---------------------------------------------------------------------------

def softmax(x, axis=-1):
    """back(gy) -> gx."""
    x, = _f64(x)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    s = e / e.sum(axis=axis, keepdims=True)
    return s, lambda g: s * (g - (g * s).sum(axis=axis, keepdims=True))


def log_softmax(x, axis=-1):
    """back(gy) -> gx."""
    x, = _f64(x)
    shifted = x - x.max(axis=axis, keepdims=True)
    y = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
    return y, lambda g: g - np.exp(y) * g.sum(axis=axis, keepdims=True)


def cross_entropy(logits, target, reduction="mean"):
    """torch.nn.functional.cross_entropy of logits [B, C]: ``target`` is class indices [B]
    (integers) or class probabilities [B, C]. The loss is [] ("mean", "sum") or [B]
    ("none"); back(gloss) -> glogits."""
    logp, log_softmax_back = log_softmax(logits, 1)
    if np.issubdtype(np.asarray(target).dtype, np.integer):
        picked = np.zeros_like(logp)
        picked[np.arange(len(target)), target] = 1.0
    else:
        picked, = _f64(target)
    rows = -(picked * logp).sum(axis=1)
    scale = {"mean": 1.0 / len(rows), "sum": 1.0, "none": None}[reduction]
    loss = rows if scale is None else rows.sum() * scale

    def back(g):
        g_rows = np.asarray(g, np.float64) * (1.0 if scale is None else scale) * np.ones(len(rows))
        return log_softmax_back(-picked * g_rows[:, None])
    return loss, back


# -- activations and linear ------------------------------------------------------------------------

def _elementwise(y, derivative):
    return y, lambda g: g * derivative


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def relu(x):
    x, = _f64(x)
    return _elementwise(np.maximum(x, 0.0), (x > 0).astype(np.float64))


def sigmoid(x):
    s = _sigmoid(*_f64(x))
    return _elementwise(s, s * (1 - s))


def silu(x):
    x, = _f64(x)
    s = _sigmoid(x)
    return _elementwise(x * s, s + x * s * (1 - s))


def gelu(x, approximate="none"):
    """x * Phi(x) (erf from math), or torch's tanh form."""
    x, = _f64(x)
    if approximate == "tanh":
        c = math.sqrt(2 / math.pi)
        t = np.tanh(c * (x + 0.044715 * x ** 3))
        return _elementwise(0.5 * x * (1 + t), 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x))
    cdf = 0.5 * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))
    return _elementwise(x * cdf, cdf + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi))


def linear(x, w, b=None):
    """x @ w.T + b, as torch.nn.functional.linear; back(gy) -> (gx, gw, gb)."""
    x, w, b = _f64(x, w, b)
    y = x @ w.T + (0.0 if b is None else b)
    return y, lambda gy: (gy @ w, gy.T @ x, None if b is None else gy.sum(axis=0))
