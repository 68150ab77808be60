"""Every corpus program (corpus_*.py) against its reference, on every backend, and traced
twice to the same generated code (so the disk cache hits)."""

import corpus_native_a  # noqa: F401 (each module registers its cases)
import corpus_native_b  # noqa: F401
import corpus_round3_native  # noqa: F401
import corpus_round3_native_b  # noqa: F401
import corpus_round3_tracing  # noqa: F401
import corpus_tracing  # noqa: F401
import numpy as np
import pytest
from corpus import CASES, check

import tensorfrost as tf

NAMES = sorted(CASES)


# Programs holding 64-bit values (uint32 % int32 is int64, as numpy promotes): WebGPU's WGSL
# kernels refuse them, by name.
NEEDS_64_BITS = {"count_min_sketch_pcg[native]"}


@pytest.mark.parametrize("name", NAMES)
def test_program(backend, name):
    case = CASES[name]
    args = case.inputs(np.random.default_rng(7))
    if backend is tf.webgpu and name in NEEDS_64_BITS:
        with pytest.raises(tf.DTypeError, match="cannot be computed on webgpu: WGSL has no 64-bit types"):
            case.build()
        return
    program = case.build()
    check(case, program(*args), case.reference(*args))


@pytest.mark.parametrize("name", NAMES)
def test_second_trace_gives_the_same_code(name):
    tf.initialize(tf.cpu)
    case = CASES[name]
    first, second = case.build(), case.build()
    assert first.compiled_code() == second.compiled_code()
