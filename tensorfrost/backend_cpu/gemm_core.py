"""The GEMM core library: gemm.hpp compiled once per compiler, flags and CPU, not into every
program that multiplies matrices (it cost each of their units 0.25 s of g++). Programs call
its entry point ``tf_gemm_core_<digest>``, which g++ sees as the macro ``TF_GEMM_CORE``
(core_library.py says how a core is built, named and loaded).
"""

from __future__ import annotations

from . import gemm
from .core_library import CoreLibrary

NAME = "tf_gemm_core"
CORE = CoreLibrary(NAME, gemm.CORE_SYMBOL, gemm.CORE_MARKER, gemm.core_source,
                   lambda executable: any("tf_gemm(" in kernel for kernel in executable.kernel_sources))
entry_point, ensure = CORE.entry_point, CORE.ensure
