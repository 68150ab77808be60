"""Building IR nodes: the tracing context and the helpers every pass shares.

``Builder`` appends nodes to a scope (or to a list a pass is filling) and knows the type
and broadcasting rules, so the tracer and the compiler passes build nodes the same way.
While a program is traced, one builder is *current*; tensor operations outside a program
find none and raise a clear error.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager, nullcontext

import numpy as np

from . import dtypes as dt
from .errors import ShapeError, TraceError, user_location
from .node import Node, Program, Scope
from .ops import ASSERT, CONST, ELEMENTWISE, INPUT, OPS, elementwise_types
from .ops_math import CONVERSIONS
from .shapes import describe_dim, dims_equal, static_value
from .widen import ShapePlan, Variables

_state = threading.local()


class Builder:
    """Creates nodes at an insertion point: the end of ``target`` (a scope's node list)."""

    def __init__(self, program: Program, scope: Scope | None = None, trace: bool = False,
                 plan: ShapePlan | None = None):
        self.program = program
        self.scope = scope if scope is not None else program.root
        self.target = self.scope.nodes
        self.trace = trace  # record the user's source line on every node
        self.open_loops: list[Node] = []
        self.open_conditions: list[Node] = []
        self.variables = Variables(self, plan or ShapePlan())
        self.aliases: dict[Node, Node] = {}  # dim -> the equal dim that replaces it (unify)
        self._check_nodes: set[Node] = set()
        self._checking = False

    # -- insertion point -----------------------------------------------------------------

    @contextmanager
    def inside(self, scope: Scope, target: list | None = None):
        """Emit into ``scope`` (or into ``target``, a list that will become its nodes)."""
        saved = self.scope, self.target
        self.scope, self.target = scope, (scope.nodes if target is None else target)
        try:
            yield
        finally:
            self.scope, self.target = saved

    def emit(self, node: Node) -> Node:
        node.scope = self.scope
        self.target.append(node)
        if self._checking:
            self._check_nodes.add(node)
        return node

    def make(self, op_name: str, args=(), attrs=None, dtype=None, shape=(), name=None, location=None) -> Node:
        if location is None and self.trace:
            location = user_location()
        if self.aliases and not self._checking:
            args = [self.aliases.get(a, a) for a in args]
            shape = tuple(self.aliases.get(d, d) for d in shape)
        return self.emit(Node(OPS[op_name], dtype, shape, args, attrs, name=name, location=location))

    # -- values --------------------------------------------------------------------------

    def const(self, value, dtype: dt.DType = None, shape=()) -> Node:
        dtype = dtype or dt.scalar_dtype(value)
        return self.make("const", attrs={"value": dt.cast_scalar(value, dtype)}, dtype=dtype, shape=shape)

    def dim(self, value) -> Node:
        """A dim from a Python int or a scalar integer node."""
        if isinstance(value, Node):
            one = all(static_value(d) == 1 for d in value.shape)  # [1]: a sum of 1-D, a [1] input
            if not one or not value.dtype.is_integer:
                raise ShapeError(f"shape entries must be integers (scalars or one element), got a {value.dtype!r} "
                                 "tensor "
                                 f"of shape {[describe_dim(d) for d in value.shape]}")
            value = self.aliases.get(value, value)
            if value.op is INPUT or value.rank:  # an argument, or its one element: the host reads it
                zero = [self.const(0, dt.int32)] * value.rank
                value = self.make("load", [value, *zero], dtype=value.dtype, shape=())
            return value if value.dtype is dt.int32 else self.cast(value, dt.int32)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ShapeError(f"shape entries must be ints or scalar int tensors, got {value!r}")
        if value < 0:
            raise ShapeError(f"shape entries must be non-negative, got {value}")
        return self.const(value, dt.int32)

    def cast(self, node: Node, dtype: dt.DType) -> Node:
        if node.dtype is dtype:
            return node
        if node.op is CONST and node.shape == () and node not in self.variables.keys:
            # (a variable's value changes where it is set: its conversion is an op that reads it)
            return self.const(_convert_scalar(node.attrs["value"], dtype), dtype)
        return self.make(cast_op(dtype), [node], dtype=dtype, shape=node.shape)

    def elementwise(self, op_name: str, args: list, name=None) -> Node:
        """An elementwise op with numpy broadcasting and the op's type rule applied."""
        op = OPS[op_name]
        assert op.kind == ELEMENTWISE, op_name
        if op.arity is not None and len(args) != op.arity:
            raise TraceError(f"{op_name} takes {op.arity} operands, got {len(args)}")
        arg_types, result_type = elementwise_types(op, [a.dtype for a in args])
        args = [self.cast(a, t) for a, t in zip(args, arg_types)]
        shape = self.broadcast([a.shape for a in args], op_name)
        return self.make(op_name, args, dtype=result_type, shape=shape, name=name)

    # -- shapes --------------------------------------------------------------------------

    def broadcast(self, shapes, what: str = "operation") -> tuple:
        """The numpy broadcast of symbolic shapes.

        Dims that cannot be compared at compile time must be equal or 1 at run time: an
        ``assert`` node checks that when the program runs.
        """
        rank = max((len(s) for s in shapes), default=0)
        out = []
        for axis in range(rank):
            chosen = None
            for shape in shapes:
                k = axis - (rank - len(shape))
                if k < 0:
                    continue
                dim = shape[k]
                if chosen is None or static_value(chosen) == 1:
                    chosen = dim
                    continue
                if static_value(dim) == 1 or dims_equal(chosen, dim):
                    continue
                if static_value(chosen) is not None and static_value(dim) is not None:
                    raise ShapeError(f"{what}: cannot broadcast shapes {_fmt_shapes(shapes)} "
                                     f"(axis {axis}: {static_value(chosen)} vs {static_value(dim)})",
                                     user_location())
                if static_value(chosen) is not None or static_value(dim) is not None:
                    self.require_broadcastable(chosen, dim, what)
                else:
                    chosen = self.unify(chosen, dim, what)
            out.append(chosen)
        return tuple(out)

    def unify(self, a: Node, b: Node, what: str) -> Node:
        """Two sizes known only at run time, combined elementwise, must be equal: check that
        when the program runs, and from here on use one node (the one defined first) for
        both, so that every later pass sees one shape. Returns that node."""
        root = self.program.root.nodes
        order = {n: k for k, n in enumerate(root)}
        keep, drop = (a, b) if order.get(a, len(root)) <= order.get(b, len(root)) else (b, a)
        message = (f"{what}: {describe_dim(drop)} is {{1}} but must equal {describe_dim(keep)}, which is {{0}} "
                   "(the two are combined elementwise)")
        if drop in order and keep in order:
            self.aliases[drop] = keep
            _substitute(self.program, drop, keep, self._check_nodes)
        self.require_equal(keep, drop, message)
        return keep

    def require_broadcastable(self, dim: Node, other: Node, what: str) -> None:
        """Emit a run-time check that ``other`` equals ``dim`` or is 1."""
        def condition():
            same = self.elementwise("eq", [dim, other])
            return self.elementwise("or", [same, self.elementwise("eq", [other, self.const(1, dt.int32)])])
        message = (f"{what}: cannot broadcast a dim of size {{1}} ({describe_dim(other)}) "
                   f"against size {{0}} ({describe_dim(dim)})")
        self.check(condition, [dim, other], message)

    def require_equal(self, expected: Node, actual: Node, message: str, location=None) -> None:
        """Emit a run-time check that two dims are equal; ``message`` may use {0} (expected)
        and {1} (actual)."""
        self.check(lambda: self.elementwise("eq", [expected, actual]), [expected, actual], message, location)

    def check(self, condition, values: list, message: str, location=None) -> None:
        """Emit an ``assert`` that ``condition()`` holds when the program runs.

        Checks read only host scalars, so when their operands allow they are placed before
        the outermost loop or if being traced: loop bodies stay free of host work and can
        still run inside one kernel.
        """
        location = location or user_location()
        anchor = self._check_anchor(values)
        staged: list[Node] = []
        checking, self._checking = self._checking, True  # checks read dims as given, not as unified
        try:
            with self.inside(self.program.root, staged) if anchor is not None else nullcontext():
                ok = condition()
                self.make("assert", [ok, *values], attrs={"message": message}, location=location)
        finally:
            self._checking = checking
        if anchor is not None:
            root = self.program.root.nodes
            index = root.index(anchor)
            root[index:index] = staged

    def _check_anchor(self, values: list):
        """The outermost loop/if being traced, if every value is defined before it."""
        if self.scope is self.program.root or self.scope.owner is None:
            return None
        anchor = self.scope.owner
        while anchor.scope is not self.program.root:
            anchor = anchor.scope.owner
        root_nodes = self.program.root.nodes
        if anchor not in root_nodes:  # a block a pass is still building: check in place
            return None
        position = root_nodes.index(anchor)
        for value in values:
            if value.scope is not self.program.root or root_nodes.index(value) > position:
                return None
        return anchor


def _substitute(program: Program, old: Node, new: Node, keep: set) -> None:
    """Read ``new`` wherever the program reads ``old``, except in the nodes of checks."""
    for node in program.walk():
        if node in keep or node.op is ASSERT:
            continue
        if any(a is old for a in node.args):
            node.args = [new if a is old else a for a in node.args]
        if any(d is old for d in node.shape):
            node.shape = tuple(new if d is old else d for d in node.shape)


def _fmt_shapes(shapes) -> str:
    return " and ".join("[" + ", ".join(describe_dim(d) for d in s) + "]" for s in shapes)


def _convert_scalar(value, dtype: dt.DType):
    """A constant converted exactly as the conversion op converts tensors."""
    return OPS[cast_op(dtype)].ref(np.asarray(value)).item()


def cast_op(dtype: dt.DType) -> str:
    """The name of the op that converts to ``dtype``."""
    return CONVERSIONS[dtype]


# -- the tracing context -------------------------------------------------------------------


def current() -> Builder:
    """The builder of the program being traced; an error outside of tensor programs."""
    builder = getattr(_state, "builder", None)
    if builder is None:
        raise TraceError("tensor operations can only be used inside a tensor program "
                         "(a function compiled with tf.compile or @tf.kernel_program); "
                         "outside of one, work on numpy arrays (tensor.numpy)", user_location())
    return builder


def active() -> Builder | None:
    return getattr(_state, "builder", None)


@contextmanager
def tracing(program: Program, plan: ShapePlan | None = None):
    """Make a new builder for ``program`` current while the body runs."""
    saved = getattr(_state, "builder", None)
    builder = Builder(program, trace=True, plan=plan)
    _state.builder = builder
    try:
        yield builder
    finally:
        _state.builder = saved


@contextmanager
def using(builder: Builder):
    """Make an existing builder current, so that traced-Tensor operations (``a * b``,
    ``tf.sum``...) build nodes with it; compiler passes use this to write IR as code."""
    saved = getattr(_state, "builder", None)
    _state.builder = builder
    try:
        yield builder
    finally:
        _state.builder = saved
