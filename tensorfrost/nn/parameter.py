"""Parameters: the tensors a ``Module`` holds (``Parameter``), lists of them
(``ParameterArray``), and how they are first filled (``fill_parameters``)."""

from __future__ import annotations

import math

import numpy as np

from ..ir import dtypes as dt
from ..ir.errors import ShapeError, TensorFrostError
from ..runtime import TensorMemory, as_array, dlpack_array, is_dlpack_producer, tensor
from ..tracing.tensor import Tensor

STRUCTURE = [0]  # counts changes of any module's members (not of their values)


def structure_version() -> int:
    """A number that changes whenever a parameter, array or module is added to or removed
    from any module: programs that cache a module's parameter list check it."""
    return STRUCTURE[0]


class Parameter:
    """A tensor of a module: its declared shape and dtype, how to initialize it, and
    whether optimizers train it::

        self.W = tf.Parameter([64, -1], tf.float32)                  # -1: any size
        self.b = tf.Parameter([-1], tf.float32, random_scale=0.0)     # starts at zero
        self.s = tf.Parameter([1], tf.float32, requires_grad=False)   # not trained

    ``random_scale`` is the standard deviation of the normal values it starts with
    (``None`` or negative: Xavier, ``sqrt(2 / (fan_in + fan_out))`` where ``fan_in +
    fan_out`` is ``(shape[0] + shape[1]) * prod(shape[2:])``, or ``shape[0]`` for a 1-D
    parameter); ``random_offset`` is added. Integer and bool parameters start at
    ``random_offset`` and are never trained. ``requires_grad=False`` only keeps optimizers
    from updating it; ``tf.grad`` still works.

    >>> W = tf.Parameter([64, -1], tf.float32)
    >>> W, W.trainable, tf.Parameter([4], tf.int32).trainable
    (tf.Parameter([64, -1], tf.float32), True, False)
    """

    __slots__ = ("shape", "dtype", "random_scale", "random_offset", "requires_grad", "value")

    def __init__(self, shape: list | tuple, dtype: dt.DType | str | type = dt.float32,
                 random_scale: float | None = None, random_offset: float = 0.0,
                 requires_grad: bool = True, optimize: bool | None = None):
        if isinstance(shape, (Tensor, TensorMemory)) or not hasattr(shape, "__iter__"):
            raise ShapeError(f"tf.Parameter: expected a list of dims, got {type(shape).__name__}")
        self.shape = list(shape)
        self.dtype = dt.dtype_of(dtype)
        self.random_scale = random_scale
        self.random_offset = float(random_offset)
        self.requires_grad = bool(requires_grad if optimize is None else optimize)  # optimize: upstream's name
        self.value = None

    @property
    def trainable(self) -> bool:
        """Whether optimizers update it: ``requires_grad`` and a float dtype.

        >>> tf.Parameter([2], tf.float32, requires_grad=False).trainable
        False
        """
        return self.requires_grad and self.dtype.is_float

    @property
    def static_shape(self) -> tuple | None:
        """The declared shape when every dim is a known int, else None.

        >>> tf.Parameter([2, 3]).static_shape, tf.Parameter([2, -1]).static_shape
        ((2, 3), None)
        """
        if all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in self.shape):
            return tuple(self.shape)
        return None

    def initial_value(self, rng: np.random.Generator) -> np.ndarray:
        """Random starting values (see the class docstring); needs a static shape.

        >>> values = tf.Parameter([200, 300], tf.float32).initial_value(np.random.default_rng(0))
        >>> values.shape, values.dtype, bool(abs(values.std() - np.sqrt(2 / 500)) < 1e-3)   # Xavier
        ((200, 300), dtype('float32'), True)
        """
        shape = self.static_shape
        if not self.dtype.is_float:
            return np.full(shape, self.random_offset, self.dtype.numpy)
        scale = self.random_scale
        if scale is None or scale < 0:
            fans = (shape[0] + shape[1]) * math.prod(shape[2:]) if len(shape) >= 2 else (shape[0] if shape else 2)
            scale = math.sqrt(2.0 / max(fans, 1))
        values = rng.standard_normal(shape) if rng is not None else np.random.randn(*shape)
        return (values * scale + self.random_offset).astype(np.float32)

    def assign(self, value: object, name: str) -> None:
        """Set the value, checking it against the declaration (numpy arrays and other DLPack
        producers, a torch or jax tensor, are uploaded as a program's input is: converted only
        where every value stays the same).

        >>> p = tf.Parameter([2, -1], tf.float32)
        >>> p.assign(np.ones((2, 5), np.float32), "W")
        >>> p.value.shape
        (2, 5)
        """
        if is_dlpack_producer(value):
            value = dlpack_array(value, f"parameter '{name}'")
        if isinstance(value, np.ndarray):
            value = tensor(as_array(value, self.dtype, f"parameter '{name}'"), self.dtype)
        if value is None:
            self.value = None
            return
        if not isinstance(value, (Tensor, TensorMemory)):
            raise TensorFrostError(f"parameter '{name}': expected a tensor (tf.Tensor inside a program, "
                                   f"tf.tensor or a numpy array outside), got {type(value).__name__}")
        if value.dtype is not self.dtype:
            raise TensorFrostError(f"parameter '{name}': declared dtype {self.dtype.name}, got {value.dtype.name}")
        if value.ndim != len(self.shape):
            raise ShapeError(f"parameter '{name}': declared shape {self.shape} (rank {len(self.shape)}), got "
                             f"a tensor of rank {value.ndim}")
        problem = self.shape_problem(value.shape, name) if isinstance(value, TensorMemory) else None
        if problem is not None:
            raise ShapeError(problem)
        self.value = value

    def shape_problem(self, shape: tuple, name: str) -> str | None:
        """Why a tensor of ``shape`` cannot be the value of this parameter (called ``name``), or None.

        >>> p = tf.Parameter([2, -1], tf.float32)
        >>> p.shape_problem((2, 7), "W") is None
        True
        >>> p.shape_problem((3, 7), "W")
        "parameter 'W': declared shape [2, -1], got a tensor of shape [3, 7] (shape[0] differs)"
        """
        if len(shape) != len(self.shape):
            return (f"parameter '{name}': declared shape {self.shape} (rank {len(self.shape)}), got a tensor of "
                    f"rank {len(shape)}")
        for axis, (want, have) in enumerate(zip(self.shape, shape)):
            if isinstance(want, int) and want >= 0 and want != have:
                return (f"parameter '{name}': declared shape {self.shape}, got a tensor of shape {list(shape)} "
                        f"(shape[{axis}] differs)")
        return None

    def __repr__(self) -> str:
        grad = "" if self.requires_grad else ", requires_grad=False"
        return f"tf.Parameter({self.shape}, {self.dtype!r}{grad})"


class ParameterArray:
    """A list of parameters indexed by int, all passed to programs (in index order)::

        self.layers = tf.ParameterArray()
        for k in range(3):
            self.layers[k] = tf.Parameter([-1, -1], tf.float32)
        ...
        x = x @ self.layers[0]          # the value, as for a Parameter attribute
        self.layers[0] = new_tensor      # replace the value

    ``append(parameter)`` adds at the next index; ``len`` and iteration (over values) work.

    >>> m = tf.Module()
    >>> m.layers = tf.ParameterArray()
    >>> for k in range(3):
    ...     m.layers[k] = tf.Parameter([2], tf.float32, random_scale=0.0, random_offset=k)
    >>> m.initialize_parameters()
    >>> [layer.tolist() for layer in m.layers]
    [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]
    >>> [name for name, _ in m.named_parameters()]
    ['layers[0]', 'layers[1]', 'layers[2]']
    """

    def __init__(self):
        self._items: dict[int, Parameter] = {}
        self._name = ""  # the attribute it is registered under, for messages

    def __setitem__(self, index: int, value) -> None:
        index = _array_index(index)
        if isinstance(value, Parameter):
            self._items[index] = value
            self._items = dict(sorted(self._items.items()))
            STRUCTURE[0] += 1
        elif index in self._items:
            self._items[index].assign(value, f"{self._name}[{index}]")
        else:
            raise TensorFrostError(f"ParameterArray has no parameter at index {index}; assign a tf.Parameter "
                                   "there first")

    def __getitem__(self, index: int):
        index = _array_index(index)
        if index not in self._items:
            raise IndexError(f"ParameterArray has no parameter at index {index}")
        param = self._items[index]
        return param if param.value is None else param.value

    def append(self, parameter: Parameter) -> None:
        """Add ``parameter`` after the highest index.

        >>> array = tf.ParameterArray()
        >>> array.append(tf.Parameter([4], tf.float32))
        >>> array.append(tf.Parameter([8], tf.float32))
        >>> len(array), array.items()[1]
        (2, (1, tf.Parameter([8], tf.float32)))
        """
        self[max(self._items, default=-1) + 1] = parameter

    def items(self) -> list:
        """``(index, Parameter)`` pairs in index order.

        >>> array = tf.ParameterArray()
        >>> array[2] = tf.Parameter([4], tf.float32)
        >>> array[0] = tf.Parameter([3], tf.float32)
        >>> array.items()
        [(0, tf.Parameter([3], tf.float32)), (2, tf.Parameter([4], tf.float32))]
        """
        return list(self._items.items())

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self):
        return iter([self[i] for i in self._items])

    def __repr__(self) -> str:
        return f"tf.ParameterArray({dict(self._items)})"


def fill_parameters(named, seed, overwrite: bool) -> None:
    """Give each parameter of ``named`` (``(name, Parameter)`` pairs) with a static shape
    new random values (all of them, or with ``overwrite=False`` those without a value)."""
    rng = seed if isinstance(seed, np.random.Generator) else (
        np.random.default_rng(seed) if seed is not None else None)
    for _, param in named:
        if param.static_shape is not None and (overwrite or param.value is None):
            param.value = tensor(param.initial_value(rng), param.dtype)


def _array_index(index) -> int:
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or index < 0:
        raise TensorFrostError(f"ParameterArray indices are non-negative Python ints, got {index!r}")
    return int(index)
