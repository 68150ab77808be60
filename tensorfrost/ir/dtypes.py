"""Data types of tensor values and the promotion rules between them.

Every element is a 32-bit word: float32, int32, uint32, or bool (stored as a 32-bit 0/1).
Python scalars are *weak*: ``x * 2`` keeps the dtype of the tensor ``x``, except that a
Python float meeting an integer tensor gives float32 (as numpy would give a float).
"""

from __future__ import annotations

import enum

import numpy as np

from .errors import DTypeError


class TFType(enum.Enum):
    """Upstream's element kinds (``tf.TFType.float`` ...); ``dtype.type`` gives a dtype's."""

    float = "f"  # noqa: A003
    int = "i"  # noqa: A003
    uint = "u"
    bool = "b"  # noqa: A003


class DType:
    """One element type. ``tf.float32``, ``tf.int32``, ``tf.uint32``, ``tf.bool1``."""

    __slots__ = ("name", "kind", "numpy", "storage", "rank")

    def __init__(self, name: str, kind: str, numpy_type, storage_type, rank: int):
        self.name = name
        self.kind = kind  # 'f', 'i', 'u' or 'b'
        self.numpy = np.dtype(numpy_type)  # dtype of values in numpy
        self.storage = np.dtype(storage_type)  # dtype of the 32-bit words in a buffer
        self.rank = rank  # position in the promotion order

    @property
    def type(self) -> TFType:  # noqa: A003 (upstream's name)
        """The kind of element, as upstream's ``TFType``."""
        return TFType(self.kind)

    @property
    def size(self) -> int:
        """Bits per element (upstream's ``TFDataFormat.size``): 32 for every dtype."""
        return 32

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    @property
    def is_integer(self) -> bool:
        return self.kind in "iu"

    @property
    def is_bool(self) -> bool:
        return self.kind == "b"

    def __repr__(self) -> str:
        return f"tf.{self.name}"

    def __reduce__(self):
        return (dtype_of, (self.name,))


bool1 = DType("bool1", "b", np.bool_, np.uint32, 0)
int32 = DType("int32", "i", np.int32, np.int32, 1)
uint32 = DType("uint32", "u", np.uint32, np.uint32, 2)
float32 = DType("float32", "f", np.float32, np.float32, 3)

ALL = (float32, int32, uint32, bool1)
_BY_NAME = {d.name: d for d in ALL}
_BY_NAME.update({"bool": bool1, "float": float32, "int": int32, "uint": uint32})
_BY_NUMPY = {np.dtype(np.float32): float32, np.dtype(np.int32): int32,
             np.dtype(np.uint32): uint32, np.dtype(np.bool_): bool1}


def dtype_of(spec) -> DType:
    """Normalize a dtype given as a DType, a name, a Python type or a numpy dtype."""
    if isinstance(spec, DType):
        return spec
    if isinstance(spec, str) and spec in _BY_NAME:
        return _BY_NAME[spec]
    if spec is float:
        return float32
    if spec is int:
        return int32
    if spec is bool:
        return bool1
    try:
        found = _BY_NUMPY.get(np.dtype(spec))
    except TypeError:
        found = None
    if found is None:
        raise DTypeError(f"dtype: expected one of tf.float32, tf.int32, tf.uint32, tf.bool1, got {spec!r}")
    return found


def numpy_to_dtype(array_dtype) -> DType:
    """The tensorfrost dtype that stores a numpy array of this dtype without loss of meaning."""
    dt = np.dtype(array_dtype)
    if dt in _BY_NUMPY:
        return _BY_NUMPY[dt]
    if dt.kind == "f":
        return float32
    if dt.kind == "i":
        return int32
    if dt.kind == "u":
        return uint32
    if dt.kind == "b":
        return bool1
    raise DTypeError(f"array dtype: expected a float, int, uint or bool array, got {dt}")


def scalar_dtype(value) -> DType:
    """The dtype a Python scalar becomes when nothing else decides."""
    if isinstance(value, (bool, np.bool_)):
        return bool1
    if isinstance(value, (int, np.integer)):
        if isinstance(value, np.unsignedinteger):
            return uint32
        if not -2**31 <= value < 2**32:
            raise DTypeError(f"the integer constant {value} does not fit in 32 bits (int32 or uint32)")
        return int32 if value < 2**31 else uint32  # as C types 0xFFFFFFFF: unsigned
    if isinstance(value, (float, np.floating)):
        return float32
    raise DTypeError(f"expected a number, got {type(value).__name__} {value!r}")


def promote(a: DType, b: DType) -> DType:
    """The common dtype of two tensors: bool < int32 < uint32 < float32 (as in C)."""
    return a if a.rank >= b.rank else b


def promote_weak(strong: DType, weak_value) -> DType:
    """The dtype of an operation between a tensor and a Python scalar."""
    weak = scalar_dtype(weak_value)
    if weak.is_float and not strong.is_float:
        return float32
    if weak.is_integer and strong.is_bool:
        return int32
    return strong


def cast_scalar(value, dtype: DType):
    """A Python scalar converted to the given dtype as C would convert it."""
    if dtype is float32:
        return float(np.float32(value))
    if dtype is bool1:
        return bool(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise DTypeError(f"cannot convert {value} to {dtype!r}")
        value = int(value)
    info = np.iinfo(dtype.numpy)
    return int((int(value) - info.min) % (1 << 32) + info.min)
