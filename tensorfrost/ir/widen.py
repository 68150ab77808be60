"""Variables take the shape of what is assigned to them, and of the conditions they are
assigned under.

``z = tf.const(0.0)`` followed by ``z.val = c * 2`` (``c`` of shape [N, M]) makes ``z`` a
[N, M] variable, as ``np.where(mask, new, z)`` would. The same holds for a variable set
under a per-element ``if`` or inside a loop that per-element ``break``/``continue`` can
leave: its elements evolve separately, so it gets their shape. Elementwise nodes already
computed from a widened variable widen with it.
"""

from __future__ import annotations

from .errors import ShapeError
from .node import Node, Program
from .ops import ELEMENTWISE
from .shapes import describe_shape, dims_equal, shapes_equal, static_value


def fits(shape, target) -> bool:
    """True if ``shape`` broadcasts to ``target`` without widening it."""
    if len(shape) > len(target):
        return False
    return all(static_value(d) == 1 or dims_equal(d, t) for d, t in zip(shape, target[len(target) - len(shape):]))


def widen_variable(builder, node: Node, shape: tuple, location=None) -> None:
    """Give the constant ``node`` the broadcast ``shape``, and widen what depends on it."""
    if node.op.name != "const":
        raise ShapeError(f"cannot assign a value of shape {describe_shape(shape)} to a tensor of shape "
                         f"{describe_shape(node.shape)}; only constants (tf.const, tf.zeros) widen", location)
    node.shape = shape
    widened = {node}
    for other in list(builder.program.walk()):  # widening may emit checks into the program
        touched = [a for a in other.args if a in widened]
        if other is node or not touched:
            continue
        if other.op.kind == ELEMENTWISE:
            other.shape = builder.broadcast([a.shape for a in other.args])
            widened.add(other)
        elif other.op.name == "set" and other.args[0] in widened:
            other.shape = other.args[0].shape
        elif other.op.name == "set" and fits(other.args[1].shape, other.args[0].shape):
            continue
        elif other.op.name == "load" and touched == [other.args[0]]:
            continue  # a load's shape comes from its indices
        else:
            raise ShapeError(f"cannot widen '{node.name or node.label}' to shape {describe_shape(shape)}: "
                             f"it was already used by {other.op.name}; give it its full shape when you "
                             "create it (tf.zeros(shape))", location or other.location)


def _divergence(loop: Node) -> list:
    """Shapes of the per-element conditions under which ``break``/``continue`` leave ``loop``."""
    shapes = [a.shape for a in loop.args if a.rank]
    stack = list(loop.body.nodes)
    while stack:
        node = stack.pop()
        if node.op.name in ("break", "continue") and node.enclosing("loop") is loop:
            shapes += [o.args[0].shape for o in node.owner_chain() if o.op.name == "if" and o.args[0].rank]
        if node.body is not None and node.op.name != "loop":
            stack.extend(node.body.nodes)
    return shapes


def widen_for_conditions(builder, program: Program) -> None:
    """Widen every variable set under per-element control flow to that control flow's shape."""
    changed = True
    while changed:
        changed = False
        divergence = {n: _divergence(n) for n in program.walk() if n.op.name == "loop"}
        for node in program.walk():
            if node.op.name != "set":
                continue
            var, value = node.args
            shapes = [var.shape, value.shape]
            for owner in node.owner_chain():
                if var.scope is not None and owner.scope is not None and var.scope.contains(owner) is False:
                    break
                if owner.op.name == "if":
                    shapes.append(owner.args[0].shape)
                elif owner.op.name == "loop":
                    shapes += divergence[owner]
            target = builder.broadcast(shapes, "variable assigned under a condition")
            if not shapes_equal(target, var.shape):
                widen_variable(builder, var, target, node.location)
                changed = True
