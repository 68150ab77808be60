"""Loop-invariant code motion inside kernels: what a loop computes the same way on every
iteration is computed once, before the loop (an n-body step's own position, read by
every iteration of its sum over the other bodies).

A node directly in a loop's body moves before the loop when it is an elementwise op, a
non-variable constant or a load of memory the loop does not write, and none of its
operands is defined in the loop or is a variable the loop writes. Running it before the
loop is always safe: loads clamp their indices and arithmetic does not trap, so a loop
that runs zero times only loses the work. Nodes under an ``if`` stay where they are (they
may rarely run). Inner loops go first, so a value can leave several loops.

Guarantees afterwards: the same program; only the positions of invariant nodes change.
"""

from __future__ import annotations

from .. import optimizations
from ..ir.node import Node, Program, Scope, operands, walk
from ..ir.ops import CONST, ELEMENTWISE, KERNEL, LOAD, LOOP
from .analysis import is_write, mutable_nodes


def run(program: Program) -> Program:
    mutable = mutable_nodes(program)
    for kernel in [n for n in program.walk() if n.op is KERNEL]:
        _hoist_in(kernel.body, mutable)
    return program


def _hoist_in(scope: Scope, mutable: set) -> None:
    for node in list(scope.nodes):
        if node.body is not None:
            _hoist_in(node.body, mutable)
        if node.op is LOOP:
            _hoist_out_of(node, mutable)


def _hoist_out_of(loop: Node, mutable: set) -> None:
    inside = set(walk(loop.body)) | {loop}  # the counter changes every iteration
    written = {n.args[0] for n in inside if is_write(n)}
    moved, kept = [], []
    for node in loop.body.nodes:
        if _invariant(node, inside, written, mutable):
            moved.append(node)
            inside.discard(node)
        else:
            kept.append(node)
    if not moved:
        return
    optimizations.fired("hoist")
    loop.body.set_nodes(kept)
    outer = loop.scope
    index = outer.nodes.index(loop)
    outer.set_nodes(outer.nodes[:index] + moved + outer.nodes[index:])


def _invariant(node: Node, inside: set, written: set, mutable: set) -> bool:
    if node in mutable or node.body is not None:
        return False
    if node.op is LOAD:
        if node.args[0] in written:
            return False
    elif not (node.op.kind == ELEMENTWISE or node.op is CONST):
        return False
    return not any(a in inside or a in written for a in operands(node))
