"""Scans (running sums, products, maxima and minima) inside tensor programs.

``tf.prefix_sum`` (also ``tf.cumsum``), ``tf.cumprod``, ``tf.cummax`` and ``tf.cummin`` scan
along any axis, inclusive (numpy's ``cumsum``) or exclusive (each element gets the result
of the elements before it, the first one the identity: 0, 1, -inf or +inf), forward or in
reverse. ``tf.segmented_prefix_sum`` restarts the sum where a flag is set. They work on
float32, int32 and uint32 tensors (bool counts as int32) whose sizes may be known only
when the program runs::

    def program():
        x = tf.input([-1], tf.float32)
        return [tf.prefix_sum(x), tf.cumsum(x, exclusive=True), tf.cummax(x)]

``prefix_sum``, ``cumprod``, ``cummax`` and ``cummin`` are differentiable (float32).

How they run: each scan is one node while the program is differentiated (its gradient is a
scan the other way); before lowering it becomes three kernels over blocks of the scanned
axis. A line of ``n`` elements is cut into about ``sqrt(n)`` blocks (fewer when there are
many independent lines, so that there are about 4096 blocks in all): each block's total
(one thread per block), the exclusive scan of those totals along each line (one thread per
line), and the scan within each block starting from its block's offset (one thread per
block). That is about ``2n`` reads and ``2n`` writes (the output buffer is zeroed when it
is made), spread over all cores (cpu) or threads (opengl). With many lines (static
shapes) it is a single serial loop per line. Float sums add in a different order than
numpy's serial loop: the error stays within a float32 sum's usual bound (about
``n * eps * sum(|x|)`` at worst).
"""

from __future__ import annotations

from ..ir.errors import ShapeError, user_location
from ..ir.shapes import normalize_axis
from ..tracing import algorithms as alg
from ..tracing.blocked_scan import blocked_scan
from ..tracing.mathfn import bool as to_bool
from ..tracing.mathfn import int as to_int
from ..tracing.mathfn import select
from ..tracing.tensor import Tensor, node_of


def prefix_sum(x: Tensor, axis: int = -1, exclusive: bool = False, reverse: bool = False) -> Tensor:
    """Running sum along ``axis`` (numpy's ``cumsum``); the shape is unchanged.

    Parameters
    ----------
    x : Tensor of float32, int32 or uint32 (bool is counted as int32), any shape
    axis : the axis to scan (default: the last)
    exclusive : if True, element ``i`` is the sum of the elements before ``i`` (0 first)
    reverse : if True, scan from the end: element ``i`` sums ``i`` and the elements after it

    Differentiable (float32): the gradient is the same scan in the other direction.

    Example
    -------
    >>> def program():
    ...     x = tf.input([-1], tf.int32)
    ...     return [tf.prefix_sum(x), tf.prefix_sum(x, exclusive=True)]
    >>> [r.numpy for r in tf.compile(program)(np.array([3, 1, 2], np.int32))]
    [array([3, 4, 6], dtype=int32), array([0, 3, 4], dtype=int32)]
    """
    return alg.scan("prefix_sum", x, axis, exclusive, reverse)


cumsum = prefix_sum


def cumprod(x: Tensor, axis: int = -1, exclusive: bool = False, reverse: bool = False) -> Tensor:
    """Running product along ``axis`` (numpy's ``cumprod``); exclusive starts from 1.

    Same arguments as ``prefix_sum``. Differentiable (float32); the gradient at an element
    that is exactly 0 is not defined (it divides by the element) and comes out inf or NaN.

    >>> f = tf.compile(lambda: tf.cumprod(tf.input([-1], tf.int32)))
    >>> f(np.array([2, 3, 4], np.int32)).numpy
    array([ 2,  6, 24], dtype=int32)
    """
    return alg.scan("prefix_prod", x, axis, exclusive, reverse)


def cummax(x: Tensor, axis: int = -1, exclusive: bool = False, reverse: bool = False) -> Tensor:
    """Running maximum along ``axis`` (``np.maximum.accumulate``); exclusive starts from
    -inf (float) or the dtype's smallest value. A NaN propagates from where it appears.
    Same arguments as ``prefix_sum``. Differentiable: each output's gradient goes to the
    element its maximum came from (the latest in scan order among ties, as ``torch.cummax``).

    >>> f = tf.compile(lambda: tf.cummax(tf.input([-1], tf.float32)))
    >>> f(np.array([1.0, 3.0, 2.0, 5.0], np.float32)).numpy
    array([1., 3., 3., 5.], dtype=float32)
    """
    return alg.scan("prefix_max", x, axis, exclusive, reverse)


def cummin(x: Tensor, axis: int = -1, exclusive: bool = False, reverse: bool = False) -> Tensor:
    """Running minimum along ``axis`` (``np.minimum.accumulate``); exclusive starts from
    +inf (float) or the dtype's largest value. A NaN propagates from where it appears.
    Same arguments and gradient rule as ``cummax``.

    >>> f = tf.compile(lambda: tf.cummin(tf.input([-1], tf.float32)))
    >>> f(np.array([4.0, 2.0, 3.0, 1.0], np.float32)).numpy
    array([4., 2., 2., 1.], dtype=float32)
    """
    return alg.scan("prefix_min", x, axis, exclusive, reverse)


def segmented_prefix_sum(x: Tensor, flags: Tensor, axis: int = -1, exclusive: bool = False) -> Tensor:
    """Running sum along ``axis`` that restarts at every element whose flag is set.

    Convention: ``flags`` (bool or int, nonzero = set, the shape of ``x``) marks the first
    element of each segment; the sum at element ``i`` covers the elements from the last
    set flag at or before ``i`` up to ``i`` (exclusive: up to ``i - 1``, so 0 at a segment's
    first element). The first element always starts a segment. Not differentiable.

    >>> def per_segment():
    ...     x = tf.input([-1], tf.int32)
    ...     starts = tf.input(x.shape, tf.int32)
    ...     return [tf.segmented_prefix_sum(x, starts), tf.segmented_prefix_sum(x, starts, exclusive=True)]
    >>> x, starts = np.array([1, 2, 3, 4, 5], np.int32), np.array([0, 0, 1, 0, 1], np.int32)
    >>> [r.numpy for r in tf.compile(per_segment)(x, starts)]
    [array([1, 3, 3, 7, 5], dtype=int32), array([0, 1, 0, 3, 0], dtype=int32)]
    """
    x, flags = Tensor(node_of(x)), Tensor(node_of(flags))
    if x.node.rank == 0:
        raise ShapeError("segmented_prefix_sum: cannot scan a scalar (rank 0)", user_location())
    if flags.node.rank != x.node.rank:
        raise ShapeError(f"segmented_prefix_sum: flags must have the shape of x (rank {x.node.rank}), got "
                         f"rank {flags.node.rank}", user_location())
    axis = normalize_axis(axis, x.node.rank, "segmented_prefix_sum axis")
    if x.dtype.is_bool:
        x = to_int(x)
    flags = flags if flags.dtype.is_bool else to_bool(flags)

    def combine(before, after):
        # (segment started, sum since the last start): the later part wins where it starts one
        return [before[0] | after[0], select(after[0], after[1], before[1] + after[1])]

    _, total = blocked_scan([flags, x], axis, combine, [False, 0], exclusive, False)
    # exclusive: the scan gives the sum of the elements before i, which at a segment's
    # first element still belongs to the previous segment
    return select(flags, 0, total) if exclusive else total


__all__ = ["prefix_sum", "cumsum", "cumprod", "cummax", "cummin", "segmented_prefix_sum", "blocked_scan"]
