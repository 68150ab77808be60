"""Evaluating a value at another index: the heart of lowering and fusion.

``Reindexer.value_at(node, index)`` emits, at the current insertion point, nodes that
compute ``node``'s element at ``index`` (one int32 node per axis). A cheap pure producer
is recomputed there (its loads re-indexed, its ``dim_id`` nodes replaced by the index);
memory is loaded; anything else is loaded from ``node``, which fusion then stores in a
buffer. Recomputing is only done when every memory the producer reads is unchanged
between where it was read and here, so results never change.
"""

from __future__ import annotations

from ..ir import dtypes as dt
from ..ir.node import Node
from ..ir.ops import CONST, DIM_ID, LOAD
from ..ir.shapes import dims_equal, shapes_equal, static_value
from .analysis import INFINITE, MEMORY_READ, MutationInfo, is_memory
from .rewrite import Rebuilder

SINGLE_USE_BUDGET = 4096.0  # recompute a producer used once unless it is huge
SHARED_BUDGET = 256.0  # about the cost of storing and loading a value


class Reindexer:
    def __init__(self, rebuilder: Rebuilder, info: MutationInfo, use_counts: dict):
        self.rb = rebuilder
        self.builder = rebuilder.builder
        self.info = info
        self.use_counts = use_counts

    @property
    def mutable(self):
        return self.info.mutable

    # -- positions -------------------------------------------------------------------------

    def here(self) -> int:
        current = self.rb.current
        return self.info.position(self.rb.origin.get(current, current), 0)

    def position(self, node: Node) -> int:
        return self.info.position(self.rb.origin.get(node, node), self.here())

    # -- public ------------------------------------------------------------------------------

    def value_at(self, node: Node, index: list, budget: float | None = None) -> Node:
        """``node``'s element at ``index``: recomputed if that costs at most ``budget``
        (by default, what storing and loading it would cost), else loaded."""
        if node.rank == 0 or self.is_identity(node, index):
            return node
        if is_memory(node, self.mutable):
            return self.load(node, index)
        if node.op in (DIM_ID, CONST):
            return self._emit_at(node, index)
        if budget is None:
            budget = SINGLE_USE_BUDGET if self.use_counts.get(node, 0) <= 1 else SHARED_BUDGET
        if self.cost(node, self.here(), {}, budget) <= budget:
            return self._emit_at(node, index)
        return self.load(node, index)

    def load(self, memory: Node, index: list) -> Node:
        shape = self.builder.broadcast([i.shape for i in index], "load")
        return self.builder.make("load", [memory, *index], dtype=memory.dtype, shape=shape)

    def grid(self, shape) -> list:
        """The index of every element of ``shape`` along each axis."""
        return [self.builder.make("dim_id", attrs={"axis": a}, dtype=dt.int32, shape=shape)
                for a in range(len(shape))]

    def arg_index(self, arg: Node, shape, index: list) -> list:
        """The index into ``arg`` of the element numpy broadcasting pairs with ``index``
        into a tensor of ``shape``."""
        offset = len(shape) - arg.rank
        out = []
        for j, dim in enumerate(arg.shape):
            k = j + offset
            if dims_equal(dim, shape[k]):
                out.append(index[k])
            elif static_value(dim) == 1:
                out.append(self.builder.const(0, dt.int32))
            else:
                out.append(self.clamp_index(index[k], dim))
        return out

    def clamp_index(self, index: Node, dim: Node) -> Node:
        last = self.builder.elementwise("sub", [dim, self.builder.const(1, dt.int32)])
        return self.builder.elementwise("clamp", [index, self.builder.const(0, dt.int32), last])

    @staticmethod
    def is_identity(node: Node, index: list) -> bool:
        return all(i.op is DIM_ID and i.attrs["axis"] == k and shapes_equal(i.shape, node.shape)
                   for k, i in enumerate(index))

    # -- recomputation -------------------------------------------------------------------------

    def cost(self, node: Node, here: int, memo: dict, limit: float = INFINITE) -> float:
        """Cost of recomputing ``node`` at position ``here`` (INFINITE if that could give a
        different value or is not possible, or would cost more than ``limit``: the walk stops
        there, so asking about the end of a long chain of producers does not walk it all)."""
        if node in memo:
            return memo[node]
        if node.rank == 0 or node.op is DIM_ID or (node.op is CONST and node not in self.mutable):
            result = 0.0
        elif is_memory(node, self.mutable):
            result = MEMORY_READ  # a load where the value is used
        elif node.op.kind == "elementwise":
            result = node.op.cost
            for arg in node.args:
                result += self._read_cost(arg, node, here, memo, limit)
                if result > limit:
                    result = INFINITE
                    break
        elif node.op is LOAD:
            # Reading memory again is valid if nothing wrote it since; a computed value
            # read by index is stored once and never changes.
            source = node.args[0]
            mem_ok = not is_memory(source, self.mutable) or self.info.unchanged(source, self.position(node), here)
            result = INFINITE if not mem_ok else node.op.cost + sum(self.cost(i, here, memo, limit)
                                                                    for i in node.args[1:])
        else:
            result = INFINITE
        memo[node] = result
        return result

    def _read_cost(self, arg: Node, reader: Node, here: int, memo: dict, limit: float = INFINITE) -> float:
        if arg in self.mutable and not self.info.unchanged(arg, self.position(reader), here):
            return INFINITE
        return self.cost(arg, here, memo, limit)

    def _emit_at(self, node: Node, index: list) -> Node:
        if node.rank == 0 or self.is_identity(node, index):
            return node
        if is_memory(node, self.mutable):
            return self.load(node, index)
        if node.op is DIM_ID:
            return index[node.attrs["axis"]]
        if node.op is CONST:
            return self.builder.const(node.attrs["value"], node.dtype)
        if node.op is LOAD:
            new_index = [self._emit_at(i, self.arg_index(i, node.shape, index)) for i in node.args[1:]]
            return self.load(node.args[0], new_index)
        args = [self._emit_at(a, self.arg_index(a, node.shape, index)) for a in node.args]
        shape = self.builder.broadcast([a.shape for a in args], node.op.name)
        return self.builder.make(node.op.name, args, attrs=node.attrs, dtype=node.dtype, shape=shape, name=node.name)
