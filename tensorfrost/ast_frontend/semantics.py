"""Python's meaning of operators and builtins on tensors, for the code a kernel program
rewrites (the user's function and its helpers; tensorfrost's own library is not rewritten
and keeps the C semantics of ``Tensor``'s operators, as ``tf.compile`` programs do).

With a tensor operand, ``a / b`` is true division (float32 even for integers) and ``a % b``
takes the sign of the divisor (it agrees with ``//``, which floors), as in Python, Numba,
Taichi and JAX. ``min``, ``max``, ``abs``, ``round``, ``sum``, ``divmod``, ``pow``,
``float``, ``int`` and ``bool`` work elementwise on tensors; ``print`` and ``assert`` of
tensors act when the program runs. Without a tensor operand each is Python's own::

    x / 2      ->  _tf_rt.truediv(x, 2)      # Python's / on numbers, float32 on tensors
    min(a, b)  ->  _tf_rt.call(min, a, b)    # builtins.min on numbers, elementwise on tensors
"""

from __future__ import annotations

import builtins
import operator

from ..ir.builder import current
from ..ir.errors import TraceError, user_location
from ..ir.ops import CONST, DIM_ID, INPUT_DIM, LOOP
from ..tracing import algorithms
from ..tracing import api as tracing
from ..tracing.block_flag import BlockFlag, per_element
from ..tracing.helpers import print_value
from ..tracing.mathfn import select as tf_select
from ..tracing.tensor import Tensor, apply, is_scalar
from ..tracing.vec import Vec
from .errors import KernelProgramError


def traced(value) -> bool:
    """A tensor or a ``tf.vec``: a value of the program, not of Python."""
    return isinstance(value, (Tensor, Vec))


def _per_component(fn, operands):
    """``fn`` per component when an operand is a ``tf.vec``, else None."""
    if any(isinstance(v, Vec) for v in operands):
        return Vec.map_components(fn, operands)
    return None


# -- operators ------------------------------------------------------------------------------------


def _to_float(value):
    if isinstance(value, Tensor):
        return value if value.dtype.is_float else apply("float", value)
    return builtins.float(value) if is_scalar(value) else value


def truediv(a, b):
    """``a / b``: float32 true division when an operand is a tensor (integers too)."""
    if not (traced(a) or traced(b)):
        return a / b
    vector = _per_component(truediv, (a, b))
    return vector if vector is not None else apply("div", _to_float(a), _to_float(b))


def mod(a, b):
    """``a % b`` with the sign of the divisor (``a - b * (a // b)``), as Python's ``%``."""
    if not (traced(a) or traced(b)) or isinstance(a, str):
        return a % b
    vector = _per_component(mod, (a, b))
    if vector is not None:
        return vector
    remainder = apply("mod", a, b)  # C's: the sign of the dividend
    if remainder.dtype.kind not in "if" or (_nonnegative(a) and _nonnegative(b)):
        return remainder  # (the two agree: `i % n` of an index and a size stays one op)
    if isinstance(b, Tensor):
        wrong_sign = apply("and", remainder != 0, (remainder < 0) != (b < 0))
    elif b > 0:
        wrong_sign = remainder < 0
    elif b < 0:
        wrong_sign = remainder > 0
    else:
        return remainder
    return tf_select(wrong_sign, remainder + b, remainder)


def _nonnegative(value, depth: int = 0) -> bool:
    """Provably >= 0: a Python number, a size, an index, a range loop's counter from a
    nonnegative start, and sums, products... of those."""
    if not isinstance(value, Tensor):
        return is_scalar(value) and value >= 0
    node = value.node
    if depth > 8 or node in current().variables.keys:  # a variable's value changes
        return False
    if node.op in (DIM_ID, INPUT_DIM) or node.dtype.kind in "ub":
        return True
    if node.op is CONST:
        return node.attrs["value"] >= 0
    if node.op is LOOP:
        return all(_nonnegative(Tensor(b), depth + 1) for b in (node.args[0], node.args[2]))
    test = {"all": all, "any": any}.get(node.op.nonnegative)  # (the op table says which ops keep signs)
    return test is not None and test(_nonnegative(Tensor(a), depth + 1) for a in node.args)


_INPLACE = {"+": operator.iadd, "-": operator.isub, "*": operator.imul, "/": operator.itruediv,
            "//": operator.ifloordiv, "%": operator.imod, "**": operator.ipow, "<<": operator.ilshift,
            ">>": operator.irshift, "&": operator.iand, "|": operator.ior, "^": operator.ixor,
            "@": operator.imatmul}
_ON_TENSORS = {"/": truediv, "%": mod}


def augmented(op: str):
    """The function of ``x op= y``: Python's in-place operator on Python values (a list's
    ``+=`` extends it), with the meaning above for ``/`` and ``%`` of tensors."""
    python, tensor = _INPLACE[op], _ON_TENSORS.get(op)
    if tensor is None:
        return python
    return lambda a, b: tensor(a, b) if traced(a) or traced(b) else python(a, b)


# -- builtins -------------------------------------------------------------------------------------


def _reduce_first_axis(x: Tensor, reduce):
    """What Python's builtin gives for a tensor it iterates: the reduction over axis 0
    (a scalar for a 1-D tensor, as for a 1-D array)."""
    if x.ndim == 0:
        raise TraceError("a scalar tensor is not iterable (min, max and sum of one argument iterate it); "
                         "pass several values: min(a, b)", user_location())
    result = reduce(x, axis=0)
    return Tensor(tracing.uniform(result.node)) if x.ndim == 1 else result


def _extreme(builtin, op: str, reduce):
    def extreme(*args, **kwargs):
        items = args
        if len(args) == 1 and not isinstance(args[0], Tensor):
            items = tuple(args[0])
            if not any(traced(v) for v in items):
                return builtin(items, **kwargs)
        elif not any(traced(v) for v in args):
            return builtin(*args, **kwargs)
        if "key" in kwargs:
            raise TraceError(f"{builtin.__name__}(..., key=...) of tensors is not supported: compare the keys "
                             "and pick with tf.select", user_location())
        if len(args) == 1 and isinstance(args[0], Tensor):
            return _reduce_first_axis(args[0], reduce)
        if not items:
            if "default" in kwargs:
                return kwargs["default"]
            raise ValueError(f"{builtin.__name__}() arg is an empty sequence")
        result = items[0]
        for value in items[1:]:
            result = apply(op, result, value)
        return result
    extreme.__name__ = builtin.__name__
    return extreme


def _sum(iterable, /, start=0):
    """``sum``: of a tensor, along its first axis (what iterating it gives)."""
    if isinstance(iterable, Tensor):
        total = _reduce_first_axis(iterable, algorithms.sum)
        return total if isinstance(start, (int, builtins.float)) and start == 0 else start + total
    return builtins.sum(iterable, start)


def _abs(x):
    return apply("abs", x) if traced(x) else builtins.abs(x)


def _round(number, ndigits=None):
    """``round``: half to even; an int32 tensor without ``ndigits`` (Python's round gives an
    int), else float32 rounded to ``ndigits`` decimals."""
    if not traced(number):
        return builtins.round(number) if ndigits is None else builtins.round(number, ndigits)
    vector = _per_component(lambda x: _round(x, ndigits), (number,))
    if vector is not None:
        return vector
    if traced(ndigits) or not (ndigits is None or isinstance(ndigits, int)):
        raise TraceError("round(x, ndigits): ndigits must be a Python int", user_location())
    if ndigits is None:
        return number if number.dtype.is_integer else apply("int", apply("round", number))
    if number.dtype.is_integer and ndigits >= 0:
        return number
    # x * 10**n, rounded, / 10**n; for n < 0 divide by the power of ten, which is exact.
    if ndigits >= 0:
        scale = 10.0 ** ndigits
        return apply("div", apply("round", apply("mul", number, scale)), scale)
    scale = 10.0 ** -ndigits
    rounded = apply("mul", apply("round", apply("div", _to_float(number), scale)), scale)
    return apply("int", rounded) if number.dtype.is_integer else rounded


def _divmod(a, b):
    if not (traced(a) or traced(b)):
        return builtins.divmod(a, b)
    return a // b, mod(a, b)


def _pow(base, exp, mod_=None):
    if not (traced(base) or traced(exp) or traced(mod_)):
        return builtins.pow(base, exp) if mod_ is None else builtins.pow(base, exp, mod_)
    if mod_ is not None:
        raise TraceError("pow(base, exp, mod) of tensors is not supported; write (base ** exp) % mod",
                         user_location())
    return base ** exp


def _conversion(builtin, op: str):
    def convert(*args, **kwargs):
        if len(args) == 1 and not kwargs and traced(args[0]):
            return apply(op, args[0])
        return builtin(*args, **kwargs)
    convert.__name__ = builtin.__name__
    return convert


# -- print and assert -----------------------------------------------------------------------------


class Text:
    """An f-string of ``print`` with tensors in it: its pieces in order, each a pair
    (text or tensor, the source of the tensor's expression)."""

    __slots__ = ("pieces",)

    def __init__(self, pieces):
        self.pieces = pieces


def formatted(value, conversion: int, spec, source: str):
    """One ``{value!conversion:spec}`` of an f-string in ``print``: the text for a Python
    value, the tensor (printed when the program runs) for a tensor."""
    if traced(value):
        return Text([(value, source)])
    value = {ord("r"): repr, ord("s"): str, ord("a"): ascii}.get(conversion, lambda v: v)(value)
    return format(value, spec or "")


def join_text(*parts):
    """An f-string of ``print``: a str, or ``Text`` if tensors are in it."""
    if all(isinstance(p, str) for p in parts):
        return "".join(parts)
    return Text([pair for p in parts for pair in (p.pieces if isinstance(p, Text) else [(p, None)])])


def print_(labels, *args, sep=" ", end="\n", file=None, flush=False):
    """``print(...)``: Python's print of Python values (while tracing); with tensors in it,
    each tensor printed as ``label: value`` after every run of the program (tf.print_value),
    its label the text before it in the call, else the source of its expression."""
    pieces = []  # (text or tensor, source)
    for k, arg in enumerate(args):
        source = labels[k] if labels is not None and k < len(labels) else None
        pieces.extend(arg.pieces if isinstance(arg, Text) else [(arg, source)])
    if not any(traced(p) for p, _ in pieces):
        builtins.print(*args, sep=sep, end=end, file=file, flush=flush)
        return
    builder = current()
    if builder.scope is not builder.program.root:
        raise KernelProgramError("print(...) of a tensor prints after the program has run, so it cannot be inside a "
                                 "loop or if that is in the program (a range loop, a while or if on a tensor); "
                                 "print a value the loop leaves behind, after it", user_location())
    entries, text = [], []
    for piece, source in pieces:
        if not traced(piece):
            text.append(str(piece))
            continue
        label = " ".join(" ".join(text).split()).strip(" ,;:=") or source or f"value {len(entries)}"
        entries.append([label, piece])
        text = []
    trailing = " ".join(" ".join(text).split()).strip(" ,;:=")
    if trailing:
        entries[-1][0] += f" ({trailing})"
    for label, value in entries:
        parts = value.components if isinstance(value, Vec) else (value,)
        for k, part in enumerate(parts):
            print_value(f"{label}[{k}]" if isinstance(value, Vec) else label, part)


def assert_(condition, message, source: str) -> None:
    """``assert condition, message``: Python's assert for a Python condition (while tracing);
    for a tensor, checked each time the program runs, failing with the message and line."""
    if not traced(condition):
        if not condition:
            raise AssertionError(message()) if message is not None else AssertionError
        return
    if isinstance(condition, Vec):
        raise TraceError("assert of a tf.vec: assert each component, or tf.all of them", user_location())
    text = message() if message is not None else None
    if traced(text):
        raise TraceError("the message of an assert on a tensor must be a Python value", user_location())
    what = f"assertion failed: {text if text is not None else source}".replace("{", "{{").replace("}", "}}")
    holds = condition if condition.dtype.is_bool else condition != 0
    builder = current()
    if per_element(builder.scope.owner):
        # Checked only where the statement runs (under per-element ifs, in the trips elements make).
        failed = BlockFlag()
        failed.raise_to(apply("int", apply("not", holds)))
        failed.check(what, user_location())
        return
    while holds.ndim > 1:
        holds = algorithms.all(holds, axis=-1)
    if holds.ndim:
        holds = Tensor(tracing.uniform(algorithms.all(holds, axis=-1).node))  # [1] from a 1-D reduction
    builder.make("assert", [holds.node], attrs={"message": what}, location=user_location())


BUILTINS = {id(f): (f, g) for f, g in (
    (builtins.min, _extreme(builtins.min, "min", lambda x, axis: algorithms.reduce_min(x, axis))),
    (builtins.max, _extreme(builtins.max, "max", lambda x, axis: algorithms.reduce_max(x, axis))),
    (builtins.sum, _sum), (builtins.abs, _abs), (builtins.round, _round), (builtins.divmod, _divmod),
    (builtins.pow, _pow), (builtins.float, _conversion(builtins.float, "float")),
    (builtins.int, _conversion(builtins.int, "int")), (builtins.bool, _conversion(builtins.bool, "bool")),
    (builtins.print, lambda *args, **kwargs: print_(None, *args, **kwargs)))}


def builtin_for(fn):
    """The Python-semantics version of a builtin ``fn``, or None."""
    found = BUILTINS.get(id(fn))
    return found[1] if found is not None and found[0] is fn else None
