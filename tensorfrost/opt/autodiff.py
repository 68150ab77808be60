"""Reverse-mode automatic differentiation: ``tf.grad`` placeholders become backward code.

For each loss, one backward sweep is emitted where the first ``tf.grad(loss, ...)`` was
called: the nodes before it in its scope are visited in reverse, and each op's vector-
Jacobian product (from the op table) turns the gradient of its result into gradients of
its operands. Gradients of plain values are summed as values; gradients of memory and of
variables live in *adjoint buffers* (zeros, updated in place), as do gradients of values
that loops or conditions contribute to. Loops and ifs are reversed by ``autodiff_control``
(taping the variables each iteration starts with, recomputing the body, reversing it).
A ``library_grad`` node's gradient is its library rule (``tracing/vjp.py``), which reads the
node as the result, so the gradient code of a later ``tf.grad`` differentiates it again.

Guarantees afterwards: no ``grad``, ``detach``, ``pass_grad``, ``custom_grad`` or
``library_grad`` nodes remain; each ``tf.grad(loss, x)`` call (also the same one twice, or
one whose ``x`` another call's ``x`` is computed from) is the gradient of ``sum(loss)`` with
respect to ``x`` as defined at its creation (a variable's initial value, an input's value).
"""

from __future__ import annotations

from ..ir.builder import Builder, using
from ..ir.errors import TraceError
from ..ir.node import Node, Program, Scope, walk
from ..ir.ops import AUTODIFF, CUSTOM_GRAD, DETACH, GRAD, IF, INPUT, JVP, LIBRARY_GRAD, LOAD, LOOP, PASS_GRAD
from ..ir.shapes import dims_equal, static_value
from ..tracing import algorithms as alg
from ..tracing import mathfn
from ..tracing.api import scatterAdd
from ..tracing.custom import custom_vjp
from ..tracing.tensor import Tensor
from ..tracing.vjp import library_rule
from ..tracing.vjp import rule as vjp_rule
from . import autodiff_control as control
from . import autodiff_forward as forward
from .analysis import is_write, mutable_nodes
from .autodiff_scatter import reduced_scatter
from .rewrite import replace_uses


class _VjpContext:
    """What a VJP sees: the node, its operands' forward values, and the sweep's adjoints."""

    fn = mathfn

    def __init__(self, sweep: Sweep, node: Node):
        self.sweep = sweep
        self.node = node

    def x(self, index: int) -> Tensor:
        return Tensor(self.node.args[index])

    @property
    def y(self) -> Tensor:
        return Tensor(self.node)

    def broadcast_to(self, value: Tensor, shape) -> Tensor:
        return Tensor(self.sweep.builder.make("copy", [value.node], dtype=value.dtype, shape=tuple(shape)))

    def needs_gradient(self, node: Node) -> bool:
        return node in self.sweep.depends

    def scatter_to_memory(self, memory: Node, g: Tensor, index) -> None:
        buffer = self.sweep.adjoint_buffer(memory)
        if self.sweep.per_element():  # no sums across the elements a condition separates
            scatterAdd(buffer[tuple(Tensor(i) for i in index)], g)
        else:
            reduced_scatter(buffer, g, list(index), self.sweep.mutable)

    def memory_adjoint(self, memory: Node, index) -> Tensor:
        return Tensor(self.sweep.adjoint_buffer(memory).node)[tuple(Tensor(i) for i in index)]

    def clear_memory_adjoint(self, memory: Node, index) -> None:
        buffer = self.sweep.adjoint_buffer(memory)
        buffer[tuple(Tensor(i) for i in index)] = 0.0

    def variable_adjoint(self, variable: Node) -> Tensor:
        return self.sweep.adjoint_buffer(variable) * 1.0

    def clear_variable_adjoint(self, variable: Node) -> None:
        self.sweep.adjoint_buffer(variable).set(0.0)

    def scatter_view(self, g: Tensor) -> Tensor:
        return control.scatter_view(self.node, g)


class Sweep:
    """One backward pass: from ``loss`` back over ``region`` (forward nodes of a scope)."""

    def __init__(self, program: Program, builder: Builder, loss: Node, wrts: list[Node]):
        self.program = program
        self.builder = builder
        self.loss = loss
        self.values: dict[Node, Tensor] = {}  # gradient of a value, summed as a value
        self.buffers: dict[Node, Tensor] = {}  # adjoint buffers (variables, memory, loop inputs)
        self.aliases: dict[Node, Node] = {}  # recomputed variable -> the variable it stands for
        # Nodes on a path from a wrt to the loss: nothing else needs a gradient.
        self.influence = control.influences(program, loss)
        self.depends = control.depends_on(program, wrts) & self.influence
        self.wrts = set(wrts)
        # Each wrt's gradient, taken where the sweep reaches its definition (every use is
        # after it, so it is complete there); the sweep goes on past it to the wrts upstream.
        self.found: dict[Node, Tensor | None] = {}
        self.mutable = mutable_nodes(program)

    # -- adjoints ------------------------------------------------------------------------------

    def resolve(self, node: Node) -> Node:
        """The variable a recomputed copy stands for (copies of copies included)."""
        while node in self.aliases:
            node = self.aliases[node]
        return node

    def adjoint_buffer(self, node: Node) -> Tensor:
        node = self.resolve(node)
        if node not in self.buffers:
            raise AssertionError(f"no adjoint buffer for {node}")
        return self.buffers[node]

    def make_buffer(self, node: Node) -> None:
        """An adjoint buffer for ``node`` (zeros of its shape), defined at the insertion point."""
        node = self.resolve(node)
        if node not in self.buffers:
            self.buffers[node] = Tensor(self.builder.const(0.0, node.dtype, node.shape))

    def make_buffers(self, nodes: list[Node], scope: Scope) -> None:
        """Adjoint buffers for the variables and loaded memory defined in ``scope`` among
        ``nodes`` (and read anywhere in them)."""
        loaded = {n.args[0] for n in walk_region(nodes) if n.op is LOAD}
        for node in walk_region(nodes):
            if (node.scope is scope or node.op is INPUT) and node in self.depends \
                    and node.dtype is not None and node.dtype.is_float and (node in self.mutable or node in loaded):
                self.make_buffer(node)

    def per_element(self) -> bool:
        """True while the sweep emits code under a per-element condition: sums over the
        elements there would mix the elements the condition separates."""
        scope = self.builder.scope
        while scope is not None and scope.owner is not None:
            if scope.owner.op is IF and scope.owner.args[0].rank:
                return True
            scope = scope.owner.scope
        return False

    def contribute(self, node: Node, grad: Tensor) -> None:
        target = self.resolve(node)
        if not _fits(grad.node.shape, node.shape) and self.per_element():
            # A value shared by the elements (a scalar parameter) gets per-element gradients
            # here: add them into its adjoint atomically, or keep them per element until
            # they reach one (through loads and elementwise ops, which broadcast).
            if target in self.buffers:
                control.scatter_broadcast(grad, node.shape, into=self.buffers[target])
                return
            if node.op is not LOAD and node.op.kind != "elementwise":
                raise TraceError(f"the gradient of {node.op.name}, computed from a value shared by all elements, "
                                 "flows back from inside a per-element condition; compute that value before the "
                                 "loop or if", node.location)
            self.values[node] = self.values[node] + grad if node in self.values else grad
            return
        grad = self.reduce_to(grad, node.shape)
        if target in self.buffers:
            buffer = self.buffers[target]
            buffer.set(buffer + grad)
        elif node in self.values:
            self.values[node] = self.values[node] + grad
        else:
            self.values[node] = grad

    def take(self, node: Node) -> Tensor | None:
        """The whole gradient of ``node`` so far (value part and buffer part)."""
        value = self.peek(node)
        self.values.pop(node, None)
        return value

    def peek(self, node: Node) -> Tensor | None:
        """``take`` without removing the value part."""
        value = self.values.get(node)
        target = self.resolve(node)
        if target in self.buffers:
            buffer = self.buffers[target] * 1.0
            value = buffer if value is None else value + buffer
        return value

    def reduce_to(self, grad: Tensor, shape) -> Tensor:
        """Sum a gradient over the axes its operand was broadcast along."""
        node = grad.node
        while node.rank > len(shape):
            grad = alg.sum(grad, axis=0) if node.rank > 1 else alg.sum(grad)
            if node.rank == 1:
                return Tensor(self.builder.make("copy", [alg.reshape(grad, []).node], dtype=grad.dtype, shape=()))
            node = grad.node
        if node.rank < len(shape):
            return Tensor(self.builder.make("copy", [node], dtype=grad.dtype, shape=tuple(shape)))
        for axis, dim in enumerate(shape):
            have = grad.node.shape[axis]
            if dims_equal(have, dim):
                continue
            if static_value(dim) == 1:
                grad = alg.unsqueeze(alg.sum(grad, axis=axis), axis)
            else:  # a dim that is 1 or equal at run time: scatter into place (clamped)
                grad = control.scatter_broadcast(grad, shape)
                break
        return grad

    # -- the sweep -----------------------------------------------------------------------------

    def reverse(self, nodes: list[Node]) -> None:
        for node in reversed(nodes):
            if node in self.wrts and node not in self.found:
                self.found[node] = self.peek(node)
            if node.op is LOOP and control.touches(node, self.depends):
                control.reverse_loop(self, node)
            elif node.op is IF and control.touches(node, self.depends):
                control.reverse_if(self, node)
            elif node.op.kind == AUTODIFF:
                self._reverse_marker(node)
            elif is_write(node):
                if self.resolve(node.args[0]) in self.buffers:
                    self._apply_vjp(node, None)
            elif node in self.depends and node.dtype is not None and node.dtype.is_float and vjp_rule(node.op) \
                    and (node not in self.wrts or any(a in self.depends for a in node.args)):
                grad = self.take(node)
                if grad is not None:
                    self._apply_vjp(node, grad)


    def _apply_vjp(self, node: Node, grad: Tensor | None) -> None:
        vjp = vjp_rule(node.op)
        if vjp is None:
            return
        grads = vjp(_VjpContext(self, node), grad)
        for arg, g in zip(node.args, grads):
            if g is not None and arg in self.depends and arg.dtype.is_float:
                self.contribute(arg, g)

    def _reverse_marker(self, node: Node) -> None:
        grad = self.take(node)
        if grad is None or node.op is DETACH or node.op is GRAD:
            return
        if node.op is LIBRARY_GRAD:
            grads = library_rule(node.attrs["rule"])(_VjpContext(self, node), grad)
            for arg, g in zip(node.args, grads):
                if g is not None and arg in self.depends and arg.dtype.is_float:
                    self.contribute(arg, g)
            return
        if node.op is CUSTOM_GRAD:
            inputs = node.args[1:]
            for arg, g in zip(inputs, custom_vjp(node.attrs["name"], inputs, grad, node.args[0], node.location)):
                if g is not None and arg in self.depends and arg.dtype.is_float:
                    self.contribute(arg, g)
            return
        source = node.args[0]  # pass_grad: to the operands of the op that made the value
        for arg in source.args:
            if arg in self.depends and arg.dtype.is_float:
                self.contribute(arg, grad)


def _expand_one(program: Program, placeholder: Node) -> None:
    scope = placeholder.scope
    loss = placeholder.args[0]
    group = [n for n in scope.nodes if n.op is GRAD and n.args[0] is loss]
    position = scope.nodes.index(placeholder)
    region = scope.nodes[:position]
    control.prepare(program, region, [n.args[1] for n in group], loss)
    builder = Builder(program, scope)
    backward: list[Node] = []
    with builder.inside(scope, backward), using(builder):
        sweep = Sweep(program, builder, loss, [n.args[1] for n in group])
        sweep.make_buffers(region, scope)
        sweep.contribute(loss, Tensor(builder.const(1.0, loss.dtype, loss.shape)))
        sweep.reverse(scope.nodes[:scope.nodes.index(placeholder)])
        results = {}
        gradients: dict[Node, Tensor] = {}  # per wrt: take() empties it, and several calls may ask for it
        for node in group:
            wrt = node.args[1]
            if wrt not in gradients:
                grad = None if wrt not in sweep.depends else \
                    sweep.found[wrt] if wrt in sweep.found else sweep.take(wrt)
                grad = grad if grad is not None else Tensor(builder.const(0.0, wrt.dtype, wrt.shape))
                gradients[wrt] = Tensor(builder.cast(grad.node, wrt.dtype))  # (the dtype of what it is a gradient of)
            results[node] = Tensor(builder.make("copy", [gradients[wrt].node], dtype=wrt.dtype, shape=wrt.shape))
    position = scope.nodes.index(placeholder)
    for node in backward:
        node.scope = scope
    scope.nodes[position:position] = backward
    scope.set_nodes([n for n in scope.nodes if n not in results])
    replace_uses(program, {old: new.node for old, new in results.items()})


def _fits(shape, target) -> bool:
    """True if a gradient of ``shape`` needs no sum to become one of ``target``."""
    return len(shape) <= len(target) and all(
        dims_equal(d, t) for d, t in zip(shape, target[len(target) - len(shape):]))


def walk_region(nodes: list[Node]):
    for node in nodes:
        yield node
        if node.body is not None:
            yield from walk(node.body)


def _remove_markers(program: Program) -> None:
    mapping = {n: n.args[0] for n in program.walk() if n.op in (DETACH, PASS_GRAD, CUSTOM_GRAD, LIBRARY_GRAD)}
    for node in mapping:
        node.scope.nodes.remove(node)
    replace_uses(program, mapping)


def run(program: Program) -> Program:
    # In program order, so that each expansion differentiates code without placeholders:
    # tf.jvp of a tf.grad (a Hessian-vector product) and tf.grad of a tf.jvp both work.
    while True:
        placeholder = next((n for n in program.walk() if n.op is GRAD or n.op is JVP), None)
        if placeholder is None:
            break
        if placeholder.op is JVP:
            forward.expand(program, placeholder)
        else:
            _expand_one(program, placeholder)
    _remove_markers(program)
    return program

