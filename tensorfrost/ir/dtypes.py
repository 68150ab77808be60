"""Data types of tensor values and the promotion rules between them.

Floats: float16, bfloat16, float32, float64. Integers: int8/16/32/64 and uint8/16/32/64.
Booleans: bool1 (stored as a 32-bit 0/1 word). A 16-bit float computes in float32 and is
rounded to its own dtype after every op, which gives numpy's results.

Two tensors combine by JAX's promotion lattice (``jax.numpy.promote_types``): numpy 2's
result except that integers meeting floats never widen the float (int32 + float32 is
float32, int16 + float16 is float16). Python scalars are *weak*: ``x * 2`` keeps the dtype
of the tensor ``x``, except that a Python float meeting an integer tensor gives float32.
"""

from __future__ import annotations

import enum
import functools
import importlib
import sys

import numpy as np

from .errors import DTypeError


class TFType(enum.Enum):
    """Upstream's element kinds (``tf.TFType.float`` ...); ``dtype.type`` gives a dtype's.

    >>> tf.float16.type is tf.TFType.float, tf.uint8.type
    (True, <TFType.uint: 'u'>)
    """

    float = "f"  # noqa: A003
    int = "i"  # noqa: A003
    uint = "u"
    bool = "b"  # noqa: A003


class DType:
    """One element type: ``tf.float32``, ``tf.int8``, ``tf.bfloat16``, ``tf.bool1``...

    >>> tf.int8.size, tf.int8.itemsize, tf.int8.is_integer, tf.int8.numpy
    (8, 1, True, dtype('int8'))
    >>> tf.tensor(np.arange(3, dtype=np.int8)).dtype is tf.int8
    True
    """

    __slots__ = ("name", "kind", "bits", "numpy", "storage", "_numpy_from")

    def __init__(self, name: str, kind: str, bits: int, numpy_type, storage_type=None):
        self.name = name
        self.kind = kind  # 'f', 'i', 'u' or 'b'
        self.bits = bits  # bits of one element in memory
        if isinstance(numpy_type, str):  # "module.name": imported on first use (see __getattr__)
            self._numpy_from = numpy_type
            return
        self.numpy = np.dtype(numpy_type)  # dtype of values in numpy
        self.storage = np.dtype(storage_type or numpy_type)  # dtype of a buffer's elements on the host

    def __getattr__(self, name: str):
        # Only reached while ``numpy`` and ``storage`` are unset: bfloat16's numpy type is
        # ml_dtypes', whose import takes about a second, so it waits for the first use.
        if name not in ("numpy", "storage") or not hasattr(self, "_numpy_from"):
            raise AttributeError(name)
        module, _, attribute = self._numpy_from.rpartition(".")
        self.numpy = self.storage = np.dtype(getattr(importlib.import_module(module), attribute))
        return getattr(self, name)

    @property
    def type(self) -> TFType:  # noqa: A003 (upstream's name)
        """The kind of element, as upstream's ``TFType``.

        >>> tf.int32.type
        <TFType.int: 'i'>
        """
        return TFType(self.kind)

    @property
    def size(self) -> int:
        """Bits per element in memory (upstream's ``TFDataFormat.size``).

        >>> tf.float16.size, tf.float64.size
        (16, 64)
        """
        return self.bits

    @property
    def itemsize(self) -> int:
        """Bytes per element in a buffer.

        >>> tf.bfloat16.itemsize, tf.bool1.itemsize      # (bool1 is stored in 32-bit words)
        (2, 4)
        """
        return self.storage.itemsize

    @property
    def is_float(self) -> bool:
        """Whether it is a floating-point type (bfloat16 included).

        >>> tf.bfloat16.is_float, tf.int32.is_float
        (True, False)
        """
        return self.kind == "f"

    @property
    def is_integer(self) -> bool:
        """Whether it is a signed or unsigned integer type.

        >>> tf.uint8.is_integer, tf.bool1.is_integer
        (True, False)
        """
        return self.kind in "iu"

    @property
    def is_bool(self) -> bool:
        """Whether it is ``tf.bool1``.

        >>> tf.bool1.is_bool
        True
        """
        return self.kind == "b"

    @property
    def compute(self) -> DType:
        """The dtype its values are computed in: float32 for 16-bit floats (each result is
        rounded back), itself otherwise.

        >>> tf.float16.compute, tf.int8.compute
        (tf.float32, tf.int8)
        """
        return float32 if self.is_float and self.bits == 16 else self

    def __repr__(self) -> str:
        return f"tf.{self.name}"

    def __reduce__(self):
        return (dtype_of, (self.name,))


bool1 = DType("bool1", "b", 32, np.bool_, np.uint32)
int8 = DType("int8", "i", 8, np.int8)
int16 = DType("int16", "i", 16, np.int16)
int32 = DType("int32", "i", 32, np.int32)
int64 = DType("int64", "i", 64, np.int64)
uint8 = DType("uint8", "u", 8, np.uint8)
uint16 = DType("uint16", "u", 16, np.uint16)
uint32 = DType("uint32", "u", 32, np.uint32)
uint64 = DType("uint64", "u", 64, np.uint64)
float16 = DType("float16", "f", 16, np.float16)
bfloat16 = DType("bfloat16", "f", 16, "ml_dtypes.bfloat16")
float32 = DType("float32", "f", 32, np.float32)
float64 = DType("float64", "f", 64, np.float64)

ALL = (float32, int32, uint32, bool1, float16, bfloat16, float64, int8, int16, int64, uint8, uint16, uint64)
WORD = (float32, int32, uint32, bool1)  # the dtypes whose elements are one 32-bit word
_BY_NAME = {d.name: d for d in ALL}
_BY_NAME.update({"bool": bool1, "float": float32, "int": int32, "uint": uint32, "half": float16,
                 "double": float64})
_BY_NUMPY = {d.numpy: d for d in ALL if d is not bfloat16}


def _by_numpy(dt: np.dtype) -> DType | None:
    found = _BY_NUMPY.get(dt)
    # an array can be bfloat16 only once ml_dtypes is imported (by the user, or by us)
    if found is None and dt.name == "bfloat16" and "ml_dtypes" in sys.modules and dt == bfloat16.numpy:
        return bfloat16
    return found


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
        found = _by_numpy(np.dtype(spec))
    except TypeError:
        found = None
    if found is None:
        names = ", ".join(f"tf.{d.name}" for d in ALL)
        raise DTypeError(f"dtype: expected one of {names}, got {spec!r}")
    return found


def numpy_to_dtype(array_dtype) -> DType:
    """The tensorfrost dtype of a numpy array's dtype (the same one: nothing narrows)."""
    dt = np.dtype(array_dtype)
    found = _by_numpy(dt)
    if found is None and dt.kind in "fiub":
        found = _BY_NUMPY.get(dt.newbyteorder("="))
    if found is None:
        names = ", ".join(d.numpy.name for d in ALL)
        raise DTypeError(f"array dtype: expected one of {names}, got {dt}")
    return found


def scalar_dtype(value) -> DType:
    """The dtype a Python scalar (or a numpy scalar, also weak) becomes when nothing else decides."""
    if isinstance(value, (bool, np.bool_)):
        return bool1
    if isinstance(value, (int, np.integer)):
        if -2**31 <= value < 2**32:
            return int32 if value < 2**31 else uint32  # as C types 0xFFFFFFFF: unsigned
        if -2**63 <= value < 2**64:
            return int64 if value < 2**63 else uint64
        raise DTypeError(f"the integer constant {value} does not fit in 64 bits (int64 or uint64)")
    if isinstance(value, (float, np.floating)):
        return float32
    raise DTypeError(f"expected a number, got {type(value).__name__} {value!r}")


# JAX's promotion lattice: each dtype's direct successors. "i*" and "f*" are the weak
# (Python scalar) kinds; a strong pair that meets only at "f*" (int64 + uint64) is float64,
# as numpy gives.
_LATTICE = {
    "bool1": ("i*",), "i*": ("uint8", "int8"),
    "uint8": ("uint16", "int16"), "uint16": ("uint32", "int32"), "uint32": ("uint64", "int64"), "uint64": ("f*",),
    "int8": ("int16",), "int16": ("int32",), "int32": ("int64",), "int64": ("f*",),
    "f*": ("bfloat16", "float16"), "bfloat16": ("float32",), "float16": ("float32",), "float32": ("float64",),
    "float64": (),
}


@functools.cache
def _above(name: str) -> frozenset:
    """``name`` and every dtype it promotes to."""
    return frozenset({name}).union(*[_above(up) for up in _LATTICE[name]])


@functools.cache
def _join(a: str, b: str) -> str:
    common = _above(a) & _above(b)
    least = [c for c in common if _above(c) == common]
    return least[0]


def promote(a: DType, b: DType) -> DType:
    """The common dtype of two tensors (JAX's lattice; see the module's doc)."""
    if a is b:
        return a
    joined = _join(a.name, b.name)
    return float64 if joined == "f*" else _BY_NAME[joined]


def promote_weak(strong: DType, weak_value) -> DType:
    """The dtype of an operation between a tensor and a Python scalar: the tensor's, except
    that a float meets an integer tensor as float32 and an int meets a bool tensor as int32.
    An int the tensor's dtype cannot hold is an error, as in numpy 2 (except that a 32-bit
    tensor takes any 32-bit constant, as C does: ``x ^ 0x9E3779B9`` on an int32 ``x``)."""
    weak = scalar_dtype(weak_value)
    if weak.is_float and not strong.is_float:
        return float32
    if weak.is_integer and strong.is_bool:
        return int32 if weak.bits == 32 else weak
    if weak.is_integer and strong.is_integer:
        info = np.iinfo(strong.numpy)
        if not info.min <= weak_value <= info.max and not (strong.bits == 32 and weak.bits == 32):
            raise DTypeError(f"the integer constant {weak_value} does not fit in {strong!r} ({info.min} to "
                             f"{info.max}), the dtype of the tensor it meets; convert one of them (x.astype)")
    return strong


def cast_scalar(value, dtype: DType):
    """A Python scalar converted to ``dtype`` as C would convert it: floats round to the
    dtype's precision, ints wrap to its bits."""
    if dtype.is_float:
        return float(np.asarray(float(value)).astype(dtype.numpy))
    if dtype is bool1:
        return bool(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise DTypeError(f"cannot convert {value} to {dtype!r}")
        value = int(value)
    info = np.iinfo(dtype.numpy)
    return int((int(value) - info.min) % (1 << dtype.bits) + info.min)
