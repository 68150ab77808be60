"""``A[...]`` and ``A[...] = v``: numpy-style indices turned into loads and stores.

Indices may be integer tensors (gathers), Python ints, slices and ``...``. Integer
tensor and int indices broadcast together; their broadcast shape goes where numpy puts
it (in place when they are adjacent, first otherwise). Every index is clamped to the
tensor's bounds when the program runs, so no access leaves a buffer; in debug mode an index
out of bounds is an error instead (``bounds.py``).
"""

from __future__ import annotations

from ..ir import dtypes as dt
from ..ir.builder import current
from ..ir.errors import ShapeError, TraceError, user_location
from ..ir.node import Node
from ..ir.shapes import static_value
from .bounds import check_index
from .tensor import Tensor, check_index_dtype, node_of, provide


def load(tensor: Tensor, index) -> Tensor:
    memory = tensor.node
    idx, shape = _resolve(memory, index)
    return Tensor(current().make("load", [memory, *idx], dtype=memory.dtype, shape=shape))


def store(tensor: Tensor, index, value) -> None:
    if getattr(type(value), "is_vector", False):
        value.store_into(tensor, index)
        return
    builder = current()
    memory = tensor.node
    idx, shape = _resolve(memory, index)
    value_node = builder.cast(node_of(value, memory.dtype), memory.dtype)
    shape = builder.broadcast([shape, value_node.shape], "indexed assignment")
    builder.make("store", [memory, value_node, *idx], shape=shape)


def _resolve(memory: Node, index) -> tuple[list, tuple]:
    """(one index node per axis of ``memory``, shape of the accessed elements)."""
    builder = current()
    items = list(index) if isinstance(index, tuple) else [index]
    items = _expand_ellipsis(items, memory.rank)
    if len(items) > memory.rank:
        raise ShapeError(f"too many indices: {len(items)} for a tensor of rank {memory.rank}", user_location())
    items += [slice(None)] * (memory.rank - len(items))

    gathers = {}  # axis -> index node
    for axis, item in enumerate(items):
        if isinstance(item, slice):
            continue
        if item is None:
            raise TraceError("None (np.newaxis) is not supported in indices; use tf.unsqueeze",
                             user_location())
        if isinstance(item, int) and not isinstance(item, bool) and item < 0:
            item = Tensor(memory.shape[axis]) + item  # a negative Python int counts from the end
        node = node_of(item, dt.int32)
        check_index_dtype(node, f"index {axis}")
        check_index(memory, axis, node)
        gathers[axis] = node
    gather_shape = builder.broadcast([n.shape for n in gathers.values()], "indexing") if gathers else ()
    gather_axes = sorted(gathers)
    adjacent = gather_axes == list(range(gather_axes[0], gather_axes[-1] + 1)) if gather_axes else True

    # Output dims in order: slice sizes, with the gather shape at its numpy position.
    slices = [(axis, item) for axis, item in enumerate(items) if isinstance(item, slice)]
    place = sum(1 for axis, _ in slices if axis < gather_axes[0]) if (gather_axes and adjacent) else 0
    bounds = [_slice_bounds(memory.shape[axis], item) for axis, item in slices]
    slice_sizes = [size for _, _, size in bounds]
    out_shape = tuple(slice_sizes[:place]) + tuple(gather_shape) + tuple(slice_sizes[place:])
    trailing = len(slice_sizes) - place

    positions = {}
    for k, (axis, _) in enumerate(slices):
        positions[axis] = k if k < place else k + len(gather_shape)
    result = []
    grid = None
    for axis in range(memory.rank):
        if axis in gathers:
            result.append(_align(gathers[axis], trailing))
            continue
        if grid is None:
            grid = [builder.make("dim_id", attrs={"axis": a}, dtype=dt.int32, shape=out_shape)
                    for a in range(len(out_shape))]
        start, step, _ = bounds[[a for a, _ in slices].index(axis)]
        offset = grid[positions[axis]]
        if step != 1:
            offset = builder.elementwise("mul", [offset, builder.const(step, dt.int32)])
        if static_value(start) != 0:
            offset = builder.elementwise("add", [offset, start])
        result.append(offset)
    return result, out_shape


def _expand_ellipsis(items: list, rank: int) -> list:
    count = sum(1 for i in items if i is Ellipsis)
    if count > 1:
        raise ShapeError("an index can only have a single ellipsis ('...')", user_location())
    if count == 0:
        return items
    k = items.index(Ellipsis)
    fill = rank - (len(items) - 1)
    return items[:k] + [slice(None)] * max(fill, 0) + items[k + 1:]


def _align(node: Node, trailing: int) -> Node:
    """Give a gather index trailing axes of size 1 so that it broadcasts into place."""
    if trailing == 0 or node.rank == 0:
        return node
    builder = current()
    one = builder.const(1, dt.int32)
    for _ in range(trailing):
        node = builder.make("unsqueeze", [node], attrs={"axis": node.rank}, dtype=node.dtype,
                            shape=node.shape + (one,))
    return node


def _slice_bounds(dim: Node, item: slice):
    """(start node, step int, size node) of a slice over an axis of size ``dim``."""
    builder = current()
    step = 1 if item.step is None else item.step
    if not isinstance(step, int) or step == 0:
        raise ShapeError(f"slice step must be a non-zero Python int, got {item.step!r}", user_location())
    n = static_value(dim)
    plain = all(v is None or isinstance(v, int) for v in (item.start, item.stop))
    if n is not None and plain:
        start, stop, step = item.indices(n)
        size = len(range(start, stop, step))
        return builder.const(start, dt.int32), step, builder.const(size, dt.int32)

    def bound(value, default):
        if value is None:
            return default
        if isinstance(value, int) and value < 0:
            return builder.elementwise("add", [dim, builder.const(value, dt.int32)])
        return builder.cast(node_of(value, dt.int32), dt.int32)

    def clamp(node, lo, hi):
        return builder.elementwise("clamp", [node, lo, hi])

    zero, minus_one = builder.const(0, dt.int32), builder.const(-1, dt.int32)
    if step > 0:
        start = clamp(bound(item.start, zero), zero, dim)
        stop = clamp(bound(item.stop, dim), zero, dim)
        span = builder.elementwise("sub", [stop, start])
    else:
        last = builder.elementwise("sub", [dim, builder.const(1, dt.int32)])
        start = clamp(bound(item.start, last), minus_one, last)
        stop = clamp(bound(item.stop, minus_one), minus_one, last)
        span = builder.elementwise("sub", [start, stop])
    size = builder.elementwise("floordiv", [builder.elementwise("add", [span, builder.const(abs(step) - 1, dt.int32)]),
                                            builder.const(abs(step), dt.int32)])
    size = builder.elementwise("max", [size, zero])
    return start, step, size


provide(load=load, store=store)
