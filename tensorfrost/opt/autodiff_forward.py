"""Forward-mode automatic differentiation: ``tf.jvp`` placeholders become tangent code.

Each value on a path from an ``x`` to a ``y`` gets a *tangent* (its directional derivative
along the tangents ``v`` of the xs), computed by code placed right after the value's own, so
it reads the same variables and memory the value read. Variables and memory get tangent
variables and tangent buffers, updated by the same writes at the same indices; loops, ifs,
``break`` and ``continue`` need nothing more: the tangent code is inside them. No tape, so
memory does not grow with the number of loop trips.

The sweep covers the program from its start to the top-level statement holding the
``tf.jvp`` call (the whole of it: a later trip of a loop reads what the end of the earlier
one wrote). Each x's tangent starts as its v where the x is defined (the derivative is with
respect to x's value there, as ``tf.grad``'s is); a v computed after its x is moved before
it when that is safe. A library function or custom operation with a reverse rule but no
forward rule is differentiated by transposing its reverse rule: its JVP is the gradient of
``<vjp(g), t>`` with respect to ``g``, a ``grad`` node the reverse pass expands next.

Guarantees afterwards: the placeholders of one (xs, vs) in one scope are replaced by the
tangents of their ys (zeros where a y does not depend on the xs).
"""

from __future__ import annotations

from ..ir.builder import Builder, using
from ..ir.errors import TraceError
from ..ir.node import Node, Program, positions
from ..ir.ops import CUSTOM_GRAD, DETACH, GRAD, JVP, LIBRARY_GRAD, PASS_GRAD
from ..ir.shapes import dims_equal
from ..tracing import algorithms as alg
from ..tracing import mathfn
from ..tracing.custom import custom_jvp, custom_vjp
from ..tracing.jvp import library_jvp
from ..tracing.jvp import rule as jvp_rule
from ..tracing.tensor import Tensor
from ..tracing.vjp import library_rule
from .analysis import is_write, mutable_nodes
from .autodiff_control import depends_on, influences
from .rewrite import replace_uses


class _JvpContext:
    """What a rule sees: the node, its operands' values and tangents, the tangent memory.
    (Reverse rules called by the transposition see the same names their sweep gives them.)"""

    fn = mathfn

    def __init__(self, sweep: ForwardSweep, node: Node):
        self.sweep = sweep
        self.node = node

    def x(self, index: int) -> Tensor:
        return Tensor(self.node.args[index])

    @property
    def y(self) -> Tensor:
        return Tensor(self.node)

    def t(self, index: int) -> Tensor | None:
        return self.sweep.tangent(self.node.args[index])

    def memory_tangent(self, memory: Node) -> Tensor | None:
        """The tangent a load of ``memory`` reads, or a write writes (a value's, if it is not
        written: a gather from a computed tensor)."""
        buffer = self.sweep.buffers.get(memory, self.sweep.tangents.get(memory))
        return None if buffer is None else Tensor(buffer)

    def make(self, op_name: str, args=(), attrs=None, dtype=None, shape=()) -> Node:
        return self.sweep.builder.make(op_name, args, attrs=attrs, dtype=dtype, shape=shape)

    def broadcast_to(self, value: Tensor, shape) -> Tensor:
        return Tensor(self.make("copy", [value.node], dtype=value.dtype, shape=tuple(shape)))

    def needs_gradient(self, node: Node) -> bool:
        return self.sweep.tangent(node) is not None


class ForwardSweep:
    """One forward sweep: the tangents along ``vs`` of ``xs`` of every value that needs one."""

    def __init__(self, program: Program, builder: Builder, xs: list[Node], vs: list[Node], ys: list[Node]):
        self.program = program
        self.builder = builder
        influence = set()
        for y in ys:
            influence |= influences(program, y)
        self.need = depends_on(program, xs) & influence
        self.mutable = mutable_nodes(program)
        self.seeds: dict[Node, list[Node]] = {}
        for x, v in zip(xs, vs):
            self.seeds.setdefault(x, []).append(v)
        self.tangents: dict[Node, Node] = {}  # value -> its tangent (the value's shape and dtype)
        self.buffers: dict[Node, Node] = {}  # variable or memory -> its tangent variable or buffer

    def tangent(self, node: Node) -> Tensor | None:
        """The tangent of ``node`` here (of a variable: its current value), or None (zero)."""
        if node in self.buffers:
            buffer = self.buffers[node]
            return Tensor(self.builder.make("copy", [buffer], dtype=buffer.dtype, shape=buffer.shape))
        tangent = self.tangents.get(node)
        return None if tangent is None else Tensor(tangent)

    def sweep(self, nodes: list[Node]) -> list[Node]:
        """``nodes`` with the tangent code of each placed right after it (bodies too)."""
        out: list[Node] = []
        for node in nodes:
            out.append(node)
            if node.body is not None:
                node.body.set_nodes(self.sweep(node.body.nodes))
                continue
            written = is_write(node) and node.args[0] in self.buffers  # (zeroes the tangent there too)
            if node.op is JVP or (node not in self.need and not written):
                continue
            staged: list[Node] = []
            with self.builder.inside(node.scope, staged), using(self.builder):
                self._differentiate(node)
            for made in staged:
                made.scope = node.scope
            out.extend(staged)
        return out

    def _differentiate(self, node: Node) -> None:
        if node in self.seeds:
            tangent = self._seed(node)
        elif is_write(node):
            jvp_rule(node.op)(_JvpContext(self, node))
            return
        elif node.dtype is None or not node.dtype.is_float:
            return
        else:
            tangent = self._value_tangent(node)
        if tangent is not None and not _same_shape(tangent.node.shape, node.shape):
            tangent = Tensor(self.builder.make("copy", [tangent.node], dtype=tangent.dtype, shape=node.shape))
        if tangent is not None and tangent.dtype is not node.dtype:
            tangent = tangent.astype(node.dtype)
        if node in self.mutable:  # a variable or buffer: its tangent is one too, written beside it
            initial = tangent.node if tangent is not None else self.builder.const(0.0, node.dtype)
            self.buffers[node] = self.builder.make("copy", [initial], dtype=node.dtype, shape=node.shape)
        elif tangent is not None:
            self.tangents[node] = tangent.node

    def _seed(self, x: Node) -> Tensor:
        total = None
        for v in self.seeds[x]:
            total = Tensor(v) if total is None else total + Tensor(v)
        return total

    def _value_tangent(self, node: Node) -> Tensor | None:
        if node.op is GRAD:
            raise TraceError("tf.jvp: a tf.grad taken after the tf.jvp call (in the same loop) feeds the value being "
                             "differentiated; take the tf.grad before the tf.jvp", node.location)
        if node.op is DETACH:
            return None
        if node.op is PASS_GRAD:  # the identity to the operands of the op that made the value
            parts = [self.tangent(a) for a in node.args[0].args if a.dtype is not None and a.dtype.is_float]
            return _sum([p for p in parts if p is not None])
        if node.op is LIBRARY_GRAD:
            rule = library_jvp(node.attrs["rule"])
            if rule is not None:
                return rule(_JvpContext(self, node))
            return self._transposed(node, lambda g: library_rule(node.attrs["rule"])(_JvpContext(self, node), g))
        if node.op is CUSTOM_GRAD:
            return self._custom(node)
        rule = jvp_rule(node.op)
        return None if rule is None else rule(_JvpContext(self, node))

    def _custom(self, node: Node) -> Tensor | None:
        inputs = node.args[1:]
        tangents = [self.tangent(a) for a in inputs]
        if all(t is None for t in tangents):
            return None
        name = node.attrs["name"]
        tangent = custom_jvp(name, inputs, tangents, node.args[0], node.location)
        if tangent is not NotImplemented:
            return tangent
        return self._transposed(node, lambda g: [None] + custom_vjp(name, inputs, g, node.args[0], node.location))

    def _transposed(self, node: Node, vjp) -> Tensor | None:
        """The JVP of a node with only a reverse rule: ``d/dg <vjp(g), t>``, a gradient the
        reverse pass expands next (the rule is linear in ``g``, so any ``g`` gives it)."""
        g = self.builder.const(0.0, node.dtype, node.shape)
        grads = vjp(Tensor(g))
        total = None
        for k, arg in enumerate(node.args):
            t = self.tangent(arg) if arg.dtype is not None and arg.dtype.is_float else None
            if t is None or grads[k] is None:
                continue
            term = _total(grads[k] * t)
            total = term if total is None else total + term
        if total is None:
            return None
        return Tensor(self.builder.make("grad", [total.node, g], dtype=node.dtype, shape=node.shape))


def _sum(parts: list[Tensor]) -> Tensor | None:
    total = None
    for part in parts:
        total = part if total is None else total + part
    return total


def _total(value: Tensor) -> Tensor:
    """The sum of every element, as a scalar."""
    while value.node.rank > 1:
        value = alg.sum(value, axis=0)
    if value.node.rank == 1:
        value = alg.reshape(alg.sum(value), [])
    return value


# -- placing the seeds --------------------------------------------------------------------------


def _visible(value: Node, at: Node, pos: dict) -> bool:
    """True if ``value`` is defined where ``at`` is (before it, in its scope or one around it)."""
    if pos[value] > pos[at]:
        return False
    scope = at.scope
    while scope is not None:
        if value.scope is scope:
            return True
        scope = scope.owner.scope if scope.owner is not None else None
    return False


def _hoist(program: Program, x: Node, v: Node, location) -> None:
    """Move the code computing ``v`` (defined after ``x``) to just after ``x``, where x's
    tangent starts; only pure code of x's scope that reads no variable can move."""
    pos = positions(program)
    if _visible(v, x, pos):
        return
    mutable = mutable_nodes(program)
    cone, stack = set(), [v]
    while stack:
        node = stack.pop()
        if node in cone or pos[node] <= pos[x]:
            continue
        movable = node.scope is x.scope and node.body is None and node.op.pure and not node.op.reads_memory \
            and node not in mutable and not any(a in mutable for a in node.args) and node is not x
        if not movable:
            raise TraceError("tf.jvp: the tangent v is computed after the tensor x it is a tangent of, from code "
                             f"that cannot move before x ({node.op.name}); compute v before x", location)
        cone.add(node)
        stack.extend(node.args)
        stack.extend(d for d in node.shape if isinstance(d, Node))
    moved = [n for n in x.scope.nodes if n in cone]
    rest = [n for n in x.scope.nodes if n not in cone]
    at = rest.index(x) + 1
    x.scope.set_nodes(rest[:at] + moved + rest[at:])


def _top(node: Node) -> Node:
    """The top-level statement holding ``node``."""
    while node.scope.owner is not None:
        node = node.scope.owner
    return node


def _group(placeholder: Node, key: tuple) -> list[Node]:
    """The placeholders of ``placeholder``'s scope with its xs and vs, from it up to the
    first other tf.grad or tf.jvp (which must be expanded before the code after it is)."""
    scope = placeholder.scope
    group = []
    for node in scope.nodes[scope.nodes.index(placeholder):]:
        if node.op is JVP and tuple(node.args[1:]) == key:
            group.append(node)
        elif any(n.op is JVP or n.op is GRAD for n in node.subtree()):
            break
    return group


def expand(program: Program, placeholder: Node) -> None:
    """Replace ``placeholder`` and the placeholders of its scope with the same xs and vs."""
    count = placeholder.attrs["count"]
    key = tuple(placeholder.args[1:])
    group = _group(placeholder, key)
    xs, vs = list(key[:count]), list(key[count:])
    for x, v in zip(xs, vs):
        _hoist(program, x, v, placeholder.location)
    root = program.root
    end = root.nodes.index(_top(group[-1])) + 1
    builder = Builder(program, root)
    sweep = ForwardSweep(program, builder, xs, vs, [n.args[0] for n in group])
    root.set_nodes(sweep.sweep(root.nodes[:end]) + root.nodes[end:])
    results = {}
    for node in group:
        y = node.args[0]
        staged: list[Node] = []
        with builder.inside(node.scope, staged), using(builder):
            tangent = sweep.tangent(y)
            if tangent is None:
                tangent = Tensor(builder.const(0.0, y.dtype, y.shape))
            elif not _same_shape(tangent.node.shape, y.shape):
                tangent = Tensor(builder.make("copy", [tangent.node], dtype=tangent.dtype, shape=y.shape))
            results[node] = builder.make("copy", [tangent.astype(y.dtype).node], dtype=y.dtype, shape=y.shape)
        node.scope.insert_before(node, staged)
    for node in group:
        node.scope.nodes.remove(node)
    replace_uses(program, results)


def _same_shape(a, b) -> bool:
    return len(a) == len(b) and all(dims_equal(x, y) for x, y in zip(a, b))
