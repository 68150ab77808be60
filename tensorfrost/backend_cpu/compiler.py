"""Compiling generated C++ with g++, cached on disk.

The cache key hashes the source, the flags, the compiler's version and the CPU's
features (``-march=native`` code must not run on another CPU). Entries are written
atomically: the library is built under a temporary name and renamed into place, then its
checksum is recorded the same way. A library is loaded only if its checksum matches, so
a truncated or corrupted entry is rebuilt, and processes compiling the same program at
once never see half a file.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import time

from ..ir.errors import CompileError

# -fno-loop-interchange: with constant trip counts g++ would move a tiled kernel's row loop
# outside its reduction loop, which spills the tile's accumulators to memory (3x slower).
BASE_FLAGS = ["-O3", "-march=native", "-fopenmp", "-fPIC", "-shared", "-std=c++17", "-fno-math-errno",
              "-fno-loop-interchange"]
C_FLAGS = ["-O2", "-fPIC", "-shared", "-pthread", "-x", "c"]
LIBRARIES = ["-lmvec", "-lm"]  # glibc's vector math (SIMD sin, exp...), then scalar libm
_COMPILER_ID: str | None = None
_CPU_ID: str | None = None


class CompileStats:
    """Counters of this process (for tests and benchmarks)."""

    compiles = 0
    cache_hits = 0
    compile_seconds = 0.0


def cache_dir() -> str:
    path = os.environ.get("TENSORFROST_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache",
                                                                   "tensorfrost")
    os.makedirs(path, exist_ok=True)
    return path


def compiler() -> str:
    found = os.environ.get("CXX") or shutil.which("g++")
    if not found:
        raise CompileError("no C++ compiler found: install g++ (with OpenMP), or set CXX; the cpu backend "
                           "compiles every program to native code")
    return found


def _compiler_id() -> str:
    global _COMPILER_ID
    if _COMPILER_ID is None:
        out = subprocess.run([compiler(), "--version"], capture_output=True, text=True)
        _COMPILER_ID = out.stdout.splitlines()[0] if out.stdout else compiler()
    return _COMPILER_ID


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


def _file_digest(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _write_atomic(path: str, data: bytes) -> None:
    fd, temp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise


def build_library(source: str, name: str, extra_flags: str = "", language: str = "c++") -> str:
    """The path of a shared library built from ``source`` (from the cache when possible)."""
    flags = (BASE_FLAGS if language == "c++" else C_FLAGS) + extra_flags.split()
    key_text = "\n".join([source, " ".join(flags + LIBRARIES), _compiler_id(), _cpu_id()])
    key = hashlib.sha256(key_text.encode()).hexdigest()[:32]
    directory = cache_dir()
    library = os.path.join(directory, f"{name}-{key}.so")
    checksum = library + ".sha256"
    source_path = os.path.join(directory, f"{name}-{key}.{'cpp' if language == 'c++' else 'c'}")
    if os.path.exists(library) and os.path.exists(checksum):
        with open(checksum) as f:
            recorded = f.read().strip()
        if recorded == _file_digest(library):
            CompileStats.cache_hits += 1
            return library
    if not os.path.exists(source_path):
        _write_atomic(source_path, source.encode())
    fd, temp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".so")
    os.close(fd)
    start = time.perf_counter()
    try:
        result = subprocess.run([compiler(), *flags, "-o", temp, source_path, *LIBRARIES], capture_output=True,
                                text=True)
        if result.returncode != 0:
            message = result.stderr.strip()
            if len(message) > 4000:
                message = message[:4000] + "\n... (truncated)"
            raise CompileError(f"the C++ compiler failed on the generated source {source_path}:\n{message}")
        digest = _file_digest(temp)
        os.replace(temp, library)
        _write_atomic(checksum, digest.encode())
    finally:
        if os.path.exists(temp):
            os.unlink(temp)
    CompileStats.compiles += 1
    CompileStats.compile_seconds += time.perf_counter() - start
    return library
