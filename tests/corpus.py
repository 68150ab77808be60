"""The corpus of realistic user programs: the registry that corpus_*.py files fill.

Each case is a program written the way a user coming from numpy, Numba, Warp, Taichi or
upstream TensorFrost writes it, with an independent reference (numpy or plain Python).
``test_corpus.py`` runs every case on every backend and checks that tracing it twice
gives the same generated code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass
class Case:
    name: str
    style: str  # "native" (@tf.kernel_program) or "tracing" (tf.compile with tf.loop / .val)
    build: Callable  # () -> compiled program, on the current backend
    inputs: Callable  # (rng) -> tuple of arguments (numpy arrays or Python numbers)
    reference: Callable  # (*inputs) -> array or tuple of arrays
    rtol: float
    atol: float


CASES: dict[str, Case] = {}


def program(style: str, inputs, reference, rtol: float = 1e-5, atol: float = 1e-6):
    """Register the decorated builder (named after the program) as a corpus case."""
    if style not in ("native", "tracing"):
        raise ValueError(f"style must be 'native' or 'tracing', got {style!r}")

    def register(build):
        name = f"{build.__name__}[{style}]"
        if name in CASES:
            raise ValueError(f"corpus case {name} is defined twice")
        CASES[name] = Case(name, style, build, inputs, reference, rtol, atol)
        return build
    return register


def as_list(result) -> list:
    return list(result) if isinstance(result, (tuple, list)) else [result]


def check(case: Case, got, want) -> None:
    got, want = as_list(got), as_list(want)
    assert len(got) == len(want), f"{case.name}: {len(got)} outputs, reference has {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g.numpy if hasattr(g, "numpy") else g)
        w = np.asarray(w)
        assert g.shape == w.shape or g.size == w.size == 1, f"{case.name} output {k}: shape {g.shape} vs {w.shape}"
        if w.dtype.kind in "iub":
            np.testing.assert_array_equal(g.reshape(w.shape), w, err_msg=f"{case.name} output {k}")
        else:
            np.testing.assert_allclose(g.reshape(w.shape), w, rtol=case.rtol, atol=case.atol,
                                       err_msg=f"{case.name} output {k}")
