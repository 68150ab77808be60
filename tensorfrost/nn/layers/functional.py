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
from ...tracing.tensor import Tensor
from ._args import check_dim, float_arg, probability, static_dim, tensor_arg

__all__ = ["relu", "sigmoid", "silu", "gelu", "softmax", "log_softmax", "cross_entropy", "dropout",
           "embedding", "linear"]

# Abramowitz and Stegun 7.1.26: erf to 1.5e-7 absolute, below float32's rounding near 1.
_ERF_P = 0.3275911
_ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def relu(x: Tensor) -> Tensor:
    """``max(x, 0)`` elementwise; NaN stays NaN and the gradient at 0 is 0 (as torch).

    >>> relu = tf.compile(lambda: tf.nn.relu(tf.input([-1], tf.float32)))
    >>> relu(np.array([-1.5, 0, 2, np.nan], np.float32)).tolist()
    [0.0, 0.0, 2.0, nan]
    """
    return select(x > 0.0, x, select(x != x, x, 0.0))


def sigmoid(x: Tensor) -> Tensor:
    """The logistic function ``1 / (1 + exp(-x))`` elementwise, computed from
    ``exp(-|x|)`` so that neither it nor its gradient overflows for large ``|x|``.

    >>> sigmoid = tf.compile(lambda: tf.nn.sigmoid(tf.input([-1], tf.float32)))
    >>> x = np.array([-2, 0, 2, 200], np.float32)
    >>> np.round(sigmoid(x).numpy, 4), np.round(1 / (1 + np.exp(-x.astype(np.float64))), 4)
    (array([0.1192, 0.5   , 0.8808, 1.    ], dtype=float32), array([0.1192, 0.5   , 0.8808, 1.    ]))
    """
    side = _side(x)
    e = exp(-(x * side))
    return select(x >= 0.0, 1.0 / (1.0 + e), e / (1.0 + e))


def _side(x):
    """1 where ``x >= 0``, else -1: ``x * _side(x)`` is ``|x|`` with the gradient ``side``
    also at 0 (``abs`` has none there)."""
    return select(x >= 0.0, 1.0, -1.0).astype(x.dtype)


def silu(x: Tensor) -> Tensor:
    """SiLU (swish): ``x * sigmoid(x)`` elementwise.

    >>> silu = tf.compile(lambda: tf.nn.silu(tf.input([-1], tf.float32)))
    >>> np.round(silu(np.array([-1, 0, 1], np.float32)).numpy, 4)       # x / (1 + exp(-x))
    array([-0.2689,  0.    ,  0.7311], dtype=float32)
    """
    return x * sigmoid(x)


def _erf(x):
    side = _side(x)
    magnitude = x * side
    t = 1.0 / (1.0 + _ERF_P * magnitude)
    poly = t * (_ERF_A[0] + t * (_ERF_A[1] + t * (_ERF_A[2] + t * (_ERF_A[3] + t * _ERF_A[4]))))
    return side * (1.0 - poly * exp(-magnitude * magnitude))


def gelu(x: Tensor, approximate: str = "none") -> Tensor:
    """GELU, ``x * Phi(x)`` with Phi the standard normal CDF, elementwise (torch's two forms).

    ``approximate="none"``: the exact form ``0.5 x (1 + erf(x / sqrt 2))``, erf from
    Abramowitz and Stegun 7.1.26 (1.5e-7 absolute error, within float32's rounding);
    ``approximate="tanh"``: ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``.

    >>> def both(x: tf.Arg([-1], tf.float32)):
    ...     return [tf.nn.gelu(x), tf.nn.gelu(x, approximate="tanh")]
    >>> exact, approximate = tf.compile(both)(np.array([-1, 0, 1], np.float32))
    >>> np.round(exact.numpy, 4), np.round(approximate.numpy, 4)
    (array([-0.1587,  0.    ,  0.8413], dtype=float32), array([-0.1588,  0.    ,  0.8412], dtype=float32))
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


def softmax(x: Tensor, axis: int = -1) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``axis``, computed as ``exp(x - max)`` so that large
    values do not overflow. Same shape and dtype (float32) as ``x``.

    >>> softmax = tf.compile(lambda: tf.nn.softmax(tf.input([-1, -1], tf.float32), axis=1))
    >>> probs = softmax(np.array([[1, 2, 3], [1000, 1000, 1000]], np.float32)).numpy   # no overflow
    >>> np.round(probs, 4)
    array([[0.09  , 0.2447, 0.6652],
           [0.3333, 0.3333, 0.3333]], dtype=float32)
    """
    shifted, axis = _shifted(x, axis, "tf.nn.softmax")
    e = exp(shifted)
    return e / unsqueeze(reduce_sum(e, axis=axis), axis)


def log_softmax(x: Tensor, axis: int = -1) -> Tensor:
    """``log(softmax(x))`` along ``axis``, as ``x - max - log(sum(exp(x - max)))``: finite
    for any finite input (no log of 0 when one value dominates).

    >>> log_softmax = tf.compile(lambda: tf.nn.log_softmax(tf.input([-1, -1], tf.float32), axis=1))
    >>> np.round(log_softmax(np.array([[0, 0], [0, 200]], np.float32)).numpy, 4)
    array([[  -0.6931,   -0.6931],
           [-200.    ,    0.    ]], dtype=float32)
    """
    shifted, axis = _shifted(x, axis, "tf.nn.log_softmax")
    return shifted - unsqueeze(log(reduce_sum(exp(shifted), axis=axis)), axis)


def cross_entropy(logits: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """Softmax cross-entropy of ``logits`` [B, C] against ``target``, as torch's
    ``F.cross_entropy``: ``target`` is either int32 class labels [B] (a label outside
    ``[0, C)`` picks no class and contributes 0) or float32 class probabilities [B, C]
    (one-hot rows, or soft labels). Numerically stable (log-softmax with the row max
    subtracted). ``reduction``: ``"mean"`` over the batch (shape [1]), ``"sum"`` or
    ``"none"`` (the per-row losses [B]).

    >>> def loss_and_grad():
    ...     logits = tf.input([-1, -1], tf.float32)
    ...     labels = tf.input([-1], tf.int32)
    ...     loss = tf.nn.cross_entropy(logits, labels)
    ...     return [loss, tf.grad(loss, logits)]
    >>> loss, grad = tf.compile(loss_and_grad)(np.zeros((2, 2), np.float32), np.array([0, 1], np.int32))
    >>> np.round(loss.numpy, 4), round(float(np.log(2)), 4)     # two equal classes: log 2
    (array([0.6931], dtype=float32), 0.6931)
    >>> grad.numpy                                       # (softmax - onehot) / B
    array([[-0.25,  0.25],
           [ 0.25, -0.25]], dtype=float32)
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


def dropout(x: Tensor, p: float = 0.5, seed: int | Tensor = 0, training: bool = True) -> Tensor:
    """Zero each element of ``x`` with probability ``p`` and scale the rest by ``1 / (1 - p)``
    (so the expected value is unchanged); ``training=False`` or ``p=0`` returns ``x``.

    The mask comes from ``tf.random.dropout_mask``: ``seed`` is an int or an int32/uint32
    [1] program input, so a compiled step draws a new mask per call without recompiling.

    >>> def drop(h: tf.Arg([-1], tf.float32), seed: tf.Arg([1], tf.uint32)):
    ...     return tf.nn.dropout(h, 0.5, seed)
    >>> drop = tf.compile(drop)
    >>> y = drop(np.ones(1000, np.float32), np.array([7], np.uint32)).numpy
    >>> sorted(set(y.tolist())), bool(abs(y.mean() - 1.0) < 0.15)   # zeros and 1 / (1 - p)
    ([0.0, 2.0], True)
    """
    fn = "tf.nn.dropout"
    x = float_arg(tensor_arg(x, fn, "x"), fn, "x")
    p = probability(p, fn, "p")
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return x * 0.0
    return x * tf_random.dropout_mask(x.shape, p, seed)


def embedding(indices_: Tensor, weight: Tensor) -> Tensor:
    """Rows of ``weight`` [V, D] picked by the int32 ``indices_`` (any shape S): shape
    ``S + [D]``. An index outside ``[0, V)`` is clamped to the table (tensorfrost's
    indexing rule; torch raises). The gradient with respect to ``weight`` adds each
    output row's gradient into the row it came from.

    >>> def lookup(ids: tf.Arg([-1, -1], tf.int32), table: tf.Arg([-1, -1], tf.float32)):
    ...     return tf.nn.embedding(ids, table)           # [B, T] ids, [V, D] table -> [B, T, D]
    >>> table = np.array([[0, 0], [1, 10], [2, 20]], np.float32)
    >>> tf.compile(lookup)(np.array([[2, 0, 1]], np.int32), table).tolist()
    [[[2.0, 20.0], [0.0, 0.0], [1.0, 10.0]]]
    """
    fn = "tf.nn.embedding"
    ids = tensor_arg(indices_, fn, "indices")
    if not ids.dtype.is_integer:
        raise DTypeError(f"{fn}: indices must be int32 or uint32, got {ids.dtype.name}", user_location())
    weight = float_arg(tensor_arg(weight, fn, "weight", ranks=(2,)), fn, "weight")
    axes = indices([*ids.shape, weight.shape[1]])
    rows = ids[axes[:-1]] if ids.ndim else ids
    return weight[rows, axes[-1]]


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``x @ weight.T + bias``, torch's layout: ``x`` [..., in], ``weight`` [out, in],
    ``bias`` [out]; shape ``[..., out]``.

    >>> def dense(x: tf.Arg([-1, 2], tf.float32), w: tf.Arg([3, 2], tf.float32), b: tf.Arg([3], tf.float32)):
    ...     return tf.nn.linear(x, w, b)                # x [B, 2], w [3, 2], b [3] -> [B, 3]
    >>> w = np.array([[1, 0], [0, 1], [1, 1]], np.float32)
    >>> tf.compile(dense)(np.array([[1, 2]], np.float32), w, np.array([0, 0, 10], np.float32)).tolist()
    [[1.0, 2.0, 13.0]]
    """
    fn = "tf.nn.linear"
    x = float_arg(tensor_arg(x, fn, "x"), fn, "x")
    weight = float_arg(tensor_arg(weight, fn, "weight", ranks=(2,)), fn, "weight")
    check_dim(x, x.ndim - 1, static_dim(weight, 1), fn, "x.shape[-1] (in features)")
    y = matmul(x, transpose(weight)) if x.ndim >= 2 else reduce_sum(weight * unsqueeze(x, 0), axis=1)
    return y if bias is None else y + tensor_arg(bias, fn, "bias", ranks=(1,))
