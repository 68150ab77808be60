"""Dead-code removal.

Guarantees afterwards: every remaining node contributes to an output, to a write of live
memory, to control flow around live nodes, or is a check (``assert``) or debug marker.
Inputs are always kept (they define the program's arguments).
"""

from __future__ import annotations

from ..ir.node import Node, Program, Scope, operands
from ..ir.ops import ASSERT, FREE, INPUT, REGION
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
            if is_write(node) and node.args[0] in live:
                mark(node)
                changed = True
            elif node.op.jump and node.enclosing_loop() in live:
                mark(node)
                changed = True
    _sweep(program.root, live)
    return program


def _sweep(scope: Scope, live: set) -> None:
    scope.set_nodes([n for n in scope.nodes if n in live])
    for node in scope.nodes:
        if node.body is not None:
            _sweep(node.body, live)
