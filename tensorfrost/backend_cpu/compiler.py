"""Compiling generated C++ with g++, cached on disk.

Trust: the cache directory must belong to the user and be writable by no one else (it is
created 0700); otherwise a warning says why and the process compiles into a private
temporary directory instead. Beside each library lies a record: its cache key, the SHA-256
of its bytes, and an HMAC-SHA256 of both under a per-user secret (``.key``, 0600, made once
and never written anywhere else). A library is loaded only if its record verifies, so one
planted, edited, truncated or half written is rebuilt, never loaded: a plain checksum would
not do, since whoever can plant a library can write its checksum too.

Keys hash the source, the flags, the compiler command (``$CXX``, else ``g++``) and the CPU's
features (``-march=native`` code must not run on another CPU). Computing one runs nothing,
so a cache hit starts no process and needs no compiler installed.

Builds always compile the source generated in memory, written to a fresh ``mkstemp`` file,
never a file found on disk. A large program comes as several translation units (one per
core, ``unit_count``), compiled at once and then linked. The compiler runs in its own
process group under a timeout, and its output must be an ELF library before it is renamed. Temporary files are named
``.tmp-<host>-<pid>-...``: opening the cache removes those of dead processes (a killed build)
and any older than an hour, but never those of a build still running.
"""

from __future__ import annotations

import atexit
import hashlib
import hmac
import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import warnings

from ..ir.errors import CompileError, CompilerSetupError, is_library_file
from . import gemm

# -fno-loop-interchange: with constant trip counts g++ would move a tiled kernel's row loop
# outside its reduction loop, which spills the tile's accumulators to memory (3x slower).
# -fvisibility=hidden: only tf_main is exported (units of one program share kernels, and no
# other library's symbol can stand in for theirs). -fno-exceptions: generated code throws
# nothing, and the cleanups of the host's buffers for exceptions cost g++ time (0.2 s on 100).
BASE_FLAGS = ["-O3", "-march=native", "-fopenmp", "-fPIC", "-shared", "-std=c++17", "-fno-math-errno",
              "-fno-loop-interchange", "-fvisibility=hidden", "-fno-exceptions", "-pipe"]
C_FLAGS = ["-O2", "-fPIC", "-shared", "-pthread", "-x", "c"]
LIBRARIES = ["-lmvec", "-lm"]  # glibc's vector math (SIMD sin, exp...), then scalar libm
UNIT_CHARACTERS = 20000  # of source per translation unit compiled in parallel (about 0.3 s of g++)
TIMEOUT_VARIABLE = "TENSORFROST_COMPILE_TIMEOUT"
DEFAULT_TIMEOUT = 600.0  # seconds; a large program takes well under a minute
STALE_SECONDS = 3600  # a temporary file this old is abandoned even if its process seems alive
NAME_LIMIT = 40  # characters of a program's name in file names (the key keeps them unique)
SECRET_BYTES = 32
KEY_FORMAT = "tensorfrost-cache-2"
RECORD_FORMAT = "tensorfrost cache record 1"
_HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]  # temp files of this machine
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_lock = threading.Lock()
_stats_lock = threading.Lock()
_opened: dict[str, tuple[str, bytes]] = {}  # configured path -> (directory in use, secret)
_fallback: str | None = None
_CPU_ID: str | None = None
_VERSIONS: dict[str, str] = {}


class CompileStats:
    """Counters of this process (for tests and benchmarks)."""

    compiles = 0
    cache_hits = 0
    program_hits = 0  # programs whose passes and C++ generation were skipped (program_cache.py)
    compile_seconds = 0.0


class _UntrustedError(Exception):
    """Why a directory cannot hold the cache."""


# -- the cache directory ------------------------------------------------------------------------


def cache_dir() -> str:
    """The directory compiled libraries are kept in: ``$TENSORFROST_CACHE_DIR``, else
    ``~/.cache/tensorfrost``, or a private temporary one when that cannot be trusted."""
    return _open()[0]


def _open() -> tuple[str, bytes]:
    configured = os.environ.get("TENSORFROST_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache",
                                                                         "tensorfrost")
    with _lock:
        found = _opened.get(configured)
        if found is None or not os.path.isdir(found[0]):  # (again if it was removed meanwhile)
            found = _opened[configured] = _open_directory(configured)
        return found


def _open_directory(path: str) -> tuple[str, bytes]:
    try:
        directory = _checked(path)
        secret = _secret(directory)
    except _UntrustedError as why:
        directory = _private_directory()
        warnings.warn(f"tensorfrost: not using the compile cache directory {path!r}: {why}. Compiled programs "
                      f"go to the private temporary directory {directory} for this process instead; set "
                      "TENSORFROST_CACHE_DIR to a directory that only you own and can write", stacklevel=_user_level())
        try:
            secret = _secret(directory)
        except _UntrustedError as problem:
            raise CompilerSetupError(f"the private directory {directory} cannot hold compiled programs: "
                                     f"{problem}") from None
    _remove_stale(directory)
    return directory, secret


def _user_level() -> int:
    """The ``stacklevel`` of the innermost caller outside tensorfrost (whose line a warning shows)."""
    level, frame = 2, sys._getframe(2)  # level 1 is the caller of warnings.warn, level 2 its caller
    while frame is not None and is_library_file(frame.f_code.co_filename):
        level, frame = level + 1, frame.f_back
    return level


def _checked(path: str) -> str:
    """``path`` resolved, made 0700 if new; raises ``_UntrustedError`` when others could write it."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
    except FileExistsError:
        raise _UntrustedError("it exists and is not a directory") from None
    except OSError as error:
        raise _UntrustedError(f"it cannot be created ({error.strerror})") from None
    directory = os.path.realpath(path)
    try:
        info = os.stat(directory)
    except OSError as error:
        raise _UntrustedError(f"it cannot be read ({error.strerror})") from None
    if info.st_uid != os.geteuid():
        raise _UntrustedError(f"it is owned by user id {info.st_uid}, not by you (user id {os.geteuid()})")
    if info.st_mode & 0o022:
        raise _UntrustedError(f"others can write to it (mode {stat.filemode(info.st_mode)}; 'chmod 700' it to use it)")
    if not os.access(directory, os.W_OK | os.X_OK, effective_ids=os.access in os.supports_effective_ids):
        raise _UntrustedError("it is read-only")
    return directory


def _private_directory() -> str:
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
            fd = os.open(path, _READ_FLAGS)
        except FileNotFoundError:
            _install_secret(path, replace=False)
            continue
        except OSError as error:  # a symbolic link (ELOOP), or unreadable
            raise _UntrustedError(f"its key file {path} cannot be read ({error.strerror})") from None
        with os.fdopen(fd, "rb") as f:
            info = os.fstat(f.fileno())
            data = f.read(SECRET_BYTES + 1)
        if info.st_uid != os.geteuid():
            raise _UntrustedError(f"its key file {path} is owned by user id {info.st_uid}, not by you")
        if stat.S_ISREG(info.st_mode) and not info.st_mode & 0o077 and len(data) == SECRET_BYTES:
            return data
        # cut short by a crash, or readable by others: a new key (entries signed with the old one are rebuilt)
        _install_secret(path, replace=True)
    raise _UntrustedError(f"its key file {path} keeps changing")


def _install_secret(path: str, replace: bool) -> None:
    temp = None
    try:
        fd, temp = _mkstemp(os.path.dirname(path), "")
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
        raise _UntrustedError(f"its key file {path} cannot be created ({error.strerror})") from None
    finally:
        if temp is not None:
            _unlink(temp)


def _mkstemp(directory: str, suffix: str) -> tuple[int, str]:
    """A new file (0600, O_EXCL) whose name says which process of which machine made it."""
    return tempfile.mkstemp(dir=directory, prefix=f".tmp-{_HOST}-{os.getpid()}-", suffix=suffix)


def _remove_stale(directory: str) -> None:
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
    if age > STALE_SECONDS:
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


# -- records ------------------------------------------------------------------------------------


def _read_own(path: str) -> bytes | None:
    """The bytes of a regular file of ours that no one else can write, else None."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
            return None
        return f.read()


def _record(key: str, digest: str, about: str, secret: bytes) -> bytes:
    body = f"{RECORD_FORMAT}\nkey {key}\nsha256 {digest}\ncompiler {' '.join(about.split())}\n".encode()
    return body + b"hmac " + hmac.new(secret, body, "sha256").hexdigest().encode() + b"\n"


def _verified(library: str, record: str, key: str, secret: bytes) -> bool:
    text, data = _read_own(record), _read_own(library)
    if text is None or data is None:
        return False
    body, found, mac = text.rpartition(b"hmac ")
    if not found or not hmac.compare_digest(mac.strip(), hmac.new(secret, body, "sha256").hexdigest().encode()):
        return False
    lines = body.decode(errors="replace").splitlines()
    return lines[:3] == [RECORD_FORMAT, f"key {key}", f"sha256 {hashlib.sha256(data).hexdigest()}"]


def _write_atomic(path: str, data: bytes) -> None:
    # no fsync: a record lost or torn by a crash no longer verifies, so its library is rebuilt
    fd, temp = _mkstemp(os.path.dirname(path), "")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(temp, path)
    finally:
        _unlink(temp)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


# -- building ------------------------------------------------------------------------------------


def _cpu_id() -> str:
    global _CPU_ID
    if _CPU_ID is None:
        try:
            with open("/proc/cpuinfo") as f:
                flags = next((line for line in f if line.startswith(("flags", "Features"))), "")
        except OSError:
            flags = ""
        _CPU_ID = hashlib.sha256(flags.encode()).hexdigest()[:16]
    return _CPU_ID


def _compiler_text() -> str:
    """The compiler command as configured (part of the key: computing it runs nothing)."""
    return os.environ.get("CXX", "").strip() or "g++"


def _compiler_words(text: str) -> list[str]:
    try:
        words = shlex.split(text)
    except ValueError as error:
        words, problem = [], str(error).lower()
    else:
        problem = "it is empty"
    if not words:
        raise CompilerSetupError(f"CXX={text!r} is not a command ({problem}): set CXX to a C++ compiler "
                                 "such as g++, or unset it to use g++ from PATH")
    return words


def _describe(text: str) -> str:
    return f"CXX={text!r}" if os.environ.get("CXX", "").strip() else "g++ (from PATH; CXX is not set)"


def _timeout() -> float:
    text = os.environ.get(TIMEOUT_VARIABLE, "").strip()
    if not text:
        return DEFAULT_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0:
        raise CompilerSetupError(f"{TIMEOUT_VARIABLE} must be a positive number of seconds, got {text!r}")
    return value


def unit_count(cost: int) -> int:
    """How many translation units to compile a program of ``cost`` (characters of plain
    code) as: one per core this process may use, when each gets enough work to outweigh
    its own start and the link."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, cost // UNIT_CHARACTERS))


def _file_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", name)[:NAME_LIMIT] or "program"


def _run(argv: list[str], text: str, timeout: float) -> tuple[int, str]:
    return _run_all([argv], text, timeout)[0]


def _run_all(commands: list[list[str]], text: str, timeout: float) -> list[tuple[int, str]]:
    """Run compiler commands at once, each in its own process group (so that a timeout or an
    interrupt stops everything it started: cc1plus, as, ld); returns each one's exit status
    and messages. Messages go to anonymous files: several compilers could fill pipes."""
    processes: list[tuple[subprocess.Popen, object]] = []
    try:
        for argv in commands:
            messages = tempfile.TemporaryFile(mode="w+", errors="replace")
            try:
                processes.append((subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=messages,
                                                   stderr=subprocess.STDOUT, start_new_session=True), messages))
            except OSError as error:
                messages.close()
                raise _cannot_start(error, argv, text) from None
        deadline = time.monotonic() + timeout
        try:
            for process, _ in processes:
                process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise CompilerSetupError(f"the C++ compiler {_describe(text)} did not finish within {timeout:g} s and "
                                     f"was stopped; set {TIMEOUT_VARIABLE} (seconds) to wait longer") from None
        results = []
        for process, messages in processes:
            messages.seek(0)
            results.append((process.returncode, messages.read().strip()))
        return results
    finally:  # an error, a timeout or Ctrl-C: leave no compiler running behind
        for process, messages in processes:
            _kill(process)
            messages.close()


def _cannot_start(error: OSError, argv: list[str], text: str) -> CompilerSetupError:
    if not os.environ.get("CXX", "").strip() and isinstance(error, FileNotFoundError):
        return CompilerSetupError("no C++ compiler found: g++ is not on PATH. Install g++ (with OpenMP), or "
                                  "set CXX; the cpu backend compiles every program to native code")
    return CompilerSetupError(f"the C++ compiler {_describe(text)} cannot be run: {error.strerror} "
                              f"({argv[0]}); set CXX to a C++ compiler such as g++, or unset it")


def _kill(process: subprocess.Popen) -> None:
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            pass  # already gone
        process.wait()


def _version(words: list[str], text: str) -> str:
    """The compiler's version, recorded as information only (after a compile, never on a hit)."""
    if text not in _VERSIONS:
        try:
            status, output = _run([*words, "--version"], text, 30.0)
            _VERSIONS[text] = output.splitlines()[0] if status == 0 and output else "unknown version"
        except CompileError:
            _VERSIONS[text] = "unknown version"
    return f"{text} ({_VERSIONS[text]})"


def _compile(sources: list[str], stem: str, flags: list[str], language: str, text: str) -> tuple[str, bytes]:
    """Compile ``sources`` (translation units: several are compiled at once, then linked)
    into a new temporary library next to ``stem``: its path and bytes."""
    words = _compiler_words(text)
    timeout = _timeout()
    directory = os.path.dirname(stem)
    suffix = ".cpp" if language == "c++" else ".c"
    paths = []  # temporary files, removed whatever happens
    try:
        units = []
        for source in sources:
            fd, path = _mkstemp(directory, suffix)
            paths.append(path)
            with os.fdopen(fd, "w") as f:
                f.write(source)
            units.append(path)
        output = _new_file(directory, ".so", paths)
        if len(units) == 1:
            _check(_run([*words, *flags, "-o", output, units[0], *LIBRARIES], text, timeout), units[0], stem)
        else:
            objects = [_new_file(directory, ".o", paths) for _ in units]
            results = _run_all([[*words, *flags, "-c", "-o", obj, unit] for obj, unit in zip(objects, units)], text,
                               timeout)
            for result, unit in zip(results, units):
                _check(result, unit, stem)
            # -x none: the objects are not sources of the language the flags may name
            _check(_run([*words, *flags, "-o", output, "-x", "none", *objects, *LIBRARIES], text, timeout), None,
                   stem)
        with open(output, "rb") as f:
            data = f.read()
        if not data.startswith(b"\x7fELF"):
            what = "an empty file" if not data else "a file that is not a shared library (ELF)"
            raise CompilerSetupError(f"the C++ compiler {_describe(text)} exited successfully but wrote {what} "
                                     f"instead of a shared library; set CXX to a C++ compiler such as g++")
        os.chmod(output, 0o700)  # whatever mode the linker gave it (umask 002 would let the group write)
        paths.remove(output)
        return output, data
    except OSError as error:
        raise CompilerSetupError(f"cannot write to the compile cache {directory}: {error.strerror}") from None
    finally:
        for path in paths:
            _unlink(path)


def _new_file(directory: str, suffix: str, paths: list[str]) -> str:
    fd, path = _mkstemp(directory, suffix)
    paths.append(path)
    os.close(fd)
    return path


def _check(result: tuple[int, str], unit: str | None, stem: str) -> None:
    """Raise CompileError with the compiler's messages if it failed; the failing source is
    kept beside the cache entry for the reader (never compiled from)."""
    status, messages = result
    if status == 0:
        return
    where = "linking the generated program"
    if unit is not None:
        saved = stem + ".failed" + os.path.splitext(unit)[1]
        os.replace(unit, saved)
        messages = messages.replace(unit, saved)  # the lines it names are those of the kept file
        where = f"the generated source {saved}"
    if len(messages) > 4000:
        messages = messages[:4000] + "\n... (truncated)"
    raise CompileError(f"the C++ compiler failed on {where}:\n{messages}")


def build_library(source: str | list[str], name: str, extra_flags: str = "", language: str = "c++",
                  rebuild: bool = False) -> str:
    """The path of a shared library built from ``source`` (one translation unit, or a list
    of them, compiled in parallel): from the cache when its record verifies (then no
    process is started), else compiled now (always when ``rebuild``). Units that call the
    GEMM core (gemm_core.py) get it verified, built alongside if needed, and loaded."""
    sources = [source] if isinstance(source, str) else list(source)
    flags = cxx_flags(extra_flags) if language == "c++" else C_FLAGS + _split(extra_flags)
    if language != "c++" or not any(gemm.CORE_MARKER in unit for unit in sources):
        return build_with_flags(sources, name, flags, language, rebuild)
    from . import gemm_core  # (it builds its library with this module)
    wait = gemm_core.start(flags)  # in a thread of its own, while g++ compiles the program
    try:
        return build_with_flags(sources, name, gemm_core.program_flags(flags), language, rebuild)
    finally:
        wait()


def cxx_flags(extra_flags: str) -> list[str]:
    """The flags of a C++ library built with the user's ``extra_flags``."""
    return BASE_FLAGS + _split(extra_flags)


def _split(extra_flags: str) -> list[str]:
    try:
        return shlex.split(extra_flags)
    except ValueError as error:
        raise CompilerSetupError(f"the compiler flags {extra_flags!r} cannot be split into words: {error}") from None


def build_with_flags(sources: list[str], name: str, flags: list[str], language: str, rebuild: bool = False) -> str:
    """``build_library`` with every flag given."""
    text = _compiler_text()
    key_text = "\n".join([KEY_FORMAT, *(f"// unit {len(unit)}\n{unit}" for unit in sources),
                          " ".join(flags + LIBRARIES), text, _cpu_id()])
    key = hashlib.sha256(key_text.encode()).hexdigest()[:32]
    directory, secret = _open()
    stem = os.path.join(directory, f"{_file_name(name)}-{key}")
    library, record = stem + ".so", stem + ".so.record"
    if not rebuild and cached_library(name, key) is not None:
        return library
    start = time.perf_counter()
    built, data = _compile(sources, stem, flags, language, text)
    try:
        os.replace(built, library)  # then the record: a crash in between leaves an entry that is rebuilt
        _write_atomic(record, _record(key, hashlib.sha256(data).hexdigest(), _version(_compiler_words(text), text),
                                      secret))
    except OSError as error:
        raise CompilerSetupError(f"cannot write to the compile cache {directory}: {error.strerror}") from None
    finally:
        _unlink(built)
    with _stats_lock:  # (the GEMM core may be built in another thread meanwhile)
        CompileStats.compiles += 1
        CompileStats.compile_seconds += time.perf_counter() - start
    return library


def cached_library(name: str, key: str) -> str | None:
    """The path of the library of program ``name`` with cache key ``key`` if its record
    verifies (a cache hit), else None."""
    stem = entry_path(name, key, "")
    if not _verified(stem + ".so", stem + ".so.record", key, _open()[1]):
        return None
    with _stats_lock:
        CompileStats.cache_hits += 1
    return stem + ".so"


def entry_path(name: str, key: str, suffix: str) -> str:
    """Where the cache keeps the file ``suffix`` of program ``name`` with key ``key`` (a
    library's key ends its name)."""
    return os.path.join(_open()[0], f"{_file_name(name)}-{key}{suffix}")


def build_identity() -> str:
    """What every C++ library's key holds besides its source and the user's flags."""
    return "\n".join([KEY_FORMAT, " ".join(BASE_FLAGS + LIBRARIES), _compiler_text(), _cpu_id()])


def signed(data: bytes) -> bytes:
    """``data`` followed by its HMAC under the cache's secret."""
    return data + b"\nhmac " + hmac.new(_open()[1], data, "sha256").hexdigest().encode() + b"\n"


def read_signed(path: str) -> bytes | None:
    """The data of a file ``signed`` wrote, if it is ours and its HMAC verifies; else None."""
    text = _read_own(path)
    if text is None:
        return None
    data, found, mac = text.rpartition(b"\nhmac ")
    if not found or not hmac.compare_digest(mac.strip(), hmac.new(_open()[1], data, "sha256").hexdigest().encode()):
        return None
    return data


def write_entry(path: str, data: bytes) -> None:
    """Write a cache file atomically (readers see the old file or the new one, never half)."""
    try:
        _write_atomic(path, data)
    except OSError as error:
        raise CompilerSetupError(f"cannot write to the compile cache {os.path.dirname(path)}: "
                                 f"{error.strerror}") from None
