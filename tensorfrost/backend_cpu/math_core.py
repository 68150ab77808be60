"""The math core library: float32 sin, cos and tan compiled once per compiler, flags and CPU
as scalar and vector functions (math_core.hpp), which the units of programs that call them
declare (float_math.hpp) and g++'s vectorized loops call. A vector of arguments below 2^24
skips the reduction of larger ones: sin 1.25 -> 0.76 ns an element, the same bits. Switch:
``TENSORFROST_DISABLE=math_core`` (the units inline float_math.hpp's versions instead);
counter: ``math_core``, programs compiled to call it. On x86-64 with g++ only: elsewhere (or
with clang, which has no ``simd`` attribute) the units call its scalar functions.
"""

from __future__ import annotations

import os

from .core_library import CoreLibrary

FUNCTIONS = ("sin", "cos", "tan")
MARKER = "// tensorfrost: calls the math core"  # in a unit that compiler.py links to the core
SYMBOL = "TF_MATH_CORE"  # the core's names start with this macro's value (it holds the core's key)
_HERE = os.path.dirname(__file__)


def source() -> str:
    with open(os.path.join(_HERE, "float_math.hpp")) as math, open(os.path.join(_HERE, "math_core.hpp")) as core:
        return "\n".join(["#define TF_MATH_CORE_LIBRARY", "#include <stdint.h>", math.read(), core.read()])


def called_by(kernel_sources: list[str]) -> bool:
    """Whether kernels with these sources call the core's functions."""
    return any(f"tf_{name}_f32(" in kernel for kernel in kernel_sources for name in FUNCTIONS)


CORE = CoreLibrary("tf_math_core", SYMBOL, MARKER, source, lambda executable: executable.calls_math_core)
