"""Tensors that live in a backend's memory: ``tf.tensor(...)`` and program outputs."""

from __future__ import annotations

import ctypes
import math
import weakref

import numpy as np

from .backend import backend_for, current_device
from .eager import ArrayMethods
from .ir import dtypes as dt
from .ir.errors import ArgumentError, DTypeError, ShapeError
from .ir.ops import ALLOC, STORE

MAX_ELEMENTS = 2**31 - 1  # kernels index with 32-bit integers
MAX_RANK = 8  # the axes a program's argument slot holds
# Tensors over memory their DLPack producer lent read-only (np.memmap mode "r", a numpy
# array with writeable False): they share it read-only in turn.
_READ_ONLY: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # by id: == compares values


class Shape(tuple):
    """A tensor's shape: a tuple (as numpy's) that also equals the same dims as a list, as
    upstream TensorFrost's shapes (lists) do: ``t.shape == [128, 32]``."""

    __slots__ = ()

    def __eq__(self, other):
        return tuple.__eq__(self, tuple(other) if isinstance(other, list) else other)

    def __ne__(self, other):
        return not self == other

    __hash__ = tuple.__hash__


class TensorMemory(ArrayMethods):
    """A tensor stored on a device. ``.numpy`` copies it into a numpy array; outside programs
    it acts as an array too (``t + 1``, ``t[0]``, ``float(t)``, ``print(t)``: eager.py).

    Create one from an array (``tf.tensor(np.zeros((4, 4), np.float32))``) or a shape
    (``tf.tensor([4, 4], tf.float32)``, zero-filled). Compiled programs take and return
    them; passing an output to the next call copies nothing.

    >>> t = tf.tensor(np.array([[1, 2], [3, 4]], np.float32))
    >>> t.shape, t.dtype, t.ndim, t.size
    ((2, 2), tf.float32, 2, 4)
    >>> (t * 10 + 1).numpy
    array([[11., 21.],
           [31., 41.]], dtype=float32)
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
        """A numpy copy of the tensor's values.

        >>> tf.tensor([1.5, 2.5]).numpy
        array([1.5, 2.5], dtype=float32)
        """
        return self.backend.download(self)

    @property
    def ndim(self) -> int:
        """The number of axes.

        >>> tf.tensor([3, 4, 5], tf.float32).ndim
        3
        """
        return len(self.shape)

    @property
    def type(self) -> dt.DType:  # noqa: A003 (upstream's name)
        """The dtype (upstream's spelling).

        >>> tf.tensor(np.zeros(2, np.int32)).type
        tf.int32
        """
        return self.dtype

    @property
    def size(self) -> int:
        """The number of elements.

        >>> tf.tensor([3, 4], tf.float32).size
        12
        """
        return int(np.prod(self.shape, dtype=np.int64))

    def __array__(self, dtype=None, copy=None):
        array = self.numpy
        return array if dtype is None else array.astype(dtype)

    def __dlpack__(self, *, stream=None, **options):
        """Share the tensor's memory through DLPack (``np.from_dlpack(t)``, ``torch.from_dlpack(t)``,
        ``jnp.from_dlpack(t)``), every dtype. On the cpu backend the memory itself, no copy:
        writes through either side show in the other, and the memory lives while either side
        holds it. A copy where the tensor's memory is not host memory of DLPack's layout:
        tf.bool1 (stored as 32-bit words; DLPack's bool is a byte), OpenGL's GPU buffers, the
        interpreter's; ``copy=False`` then raises BufferError. tf.bfloat16 is DLPack's bfloat
        (torch and jax read it; numpy cannot, use ``.numpy``). A tensor over read-only memory
        (``tf.from_dlpack`` of a read-only array) is shared read-only: the capsule says so (numpy
        and jax honour it; torch 2.x ignores it), and a consumer that cannot be told (an older
        DLPack version) gets a BufferError from numpy instead of writable memory."""
        view, copied = _export_array(self)
        if copied and options.get("copy") is False:
            raise BufferError(f"DLPack: a {self.dtype!r} tensor on {self.backend.name} cannot be shared without a "
                              "copy (copy=False was asked for)")
        if not copied and _READ_ONLY.get(id(self)) is self:
            view.flags.writeable = False
        if self.dtype is dt.bfloat16:  # numpy exports the bits as uint16; DLPack's code says bfloat
            capsule = view.view(np.uint16).__dlpack__(stream=stream, **options)
            _set_capsule_dtype(capsule, (DL_UINT, 16, 1), DL_BFLOAT)
            return capsule
        return view.__dlpack__(stream=stream, **options)

    def __dlpack_device__(self) -> tuple:
        return (1, 0)  # DLPack's kDLCPU, device 0: what __dlpack__ exports is in host memory


def _export_array(memory: TensorMemory) -> tuple:
    """``(array, copied)``: a numpy array over the tensor's host memory (the cpu backend), or
    a copy of its values where that memory is not DLPack's layout or not on the host."""
    view = getattr(memory.backend, "host_view", None)
    if view is None:
        return memory.backend.download(memory), True
    if memory.dtype is dt.bool1:
        return view(memory) != 0, True
    return view(memory), False


# -- DLPack capsules: what numpy's own DLPack cannot do (bfloat16) ----------------------------------
# The structs of dlpack.h (v1.x). A capsule named "dltensor" holds a DLManagedTensor (its
# DLTensor first); "dltensor_versioned" a DLManagedTensorVersioned.

DL_INT, DL_UINT, DL_FLOAT, DL_BFLOAT, DL_COMPLEX, DL_BOOL = 0, 1, 2, 4, 5, 6
_DL_CODES = ["int", "uint", "float", "opaque handle", "bfloat", "complex", "bool", "float8_e3m4", "float8_e4m3",
             "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
             "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                ("ndim", ctypes.c_int32), ("dtype", _DLDataType), ("shape", ctypes.c_void_p),
                ("strides", ctypes.c_void_p), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64), ("dl_tensor", _DLTensor)]


_capsule_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_is_valid.restype, _capsule_is_valid.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype, _capsule_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]


def _capsule_dtype(capsule) -> _DLDataType | None:
    """The dtype field (writable, in the capsule's own struct) of an unconsumed DLPack capsule
    of DLPack 0.x or 1.x, or None for anything else (a consumed capsule, another major version)."""
    if _capsule_is_valid(capsule, b"dltensor"):
        return _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor")).dtype
    if _capsule_is_valid(capsule, b"dltensor_versioned"):
        managed = _DLManagedTensorVersioned.from_address(_capsule_pointer(capsule, b"dltensor_versioned"))
        return managed.dl_tensor.dtype if managed.major == 1 else None
    return None


def _set_capsule_dtype(capsule, expected: tuple, code: int) -> None:
    found = _capsule_dtype(capsule)
    if found is None or (found.code, found.bits, found.lanes) != expected:
        raise BufferError(f"DLPack: numpy exported an unexpected capsule ({_describe(found)}, expected "
                          f"{_describe(expected)})")
    found.code = code


def _describe(dtype) -> str:
    if dtype is None:
        return "no DLPack 1.x tensor"
    code, bits, lanes = (dtype.code, dtype.bits, dtype.lanes) if isinstance(dtype, _DLDataType) else dtype
    name = _DL_CODES[code] if code < len(_DL_CODES) else f"type code {code}"
    name = f"{name}{bits}" if code in (DL_INT, DL_UINT, DL_FLOAT, DL_BFLOAT, DL_COMPLEX, DL_BOOL) else \
        f"{name} ({bits} bits)"
    return name + (f" x{lanes} lanes" if lanes != 1 else "")


class _DlpackReader:
    """A producer's DLPack export as numpy can read it: numpy's ``from_dlpack`` negotiates with
    the producer through this object, which passes every call on and turns a bfloat16 capsule
    (DLPack code 4, which numpy cannot read) into the same bits as uint16; ``bfloat16`` says
    whether it did, ``dtype`` what the last capsule held."""

    def __init__(self, producer):
        self.producer = producer
        self.bfloat16 = False
        self.dtype = None

    def __dlpack__(self, **options):
        capsule = self.producer.__dlpack__(**options)
        found = _capsule_dtype(capsule)
        if found is not None:
            self.dtype = (found.code, found.bits, found.lanes)
            self.bfloat16 = self.dtype == (DL_BFLOAT, 16, 1)
            if self.bfloat16:
                found.code = DL_UINT
        return capsule

    def __dlpack_device__(self):
        return self.producer.__dlpack_device__()


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
    if array.dtype == object or (array.dtype.kind not in "fiub" and array.dtype != dt.bfloat16.numpy):
        raise ArgumentError(f"{what}: expected a numeric array, got a {type(value).__name__} (as a numpy array: "
                            f"dtype {array.dtype})")
    # Before any pass over the values: a broadcast view can be huge without using memory.
    if array.ndim > MAX_RANK:
        raise ArgumentError(f"{what}: a tensor has at most {MAX_RANK} axes, got an array of {array.ndim} "
                            f"(shape {array.shape})")
    if array.size > MAX_ELEMENTS:
        raise ArgumentError(f"{what}: {array.size} elements is more than the {MAX_ELEMENTS} a tensor can hold")
    return array


def as_array(value, dtype: dt.DType | None = None, what: str = "value", explicit: bool = False) -> np.ndarray:
    """A C-contiguous numpy array of a tensorfrost dtype. A numpy array keeps its dtype; lists
    and Python numbers (weak, as in expressions) become float32, int32 or bool unless their
    values need more. Converting to ``dtype`` never changes a value silently: ints must fit,
    and a float narrowed to fewer bits (or an int made a float) must keep every value, else
    it is an ArgumentError naming the element. ``explicit`` (``tf.tensor(array, dtype)``, a
    conversion the user asked for) lets floats round to a narrower float, as ``astype`` does."""
    array = _numpy_array(value, what)
    source = _source_dtype(array, what)
    weak = not isinstance(value, np.ndarray)  # (lists and Python numbers)
    explicit = explicit or weak
    if dtype is None:
        dtype = _weak_dtype(source) if weak else source
    problem = conversion_problem(array.dtype, dtype, what)
    if problem is not None:
        raise ArgumentError(problem)
    with np.errstate(all="ignore"):  # (ascontiguousarray alone would make a 0-d array 1-d)
        result = np.ascontiguousarray(array, dtype=dtype.numpy).reshape(array.shape)
    if result.dtype != array.dtype and array.size:
        _check_values_kept(array, result, source, dtype, what, explicit)
    return result


def _source_dtype(array: np.ndarray, what: str) -> dt.DType:
    try:
        return dt.numpy_to_dtype(array.dtype)
    except DTypeError:
        raise ArgumentError(f"{what}: expected an array of one of the dtypes "
                            f"{', '.join(d.numpy.name for d in dt.ALL)}, got a {array.dtype} array") from None


def _weak_dtype(source: dt.DType) -> dt.DType:
    """The dtype of a list's values: the default float32 and int32 (as a Python number's)."""
    return {"f": dt.float32, "i": dt.int32, "u": dt.uint32}.get(source.kind, source)


def _check_values_kept(array, result, source: dt.DType, target: dt.DType, what: str, explicit: bool) -> None:
    if target.is_bool or source.is_bool:
        return
    if target.is_integer:  # from a wider int: every value must fit
        if (source.kind == target.kind and source.bits <= target.bits) or \
                (source.kind == "u" and target.kind == "i" and source.bits < target.bits):
            return
        info = np.iinfo(target.numpy)
        outside = (array < info.min) | (array > info.max)
        if outside.any():
            bad = np.flatnonzero(outside)[0]
            raise ArgumentError(f"{what}: values do not fit in {target!r} (element {_index(array, bad)} is "
                                f"{int(array.flat[bad])}; the range is {info.min} to {info.max})")
        return
    if source.is_integer:  # to a float: an int that became inf, or rounded past the int's range, is not kept
        wide = result.astype(np.float64)  # (exact; these are whole numbers)
        limit = 2.0 ** (source.bits - (source.kind == "i"))
        inside = np.isfinite(wide) & (wide < limit) & (wide >= (-limit if source.kind == "i" else 0.0))
        same = inside & (np.where(inside, wide, 0.0).astype(array.dtype) == array)
    else:
        with np.errstate(all="ignore"):
            back = result.astype(array.dtype)
        same = (back == array) | np.isnan(array)
    if source.is_float and explicit:  # rounding was asked for; a finite value must stay finite
        same = same | ~np.isinf(result) | np.isinf(array)
    if not same.all():
        bad = np.flatnonzero(~same)[0]
        value = array.flat[bad].item()
        if source.is_float and explicit:
            raise ArgumentError(f"{what}: element {_index(array, bad)} is {value!r}, outside the {target!r} range "
                                f"(largest magnitude {float(np.finfo(target.numpy).max)!r}); inf and nan are allowed")
        raise ArgumentError(f"{what}: expected {target!r} values, got a {array.dtype} array whose element "
                            f"{_index(array, bad)} ({value!r}) {target!r} cannot hold exactly (it would become "
                            f"{result.flat[bad].item()!r}); convert it yourself (.astype) if rounding is meant")


def conversion_problem(array_dtype: np.dtype, target: dt.DType, what: str) -> str | None:
    """Why ``as_array`` does not convert values of the numeric numpy dtype ``array_dtype``
    to ``target`` (a float to an int would lose meaning), or None."""
    source = dt.numpy_to_dtype(array_dtype)
    if source.kind == target.kind or (source.kind in "iub" and target.kind != "b"):
        return None  # (ints and bools become floats or other ints; their values are checked)
    return f"{what}: expected {target!r} values, got a {array_dtype} array (convert it explicitly with .astype)"


def _index(array: np.ndarray, flat: int):
    """The index of element ``flat`` of ``array``, as a user would write it."""
    index = np.unravel_index(flat, array.shape) if array.ndim else ()
    return [int(i) for i in index]


def allocated_memory() -> int:
    """Bytes of device memory the current backend holds for tensors, including buffers it
    keeps for reuse (upstream's name); 0 for backends that hold none of their own.

    >>> t = tf.tensor([1024], tf.float32)     # 4 KiB
    >>> tf.allocated_memory() >= 4096
    True
    """
    usage = getattr(backend_for(current_device()), "memory_usage", None)
    return usage()[0] if usage is not None else 0


def unused_allocated_memory() -> int:
    """The part of ``allocated_memory()`` kept for reuse and not holding a tensor.

    >>> 0 <= tf.unused_allocated_memory() <= tf.allocated_memory()
    True
    """
    usage = getattr(backend_for(current_device()), "memory_usage", None)
    return usage()[1] if usage is not None else 0


def from_dlpack(value: object) -> TensorMemory:
    """A tensor over the memory of any DLPack producer (a numpy array, a torch or jax CPU
    tensor), of any dtype tensorfrost has (bfloat16 included), without a copy where the layout
    fits the current backend: the cpu backend, C-contiguous values aligned to their size.
    Otherwise (tf.bool1, whose elements are 32-bit words; strides, empty, OpenGL, the
    interpreter) the values are copied, as ``tf.tensor`` would. A shared tensor keeps the
    producer's memory alive; programs never write their inputs, and writes through the
    producer show in the tensor. Read-only memory (a read-only numpy array,
    ``np.memmap(mode="r")``, a jax array) stays read-only: the tensor's own DLPack export is
    read-only too.

    >>> values = np.arange(4, dtype=np.float32)
    >>> t = tf.from_dlpack(values)            # the array's memory itself on tf.cpu
    >>> values[0] = 7.0
    >>> t.tolist()
    [7.0, 1.0, 2.0, 3.0]
    >>> np.from_dlpack(t * 2)                 # and back, without a copy
    array([14.,  2.,  4.,  6.], dtype=float32)
    """
    backend = backend_for(current_device())
    # (a numpy array is its own memory: numpy cannot export bfloat16 or a swapped byte order)
    array = value if isinstance(value, np.ndarray) else dlpack_array(value, "tf.from_dlpack")
    share = getattr(backend, "share", None)
    dtype = _dtype_or_none(array.dtype)
    if share is not None and dtype is not None and dtype is not dt.bool1 and array.dtype == dtype.storage \
            and 0 < array.size <= MAX_ELEMENTS and array.flags.c_contiguous and array.ndim <= MAX_RANK \
            and array.ctypes.data % dtype.itemsize == 0:
        shared = share(array, dtype)
        if not array.flags.writeable:
            _READ_ONLY[id(shared)] = shared
        return shared
    array = as_array(array, None, "tf.from_dlpack")
    return backend.upload(array, dt.numpy_to_dtype(array.dtype))


def _dtype_or_none(array_dtype: np.dtype) -> dt.DType | None:
    try:
        return dt.numpy_to_dtype(array_dtype)
    except DTypeError:
        return None


def is_dlpack_producer(value) -> bool:
    """Whether ``value`` is read through DLPack (a torch or jax tensor): it has ``__dlpack__``
    and is neither a numpy array nor a tensorfrost tensor."""
    return hasattr(value, "__dlpack__") and not isinstance(value, (np.ndarray, np.generic, TensorMemory))


def dlpack_array(value, what: str) -> np.ndarray:
    """A numpy array over the memory of the DLPack producer ``value`` (bfloat16 as
    ml_dtypes.bfloat16, which numpy's own DLPack cannot read); an ArgumentError (named
    ``what``) when it cannot export it (torch's tensors that require grad, a GPU tensor) or
    exports a dtype numpy cannot hold (float8)."""
    reader = _DlpackReader(value)
    try:
        array = np.from_dlpack(reader)
    except (AttributeError, TypeError, ValueError, RuntimeError, BufferError) as error:
        if reader.dtype is not None and not _readable(reader.dtype):
            raise _dtype_error(what, value, f"DLPack dtype {_describe(reader.dtype)}") from None
        raise ArgumentError(f"{what}: expected a DLPack producer in CPU memory, got a {type(value).__name__} "
                            f"({error})") from None
    if reader.bfloat16:
        return array.view(dt.bfloat16.numpy)
    if _dtype_or_none(array.dtype) is None:  # (complex)
        raise _dtype_error(what, value, f"dtype {array.dtype}")
    return array


def _dtype_error(what: str, value, dtype: str) -> ArgumentError:
    return ArgumentError(f"{what}: expected a tensor of one of the dtypes {', '.join(d.name for d in dt.ALL)}, "
                         f"got a {type(value).__name__} of {dtype}")


def _readable(dtype: tuple) -> bool:
    """Whether numpy reads DLPack's ``(code, bits, lanes)`` (after bfloat16 became uint16)."""
    code, bits, lanes = dtype
    sizes = {DL_INT: (8, 16, 32, 64), DL_UINT: (8, 16, 32, 64), DL_FLOAT: (16, 32, 64), DL_BFLOAT: (16,),
             DL_COMPLEX: (64, 128), DL_BOOL: (8,)}
    return lanes == 1 and bits in sizes.get(code, ())


def tensor(value: object, dtype: dt.DType | str | type | None = None) -> TensorMemory:
    """A tensor in the current backend's memory, from a numpy array (or nested lists), or
    zero-filled from a shape::

        A = tf.tensor(np.random.rand(100, 100).astype(np.float32))
        B = tf.tensor([100, 100], tf.float32)

    A numpy array keeps its dtype (any tensorfrost has: ``t.numpy`` gives it back, bfloat16 as
    ml_dtypes.bfloat16; others are an ArgumentError); lists take float32, int32 or bool. It is
    copied (later writes to it do not change the tensor). Another DLPack producer (a torch or
    jax tensor) is shared without a copy where the layout fits, as ``tf.from_dlpack`` does;
    with a ``dtype`` that differs from its own it is converted (``as_array``, explicit).

    >>> t = tf.tensor(np.arange(3, dtype=np.float32))
    >>> t + 1
    tf.tensor([1., 2., 3.], dtype=tf.float32, shape=[3], backend=cpu)
    >>> tf.tensor([2, 3], tf.int32).numpy      # a shape and a dtype: zeros
    array([[0, 0, 0],
           [0, 0, 0]], dtype=int32)
    >>> tf.tensor([[1, 2], [3, 4]]).dtype      # nested lists of ints: int32
    tf.int32
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
    array = as_array(value, dt.dtype_of(dtype) if dtype is not None else None, "tf.tensor", explicit=True)
    return backend.upload(array, dt.numpy_to_dtype(array.dtype))
