"""Tensors that live in a backend's memory: ``tf.tensor(...)`` and program outputs."""

from __future__ import annotations

import math
import weakref

import numpy as np

from .backend import backend_for, current_device
from .ir import dtypes as dt
from .ir.errors import ArgumentError, ShapeError, TensorFrostError
from .ir.ops import ALLOC, STORE

MAX_ELEMENTS = 2**31 - 1  # kernels index with 32-bit integers
MAX_RANK = 8  # the axes a program's argument slot holds
# Tensors over memory their DLPack producer lent read-only (np.memmap mode "r", a numpy
# array with writeable False): they share it read-only in turn.
_READ_ONLY: weakref.WeakSet = weakref.WeakSet()


class Shape(tuple):
    """A tensor's shape: a tuple (as numpy's) that also equals the same dims as a list, as
    upstream TensorFrost's shapes (lists) do: ``t.shape == [128, 32]``."""

    __slots__ = ()

    def __eq__(self, other):
        return tuple.__eq__(self, tuple(other) if isinstance(other, list) else other)

    def __ne__(self, other):
        return not self == other

    __hash__ = tuple.__hash__


class TensorMemory:
    """A tensor stored on a device. ``.numpy`` copies it into a numpy array.

    Create one from an array (``tf.tensor(np.zeros((4, 4), np.float32))``) or a shape
    (``tf.tensor([4, 4], tf.float32)``, zero-filled). Compiled programs take and return
    them; passing an output to the next call copies nothing.
    """

    __slots__ = ("shape", "dtype", "storage", "backend", "__weakref__")

    def __init__(self, shape: tuple, dtype: dt.DType, storage, backend):
        if type(shape) is not Shape:
            shape = Shape(shape if type(shape) is tuple else (int(s) for s in shape))
        self.shape = shape
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
    def type(self) -> dt.DType:  # noqa: A003 (upstream's name)
        """The dtype (upstream's spelling)."""
        return self.dtype

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __getitem__(self, index):
        """Values read as numpy reads them (``t[0, 2]``, ``t[1:]``), a copy as ``.numpy`` is: host
        code indexes a module's parameters so (upstream's modules keep the numpy array assigned
        to a parameter, and examples/ML/VMC/camera.py indexes it back)."""
        return self.numpy[index]

    def __iter__(self):
        return iter(self.numpy)

    def __array__(self, dtype=None, copy=None):
        array = self.numpy
        return array if dtype is None else array.astype(dtype)

    def __dlpack__(self, *, stream=None, **options):
        """Share the tensor's memory through DLPack, no copy (``np.from_dlpack(t)``,
        ``torch.from_dlpack(t)``): writes through either side show in the other, and the
        memory lives while either side holds it. CPU tensors of float32, int32 or uint32 only.
        A tensor over read-only memory (``tf.from_dlpack`` of a read-only array) is shared
        read-only: numpy >= 2 gets a read-only array; a consumer that cannot be told (an
        older DLPack version) gets a BufferError from numpy instead of writable memory."""
        view = _host_view(self)
        if self in _READ_ONLY:
            view.flags.writeable = False
        return view.__dlpack__(stream=stream, **options)

    def __dlpack_device__(self) -> tuple:
        _host_view(self)
        return (1, 0)  # DLPack's kDLCPU, device 0

    def __repr__(self) -> str:
        return f"<tf.TensorMemory {self.dtype.name}{list(self.shape)} on {self.backend.name}>"

    def __bool__(self):
        raise TensorFrostError("the truth value of a TensorMemory is ambiguous; use .numpy")


def _host_view(memory: TensorMemory) -> np.ndarray:
    view = getattr(memory.backend, "host_view", None)
    if view is None:
        raise TensorFrostError(f"DLPack: a tensor on {memory.backend.name} has no host memory to share; "
                               ".numpy copies it")
    if memory.dtype is dt.bool1:
        raise TensorFrostError("DLPack: tf.bool1 tensors are stored as 32-bit words, which DLPack's bool "
                               "(one byte) cannot describe; share tf.uint(t) or copy with .numpy")
    return view(memory)


class SingleOutput(TensorMemory):
    """The output of a program that returned a one-element list: the tensor itself, as
    upstream TensorFrost returns it (``C = matmul(A, B); C.numpy``), which also acts as that
    one-element list where 0.6-era code reads it so (``C, = matmul(A, B)``, ``res[0]``)."""

    __slots__ = ()

    def __iter__(self):
        yield self

    def __getitem__(self, k):
        if k in (0, -1):
            return self
        raise IndexError(f"a program's single output stands for a one-element list; index {k!r} is out of range "
                         "(index its values with .numpy)")


MEMORY_TYPES = (TensorMemory, SingleOutput)


def shape_problem(shape) -> str | None:
    """Why no tensor can have ``shape`` (a negative size, too many axes or elements), or None.
    The generated host code of every backend checks computed shapes with the same words."""
    dims = [int(d) for d in shape]
    if len(dims) > MAX_RANK:
        return f"shape {dims} has {len(dims)} axes, more than the {MAX_RANK} a tensor can have"
    for axis, size in enumerate(dims):
        if size < 0:
            return f"shape[{axis}] is {size}, a negative size"
    if math.prod(dims) > MAX_ELEMENTS:
        return f"shape {dims} has more elements than the {MAX_ELEMENTS} a tensor can hold"
    return None


def allocation_labels(program) -> dict:
    """{alloc node: how errors name its buffer}: the name, and the user's line of the first
    value stored into it (allocations themselves carry no location)."""
    names, located = {}, {}
    for node in program.walk():
        if node.op is ALLOC:
            names[node] = f"tensor '{node.name or 'buffer'}'"
        elif ((node.op is STORE or node.op.atomic) and len(node.args) > 1
              and node.args[0] not in located and node.args[1].location is not None):
            located[node.args[0]] = node.args[1].location
    return {alloc: name + (f" (made at {located[alloc]})" if alloc in located else "") for alloc, name in names.items()}


def _numpy_array(value, what: str) -> np.ndarray:
    try:
        array = np.asarray(value)
    except (ValueError, TypeError, OverflowError) as exc:  # ragged lists, objects numpy cannot read
        raise ArgumentError(f"{what}: expected a numeric array (nested lists must be rectangular), got a "
                            f"{type(value).__name__} numpy cannot convert: {exc}") from None
    except Exception as exc:  # raised by the object's own __array__, __len__ or __getitem__
        raise ArgumentError(f"{what}: converting the {type(value).__name__} to an array raised "
                            f"{type(exc).__name__}: {exc}") from exc
    if array.dtype == object or array.dtype.kind not in "fiub":
        raise ArgumentError(f"{what}: expected a numeric array, got a {type(value).__name__} (as a numpy array: "
                            f"dtype {array.dtype})")
    # Before any pass over the values: a broadcast view can be huge without using memory.
    if array.ndim > MAX_RANK:
        raise ArgumentError(f"{what}: a tensor has at most {MAX_RANK} axes, got an array of {array.ndim} "
                            f"(shape {array.shape})")
    if array.size > MAX_ELEMENTS:
        raise ArgumentError(f"{what}: {array.size} elements is more than the {MAX_ELEMENTS} a tensor can hold")
    return array


def as_array(value, dtype: dt.DType | None = None, what: str = "value") -> np.ndarray:
    """A C-contiguous numpy array of a tensorfrost dtype, converting only where meaning is kept:
    wider floats and ints narrow to 32 bits (ints must fit, finite floats must stay finite),
    ints may become floats."""
    array = _numpy_array(value, what)
    target = dtype or dt.numpy_to_dtype(array.dtype)
    problem = conversion_problem(array.dtype, target, what)
    if problem is not None:
        raise ArgumentError(problem)
    if array.dtype.kind in "iu" and array.dtype.itemsize > 4 and array.size:
        info = np.iinfo(target.numpy) if target.is_integer else None
        if info is not None and (array.min() < info.min or array.max() > info.max):
            bad = np.flatnonzero((array < info.min) | (array > info.max))[0]
            raise ArgumentError(f"{what}: values do not fit in {target!r} (element {_index(array, bad)} is "
                                f"{int(array.flat[bad])}; the range is {info.min} to {info.max})")
    # (ascontiguousarray alone would make a 0-d array 1-d)
    with np.errstate(over="ignore"):
        result = np.ascontiguousarray(array, dtype=target.numpy).reshape(array.shape)
    if array.dtype.kind == "f" and array.dtype.itemsize > 4 and not np.isfinite(result).all():
        # inf and nan are float32 values; a finite value that became inf is not
        overflowed = np.flatnonzero(np.isinf(result) & np.isfinite(array))
        if overflowed.size:
            bad = overflowed[0]
            raise ArgumentError(f"{what}: element {_index(array, bad)} is {float(array.flat[bad])!r}, outside the "
                                f"{target!r} range (largest magnitude {float(np.finfo(np.float32).max)!r}); "
                                "inf and nan are allowed")
    return result


def conversion_problem(array_dtype: np.dtype, target: dt.DType, what: str) -> str | None:
    """Why ``as_array`` does not convert values of the numeric numpy dtype ``array_dtype``
    to ``target`` (a float to an int would lose meaning), or None."""
    source = dt.numpy_to_dtype(array_dtype)
    if source.kind == target.kind or (source.kind in "iub" and target.kind != "b"):
        return None  # (ints and bools become floats or other ints; their range is checked)
    return f"{what}: expected {target!r} values, got a {array_dtype} array (convert it explicitly with .astype)"


def _index(array: np.ndarray, flat: int):
    """The index of element ``flat`` of ``array``, as a user would write it."""
    index = np.unravel_index(flat, array.shape) if array.ndim else ()
    return [int(i) for i in index]


def allocated_memory() -> int:
    """Bytes of device memory the current backend holds for tensors, including buffers it
    keeps for reuse (upstream's name); 0 for backends that hold none of their own."""
    usage = getattr(backend_for(current_device()), "memory_usage", None)
    return usage()[0] if usage is not None else 0


def unused_allocated_memory() -> int:
    """The part of ``allocated_memory()`` kept for reuse and not holding a tensor."""
    usage = getattr(backend_for(current_device()), "memory_usage", None)
    return usage()[1] if usage is not None else 0


def from_dlpack(value) -> TensorMemory:
    """A tensor over the memory of any DLPack producer (a numpy array, a torch or jax CPU
    tensor), without a copy where the layout fits the current backend: the cpu backend,
    C-contiguous float32, int32 or uint32 values. Otherwise (other dtypes, strides, empty,
    OpenGL) the values are copied, as ``tf.tensor`` would. A shared tensor keeps the producer's
    memory alive; programs never write their inputs, and writes through the producer show in
    the tensor. Read-only memory (a read-only numpy array, ``np.memmap(mode="r")``) stays
    read-only: the tensor's own DLPack export is read-only too."""
    backend = backend_for(current_device())
    array = dlpack_array(value, "tf.from_dlpack")
    dtype = dt.numpy_to_dtype(array.dtype) if array.dtype.kind in "fiu" and array.dtype.itemsize == 4 else None
    share = getattr(backend, "share", None)
    if share is not None and dtype is not None and array.size and array.flags.c_contiguous \
            and array.ndim <= MAX_RANK and array.ctypes.data % 4 == 0:
        shared = share(array, dtype)
        if not array.flags.writeable:
            _READ_ONLY.add(shared)
        return shared
    return tensor(array)


def is_dlpack_producer(value) -> bool:
    """Whether ``value`` is read through DLPack (a torch or jax tensor): it has ``__dlpack__``
    and is neither a numpy array nor a tensorfrost tensor."""
    return hasattr(value, "__dlpack__") and not isinstance(value, (np.ndarray, np.generic, TensorMemory))


def dlpack_array(value, what: str) -> np.ndarray:
    """A numpy array over the memory of the DLPack producer ``value``; an ArgumentError (named
    ``what``) when it cannot export it (torch's tensors that require grad, a GPU tensor)."""
    try:
        return np.from_dlpack(value)
    except (AttributeError, TypeError, ValueError, RuntimeError, BufferError) as error:
        raise ArgumentError(f"{what}: expected a DLPack producer in CPU memory, got a {type(value).__name__} "
                            f"({error})") from None


def tensor(value, dtype=None) -> TensorMemory:
    """A tensor in the current backend's memory, from a numpy array (or nested lists), or
    zero-filled from a shape::

        A = tf.tensor(np.random.rand(100, 100).astype(np.float32))
        B = tf.tensor([100, 100], tf.float32)

    A numpy array or list is copied (later writes to it do not change the tensor). Another
    DLPack producer (a torch or jax tensor) is shared without a copy where the layout fits,
    as ``tf.from_dlpack`` does; with a ``dtype`` that differs from its own it is converted.
    """
    backend = backend_for(current_device())
    if is_dlpack_producer(value):
        if dtype is None:
            return from_dlpack(value)
        value = dlpack_array(value, "tf.tensor")  # (never through its __array__, which may raise anything)
    if isinstance(value, TensorMemory):
        return backend.upload(value.numpy, value.dtype)
    if (isinstance(value, (list, tuple)) and dtype is not None
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        target = dt.dtype_of(dtype)
        problem = shape_problem(value)
        if problem is not None:  # before numpy allocates anything
            hint = (" (a list of ints with a dtype is a shape; for a tensor of these values pass a numpy array)"
                    if any(v < 0 for v in value) else "")
            raise ShapeError(f"tf.tensor: {problem}{hint}")
        return backend.upload(np.zeros(value, dtype=target.numpy), target)
    array = as_array(value, dt.dtype_of(dtype) if dtype is not None else None, "tf.tensor")
    return backend.upload(array, dt.numpy_to_dtype(array.dtype))
