"""Free buffers after their last use.

Guarantees afterwards: every ``alloc`` that is not a program output is followed, in its
own scope, by a ``free`` right after the last node that uses it (a use inside a loop or
if counts as a use by that loop or if, so buffers live across iterations).
"""

from __future__ import annotations

from ..ir.node import Node, Program, Scope
from ..ir.ops import ALLOC, KERNEL, OPS


def _free_in(scope: Scope, outputs: set) -> None:
    new = list(scope.nodes)
    for alloc in [n for n in scope.nodes if n.op is ALLOC and n not in outputs]:
        last = max((k for k, n in enumerate(new) if n.uses(alloc)), default=new.index(alloc))
        free = Node(OPS["free"], None, (), [alloc])
        free.scope = scope
        new.insert(last + 1, free)
    scope.set_nodes(new)
    for node in scope.nodes:
        if node.body is not None and node.op is not KERNEL:
            _free_in(node.body, outputs)


def run(program: Program) -> Program:
    _free_in(program.root, set(program.outputs))
    return program
