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
from .tensor import Tensor, apply, node_of

# Operand types, named before tf.float, tf.int and tf.bool below shadow the builtins.
Value = Tensor | float  # a tensor or a Python number
Condition = Tensor | bool

_EXAMPLE = """

    >>> f = tf.compile(lambda: tf.{name}(tf.input([-1], tf.{given_dtype})))
    >>> f(np.array({given}, np.{given_dtype})).numpy
    {expected}
"""


def _unary(op_name: str, summary: str, given: str, expected: str, given_dtype: str = "float32"):
    """The public function of one elementwise op; its docstring shows it on ``given`` (a
    list literal), which gives ``expected`` (the repr of the result's numpy array)."""
    def fn(x: Tensor) -> Tensor:
        return apply(op_name, x)
    fn.__name__ = op_name
    example = _EXAMPLE.format(name=op_name, given=given, given_dtype=given_dtype, expected=expected)
    fn.__doc__ = f"{summary} (elementwise). {OPS[op_name].doc}".strip() + example
    return fn


abs = _unary("abs", "Absolute value", "[-1.5, 0.0, 2.0]",  # noqa: A001
             "array([1.5, 0. , 2. ], dtype=float32)")
sign = _unary("sign", "Sign: -1, 0 or 1", "[-3.0, 0.0, 2.0]",
              "array([-1.,  0.,  1.], dtype=float32)")
floor = _unary("floor", "Round down", "[-1.5, 0.5, 2.0]",
               "array([-2.,  0.,  2.], dtype=float32)")
ceil = _unary("ceil", "Round up", "[-1.5, 0.5, 2.0]",
              "array([-1.,  1.,  2.], dtype=float32)")
round = _unary("round", "Round to nearest, ties to even", "[0.5, 1.5, 2.7]",  # noqa: A001
               "array([0., 2., 3.], dtype=float32)")
trunc = _unary("trunc", "Round toward zero", "[-1.7, 0.5, 2.7]",
               "array([-1.,  0.,  2.], dtype=float32)")
frac = _unary("frac", "Fractional part x - floor(x)", "[-1.25, 0.5, 2.75]",
              "array([0.75, 0.5 , 0.75], dtype=float32)")
exp = _unary("exp", "e**x", "[0.0, 1.0, 2.0]",
             "array([1.    , 2.7183, 7.3891], dtype=float32)")
exp2 = _unary("exp2", "2**x", "[0.0, 1.0, 3.0]",
              "array([1., 2., 8.], dtype=float32)")
log = _unary("log", "Natural logarithm", "[1.0, 2.0, 10.0]",
             "array([0.    , 0.6931, 2.3026], dtype=float32)")
log2 = _unary("log2", "Base-2 logarithm", "[1.0, 2.0, 8.0]",
              "array([0., 1., 3.], dtype=float32)")
sqrt = _unary("sqrt", "Square root", "[1.0, 4.0, 9.0]",
              "array([1., 2., 3.], dtype=float32)")
rsqrt = _unary("rsqrt", "1 / sqrt(x)", "[1.0, 4.0, 16.0]",
               "array([1.  , 0.5 , 0.25], dtype=float32)")
rcp = _unary("rcp", "1 / x", "[1.0, 2.0, 4.0]",
             "array([1.  , 0.5 , 0.25], dtype=float32)")
sin = _unary("sin", "Sine", "[0.0, 1.0, 2.0]",
             "array([0.    , 0.8415, 0.9093], dtype=float32)")
cos = _unary("cos", "Cosine", "[0.0, 1.0, 2.0]",
             "array([ 1.    ,  0.5403, -0.4161], dtype=float32)")
tan = _unary("tan", "Tangent", "[0.0, 0.5, 1.0]",
             "array([0.    , 0.5463, 1.5574], dtype=float32)")
asin = _unary("asin", "Arcsine", "[0.0, 0.5, 1.0]",
              "array([0.    , 0.5236, 1.5708], dtype=float32)")
acos = _unary("acos", "Arccosine", "[0.0, 0.5, 1.0]",
              "array([1.5708, 1.0472, 0.    ], dtype=float32)")
atan = _unary("atan", "Arctangent", "[0.0, 1.0, 2.0]",
              "array([0.    , 0.7854, 1.1071], dtype=float32)")
sinh = _unary("sinh", "Hyperbolic sine", "[0.0, 1.0, 2.0]",
              "array([0.    , 1.1752, 3.6269], dtype=float32)")
cosh = _unary("cosh", "Hyperbolic cosine", "[0.0, 1.0, 2.0]",
              "array([1.    , 1.5431, 3.7622], dtype=float32)")
tanh = _unary("tanh", "Hyperbolic tangent", "[0.0, 1.0, 2.0]",
              "array([0.    , 0.7616, 0.964 ], dtype=float32)")
float = _unary("float", "Convert to float32", "[-2, 0, 7]", "array([-2.,  0.,  7.], dtype=float32)",  # noqa: A001
               "int32")
int = _unary("int", "Convert to int32 (toward zero)", "[-1.5, 0.5, 2.7]",  # noqa: A001
             "array([-1,  0,  2], dtype=int32)")
uint = _unary("uint", "Convert to uint32", "[-1, 0, 7]", "array([4294967295,          0,          7], dtype=uint32)",
              "int32")
bool = _unary("bool", "Convert to bool (nonzero is true)", "[0.0, -0.5, 2.0]",  # noqa: A001
              "array([False,  True,  True])")


def cast(x: Value, dtype: dt.DType) -> Tensor:
    """``x`` converted to ``dtype`` (``x.astype(dtype)``): numpy's conversion rules, floats to
    integers truncating toward zero, integers wrapping to the target's bits.

    >>> tf.compile(lambda: tf.cast(tf.input([-1]), tf.uint8))(np.array([1.9, 255.0, 256.0], np.float32)).numpy
    array([  1, 255,   0], dtype=uint8)
    """
    return apply("copy", x).astype(dtype) if not hasattr(x, "astype") else x.astype(dtype)


asfloat = _unary("asfloat", "Reinterpret the 32 bits as float32", "[0, 1065353216]",
                 "array([0., 1.], dtype=float32)", "int32")
asint = _unary("asint", "Reinterpret the 32 bits as int32", "[1.0, -2.0]",
               "array([ 1065353216, -1073741824], dtype=int32)")
asuint = _unary("asuint", "Reinterpret the 32 bits as uint32", "[1.0, -2.0]",
                "array([1065353216, 3221225472], dtype=uint32)")
pcg = _unary("pcg", "PCG hash of a uint", "[0, 1, 2]",
             "array([ 129708002, 2831084092, 2055130248], dtype=uint32)", "uint32")
pcgf = _unary("pcgf", "PCG hash mapped to a float in [0, 1)", "[0, 1, 2]",
              "array([0.0302, 0.6592, 0.4785], dtype=float32)", "uint32")
reversebits = _unary("reversebits", "Reverse the bit order of a uint", "[1, 2, 3]",
                     "array([2147483648, 1073741824, 3221225472], dtype=uint32)", "uint32")


def copy(x: Value) -> Tensor:
    """A copy of the value (elementwise): a variable that ``.val = ...`` may update and widen.

    >>> def running_max():
    ...     x = tf.input([-1], tf.float32)
    ...     best = tf.copy(0.0)
    ...     with tf.loop(x.shape[0]) as k:
    ...         best.val = tf.max(best, x[k])
    ...     return best
    >>> tf.compile(running_max)(np.array([2.0, 7.0, 3.0], np.float32)).numpy
    array(7., dtype=float32)
    """
    result = apply("copy", x)
    current().variables.declare(result.node)
    return result


def sqr(x: Tensor) -> Tensor:
    """x * x (elementwise).

    >>> tf.compile(lambda: tf.sqr(tf.input([-1])))(np.array([-2.0, 3.0], np.float32)).numpy
    array([4., 9.], dtype=float32)
    """
    return apply("mul", x, x)


def pow(x: Value, y: Value) -> Tensor:  # noqa: A001
    """x ** y in float32 (elementwise).

    >>> tf.compile(lambda: tf.pow(tf.input([-1]), 0.5))(np.array([4.0, 2.0], np.float32)).numpy
    array([2.    , 1.4142], dtype=float32)
    """
    return apply("pow", x, y)


def atan2(y: Value, x: Value) -> Tensor:
    """The angle of the point (x, y), as numpy.arctan2(y, x) (elementwise).

    >>> tf.compile(lambda: tf.atan2(tf.input([-1]), -1.0))(np.array([1.0, 0.0, -1.0], np.float32)).numpy
    array([ 2.3562,  3.1416, -2.3562], dtype=float32)
    """
    return apply("atan2", y, x)


def min(a: Value, b: Value | None = None, axis: int = -1) -> Tensor:  # noqa: A001
    """``tf.min(a, b)``: the smaller of two values elementwise (NaN if either is NaN);
    ``tf.min(a, axis=...)``: the minimum along an axis, which is dropped (an error for an
    empty axis, as in numpy).

    >>> @tf.compile
    ... def smallest(x: tf.Arg([-1, -1], tf.float32)):
    ...     return tf.min(x, 1.5), tf.min(x, axis=0)
    >>> [r.numpy for r in smallest(np.array([[1.0, 5.0], [3.0, 2.0]], np.float32))]
    [array([[1. , 1.5],
           [1.5, 1.5]], dtype=float32), array([1., 2.], dtype=float32)]
    """
    if b is None:
        _require_elements(a, axis, "tf.min", "minimum")
        return algorithms.reduce_min(a, axis)
    return apply("min", a, b)


def max(a: Value, b: Value | None = None, axis: int = -1) -> Tensor:  # noqa: A001
    """``tf.max(a, b)``: the larger of two values elementwise (NaN if either is NaN);
    ``tf.max(a, axis=...)``: the maximum along an axis, which is dropped (an error for an
    empty axis, as in numpy).

    >>> @tf.compile
    ... def largest(x: tf.Arg([-1, -1], tf.float32)):
    ...     return tf.max(x, 1.5), tf.max(x, axis=0)
    >>> [r.numpy for r in largest(np.array([[1.0, 5.0], [3.0, 2.0]], np.float32))]
    [array([[1.5, 5. ],
           [3. , 2. ]], dtype=float32), array([3., 5.], dtype=float32)]
    """
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


def clamp(x: Tensor, lo: Value, hi: Value) -> Tensor:
    """min(max(x, lo), hi) (elementwise).

    >>> tf.compile(lambda: tf.clamp(tf.input([-1]), 0.0, 1.0))(np.array([-0.5, 0.25, 2.0], np.float32)).numpy
    array([0.  , 0.25, 1.  ], dtype=float32)
    """
    return apply("clamp", x, lo, hi)


def lerp(a: Value, b: Value, t: Value) -> Tensor:
    """a + (b - a) * t (elementwise, float32).

    >>> tf.compile(lambda: tf.lerp(10.0, 20.0, tf.input([-1])))(np.array([0.0, 0.25, 1.0], np.float32)).numpy
    array([10. , 12.5, 20. ], dtype=float32)
    """
    return apply("lerp", a, b, t)


def fma(a: Value, b: Value, c: Value) -> Tensor:
    """a * b + c (elementwise).

    >>> tf.compile(lambda: tf.fma(tf.input([-1]), 2.0, 1.0))(np.array([1.0, 2.5], np.float32)).numpy
    array([3., 6.], dtype=float32)
    """
    return apply("fma", a, b, c)


def smoothstep(edge0: Value, edge1: Value, x: Value) -> Tensor:
    """Hermite interpolation between 0 and 1 as x goes from edge0 to edge1 (elementwise).

    >>> f = tf.compile(lambda: tf.smoothstep(0.0, 2.0, tf.input([-1])))
    >>> f(np.array([-1.0, 0.5, 1.0, 3.0], np.float32)).numpy
    array([0.    , 0.1562, 0.5   , 1.    ], dtype=float32)
    """
    return apply("smoothstep", edge0, edge1, x)


def select(condition: Condition, a: Value, b: Value) -> Tensor:
    """``a`` where ``condition`` holds, else ``b`` (elementwise, like numpy.where).

    >>> def relu():
    ...     x = tf.input([-1], tf.float32)
    ...     return tf.select(x > 0.0, x, 0.0)
    >>> tf.compile(relu)(np.array([-1.0, 2.0], np.float32)).numpy
    array([0., 2.], dtype=float32)
    """
    return apply("select", bool(condition) if _needs_bool(condition) else condition, a, b)


def _needs_bool(value) -> bool:
    dtype = getattr(value, "dtype", None)
    return dtype is not None and getattr(dtype, "kind", "b") != "b"
