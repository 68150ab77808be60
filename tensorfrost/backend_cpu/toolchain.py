"""Which C++ compiler ``$CXX`` is, and how flags are spelled for it (compiler.py builds with them).

Two identities, for two uses. The *binary* (the file the command resolves to on PATH, with
its size and modification time) is read without running anything; a cache entry records
the binary that built it and is loaded only by a process whose command resolves to the same
one (or to none: a cache hit needs no compiler installed), so a library g++ built is never
loaded for clang, even when one name (``c++``) points at either. The *family* comes from
what the compiler says of itself (``$CXX --version``), never from its name: it picks the
flags that differ between g++ and clang, and is asked only before a compile.

The generated C++ is the same for every compiler; the few spellings that differ are chosen
by the preprocessor (``__clang__``, in prelude.hpp and gemm.hpp).
"""

from __future__ import annotations

import os
import re
import shutil

GCC, CLANG, UNKNOWN = "gcc", "clang", "unknown"  # (an unknown compiler gets g++'s spellings)
# Flags of the base set that only g++ takes: clang has no loop interchange to switch off and
# rejects the flag.
GCC_ONLY_FLAGS = frozenset({"-fno-loop-interchange"})
# The generated code's ``optimize`` attributes (tf_main at -O1, to save g++ time) are g++'s:
# clang ignores them, and is told not to warn of each.
CLANG_ONLY_FLAGS = ("-Wno-unknown-attributes",)
# Functions between these lines compile at -O1 (g++; clang ignores the pragma): those that
# only dispatch work to other functions (a kernel's rows over the threads, a chain's bands),
# where -O3 costs g++ time and gains nothing. (No result differs: float math is the same
# arithmetic vectorized or not, float_math.hpp.)
QUICK_BEGIN = ("#pragma GCC push_options", '#pragma GCC optimize("O1")')
QUICK_END = "#pragma GCC pop_options"
OPENMP_PACKAGES = {GCC: "libgomp1 (g++'s OpenMP runtime)",
                   CLANG: "libomp-dev (clang's OpenMP runtime and omp.h, matching the clang version)",
                   UNKNOWN: "the compiler's OpenMP runtime (libgomp1 for g++, libomp-dev for clang)"}
# what a compiler says when it has no OpenMP: clang without libomp-dev ("'omp.h' file not
# found", "cannot find -lomp"), g++ without libgomp ("cannot find -lgomp")
_NO_OPENMP = re.compile(r"[^\n]*(?:\bomp\.h'? file not found|\bomp\.h: No such file|"
                        r"(?:cannot|unable to) find (?:library )?-l(?:g|i5|iomp5|)omp\b)[^\n]*")


def binary(words: list[str]) -> str | None:
    """The compiler's file as ``path size mtime`` (nothing is run), or None when the command
    names no file that exists (not installed, or not on PATH)."""
    found = shutil.which(words[0]) if words else None
    if found is None:
        return None
    path = os.path.realpath(found)
    try:
        info = os.stat(path)
    except OSError:
        return None
    return f"{path} {info.st_size} {info.st_mtime_ns}"


def family(version: str) -> str:
    """GCC, CLANG or UNKNOWN, from the output of ``--version`` (Apple's and distributions'
    clang say "clang version", g++ names the Free Software Foundation)."""
    if re.search(r"\bclang version\b", version):
        return CLANG
    if "Free Software Foundation" in version or re.match(r"\S*(?:g\+\+|gcc)\S* \(", version):
        return GCC
    return UNKNOWN


def spelled(flags: list[str], kind: str) -> list[str]:
    """The C++ ``flags`` (as compiler.BASE_FLAGS spells them, for g++) for a compiler of
    family ``kind``."""
    if kind != CLANG:
        return list(flags)
    return [flag for flag in flags if flag not in GCC_ONLY_FLAGS] + [*CLANG_ONLY_FLAGS]


def missing_openmp(messages: str, kind: str, described: str) -> str | None:
    """The error for a compiler that cannot compile OpenMP, if its ``messages`` say so."""
    found = _NO_OPENMP.search(messages)
    if found is None:
        return None
    return (f"the C++ compiler {described} cannot compile OpenMP, which every cpu program uses "
            f"({found.group(0).strip()}): install {OPENMP_PACKAGES[kind]}, or set CXX to a compiler that has it")
