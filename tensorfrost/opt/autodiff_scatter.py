"""The gradient of a load: add it into the memory's adjoint at the load's index, with as
few atomics as the indices allow.

A load over a grid whose index ignores some axes (in a convolution, the weights do not
depend on the batch and pixel axes) gets the same element's gradient from every point of
those axes: they are summed first, by a reduction. If the index of what remains maps the
grid one-to-one onto the memory (each axis a grid index, or a pair ``t % n``, ``t / n``
covering a flattened axis), no two elements collide and a plain read-add-write replaces
the atomic scatter.
"""

from __future__ import annotations

from ..ir import dtypes as dt
from ..ir.builder import current
from ..ir.node import Node
from ..ir.ops import CONST, DIM_ID, DIV, MOD, MUL
from ..ir.shapes import dims_equal, shapes_equal
from ..tracing import algorithms as alg
from ..tracing.api import scatterAdd
from ..tracing.tensor import Tensor

_REINDEXABLE = ("elementwise",)


def _grid_axes(node: Node, grid, found: set, mutable) -> bool:
    """Collect the grid axes ``node`` depends on; False if it reads memory (not re-indexable),
    a buffer written by index (a ``const`` that is mutable) included."""
    if node in mutable:
        return False
    if node.op is DIM_ID:
        if shapes_equal(node.shape, grid):
            found.add(node.attrs["axis"])
            return True
        return False
    if node.rank == 0:
        return True
    if node.op is CONST:
        return True
    if node.op.kind not in _REINDEXABLE:
        return False
    return all(_grid_axes(a, grid, found, mutable) for a in node.args)


def _reindex(node: Node, grid, new_axes: dict, new_grid: list, memo: dict) -> Node:
    if node in memo:
        return memo[node]
    builder = current()
    if node.op is DIM_ID and shapes_equal(node.shape, grid):
        result = new_grid[new_axes[node.attrs["axis"]]]
    elif node.rank == 0:
        result = node
    elif node.op is CONST:
        result = builder.const(node.attrs["value"], node.dtype)
    else:
        args = [_reindex(a, grid, new_axes, new_grid, memo) for a in node.args]
        result = builder.elementwise(node.op.name, args)
    memo[node] = result
    return result


def _injective(index: list[Node], grid, memory_shape) -> bool:
    """True if distinct grid points reach distinct memory elements (without clamping)."""
    used = []
    pairs = {}
    for j, idx in enumerate(index):
        if idx.op is DIM_ID and shapes_equal(idx.shape, grid):
            if not dims_equal(grid[idx.attrs["axis"]], memory_shape[j]):
                return False
            used.append(idx.attrs["axis"])
        elif idx.op in (MOD, DIV) and idx.args[0].op is DIM_ID \
                and shapes_equal(idx.args[0].shape, grid):
            pairs.setdefault((idx.args[0], idx.args[1]), {})[idx.op] = j
        else:
            return False
    for (source, divisor), parts in pairs.items():
        if set(parts) != {MOD, DIV} or not dims_equal(divisor, memory_shape[parts[MOD]]):
            return False
        size = grid[source.attrs["axis"]]
        other = memory_shape[parts[DIV]]
        if size.op is not MUL or not any(dims_equal(size.args[a], divisor) and dims_equal(size.args[1 - a], other)
                                            for a in (0, 1)):
            return False
        used.append(source.attrs["axis"])
    return sorted(used) == list(range(len(grid)))


def reduced_scatter(buffer: Tensor, g: Tensor, index: list[Node], mutable) -> None:
    """Add ``g`` into ``buffer`` at ``index`` (see the module docstring); ``mutable`` are the
    program's variables and buffers, whose value is not their declaration's."""
    grid = g.node.shape
    axes: set = set()
    if not all(_grid_axes(i, grid, axes, mutable) for i in index):
        scatterAdd(buffer[tuple(Tensor(i) for i in index)], g)
        return
    for axis in sorted(set(range(len(grid))) - axes, reverse=True):
        g = alg.sum(g, axis=axis)
    kept = sorted(axes)
    if len(kept) != len(grid):
        new_grid_shape = g.node.shape if kept else ()
        builder = current()
        new_grid = [builder.make("dim_id", attrs={"axis": a}, dtype=dt.int32, shape=new_grid_shape)
                    for a in range(len(kept))]
        memo: dict = {}
        index = [_reindex(i, grid, {axis: k for k, axis in enumerate(kept)}, new_grid, memo) for i in index]
        grid = new_grid_shape
    target = buffer[tuple(Tensor(i) for i in index)]
    if _injective(index, grid, buffer.node.shape):
        buffer[tuple(Tensor(i) for i in index)] = target + g
    else:
        scatterAdd(target, g)
