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
from ..ir.node import Node, Program, Scope, walk
from ..ir.ops import BREAK, CONST, IF, LOAD, LOOP, SET
from .analysis import is_write


def jumps(loop: Node) -> list[Node]:
    """The break/continue nodes that leave ``loop`` (not those of loops inside it)."""
    found, stack = [], list(loop.body.nodes)
    while stack:
        node = stack.pop()
        if node.op.jump and node.enclosing_loop() is loop:
            found.append(node)
        if node.body is not None and node.op is not LOOP:
            stack.extend(node.body.nodes)
    return found


def per_element_conditions(loop: Node, uniform) -> list[Node]:
    """The conditions of the ifs around the loop's jumps that differ per element
    (``uniform(node)`` tells a host value)."""
    return [owner.args[0] for jump in jumps(loop) for owner in jump.owner_chain()
            if owner.op is IF and owner.args[0].rank and not uniform(owner.args[0])
            and owner.is_inside(loop)]


def mask_loop(program: Program, loop: Node, uniform) -> list[Node]:
    """Run ``loop`` under per-element masks (see the module docstring); returns the nodes
    it placed before it (the mask's declaration). ``uniform(node)`` tells host values."""
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
    masks = _Masks(loop, [(going, loop.location)], uniform, active, going)
    loop.body.set_nodes(prologue + masks.body())
    return _place_before(loop, before)


def uniform_bounds(program: Program, loop: Node) -> list[Node]:
    """Give a loop whose bounds differ per element the most trips any element makes, each
    element leaving (break) after its own; returns the nodes it placed before it."""
    builder = Builder(program)
    begin, end, step = loop.args
    before: list[Node] = []
    with builder.inside(loop.scope, before):
        zero, one = builder.const(0, dt.int32), builder.const(1, dt.int32)
        count = builder.elementwise("floordiv", [builder.elementwise("sub", [end, begin]), step])
        ahead = builder.elementwise("ne", [builder.elementwise("mod", [builder.elementwise("sub", [end, begin]),
                                                                     step]), zero])
        count = builder.elementwise("add", [count, builder.elementwise("int", [ahead])])
        trips = builder.elementwise("max", [count, zero])
        most = builder.const(0, dt.int32, ())
        most.name = "trips"
        builder.make("scatter_max", [most, trips], shape=loop.shape)
    prologue: list[Node] = []
    with builder.inside(loop.body, prologue):
        counter = builder.elementwise("add", [begin, builder.elementwise("mul", [loop, step])])
        leave = _if(builder, builder.elementwise("ge", [loop, trips]), [])
        with builder.inside(leave.body):
            builder.make("break")
    for node in walk(loop.body):
        node.args = [counter if a is loop else a for a in node.args]
    loop.body.set_nodes(prologue + loop.body.nodes)
    loop.args = [zero, most, one]
    loop.shape = ()
    return _place_before(loop, before)


def guard_block(block: Node, conditions: list, uniform) -> None:
    """Move the per-element ifs around a host loop or if into its body: ``if c: for ...:
    body`` becomes ``for ...: if c: body`` (and ``if c: if u: body``, ``if u: if c: body``).
    Its bounds, condition and exits are uniform, so it does the same for every element,
    and elements where ``c`` fails do nothing in it. ``conditions`` are (condition,
    location) pairs, outermost first."""
    block.body.set_nodes(_Masks(block, conditions, uniform).body())


class _Masks:
    """Rewrites a loop body: the loop's per-element jumps become updates of ``active`` and
    ``going``; everything but uniform work runs under ifs on ``conditions``."""

    def __init__(self, loop: Node, conditions: list, uniform, active: Node | None = None,
                 going: Node | None = None):
        self.block_node, self.conditions, self.uniform = loop, conditions, uniform
        self.loop = loop if active is not None else None  # whose jumps become mask updates
        self.active, self.going = active, going
        self.guards: list[Node] = []

    def body(self) -> list:
        """The loop's new body: its top-level guards, with the values that one guard
        computes and a later one reads kept in variables declared just before the guard
        (an if's body is a scope). A variable declared in one guard and used in later ones
        becomes such a variable itself: the guard sets it to its initial value."""
        nodes = self.block(list(self.block_node.body.nodes), top=True)
        written = {n.args[0] for n in walk(self.block_node.body) if is_write(n)}
        for k, guard in enumerate(self.guards):
            inside = set(walk(guard.body))
            later = [m for g in self.guards[k + 1:] for m in walk(g.body)] + self.guards[k + 1:]
            crossing = {a: None for m in later for a in [*m.args, *m.shape] if a in inside}
            for value in crossing:
                if value in written and value.op is CONST:  # memory (a tape): declared before
                    value.scope.nodes.remove(value)
                    nodes.insert(nodes.index(guard), value)
                    continue
                holder = Node(CONST, value.dtype, value.shape, attrs={"value": dt.cast_scalar(0, value.dtype)},
                              name=f"{value.name or 'value'}_shared")
                nodes.insert(nodes.index(guard), holder)
                update = Node(SET, None, value.shape, [holder, value])
                update.scope = value.scope
                value.scope.nodes.insert(value.scope.nodes.index(value) + 1, update)
                users = later + ([n for n in walk(guard.body) if n is not update] if value in written else [])
                for m in users:
                    m.args = [holder if a is value else a for a in m.args]
                    m.shape = tuple(holder if d is value else d for d in m.shape)
        return nodes

    def block(self, nodes: list, top: bool = False) -> list:
        """``nodes`` with the loop's jumps replaced by mask updates, and what follows a jump
        under ``if going``. At the top of the body, everything but uniform work is guarded."""
        out: list[Node] = []
        guarded: list[Node] = []
        for k, node in enumerate(nodes):
            leaves = self.loop is not None and node.op.jump \
                and node.enclosing_loop() is self.loop
            if top and node.dtype is not None and node.body is None and node.op is not LOAD and self.uniform(node):
                out.append(node)  # a host value: computed before the guarded work around it
                continue
            if top and (leaves or self._uniform(node)):
                self._flush(out, guarded)
                out.append(node)  # the whole loop's own exits and host work
                if leaves:
                    break
                continue
            target = guarded if top else out
            if leaves:
                self._stop(target, node.op is BREAK)
                break  # what follows a jump in its block never runs
            target.append(node)
            if node.op is IF and self.loop is not None and any(j.is_inside(node) for j in jumps(self.loop)):
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
        if node.op is IF:
            return node.args[0].rank == 0 and self.uniform(node.args[0]) and all(
                self._uniform(n) or n.op.jump for n in node.body.nodes)
        return node.body is None and self.uniform(node)

    def _stop(self, out: list, leave: bool) -> None:
        false = Node(CONST, dt.bool1, (), attrs={"value": False})
        out.append(false)
        for variable in [self.active, self.going] if leave else [self.going]:
            out.append(Node(SET, None, variable.shape, [variable, false]))

    def _guard(self, nodes: list) -> Node:
        for condition, location in reversed(self.conditions):
            guard = Node(IF, None, (), [condition], location=location)
            guard.body = Scope(guard)
            guard.body.set_nodes(nodes)
            nodes = [guard]
        return nodes[0]

    def _flush(self, out: list, guarded: list) -> None:
        if guarded:
            guard = self._guard(list(guarded))
            self.guards.append(guard)
            out.append(guard)
            guarded.clear()


def _place_before(loop: Node, nodes: list[Node]) -> list[Node]:
    """Put ``nodes`` in the loop's scope just before it (a later planning of the scope, after
    a guard moved it, must find them there) and return them."""
    loop.scope.insert_before(loop, nodes)
    return nodes


def _if(builder: Builder, condition: Node, body: list) -> Node:
    node = builder.make("if", [condition])
    node.body = Scope(node)
    node.body.set_nodes(body)
    return node
