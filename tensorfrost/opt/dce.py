"""Dead-code removal.

Guarantees afterwards: every remaining node contributes to an output, to a write of live
memory, to control flow around live nodes, or is a check (``assert``) or debug marker.
Inputs are always kept (they define the program's arguments).

With ``dead_sets`` (an optimization: ``tf.optimizations``), a ``set`` of a variable is kept
only if a live read of the variable can see it: one after it, or one in a loop around both
that the variable outlives. So a loop's recomputation in reverse mode drops the updates its
backward pass never reads, and with them the tapes they were restored from.
"""

from __future__ import annotations

from .. import optimizations
from ..ir.node import Node, Program, Scope, operands, positions
from ..ir.ops import ASSERT, FREE, INPUT, LOOP, REGION, SET
from .analysis import is_write

_ALWAYS_LIVE = (ASSERT, REGION, INPUT, FREE)


def run(program: Program) -> Program:
    live: set[Node] = set()
    nodes = list(program.walk())
    work = [n for n in nodes if n.op in _ALWAYS_LIVE] + list(program.outputs)

    def mark(node: Node) -> None:
        if node not in live:
            live.add(node)
            work.append(node)

    seen_by = _SetVisibility(program, nodes) if optimizations.enabled("dead_sets") else None
    changed = True
    while changed:
        while work:
            node = work.pop()
            live.add(node)
            for arg in operands(node):
                mark(arg)
            for owner in node.owner_chain():
                mark(owner)
        changed = False
        for node in nodes:
            if node in live:
                continue
            if is_write(node) and node.args[0] in live and (seen_by is None or seen_by.seen(node, live)):
                mark(node)
                changed = True
            elif node.op.jump and node.enclosing_loop() in live:
                mark(node)
                changed = True
    if seen_by is not None:
        dropped = sum(1 for n in nodes if n.op is SET and n not in live and n.args[0] in live)
        if dropped:
            optimizations.fired("dead_sets", dropped)
    _sweep(program.root, live)
    return program


class _SetVisibility:
    """Which reads of a variable can see a ``set`` of it (program order, and loops that
    run the read again after the set while the variable lives on)."""

    def __init__(self, program: Program, nodes: list[Node]):
        self.pos = positions(program)
        self.outputs = set(program.outputs)
        self.readers: dict[Node, list[Node]] = {}
        targets = {n.args[0] for n in nodes if n.op is SET}
        for node in nodes:
            for k, arg in enumerate(operands(node)):
                if arg in targets and not (k == 0 and node.op is SET):
                    self.readers.setdefault(arg, []).append(node)

    def seen(self, write: Node, live: set) -> bool:
        if write.op is not SET:
            return True
        variable = write.args[0]
        if variable in self.outputs:
            return True
        at = self.pos[write]
        loops = [o for o in write.owner_chain() if o.op is LOOP and not variable.is_inside(o)]
        return any(reader in live and (self.pos[reader] > at or any(reader.is_inside(o) for o in loops))
                   for reader in self.readers.get(variable, ()))


def _sweep(scope: Scope, live: set) -> None:
    scope.set_nodes([n for n in scope.nodes if n in live])
    for node in scope.nodes:
        if node.body is not None:
            _sweep(node.body, live)
