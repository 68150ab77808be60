"""Decoupled weight decay: applied to the parameter beside the optimizer's update, not
added to the gradient (as AdamW does), so Adam's scaling does not weaken it.

With learning rate ``lr``, a parameter ``p`` and its update ``u``::

    p_new = p - lr * u - lr * l2 * p - lr * l1 * sign(p)
"""

from __future__ import annotations

from ..ir.errors import TensorFrostError
from ..tracing.mathfn import sign

# Upstream 0.7's regularizer types: tf.optimizers.adam(net, reg_type=tf.regularizers.l2, reg=1e-4)
l1, l2, none = "l1", "l2", "none"


def regularization(reg_type, reg: float, l1_weight: float, l2_weight: float) -> tuple:
    """``(l1, l2)`` weights from upstream's ``reg_type`` and ``reg`` and our ``l1``/``l2``."""
    if reg_type in (None, none):
        return l1_weight, l2_weight
    if reg_type == l1:
        return l1_weight + float(reg), l2_weight
    if reg_type == l2:
        return l1_weight, l2_weight + float(reg)
    raise TensorFrostError(f"reg_type must be tf.regularizers.l1, l2 or none, got {reg_type!r}")


def decay(param, learning_rate, l1: float, l2: float):
    """The decay term ``lr * (l2 * p + l1 * sign(p))`` to subtract, or None without decay."""
    term = None
    if l2:
        term = param * l2
    if l1:
        term = sign(param) * l1 if term is None else term + sign(param) * l1
    return None if term is None else term * learning_rate
