"""The op table: the one place that says what every operation is.

For each op: its kind, its type rule (``signature`` for elementwise ops), its cost (used by
fusion to choose between recomputing a value and storing it), its numpy reference (used by
the interpreter and by constant folding), and how each code emitter spells it. Elementwise
entries live in ``ops_math.py``; this file holds the Op class, the type rules and the
structural ops (memory, reductions, views, control flow, host-side bookkeeping).

No emitter, pass or interpreter spells an op anywhere else: they look it up here.
"""

from __future__ import annotations

import numpy as np

from . import dtypes as dt
from .errors import DTypeError

# Kinds of ops. Passes dispatch on these, never on op names, where they can.
ELEMENTWISE = "elementwise"  # pure function of its args, evaluated per element
SOURCE = "source"  # const, dim_id, input, input_dim: values without tensor args
MEMORY = "memory"  # load / store / scatter / set: access to mutable memory
REDUCTION = "reduction"  # reduce one axis (dropped from the shape)
SCAN = "scan"  # inclusive scan along one axis
VIEW = "view"  # reindexing: transpose, reshape, ...
MATMUL = "matmul"
CONTROL = "control"  # loop, if, break, continue, kernel
HOST = "host"  # host bookkeeping: assert, alloc, free, readback, region markers
AUTODIFF = "autodiff"  # gradient placeholders and markers, removed by the autodiff pass


class Op:
    """One entry of the op table."""

    __slots__ = ("name", "kind", "arity", "signature", "cost", "ref", "emit", "pure", "doc",
                 "identity", "combine", "vjp", "writes", "atomic", "reads_memory", "jump", "has_body", "host_only")

    def __init__(self, name, kind, arity=None, signature=None, cost=1.0, ref=None, emit=None,
                 pure=True, doc="", identity=None, combine=None, vjp=None, writes=False, atomic=False,
                 reads_memory=False, jump=False, has_body=False):
        self.name = name
        self.kind = kind
        self.arity = arity
        self.signature = signature  # elementwise type rule, see SIGNATURES
        self.cost = cost
        self.ref = ref  # numpy reference implementation
        self.emit = emit or {}  # language -> template or callable
        self.pure = pure  # False for ops with side effects
        self.doc = doc
        self.identity = identity  # reductions and scatters: the neutral element, per dtype kind
        self.combine = combine  # reductions and scatters: the elementwise op that accumulates
        self.vjp = vjp  # vector-Jacobian product (autodiff)
        # What passes ask instead of comparing names:
        self.writes = writes  # changes its first arg (a variable or memory): set, store, scatters
        self.atomic = atomic  # a write that combines atomically with what is there (scatters)
        self.reads_memory = reads_memory  # its value depends on when it runs: load, readback
        self.jump = jump  # leaves the flow of its loop: break, continue
        self.has_body = has_body  # owns a scope: loop, if, kernel
        self.host_only = kind == HOST  # bookkeeping of the host program: asserts, buffers, readbacks

    def spelling(self, lang: str):
        """The emitter template of this op in ``lang`` ('cpp', 'glsl', 'hlsl')."""
        if lang in self.emit:
            return self.emit[lang]
        if "c" in self.emit:
            return self.emit["c"]
        raise KeyError(f"op {self.name} has no spelling for {lang}")

    def __repr__(self) -> str:
        return f"Op({self.name})"


OPS: dict[str, Op] = {}


def register(op: Op) -> Op:
    if op.name in OPS:
        raise ValueError(f"op {op.name} registered twice")
    OPS[op.name] = op
    return op


def op(name: str) -> Op:
    return OPS[name]


# ---------------------------------------------------------------------------------------
# Type rules of elementwise ops: given the dtypes of the args, the dtypes the args are
# converted to before the op, and the dtype of the result.


def _common(dtypes):
    out = dtypes[0]
    for d in dtypes[1:]:
        out = dt.promote(out, d)
    return out


def _sig_arith(op_name, dtypes):
    common = _common(dtypes)
    if common.is_bool:
        common = dt.int32  # arithmetic on booleans counts, as numpy's sum does
    return [common] * len(dtypes), common


def _sig_same(op_name, dtypes):
    return _sig_arith(op_name, dtypes)


def _sig_identity(op_name, dtypes):
    return list(dtypes), dtypes[0]


def _sig_float(op_name, dtypes):
    return [dt.float32] * len(dtypes), dt.float32


def _sig_compare(op_name, dtypes):
    common = _common(dtypes)
    return [common] * len(dtypes), dt.bool1


def _sig_bitwise(op_name, dtypes):
    common = _common(dtypes)
    if common.is_float:
        raise DTypeError(f"{op_name}: expected integer or bool operands, got {', '.join(map(repr, dtypes))}")
    return [common] * len(dtypes), common


def _sig_shift(op_name, dtypes):
    left = dtypes[0] if not dtypes[0].is_bool else dt.int32
    if left.is_float or dtypes[1].is_float:
        raise DTypeError(f"{op_name}: expected integer operands, got {', '.join(map(repr, dtypes))}")
    return [left, left], left


def _sig_select(op_name, dtypes):
    common = _common(dtypes[1:])
    return [dt.bool1, common, common], common


def _sig_uint(op_name, dtypes):
    return [dt.uint32], dt.uint32


def _sig_uint_to_float(op_name, dtypes):
    return [dt.uint32], dt.float32


SIGNATURES = {
    "arith": _sig_arith, "same": _sig_same, "identity": _sig_identity, "float": _sig_float, "compare": _sig_compare,
    "bitwise": _sig_bitwise, "shift": _sig_shift, "select": _sig_select, "uint": _sig_uint,
    "uint_to_float": _sig_uint_to_float,
}


def cast_to(target: dt.DType):
    """Type rule of a conversion to ``target``: any operand, result ``target``."""
    def rule(op_name, dtypes):
        return list(dtypes), target
    return rule


def bitcast_to(target: dt.DType):
    """Type rule of a reinterpretation of the 32 bits of a non-bool operand."""
    def rule(op_name, dtypes):
        if dtypes[0].is_bool:
            raise DTypeError(f"{op_name}: cannot reinterpret the bits of a bool tensor")
        return list(dtypes), target
    return rule


def elementwise_types(o: Op, arg_dtypes: list):
    """(dtypes the args are converted to, dtype of the result) for an elementwise op."""
    rule = o.signature if callable(o.signature) else SIGNATURES[o.signature]
    return rule(o.name, list(arg_dtypes))


# ---------------------------------------------------------------------------------------
# Structural ops. Their shapes and dtypes are computed by the tracing functions that build
# them (ir/tracing.py, ir/algorithms.py, ir/indexing.py); emitters handle their structure.

_FLOAT_MAX = float(np.finfo(np.float32).max)


def _identity(f, i, u, b):
    return {"f": f, "i": i, "u": u, "b": b}


register(Op("const", SOURCE, 0, cost=0.0, doc="a constant value broadcast to a shape; attrs: value"))
register(Op("dim_id", SOURCE, 0, cost=0.0, doc="the index along attrs['axis'] of each element of the shape"))
register(Op("input", SOURCE, 0, cost=0.0, doc="a tensor argument of the program; attrs: index"))
register(Op("input_dim", SOURCE, 1, cost=0.0, doc="the runtime size of axis attrs['axis'] of an input"))

register(Op("load", MEMORY, None, cost=128.0, reads_memory=True, doc="args: memory, *indices; indices are clamped"))
register(Op("store", MEMORY, None, cost=128.0, pure=False, writes=True, doc="args: memory, value, *indices"))
register(Op("set", MEMORY, 2, cost=1.0, pure=False, writes=True, doc="args: variable, value; replaces the whole value"))
register(Op("copy", ELEMENTWISE, 1, signature="identity", cost=1.0, ref=lambda a: np.array(a, copy=True),
            emit={"c": "{0}"}, doc="a fresh copy of a value (so that it can be mutated)"))

_SCATTERS = {
    "scatter_add": ("add", _identity(0.0, 0, 0, False)),
    "scatter_min": ("min", _identity(float("inf"), np.iinfo(np.int32).max, np.iinfo(np.uint32).max, True)),
    "scatter_max": ("max", _identity(float("-inf"), np.iinfo(np.int32).min, 0, False)),
    "scatter_and": ("and", _identity(None, -1, np.iinfo(np.uint32).max, True)),
    "scatter_or": ("or", _identity(None, 0, 0, False)),
    "scatter_xor": ("xor", _identity(None, 0, 0, False)),
}
for _name, (_combine, _ident) in _SCATTERS.items():
    register(Op(_name, MEMORY, None, cost=256.0, pure=False, combine=_combine, identity=_ident, writes=True,
                atomic=True, emit={"c": "tf_atomic_" + _combine},
                doc=f"args: memory, value, *indices; atomically combines with {_combine}"))

_REDUCTIONS = {
    "reduce_sum": ("add", _identity(0.0, 0, 0, False), np.sum),
    "reduce_prod": ("mul", _identity(1.0, 1, 1, True), np.prod),
    "reduce_max": ("max", _identity(float("-inf"), np.iinfo(np.int32).min, 0, False), np.max),
    "reduce_min": ("min", _identity(float("inf"), np.iinfo(np.int32).max, np.iinfo(np.uint32).max, True),
                   np.min),
    "reduce_any": ("or", _identity(None, None, None, False), np.any),
    "reduce_all": ("and", _identity(None, None, None, True), np.all),
}
for _name, (_combine, _ident, _ref) in _REDUCTIONS.items():
    register(Op(_name, REDUCTION, 1, combine=_combine, identity=_ident, ref=_ref, cost=4.0,
                doc=f"combine axis attrs['axis'] with {_combine}; the axis is dropped"))
register(Op("prefix_sum", SCAN, 1, combine="add", identity=_identity(0.0, 0, 0, False), cost=4.0,
            ref=np.cumsum, doc="inclusive prefix sum along attrs['axis']"))

# Views: the output element at index I is the input element at index f(I).
register(Op("transpose", VIEW, 1, doc="swap axes attrs['dim1'] and attrs['dim2']"))
register(Op("unsqueeze", VIEW, 1, doc="insert an axis of size 1 at attrs['axis']"))
register(Op("squeeze", VIEW, 1, doc="remove the axis attrs['axis'] (of size 1)"))
register(Op("reshape", VIEW, 1, doc="the same elements in row-major order, new shape"))
register(Op("split_dim", VIEW, 1, doc="split axis attrs['axis'] into [ceil(n/size), size]"))
register(Op("merge_dim", VIEW, 1, doc="merge axis attrs['axis'] with the axis before it"))
register(Op("repeat", VIEW, 1, doc="repeat every element attrs['repeats'] times along attrs['axis']"))
register(Op("reverse", VIEW, 1, doc="reverse the order along attrs['axis']"))
register(Op("matmul", MATMUL, 2, cost=4.0, ref=np.matmul, doc="matrix product over the last two axes"))

register(Op("loop", CONTROL, 3, pure=False, has_body=True,
            doc="args: begin, end, step; the body runs once per counter value, which is the loop node's value"))
register(Op("if", CONTROL, 1, pure=False, has_body=True, doc="args: condition; body runs where it holds"))
register(Op("break", CONTROL, 0, pure=False, jump=True, doc="leave the innermost loop"))
register(Op("continue", CONTROL, 0, pure=False, jump=True, doc="go to the next iteration of the innermost loop"))
register(Op("kernel", CONTROL, 0, pure=False, has_body=True, doc="body runs once per element of the kernel's shape"))

register(Op("grad", AUTODIFF, 2, doc="args: loss, wrt; the gradient of sum(loss) with respect to wrt"))
register(Op("detach", AUTODIFF, 1, doc="the value of its arg; gradients stop here"))
register(Op("pass_grad", AUTODIFF, 1,
            doc="the value of its arg; gradients pass to the arg's operands as if it were the identity"))

register(Op("assert", HOST, None, pure=False, doc="args: condition, *values; fails with attrs['message']"))
register(Op("alloc", HOST, 0, pure=False, doc="a new buffer of the node's shape and dtype"))
register(Op("free", HOST, 1, pure=False, doc="release a buffer after its last use"))
register(Op("readback", HOST, None, cost=1000.0, reads_memory=True,
            doc="args: buffer, *indices (clamped; none: element 0); the element, read by the host"))
register(Op("region", HOST, 0, pure=False, doc="debug region marker; attrs: name, begin (bool)"))

# The elementwise entries complete the table.
from . import ops_math  # noqa: E402,F401

# The structural ops by name, for identity tests (``node.op is LOOP``): a typo fails at import.
(CONST, DIM_ID, INPUT, INPUT_DIM, LOAD, STORE, SET, COPY, LOOP, IF, BREAK, CONTINUE, KERNEL, GRAD, DETACH,
 PASS_GRAD, ASSERT, ALLOC, FREE, READBACK, REGION) = (OPS[n] for n in (
    "const", "dim_id", "input", "input_dim", "load", "store", "set", "copy", "loop", "if", "break", "continue",
    "kernel", "grad", "detach", "pass_grad", "assert", "alloc", "free", "readback", "region"))
