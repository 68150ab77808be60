"""Decoupled weight decay: applied to the parameter beside the optimizer's update, not
added to the gradient (as AdamW does), so Adam's scaling does not weaken it.

With learning rate ``lr``, a parameter ``p`` and its update ``u``::

    p_new = p - lr * u - lr * l2 * p - lr * l1 * sign(p)
"""

from __future__ import annotations

from ..tracing.mathfn import sign


def decay(param, learning_rate, l1: float, l2: float):
    """The decay term ``lr * (l2 * p + l1 * sign(p))`` to subtract, or None without decay."""
    term = None
    if l2:
        term = param * l2
    if l1:
        term = sign(param) * l1 if term is None else term + sign(param) * l1
    return None if term is None else term * learning_rate
