"""Loops that elements leave at different times, whose body needs several kernels.

A loop whose body fuses into one kernel runs each element's iterations in its own thread,
so a per-element ``break``/``continue`` is an ordinary jump there. When the body needs
several kernels (it reads a neighbour of a value the loop updates, or reduces one), the
loop stays on the host and runs the elements in lockstep, as numpy code with masks would::

    active = True (per element)                   # before the loop
    loop:
        if no element is active: break            # one atomic max, read back by the host
        going = active                            # this iteration's mask
        if going: <body>                          # break: active = going = False
                                                  # continue: going = False
The fusion pass calls ``mask_loop`` on such loops and plans them again.
"""

from __future__ import annotations

from ..ir import dtypes as dt
from ..ir.builder import Builder
from ..ir.node import Node, Program, Scope


def jumps(loop: Node) -> list[Node]:
    """The break/continue nodes that leave ``loop`` (not those of loops inside it)."""
    found, stack = [], list(loop.body.nodes)
    while stack:
        node = stack.pop()
        if node.op.name in ("break", "continue") and node.enclosing("loop") is loop:
            found.append(node)
        if node.body is not None and node.op.name != "loop":
            stack.extend(node.body.nodes)
    return found


def per_element_conditions(loop: Node, uniform) -> list[Node]:
    """The conditions of the ifs around the loop's jumps that differ per element
    (``uniform(node)`` tells a host value)."""
    return [owner.args[0] for jump in jumps(loop) for owner in jump.owner_chain()
            if owner.op.name == "if" and owner.args[0].rank and not uniform(owner.args[0])
            and _inside(owner, loop)]


def mask_loop(program: Program, loop: Node, uniform) -> list[Node]:
    """Run ``loop`` under per-element masks (see the module docstring); returns the nodes
    to place before it (the mask's declaration). ``uniform(node)`` tells host values."""
    builder = Builder(program)
    shape = builder.broadcast([c.shape for c in per_element_conditions(loop, uniform)], "loop mask")
    before: list[Node] = []
    with builder.inside(loop.scope, before):
        active = builder.const(True, dt.bool1, shape)
        active.name = "active"
    prologue: list[Node] = []
    with builder.inside(loop.body, prologue):
        alive = builder.const(0, dt.int32, ())
        alive.name = "alive"
        one = builder.elementwise("select", [active, builder.const(1, dt.int32), builder.const(0, dt.int32)])
        builder.make("scatter_max", [alive, one], shape=shape)
        none = builder.elementwise("eq", [alive, builder.const(0, dt.int32)])
        exit_if = _if(builder, none, [])
        with builder.inside(exit_if.body):
            builder.make("break")
        going = builder.make("copy", [active], dtype=dt.bool1, shape=shape, name="going")
    masks = _Masks(builder, loop, active, going, uniform)
    loop.body.set_nodes(prologue + masks.block(list(loop.body.nodes), top=True))
    for node in before:
        node.scope = loop.scope
    return before


class _Masks:
    def __init__(self, builder: Builder, loop: Node, active: Node, going: Node, uniform):
        self.builder, self.loop, self.active, self.going, self.uniform = builder, loop, active, going, uniform

    def block(self, nodes: list, top: bool = False) -> list:
        """``nodes`` with the loop's jumps replaced by mask updates, and what follows a jump
        under ``if going``. At the top of the body, everything but uniform work is guarded."""
        out: list[Node] = []
        guarded: list[Node] = []
        for k, node in enumerate(nodes):
            leaves = node.op.name in ("break", "continue") and node.enclosing("loop") is self.loop
            if top and (leaves or self._uniform(node)):
                self._flush(out, guarded)
                out.append(node)  # the whole loop's own exits and host work
                if leaves:
                    break
                continue
            target = guarded if top else out
            if leaves:
                self._stop(target, node.op.name == "break")
                break  # what follows a jump in its block never runs
            target.append(node)
            if node.op.name == "if" and any(_inside(j, node) for j in jumps(self.loop)):
                node.body.set_nodes(self.block(list(node.body.nodes)))
                if top:
                    self._flush(out, guarded)  # what follows checks `going` again
                else:
                    rest = nodes[k + 1:]
                    if rest:
                        out.append(self._guard(self.block(rest)))
                    break
        self._flush(out, guarded)
        return out

    def _uniform(self, node: Node) -> bool:
        """Work of the whole loop rather than of its elements: host values, and ifs on host
        values that hold nothing else (a uniform exit)."""
        if node.op.name == "if":
            return node.args[0].rank == 0 and self.uniform(node.args[0]) and all(
                self._uniform(n) or n.op.name in ("break", "continue") for n in node.body.nodes)
        return node.dtype is not None and node.body is None and self.uniform(node)

    def _stop(self, out: list, leave: bool) -> None:
        false = Node(_op("const"), dt.bool1, (), attrs={"value": False})
        out.append(false)
        for variable in [self.active, self.going] if leave else [self.going]:
            out.append(Node(_op("set"), None, variable.shape, [variable, false]))

    def _guard(self, nodes: list) -> Node:
        guard = Node(_op("if"), None, (), [self.going])
        guard.body = Scope(guard)
        guard.body.set_nodes(nodes)
        return guard

    def _flush(self, out: list, guarded: list) -> None:
        if guarded:
            out.append(self._guard(list(guarded)))
            guarded.clear()


def _op(name: str):
    from ..ir.ops import OPS
    return OPS[name]


def _if(builder: Builder, condition: Node, body: list) -> Node:
    node = builder.make("if", [condition])
    node.body = Scope(node)
    node.body.set_nodes(body)
    return node


def _inside(node: Node, block: Node) -> bool:
    return any(owner is block for owner in node.owner_chain())
