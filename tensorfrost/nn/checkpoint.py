"""Checkpoint files: the numpy ``.npz`` archives ``Module.save`` writes and ``Module.load`` reads.

A checkpoint may come from anyone, so reading one trusts nothing in it: member names are
matched against the module's parameters (no duplicates), and each member's ``.npy`` header
(dtype, shape: a few hundred bytes) is checked against its parameter before any data is
inflated. A member's data must be exactly what its header says, so no member costs more
memory than its parameter may hold; object arrays (pickles) are never read. Saving replaces
the file atomically (``atomic_write``).

Every dtype keeps its dtype. ``.npy`` cannot describe ml_dtypes.bfloat16 (numpy writes it as
raw ``V2`` bytes), so a bfloat16 parameter's member holds its bits as uint16 and says so in
the member's zip comment (``tensorfrost dtype: bfloat16``; ``np.load`` reads the bits, and
``.view(ml_dtypes.bfloat16)`` gives the values). Reading accepts that record only on a
uint16 member and refuses a record of anything else.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import re
import stat
import tempfile
import zipfile

import numpy as np

from ..ir import dtypes as dt
from ..ir.errors import CheckpointError, DTypeError
from ..private_files import new_file_mode
from ..runtime import conversion_problem, shape_problem

SHOWN_NAMES = 10  # unexpected member names listed in a message
HEADER_LIMIT = 10000  # bytes of a .npy header (numpy's own limit; its headers of 8 dims take some 200)
DTYPE_RECORD = b"tensorfrost dtype: "  # a member's zip comment: the dtype whose bits its .npy holds
# dtypes .npy cannot describe, by name (a name, so that ml_dtypes is imported only once used): their bits
AS_BITS = {"bfloat16": (b"bfloat16", np.dtype(np.uint16))}


def write_npz(file, arrays: dict) -> None:
    """What ``np.savez`` writes (an uncompressed zip of ``.npy`` members), but taking the
    names as a dict: a parameter called ``file`` is no keyword clash, and no pickles."""
    with zipfile.ZipFile(file, mode="w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for name, array in arrays.items():
            array = np.asanyarray(array)
            info = zipfile.ZipInfo(name + ".npy")  # (as archive.open(name) makes it)
            if array.dtype.name in AS_BITS and dt.numpy_to_dtype(array.dtype).name == array.dtype.name:
                record, bits = AS_BITS[array.dtype.name]
                info.comment = DTYPE_RECORD + record
                array = array.view(bits)
            with archive.open(info, "w", force_zip64=True) as member:
                np.lib.format.write_array(member, array, allow_pickle=False)


def read_npz(path, params: dict, where: str) -> dict:
    """{name: array} for every parameter of ``params`` ({name: Parameter}) from the ``.npz``
    file ``path`` (a path or a binary file), each checked against its parameter's dtype and
    shape before its data is read. A CheckpointError (naming ``where``) for anything but such
    an archive; OSErrors such as a missing file stay as they are."""
    if not hasattr(path, "read"):
        with _open_regular(path, where) as f:
            return read_npz(f, params, where)
    if callable(getattr(path, "seekable", None)) and not path.seekable():
        raise CheckpointError(f"{where}: the file object cannot seek (a pipe or a socket), and an .npz archive is "
                              "read from its end; pass a path, or io.BytesIO(f.read())")
    try:
        with zipfile.ZipFile(path) as archive:
            members = _members(archive, params, where)
            headers = {name: _header(archive, info, params[name], name, where) for name, info in members.items()}
            return {name: _data(archive, members[name], *headers[name], name, where) for name in members}
    except (OSError, CheckpointError):
        raise
    except Exception as exc:  # EOFError, zipfile.BadZipFile, ValueError, zlib.error, NotImplementedError
        raise CheckpointError(f"{where}: the file is a damaged or incomplete .npz archive (cut short, or not "
                              f"written by Module.save): {type(exc).__name__}: {exc}") from exc


def _open_regular(path: str, where: str):
    """The file ``path``, open for reading, if it is a regular file that starts as a zip
    archive does (O_NONBLOCK: opening a named pipe waits for no writer)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        what = "a directory" if stat.S_ISDIR(mode) else "not a regular file (a named pipe, a socket or a device)"
        raise CheckpointError(f"{where}: the path is {what}; Module.save writes .npz files")
    f = os.fdopen(fd, "rb")
    try:
        head = f.read(6)
        if not head:
            raise CheckpointError(f"{where}: the file is empty (0 bytes), not an .npz archive written by "
                                  "Module.save")
        if head.startswith(b"\x93NUMPY"):
            raise CheckpointError(f"{where}: the file holds a single numpy array (.npy), not the .npz archive that "
                                  "Module.save writes")
        if not head.startswith(b"PK"):
            raise CheckpointError(f"{where}: the file is not an .npz archive (it starts with {head!r}); Module.save "
                                  "writes numpy .npz files")
        f.seek(0)
    except BaseException:
        f.close()
        raise
    return f


def _members(archive: zipfile.ZipFile, params: dict, where: str) -> dict:
    """{parameter name: its member}: one member per parameter, named as ``np.savez`` names
    them (``W.npy``; ``W`` alone is read as numpy reads it), and no other."""
    members, seen = {}, {}
    for info in archive.infolist():
        name = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
        if name in seen:
            raise CheckpointError(f"{where}: the file holds two members for '{name}' ({seen[name]!r} and "
                                  f"{info.filename!r}); Module.save writes one per parameter")
        seen[name] = info.filename
        members[name] = info
    missing = [n for n in params if n not in members]
    extra = [n for n in members if n not in params]
    if missing or extra:
        shown = extra[:SHOWN_NAMES] + ([f"... {len(extra) - SHOWN_NAMES} more"] if len(extra) > SHOWN_NAMES else [])
        raise CheckpointError(f"{where}: the file does not match the module (missing: {missing or 'none'}; "
                              f"unexpected: {shown or 'none'})")
    return {name: members[name] for name in params}


def _header(archive: zipfile.ZipFile, info: zipfile.ZipInfo, param, name: str, where: str) -> tuple:
    """``(shape, fortran_order, dtype, data offset)`` of a member's ``.npy`` header, checked
    against ``param``; only the header's bytes are inflated."""
    what = f"{where}: parameter '{name}'"
    with archive.open(info) as member:
        try:
            version = np.lib.format.read_magic(member)
            if version not in ((1, 0), (2, 0), (3, 0)):
                raise ValueError(f"format version {version[0]}.{version[1]}, not one numpy writes")
            # numpy reads as much header as the file claims before it checks the claim: read it here
            size_field = member.read(2 if version == (1, 0) else 4)
            length = int.from_bytes(size_field, "little")
            if length > HEADER_LIMIT:
                raise ValueError(f"its header claims {length} bytes; numpy writes at most {HEADER_LIMIT}")
            header = io.BytesIO(size_field + member.read(length))
            # (3.0 is 2.0 in UTF-8, which differs only in names of a structured dtype: refused below)
            read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            shape, fortran_order, dtype = read(header)
        except ValueError as exc:
            raise CheckpointError(f"{what}: the member {info.filename!r} is not a numpy array ({exc})") from None
        offset = 8 + len(size_field) + length  # (the magic string and version take 8)
    if dtype.hasobject:
        raise CheckpointError(f"{what}: the member {info.filename!r} holds Python objects (a pickle), which "
                              "Module.load never reads; a checkpoint holds plain numeric arrays")
    if dtype.kind not in "fiub" or dtype.names is not None or not _tensorfrost_dtype(dtype):
        raise CheckpointError(f"{what}: expected {param.dtype!r} values, got a {dtype} array")
    values = _recorded_dtype(info, dtype, what)
    too_large = shape_problem(shape)
    problem = (conversion_problem(values, param.dtype, f"parameter '{name}'") or param.shape_problem(shape, name)
               or (too_large and f"parameter '{name}': {too_large}"))
    if problem:
        raise CheckpointError(f"{where}: {problem}")
    size = offset + math.prod(shape) * dtype.itemsize
    if info.file_size != size:  # (the zip's own record, read before inflating anything)
        raise CheckpointError(f"{what}: the member {info.filename!r} holds {info.file_size} bytes, but its header "
                              f"says {list(shape)} {dtype} values: {size} bytes")
    return shape, fortran_order, dtype, offset, values


def _tensorfrost_dtype(dtype: np.dtype) -> bool:
    try:
        dt.numpy_to_dtype(dtype)
    except DTypeError:  # (float128)
        return False
    return True


def _recorded_dtype(info: zipfile.ZipInfo, dtype: np.dtype, what: str) -> np.dtype:
    """The dtype of a member's values: its header's, or the one its dtype record names (whose
    bits the header's dtype holds)."""
    if not info.comment.startswith(DTYPE_RECORD):
        return dtype  # (another writer's comment, or none)
    record = info.comment[len(DTYPE_RECORD):]
    for dtype_name, (name, bits) in AS_BITS.items():
        if record == name:
            values = dt.dtype_of(dtype_name).numpy
            if dtype.kind != bits.kind or dtype.itemsize != bits.itemsize:
                raise CheckpointError(f"{what}: the member {info.filename!r} records {name.decode()} values, whose "
                                      f"bits are {bits}, but holds a {dtype} array")
            return values
    names = ", ".join(name.decode() for name, _ in AS_BITS.values())
    raise CheckpointError(f"{what}: the member {info.filename!r} records the dtype {record[:40]!r}; a record names "
                          f"one of {names}")


def _data(archive: zipfile.ZipFile, info: zipfile.ZipInfo, shape, fortran_order, dtype, offset: int, values,
          name: str, where: str) -> np.ndarray:
    """The values of a checked member: exactly the bytes its header says, no more."""
    count = math.prod(shape) * dtype.itemsize
    with archive.open(info) as member:
        member.read(offset)
        data = member.read(count)
        if len(data) != count or member.read(1):  # (reading to the end checks its CRC)
            raise CheckpointError(f"{where}: parameter '{name}': the member {info.filename!r} does not hold the "
                                  f"{count} bytes of data its header says")
    array = np.frombuffer(data, dtype).reshape(shape, order="F" if fortran_order else "C")
    return array if values is dtype else array.astype(dtype.newbyteorder("="), copy=False).view(values)


def atomic_write(path: str, write) -> None:
    """Create or replace the file ``path`` with what ``write(binary_file)`` writes, so that a
    reader (or a crash at any moment, SIGKILL included) sees the old complete file or the new
    complete one: a temporary file in the same directory, flushed and fsynced, renamed over
    ``path``. A temporary file left by a killed process is removed by the next save of the
    same path (its name holds the writer's process id; it is removed once that has ended)."""
    directory = os.path.dirname(os.path.abspath(path))
    stem = os.path.basename(path)[:100]  # (the temporary name must stay under NAME_MAX)
    _remove_stale_temporaries(directory, stem)
    fd, temporary = tempfile.mkstemp(prefix=f".{stem}.{os.getpid()}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fchmod(f.fileno(), new_file_mode(path))  # mkstemp's 0600, unless the file was private
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except OSError as error:  # a full disk, a file size limit: say which file (the old one is kept)
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise OSError(error.errno, f"{error.strerror} (nothing was written; the file is as it was)", path) from error
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    try:  # the rename itself survives a power cut once the directory is synced
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass  # some file systems cannot sync directories
    finally:
        os.close(dir_fd)


def temporary_files(path: str) -> list:
    """The temporary files ``atomic_write`` may have left for ``path`` (full paths)."""
    directory = os.path.dirname(os.path.abspath(path))
    stem = os.path.basename(path)[:100]
    return [os.path.join(directory, n) for n, _ in _temporaries(directory, stem)]


def _temporaries(directory: str, stem: str):
    pattern = re.compile(rf"\.{re.escape(stem)}\.(\d+)\.[A-Za-z0-9_]+\.tmp")
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        match = pattern.fullmatch(name)
        if match:
            yield name, int(match.group(1))


def _remove_stale_temporaries(directory: str, stem: str) -> None:
    for name, pid in list(_temporaries(directory, stem)):
        if not _process_exists(pid):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(directory, name))


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # (someone else's process)
    return True
