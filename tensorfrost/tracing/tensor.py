"""The traced Tensor: what a tensor program's Python code holds and operates on.

A ``Tensor`` is a handle on an IR node. Its Python operators build nodes in the program
being traced. Python numbers are weak scalars (``x * 2`` keeps ``x``'s dtype).
"""

from __future__ import annotations

import numbers

import numpy as np

from ..ir import dtypes as dt
from ..ir.builder import current
from ..ir.errors import DTypeError, ShapeError, TraceError, user_location
from ..ir.node import Node
from ..ir.shapes import describe_shape
from ..runtime import MAX_RANK

# The functions some methods call, defined in modules that build on this one (algorithms,
# indexing, api, kernel, helpers): each registers its own with ``provide`` when imported.
_LATER: dict = {}


def provide(**functions) -> None:
    """Register the functions that Tensor's methods of those names call."""
    _LATER.update(functions)


class Tensor:
    """A tensor inside a program being traced. Build one with ``tf.input``, ``tf.zeros``...;
    it has numpy's operators, indexing and methods (``x.shape``, ``x.T``, ``x.sum()``...).

    >>> def program():
    ...     x = tf.input([-1, -1], tf.float32)
    ...     i, j = x.indices
    ...     return (x.T @ x + i * 10.0).sum(axis=1)
    >>> tf.compile(program)(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)).numpy
    array([24., 54.], dtype=float32)
    """

    __slots__ = ("node", "__weakref__")
    __array_priority__ = 1000  # numpy scalars defer to our operators

    def __init__(self, node: Node):
        if len(node.shape) > MAX_RANK:  # (programs' argument and output slots hold MAX_RANK dims)
            raise ShapeError(f"a tensor has at most {MAX_RANK} axes, got one of shape {describe_shape(node.shape)} "
                             f"({len(node.shape)} axes)", user_location())
        self.node = node

    # -- description ---------------------------------------------------------------------

    @property
    def shape(self) -> list:
        """The dims as scalar int32 tensors: ``N, M = A.shape``."""
        return [Tensor(d) for d in self.node.shape]

    @property
    def dtype(self) -> dt.DType:
        return self.node.dtype

    @property
    def type(self) -> dt.DType:  # noqa: A003 (upstream's name)
        """The dtype (upstream's spelling): ``tf.zeros(x.shape, x.type)``."""
        return self.node.dtype

    @property
    def ndim(self) -> int:
        return self.node.rank

    def astype(self, dtype) -> Tensor:
        """The values converted to ``dtype`` as numpy's ``astype`` converts them (floats to
        integers truncate toward zero; integers wrap to the target's bits)."""
        return Tensor(current().cast(self.node, dt.dtype_of(dtype)))

    @property
    def indices(self) -> tuple:
        """The index of every element along each axis: ``i, j = A.indices``."""
        return _LATER["indices"](self.node.shape)

    def __repr__(self) -> str:
        return f"<tf.Tensor {self.node.label} {self.dtype!r}{describe_shape(self.node.shape)}>"

    __hash__ = object.__hash__

    # -- values that Python cannot have ----------------------------------------------------

    def __bool__(self):
        raise TraceError("a traced tensor has no Python truth value; use tf.if_cond(...) or "
                         "tf.select(...), or @tf.kernel_program to write Python `if`", user_location())

    def __index__(self):
        raise TraceError("a traced tensor cannot be used as a Python int (its value is only known "
                         "when the program runs)", user_location())

    __int__ = __index__

    def __float__(self):
        raise TraceError("a traced tensor cannot be used as a Python float", user_location())

    def __len__(self):
        raise TraceError("len() of a traced tensor is not a Python int; use tensor.shape[0]",
                         user_location())

    def __iter__(self):
        raise TraceError("a traced tensor cannot be iterated in Python; index it with tf.indices "
                         "or loop with tf.loop", user_location())

    @property
    def numpy(self):
        raise TraceError(".numpy is only available on tensors returned by a compiled program, "
                         "not inside the program", user_location())

    # -- arithmetic ----------------------------------------------------------------------

    def __add__(self, o): return apply("add", self, o)
    def __radd__(self, o): return apply("add", o, self)
    def __sub__(self, o): return apply("sub", self, o)
    def __rsub__(self, o): return apply("sub", o, self)
    def __mul__(self, o): return apply("mul", self, o)
    def __rmul__(self, o): return apply("mul", o, self)
    def __truediv__(self, o): return apply("div", self, o)
    def __rtruediv__(self, o): return apply("div", o, self)
    def __floordiv__(self, o): return apply("floordiv", self, o)
    def __rfloordiv__(self, o): return apply("floordiv", o, self)
    def __mod__(self, o): return apply("mod", self, o)
    def __rmod__(self, o): return apply("mod", o, self)
    def __neg__(self): return apply("neg", self)
    def __pos__(self): return self
    def __abs__(self): return apply("abs", self)
    def __invert__(self): return apply("not", self)
    def __and__(self, o): return apply("and", self, o)
    def __rand__(self, o): return apply("and", o, self)
    def __or__(self, o): return apply("or", self, o)
    def __ror__(self, o): return apply("or", o, self)
    def __xor__(self, o): return apply("xor", self, o)
    def __rxor__(self, o): return apply("xor", o, self)
    def __lshift__(self, o): return apply("shl", self, o)
    def __rlshift__(self, o): return apply("shl", o, self)
    def __rshift__(self, o): return apply("shr", self, o)
    def __rrshift__(self, o): return apply("shr", o, self)
    def __lt__(self, o): return apply("lt", self, o)
    def __le__(self, o): return apply("le", self, o)
    def __gt__(self, o): return apply("gt", self, o)
    def __ge__(self, o): return apply("ge", self, o)
    def __eq__(self, o): return apply("eq", self, o)
    def __ne__(self, o): return apply("ne", self, o)

    def __pow__(self, o):
        if isinstance(o, numbers.Integral) and not isinstance(o, bool) and 0 <= int(o) <= 4:
            return _power_by_products(self, int(o))
        return apply("pow", self, o)

    def __rpow__(self, o):
        return apply("pow", o, self)

    def __matmul__(self, o):
        return _LATER["matmul"](self, o)

    def __rmatmul__(self, o):
        return _LATER["matmul"](o, self)

    # -- views and reductions as methods ----------------------------------------------------

    @property
    def T(self) -> Tensor:
        """The transpose of the last two axes (a 1-D tensor is returned unchanged)."""
        return self if self.node.rank < 2 else _LATER["transpose"](self)

    def sum(self, axis=-1):
        """``tf.sum(self, axis)``."""
        return _LATER["sum"](self, axis=axis)

    def mean(self, axis=-1):
        """``tf.mean(self, axis)``."""
        return _LATER["mean"](self, axis=axis)

    def reshape(self, shape):
        """``tf.reshape(self, shape)``."""
        return _LATER["reshape"](self, shape)

    # -- indexing ------------------------------------------------------------------------

    def __getitem__(self, index):
        return _LATER["load"](self, index)

    def __setitem__(self, index, value):
        _LATER["store"](self, index, value)

    # -- explicit kernels (tf.kernel) ---------------------------------------------------

    def block_thread_index(self, dim: int) -> Tensor:
        """Inside ``tf.kernel``: the thread's position in its group along ``dim`` (upstream
        counts dims from the last axis)."""
        return _LATER["block_thread_index"](dim)

    def block_index(self) -> Tensor:
        """Inside ``tf.kernel``: the flat index of the thread's group."""
        return _LATER["block_index"]()

    # -- hints ---------------------------------------------------------------------------

    def try_get_constant(self):
        """The Python value of a constant tensor; raises for any other."""
        return _LATER["try_get_constant"](self)

    def set_debug_name(self, name: str) -> Tensor:
        """Name the value in generated code and IR listings (made a safe identifier there)."""
        self.node.name = str(name)
        return self

    def hint_range(self, min, max) -> Tensor:  # noqa: A002 (upstream's names)
        """Upstream's value-range hint. Accepted and not used: ranges here come from the
        program itself (bounds checks and index analysis), so the hint changes nothing."""
        return self

    def stop_fusion(self) -> Tensor:
        """Upstream's request to end a kernel at this value. Accepted and not used: kernel
        boundaries here follow data dependencies and cost (docs/architecture.md)."""
        return self

    # -- gradients -----------------------------------------------------------------------

    def detach_grad(self) -> Tensor:
        """This tensor's value, through which no gradient flows (tf.grad stops here)."""
        node = self.node
        return Tensor(current().make("detach", [node], dtype=node.dtype, shape=node.shape))

    def pass_grad(self) -> Tensor:
        """This tensor's value; gradients pass to the operands of the op that computed it
        unchanged, as if that op were the identity (straight-through, e.g. for rounding)."""
        node = self.node
        return Tensor(current().make("pass_grad", [node], dtype=node.dtype, shape=node.shape))

    # -- variables -----------------------------------------------------------------------

    @property
    def val(self) -> Tensor:
        """The tensor itself; assigning ``x.val = y`` replaces its value (see ``set``)."""
        return self

    @val.setter
    def val(self, value):
        self.set(value)

    def set(self, value) -> None:
        """Replace this tensor's value with ``value`` (inside loops: a loop-carried update)."""
        _LATER["assign"](self, value)


def _power_by_products(x: Tensor, n: int) -> Tensor:
    if n == 0:
        return apply("add", apply("mul", x, 0), 1)
    result = x
    for _ in range(n - 1):
        result = result * x
    return result


def is_scalar(value) -> bool:
    return isinstance(value, (numbers.Number, np.number, np.bool_)) and not isinstance(value, complex)


def node_of(value, like: dt.DType | None = None) -> Node:
    """The node of a Tensor, or a constant node for a Python scalar (weakly typed: it takes
    the dtype ``like`` chooses)."""
    if isinstance(value, Tensor):
        return value.node
    if is_scalar(value):
        builder = current()
        try:
            dtype = dt.promote_weak(like, value) if like is not None else dt.scalar_dtype(value)
        except DTypeError as error:
            raise DTypeError(str(error), user_location()) from None
        if dtype.is_integer and isinstance(value, (float, np.floating)):
            dtype = dt.float32
        return builder.const(value, dtype)
    if isinstance(value, np.ndarray):
        raise TraceError("numpy arrays cannot be used inside a tensor program; pass them to the "
                         "compiled program as inputs (tf.input)", user_location())
    if getattr(type(value), "is_unassigned", False):  # a kernel program's name that has no value yet
        value.fail()
    if type(value).__name__ == "TensorMemory":
        raise TraceError("a runtime tensor (tf.tensor) cannot be used inside a tensor program; "
                         "pass it to the compiled program as an input", user_location())
    raise DTypeError(f"expected a tensor or a number, got {type(value).__name__}: {value!r}",
                     user_location())


def nodes_of(values) -> list[Node]:
    """Nodes for several operands; Python scalars take the dtype of the tensor operands, and
    so do variables made from a Python int (a kernel program's ``total = 0``), which are weak
    until something else is assigned to them."""
    weak = current().variables.weak if any(isinstance(v, Tensor) for v in values) else ()
    strong = [v.node.dtype for v in values if isinstance(v, Tensor) and v.node not in weak]
    like = None
    for d in strong:
        like = d if like is None else dt.promote(like, d)
    if like is None or not weak:
        return [node_of(v, like) for v in values]
    as_int = dt.promote_weak(like, 0)
    return [current().cast(v.node, as_int) if isinstance(v, Tensor) and v.node in weak else node_of(v, like)
            for v in values]


def apply(op_name: str, *operands) -> Tensor:
    """An elementwise op on tensors and weak Python scalars (per component on a ``tf.vec``)."""
    vector = next((v for v in operands if getattr(type(v), "is_vector", False)), None)
    if vector is not None:
        return vector.map_components(lambda *parts: apply(op_name, *parts), operands)
    if not any(isinstance(v, Tensor) for v in operands):
        # All Python numbers: still a tensor op (e.g. tf.sin(1.0) inside a program).
        current()
    nodes = nodes_of(operands)
    builder = current()
    result = builder.elementwise(op_name, nodes)
    weak = builder.variables.weak
    if weak and result.dtype is dt.int32 and all(v.node in weak for v in operands if isinstance(v, Tensor)):
        weak.add(result)  # (computed from weak ints only, as a Python int would be: ``(r << 1) | u``)
    return Tensor(result)


# A float where an integer must be comes, in a kernel program, mostly from `/`, which is
# Python's true division there.
INTEGER_QUOTIENT = "use // for an integer quotient (in a @tf.kernel_program, / gives a float), or tf.int(...)"


def check_index_dtype(node: Node, what: str) -> None:
    if not node.dtype.is_integer:
        raise DTypeError(f"{what}: indices must be integer tensors, got {node.dtype!r}; {INTEGER_QUOTIENT}",
                         user_location())


def check_shape_list(shape, what: str) -> list:
    if isinstance(shape, (Tensor, Node)) or not hasattr(shape, "__iter__"):
        raise ShapeError(f"{what}: expected a list of dims, got {type(shape).__name__}", user_location())
    return list(shape)
