"""Facts about a program that several passes need: which nodes are mutable memory, where
they are written, and whether a value read at one point is still the same at another."""

from __future__ import annotations

from ..ir.node import Node, Program, operands, positions, scope_end, walk
from ..ir.ops import ALLOC, CONST, DIM_ID, ELEMENTWISE, INPUT, INPUT_DIM, LOAD, LOOP, SET, SOURCE, STORE

# The cost model of the passes that recompute values instead of storing them (reindex,
# recompute): an op costs its table entry's ``cost``, a read of memory MEMORY_READ, and a
# value that recomputing could change (memory written in between) INFINITE.
MEMORY_READ = 128.0
INFINITE = float("inf")


def is_write(node: Node) -> bool:
    """Sets of variables, stores and scatters into memory: they change their first arg."""
    return node.op.writes


def indexed_access(node: Node) -> bool:
    """Loads, stores and scatters: accesses of memory at an index (args: memory, ...)."""
    return node.op is LOAD or (node.op.writes and node.op is not SET)


def mutable_nodes(program: Program) -> set[Node]:
    """Nodes whose value is changed after they are defined (targets of writes)."""
    return {n.args[0] for n in program.walk() if is_write(n)}


def set_variables(nodes) -> set[Node]:
    """The variables among ``nodes``' writes that ``set`` replaces whole: what emitters
    declare mutable (after the memory pass, memory is written by stores and scatters)."""
    return {n.args[0] for n in nodes if n.op is SET}


class MutationInfo:
    """Where each mutable node is written, by program position.

    ``unchanged(memory, a, b)``: no write to ``memory`` can happen after position ``a``
    and before position ``b`` (b later than a), counting every write inside a loop that
    contains ``b`` but not ``a`` (it may run between them on a later iteration).
    """

    def __init__(self, program: Program):
        self.pos = positions(program)
        self.writes: dict[Node, list[int]] = {}
        self.loops: list[tuple[int, int]] = []
        for node in program.walk():
            if is_write(node):
                self.writes.setdefault(node.args[0], []).append(self.pos[node])
            if node.op is LOOP:
                self.loops.append((self.pos[node], scope_end(node, self.pos)))

    @property
    def mutable(self):
        """The written nodes (a live view: variables added later are included)."""
        return self.writes

    def position(self, node: Node, default: int) -> int:
        return self.pos.get(node, default)

    def unchanged(self, memory: Node, a: int, b: int) -> bool:
        writes = self.writes.get(memory)
        if not writes:
            return True
        if any(a < w < b for w in writes):
            return False
        for start, end in self.loops:
            if start <= b <= end and not start <= a <= end and any(start < w <= end for w in writes):
                return False
        return True

    def add_variable(self, node: Node, position: int) -> None:
        """Register a variable created by a pass (written at ``position``)."""
        self.writes.setdefault(node, []).append(position)


def is_memory(node: Node, mutable) -> bool:
    """Nodes that live in memory and are read with loads: inputs, buffers, mutable nodes."""
    return node.op in (INPUT, ALLOC) or node in mutable


def is_cheap_source(node: Node) -> bool:
    return node.op.kind == SOURCE and node.op in (CONST, DIM_ID)


def reads_only_values(node: Node) -> bool:
    """True for pure elementwise nodes and sources (what can be recomputed anywhere)."""
    return node.op.kind == ELEMENTWISE or is_cheap_source(node) or node.op is INPUT_DIM


def backward_slice(kernel: Node, roots) -> set:
    """The nodes of ``kernel``'s body that the ``roots`` depend on (values, variables,
    enclosing control flow, and the breaks and continues of the loops kept)."""
    inside = set(walk(kernel.body))
    sets_of: dict[Node, list] = {}
    exits_of: dict[Node, list] = {}
    for node in inside:
        if node.op is SET:
            sets_of.setdefault(node.args[0], []).append(node)
        elif node.op.jump:
            loop = node.enclosing_loop()
            if loop is not None:
                exits_of.setdefault(loop, []).append(node)
    kept, work = set(), list(roots)
    while work:
        node = work.pop()
        if node in kept or node not in inside:
            continue
        kept.add(node)
        work.extend(operands(node))
        work.extend(sets_of.get(node, ()))
        work.extend(exits_of.get(node, ()))
        owner = node.scope.owner
        if owner is not None and owner is not kernel:
            work.append(owner)
    return kept


def slice_buffers(kept: set) -> set:
    """The buffers the nodes of a slice load from or write to."""
    return {n.args[0] for n in kept if n.op in (LOAD, STORE) or n.op.atomic}
