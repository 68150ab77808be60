"""Structural checks of a program: every operand is defined before it is used and is
visible from where it is used (defined in the same scope or an enclosing one), and every
node sits in one scope, once."""

from __future__ import annotations

from .errors import TraceError
from .node import Node, Program, Scope
from .ops import LOOP


def _visible_from(definition: Node, use: Node) -> bool:
    scope: Scope | None = use.scope
    while scope is not None:
        if definition.scope is scope:
            return True
        scope = scope.owner.scope if scope.owner is not None else None
    return False


def check_scoping(program: Program) -> None:
    """Raise a TraceError naming the user's line if a tensor is used outside the loop or
    if-block that defines it (its value is undefined there)."""
    seen: set[Node] = set()
    for node in program.walk():
        for arg in node.args:
            if arg.op is LOOP and node.scope is not None and node.is_inside(arg):
                continue  # the loop counter, used in its own body
            if arg not in seen or not _visible_from(arg, node):
                where = "inside a tf.loop / tf.if_cond block" if arg.scope is not program.root else "later"
                raise TraceError(f"a tensor defined {where} is used outside of it; create it before the "
                                 "block and update it with .val = ... inside", node.location or arg.location)
        seen.add(node)
    for out in program.outputs:
        if out.scope is not program.root:
            raise TraceError("a returned tensor was defined inside a tf.loop / tf.if_cond block; create it "
                             "before the block and update it with .val = ... inside", out.location)


def structure_problem(program: Program, ordered: bool = True) -> str | None:
    """What breaks the IR's invariants (a pass's bug), or None: a node placed twice or in a
    scope it does not name, or an operand not defined before its use. With ``ordered``
    False (from fusion on, when a kernel may use a value another kernel defines, in any
    order, until the memory pass gives it a buffer) an operand need only be placed somewhere
    in the program. Dims may be defined later: they are not checked."""
    seen: set[Node] = set()
    placed = set(program.walk()) if not ordered else seen

    def scan(scope: Scope) -> str | None:
        for node in scope.nodes:
            if node in seen:
                return f"{node} is placed twice"
            if node.scope is not scope:
                return f"{node} is not in the scope it names"
            for arg in node.args:
                if arg not in placed and not (arg.op is LOOP and node.is_inside(arg)):  # a counter in its loop
                    return f"{node} uses {arg}, which is not {'defined before it' if ordered else 'in the program'}"
            seen.add(node)
            if node.body is not None:
                problem = scan(node.body)
                if problem is not None:
                    return problem
        return None

    return scan(program.root)
