"""What the op table's entries are made of: the Op class, the kinds of ops, registration,
and the type rules of elementwise ops. The entries themselves are in ``ops.py`` (structural
ops) and ``ops_math.py`` (elementwise ops); everyone else imports them from ``ops``."""

from __future__ import annotations

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
                 "identity", "combine", "vjp", "jvp", "writes", "atomic", "reads_memory", "jump", "has_body",
                 "host_only", "calls_user_code", "nonnegative", "converts_to", "ordered", "api_name")

    def __init__(self, name, kind, arity=None, signature=None, cost=1.0, ref=None, emit=None,
                 pure=True, doc="", identity=None, combine=None, vjp=None, writes=False, atomic=False,
                 reads_memory=False, jump=False, has_body=False, calls_user_code=False,
                 nonnegative=None, converts_to=None, ordered=False, api_name=None):
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
        self.vjp = vjp  # vector-Jacobian product (reverse mode; tracing/vjp.py, ops_math.py)
        self.jvp = None  # Jacobian-vector product (forward mode; set by tracing/jvp.py)
        # What passes ask instead of comparing names:
        self.writes = writes  # changes its first arg (a variable or memory): set, store, scatters
        self.atomic = atomic  # a write that combines atomically with what is there (scatters)
        self.reads_memory = reads_memory  # its value depends on when it runs: load, readback
        self.jump = jump  # leaves the flow of its loop: break, continue
        self.has_body = has_body  # owns a scope: loop, if, kernel
        self.host_only = kind == HOST  # bookkeeping of the host program: asserts, buffers, readbacks
        self.calls_user_code = calls_user_code  # compiling it runs a Python function of the user's (a vjp)
        self.nonnegative = nonnegative  # "all" / "any": its value is >= 0 where all / any operands are
        self.converts_to = converts_to  # a conversion: the dtype it converts to (and rounds to, itself)
        self.ordered = ordered  # an order comparison (<, <=, >, >=): true where its operands are ordered so
        self.api_name = api_name or name  # how messages name it to users (tf.scatterAdd)

    def spelling(self, lang: str, arg_dtypes=()):
        """The emitter template of this op in ``lang`` ('cpp', 'glsl', 'hlsl') for operands of
        ``arg_dtypes``: a template, or a function of the operands' dtypes giving one."""
        template = self.emit.get(lang, self.emit.get("c"))
        if template is None:
            raise KeyError(f"op {self.name} has no spelling for {lang}")
        return template(list(arg_dtypes)) if callable(template) else template

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


def _sig_order(op_name, dtypes):
    """min, max, clamp: the common dtype, bools included (as numpy's)."""
    common = _common(dtypes)
    return [common] * len(dtypes), common


def _sig_same(op_name, dtypes):
    return _sig_arith(op_name, dtypes)


def _sig_identity(op_name, dtypes):
    return list(dtypes), dtypes[0]


def _sig_float(op_name, dtypes):
    common = _common(dtypes)
    common = common if common.is_float else dt.float32  # integers and bools become the default float
    return [common] * len(dtypes), common


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
    "arith": _sig_arith, "order": _sig_order, "same": _sig_same, "identity": _sig_identity, "float": _sig_float,
    "compare": _sig_compare,
    "bitwise": _sig_bitwise, "shift": _sig_shift, "select": _sig_select, "uint": _sig_uint,
    "uint_to_float": _sig_uint_to_float,
}


def cast_to(target: dt.DType):
    """Type rule of a conversion to ``target``: any operand, result ``target``."""
    def rule(op_name, dtypes):
        return list(dtypes), target
    return rule


def bitcast_to(target: dt.DType):
    """Type rule of a reinterpretation of the bits of a non-bool operand of the same width."""
    def rule(op_name, dtypes):
        if dtypes[0].is_bool:
            raise DTypeError(f"{op_name}: cannot reinterpret the bits of a bool tensor")
        if dtypes[0].bits != target.bits:
            raise DTypeError(f"{op_name}: reinterprets {target.bits}-bit values as {target!r}, got a "
                             f"{dtypes[0]!r} tensor ({dtypes[0].bits} bits)")
        return list(dtypes), target
    return rule


def elementwise_types(o: Op, arg_dtypes: list):
    """(dtypes the args are converted to, dtype of the result) for an elementwise op."""
    rule = o.signature if callable(o.signature) else SIGNATURES[o.signature]
    return rule(o.name, list(arg_dtypes))
