"""Decoupled weight decay: applied to the parameter beside the optimizer's update, not
added to the gradient (as AdamW does), so Adam's scaling does not weaken it.

With learning rate ``lr``, a parameter ``p`` and its update ``u``::

    p_new = p - lr * u - lr * l2 * p - lr * l1 * sign(p)

>>> net = tf.Module()
>>> net.w = tf.Parameter([2], tf.float32)
>>> net.w = tf.tensor(np.array([2, -4], np.float32))
>>> opt = tf.optimizers.sgd(net, learning_rate=0.5, reg_type=tf.regularizers.l1, reg=0.5)
>>> _ = opt.compile_step(loss=lambda n: tf.sum(n.w * 0.0))()      # no gradient: decay only
>>> net.w.tolist()                                                  # w - 0.5 * 0.5 * sign(w)
[1.75, -3.75]
"""

from __future__ import annotations

from ..ir.errors import TensorFrostError
from ..tracing.mathfn import sign
from ..tracing.tensor import Tensor

# Upstream 0.7's regularizer types: tf.optimizers.adam(net, reg_type=tf.regularizers.l2, reg=1e-4)
l1, l2, none = "l1", "l2", "none"


def regularization(reg_type: str | None, reg: float, l1_weight: float, l2_weight: float) -> tuple[float, float]:
    """``(l1, l2)`` weights from upstream's ``reg_type`` and ``reg`` and our ``l1``/``l2``.

    >>> tf.regularizers.regularization(tf.regularizers.l2, 1e-4, 0.0, 0.0)
    (0.0, 0.0001)
    """
    if reg_type in (None, none):
        return l1_weight, l2_weight
    if reg_type == l1:
        return l1_weight + float(reg), l2_weight
    if reg_type == l2:
        return l1_weight, l2_weight + float(reg)
    raise TensorFrostError(f"reg_type must be tf.regularizers.l1, l2 or none, got {reg_type!r}")


def decay(param: Tensor, learning_rate: float | Tensor, l1: float, l2: float) -> Tensor | None:
    """The decay term ``lr * (l2 * p + l1 * sign(p))`` to subtract, or None without decay.

    >>> tf.compile(lambda: tf.regularizers.decay(tf.input([2], tf.float32), 0.5, 0.25, 0.5))(
    ...     np.array([2, -4], np.float32)).tolist()              # 0.5 * (0.5 p + 0.25 sign(p))
    [0.625, -1.125]
    >>> tf.regularizers.decay(None, 0.5, 0.0, 0.0) is None
    True
    """
    term = None
    if l2:
        term = param * l2
    if l1:
        term = sign(param) * l1 if term is None else term + sign(param) * l1
    return None if term is None else term * learning_rate
