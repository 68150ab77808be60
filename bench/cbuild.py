"""Building the hand-written C kernels of ``bench/c`` and the STREAM triad.

All ``bench/c/*.c`` files become one shared library, built with the flags the issue fixes
for the "C/OpenMP" column (``gcc -O3 -march=native -fopenmp -ffast-math ... -lmvec``) and
cached under ``bench/_build`` by a hash of the sources and flags. It is loaded with ctypes;
arrays are passed as raw pointers (``ptr(array)``).
"""

from __future__ import annotations

import ctypes
import glob
import hashlib
import os
import shutil
import subprocess
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
C_DIR = os.path.join(HERE, "c")
BUILD_DIR = os.environ.get("TENSORFROST_BENCH_BUILD") or os.path.join(HERE, "_build")
CFLAGS = ["-O3", "-march=native", "-fopenmp", "-ffast-math", "-fPIC", "-shared"]
LIBS = ["-lmvec", "-lm"]

_SIGNATURES = {
    "stream_triad": (ctypes.c_double, [ctypes.c_long, ctypes.c_int, ctypes.c_void_p]),
    "w1_chain": (None, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]),
    "w2_wave_step": (None, [ctypes.c_void_p] * 4 + [ctypes.c_int, ctypes.c_int, ctypes.c_float]),
    "w3_mandelbrot": (None, [ctypes.c_void_p] * 3 + [ctypes.c_int] * 3),
    "w4_nbody_step": (None, [ctypes.c_void_p] * 4 + [ctypes.c_int, ctypes.c_float, ctypes.c_float]),
    "w5_matmul": (None, [ctypes.c_void_p] * 3 + [ctypes.c_int] * 3),
    "w5_matmul_tiled": (None, [ctypes.c_void_p] * 3 + [ctypes.c_int] * 3),
    "w7_row_sum": (None, [ctypes.c_void_p] * 2 + [ctypes.c_int] * 2),
    "c2_add_one": (None, [ctypes.c_void_p] * 2),
}
_LIBRARY = None


def compiler() -> str:
    found = shutil.which(os.environ.get("CC", "gcc"))
    if not found:
        raise RuntimeError("the hand-written C needs gcc (or $CC)")
    return found


def build() -> str:
    """The path of the shared library of all C kernels (built when the sources changed)."""
    sources = sorted(glob.glob(os.path.join(C_DIR, "*.c")))
    headers = sorted(glob.glob(os.path.join(C_DIR, "*.h")))
    digest = hashlib.sha256(" ".join([compiler(), *CFLAGS, *LIBS]).encode())
    for path in sources + headers:
        with open(path, "rb") as f:
            digest.update(path.encode() + b"\0" + f.read())
    os.makedirs(BUILD_DIR, exist_ok=True)
    library = os.path.join(BUILD_DIR, f"libbenchc-{digest.hexdigest()[:16]}.so")
    if os.path.exists(library):
        return library
    fd, temp = tempfile.mkstemp(dir=BUILD_DIR, prefix=".tmp-", suffix=".so")
    os.close(fd)
    try:
        result = subprocess.run([compiler(), *CFLAGS, "-o", temp, *sources, *LIBS], capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"building bench/c failed:\n{result.stderr[-3000:]}")
        os.replace(temp, library)
    finally:
        if os.path.exists(temp):
            os.unlink(temp)
    return library


def library() -> ctypes.CDLL:
    """The loaded C library, with argument types set for every kernel."""
    global _LIBRARY
    if _LIBRARY is None:
        lib = ctypes.CDLL(build())
        for name, (restype, argtypes) in _SIGNATURES.items():
            fn = getattr(lib, name)
            fn.restype = restype
            fn.argtypes = argtypes
        _LIBRARY = lib
    return _LIBRARY


def ptr(array: np.ndarray) -> int:
    """The address of a C-contiguous array's data, for a ``c_void_p`` argument."""
    if not array.flags.c_contiguous:
        raise ValueError("C kernels take C-contiguous arrays")
    return array.ctypes.data


def stream_triad(megabytes: int = 256, repeats: int = 10) -> dict:
    """Run the STREAM triad on three arrays of ``megabytes`` each; returns the best and
    median rate in GB/s (24 bytes per element, STREAM's count)."""
    n = megabytes * 1024 * 1024 // 8
    rates = np.zeros(repeats, np.float64)
    best = library().stream_triad(n, repeats, ptr(rates))
    if best < 0:
        raise RuntimeError("STREAM triad failed (out of memory or wrong result)")
    return {"best_gbs": float(best), "median_gbs": float(np.median(rates)), "array_mb": megabytes,
            "repeats": repeats}
