"""Every dtype in and out of tensorfrost (issue 29): numpy -> tf -> numpy keeps dtype and bits;
DLPack carries every dtype to and from torch, jax and numpy (the cpu backend shares memory
where the layout fits: C-contiguous, aligned, not empty, not bool; elsewhere a copy), bfloat16
included, which numpy's own DLPack cannot read; read-only producers stay read-only;
checkpoints keep every dtype and never round a value silently; and no program input of any
numpy dtype becomes a different value without an ArgumentError (the narrowing matrix).

Values are compared bit for bit (NaNs only as NaNs), or exactly as Python numbers where the
dtype changes (Python compares ints and floats exactly)."""

import math
import re
import zipfile

import ml_dtypes
import numpy as np
import pytest
from conftest import DlpackProducer

import tensorfrost as tf
from tensorfrost.ir import dtypes as dt
from tensorfrost.runtime import dlpack_array

DTYPES = [tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int8, tf.int16, tf.int32, tf.int64,
          tf.uint8, tf.uint16, tf.uint32, tf.uint64, tf.bool1]
IDS = [d.name for d in DTYPES]
EVERY_BACKEND = pytest.mark.parametrize("backend", ["cpu", "interpreter", "opengl"], indirect=True)
BF16 = np.dtype(ml_dtypes.bfloat16)


def _values(d: dt.DType, rng, shape=(3, 7)) -> np.ndarray:
    """Random values of ``d`` with its extremes and, for floats, zeros of both signs,
    subnormals, infinities and NaNs among them."""
    count = math.prod(shape)
    if d.is_bool:
        return rng.integers(0, 2, count).astype(bool).reshape(shape)
    if d.is_integer:
        info = np.iinfo(d.numpy)
        special = [info.min, info.max, 0, 1, info.max // 3]
        drawn = rng.integers(info.min, info.max, count, dtype=d.numpy, endpoint=True)
        return np.concatenate([np.array(special, d.numpy), drawn])[:count].reshape(shape)
    info = ml_dtypes.finfo(d.numpy)
    special = [0.0, -0.0, 1.0, -float(info.max), float(info.max), float(info.smallest_normal),
               float(info.smallest_subnormal), -float(info.smallest_subnormal), np.inf, -np.inf, np.nan]
    drawn = rng.standard_normal(count) * np.exp2(rng.integers(-12, 12, count))
    with np.errstate(over="ignore"):
        return np.concatenate([np.array(special), drawn])[:count].astype(d.numpy).reshape(shape)


def _bits(array: np.ndarray) -> np.ndarray:
    """The bits of each element, NaNs all alike (their payloads may differ)."""
    array = np.array(array, order="C")
    if array.dtype == bool:
        return array.view(np.uint8)
    bits = array.view(f"u{array.dtype.itemsize}").copy()
    if array.dtype.kind == "f" or array.dtype == BF16:
        bits[np.isnan(array.astype(np.float64))] = 0
    return bits


def _assert_same(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    np.testing.assert_array_equal(_bits(got), _bits(want))
    if want.dtype.kind == "f" or want.dtype == BF16:
        np.testing.assert_array_equal(np.isnan(got.astype(np.float64)), np.isnan(want.astype(np.float64)))


# -- numpy -> tf -> numpy -------------------------------------------------------------------------


@EVERY_BACKEND
@pytest.mark.parametrize("d", DTYPES, ids=IDS)
def test_numpy_round_trip_keeps_dtype_and_bits(backend, d, rng):
    values = _values(d, rng)
    variants = {"plain": values, "strided": values[:, ::2], "transposed": values.T, "0-d": np.array(values[1, 2]),
                "empty": values[:0]}
    if d is not tf.bfloat16:  # (ml_dtypes has no big-endian bfloat16: numpy makes such an array raw V2 bytes)
        variants["big-endian"] = values.astype(values.dtype.newbyteorder(">"))
    for label, array in variants.items():
        t = tf.tensor(array)
        assert t.dtype is d, label
        assert t.shape == array.shape, label
        back = t.numpy
        assert back.dtype == d.numpy, label  # (bfloat16 as ml_dtypes.bfloat16, bool as bool)
        _assert_same(back, np.array(array, dtype=d.numpy, order="C"))
    array = values.copy()
    t = tf.tensor(array)
    array[0, 0] = array[1, 1]  # a copy: later writes to the array do not change it
    _assert_same(t.numpy, values)


@EVERY_BACKEND
def test_lists_take_the_default_dtypes_and_keep_their_values(backend):
    for values, d in [([1.5, -2], tf.float32), ([[1, 2], [3, -4]], tf.int32), ([True, False], tf.bool1),
                      ([0.1, 1 / 3], tf.float32)]:
        t = tf.tensor(values)
        assert t.dtype is d
        np.testing.assert_array_equal(t.numpy, np.array(values, d.numpy))
    with pytest.raises(tf.ArgumentError, match=r"tf.tensor: values do not fit in tf.int32 \(element \[1\] is "
                                               r"1099511627776"):
        tf.tensor([1, 2**40])
    with pytest.raises(tf.ArgumentError, match=r"tf.tensor: element \[0\] is 1e\+300, outside the tf.float32 range"):
        tf.tensor([1e300])


UNSUPPORTED = {"complex64": np.zeros(3, np.complex64), "complex128": np.zeros(3, np.complex128),
               "complex256": np.zeros(3, np.clongdouble), "float128": np.zeros(3, np.longdouble),
               "<U3": np.array(["abc"]), "|S2": np.array([b"ab"]), "datetime64[D]": np.array(["2020-01-01"], "M8[D]"),
               "timedelta64[s]": np.array([5], "m8[s]"), "object": np.array([1, None], object),
               "float8_e4m3fn": np.zeros(3, ml_dtypes.float8_e4m3fn), "|V4": np.zeros(3, "V4")}


@EVERY_BACKEND
@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_other_dtypes_are_argument_errors_that_name_the_dtype(backend, name):
    array = UNSUPPORTED[name]
    assert str(array.dtype) == name
    named = re.escape(str(array.dtype))
    with pytest.raises(tf.ArgumentError, match=rf"^tf.tensor: .*{named}"):
        tf.tensor(array)
    with pytest.raises(tf.ArgumentError, match=rf"^tf.from_dlpack: .*{named}"):
        tf.from_dlpack(array)
    prog = tf.compile(lambda: [tf.input([-1], tf.float32) * 2.0], name="doubled")
    with pytest.raises(tf.ArgumentError, match=rf"^argument 0 \('.*'\) of doubled: .*{named}"):
        prog(array)


# -- DLPack: torch, jax and numpy -----------------------------------------------------------------


def _address(t) -> int | None:
    """Where a cpu tensor's values are (None on other backends)."""
    view = getattr(t.backend, "host_view", None)
    return None if view is None else view(t).ctypes.data


def _shares(t) -> bool:
    """Whether DLPack exports ``t`` without a copy: on the cpu backend, all but bool."""
    return t.backend.name == "cpu" and t.dtype is not tf.bool1


def _torch():
    import torch  # (the test extra installs it; imported here, where a test needs it, as it is slow to load)
    return torch


def _jax():
    import jax
    import jax.numpy as jnp
    return jax, jnp


def _torch_dtype(torch, d: dt.DType):
    return {"bool1": torch.bool}.get(d.name) or getattr(torch, d.name)


def _torch_values(torch, tt) -> np.ndarray:
    """A torch tensor's values in numpy, bit for bit (numpy has no bfloat16: through its bits)."""
    if tt.dtype == torch.bfloat16:
        return tt.view(torch.int16).numpy().view(BF16)
    return tt.numpy()


def _torch_tensor(torch, array: np.ndarray):
    if array.dtype == BF16:
        return torch.from_numpy(array.view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(array.copy())


def _changed(array: np.ndarray) -> np.ndarray:
    """``array`` with its first element replaced by another value."""
    other = array.copy()
    flat = other.reshape(-1)
    flat[0] = flat[1] if _bits(flat[:1]) != _bits(flat[1:2]) else ~flat[0] if flat.dtype == bool else flat[0] + 1
    return other


@EVERY_BACKEND
@pytest.mark.parametrize("d", DTYPES, ids=IDS)
def test_dlpack_to_torch_every_dtype(backend, d, rng):
    torch = _torch()
    values = _values(d, rng)
    t = tf.tensor(values)
    tt = torch.from_dlpack(t)
    assert tt.dtype == _torch_dtype(torch, d) and tuple(tt.shape) == values.shape
    _assert_same(_torch_values(torch, tt), values)
    assert (tt.data_ptr() == _address(t)) is _shares(t)
    changed = _changed(values)
    tt.copy_(_torch_tensor(torch, changed))  # writes show on the other side exactly when the memory is shared
    _assert_same(t.numpy, changed if _shares(t) else values)
    if not _shares(t):
        with pytest.raises(BufferError, match="cannot be shared without a copy"):
            t.__dlpack__(copy=False)


@EVERY_BACKEND
@pytest.mark.parametrize("d", DTYPES, ids=IDS)
def test_dlpack_from_torch_every_dtype(backend, d, rng):
    torch = _torch()
    values = _values(d, rng)
    tt = _torch_tensor(torch, values)
    t = tf.from_dlpack(tt)
    assert t.dtype is d and t.shape == values.shape
    _assert_same(t.numpy, values)
    assert (_address(t) == tt.data_ptr()) is _shares(t)
    changed = _changed(values)
    tt.copy_(_torch_tensor(torch, changed))  # the producer's writes show in a shared tensor only
    _assert_same(t.numpy, changed if _shares(t) else values)
    # layouts the cpu backend cannot share are copied: strides, empty, misaligned
    strided = tt[:, ::2]
    copied = tf.from_dlpack(strided)
    assert _address(copied) != strided.data_ptr()
    _assert_same(copied.numpy, changed[:, ::2])
    assert tf.from_dlpack(tt[:0]).shape == (0, values.shape[1])
    if values.itemsize > 1:
        raw = np.zeros(values.nbytes + 1, np.uint8)
        misaligned = raw[1:].view(values.dtype).reshape(values.shape)
        misaligned[...] = values
        shifted = tf.from_dlpack(misaligned)
        assert _address(shifted) != misaligned.ctypes.data
        _assert_same(shifted.numpy, values)
    # as a program input, any dtype may widen exactly (bfloat16 to float32 here)
    if d.is_float:
        doubled = tf.compile(lambda: [tf.input([-1, -1], tf.float64) * 2.0])(tt)
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal(doubled.numpy, _torch_values(torch, tt).astype(np.float64) * 2.0)


@EVERY_BACKEND
@pytest.mark.parametrize("d", DTYPES, ids=IDS)
def test_dlpack_with_jax_every_dtype(backend, d, rng):
    jax, jnp = _jax()
    values = _values(d, rng)
    with jax.enable_x64(True):  # (without it, jax narrows 64-bit values to 32 bits itself)
        for read in (jnp.from_dlpack, jax.dlpack.from_dlpack):
            t = tf.tensor(values)
            j = read(t)
            assert j.dtype == values.dtype and j.shape == values.shape
            _assert_same(np.asarray(j), values)
            assert (j.unsafe_buffer_pointer() == _address(t)) is _shares(t)
        j = jnp.asarray(values)
        t = tf.from_dlpack(j)
        assert t.dtype is d
        _assert_same(t.numpy, values)
        assert (_address(t) == j.unsafe_buffer_pointer()) is _shares(t)
        if _shares(t):  # jax's arrays are immutable: the tensor over one is read-only
            assert not dlpack_array(t, "t").flags.writeable


@EVERY_BACKEND
@pytest.mark.parametrize("d", DTYPES, ids=IDS)
def test_dlpack_with_numpy_every_dtype(backend, d, rng):
    values = _values(d, rng)
    if d is not tf.bfloat16:  # (numpy's from_dlpack cannot read bfloat16: t.numpy copies it)
        t = tf.tensor(values)
        view = np.from_dlpack(t)
        _assert_same(view, values)
        assert (view.ctypes.data == _address(t)) is _shares(t)
        source = values.copy()
        shared = tf.from_dlpack(DlpackProducer(source))  # a producer that is not an ndarray
        assert (_address(shared) == source.ctypes.data) is _shares(shared)
        _assert_same(shared.numpy, values)
    source = values.copy()
    shared = tf.from_dlpack(source)  # an ndarray is its own memory, bfloat16 included
    assert shared.dtype is d and (_address(shared) == source.ctypes.data) is _shares(shared)
    source[...] = _changed(values)
    _assert_same(shared.numpy, source if _shares(shared) else values)
    view = dlpack_array(shared, "shared")  # tensorfrost's own reading of its export
    _assert_same(view, shared.numpy)
    assert view.flags.writeable


def test_dlpack_dtypes_tensorfrost_has_not_are_argument_errors():
    torch = _torch()
    prog = tf.compile(lambda: [tf.input([-1], tf.float32) * 2.0], name="doubled")
    for tt, named in [(torch.zeros(3, dtype=torch.float8_e4m3fn), r"DLPack dtype float8_e4m3fn \(8 bits\)"),
                      (torch.zeros(3, dtype=torch.complex64), "dtype complex64")]:
        for call, what in [(tf.from_dlpack, "tf.from_dlpack"), (lambda v: tf.tensor(v, tf.float32), "tf.tensor"),
                           (prog, r"argument 0 \('input0'\) of doubled")]:
            with pytest.raises(tf.ArgumentError, match=rf"^{what}: expected a tensor of one of the dtypes float32, "
                                                       rf".*, got a Tensor of {named}$"):
                call(tt)


# -- bool ------------------------------------------------------------------------------------------


@EVERY_BACKEND
def test_bools_are_copied_through_dlpack_and_compute_as_bools(backend, rng):
    torch = _torch()
    mask = rng.integers(0, 2, 40).astype(bool)
    prog = tf.compile(lambda: [tf.select(tf.input([-1], tf.bool1), 3, -1)])
    for source in (mask, torch.from_numpy(mask.copy()), DlpackProducer(mask)):
        t = tf.from_dlpack(source)
        assert t.dtype is tf.bool1
        np.testing.assert_array_equal(t.numpy, mask)
        np.testing.assert_array_equal(prog(t).numpy, np.where(mask, 3, -1))
        np.testing.assert_array_equal(prog(source).numpy, np.where(mask, 3, -1))
    t = tf.tensor(mask)
    exported = torch.from_dlpack(t)
    assert exported.dtype == torch.bool
    np.testing.assert_array_equal(exported.numpy(), mask)
    exported[:] = ~exported  # a copy: the tensor keeps its values
    np.testing.assert_array_equal(t.numpy, mask)
    np.testing.assert_array_equal(np.from_dlpack(t), mask)
    if backend is tf.cpu:  # the words behind a bool tensor are 0 and 1 (any other word would be true too)
        np.testing.assert_array_equal(t.backend.host_view(t), mask.astype(np.uint32))


# -- read-only producers ---------------------------------------------------------------------------


@EVERY_BACKEND
@pytest.mark.parametrize("d", [tf.bfloat16, tf.float16, tf.int64, tf.uint8], ids=lambda d: d.name)
def test_read_only_memory_stays_read_only_for_every_dtype(backend, d, rng, tmp_path):
    values = _values(d, rng, (64,))
    frozen = values.copy()
    frozen.flags.writeable = False
    path = tmp_path / "values.bin"
    values.tofile(path)
    mapped = np.memmap(path, dtype=values.dtype, mode="r")  # a write through it would be a segfault
    for source in (frozen, mapped):
        shared = tf.from_dlpack(source)
        assert (_address(shared) == source.ctypes.data) is _shares(shared)
        _assert_same(shared.numpy, values)
        view = dlpack_array(shared, "shared")
        assert view.flags.writeable is not _shares(shared)  # a copy is the consumer's own
        if _shares(shared):
            with pytest.raises(BufferError, match="readonly"):  # a consumer that cannot be told refuses
                shared.__dlpack__()
        doubled = tf.compile(lambda: [tf.input([-1], d) + tf.input([-1], d)])(shared, shared)
        with np.errstate(over="ignore"):  # (numpy and ml_dtypes add 16-bit floats in float32, rounding once)
            _assert_same(doubled.numpy, values + values)
        _assert_same(np.asarray(source), values)


# -- checkpoints -----------------------------------------------------------------------------------


class _Every(tf.Module):
    """A parameter of every dtype."""

    def __init__(self, shape=(3, 7)):
        super().__init__()
        for d in DTYPES:
            setattr(self, f"p_{d.name}", tf.Parameter(list(shape), d))


class _One(tf.Module):
    def __init__(self, d, shape=(4,)):
        super().__init__()
        self.W = tf.Parameter(list(shape), d)


@EVERY_BACKEND
def test_checkpoints_keep_every_dtype(backend, rng, tmp_path):
    values = {f"p_{d.name}": _values(d, rng) for d in DTYPES}
    net = _Every()
    for name, array in values.items():
        setattr(net, name, array)
    net.save(tmp_path / "every.npz")
    loaded = _Every().load(tmp_path / "every.npz")
    for name, array in values.items():
        got = getattr(loaded, name)
        assert got.dtype is dt.numpy_to_dtype(array.dtype)
        _assert_same(got.numpy, array)
    stored = np.load(tmp_path / "every.npz")  # numpy reads the file too: bfloat16 as its bits
    for name, array in values.items():
        _assert_same(stored[name], array.view(np.uint16) if array.dtype == BF16 else array)


def _saved(tmp_path, d, values, name="one.npz"):
    net = _One(d, values.shape)
    net.W = values
    net.save(tmp_path / name)
    return tmp_path / name


@EVERY_BACKEND
def test_checkpoints_convert_exactly_or_refuse(backend, tmp_path):
    halves = np.array([0.5, -3.0, 65504.0, np.inf], np.float16)
    for target in (tf.float32, tf.float64):  # widening: the same values
        _assert_same(_One(target).load(_saved(tmp_path, tf.float16, halves)).W.numpy, halves.astype(target.numpy))
    exact = np.array([0.5, -3.0, 2048.0, -np.inf], np.float32)  # values float16 holds: converted
    _assert_same(_One(tf.float16).load(_saved(tmp_path, tf.float32, exact)).W.numpy, exact.astype(np.float16))
    brains = np.array([1.0, -2.5, 3e38, np.nan], BF16)
    _assert_same(_One(tf.float32).load(_saved(tmp_path, tf.bfloat16, brains)).W.numpy, brains.astype(np.float32))
    refused = [(tf.float32, np.array([0.5, 0.1, 1.0, 2.0], np.float32), tf.float16, r"element \[1\] \(0.1"),
               (tf.float32, np.array([0.5, 1.0, 1e5, 2.0], np.float32), tf.float16, r"element \[2\] \(100000.0"),
               (tf.bfloat16, brains, tf.float16, r"element \[2\] \(3\.0"),
               (tf.float32, np.array([1.0, 257.0, 2.0, 3.0], np.float32), tf.bfloat16, r"element \[1\] \(257.0"),
               (tf.int64, np.array([1, 2**40, 0, 0]), tf.int32, r"do not fit in tf.int32"),
               (tf.float16, halves, tf.int32, r"expected tf.int32 values, got a float16 array")]
    for source, array, target, message in refused:
        net = _One(target)
        net.W = np.zeros(4, target.numpy)
        with pytest.raises(tf.CheckpointError, match=rf"_One.load\(.*\): parameter 'W': .*{message}"):
            net.load(_saved(tmp_path, source, array))
        np.testing.assert_array_equal(net.W.numpy, np.zeros(4))  # unchanged


def _archive(path, members) -> str:
    """An .npz of ``(name, array, comment)`` members."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, array, comment in members:
            info = zipfile.ZipInfo(name)
            info.comment = comment
            with archive.open(info, "w") as member:
                np.lib.format.write_array(member, array, allow_pickle=False)
    return str(path)


def test_checkpoint_dtype_records_are_checked(tmp_path):
    bits = np.array([1.0, -2.0, 0.5, np.inf], BF16).view(np.uint16)
    record = b"tensorfrost dtype: bfloat16"
    swapped = _archive(tmp_path / "swapped.npz", [("W.npy", bits.astype(">u2"), record)])
    _assert_same(_One(tf.bfloat16).load(swapped).W.numpy, bits.view(BF16))
    plain = _archive(tmp_path / "plain.npz", [("W.npy", np.array([1, 2, 3, 4], np.uint16), b"someone's comment")])
    np.testing.assert_array_equal(_One(tf.bfloat16).load(plain).W.numpy, np.array([1, 2, 3, 4], BF16))  # values
    cases = {"int32 bits": ([("W.npy", bits.astype(np.int32), record)], r"records bfloat16 values, whose bits are "
                                                                       r"uint16, but holds a int32 array"),
             "unknown": ([("W.npy", bits, b"tensorfrost dtype: float8" + b"x" * 100)],
                         r"records the dtype b'float8x+'; a record names one of bfloat16"),
             "raw bytes": ([("W.npy", bits.view("V2"), b"")], r"expected tf.bfloat16 values, got a \|V2 array"),
             "float128": ([("W.npy", np.zeros(4, np.longdouble), b"")], r"expected tf.bfloat16 values, got a float128"),
             "record into int": ([("W.npy", bits, record)], None)}
    for members, message in cases.values():
        path = _archive(tmp_path / "bad.npz", members)
        if message is None:  # bfloat16 values into an int parameter: a float to an int
            with pytest.raises(tf.CheckpointError, match=r"expected tf.int16 values, got a bfloat16 array"):
                _One(tf.int16).load(path)
            continue
        with pytest.raises(tf.CheckpointError, match=rf"parameter 'W': .*{message}"):
            _One(tf.bfloat16).load(path)


# -- the narrowing matrix --------------------------------------------------------------------------

_SOURCES = sorted({t for t in np.sctypeDict.values()}, key=lambda t: np.dtype(t).str) + [ml_dtypes.bfloat16]
NOT_NUMBERS = {"S": np.array([b"ab", b"c"]), "U": np.array(["ab", "c"]), "V": np.zeros(2, "V4"),
               "O": np.array([1, 2], object), "M": np.array(["2020-01-01"], "M8[D]"), "m": np.array([5], "m8[s]")}
_PROGRAMS = {}


def _hard_values(source: np.dtype) -> list:
    """Values of ``source`` that some dtype cannot hold: extremes, fractions, mantissa edges."""
    if source.kind == "b":
        return [False, True]
    if source.kind in "iu":
        info = np.iinfo(source)
        candidates = [0, 1, -1, 7, 127, 128, 255, 256, 257, 2049, 32767, 32768, 65535, 65536, 2**24 + 1, 2**31 - 1,
                      2**31, 2**32 - 1, 2**32, 2**53 + 1, 2**63 - 1, info.min, info.max, info.min + 1]
        return sorted({v for v in candidates if info.min <= v <= info.max})
    floats = [0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 1 / 3, 255.0, -128.0, 257.0, 2049.0, 65504.0, 65520.0, 1e5, 1e-5,
              1e-8, 1e-40, 2.0**24 + 1, 2.0**31, 3.4e38, 1e39, 1e300, 5e-324, np.inf, -np.inf, np.nan]
    with np.errstate(over="ignore", under="ignore"):
        values = np.array(floats).astype(source) if source.kind != "c" else np.array(floats, source) + 1j
    return list(values)


def _python_values(array: np.ndarray) -> list:
    """Each element as a Python number (ints exact; 16-bit floats through float64, exactly)."""
    if array.dtype == BF16 or array.dtype == np.float16:
        array = array.astype(np.float64)
    return array.tolist()


def _same_value(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    return a == b and not (isinstance(a, float) and math.isnan(a)) and not (isinstance(b, float) and math.isnan(b))


def _kinds_convert(source: np.dtype, target: dt.DType) -> bool | None:
    """Whether values of ``source`` become ``target`` values at all (those that fit): numbers of one
    kind, and ints and bools to any number; None for dtypes tensorfrost has not."""
    try:
        kind = dt.numpy_to_dtype(source).kind
    except tf.TensorFrostError:
        return None
    return kind == target.kind or (kind in "iub" and target.kind != "b")


@EVERY_BACKEND
@pytest.mark.parametrize("target", DTYPES, ids=IDS)
def test_no_input_is_narrowed_without_an_error(backend, target):
    key = (backend.name, target.name)
    if key not in _PROGRAMS:
        _PROGRAMS[key] = tf.compile(lambda: [tf.input([-1], target)], name="identity")
    prog = _PROGRAMS[key]
    silently_changed, refused_wrongly, converted = [], [], 0
    for source_type in _SOURCES:
        source = np.dtype(source_type)
        if source.kind in NOT_NUMBERS:  # (strings, bytes, void, objects, dates, durations)
            arrays = [NOT_NUMBERS[source.kind]]
        else:
            hard = _hard_values(source)
            arrays = [np.array(hard, source)] + [np.array([v], source) for v in hard]
        easy = bool(_kinds_convert(source, target))
        for k, array in enumerate(arrays + ([np.array([0, 1], source)] if easy else [])):
            try:
                out = prog(array)
            except tf.ArgumentError as error:
                message = str(error)
                assert message.startswith("argument 0 ('") and " of identity: " in message, message
                assert str(array.dtype) in message or repr(target) in message, message
                if k == len(arrays):  # 0 and 1 convert wherever the kinds do
                    refused_wrongly.append((str(source), message))
                continue
            converted += 1
            got = out.numpy
            assert got.dtype == target.numpy and got.shape == array.shape
            pairs = zip(_python_values(array), _python_values(got))
            if _kinds_convert(source, target) is not True or not all(_same_value(a, b) for a, b in pairs):
                silently_changed.append((str(source), _python_values(array), _python_values(got)))
    assert not silently_changed, silently_changed[:5]
    assert not refused_wrongly, refused_wrongly[:5]
    assert converted > 0
