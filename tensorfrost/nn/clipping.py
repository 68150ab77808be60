"""Gradient clipping, applied by optimizers before their update (``grad_clip``, ``clip_mode``).

- ``"value"``: every element is clamped to ``[-limit, limit]`` (the seed's ``grad_clip``);
- ``"norm"``: each gradient tensor is scaled down to Euclidean norm ``limit`` if longer;
- ``"global_norm"``: all gradients together are scaled down to a joint norm of ``limit``
  (``torch.nn.utils.clip_grad_norm_``).
"""

from __future__ import annotations

from ..ir.errors import TensorFrostError
from ..tracing.algorithms import sum as tf_sum
from ..tracing.mathfn import clamp as clamp_values
from ..tracing.mathfn import max as tf_max
from ..tracing.mathfn import sqrt

MODES = ("value", "norm", "global_norm")
# Upstream 0.7's clipping types, for opt.set_clipping_type(tf.clipping.norm)
clamp, norm, none = "value", "norm", "off"


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise TensorFrostError(f"clip_mode must be one of {', '.join(map(repr, MODES))}, got {mode!r}")
    return mode


def squared_norm(x):
    """The sum of squares of every element of ``x``, as a scalar tensor."""
    total = x * x
    if total.ndim == 0:
        return total
    for _ in range(total.ndim):
        total = tf_sum(total)
    return total[0]


def clip_gradients(grads: list, limit, mode: str) -> list:
    """``grads`` clipped to ``limit`` in the given mode (see the module docstring)."""
    if mode == "value":
        return [clamp_values(g, -limit, limit) for g in grads]
    if mode == "norm":
        return [g * (limit / tf_max(sqrt(squared_norm(g)), limit)) for g in grads]
    total = squared_norm(grads[0])
    for g in grads[1:]:
        total = total + squared_norm(g)
    scale = limit / tf_max(sqrt(total), limit)
    return [g * scale for g in grads]
