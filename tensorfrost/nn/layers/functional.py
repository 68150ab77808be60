"""Activations, softmax and losses, embeddings, dropout and the dense layer, as functions
of traced tensors (``tf.nn.relu``, ``tf.nn.cross_entropy``...). They are written with the
public tensor-program API, so they fuse with the code around them and ``tf.grad`` goes
through them.

    def step():
        x = tf.input([-1, 64], tf.float32)
        labels = tf.input([-1], tf.int32)
        w = tf.input([10, 64], tf.float32)
        logits = tf.nn.linear(tf.nn.gelu(x), w)
        loss = tf.nn.cross_entropy(logits, labels)
        return [loss, tf.grad(loss, w)]
"""

from __future__ import annotations

import math

from ...ir.errors import DTypeError, ShapeError, user_location
from ...lib import random as tf_random
from ...tracing.algorithms import matmul, mean, transpose, unsqueeze
from ...tracing.algorithms import sum as reduce_sum
from ...tracing.api import indices
from ...tracing.mathfn import exp, log, select, tanh
from ...tracing.mathfn import max as reduce_max
from ._args import check_dim, float_arg, probability, static_dim, tensor_arg

__all__ = ["relu", "sigmoid", "silu", "gelu", "softmax", "log_softmax", "cross_entropy", "dropout",
           "embedding", "linear"]

# Abramowitz and Stegun 7.1.26: erf to 1.5e-7 absolute, below float32's rounding near 1.
_ERF_P = 0.3275911
_ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def relu(x):
    """``max(x, 0)`` elementwise; NaN stays NaN and the gradient at 0 is 0 (as torch).

    >>> y = tf.nn.relu(x)          # x: any float32 tensor
    """
    return select(x > 0.0, x, select(x != x, x, 0.0))


def sigmoid(x):
    """The logistic function ``1 / (1 + exp(-x))`` elementwise, computed from
    ``exp(-|x|)`` so that neither it nor its gradient overflows for large ``|x|``.

    >>> p = tf.nn.sigmoid(logits)
    """
    side = _side(x)
    e = exp(-(x * side))
    return select(x >= 0.0, 1.0 / (1.0 + e), e / (1.0 + e))


def _side(x):
    """1 where ``x >= 0``, else -1: ``x * _side(x)`` is ``|x|`` with the gradient ``side``
    also at 0 (``abs`` has none there)."""
    return select(x >= 0.0, 1.0, -1.0).astype(x.dtype)


def silu(x):
    """SiLU (swish): ``x * sigmoid(x)`` elementwise.

    >>> y = tf.nn.silu(x)
    """
    return x * sigmoid(x)


def _erf(x):
    side = _side(x)
    magnitude = x * side
    t = 1.0 / (1.0 + _ERF_P * magnitude)
    poly = t * (_ERF_A[0] + t * (_ERF_A[1] + t * (_ERF_A[2] + t * (_ERF_A[3] + t * _ERF_A[4]))))
    return side * (1.0 - poly * exp(-magnitude * magnitude))


def gelu(x, approximate: str = "none"):
    """GELU, ``x * Phi(x)`` with Phi the standard normal CDF, elementwise (torch's two forms).

    ``approximate="none"``: the exact form ``0.5 x (1 + erf(x / sqrt 2))``, erf from
    Abramowitz and Stegun 7.1.26 (1.5e-7 absolute error, within float32's rounding);
    ``approximate="tanh"``: ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``.

    >>> y = tf.nn.gelu(x)                      # as torch.nn.functional.gelu(x)
    >>> y = tf.nn.gelu(x, approximate="tanh")
    """
    if approximate == "none":
        return 0.5 * x * (1.0 + _erf(x * (1.0 / math.sqrt(2.0))))
    if approximate == "tanh":
        return 0.5 * x * (1.0 + tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)))
    raise ShapeError(f"tf.nn.gelu: approximate must be 'none' or 'tanh', got {approximate!r}", user_location())


def _axis(x, axis: int, fn: str) -> int:
    if isinstance(axis, bool) or not isinstance(axis, int) or not -x.ndim <= axis < x.ndim:
        raise ShapeError(f"{fn}: axis must be an int in [{-x.ndim}, {x.ndim}) for a tensor of rank {x.ndim}, "
                         f"got {axis!r}", user_location())
    return axis % x.ndim


def _shifted(x, axis: int, fn: str):
    """``x - max(x, axis)`` (the max carries no gradient: softmax does not depend on it)."""
    x = float_arg(tensor_arg(x, fn, "x"), fn, "x")
    axis = _axis(x, axis, fn)
    top = reduce_max(x, axis=axis).detach_grad()
    return x - unsqueeze(top, axis), axis


def softmax(x, axis: int = -1):
    """``exp(x) / sum(exp(x))`` along ``axis``, computed as ``exp(x - max)`` so that large
    values do not overflow. Same shape and dtype (float32) as ``x``.

    >>> probs = tf.nn.softmax(logits, axis=1)      # logits [B, C]: rows sum to 1
    """
    shifted, axis = _shifted(x, axis, "tf.nn.softmax")
    e = exp(shifted)
    return e / unsqueeze(reduce_sum(e, axis=axis), axis)


def log_softmax(x, axis: int = -1):
    """``log(softmax(x))`` along ``axis``, as ``x - max - log(sum(exp(x - max)))``: finite
    for any finite input (no log of 0 when one value dominates).

    >>> logp = tf.nn.log_softmax(logits, axis=1)
    """
    shifted, axis = _shifted(x, axis, "tf.nn.log_softmax")
    return shifted - unsqueeze(log(reduce_sum(exp(shifted), axis=axis)), axis)


def cross_entropy(logits, target, reduction: str = "mean"):
    """Softmax cross-entropy of ``logits`` [B, C] against ``target``, as torch's
    ``F.cross_entropy``: ``target`` is either int32 class labels [B] (a label outside
    ``[0, C)`` picks no class and contributes 0) or float32 class probabilities [B, C]
    (one-hot rows, or soft labels). Numerically stable (log-softmax with the row max
    subtracted). ``reduction``: ``"mean"`` over the batch (shape [1]), ``"sum"`` or
    ``"none"`` (the per-row losses [B]).

    >>> loss = tf.nn.cross_entropy(logits, labels)     # labels: tf.input([-1], tf.int32)
    >>> grads = tf.grad(loss, weights)
    """
    fn = "tf.nn.cross_entropy"
    logits = float_arg(tensor_arg(logits, fn, "logits", ranks=(2,)), fn, "logits")
    target = tensor_arg(target, fn, "target", ranks=(1, 2))
    logp = log_softmax(logits, axis=1)
    if target.ndim == 1:
        if not target.dtype.is_integer:
            raise DTypeError(f"{fn}: class labels [B] must be int32 or uint32, got {target.dtype.name} (pass "
                             "probabilities as [B, C])", user_location())
        _, column = indices(logits.shape)
        losses = -reduce_sum(select(column == unsqueeze(target, 1), logp, 0.0), axis=1)
    else:
        float_arg(target, fn, "target")
        check_dim(target, 1, static_dim(logits, 1), fn, "target.shape[1] (classes)")
        losses = -reduce_sum(target * logp, axis=1)
    if reduction == "mean":
        return mean(losses, axis=0)
    if reduction == "sum":
        return reduce_sum(losses, axis=0)
    if reduction == "none":
        return losses
    raise ShapeError(f"{fn}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}", user_location())


def dropout(x, p: float = 0.5, seed=0, training: bool = True):
    """Zero each element of ``x`` with probability ``p`` and scale the rest by ``1 / (1 - p)``
    (so the expected value is unchanged); ``training=False`` or ``p=0`` returns ``x``.

    The mask comes from ``tf.random.dropout_mask``: ``seed`` is an int or an int32/uint32
    [1] program input, so a compiled step draws a new mask per call without recompiling.

    >>> seed = tf.input([1], tf.uint32)
    >>> h = tf.nn.dropout(h, 0.2, seed)
    """
    fn = "tf.nn.dropout"
    x = float_arg(tensor_arg(x, fn, "x"), fn, "x")
    p = probability(p, fn, "p")
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return x * 0.0
    return x * tf_random.dropout_mask(x.shape, p, seed)


def embedding(indices_, weight):
    """Rows of ``weight`` [V, D] picked by the int32 ``indices_`` (any shape S): shape
    ``S + [D]``. An index outside ``[0, V)`` is clamped to the table (tensorfrost's
    indexing rule; torch raises). The gradient with respect to ``weight`` adds each
    output row's gradient into the row it came from.

    >>> vectors = tf.nn.embedding(token_ids, table)    # [B, T] ids, [V, D] table -> [B, T, D]
    """
    fn = "tf.nn.embedding"
    ids = tensor_arg(indices_, fn, "indices")
    if not ids.dtype.is_integer:
        raise DTypeError(f"{fn}: indices must be int32 or uint32, got {ids.dtype.name}", user_location())
    weight = float_arg(tensor_arg(weight, fn, "weight", ranks=(2,)), fn, "weight")
    axes = indices([*ids.shape, weight.shape[1]])
    rows = ids[axes[:-1]] if ids.ndim else ids
    return weight[rows, axes[-1]]


def linear(x, weight, bias=None):
    """``x @ weight.T + bias``, torch's layout: ``x`` [..., in], ``weight`` [out, in],
    ``bias`` [out]; shape ``[..., out]``.

    >>> y = tf.nn.linear(x, w, b)        # x [B, 64], w [10, 64], b [10] -> [B, 10]
    """
    fn = "tf.nn.linear"
    x = float_arg(tensor_arg(x, fn, "x"), fn, "x")
    weight = float_arg(tensor_arg(weight, fn, "weight", ranks=(2,)), fn, "weight")
    check_dim(x, x.ndim - 1, static_dim(weight, 1), fn, "x.shape[-1] (in features)")
    y = matmul(x, transpose(weight)) if x.ndim >= 2 else reduce_sum(weight * unsqueeze(x, 0), axis=1)
    return y if bias is None else y + tensor_arg(bias, fn, "bias", ranks=(1,))
