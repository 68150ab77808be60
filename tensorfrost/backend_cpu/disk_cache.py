"""The directory compiled programs are kept in: whom it trusts, and how large it may grow.

Trust: the directory must belong to the user and be writable by no one else (it is created
0700); otherwise a warning says why and the process uses a private temporary directory
instead. The directory is checked again whenever it is not the one checked before (removed,
or replaced by a link to another). Files are read only if they are regular files of ours
(never through a link).

Size: entries (a library and its record, a program entry, a failed source) are kept least
recently used first out: a cache hit touches what it loads, and when the files written push
the total past ``TENSORFROST_CACHE_SIZE`` (default 500M) the oldest entries go until it is
three quarters of that. The total is counted in the lock file ``.lock``, under an exclusive
``flock``, so the directory is walked only when the limit may have been passed, and two
processes never evict at once. A hit touches its files under the shared lock, then loads
them within seconds; eviction spares entries touched in the last ``IN_USE_SECONDS``, so no
library vanishes between its verification and its ``dlopen`` (a loaded library may go: it
stays mapped). Only files named as our entries are removed: regular files of ours, never
a link, never what another program put there.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import os
import re
import secrets
import shutil
import socket
import stat
import sys
import tempfile
import threading
import time
import warnings

from ..ir.errors import CompilerSetupError, warning_level
from ..private_files import UntrustedError, owned_directory

SIZE_VARIABLE = "TENSORFROST_CACHE_SIZE"
DEFAULT_LIMIT = 500 * 2**20
IN_USE_SECONDS = 120.0  # an entry touched this recently may be about to be loaded
STALE_SECONDS = 3600  # a temporary file this old is abandoned even if its process seems alive
SECRET_BYTES = 32
LOCK_NAME = ".lock"  # also holds the counted total: "tensorfrost cache size 1 <total> <total at last walk>"
_STATE = re.compile(rb"tensorfrost cache size 1 (\d+) (\d+)\n")
# <program name (40 characters of [A-Za-z0-9_])>-<32 hex digits of key><what the file is>
ENTRY = re.compile(r"([A-Za-z0-9_]{1,40}-[0-9a-f]{32})(\.so|\.so\.record|\.program|\.failed\.cpp|\.failed\.c)")
_UNITS = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}
_HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]  # temp files of this machine
_NO_LINKS = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _NO_LINKS
_lock = threading.Lock()
_opened: dict[str, tuple[str, bytes, tuple]] = {}  # configured path -> (directory in use, secret, its identity)
_fallback: str | None = None


# -- the directory ------------------------------------------------------------------------------


def cache_dir() -> str:
    """The directory compiled libraries are kept in: ``$TENSORFROST_CACHE_DIR``, else
    ``~/.cache/tensorfrost``, or a private temporary one when that cannot be trusted."""
    return open_cache()[0]


def open_cache() -> tuple[str, bytes]:
    """The directory in use and the secret its records are signed with."""
    configured = os.environ.get("TENSORFROST_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache",
                                                                         "tensorfrost")
    with _lock:
        found = _opened.get(configured)
        if found is None or _identity(found[0]) != found[2]:  # removed, or replaced since it was checked
            directory, secret = _open_directory(configured)
            found = _opened[configured] = (directory, secret, _identity(directory))
        return found[0], found[1]


def _identity(directory: str) -> tuple | None:
    try:
        info = os.stat(directory)
    except OSError:
        return None
    return (info.st_dev, info.st_ino, info.st_uid, stat.S_IMODE(info.st_mode))


def _open_directory(path: str) -> tuple[str, bytes]:
    try:
        directory = owned_directory(path)
        secret = _secret(directory)
    except UntrustedError as why:
        directory = private_directory()
        warnings.warn(f"tensorfrost: not using the compile cache directory {path!r}: {why}. Compiled programs "
                      f"go to the private temporary directory {directory} for this process instead; set "
                      "TENSORFROST_CACHE_DIR to a directory that only you own and can write",
                      stacklevel=warning_level())
        try:
            secret = _secret(directory)
        except UntrustedError as problem:
            raise CompilerSetupError(f"the private directory {directory} cannot hold compiled programs: "
                                     f"{problem}") from None
    remove_stale(directory)
    return directory, secret


def private_directory() -> str:
    """A directory of this process only (0700, removed at exit)."""
    global _fallback
    if _fallback is None or not os.path.isdir(_fallback):
        try:
            _fallback = tempfile.mkdtemp(prefix="tensorfrost-cache-")
        except OSError as error:
            raise CompilerSetupError(f"no directory to compile programs in: the temporary directory "
                                     f"{tempfile.gettempdir()} cannot be written ({error.strerror})") from None
        atexit.register(shutil.rmtree, _fallback, ignore_errors=True)
    return _fallback


def _secret(directory: str) -> bytes:
    """The per-user HMAC key of the cache, created on first use."""
    path = os.path.join(directory, ".key")
    for _ in range(3):
        try:
            fd = os.open(path, READ_FLAGS)
        except FileNotFoundError:
            _install_secret(path, replace=False)
            continue
        except OSError as error:  # a symbolic link (ELOOP), or unreadable
            raise UntrustedError(f"its key file {path} cannot be read ({error.strerror})") from None
        with os.fdopen(fd, "rb") as f:
            info = os.fstat(f.fileno())
            data = f.read(SECRET_BYTES + 1)
        if info.st_uid != os.geteuid():
            raise UntrustedError(f"its key file {path} is owned by user id {info.st_uid}, not by you")
        if stat.S_ISREG(info.st_mode) and not info.st_mode & 0o077 and len(data) == SECRET_BYTES:
            return data
        # cut short by a crash, or readable by others: a new key (entries signed with the old one are rebuilt)
        _install_secret(path, replace=True)
    raise UntrustedError(f"its key file {path} keeps changing")


def _install_secret(path: str, replace: bool) -> None:
    temp = None
    try:
        fd, temp = new_temp(os.path.dirname(path), "")
        with os.fdopen(fd, "wb") as f:
            f.write(secrets.token_bytes(SECRET_BYTES))
            f.flush()
            os.fsync(f.fileno())
        if replace:
            os.replace(temp, path)
        else:
            try:
                os.link(temp, path)  # exclusive like O_EXCL, and never seen half written
            except FileExistsError:
                pass  # another process made it first: use theirs
    except OSError as error:
        raise UntrustedError(f"its key file {path} cannot be created ({error.strerror})") from None
    finally:
        if temp is not None:
            unlink(temp)


def new_temp(directory: str, suffix: str) -> tuple[int, str]:
    """A new file (0600, O_EXCL) whose name says which process of which machine made it."""
    return tempfile.mkstemp(dir=directory, prefix=f".tmp-{_HOST}-{os.getpid()}-", suffix=suffix)


def remove_stale(directory: str) -> None:
    """Remove our temporary files left by dead processes (killed builds), or very old ones."""
    now = time.time()
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        if not entry.name.startswith(".tmp-"):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if info.st_uid == os.geteuid() and _abandoned(entry.name, now - info.st_mtime):
                os.unlink(entry.path)
        except OSError:
            pass  # removed by another process meanwhile


def _abandoned(name: str, age: float) -> bool:
    if abs(age) > STALE_SECONDS:  # (a time far ahead: a clock set back, or another machine's)
        return True
    parts = name.split("-")  # .tmp, host, pid, random part and suffix
    if len(parts) < 4 or parts[1] != _HOST or not parts[2].isdigit():
        return False  # another machine's (a shared directory), or an old name: wait for the age limit
    return not _alive(int(parts[2]))


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process
    return True


def read_own(path: str, touch: bool = False) -> bytes | None:
    """The bytes of a regular file of ours that no one else can write, else None; ``touch``
    marks it used now (for eviction: call it under ``in_use``)."""
    try:
        fd = os.open(path, READ_FLAGS)
    except OSError:
        return None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        os.close(fd)  # (a directory, a fifo, another user's file: fdopen could not even open some)
        return None
    with os.fdopen(fd, "rb") as f:
        if touch:
            with contextlib.suppress(OSError):  # (a read-only disk: nothing is evicted there either)
                os.utime(f.fileno())
        return f.read()


def unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


# -- its size -----------------------------------------------------------------------------------


def size_limit() -> int | None:
    """``$TENSORFROST_CACHE_SIZE`` in bytes (``500M``, ``2G``, ``100000``; ``unlimited``: None)."""
    text = os.environ.get(SIZE_VARIABLE, "").strip()
    if not text:
        return DEFAULT_LIMIT
    if text.lower() in ("unlimited", "none"):
        return None
    found = re.fullmatch(r"(\d+(?:\.\d*)?)\s*([kmgt]?)(?:i?b)?", text.lower())
    if found is None:
        raise CompilerSetupError(f"{SIZE_VARIABLE} must be a size such as 500M, 2G or 100000 (bytes), or "
                                 f"'unlimited'; got {text!r}")
    return int(float(found.group(1)) * _UNITS[found.group(2)])


@contextlib.contextmanager
def _locked(directory: str, exclusive: bool):
    """The cache's lock file, open and locked (None where it cannot be: then unlocked). Only
    writers create it: until one has, there is no eviction to wait for."""
    flags = (os.O_RDWR | os.O_CREAT if exclusive else os.O_RDONLY) | os.O_NONBLOCK | _NO_LINKS  # (a planted fifo)
    try:
        fd = os.open(os.path.join(directory, LOCK_NAME), flags, 0o600)
    except OSError:
        yield None
        return
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid():
            yield None
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        except OSError:  # (a file system without locks)
            yield None
            return
        yield fd
    finally:
        os.close(fd)


@contextlib.contextmanager
def in_use(directory: str):
    """Hold while touching what is about to be loaded (eviction waits for it)."""
    with _locked(directory, exclusive=False):
        yield


def added(directory: str, size: int) -> None:
    """Count ``size`` bytes written into the cache; past the limit, evict the least recently
    used entries (under the exclusive lock)."""
    limit = size_limit()  # (counted when unlimited too: the count holds if a limit is set later)
    with _locked(directory, exclusive=True) as fd:
        if fd is None:
            return
        with contextlib.suppress(OSError):
            state = _STATE.fullmatch(os.pread(fd, 100, 0))
            total, floor = (int(state.group(1)) + size, int(state.group(2))) if state else (None, 0)
            if total is None or (limit is not None and total > limit and total - floor > limit // 8):
                keep = sys.maxsize if limit is None else limit  # (unlimited: only counted)
                total = floor = _evict(directory, keep, keep * 3 // 4)
            text = f"tensorfrost cache size 1 {total} {floor}\n".encode()
            os.ftruncate(fd, 0)
            os.pwrite(fd, text, 0)


def _entries(directory_fd: int) -> dict[str, list]:
    """Our entries: {stem: [(name, size, mtime), ...]} (a library with its record is one)."""
    found: dict[str, list] = {}
    with os.scandir(directory_fd) as listing:
        for entry in listing:
            match = ENTRY.fullmatch(entry.name)
            if match is None:
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid():
                stem = match.group(1) + (".program" if match.group(2) == ".program" else "")
                found.setdefault(stem, []).append((entry.name, info.st_size, info.st_mtime))
    return found


def _evict(directory: str, limit: int, target: int) -> int:
    """If our entries take more than ``limit`` bytes, remove the least recently used until
    at most ``target`` are left (entries in use are spared); the bytes left."""
    try:
        directory_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return 0
    try:
        now = time.time()
        entries = _entries(directory_fd)

        def last_use(files):  # a time ahead of this clock (another machine's, a clock set back) counts as old
            newest = max(mtime for _, _, mtime in files)
            return newest if newest <= now + IN_USE_SECONDS else float("-inf")

        total = sum(size for files in entries.values() for _, size, _ in files)
        if total <= limit:
            return total
        for files in sorted(entries.values(), key=last_use):
            if total <= target:
                break
            if _recent(last_use(files), now):
                continue
            for name, size, _ in files:
                if _remove(directory_fd, name, now):
                    total -= size
        return total
    finally:
        os.close(directory_fd)


def _remove(directory_fd: int, name: str, now: float) -> bool:
    """Unlink our file ``name`` unless it changed to something else or was used meanwhile."""
    try:
        info = os.stat(name, dir_fd=directory_fd, follow_symlinks=False)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or _recent(info.st_mtime, now):
            return False
        os.unlink(name, dir_fd=directory_fd)
        return True
    except OSError:
        return False  # gone meanwhile (another process evicted it)


def _recent(mtime: float, now: float) -> bool:
    """Touched within ``IN_USE_SECONDS`` of now (either way: clocks of machines differ a little)."""
    return abs(now - mtime) < IN_USE_SECONDS


def clear() -> int:
    """Remove every compiled program of the cache directory; the bytes freed. A process
    loading one at that moment compiles it again."""
    directory = cache_dir()
    freed = 0
    with _locked(directory, exclusive=True) as fd:
        directory_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0))
        try:
            for files in _entries(directory_fd).values():
                for name, size, _ in files:
                    with contextlib.suppress(OSError):  # (removed by another process meanwhile)
                        os.unlink(name, dir_fd=directory_fd)
                        freed += size
        finally:
            os.close(directory_fd)
        if fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
    remove_stale(directory)
    return freed
