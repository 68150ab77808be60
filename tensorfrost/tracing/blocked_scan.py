"""The blocked scan, written with the tracing API: the three passes over blocks that every
scan node becomes before lowering (``opt/expand_scans``), and that ``tf.segmented_prefix_sum``
calls with its own combine. See ``tensorfrost.lib.scan`` for what the passes do and cost."""

from __future__ import annotations

import math

from ..ir.shapes import static_value
from .api import buffer, const, indices, loop
from .mathfn import ceil, select, sqrt
from .mathfn import copy as variable
from .mathfn import float as to_float
from .mathfn import int as to_int
from .mathfn import max as maximum
from .mathfn import min as minimum
from .tensor import Tensor, node_of

# About this many blocks in all: enough threads for every core or GPU lane; a line is cut
# into at most sqrt(n) blocks, so the serial scan of block totals stays short.
TARGET_BLOCKS = 4096

COMBINE = {"add": lambda a, b: a + b, "mul": lambda a, b: a * b, "max": maximum, "min": minimum}


def blocked_scan(values: list, axis: int, combine, identity: list, exclusive: bool, reverse: bool) -> list:
    """Scan ``values`` (tensors of one shape, scanned together as tuples) along ``axis``:
    ``combine(before, after)`` joins two lists of partial results (associative, not
    necessarily commutative), ``identity`` is the list of its neutral elements. Returns
    the scanned tensors. Runs in three passes over blocks (see the module docstring)."""
    dims = list(values[0].shape)
    n = dims[axis]
    rows = dims[:axis] + dims[axis + 1:]
    blocks, length = _block_plan(n, rows)

    def at(grid, position):
        """The index of the element ``position`` steps along the scan from its start."""
        where = n - 1 - position if reverse else position
        return tuple(grid[:axis]) + (where,) + tuple(grid[axis + 1:])

    block_shape = dims[:axis] + [blocks] + dims[axis + 1:]
    grid = indices(block_shape)
    single = isinstance(blocks, int) and blocks == 1  # many lines (static): one serial loop per line
    start = 0 if single else grid[axis] * length
    offsets = None
    if not single:
        reads = length if isinstance(blocks, int) else select(blocks > 1, length, 0)
        totals = _block_totals(values, combine, identity, grid, start, reads, at)
        offsets = _block_offsets(totals, combine, identity, axis, rows, block_shape, blocks)
    outputs = [buffer(dims, v.dtype) for v in values]
    if offsets is not None:
        offsets = [o[grid] for o in offsets]
    # The block's own running value starts from the identity, declared just before its
    # loop so that it joins the loop's kernel as a register; the offset of the blocks
    # before it is combined in as each element is stored.
    running = [variable(const(i, block_shape, v.dtype)) for i, v in zip(identity, values)]

    def store(where):
        _store(outputs, where, running if single else combine(offsets, running))

    # The last block may be shorter than the others: its loop ends at n.
    with loop(length if single else minimum(length, n - start)) as step:
        where = at(grid, start + step)
        if exclusive:
            store(where)
        _assign(running, combine(running, [v[where] for v in values]))
        if not exclusive:
            store(where)
    return outputs


def _block_plan(n, rows):
    """(number of blocks, block length) for a line of ``n`` elements and ``rows`` lines:
    Python ints when the sizes are static, else tensors computed when the program runs."""
    n_static = static_value(node_of(n))
    row_sizes = [static_value(node_of(d)) for d in rows]
    if n_static is not None and None not in row_sizes:
        count = 1
        for size in row_sizes:
            count *= size
        root = max(math.ceil(math.sqrt(n_static)), 1)
        blocks = min(max(-(-TARGET_BLOCKS // max(count, 1)), 1), root)
        length = max(-(-n_static // blocks), 1)
        return max(-(-n_static // length), 1), length
    n = Tensor(node_of(n))
    count = Tensor(node_of(1))
    for d in rows:
        count = count * Tensor(node_of(d))
    root = maximum(to_int(ceil(sqrt(to_float(n)))), 1)
    blocks = minimum(maximum((TARGET_BLOCKS + count - 1) // maximum(count, 1), 1), root)
    length = maximum((n + blocks - 1) // blocks, 1)
    return maximum((n + length - 1) // length, 1), length


def _block_totals(values, combine, identity, grid, start, length, at) -> list:
    """Each block's combined value (one thread per block). The last block's total is never
    used, so it may read past the end (clamped loads): no mask is needed; and when each
    line is one block (many lines, sizes known at run time), ``length`` is 0: nothing is read."""
    totals = [variable(const(i, grid[0].shape, v.dtype)) for i, v in zip(identity, values)]
    with loop(length) as step:
        where = at(grid, start + step)
        _assign(totals, combine(totals, [v[where] for v in values]))
    return totals


def _block_offsets(totals, combine, identity, axis, rows, block_shape, blocks) -> list:
    """The exclusive scan of the block totals along each line (one thread per line)."""
    row_shape = rows or [1]
    row_grid = list(indices(row_shape)) if rows else []
    offsets = [buffer(block_shape, t.dtype) for t in totals]
    running = [variable(const(i, row_shape, t.dtype)) for i, t in zip(identity, totals)]
    with loop(blocks) as block:
        where = tuple(row_grid[:axis]) + (block,) + tuple(row_grid[axis:])
        _store(offsets, where, running)
        _assign(running, combine(running, [t[where] for t in totals]))
    return offsets


def _store(targets, where, values) -> None:
    for target, value in zip(targets, values):
        target[where] = value


def _assign(variables, values) -> None:
    for var, value in zip(variables, values):
        var.val = value
