"""Gradient clipping, applied by optimizers before their update (``grad_clip``, ``clip_mode``).

- ``"value"``: every element is clamped to ``[-limit, limit]`` (the seed's ``grad_clip``);
- ``"norm"``: each gradient tensor is scaled down to Euclidean norm ``limit`` if longer;
- ``"global_norm"``: all gradients together are scaled down to a joint norm of ``limit``
  (``torch.nn.utils.clip_grad_norm_``).

>>> net = tf.Module()
>>> net.w = tf.Parameter([2], tf.float32)
>>> net.w = tf.tensor(np.array([3, 4], np.float32))
>>> opt = tf.optimizers.sgd(net, learning_rate=1.0, grad_clip=1.0, clip_mode="norm")
>>> step = opt.compile_step(loss=lambda n: tf.sum(n.w * n.w))    # grad 2w = [6, 8], norm 10
>>> _ = step()
>>> np.round(net.w.numpy, 5)                                     # w - [6, 8] / 10
array([2.4, 3.2], dtype=float32)
"""

from __future__ import annotations

from ..ir.errors import TensorFrostError
from ..tracing.algorithms import sum as tf_sum
from ..tracing.mathfn import clamp as clamp_values
from ..tracing.mathfn import max as tf_max
from ..tracing.mathfn import sqrt
from ..tracing.tensor import Tensor

MODES = ("value", "norm", "global_norm")
# Upstream 0.7's clipping types, for opt.set_clipping_type(tf.clipping.norm)
clamp, norm, none = "value", "norm", "off"


def check_mode(mode: str) -> str:
    """``mode`` if it is one of ``MODES``, else a TensorFrostError naming them.

    >>> tf.clipping.check_mode("global_norm")
    'global_norm'
    >>> tf.clipping.check_mode("max")
    Traceback (most recent call last):
    tensorfrost.ir.errors.TensorFrostError: clip_mode must be one of 'value', 'norm', 'global_norm', got 'max'
    """
    if mode not in MODES:
        raise TensorFrostError(f"clip_mode must be one of {', '.join(map(repr, MODES))}, got {mode!r}")
    return mode


def squared_norm(x: Tensor) -> Tensor:
    """The sum of squares of every element of ``x``, as a scalar tensor.

    >>> tf.compile(lambda: tf.clipping.squared_norm(tf.input([-1, -1], tf.float32)))(
    ...     np.array([[1, 2], [3, 4]], np.float32)).item()
    30.0
    """
    total = x * x
    if total.ndim == 0:
        return total
    for _ in range(total.ndim):
        total = tf_sum(total)
    return total[0]


def clip_gradients(grads: list[Tensor], limit: float | Tensor, mode: str) -> list[Tensor]:
    """``grads`` clipped to ``limit`` in the given mode (see the module docstring).

    >>> def clipped(mode):
    ...     def program():
    ...         a, b = tf.input([2], tf.float32), tf.input([1], tf.float32)
    ...         return tf.clipping.clip_gradients([a, b], 5.0, mode)
    ...     outputs = tf.compile(program, name=mode)(np.array([3, 4], np.float32), np.array([12], np.float32))
    ...     return [np.round(t.numpy.astype(np.float64), 4).tolist() for t in outputs]
    >>> clipped("value")               # each element into [-5, 5]
    [[3.0, 4.0], [5.0]]
    >>> clipped("norm")                # each tensor to norm 5 at most
    [[3.0, 4.0], [5.0]]
    >>> clipped("global_norm")         # together: norm 13 scaled to 5
    [[1.1538, 1.5385], [4.6154]]
    """
    if mode == "value":
        return [clamp_values(g, -limit, limit) for g in grads]
    if mode == "norm":
        return [g * (limit / tf_max(sqrt(squared_norm(g)), limit)) for g in grads]
    total = squared_norm(grads[0])
    for g in grads[1:]:
        total = total + squared_norm(g)
    scale = limit / tf_max(sqrt(total), limit)
    return [g * scale for g in grads]
