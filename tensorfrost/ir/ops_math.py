"""Elementwise entries of the op table: arithmetic, comparisons, math, conversions, hashing.

Each entry's ``ref`` is the numpy reference that defines its exact semantics (C-like where
numpy differs: integer ``/`` truncates, ``x / 0`` and ``x % 0`` on integers give 0, shift
amounts are taken modulo the dtype's bits). Each entry says how it is spelled per language
as a function of its operands' dtypes: under ``"c"`` for every C-family emitter (the shader
languages), under ``"cpp"`` where C++ has the op built in. ``{0}``, ``{1}``... are the
operands. A helper of a prelude is defined once per kind of value, named by its code
(``tf_div_i64``: see ``value_code``): no language needs overloading (WGSL has none), and
which helper a dtype takes is said here, not by a prelude's overload resolution.
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


def value_code(dtype: dt.DType) -> str:
    """The kind of value a C-family language holds for ``dtype``, as helpers' names carry it:
    ``f32`` (float32, and the 16-bit floats, which compute in it), ``f64``, ``i32`` (int8 to
    int32, which compute as int32), ``i64``, ``u32``, ``u64``, ``b``."""
    if dtype.is_bool:
        return "b"
    return f"{dtype.kind}{64 if dtype.bits == 64 else 32}"


def _operands(count: int) -> str:
    return ", ".join(f"{{{i}}}" for i in range(count))


def _typed(helper: str | None, native=None):
    """The spelling ``helper_<code>(...)`` by the first operand's value code, or
    ``native[code]`` where that has one."""
    def spell(dtypes):
        code = value_code(dtypes[0])
        if native and code in native:
            return native[code]
        if helper is None:
            raise KeyError(f"no spelling for operands of {dtypes[0]!r}")
        return f"{helper}_{code}({_operands(len(dtypes))})"
    return spell


def _c_float(f32: str, f64: str, helper: str | None = None):
    """A C++ expression for float and for double operands (else ``helper``'s spelling)."""
    return _typed(helper, {"f32": f32, "f64": f64})


def _c_math(name: str, arity: int = 1):
    """C++'s float math: float32's of our own (``tf_sin_f32``, float_math.hpp: the same bits in
    a vectorized loop as in a scalar one), double's from libm (declared as ``tf_libm_sin``)."""
    args = _operands(arity)
    return _c_float(f"tf_{name}_f32({args})", f"tf_libm_{name}({args})")


def _c_builtin(name: str):
    """A float function GCC has built in (``__builtin_floorf`` / ``__builtin_floor``)."""
    return _c_float(f"__builtin_{name}f({{0}})", f"__builtin_{name}({{0}})")


def _ew(name, arity, signature, ref, template, cost=1.0, doc="", int_wrap=None, exact=None, nonnegative=None,
        cpp=None, wgsl=None, **fields):
    """One elementwise entry. ``template``: its spelling in the C-family languages; ``cpp``:
    its spelling in C++ where that differs; ``wgsl``: in WGSL where that differs. ``int_wrap``:
    the C++ spelling for signed values whose overflow must wrap (signed overflow is undefined
    in C++). ``exact``: the op on
    numbers that do not wrap (C++ doubles, Python ints), in which host code computes a size to
    check it. ``nonnegative``: "all" / "any" if its value is >= 0 where all / any of its
    operands are."""
    emit = {"c": template}
    if cpp is not None:
        emit["cpp"] = cpp
    if wgsl is not None:
        emit["wgsl"] = wgsl
    if int_wrap is not None:
        emit["cpp_int_wrap"] = int_wrap
    if exact is not None:
        emit["exact"] = exact
    register(Op(name, ELEMENTWISE, arity, signature=signature, cost=cost, ref=ref, emit=emit, doc=doc,
                nonnegative=nonnegative, **fields))


# Arithmetic (operands promoted to a common dtype)
_ew("add", 2, "arith", np.add, "({0} + {1})", int_wrap=_typed("tf_wrap_add"), exact="({0} + {1})", nonnegative="all")
_ew("sub", 2, "arith", np.subtract, "({0} - {1})", int_wrap=_typed("tf_wrap_sub"), exact="({0} - {1})")
def _c_small_unsigned(template: str, widened: str):
    """C++ computes 8- and 16-bit unsigned values as (signed) int, where a product overflows
    undefined: ``widened`` computes them as uint32."""
    return lambda dtypes: widened if dtypes[0].kind == "u" and dtypes[0].bits < 32 else template


_ew("mul", 2, "arith", np.multiply, "({0} * {1})", int_wrap=_typed("tf_wrap_mul"), exact="({0} * {1})",
    cpp=_c_small_unsigned("({0} * {1})", "((uint32_t){0} * (uint32_t){1})"), nonnegative="all")
_ew("div", 2, "arith", _c_div, _typed("tf_div"), cost=4, doc="C division: integers truncate, x/0 = 0",
    cpp=_c_float("({0} / {1})", "({0} / {1})", "tf_div"), nonnegative="all")
_ew("mod", 2, "arith", _c_mod, _typed("tf_mod"), cost=4, doc="C remainder (sign of the dividend)",
    cpp=_c_float("__builtin_fmodf({0}, {1})", "__builtin_fmod({0}, {1})", "tf_mod"), nonnegative="all")
_ew("floordiv", 2, "arith", _floordiv, _typed("tf_floordiv"), cost=4, doc="floor of the quotient",
    nonnegative="all")
_ew("min", 2, "order", np.minimum, _typed("tf_min"), doc="smaller value; NaN if either is NaN",
    cpp=_typed("tf_min", {"b": "({0} && {1})"}), nonnegative="all")
_ew("max", 2, "order", np.maximum, _typed("tf_max"), doc="larger value; NaN if either is NaN",
    cpp=_typed("tf_max", {"b": "({0} || {1})"}), nonnegative="any")
_ew("neg", 1, "same", np.negative, "(-{0})", int_wrap=_typed("tf_wrap_neg"), exact="(-{0})")
_ew("abs", 1, "same", np.abs, _typed("tf_abs"),
    cpp=_typed("tf_abs", {"f32": "__builtin_fabsf({0})", "f64": "__builtin_fabs({0})", "u32": "{0}", "u64": "{0}"}))
_ew("sign", 1, "same", _sign, _typed("tf_sign"), doc="-1, 0 or 1 (NaN stays NaN)")
_ew("pow", 2, "float", _f32(np.power), _typed("tf_pow"), cost=12, cpp=_c_math("pow", 2))
_ew("atan2", 2, "float", _f32(np.arctan2), _typed("tf_atan2"), cost=12, cpp=_c_math("atan2", 2))

# Comparisons
_ew("lt", 2, "compare", np.less, "({0} < {1})", ordered=True)
_ew("le", 2, "compare", np.less_equal, "({0} <= {1})", ordered=True)
_ew("gt", 2, "compare", np.greater, "({0} > {1})", ordered=True)
_ew("ge", 2, "compare", np.greater_equal, "({0} >= {1})", ordered=True)
_ew("eq", 2, "compare", np.equal, "({0} == {1})")
# (WGSL's float != is an ordered compare on Mesa: false for NaN operands; not-equal is true there)
_ew("ne", 2, "compare", np.not_equal, "({0} != {1})",
    wgsl=lambda dtypes: "(!({0} == {1}))" if dtypes[0].is_float else "({0} != {1})")

# Bitwise and logical (bool operands give logical results)
_ew("and", 2, "bitwise", np.bitwise_and, _typed("tf_and"), cpp="({0} & {1})", nonnegative="any")
_ew("or", 2, "bitwise", np.bitwise_or, _typed("tf_or"), cpp="({0} | {1})")
_ew("xor", 2, "bitwise", np.bitwise_xor, _typed("tf_xor"), cpp="({0} ^ {1})")
_ew("not", 1, "bitwise", _not, _typed("tf_not"), doc="logical not of bools, bitwise not of integers",
    cpp=_typed(None, {"b": "(!{0})", "i32": "(~{0})", "u32": "(~{0})", "i64": "(~{0})", "u64": "(~{0})"}))


def _shift(name):
    """The spelling of a shift: 8- and 16-bit values shift as int32, by the amount modulo their bits."""
    def spell(dtypes):
        bits, code = dtypes[0].bits, value_code(dtypes[0])
        return f"{name}_{code}({{0}}, ({{1}}) & {bits - 1})" if bits < 32 else f"{name}_{code}({{0}}, {{1}})"
    return spell


_ew("shl", 2, "shift", _shl, _shift("tf_shl"), doc="shift left by the amount modulo the bits of the dtype")
_ew("shr", 2, "shift", _shr, _shift("tf_shr"), doc="shift right (arithmetic for signed ints) by the amount modulo "
    "the bits of the dtype", nonnegative="all")
_ew("reversebits", 1, "uint", _reversebits, "tf_reversebits({0})", cost=4)

# Float math (operands converted to float32)
_ew("floor", 1, "float", _f32(np.floor), _typed("tf_floor"), cpp=_c_builtin("floor"))
_ew("ceil", 1, "float", _f32(np.ceil), _typed("tf_ceil"), cpp=_c_builtin("ceil"))
_ew("round", 1, "float", _f32(np.rint), _typed("tf_round"), doc="to nearest, ties to even (as numpy)",
    cpp=_c_builtin("rint"))
_ew("trunc", 1, "float", _f32(np.trunc), _typed("tf_trunc"), cpp=_c_builtin("trunc"))
_ew("frac", 1, "float", _f32(lambda x: x - np.floor(x)), _typed("tf_frac"), doc="x - floor(x)",
    cpp=_c_float("({0} - __builtin_floorf({0}))", "({0} - __builtin_floor({0}))"))
_ew("exp", 1, "float", _f32(np.exp), _typed("tf_exp"), cost=8, cpp=_c_math("exp"))
_ew("exp2", 1, "float", _f32(np.exp2), _typed("tf_exp2"), cost=8, cpp=_c_math("exp2"))
_ew("log", 1, "float", _f32(np.log), _typed("tf_log"), cost=8, cpp=_c_math("log"))
_ew("log2", 1, "float", _f32(np.log2), _typed("tf_log2"), cost=8, cpp=_c_math("log2"))
_ew("sqrt", 1, "float", _f32(np.sqrt), _typed("tf_sqrt"), cost=4, cpp=_c_builtin("sqrt"))
_ew("rsqrt", 1, "float", _f32(lambda x: 1.0 / np.sqrt(x)), _typed("tf_rsqrt"), cost=4,
    cpp=_c_float("(1.0f / __builtin_sqrtf({0}))", "(1.0 / __builtin_sqrt({0}))"))
_ew("rcp", 1, "float", _f32(lambda x: 1.0 / x), _typed("tf_rcp"), cost=4, cpp=_c_float("(1.0f / {0})", "(1.0 / {0})"))
_ew("sin", 1, "float", _f32(np.sin), _typed("tf_sin"), cost=8, cpp=_c_math("sin"))
_ew("cos", 1, "float", _f32(np.cos), _typed("tf_cos"), cost=8, cpp=_c_math("cos"))
_ew("tan", 1, "float", _f32(np.tan), _typed("tf_tan"), cost=8, cpp=_c_math("tan"))
_ew("asin", 1, "float", _f32(np.arcsin), _typed("tf_asin"), cost=8, cpp=_c_math("asin"))
_ew("acos", 1, "float", _f32(np.arccos), _typed("tf_acos"), cost=8, cpp=_c_math("acos"))
_ew("atan", 1, "float", _f32(np.arctan), _typed("tf_atan"), cost=8, cpp=_c_math("atan"))
_ew("sinh", 1, "float", _f32(np.sinh), _typed("tf_sinh"), cost=8, cpp=_c_math("sinh"))
_ew("cosh", 1, "float", _f32(np.cosh), _typed("tf_cosh"), cost=8, cpp=_c_math("cosh"))
_ew("tanh", 1, "float", _f32(np.tanh), _typed("tf_tanh"), cost=8, cpp=_c_math("tanh"))
_ew("lerp", 3, "float", _f32(lambda a, b, t: a + (b - a) * t), _typed("tf_lerp"), cost=2,
    cpp="({0} + ({1} - {0}) * {2})")
_ew("smoothstep", 3, "float", _f32(_smoothstep), _typed("tf_smoothstep"), cost=6)

# Operations on any numeric dtype
_ew("clamp", 3, "order", _clamp, _typed("tf_clamp"), cost=2, doc="min(max(x, lo), hi)",
    cpp=_typed("tf_clamp", {"b": "(({0} || {1}) && {2})"}))
_ew("fma", 3, "arith", _fma, _typed("tf_fma"), cost=2, doc="a * b + c (16-bit floats: rounded once)",
    cpp=_c_small_unsigned("({0} * {1} + {2})", "((uint32_t){0} * (uint32_t){1} + (uint32_t){2})"),
    int_wrap=_typed("tf_wrap_fma"), exact="({0} * {1} + {2})")
_ew("select", 3, "select", np.where, "({0} ? {1} : {2})", doc="b where the condition holds, else c")

# Conversions
# The op converting to each dtype: upstream's tf.float / tf.int / tf.uint / tf.bool keep
# their names (and mean 32 bits); the others are named by their dtype.
CONVERSIONS = {d: {dt.float32: "float", dt.int32: "int", dt.uint32: "uint", dt.bool1: "bool"}.get(d, d.name)
               for d in dt.ALL}
_C_TYPES = {dt.float32: "float", dt.float64: "double", dt.int8: "int8_t", dt.int16: "int16_t", dt.int32: "int32_t",
            dt.int64: "int64_t", dt.uint8: "uint8_t", dt.uint16: "uint16_t", dt.uint32: "uint32_t",
            dt.uint64: "uint64_t"}


def _cpp_conversion(target: dt.DType):
    """C++ converts as numpy does except floats to integers out of range (a helper gives
    x86's and numpy's value) and anything to a 16-bit float (a helper rounds once)."""
    helper = f"tf_to_{CONVERSIONS[target]}"

    def spell(dtypes):
        source = dtypes[0]
        if target.is_bool:
            return "({0} != 0)"
        if (target.is_integer and source.is_float) or target.compute is not target:
            return f"{helper}_{value_code(source)}({{0}})"
        return f"(({_C_TYPES[target]}){{0}})"
    return spell


for _target, _name in CONVERSIONS.items():
    _ew(_name, 1, cast_to(_target), _converter(_target), _typed(f"tf_to_{_name}"), converts_to=_target,
        cpp=_cpp_conversion(_target), doc="floats truncate toward zero (out of range: see _float_to_int); "
        "integers wrap" if _target.is_integer else f"convert to {_target!r}")
del _target, _name

_ew("asfloat", 1, bitcast_to(dt.float32), _bitcast(np.float32), _typed("tf_asfloat"), cpp="tf_bitcast<float>({0})")
_ew("asint", 1, bitcast_to(dt.int32), _bitcast(np.int32), _typed("tf_asint"), cpp="tf_bitcast<int32_t>({0})")
_ew("asuint", 1, bitcast_to(dt.uint32), _bitcast(np.uint32), _typed("tf_asuint"), cpp="tf_bitcast<uint32_t>({0})")

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
