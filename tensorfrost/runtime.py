"""Tensors that live in a backend's memory: ``tf.tensor(...)`` and program outputs."""

from __future__ import annotations

import numpy as np

from .backend import current_device
from .ir import dtypes as dt
from .ir.errors import ArgumentError, TensorFrostError

MAX_ELEMENTS = 2**31 - 1  # kernels index with 32-bit integers


class TensorMemory:
    """A tensor stored on a device. ``.numpy`` copies it into a numpy array.

    Create one from an array (``tf.tensor(np.zeros((4, 4), np.float32))``) or a shape
    (``tf.tensor([4, 4], tf.float32)``, zero-filled). Compiled programs take and return
    them; passing an output to the next call copies nothing.
    """

    __slots__ = ("shape", "dtype", "storage", "backend", "__weakref__")

    def __init__(self, shape: tuple, dtype: dt.DType, storage, backend):
        self.shape = shape if type(shape) is tuple else tuple(int(s) for s in shape)
        self.dtype = dtype
        self.storage = storage
        self.backend = backend

    @property
    def numpy(self) -> np.ndarray:
        """A numpy copy of the tensor's values."""
        return self.backend.download(self)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __array__(self, dtype=None, copy=None):
        array = self.numpy
        return array if dtype is None else array.astype(dtype)

    def __repr__(self) -> str:
        return f"<tf.TensorMemory {self.dtype.name}{list(self.shape)} on {self.backend.name}>"

    def __bool__(self):
        raise TensorFrostError("the truth value of a TensorMemory is ambiguous; use .numpy")


def as_array(value, dtype: dt.DType | None = None, what: str = "value") -> np.ndarray:
    """A C-contiguous numpy array of a tensorfrost dtype, converting only where meaning is kept:
    wider floats and ints narrow to 32 bits (ints must fit), ints may become floats."""
    array = np.asarray(value)
    if array.dtype == object or array.dtype.kind not in "fiub":
        raise ArgumentError(f"{what}: expected a numeric array, got dtype {array.dtype}")
    source = dt.numpy_to_dtype(array.dtype)
    target = dtype or source
    if source is not target:
        allowed = (source.kind == target.kind or (target.is_float and source.kind in "iub")
                   or (target.is_integer and source.kind in "iub"))
        if not allowed:
            raise ArgumentError(f"{what}: expected {target!r} values, got a {array.dtype} array "
                                f"(convert it explicitly with .astype)")
    if array.dtype.kind in "iu" and array.dtype.itemsize > 4 and array.size:
        info = np.iinfo(target.numpy) if target.is_integer else None
        if info is not None and (array.min() < info.min or array.max() > info.max):
            raise ArgumentError(f"{what}: values do not fit in {target!r}")
    if array.size > MAX_ELEMENTS:
        raise ArgumentError(f"{what}: {array.size} elements is more than the {MAX_ELEMENTS} a tensor can hold")
    # (ascontiguousarray alone would make a 0-d array 1-d)
    return np.ascontiguousarray(array, dtype=target.numpy).reshape(array.shape)


def tensor(value, dtype=None) -> TensorMemory:
    """A tensor in the current backend's memory, from a numpy array (or nested lists), or
    zero-filled from a shape::

        A = tf.tensor(np.random.rand(100, 100).astype(np.float32))
        B = tf.tensor([100, 100], tf.float32)
    """
    from .program import backend_for

    backend = backend_for(current_device())
    if isinstance(value, TensorMemory):
        return backend.upload(value.numpy, value.dtype)
    if isinstance(value, (list, tuple)) and dtype is not None and all(isinstance(v, int) for v in value):
        target = dt.dtype_of(dtype)
        return backend.upload(np.zeros(value, dtype=target.numpy), target)
    array = as_array(value, dt.dtype_of(dtype) if dtype is not None else None, "tf.tensor")
    return backend.upload(array, dt.numpy_to_dtype(array.dtype))
