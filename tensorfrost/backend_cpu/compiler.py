"""Compiling generated C++ with g++ or clang, cached on disk (the directory: disk_cache.py).

Beside each library lies a record: its cache key, the SHA-256 of its bytes, and an
HMAC-SHA256 of both under a per-user secret (``.key``, 0600, made once and never written
anywhere else). A library is loaded only if its record verifies, so one planted, edited,
truncated or half written is rebuilt, never loaded: a plain checksum would not do, since
whoever can plant a library can write its checksum too.

Keys hash the source, the flags, the compiler command (``$CXX``, else ``g++``) and the CPU's
features (``-march=native`` code must not run on another CPU). Computing one runs nothing,
so a cache hit starts no process and needs no compiler installed. The record also names the
compiler's file, and a library is loaded only where the command resolves to that file or to
none (toolchain.py): one built by g++ never stands in for clang's, under any name.

Builds always compile the source generated in memory, written to a fresh ``mkstemp`` file,
never a file found on disk. A large program comes as several translation units (one per
core, ``unit_count``), compiled at once and then linked. The compiler runs in its own
process group under a timeout, and its output must be an ELF library before it is renamed.
Failures that are not the generated code's (the compiler killed by a signal or crashed, a
full disk) are ``CompilerSetupError``s that say so. Temporary files are named
``.tmp-<host>-<pid>-...``: opening the cache removes those of dead processes (a killed build)
and any older than an hour, but never those of a build still running.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import warnings

from ..ir.errors import CompileError, CompilerSetupError, warning_level
from . import disk_cache, toolchain
from .disk_cache import cache_dir, new_temp, open_cache, read_own, unlink

__all__ = ["cache_dir"]  # (re-exported: the directory in use)

# -fno-loop-interchange: with constant trip counts g++ would move a tiled kernel's row loop
# outside its reduction loop, which spills the tile's accumulators to memory (3x slower).
# -fvisibility=hidden: only tf_main is exported (units of one program share kernels, and no
# other library's symbol can stand in for theirs). -fno-exceptions: generated code throws
# nothing, and the cleanups of the host's buffers for exceptions cost g++ time (0.2 s on 100).
# -ffp-contract=off: a value that passes compute again in another kernel (recompute) must get
# the same bits there; g++ fused different multiply-adds in each copy (a z-buffer's depths then
# missed their own test). The GEMM's microkernel fuses its own (gemm.hpp). -fno-trapping-math:
# nothing reads the floating-point exception flags, and without it g++ keeps a branch around
# float arithmetic (which "could trap") instead of vectorizing it: float_math.hpp's selects.
# No value changes.
BASE_FLAGS = ["-O3", "-march=native", "-fopenmp", "-fPIC", "-shared", "-std=c++17", "-fno-math-errno",
              "-ffp-contract=off", "-fno-trapping-math", "-fno-loop-interchange", "-fvisibility=hidden",
              "-fno-exceptions", "-pipe"]
C_FLAGS = ["-O2", "-fPIC", "-shared", "-pthread", "-x", "c"]
LIBRARIES = ["-lm"]  # libm for double's sin, exp... (float32's are in float_math.hpp)
UNIT_CHARACTERS = 20000  # of source per translation unit compiled in parallel (about 0.3 s of g++)
TIMEOUT_VARIABLE = "TENSORFROST_COMPILE_TIMEOUT"
DEFAULT_TIMEOUT = 600.0  # seconds; a large program takes well under a minute
NAME_LIMIT = 40  # characters of a program's name in file names (the key keeps them unique)
KEY_FORMAT = "tensorfrost-cache-2"
RECORD_FORMAT = "tensorfrost cache record 2"
_DISK_FULL = (errno.ENOSPC, errno.EDQUOT)
# what g++ (or clang) prints when a program it ran died: "Killed signal terminated program
# cc1plus", "internal compiler error: Segmentation fault", "ld terminated with signal 9"
_DIED = re.compile(r"[^\n]*(?:internal compiler error|signal terminated program|terminated with signal|"
                   r"clang frontend command failed due to signal)[^\n]*")
_NO_MEMORY = re.compile(r"[^\n]*(?:out of memory allocating|virtual memory exhausted|memory exhausted|"
                        r"Cannot allocate memory)[^\n]*")
_stats_lock = threading.Lock()
_warned: set[tuple] = set()  # (directory, errno) of the cache writes a warning named
_CPU_ID: str | None = None
_IDENTITIES: dict[tuple, tuple[str, str]] = {}  # (command, its file) -> (family, version)


class CompileStats:
    """Counters of this process (for tests and benchmarks)."""

    compiles = 0
    cache_hits = 0
    program_hits = 0  # programs whose passes and C++ generation were skipped (program_cache.py)
    compile_seconds = 0.0


def clear_cache() -> int:
    """Remove every compiled program from the cache directory; returns the bytes freed. The
    next compile of each program runs g++ again::

        freed = tf.clear_cache()   # e.g. 48213504

    >>> import os, tempfile
    >>> before = os.environ.get("TENSORFROST_CACHE_DIR")
    >>> os.environ["TENSORFROST_CACHE_DIR"] = tempfile.mkdtemp()  # (a cache of this example's own)
    >>> _ = tf.compile(lambda: tf.input([-1], tf.float32) * 1.5, name="cleared")
    >>> tf.clear_cache() > 0, tf.clear_cache()
    (True, 0)
    >>> if before is None: del os.environ["TENSORFROST_CACHE_DIR"]
    ... else: os.environ["TENSORFROST_CACHE_DIR"] = before
    """
    return disk_cache.clear()


def _cannot_write(directory: str, error: OSError) -> CompilerSetupError:
    """A write into the cache failed: for a full disk, where and what to do."""
    if error.errno in _DISK_FULL:
        return CompilerSetupError(_full_disk(directory, error.strerror))
    return CompilerSetupError(f"cannot write to the compile cache {directory}: {error.strerror}")


def _full_disk(directory: str, what: str) -> str:
    try:
        free = f"{shutil.disk_usage(directory).free / 2**20:.1f} MiB free"
    except OSError:
        free = "its free space unknown"
    return (f"the disk of the compile cache {directory} is full ({what}; {free}). Free space on it, remove "
            "compiled programs with tf.clear_cache() (or lower TENSORFROST_CACHE_SIZE), or set "
            "TENSORFROST_CACHE_DIR to a directory on another disk")


# -- records ------------------------------------------------------------------------------------


def _record(key: str, digest: str, built_by: str | None, about: str, secret: bytes) -> bytes:
    body = (f"{RECORD_FORMAT}\nkey {key}\nsha256 {digest}\nbinary {built_by}\n"
            f"compiler {' '.join(about.split())}\n").encode()
    return body + b"hmac " + hmac.new(secret, body, "sha256").hexdigest().encode() + b"\n"


def _verified(library: str, record: str, key: str, secret: bytes) -> bool:
    """The record is ours, names ``key`` and the library's bytes, and the compiler that built
    it is the one the command resolves to now (when it resolves to any)."""
    text, data = read_own(record, touch=True), read_own(library, touch=True)
    if text is None or data is None:
        return False
    body, found, mac = text.rpartition(b"hmac ")
    if not found or not hmac.compare_digest(mac.strip(), hmac.new(secret, body, "sha256").hexdigest().encode()):
        return False
    lines = body.decode(errors="replace").splitlines()
    if lines[:3] != [RECORD_FORMAT, f"key {key}", f"sha256 {hashlib.sha256(data).hexdigest()}"]:
        return False
    now = _binary(_compiler_text())
    return now is None or lines[3:4] == [f"binary {now}"]


def _write_atomic(path: str, data: bytes) -> None:
    # no fsync: a record lost or torn by a crash no longer verifies, so its library is rebuilt
    fd, temp = new_temp(os.path.dirname(path), "")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(temp, path)
    finally:
        unlink(temp)


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


def _binary(text: str) -> str | None:
    """toolchain.binary of the command ``text`` (None for one that cannot be split)."""
    try:
        return toolchain.binary(shlex.split(text))
    except ValueError:
        return None


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
            try:
                messages = tempfile.TemporaryFile(mode="w+", errors="replace")
            except OSError as error:
                raise _no_messages(error) from None
            # Recorded before it starts: a Ctrl-C that lands inside Popen after the fork still
            # finds the child (its pid is set as soon as it exists) and stops it below.
            process = subprocess.Popen.__new__(subprocess.Popen)
            processes.append((process, messages))
            try:
                process.__init__(argv, stdin=subprocess.DEVNULL, stdout=messages, stderr=subprocess.STDOUT,
                                 start_new_session=True)
            except OSError as error:
                processes.pop()
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


def _no_messages(error: OSError) -> CompilerSetupError:
    where = tempfile.gettempdir()
    if error.errno in _DISK_FULL:
        return CompilerSetupError(f"the disk of the temporary directory {where} is full ({error.strerror}), so the "
                                  "C++ compiler's messages have nowhere to go: free space there, or set TMPDIR to "
                                  "a directory on another disk")
    return CompilerSetupError(f"the temporary directory {where} cannot be written ({error.strerror}): set TMPDIR "
                              "to a directory you can write")


def _kill(process: subprocess.Popen) -> None:
    if getattr(process, "pid", None) is None:
        return  # interrupted before the fork: nothing started
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            pass  # already gone
        process.wait()


def _identify(words: list[str], text: str) -> tuple[str, str]:
    """The compiler's family and version line, from ``--version`` (once per process and
    compiler file; only before a compile, never on a hit). One that does not answer is
    UNKNOWN: its compile then fails with its own error, or works with g++'s spellings."""
    seen = (text, _binary(text))
    if seen not in _IDENTITIES:
        try:
            status, output = _run([*words, "--version"], text, min(30.0, _timeout()))
        except CompilerSetupError:
            status, output = 1, ""
        answered = status == 0 and output
        _IDENTITIES[seen] = (toolchain.family(output) if answered else toolchain.UNKNOWN,
                             output.splitlines()[0] if answered else "unknown version")
    return _IDENTITIES[seen]


def _compile(sources: list[str], stem: str, flags: list[str], language: str, text: str) -> tuple[str, bytes]:
    """Compile ``sources`` (translation units: several are compiled at once, then linked)
    into a new temporary library next to ``stem``: its path and bytes."""
    words = _compiler_words(text)
    timeout = _timeout()
    kind = _identify(words, text)[0]
    if language == "c++":
        flags = toolchain.spelled(flags, kind)
    directory = os.path.dirname(stem)
    suffix = ".cpp" if language == "c++" else ".c"
    paths = []  # temporary files, removed whatever happens
    try:
        units = []
        for source in sources:
            fd, path = new_temp(directory, suffix)
            paths.append(path)
            with os.fdopen(fd, "w") as f:
                f.write(source)
            units.append(path)
        output = _new_file(directory, ".so", paths)
        if len(units) == 1:
            _check(_run([*words, *flags, "-o", output, units[0], *LIBRARIES], text, timeout), units[0], stem, text)
        else:
            objects = [_new_file(directory, ".o", paths) for _ in units]
            results = _run_all([[*words, *flags, "-c", "-o", obj, unit] for obj, unit in zip(objects, units)], text,
                               timeout)
            for result, unit in zip(results, units):
                _check(result, unit, stem, text)
            # -x none: the objects are not sources of the language the flags may name
            _check(_run([*words, *flags, "-o", output, "-x", "none", *objects, *LIBRARIES], text, timeout), None,
                   stem, text)
        with open(output, "rb") as f:
            data = f.read()
        if not _shared_library(data):
            what = "an empty file" if not data else "a file that is not a shared library (ELF)"
            raise CompilerSetupError(f"the C++ compiler {_describe(text)} exited successfully but wrote {what} "
                                     f"instead of a shared library; set CXX to a C++ compiler such as g++")
        os.chmod(output, 0o700)  # whatever mode the linker gave it (umask 002 would let the group write)
        paths.remove(output)
        return output, data
    except OSError as error:
        raise _cannot_write(directory, error) from None
    finally:
        for path in paths:
            unlink(path)


def _shared_library(data: bytes) -> bool:
    """An ELF shared object: a whole header, of type ET_DYN."""
    if len(data) < 64 or not data.startswith(b"\x7fELF") or data[5] not in (1, 2):
        return False
    return int.from_bytes(data[16:18], "little" if data[5] == 1 else "big") == 3


def _new_file(directory: str, suffix: str, paths: list[str]) -> str:
    fd, path = new_temp(directory, suffix)
    paths.append(path)
    os.close(fd)
    return path


def _check(result: tuple[int, str], unit: str | None, stem: str, text: str) -> None:
    """Raise CompileError with the compiler's messages if it failed on the code; the failing
    source is kept beside the cache entry for the reader (never compiled from). A compiler
    that died or found the disk full raises CompilerSetupError: the code is not at fault."""
    status, messages = result
    if status == 0:
        return
    if len(messages) > 4000:
        messages = messages[:4000] + "\n... (truncated)"
    _check_setup(status, messages, os.path.dirname(stem), text)
    where = "linking the generated program"
    if unit is not None:
        saved = stem + ".failed" + os.path.splitext(unit)[1]
        os.replace(unit, saved)
        disk_cache.added(os.path.dirname(stem), os.stat(saved).st_size)
        messages = messages.replace(unit, saved)  # the lines it names are those of the kept file
        where = f"the generated source {saved}"
    raise CompileError(f"the C++ compiler failed on {where}:\n{messages}")


def _check_setup(status: int, messages: str, directory: str, text: str) -> None:
    """Raise CompilerSetupError if the compiler was killed or crashed, the disk is full, or it
    has no OpenMP."""
    said = f":\n{messages}" if messages else " nothing"
    if status < 0:
        name = _signal_name(-status)
        cause = ("killed: often by the kernel, for a process using too much memory (see dmesg), or by a time "
                 "or memory limit (ulimit, a container's)" if -status == signal.SIGKILL else
                 "a crash of the compiler itself, not a fault of the code it was given")
        raise CompilerSetupError(f"the C++ compiler {_describe(text)} died of {name}: {cause}. Try again, free "
                                 f"memory, or set CXX to another compiler; it said{said}")
    died = _DIED.search(messages)
    if died is not None:
        raise CompilerSetupError(f"a program of the C++ compiler {_describe(text)} died ({died.group(0).strip()}): "
                                 "a crash or a memory limit of the compiler, not a fault of the code it was given. "
                                 f"Try again, free memory, or set CXX to another version; it said{said}")
    memory = _NO_MEMORY.search(messages)
    if memory is not None:
        raise CompilerSetupError(f"the C++ compiler {_describe(text)} ran out of memory ({memory.group(0).strip()}): "
                                 "free memory, raise the limit (ulimit -v, a container's), or compile fewer "
                                 f"programs at once; it said{said}")
    if any(os.strerror(code) in messages for code in _DISK_FULL):
        raise CompilerSetupError(_full_disk(directory, "the compiler could not write its output") + f". It said{said}")
    no_openmp = toolchain.missing_openmp(messages, _identify(_compiler_words(text), text)[0], _describe(text))
    if no_openmp is not None:
        raise CompilerSetupError(f"{no_openmp}. It said{said}")


def _signal_name(number: int) -> str:
    try:
        return f"{signal.Signals(number).name} (signal {number})"
    except ValueError:
        return f"signal {number}"


def build_library(source: str | list[str], name: str, extra_flags: str = "", language: str = "c++",
                  rebuild: bool = False) -> str:
    """The path of a shared library built from ``source`` (one translation unit, or a list
    of them, compiled in parallel): from the cache when its record verifies (then no
    process is started), else compiled now (always when ``rebuild``). Units that call a core
    library (core_library.py: the GEMM's, the math functions') get it verified, built
    alongside if needed, and loaded."""
    sources = [source] if isinstance(source, str) else list(source)
    flags = cxx_flags(extra_flags) if language == "c++" else C_FLAGS + _split(extra_flags)
    from .cores import CORES  # (the cores build their libraries with this module)
    cores = [core for core in CORES if language == "c++" and any(core.marker in unit for unit in sources)]
    waits = [core.start(flags) for core in cores]  # in threads of their own, while g++ compiles the program
    try:
        return build_with_flags(sources, name, [*flags, *(core.define(flags) for core in cores)], language, rebuild)
    finally:
        for wait in waits:
            wait()


def cxx_flags(extra_flags: str) -> list[str]:
    """The flags of a C++ library built with the user's ``extra_flags``."""
    return BASE_FLAGS + _split(extra_flags)


# MSVC's spellings of the options upstream TensorFrost's programs pass (its Windows default is
# "/O2 /fp:fast /openmp", its Linux one "-O3 -ffast-math -fopenmp"), as g++ spells them. /fp:fast
# keeps infinities and NaN: reductions start from -inf and tf.isnan must answer.
MSVC_OPTIONS = {"/O1": ["-Os"], "/O2": ["-O2"], "/Ox": ["-O3"], "/Od": ["-O0"], "/Zi": ["-g"],
                "/openmp": ["-fopenmp"], "/fp:fast": ["-ffast-math", "-fno-finite-math-only"],
                "/fp:precise": [], "/fp:strict": []}


def _split(extra_flags: str) -> list[str]:
    try:
        words = shlex.split(extra_flags)
    except ValueError as error:
        raise CompilerSetupError(f"the compiler flags {extra_flags!r} cannot be split into words: {error}") from None
    flags = []
    for word in words:
        if word in MSVC_OPTIONS:
            flags += MSVC_OPTIONS[word]
        elif re.fullmatch(r"/[A-Za-z][\w:+-]*", word) and not os.path.exists(word):
            raise CompilerSetupError(f"the compiler flag {word!r} is an MSVC option; the cpu backend compiles with "
                                     f"g++: spell it as g++ does (of MSVC's, only {' '.join(MSVC_OPTIONS)} are "
                                     f"translated)")
        else:
            flags.append(word)
    return flags


def build_with_flags(sources: list[str], name: str, flags: list[str], language: str, rebuild: bool = False) -> str:
    """``build_library`` with every flag given."""
    text = _compiler_text()
    key_text = "\n".join([KEY_FORMAT, *(f"// unit {len(unit)}\n{unit}" for unit in sources),
                          " ".join(flags + LIBRARIES), text, _cpu_id()])
    key = hashlib.sha256(key_text.encode()).hexdigest()[:32]
    directory, secret = open_cache()
    stem = os.path.join(directory, f"{_file_name(name)}-{key}")
    library, record = stem + ".so", stem + ".so.record"
    if not rebuild and cached_library(name, key) is not None:
        return library
    disk_cache.size_limit()  # (a bad setting is named before the compile, not after)
    start = time.perf_counter()
    built, data = _compile(sources, stem, flags, language, text)
    try:
        os.replace(built, library)  # then the record: a crash in between leaves an entry that is rebuilt
    except OSError as error:  # (its name taken by a directory, a full disk): this process still gets it
        library = _elsewhere(data, library, error)
    else:
        version = _identify(_compiler_words(text), text)[1]
        signature = _record(key, hashlib.sha256(data).hexdigest(), _binary(text), f"{text} ({version})", secret)
        kept = _keep(record, signature)  # (if it cannot be written, the library still serves this process)
        disk_cache.added(directory, len(data) + (len(signature) if kept else 0))
    finally:
        unlink(built)
    with _stats_lock:  # (the GEMM core may be built in another thread meanwhile)
        CompileStats.compiles += 1
        CompileStats.compile_seconds += time.perf_counter() - start
    return library


def _elsewhere(data: bytes, library: str, error: OSError) -> str:
    """A library that cannot take its place in the cache, kept for this process in its private
    directory instead (a warning says why)."""
    directory = disk_cache.private_directory()
    try:
        fd, path = new_temp(directory, ".so")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(path, 0o700)
    except OSError as second:
        raise _cannot_write(directory, second) from None
    warnings.warn(f"tensorfrost: the compiled library cannot be kept as {library} ({error.strerror}); this "
                  f"process uses it from {path}, and later ones compile it again until what is at that path is "
                  "removed", stacklevel=warning_level())
    return path


def cached_library(name: str, key: str) -> str | None:
    """The path of the library of program ``name`` with cache key ``key`` if its record
    verifies (a cache hit), else None."""
    stem = entry_path(name, key, "")
    directory, secret = open_cache()
    with disk_cache.in_use(directory):  # touched: its loading follows, and eviction spares it
        if not _verified(stem + ".so", stem + ".so.record", key, secret):
            return None
    with _stats_lock:
        CompileStats.cache_hits += 1
    return stem + ".so"


def entry_path(name: str, key: str, suffix: str) -> str:
    """Where the cache keeps the file ``suffix`` of program ``name`` with key ``key`` (a
    library's key ends its name)."""
    return os.path.join(open_cache()[0], f"{_file_name(name)}-{key}{suffix}")


def build_identity() -> str:
    """What every C++ library's key holds besides its source and the user's flags."""
    return "\n".join([KEY_FORMAT, " ".join(BASE_FLAGS + LIBRARIES), _compiler_text(), _cpu_id()])


def signed(data: bytes) -> bytes:
    """``data`` followed by its HMAC under the cache's secret."""
    return data + b"\nhmac " + hmac.new(open_cache()[1], data, "sha256").hexdigest().encode() + b"\n"


def read_signed(path: str) -> bytes | None:
    """The data of a file ``signed`` wrote, if it is ours and its HMAC verifies; else None."""
    with disk_cache.in_use(os.path.dirname(path)):
        text = read_own(path, touch=True)
    if text is None:
        return None
    data, found, mac = text.rpartition(b"\nhmac ")
    expected = hmac.new(open_cache()[1], data, "sha256").hexdigest().encode()
    if not found or not hmac.compare_digest(mac.strip(), expected):
        return None
    return data


def write_entry(path: str, data: bytes) -> None:
    """Write a cache file atomically (readers see the old file or the new one, never half)."""
    if _keep(path, data):
        disk_cache.added(os.path.dirname(path), len(data))


def _keep(path: str, data: bytes) -> bool:
    """``_write_atomic``; a file that cannot be written (a full disk) costs only a compile in a
    later process, so a warning says why (once per directory and cause) and False is returned."""
    try:
        _write_atomic(path, data)
    except OSError as error:
        directory = os.path.dirname(path)
        if (directory, error.errno) not in _warned:
            _warned.add((directory, error.errno))
            warnings.warn(f"tensorfrost: {_cannot_write(directory, error)}. Compiled programs are not kept for "
                          "later processes until then", stacklevel=warning_level())
        return False
    return True
