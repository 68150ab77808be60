"""Merge sibling loops over the same range into one loop.

Lowering turns each reduction into its own loop, so ``tf.sum(dx * inv)``, ``tf.sum(dy * inv)``
and ``tf.sum(dz * inv)`` become three loops that each recompute ``dx, dy, dz, inv``. When two
loops in a scope have the same bounds, neither reads what the other writes, and the nodes
between them do not depend on the first, their bodies run in one loop (the nodes between
are moved above it); CSE then computes the shared values once per iteration.

Guarantees afterwards: results are unchanged; no two adjacent independent loops with equal
bounds remain in a scope.
"""

from __future__ import annotations

from .. import optimizations
from ..ir.node import Node, Program, Scope, walk
from ..ir.ops import ASSERT, CONST, DIM_ID, LOOP
from ..ir.shapes import dims_equal, shapes_equal
from .analysis import is_write
from .rewrite import replace_uses

_MOVABLE = ("elementwise",)


def _effects(loop: Node) -> tuple[set, set]:
    """(what the loop's body reads from outside it, what it writes)."""
    inside = set(walk(loop.body))
    reads, writes = set(), set()
    for node in inside:
        if is_write(node):
            writes.add(node.args[0])
        for arg in node.args:
            if arg not in inside and arg is not loop:
                reads.add(arg)
    return reads, writes


def _jumps(loop: Node) -> bool:
    return any(n.op.jump for n in walk(loop.body))


def _same_range(a: Node, b: Node) -> bool:
    return all(x is y or dims_equal(x, y) for x, y in zip(a.args, b.args))


def _movable(node: Node, first: Node, first_writes: set) -> bool:
    """A node between two loops that can move above the first one (a check of sizes, such as
    a reduction's of a non-empty axis, too: it fails the same way earlier)."""
    if node.body is not None or is_write(node) or node.op not in (CONST, DIM_ID, ASSERT) and \
            node.op.kind not in _MOVABLE:
        return False
    return first not in node.args and not any(a in first_writes for a in node.args)


def _merge_scope(program: Program, scope: Scope) -> None:
    result: list[Node] = []
    last = None  # index in result of the loop we may merge into
    for node in scope.nodes:
        if node.body is not None:
            _merge_scope(program, node.body)
        if node.op is LOOP and last is not None and _mergeable(result, last, node):
            first = result[last]
            between = result[last + 1:]
            del result[last + 1:]
            result[last:last] = between
            last += len(between)
            optimizations.fired("merge_loops")
            replace_uses(program, {node: first})
            first.body.set_nodes(first.body.nodes + node.body.nodes)
            continue
        result.append(node)
        if node.op is LOOP and not _jumps(node):
            last = len(result) - 1
    scope.set_nodes(result)


def _body_shape(loop: Node):
    """The one shape the body's non-scalar values have, or None if they have several."""
    shapes = [n.shape for n in walk(loop.body) if n.rank]
    if not shapes or not all(shapes_equal(s, shapes[0]) for s in shapes):
        return None
    return shapes[0]


def _mergeable(result: list, last: int, loop: Node) -> bool:
    first = result[last]
    if _jumps(loop) or not _same_range(first, loop):
        return False
    shape, other = _body_shape(first), _body_shape(loop)
    if shape is None or other is None or not shapes_equal(shape, other):
        return False  # bodies of different shapes would not run in one kernel
    first_reads, first_writes = _effects(first)
    reads, writes = _effects(loop)
    if first_writes & (reads | writes) or writes & first_reads:
        return False
    return all(_movable(n, first, first_writes) for n in result[last + 1:])


def run(program: Program) -> Program:
    _merge_scope(program, program.root)
    return program
