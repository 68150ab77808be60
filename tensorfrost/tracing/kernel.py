"""Explicit kernels in upstream TensorFrost's spelling: ``tf.kernel``, ``tf.group_buffer``,
``tf.local_buffer``, ``tf.group_barrier``, ``index.block_thread_index(d)`` and
``index.block_index()``::

    C = tf.buffer([N, K], tf.float32)
    with tf.kernel([N, K], group_size=[BK, BK]) as (i, j):
        A_tile = tf.group_buffer(BK * BK, tf.float32)
        tx, ty = i.block_thread_index(1), i.block_thread_index(0)
        result = tf.const(0.0)
        with tf.loop(0, M, BK) as blk:
            A_tile[tx * BK + ty] = A[i, ty + blk]
            tf.group_barrier()
            with tf.loop(BK) as k:
                result.val += A_tile[tx * BK + k] * B[blk + k, j]
            tf.group_barrier()
        C[i, j] = result

The body is ordinary tensor code over the kernel's indices: it is traced like any other, and
the compiler places kernel boundaries where one thread reads what another wrote (as at a
barrier), so the result is the same as upstream's on every backend. A group buffer is one
row per thread group of a buffer in device memory (not yet the GPU's on-chip shared memory),
a local buffer one row per thread; a barrier adds nothing the data dependencies do not
already order. Upstream numbers the dims of ``block_thread_index`` from the last axis.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from ..ir import dtypes as dt
from ..ir.errors import ShapeError, TraceError, user_location
from ..ir.shapes import static_value
from .api import buffer, indices
from .helpers import flat_index
from .tensor import Tensor, node_of, provide

_OPEN: list = []  # the kernels being traced, innermost last


class _Kernel:
    def __init__(self, shape: list, group: list):
        self.indices = indices(shape)
        self.shape = [Tensor(d) for d in self.indices[0].node.shape]
        self.group = group
        self.groups_along = [(size + g - 1) // g for size, g in zip(self.shape, group)]
        self.group_id = flat_index(self.groups_along, [i // g for i, g in zip(self.indices, group)])
        self.group_count = _product(self.groups_along)


def _product(dims):
    total = dims[0]
    for d in dims[1:]:
        total = total * d
    return total


@contextmanager
def kernel(shape: Sequence[int | Tensor], group_size: Sequence[int] | None = None) -> Iterator:
    """A kernel over ``shape`` written as per-thread code; the value is the thread's index
    along each axis (one tensor for a 1-D shape, else a tuple). ``group_size`` groups threads
    for ``group_buffer`` and ``block_thread_index``, as upstream's: its entries are sizes
    along the last axes, the first entry the last axis (``[BK]`` groups each row of a
    ``[rows, BK]`` kernel), and axes without one have groups of 1. Without it, upstream's
    defaults: 256 threads along the last axis (1-D), 16 x 16 (2-D), 8 x 8 x 8 (the last
    three axes), each no larger than a constant dim.

    >>> def add_one():
    ...     x = tf.input([-1], tf.float32)
    ...     y = tf.buffer(x.shape, tf.float32)
    ...     with tf.kernel(x.shape) as i:
    ...         y[i] = x[i] + 1.0
    ...     return y
    >>> tf.compile(add_one)(np.array([1.0, 2.0, 3.0], np.float32)).numpy
    array([2., 3., 4.], dtype=float32)
    """
    shape = list(shape)
    if not shape:
        raise ShapeError("tf.kernel: the shape needs at least one axis", user_location())
    entries = _default_group(shape) if group_size is None else group_size
    if not isinstance(entries, (list, tuple)) or not 0 < len(entries) <= len(shape) \
            or not all(isinstance(g, int) and not isinstance(g, bool) and g > 0 for g in entries):
        raise ShapeError(f"tf.kernel: group_size needs one to {len(shape)} positive ints, sizes along the "
                         f"last axes of the shape (first entry: the last axis), got {group_size!r}",
                         user_location())
    group = [1] * len(shape)
    for k, size in enumerate(entries):
        group[len(shape) - 1 - k] = size
    state = _Kernel(shape, group)
    _OPEN.append(state)
    try:
        yield state.indices[0] if len(shape) == 1 else state.indices
    finally:
        _OPEN.pop()


def _default_group(shape: list) -> list:
    """Upstream's group size of a kernel given none, no larger than a dim known now."""
    entries = {1: [256], 2: [16, 16]}.get(len(shape), [8, 8, 8])
    known = [static_value(node_of(d, dt.int32)) for d in reversed(shape)]
    return [min(g, dim) if dim is not None and dim > 0 else g for g, dim in zip(entries, known)]


def _current(what: str) -> _Kernel:
    if not _OPEN:
        raise TraceError(f"{what} must be called inside `with tf.kernel(...)`", user_location())
    return _OPEN[-1]


class _RowBuffer:
    """One row of a device buffer per group (or per thread), indexed by position in the row."""

    __slots__ = ("memory", "row")

    def __init__(self, memory: Tensor, row: Tensor):
        self.memory, self.row = memory, row

    def __getitem__(self, index):
        return self.memory[self.row, index]

    def __setitem__(self, index, value):
        self.memory[self.row, index] = value


def group_buffer(size: int, dtype: dt.DType = dt.float32) -> _RowBuffer:
    """``size`` elements shared by the threads of a group (upstream's groupshared memory).

    >>> def row_sums():
    ...     x = tf.input([-1, 4], tf.float32)
    ...     rows = x.shape[0]
    ...     out = tf.buffer([rows], tf.float32)
    ...     with tf.kernel([rows, 4], group_size=[4]) as (r, c):
    ...         tile = tf.group_buffer(4, tf.float32)
    ...         tile[c] = x[r, c]
    ...         tf.group_barrier()
    ...         with tf.if_cond(c == 0):
    ...             out[r] = tile[0] + tile[1] + tile[2] + tile[3]
    ...     return out
    >>> tf.compile(row_sums)(np.arange(8, dtype=np.float32).reshape(2, 4)).numpy
    array([ 6., 22.], dtype=float32)
    """
    state = _current("tf.group_buffer")
    return _RowBuffer(buffer([state.group_count, size], dtype), state.group_id)


def local_buffer(size: int, dtype: dt.DType = dt.float32) -> _RowBuffer:
    """``size`` elements private to each thread.

    >>> def reversed_pairs():
    ...     x = tf.input([-1, 2], tf.float32)
    ...     out = tf.buffer(x.shape, tf.float32)
    ...     with tf.kernel([x.shape[0]]) as r:
    ...         pair = tf.local_buffer(2, tf.float32)
    ...         pair[0], pair[1] = x[r, 0], x[r, 1]
    ...         out[r, 0], out[r, 1] = pair[1], pair[0]
    ...     return out
    >>> tf.compile(reversed_pairs)(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)).numpy
    array([[2., 1.],
           [4., 3.]], dtype=float32)
    """
    state = _current("tf.local_buffer")
    return _RowBuffer(buffer([_product(state.shape), size], dtype), flat_index(state.shape, state.indices))


def group_barrier() -> None:
    """Wait for every thread of the group (upstream's barrier). Here kernel boundaries follow
    the data: a read of what another thread wrote is always ordered after the write.

    >>> def row_sums():
    ...     x = tf.input([-1, 4], tf.float32)
    ...     rows = x.shape[0]
    ...     out = tf.buffer([rows], tf.float32)
    ...     with tf.kernel([rows, 4], group_size=[4]) as (r, c):
    ...         tile = tf.group_buffer(4, tf.float32)
    ...         tile[c] = x[r, c]
    ...         tf.group_barrier()
    ...         with tf.if_cond(c == 0):
    ...             out[r] = tile[0] + tile[1] + tile[2] + tile[3]
    ...     return out
    >>> tf.compile(row_sums)(np.arange(8, dtype=np.float32).reshape(2, 4)).numpy
    array([ 6., 22.], dtype=float32)
    """
    _current("tf.group_barrier")


def block_thread_index(dim: int) -> Tensor:
    """The thread's position within its group along dim ``dim``, counted from the last axis
    as upstream does (``block_thread_index(0)`` is the last axis)."""
    state = _current("block_thread_index")
    axis = len(state.shape) - 1 - dim
    if not 0 <= axis < len(state.shape):
        raise ShapeError(f"block_thread_index({dim}): the kernel has {len(state.shape)} axes", user_location())
    return state.indices[axis] % state.group[axis]


def block_index() -> Tensor:
    """The flat index of the thread's group (row-major over the groups)."""
    return _current("block_index").group_id


provide(block_thread_index=block_thread_index, block_index=block_index)
