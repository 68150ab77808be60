"""Tensors outside programs act as arrays: ``t + 1``, ``a < b``, ``-t``, ``t @ u``,
``t.astype(tf.int32)``, ``t.T`` and numpy's ufuncs on tensors run eagerly, on the backend of
the tensor they meet, as the same traced ops, with numpy's meaning where ``tf.compile``'s
follows C: ``/`` of integers is float32 true division and ``%`` takes the sign of the
divisor, as in ``@tf.kernel_program`` (ast_frontend/semantics.py).

Each operation runs as a small program compiled once and cached (eager_programs.py).
``ArrayMethods`` is the behaviour ``TensorMemory`` inherits; it reaches those programs
through ``connect``, since the compiler imports this module (through runtime.py).
"""

from __future__ import annotations

import operator

import numpy as np

from . import backend as devices
from . import tracebacks
from .ir import dtypes as dt
from .ir.errors import TensorFrostError

BINARY = {name: getattr(operator, name) for name in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and_", "or_", "xor", "lshift", "rshift",
    "lt", "le", "gt", "ge", "eq", "ne")}
PYTHON_MEANING = {"truediv": "truediv", "mod": "mod"}  # operators whose numpy meaning semantics.py spells
UNARY = {"neg": operator.neg, "pos": operator.pos, "abs": operator.abs, "invert": operator.invert}
# numpy's ufuncs that run as the same operation here; the others run in numpy on the values
UFUNCS = {np.add: "add", np.subtract: "sub", np.multiply: "mul", np.true_divide: "truediv",
          np.floor_divide: "floordiv", np.remainder: "mod", np.power: "pow", np.matmul: "matmul",
          np.bitwise_and: "and_", np.bitwise_or: "or_", np.bitwise_xor: "xor", np.left_shift: "lshift",
          np.right_shift: "rshift", np.less: "lt", np.less_equal: "le", np.greater: "gt", np.greater_equal: "ge",
          np.equal: "eq", np.not_equal: "ne", np.negative: "neg", np.positive: "pos", np.absolute: "abs",
          np.invert: "invert"}
MATH_UFUNCS = {np.sin: "sin", np.cos: "cos", np.tan: "tan", np.exp: "exp", np.log: "log", np.sqrt: "sqrt",
               np.tanh: "tanh", np.floor: "floor", np.ceil: "ceil", np.arcsin: "asin", np.arccos: "acos",
               np.arctan: "atan", np.sinh: "sinh", np.cosh: "cosh", np.log2: "log2", np.exp2: "exp2",
               np.minimum: "min", np.maximum: "max", np.arctan2: "atan2"}

_run = None  # eager_programs.run: it needs the compiler, which imports this module, so it connects itself


def connect(run) -> None:
    """Called by eager_programs when the package loads: ``run(name, operands)`` runs an operation."""
    global _run
    _run = run


def apply(name: str, *operands):
    """The operation ``name`` (a key of BINARY, UNARY or a tf math function) of the operands,
    run now; NotImplemented where an operand is nothing an array operation takes (Python then
    tries the other operand's method)."""
    return _run(name, operands)


def astype(memory, dtype):
    return _run(f"astype_{dt.dtype_of(dtype).name}", (memory,))


def transposed(memory):
    """numpy's ``.T``: the axes in reverse order."""
    return memory if memory.ndim < 2 else _run("T", (memory,))


def _is_memory(value) -> bool:
    return isinstance(value, ArrayMethods)  # (TensorMemory is the class that has them)


def _one_value(memory, what: str):
    if memory.size != 1:
        raise TypeError(f"{what}: only a tensor of one element converts to a Python number, this one has shape "
                        f"{list(memory.shape)} ({memory.size} elements; index one, or use .tolist())")
    return memory.numpy.reshape(-1)[0].item()


def _rebuilt(values: np.ndarray, device_name: str):
    """A pickled tensor, on its backend again (its values came through host memory; pickle
    finds this function by its module-level name)."""
    backend = devices.backend_for(devices.device_named(device_name))
    return backend.upload(np.ascontiguousarray(values), dt.numpy_to_dtype(values.dtype))


class ArrayMethods:
    """What makes a TensorMemory act as an array outside programs (numpy's names and meanings)."""

    __slots__ = ()
    __array_priority__ = 1000  # numpy's operators on (array, tensor) defer to the tensor's

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d tensor (it has no first axis)")
        return self.shape[0]

    def __float__(self):
        return float(_one_value(self, "float()"))

    def __int__(self):
        return int(_one_value(self, "int()"))

    def __index__(self):
        if not self.dtype.is_integer:
            raise TypeError(f"only an integer tensor can be an index, this one is {self.dtype!r}")
        return int(_one_value(self, "an index"))

    def __bool__(self):
        if self.size != 1:
            raise TensorFrostError(f"the truth value of a tensor of {self.size} elements is ambiguous; use "
                                   "(t != 0).numpy.any() or .all(), or compare its .numpy")
        return bool(_one_value(self, "bool()"))

    def __complex__(self):
        return complex(_one_value(self, "complex()"))

    def item(self) -> int | float | bool:
        """The value of a one-element tensor as a Python number.

        >>> tf.tensor(np.array([2.5], np.float32)).item()
        2.5
        """
        return _one_value(self, "item()")

    def tolist(self) -> list | int | float | bool:
        """The values as nested Python lists (numpy's ``tolist``).

        >>> tf.tensor(np.array([[1, 2], [3, 4]], np.int32)).tolist()
        [[1, 2], [3, 4]]
        """
        return self.numpy.tolist()

    @tracebacks.user_facing
    def astype(self, dtype: dt.DType | str | type) -> ArrayMethods:
        """The values converted to ``dtype`` (as inside a program: floats to integers truncate
        toward zero), a new tensor on the same backend.

        >>> tf.tensor(np.array([-1.7, 0.5, 2.9], np.float32)).astype(tf.int32).tolist()
        [-1, 0, 2]
        """
        return astype(self, dtype)

    @property
    def T(self) -> ArrayMethods:  # noqa: N802 (numpy's name)
        """The tensor with its axes in reverse order (a new tensor).

        >>> tf.tensor(np.array([[1, 2, 3]], np.float32)).T.numpy
        array([[1.],
               [2.],
               [3.]], dtype=float32)
        """
        return transposed(self)

    def __getitem__(self, index: object) -> ArrayMethods:
        """numpy's indexing (``t[0]``, ``t[1:, ::2]``, ``t[mask]``), a new tensor on the same
        backend (the values are taken on the host).

        >>> t = tf.tensor(np.arange(6, dtype=np.int32).reshape(2, 3))
        >>> t[1].tolist(), t[:, ::2].tolist(), t[t > 3].tolist()
        ([3, 4, 5], [[0, 2], [3, 5]], [4, 5])
        """
        values = np.array(self.numpy[index.numpy if _is_memory(index) else index], order="C")  # (0-d stays 0-d)
        return self.backend.upload(values, dt.numpy_to_dtype(values.dtype))

    def __setitem__(self, index, value):
        raise TypeError("a tensor's values change only inside programs: make a new one "
                        "(tf.tensor(array) after changing a numpy copy, t.numpy), or write the update in a program")

    def __getattr__(self, name: str):
        if hasattr(np.ndarray, name) and not name.startswith("_") and not hasattr(type(self), name):
            raise AttributeError(f"a tensor has no .{name}() outside programs: use its values, t.numpy.{name}(...), "
                                 f"or tf.{name} inside a program (tf.compile / tf.kernel_program)")
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __iter__(self):
        """The rows' values, as iterating ``.numpy`` gives them."""
        if not self.shape:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.numpy)

    def __repr__(self) -> str:
        prefix = "tf.tensor("
        try:
            values = np.array2string(self.numpy, separator=", ", prefix=prefix)
        except Exception as error:  # (its backend may be gone): the description without values
            values = f"<values unavailable: {type(error).__name__}>"
        return f"{prefix}{values}, dtype=tf.{self.dtype.name}, shape={list(self.shape)}, backend={self.backend.name})"

    __str__ = __repr__
    __hash__ = object.__hash__  # identity, as for every mutable array type: == compares values

    def __reduce__(self):
        return _rebuilt, (self.numpy, self.backend.name)

    @tracebacks.user_facing
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        name = UFUNCS.get(ufunc) or MATH_UFUNCS.get(ufunc)
        if method == "__call__" and name is not None and not kwargs:
            return apply(name, *inputs)
        if any(_is_memory(x) for x in kwargs.get("out", ())):
            raise TypeError(f"numpy's {ufunc.__name__}: a tensor cannot be its out= (tensors change only in "
                            "programs); write into a numpy array, or use the result")
        values = [x.numpy if _is_memory(x) else x for x in inputs]
        return getattr(ufunc, method)(*values, **kwargs)


def _binary_methods():
    """``__add__`` / ``__radd__`` and the rest, each an eager ``apply``."""
    methods = {}
    for name in BINARY:
        dunder = name.rstrip("_")
        methods[f"__{dunder}__"] = lambda self, other, name=name: apply(name, self, other)
        if name not in ("lt", "le", "gt", "ge", "eq", "ne"):  # (Python reflects comparisons itself)
            methods[f"__r{dunder}__"] = lambda self, other, name=name: apply(name, other, self)
    for name in UNARY:
        methods[f"__{name}__"] = lambda self, name=name: apply(name, self)
    return methods


for _name, _method in _binary_methods().items():
    setattr(ArrayMethods, _name, tracebacks.user_facing(_method))  # (errors show the user's line, not ours)
