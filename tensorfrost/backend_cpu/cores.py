"""Every core library (core_library.py), for the compiler and the program cache."""

from . import gemm_core, math_core

CORES = (gemm_core.CORE, math_core.CORE)
