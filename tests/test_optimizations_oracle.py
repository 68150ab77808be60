"""Every optimization under an oracle that reaches it (issue 26).

Random programs built to reach each optimization (oracle_programs.py) run in the IR
interpreter before any pass (the reference); in it after every pass with the race check
(each kernel's elements one at a time, so a kernel whose elements race fails); on cpu with
every optimization on, again from the program cache, with the thresholds of the GEMM and
of band kernels lowered so that small programs reach them, and with each optimization that
fired switched off; and on opengl. All must agree bit for bit (the programs are exact in
float32). The counters say which optimizations each program reached:
``TENSORFROST_ORACLE_EXAMPLES=5000`` runs that many examples and prints, per optimization,
how many of them it fired in.
"""

import collections
import contextlib
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle_programs import arrays, build, describe, recipes

import tensorfrost as tf
from tensorfrost.backend_cpu import gemm, temporal
from tensorfrost.interpreter_backend import run_compiled
from tensorfrost.ir.interpreter import run as interpret
from tensorfrost.tracing.trace import trace

EXAMPLES = int(os.environ.get("TENSORFROST_ORACLE_EXAMPLES", "0"))
FIRED_IN = collections.Counter()  # optimization -> examples it fired in (this process)


def _assert_exact(got, want, what: str, recipe) -> None:
    for k, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g)
        g = np.broadcast_to(g.reshape(()), w.shape) if g.size == 1 and w.size != 1 else g
        np.testing.assert_array_equal(g.reshape(w.shape), w, err_msg=f"{what}, output {k}; {describe(recipe)}")


def _results(prog, inputs) -> list:
    out = prog(*inputs)
    return [t.numpy for t in (out if isinstance(out, tuple) else [out])]


def _fired_by(action) -> tuple[object, set]:
    before = tf.optimizations.counts()
    result = action()
    after = tf.optimizations.counts()
    return result, {name for name in after if after[name] > before[name]}


# Thresholds that keep small programs off the GEMM and out of bands, lowered so that the
# generated sizes (1-130) reach both, edges included.
TUNED = {(gemm, "MIN_WORK"): 0, (gemm, "MIN_SIDE"): 1, (gemm, "RAGGED_MIN_WORK"): 0, (gemm, "RAGGED_MIN_SIDE"): 1,
         (temporal, "BAND"): 4}


@contextlib.contextmanager
def _tuned():
    saved = {key: getattr(*key) for key in TUNED}
    for (module, name), value in TUNED.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for (module, name), value in saved.items():
            setattr(module, name, value)


def check(recipe, seed: int, gl: bool = True) -> set:
    """Compare the recipe's program everywhere; returns the optimizations it fired on cpu."""
    fn = build(recipe)
    inputs = [arrays(recipe, seed), arrays(recipe, seed + 1)]
    want = [interpret(trace(fn), x) for x in inputs]
    # after every pass, each kernel run one element at a time: no element reaches what another writes
    _assert_exact(run_compiled(trace(fn), inputs[0], check_races=True), want[0], "compiled IR, race check", recipe)
    tf.initialize(tf.cpu)

    def compiled_and_run():
        prog = tf.compile(fn)
        return [_results(prog, x) for x in inputs]  # the second call reuses the first one's spare outputs

    got, fired = _fired_by(compiled_and_run)
    for g, w in zip(got, want):
        _assert_exact(g, w, "cpu", recipe)
    again, fired_again = _fired_by(compiled_and_run)  # the program cache's entry
    fired |= fired_again
    for g, w in zip(again, want):
        _assert_exact(g, w, "cpu from the program cache", recipe)
    with _tuned():
        tuned, fired_tuned = _fired_by(compiled_and_run)
    fired |= fired_tuned
    for g, w in zip(tuned, want):
        _assert_exact(g, w, "cpu with every matmul on the GEMM and bands of 4 rows", recipe)
    for name in sorted(fired):
        with tf.optimizations.disabled(name):
            off = compiled_and_run()
        for g, w in zip(off, want):
            _assert_exact(g, w, f"cpu without {name}", recipe)
    if gl:
        tf.initialize(tf.opengl)
        try:
            prog = tf.compile(fn)
            for x, w in zip(inputs, want):
                _assert_exact(_results(prog, x), w, "opengl", recipe)
        finally:
            tf.initialize(tf.cpu)
    FIRED_IN.update(fired)
    return fired


@settings(max_examples=EXAMPLES or 30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(recipes(), st.integers(0, 1000))
def test_optimizations_agree_with_the_interpreter(recipe, seed):
    check(recipe, seed, gl=gl_available())


def test_a_float64_product_reaches_the_float64_gemm():
    """The GEMM's double instance (the only GEMM of this recipe), under the whole oracle."""
    recipe = (True, (47, 47, 47), [("transpose", 0), ("dtype", 1, "float64", "matmul", 0)], [0])
    assert "gemm" in check(recipe, 7, gl=gl_available())


def test_steps_that_differ_in_a_constant_reach_shared_kernels():
    """A stencil chain whose steps differ only in their rate: its kernels share their code
    (drawn rarely at random, so run here under the whole oracle)."""
    recipe = (True, (40, 40, 40), [("stencil", 0, 5, "varying")], [0])
    assert "shared_kernels" in check(recipe, 3, gl=gl_available())


def test_loops_along_rows_reach_apart_axes():
    """A loop per row (and per column) that reads the element before the one it writes: the
    loop runs inside one kernel only because both accesses hold the grid axis in one place."""
    for recipe in [(False, (9, 5, 40), [("rows", 0, 0)], [0]), (True, (33, 33, 33), [("rows", 0, 1)], [0])]:
        assert "apart_axes" in check(recipe, 5, gl=gl_available())


def gl_available() -> bool:
    from conftest import gl_unavailable_reason
    return gl_unavailable_reason() is None


@pytest.fixture(scope="module", autouse=True)
def _report():
    yield
    if EXAMPLES:
        print("\noptimizations fired in examples:", dict(sorted(FIRED_IN.items())))
