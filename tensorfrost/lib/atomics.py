"""``tf.scatterAddPrev``: an atomic add that also returns the value each element found.

Upstream runs it as a hardware fetch-and-add, whose order between elements is whatever the
GPU does. Here it is deterministic, as if the elements added in row-major order: element
``e`` gets the target's value plus the values of the earlier elements that add to the same
place. That is one stable sort of the target positions and a segmented scan, so it costs
more than a plain ``tf.scatterAdd``; it is meant for allocating slots (stream compaction,
bucket fills), where the order it gives is also the order a serial loop would::

    count = tf.zeros([1], tf.int32)
    slot = tf.scatterAddPrev(count[0], tf.int(keep))   # 0, 1, 2 ... over the kept elements
    out[slot] = x                                        # (where keep)
"""

from __future__ import annotations

from ..ir.errors import TraceError, user_location
from ..ir.ops import LOAD
from ..tracing import algorithms as alg
from ..tracing.api import buffer, indices, scatterAdd, zeros
from ..tracing.helpers import flat_index
from ..tracing.tensor import Tensor, node_of
from .scan import segmented_prefix_sum
from .sort import argsort


def scatterAddPrev(target: Tensor, value: Tensor | float) -> Tensor:  # noqa: N802 (upstream's name)
    """Add ``value`` into ``target`` (an indexed tensor, ``C[i]``) like ``tf.scatterAdd`` and
    return, per element, the value the target held before its own add (see the module
    docstring for the order).

    >>> def compact():
    ...     x = tf.input([-1], tf.float32)
    ...     i, = x.indices
    ...     keep = x > 0.0
    ...     count = tf.zeros([1], tf.int32)
    ...     slot = tf.scatterAddPrev(count[0], tf.int(keep))
    ...     out = tf.zeros(x.shape)
    ...     with tf.if_cond(keep):
    ...         out[slot] = x
    ...     return out, count
    >>> [r.numpy for r in tf.compile(compact)(np.array([3.0, -1.0, 4.0, -2.0, 5.0], np.float32))]
    [array([3., 4., 5., 0., 0.], dtype=float32), array([3], dtype=int32)]
    """
    if not isinstance(target, Tensor) or target.node.op is not LOAD:
        raise TraceError("tf.scatterAddPrev: the first argument must be an indexed tensor such as C[i]",
                         user_location())
    memory = Tensor(target.node.args[0])
    index = [Tensor(i) for i in target.node.args[1:]]
    value = Tensor(node_of(value, memory.dtype))
    if not target.ndim and not value.ndim:  # one element: nothing to order
        previous = target * 1
        scatterAdd(target, value)
        return previous
    grid = [Tensor(d) for d in target.node.shape] if target.ndim else [Tensor(d) for d in value.node.shape]
    count = grid[0]
    for d in grid[1:]:
        count = count * d
    values = alg.reshape(value + zeros(grid, memory.dtype), [count])
    places = alg.reshape(flat_index(memory.shape, index) + zeros(grid, index[0].dtype), [count])
    order = argsort(places)  # stable: equal places keep the elements' row-major order
    sorted_places, sorted_values = places[order], values[order]
    e, = indices([count])
    starts = (e == 0) | (sorted_places != sorted_places[e - 1])
    earlier = segmented_prefix_sum(sorted_values, starts, exclusive=True)
    total = memory.shape[0]
    for d in memory.shape[1:]:
        total = total * d
    found = alg.reshape(memory, [total])[sorted_places] + earlier
    previous = buffer([count], memory.dtype)
    previous[order] = found
    scatterAdd(target, value)
    return alg.reshape(previous, grid)
