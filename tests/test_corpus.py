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


@pytest.mark.parametrize("name", NAMES)
def test_program(backend, name):
    case = CASES[name]
    args = case.inputs(np.random.default_rng(7))
    program = case.build()
    check(case, program(*args), case.reference(*args))


@pytest.mark.parametrize("name", NAMES)
def test_second_trace_gives_the_same_code(name):
    tf.initialize(tf.cpu)
    case = CASES[name]
    first, second = case.build(), case.build()
    assert first.compiled_code() == second.compiled_code()
