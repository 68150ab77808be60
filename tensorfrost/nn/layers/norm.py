"""Normalization: ``tf.nn.layer_norm`` (over the trailing axes of each sample) and
``tf.nn.batch_norm`` (per channel over the batch, with running statistics for evaluation).

Both compute the mean first and then the mean of squared deviations (two passes, not
``E[x^2] - E[x]^2``, which loses the variance to cancellation when the mean is large).
"""

from __future__ import annotations

from ...ir.errors import ArgumentError, ShapeError, user_location
from ...tracing.algorithms import mean, reshape, unsqueeze
from ...tracing.mathfn import float as to_float
from ...tracing.mathfn import max as maximum
from ...tracing.mathfn import rsqrt
from ...tracing.tensor import Tensor
from ._args import check_dim, float_arg, tensor_arg

__all__ = ["layer_norm", "batch_norm"]


def _trailing_mean(x, count: int):
    """The mean over the last ``count`` axes, kept as axes of size 1 (equal-size axes: the
    mean of means is the mean)."""
    m = x
    for _ in range(count):
        m = mean(m, axis=-1)
    for _ in range(count):
        m = unsqueeze(m, -1)
    return m


def _normalized_axes(x, normalized_shape, fn: str) -> int:
    shape = [normalized_shape] if isinstance(normalized_shape, int) else normalized_shape
    if isinstance(shape, (list, tuple)) and shape and all(isinstance(d, int) and not isinstance(d, bool)
                                                         for d in shape):
        if len(shape) > x.ndim:
            raise ShapeError(f"{fn}: normalized_shape {list(shape)} has more axes than x (rank {x.ndim})",
                             user_location())
        for k, size in enumerate(shape):
            if size >= 0:
                check_dim(x, x.ndim - len(shape) + k, size, fn, f"x.shape[{k - len(shape)}]")
        return len(shape)
    raise ArgumentError(f"{fn}: normalized_shape must be an int or a non-empty list of ints (-1: any size), got "
                        f"{normalized_shape!r}", user_location())


def layer_norm(x: Tensor, normalized_shape: int | list[int], weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Layer normalization, as ``torch.nn.functional.layer_norm``: each sample is shifted and
    scaled to mean 0 and (biased) variance 1 over its trailing axes, then ``* weight + bias``.

    Parameters
    ----------
    x : float32 [..., *normalized_shape]
    normalized_shape : int or list of ints
        The sizes of the trailing axes to normalize over (their number is what matters;
        -1 accepts any size, a known size is checked).
    weight, bias : float32 of shape normalized_shape, optional
    eps : float
        Added to the variance.

    >>> norm = tf.compile(lambda: tf.nn.layer_norm(tf.input([-1, -1], tf.float32), -1))   # last axis, no affine
    >>> x = np.array([[1, 2, 3], [10, 10, 40]], np.float32)
    >>> np.round(norm(x).numpy, 4)
    array([[-1.2247,  0.    ,  1.2247],
           [-0.7071, -0.7071,  1.4142]], dtype=float32)
    >>> np.round((x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5), 4)
    array([[-1.2247,  0.    ,  1.2247],
           [-0.7071, -0.7071,  1.4142]], dtype=float32)
    """
    fn = "tf.nn.layer_norm"
    x = float_arg(tensor_arg(x, fn, "x"), fn, "x")
    count = _normalized_axes(x, normalized_shape, fn)
    centered = x - _trailing_mean(x, count)
    y = centered * rsqrt(_trailing_mean(centered * centered, count) + eps)
    if weight is not None:
        y = y * float_arg(tensor_arg(weight, fn, "weight", ranks=(count,)), fn, "weight")
    if bias is not None:
        y = y + float_arg(tensor_arg(bias, fn, "bias", ranks=(count,)), fn, "bias")
    return y


def _channel_view(v, rank: int, channels):
    """A per-channel vector [C] shaped to broadcast against [N, C, ...] of ``rank``."""
    return reshape(v, [1, channels] + [1] * (rank - 2))


def _channel_mean(x):
    """The mean over every axis but axis 1: [C]."""
    m = x
    for _ in range(x.ndim - 2):
        m = mean(m, axis=-1)
    return mean(m, axis=0)


def batch_norm(x: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
               weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> Tensor | tuple[Tensor, Tensor, Tensor]:
    """Batch normalization, as ``torch.nn.functional.batch_norm``, per channel (axis 1) of
    ``x`` [N, C] or [N, C, ...].

    ``training=True`` normalizes with the batch's own mean and biased variance; when
    running statistics are given it returns ``(y, new_running_mean, new_running_var)``,
    the running values moved by ``momentum`` towards the batch's (the variance unbiased,
    ``n / (n - 1)``, as torch does) -- tensors are never updated in place, so return them
    from the program. ``training=False`` normalizes with ``running_mean`` and
    ``running_var`` (both needed) and returns ``y``. ``weight`` and ``bias`` [C] scale and
    shift the result.

    >>> def train(x: tf.Arg([-1, 1], tf.float32), mean: tf.Arg([1], tf.float32), var: tf.Arg([1], tf.float32)):
    ...     return list(tf.nn.batch_norm(x, mean, var, training=True))
    >>> y, mean, var = tf.compile(train)(np.array([[1], [3]], np.float32), np.zeros(1, np.float32),
    ...                                  np.ones(1, np.float32))
    >>> np.round(y.numpy[:, 0], 4), np.round(mean.numpy, 4), np.round(var.numpy, 4)   # var of [1, 3]: 2 unbiased
    (array([-1.,  1.], dtype=float32), array([0.2], dtype=float32), array([1.1], dtype=float32))
    """
    fn = "tf.nn.batch_norm"
    x = float_arg(tensor_arg(x, fn, "x", ranks=(2, 3, 4, 5)), fn, "x")
    channels, stats = x.shape[1], (running_mean, running_var)
    for name, value in zip(("running_mean", "running_var", "weight", "bias"), (*stats, weight, bias)):
        if value is not None:
            float_arg(tensor_arg(value, fn, name, ranks=(1,)), fn, name)
    if training:
        batch_mean = _channel_mean(x)
        centered = x - _channel_view(batch_mean, x.ndim, channels)
        batch_var = _channel_mean(centered * centered)
        y = centered * _channel_view(rsqrt(batch_var + eps), x.ndim, channels)
    elif running_mean is None or running_var is None:
        raise ArgumentError(f"{fn}: evaluation (training=False) needs running_mean and running_var",
                            user_location())
    else:
        scale = rsqrt(running_var + eps)
        y = (x - _channel_view(running_mean, x.ndim, channels)) * _channel_view(scale, x.ndim, channels)
    if weight is not None:
        y = y * _channel_view(weight, x.ndim, channels)
    if bias is not None:
        y = y + _channel_view(bias, x.ndim, channels)
    if not training or running_mean is None or running_var is None:
        return y
    count = to_float(x.shape[0])
    for axis in range(2, x.ndim):
        count = count * to_float(x.shape[axis])
    # one value per channel has no unbiased variance (torch: inf); keep the running value finite
    unbiased = batch_var * (count / maximum(count - 1.0, 1.0))
    new_mean = running_mean * (1.0 - momentum) + batch_mean.detach_grad() * momentum
    new_var = running_var * (1.0 - momentum) + unbiased.detach_grad() * momentum
    return y, new_mean, new_var
