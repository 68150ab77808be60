"""Elementwise entries of the op table: arithmetic, comparisons, math, conversions, hashing.

Each entry's ``ref`` is the numpy reference that defines its exact semantics (C-like where
numpy differs: integer ``/`` truncates, ``x / 0`` and ``x % 0`` on integers give 0, shift
amounts are taken modulo 32). Templates under ``"c"`` are shared by the C-family emitters:
``{0}``, ``{1}``... are the operands; ``tf_*`` helpers are defined by each language's
prelude with the same semantics.
"""

from __future__ import annotations

import numpy as np

from . import dtypes as dt
from .op_rules import ELEMENTWISE, OPS, Op, bitcast_to, cast_to, register

_I32_MIN = np.int32(np.iinfo(np.int32).min)


def _int_kind(a) -> bool:
    return np.asarray(a).dtype.kind in "iu"


def _float_kind(a) -> bool:
    """A float array (bfloat16's numpy kind is "V")."""
    dtype = np.asarray(a).dtype
    return dtype.kind == "f" or dtype == dt.bfloat16.numpy


def _c_div(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if not _int_kind(a):
        return a / b
    zero = b == 0
    safe_b = np.where(zero, 1, b).astype(b.dtype)
    with np.errstate(all="ignore"):  # INT_MIN / -1 wraps to INT_MIN instead of trapping
        q = a // safe_b
        q = np.where((a - q * safe_b != 0) & ((a < 0) != (safe_b < 0)), q + 1, q).astype(a.dtype)
    return np.where(zero, 0, q).astype(a.dtype)


def _c_mod(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if not _int_kind(a):
        return np.fmod(a, b)
    zero = (b == 0) | (b == -1) if b.dtype.kind == "i" else b == 0  # (x % -1 is 0; INT_MIN % -1 traps in C)
    r = np.fmod(a, np.where(zero, 1, b).astype(b.dtype))
    return np.where(zero, 0, r).astype(a.dtype)


def _floordiv(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if not _int_kind(a):  # numpy's floor_divide (16-bit floats computed in float32, rounded once)
        compute = np.float32 if a.dtype.itemsize == 2 else a.dtype
        with np.errstate(all="ignore"):
            return np.floor_divide(a.astype(compute), b.astype(compute)).astype(a.dtype)
    zero = b == 0
    with np.errstate(all="ignore"):
        q = a // np.where(zero, 1, b).astype(b.dtype)
    return np.where(zero, 0, q).astype(a.dtype)


def _sign(a):
    a = np.asarray(a)
    if a.dtype.kind == "u":
        return (a > 0).astype(a.dtype)
    return np.sign(a)


def _unsigned(dtype: np.dtype) -> np.dtype:
    return np.dtype(f"u{dtype.itemsize}")


def _shift_amount(a, b):
    """The shift amount modulo the bit width of ``a``'s dtype."""
    bits = a.dtype.itemsize * 8
    return (np.asarray(b).astype(np.uint64) & np.uint64(bits - 1)).astype(_unsigned(a.dtype))


def _shl(a, b):
    a = np.asarray(a)
    return (a.view(_unsigned(a.dtype)) << _shift_amount(a, b)).view(a.dtype)


def _shr(a, b):
    a = np.asarray(a)
    return (a >> _shift_amount(a, b).astype(a.dtype)).astype(a.dtype)


def _not(a):
    a = np.asarray(a)
    return np.logical_not(a) if a.dtype == np.bool_ else np.invert(a)


def _float_to_int(a, target: dt.DType):
    """Floats truncate toward zero. A value outside int32 (int64 for 64-bit targets), NaN
    or inf is the smallest int32 (int64), as x86's conversion gives; smaller ints then wrap
    to their bits (as C's conversion through int does). Unsigned targets take the value
    through int64 and wrap; beyond that range the result is 0 (uint64: values up to 2**64
    convert exactly)."""
    with np.errstate(invalid="ignore", over="ignore"):
        if target.kind == "i":
            wide = np.int64 if target.bits == 64 else np.int32
            limit = 2.0**63 if target.bits == 64 else 2.0**31
            bad = ~np.isfinite(a) | (a >= limit) | (a < -limit)
            whole = np.trunc(np.where(bad, 0, a)).astype(wide)
            return np.where(bad, np.iinfo(wide).min, whole).astype(wide).astype(target.numpy)
        if target.bits == 64:
            high = (a >= 2.0**63) & (a < 2.0**64)
            bad = ~np.isfinite(a) | (a >= 2.0**64) | (a < -(2.0**63))
            low = np.trunc(np.where(bad | high, 0, a)).astype(np.int64).astype(np.uint64)
            top = (np.trunc(np.where(high, a, 2.0**63)) - 2.0**63).astype(np.uint64) + np.uint64(2**63)
            return np.where(bad, np.uint64(0), np.where(high, top, low))
        bad = ~np.isfinite(a) | (np.abs(a) >= 2.0**63)
        return np.where(bad, 0, np.trunc(np.where(bad, 0, a))).astype(np.int64).astype(target.numpy)


def _converter(target: dt.DType):
    """The reference of the conversion to ``target``: numpy's ``astype``, with the float to
    int rule of ``_float_to_int``; integers wrap to the target's bits."""
    def convert(a):
        a = np.asarray(a)
        if target.is_bool:
            return a != 0
        if target.is_integer and _float_kind(a):
            return _float_to_int(a.astype(np.float64), target)
        with np.errstate(all="ignore"):
            return a.astype(target.numpy)
    return convert


def _bitcast(target):
    return lambda a: np.ascontiguousarray(np.asarray(a)).view(target)


def _pcg(v):
    with np.errstate(over="ignore"):
        state = np.asarray(v, dtype=np.uint32) * np.uint32(747796405) + np.uint32(2891336453)
        word = ((state >> ((state >> np.uint32(28)) + np.uint32(4))) ^ state) * np.uint32(277803737)
        return (word >> np.uint32(22)) ^ word


def _pcgf(v):
    return (_pcg(v) >> np.uint32(8)).astype(np.float32) * np.float32(1.0 / 16777216.0)


def _reversebits(v):
    v = np.asarray(v, dtype=np.uint32)
    out = np.zeros_like(v)
    for bit in range(32):
        out |= ((v >> np.uint32(bit)) & np.uint32(1)) << np.uint32(31 - bit)
    return out


def _smoothstep(e0, e1, x):
    t = np.clip((x - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def _fma(a, b, c):
    a = np.asarray(a)
    if _float_kind(a) and a.dtype.itemsize == 2:  # one op: computed in float32, rounded once
        return (a.astype(np.float32) * np.asarray(b, np.float32) + np.asarray(c, np.float32)).astype(a.dtype)
    return a * b + c


def _clamp(x, lo, hi):
    return np.minimum(np.maximum(x, lo), hi)


def _f32(fn):
    """A float function of operands of one float dtype, evaluated in the dtype's compute
    dtype (float32 for 16-bit floats) and rounded to the dtype once, with numpy's warnings
    silenced."""
    def ref(*args):
        arrays = [np.asarray(a) for a in args]
        dtype = arrays[0].dtype if _float_kind(arrays[0]) else np.dtype(np.float32)
        compute = np.float32 if dtype.itemsize == 2 else dtype
        with np.errstate(all="ignore"):
            return np.asarray(fn(*[a.astype(compute) for a in arrays])).astype(dtype)
    return ref


def _ew(name, arity, signature, ref, template, cost=1.0, doc="", int_wrap=None, exact=None, nonnegative=None,
        **fields):
    """One elementwise entry. ``int_wrap``: the C++ spelling for int32 values whose overflow
    must wrap (signed overflow is undefined in C++). ``exact``: the op on numbers that do not
    wrap (C++ doubles, Python ints), in which host code computes a size to check it.
    ``nonnegative``: "all" / "any" if its value is >= 0 where all / any of its operands are."""
    emit = {"c": template}
    if int_wrap is not None:
        emit["cpp_int_wrap"] = int_wrap
    if exact is not None:
        emit["exact"] = exact
    register(Op(name, ELEMENTWISE, arity, signature=signature, cost=cost, ref=ref, emit=emit, doc=doc,
                nonnegative=nonnegative, **fields))


# Arithmetic (operands promoted to a common dtype)
_ew("add", 2, "arith", np.add, "({0} + {1})", int_wrap="tf_wrap_add({0}, {1})", exact="({0} + {1})", nonnegative="all")
_ew("sub", 2, "arith", np.subtract, "({0} - {1})", int_wrap="tf_wrap_sub({0}, {1})", exact="({0} - {1})")
_ew("mul", 2, "arith", np.multiply, "({0} * {1})", int_wrap="tf_wrap_mul({0}, {1})", exact="({0} * {1})",
    nonnegative="all")
_ew("div", 2, "arith", _c_div, "tf_div({0}, {1})", cost=4, doc="C division: integers truncate, x/0 = 0",
    nonnegative="all")
_ew("mod", 2, "arith", _c_mod, "tf_mod({0}, {1})", cost=4, doc="C remainder (sign of the dividend)", nonnegative="all")
_ew("floordiv", 2, "arith", _floordiv, "tf_floordiv({0}, {1})", cost=4, doc="floor of the quotient", nonnegative="all")
_ew("min", 2, "order", np.minimum, "tf_min({0}, {1})", doc="smaller value; NaN if either is NaN", nonnegative="all")
_ew("max", 2, "order", np.maximum, "tf_max({0}, {1})", doc="larger value; NaN if either is NaN", nonnegative="any")
_ew("neg", 1, "same", np.negative, "(-{0})", int_wrap="tf_wrap_neg({0})", exact="(-{0})")
_ew("abs", 1, "same", np.abs, "tf_abs({0})")
_ew("sign", 1, "same", _sign, "tf_sign({0})", doc="-1, 0 or 1 (NaN stays NaN)")
_ew("pow", 2, "float", _f32(np.power), "tf_pow({0}, {1})", cost=12)
_ew("atan2", 2, "float", _f32(np.arctan2), "tf_atan2({0}, {1})", cost=12)

# Comparisons
_ew("lt", 2, "compare", np.less, "({0} < {1})", ordered=True)
_ew("le", 2, "compare", np.less_equal, "({0} <= {1})", ordered=True)
_ew("gt", 2, "compare", np.greater, "({0} > {1})", ordered=True)
_ew("ge", 2, "compare", np.greater_equal, "({0} >= {1})", ordered=True)
_ew("eq", 2, "compare", np.equal, "({0} == {1})")
_ew("ne", 2, "compare", np.not_equal, "({0} != {1})")

# Bitwise and logical (bool operands give logical results)
_ew("and", 2, "bitwise", np.bitwise_and, "tf_and({0}, {1})", nonnegative="any")
_ew("or", 2, "bitwise", np.bitwise_or, "tf_or({0}, {1})")
_ew("xor", 2, "bitwise", np.bitwise_xor, "tf_xor({0}, {1})")
_ew("not", 1, "bitwise", _not, "tf_not({0})", doc="logical not of bools, bitwise not of integers")


def _shift(name):
    """The spelling of a shift: 8- and 16-bit values shift as int32, by the amount modulo their bits."""
    def spell(dtypes):
        bits = dtypes[0].bits
        return f"{name}({{0}}, ({{1}}) & {bits - 1})" if bits < 32 else f"{name}({{0}}, {{1}})"
    return spell


_ew("shl", 2, "shift", _shl, _shift("tf_shl"), doc="shift left by the amount modulo the bits of the dtype")
_ew("shr", 2, "shift", _shr, _shift("tf_shr"), doc="shift right (arithmetic for signed ints) by the amount modulo "
    "the bits of the dtype", nonnegative="all")
_ew("reversebits", 1, "uint", _reversebits, "tf_reversebits({0})", cost=4)

# Float math (operands converted to float32)
_ew("floor", 1, "float", _f32(np.floor), "tf_floor({0})")
_ew("ceil", 1, "float", _f32(np.ceil), "tf_ceil({0})")
_ew("round", 1, "float", _f32(np.rint), "tf_round({0})", doc="to nearest, ties to even (as numpy)")
_ew("trunc", 1, "float", _f32(np.trunc), "tf_trunc({0})")
_ew("frac", 1, "float", _f32(lambda x: x - np.floor(x)), "tf_frac({0})", doc="x - floor(x)")
_ew("exp", 1, "float", _f32(np.exp), "tf_exp({0})", cost=8)
_ew("exp2", 1, "float", _f32(np.exp2), "tf_exp2({0})", cost=8)
_ew("log", 1, "float", _f32(np.log), "tf_log({0})", cost=8)
_ew("log2", 1, "float", _f32(np.log2), "tf_log2({0})", cost=8)
_ew("sqrt", 1, "float", _f32(np.sqrt), "tf_sqrt({0})", cost=4)
_ew("rsqrt", 1, "float", _f32(lambda x: 1.0 / np.sqrt(x)), "tf_rsqrt({0})", cost=4)
_ew("rcp", 1, "float", _f32(lambda x: 1.0 / x), "tf_rcp({0})", cost=4)
_ew("sin", 1, "float", _f32(np.sin), "tf_sin({0})", cost=8)
_ew("cos", 1, "float", _f32(np.cos), "tf_cos({0})", cost=8)
_ew("tan", 1, "float", _f32(np.tan), "tf_tan({0})", cost=8)
_ew("asin", 1, "float", _f32(np.arcsin), "tf_asin({0})", cost=8)
_ew("acos", 1, "float", _f32(np.arccos), "tf_acos({0})", cost=8)
_ew("atan", 1, "float", _f32(np.arctan), "tf_atan({0})", cost=8)
_ew("sinh", 1, "float", _f32(np.sinh), "tf_sinh({0})", cost=8)
_ew("cosh", 1, "float", _f32(np.cosh), "tf_cosh({0})", cost=8)
_ew("tanh", 1, "float", _f32(np.tanh), "tf_tanh({0})", cost=8)
_ew("lerp", 3, "float", _f32(lambda a, b, t: a + (b - a) * t), "tf_lerp({0}, {1}, {2})", cost=2)
_ew("smoothstep", 3, "float", _f32(_smoothstep), "tf_smoothstep({0}, {1}, {2})", cost=6)

# Operations on any numeric dtype
_ew("clamp", 3, "order", _clamp, "tf_clamp({0}, {1}, {2})", cost=2, doc="min(max(x, lo), hi)")
_ew("fma", 3, "arith", _fma, "tf_fma({0}, {1}, {2})", cost=2, doc="a * b + c (16-bit floats: rounded once)",
    int_wrap="tf_wrap_fma({0}, {1}, {2})", exact="({0} * {1} + {2})")
_ew("select", 3, "select", np.where, "({0} ? {1} : {2})", doc="b where the condition holds, else c")

# Conversions
# The op converting to each dtype: upstream's tf.float / tf.int / tf.uint / tf.bool keep
# their names (and mean 32 bits); the others are named by their dtype.
CONVERSIONS = {d: {dt.float32: "float", dt.int32: "int", dt.uint32: "uint", dt.bool1: "bool"}.get(d, d.name)
               for d in dt.ALL}
for _target, _name in CONVERSIONS.items():
    _ew(_name, 1, cast_to(_target), _converter(_target), f"tf_to_{_name}({{0}})", converts_to=_target,
        doc="floats truncate toward zero (out of range: see _float_to_int); integers wrap"
        if _target.is_integer else f"convert to {_target!r}")
del _target, _name

_ew("asfloat", 1, bitcast_to(dt.float32), _bitcast(np.float32), "tf_asfloat({0})")
_ew("asint", 1, bitcast_to(dt.int32), _bitcast(np.int32), "tf_asint({0})")
_ew("asuint", 1, bitcast_to(dt.uint32), _bitcast(np.uint32), "tf_asuint({0})")

# Hashing
_ew("pcg", 1, "uint", _pcg, "tf_pcg({0})", cost=4, doc="PCG hash of a uint")
_ew("pcgf", 1, "uint_to_float", _pcgf, "tf_pcgf({0})", cost=5, doc="PCG hash mapped to a float in [0, 1)")


# ---------------------------------------------------------------------------------------
# Vector-Jacobian products. ``vjp(ad, g)`` returns one gradient (a traced Tensor) per operand,
# or None where no gradient flows. ``ad.x(i)`` is operand i's forward value, ``ad.y`` the
# op's result, ``ad.fn`` the elementwise functions (tf.sin, tf.select...). Gradients of
# broadcast operands are summed back to their shapes by the autodiff pass.

_LN2 = 0.6931471805599453


def _no_gradient(ad, g):
    """Piecewise-constant ops (floor, sign, comparisons...) and integer results: zero."""
    return [None] * len(ad.node.args)


def _vjp_minmax(pick_first):
    def vjp(ad, g):
        first = pick_first(ad.x(0), ad.x(1))
        return [ad.fn.select(first, g, 0.0), ad.fn.select(first, 0.0, g)]
    return vjp


def _vjp_pow(ad, g):
    a, b, f = ad.x(0), ad.x(1), ad.fn
    return [g * b * f.pow(a, b - 1.0), g * f.select(a > 0.0, ad.y * f.log(f.max(a, 1e-30)), 0.0)]


def _vjp_atan2(ad, g):
    a, b = ad.x(0), ad.x(1)
    r = a * a + b * b
    return [g * b / r, -g * a / r]


def _vjp_clamp(ad, g):
    x, lo, hi, f = ad.x(0), ad.x(1), ad.x(2), ad.fn
    return [f.select((x >= lo) & (x <= hi), g, 0.0), f.select(x < lo, g, 0.0), f.select(x > hi, g, 0.0)]


def _vjp_smoothstep(ad, g):
    e0, e1, x, f = ad.x(0), ad.x(1), ad.x(2), ad.fn
    d = e1 - e0
    t = f.clamp((x - e0) / d, 0.0, 1.0)
    slope = g * 6.0 * t * (1.0 - t)
    return [slope * (x - e1) / (d * d), slope * (e0 - x) / (d * d), slope / d]


_VJP = {
    "add": lambda ad, g: [g, g],
    "sub": lambda ad, g: [g, -g],
    "mul": lambda ad, g: [g * ad.x(1), g * ad.x(0)],
    "div": lambda ad, g: [g / ad.x(1), -g * ad.y / ad.x(1)],
    "mod": lambda ad, g: [g, -g * ad.fn.trunc(ad.x(0) / ad.x(1))],
    "min": _vjp_minmax(lambda a, b: a <= b),
    "max": _vjp_minmax(lambda a, b: a >= b),
    "neg": lambda ad, g: [-g],
    "abs": lambda ad, g: [g * ad.fn.sign(ad.x(0))],
    "frac": lambda ad, g: [g],
    "exp": lambda ad, g: [g * ad.y],
    "exp2": lambda ad, g: [g * ad.y * _LN2],
    "log": lambda ad, g: [g / ad.x(0)],
    "log2": lambda ad, g: [g / (ad.x(0) * _LN2)],
    "sqrt": lambda ad, g: [g * 0.5 / ad.y],
    "rsqrt": lambda ad, g: [g * -0.5 * ad.y * ad.y * ad.y],
    "rcp": lambda ad, g: [-g * ad.y * ad.y],
    "sin": lambda ad, g: [g * ad.fn.cos(ad.x(0))],
    "cos": lambda ad, g: [-g * ad.fn.sin(ad.x(0))],
    "tan": lambda ad, g: [g * (1.0 + ad.y * ad.y)],
    "asin": lambda ad, g: [g * ad.fn.rsqrt(1.0 - ad.x(0) * ad.x(0))],
    "acos": lambda ad, g: [-g * ad.fn.rsqrt(1.0 - ad.x(0) * ad.x(0))],
    "atan": lambda ad, g: [g / (1.0 + ad.x(0) * ad.x(0))],
    "sinh": lambda ad, g: [g * ad.fn.cosh(ad.x(0))],
    "cosh": lambda ad, g: [g * ad.fn.sinh(ad.x(0))],
    "tanh": lambda ad, g: [g * (1.0 - ad.y * ad.y)],
    "pow": _vjp_pow,
    "atan2": _vjp_atan2,
    "lerp": lambda ad, g: [g * (1.0 - ad.x(2)), g * ad.x(2), g * (ad.x(1) - ad.x(0))],
    "fma": lambda ad, g: [g * ad.x(1), g * ad.x(0), g],
    "clamp": _vjp_clamp,
    "smoothstep": _vjp_smoothstep,
    "select": lambda ad, g: [None, ad.fn.select(ad.x(0), g, 0.0), ad.fn.select(ad.x(0), 0.0, g)],
    "copy": lambda ad, g: [g],
}


def _vjp_conversion(ad, g):
    """A float converted to another float: the gradient converted back (to an integer: none)."""
    source = ad.node.args[0].dtype
    return [g.astype(source) if source.is_float and ad.node.dtype.is_float else None]


for _name, _op in list(OPS.items()):
    if _op.kind == ELEMENTWISE:
        _op.vjp = _vjp_conversion if _op.converts_to is not None else _VJP.get(_name, _no_gradient)
del _name, _op
