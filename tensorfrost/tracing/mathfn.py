"""Elementwise functions of the public API (``tf.sin``, ``tf.clamp``, ``tf.float``...).

Each is a thin wrapper over one op-table entry; the op table documents the semantics.
``tf.min``/``tf.max`` with one tensor reduce along an axis, with two they compare.
"""

from __future__ import annotations

from ..ir import dtypes as dt
from ..ir.builder import current
from ..ir.errors import ShapeError, user_location
from ..ir.ops import OPS
from ..ir.shapes import normalize_axis, static_value
from . import algorithms
from .tensor import apply, node_of


def _unary(op_name: str, summary: str):
    def fn(x):
        return apply(op_name, x)
    fn.__name__ = op_name
    fn.__doc__ = f"{summary} (elementwise). {OPS[op_name].doc}".strip()
    return fn


abs = _unary("abs", "Absolute value")  # noqa: A001
sign = _unary("sign", "Sign: -1, 0 or 1")
floor = _unary("floor", "Round down")
ceil = _unary("ceil", "Round up")
round = _unary("round", "Round to nearest, ties to even")  # noqa: A001
trunc = _unary("trunc", "Round toward zero")
frac = _unary("frac", "Fractional part x - floor(x)")
exp = _unary("exp", "e**x")
exp2 = _unary("exp2", "2**x")
log = _unary("log", "Natural logarithm")
log2 = _unary("log2", "Base-2 logarithm")
sqrt = _unary("sqrt", "Square root")
rsqrt = _unary("rsqrt", "1 / sqrt(x)")
rcp = _unary("rcp", "1 / x")
sin = _unary("sin", "Sine")
cos = _unary("cos", "Cosine")
tan = _unary("tan", "Tangent")
asin = _unary("asin", "Arcsine")
acos = _unary("acos", "Arccosine")
atan = _unary("atan", "Arctangent")
sinh = _unary("sinh", "Hyperbolic sine")
cosh = _unary("cosh", "Hyperbolic cosine")
tanh = _unary("tanh", "Hyperbolic tangent")
float = _unary("float", "Convert to float32")  # noqa: A001
int = _unary("int", "Convert to int32")  # noqa: A001
uint = _unary("uint", "Convert to uint32")
bool = _unary("bool", "Convert to bool (nonzero is true)")  # noqa: A001


def cast(x, dtype):
    """``x`` converted to ``dtype`` (``x.astype(dtype)``): numpy's conversion rules, floats to
    integers truncating toward zero, integers wrapping to the target's bits."""
    return apply("copy", x).astype(dtype) if not hasattr(x, "astype") else x.astype(dtype)


asfloat = _unary("asfloat", "Reinterpret the 32 bits as float32")
asint = _unary("asint", "Reinterpret the 32 bits as int32")
asuint = _unary("asuint", "Reinterpret the 32 bits as uint32")
pcg = _unary("pcg", "PCG hash of a uint")
pcgf = _unary("pcgf", "PCG hash mapped to a float in [0, 1)")
reversebits = _unary("reversebits", "Reverse the bit order of a uint")


def copy(x):
    """A copy of the value (elementwise): a variable that ``.val = ...`` may update and widen."""
    result = apply("copy", x)
    current().variables.declare(result.node)
    return result


def sqr(x):
    """x * x (elementwise)."""
    return apply("mul", x, x)


def pow(x, y):  # noqa: A001
    """x ** y in float32 (elementwise)."""
    return apply("pow", x, y)


def atan2(y, x):
    """The angle of the point (x, y), as numpy.arctan2(y, x) (elementwise)."""
    return apply("atan2", y, x)


def min(a, b=None, axis: int = -1):  # noqa: A001
    """``tf.min(a, b)``: the smaller of two values elementwise (NaN if either is NaN);
    ``tf.min(a, axis=...)``: the minimum along an axis, which is dropped (an error for an
    empty axis, as in numpy)."""
    if b is None:
        _require_elements(a, axis, "tf.min", "minimum")
        return algorithms.reduce_min(a, axis)
    return apply("min", a, b)


def max(a, b=None, axis: int = -1):  # noqa: A001
    """``tf.max(a, b)``: the larger of two values elementwise (NaN if either is NaN);
    ``tf.max(a, axis=...)``: the maximum along an axis, which is dropped (an error for an
    empty axis, as in numpy)."""
    if b is None:
        _require_elements(a, axis, "tf.max", "maximum")
        return algorithms.reduce_max(a, axis)
    return apply("max", a, b)


def _require_elements(x, axis: int, what: str, extreme: str) -> None:
    """The extreme of no elements has no value (numpy raises; -inf or +inf would pass
    silently): a clear error now for a static size, else when the program runs."""
    node = node_of(x)
    if node.rank == 0:
        return  # the reduction names that error
    dim = node.shape[normalize_axis(axis, node.rank, f"{what} axis")]
    size = static_value(dim)
    message = f"{what}: the axis to reduce has {{1}} elements; the {extreme} of no elements has no value"
    if size is not None:
        if size == 0:
            raise ShapeError(message.replace("{1}", "0"), user_location())
        return
    builder = current()
    one = builder.const(1, dt.int32)
    builder.check(lambda: builder.elementwise("le", [one, dim]), [one, dim], message)


def clamp(x, lo, hi):
    """min(max(x, lo), hi) (elementwise)."""
    return apply("clamp", x, lo, hi)


def lerp(a, b, t):
    """a + (b - a) * t (elementwise, float32)."""
    return apply("lerp", a, b, t)


def fma(a, b, c):
    """a * b + c (elementwise)."""
    return apply("fma", a, b, c)


def smoothstep(edge0, edge1, x):
    """Hermite interpolation between 0 and 1 as x goes from edge0 to edge1 (elementwise)."""
    return apply("smoothstep", edge0, edge1, x)


def select(condition, a, b):
    """``a`` where ``condition`` holds, else ``b`` (elementwise, like numpy.where)."""
    return apply("select", bool(condition) if _needs_bool(condition) else condition, a, b)


def _needs_bool(value) -> bool:
    dtype = getattr(value, "dtype", None)
    return dtype is not None and getattr(dtype, "kind", "b") != "b"
