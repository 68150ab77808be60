"""Free buffers after their last use.

Guarantees afterwards: every ``alloc`` that is not a program output is followed, in its
own scope, by a ``free`` right after the last node that uses it (a use inside a loop or
if counts as a use by that loop or if, so buffers live across iterations).
"""

from __future__ import annotations

from ..ir.node import Node, Program, Scope
from ..ir.ops import ALLOC, KERNEL, OPS


def _free_in(scope: Scope, outputs: set) -> None:
    last = {}  # value -> index of the last node of the scope that uses it (one walk, not one per buffer)
    for k, node in enumerate(scope.nodes):
        for inner in node.subtree():
            for arg in inner.args:
                last[arg] = k
    frees: dict[int, list] = {}  # index -> the frees after that node, the latest buffer's first
    for k, alloc in enumerate(scope.nodes):
        if alloc.op is ALLOC and alloc not in outputs:
            free = Node(OPS["free"], None, (), [alloc])
            free.scope = scope
            frees.setdefault(max(last.get(alloc, k), k), []).insert(0, free)
    scope.set_nodes([n for k, node in enumerate(scope.nodes) for n in (node, *frees.get(k, ()))])
    for node in scope.nodes:
        if node.body is not None and node.op is not KERNEL:
            _free_in(node.body, outputs)


def run(program: Program) -> Program:
    _free_in(program.root, set(program.outputs))
    return program
