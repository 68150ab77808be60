"""Differential testing: random programs (elementwise math, shifted loads, reductions,
transposes, loops, loops left early, conditions, scatters) give the same results in the
numpy reference interpreter before any pass, after every pass, and on every backend; and
random kernel programs with native control flow give, through every pass and on every
backend, what they give run as plain Python (program_generator.py), and their gradients
(through loops, per-element ifs, break and continue) match central differences of that
plain Python in float64.

TENSORFROST_DIFFERENTIAL_EXAMPLES=2000 runs that many examples of each generated-program
test instead of the few that keep the suite fast."""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from program_generator import central_gradients, describe, inputs, load, oracle, programs

import tensorfrost as tf
from tensorfrost.ir.interpreter import run as interpret
from tensorfrost.ir.node import clone_program
from tensorfrost.opt.pipeline import PASSES
from tensorfrost.tracing.trace import trace

GENERATED = int(os.environ.get("TENSORFROST_DIFFERENTIAL_EXAMPLES", "0"))

UNARY = {
    "neg": lambda a: -a, "abs": tf.abs, "sin": tf.sin, "tanh": tf.tanh, "cos": tf.cos,
    "soft_exp": lambda a: tf.exp(tf.tanh(a)), "sqrt_abs": lambda a: tf.sqrt(tf.abs(a)),
    "square": lambda a: tf.clamp(a * a, -50.0, 50.0),
}
BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: tf.tanh(a * b) * 4.0,
    "min": tf.min, "max": tf.max, "safe_div": lambda a, b: a / (tf.abs(b) + 1.0),
}

step = st.one_of(
    st.tuples(st.just("unary"), st.sampled_from(sorted(UNARY)), st.integers(0, 99)),
    st.tuples(st.just("binary"), st.sampled_from(sorted(BINARY)), st.integers(0, 99), st.integers(0, 99)),
    st.tuples(st.just("shift"), st.integers(0, 99), st.integers(-2, 2), st.integers(-2, 2)),
    st.tuples(st.just("reduce"), st.sampled_from(["sum", "max", "min", "mean"]), st.integers(0, 99),
              st.integers(0, 1)),
    st.tuples(st.just("transpose"), st.integers(0, 99)),
    st.tuples(st.just("select"), st.integers(0, 99), st.integers(0, 99), st.integers(0, 99)),
    st.tuples(st.just("loop"), st.integers(0, 99), st.integers(0, 99), st.integers(0, 4)),
    st.tuples(st.just("escape"), st.integers(0, 99), st.integers(0, 99), st.integers(0, 6)),
    st.tuples(st.just("if"), st.integers(0, 99), st.integers(0, 99)),
    st.tuples(st.just("scatter"), st.integers(0, 99), st.integers(0, 99)),
)

recipes = st.tuples(st.integers(1, 3), st.lists(step, min_size=1, max_size=10), st.integers(0, 99),
                    st.integers(0, 99))


def build(recipe):
    """A tensor program (a Python function) replaying the recipe."""
    n_inputs, steps, out_a, out_b = recipe

    def program():
        values = [tf.input([-1, -1], tf.float32)]
        n = values[0].shape[0]
        values += [tf.input([n, n], tf.float32) for _ in range(n_inputs - 1)]
        for s in steps:
            kind = s[0]
            if kind == "unary":
                values.append(UNARY[s[1]](values[s[2] % len(values)]))
            elif kind == "binary":
                values.append(BINARY[s[1]](values[s[2] % len(values)], values[s[3] % len(values)]))
            elif kind == "shift":
                a = values[s[1] % len(values)]
                i, j = a.indices
                values.append(a[i + s[2], j + s[3]])
            elif kind == "reduce":
                a, axis = values[s[2] % len(values)], s[3]
                reduced = {"sum": tf.sum, "max": tf.max, "min": tf.min, "mean": tf.mean}[s[1]](a, axis=axis)
                values.append(a * 0.5 + tf.unsqueeze(reduced, axis) * 0.1)
            elif kind == "transpose":
                values.append(values[s[1] % len(values)].T)
            elif kind == "select":
                a, b, c = (values[k % len(values)] for k in s[1:])
                values.append(tf.select(a > b, a, c))
            elif kind == "loop":
                a, b = values[s[1] % len(values)], values[s[2] % len(values)]
                v = a * 1.0
                with tf.loop(s[3]) as k:
                    v.val = tf.tanh(v * 0.9 + b + tf.float(k) * 0.1)
                values.append(v)
            elif kind == "escape":  # lanes leave the loop at different iterations
                a, b = values[s[1] % len(values)], values[s[2] % len(values)]
                v = a * 1.0
                with tf.loop(s[3]):
                    v.val = tf.tanh(v * 0.9 + b)
                    with tf.if_cond(v * b > 0.3):
                        tf.break_loop()
                values.append(v)
            elif kind == "if":
                a, b = values[s[1] % len(values)], values[s[2] % len(values)]
                v = a * 1.0
                with tf.if_cond(b > 0.0):
                    v.val = v * 2.0 - b
                values.append(v)
            elif kind == "scatter":
                a, b = values[s[1] % len(values)], values[s[2] % len(values)]
                i, j = a.indices
                hist = tf.zeros([n])
                tf.scatterAdd(hist[tf.int(tf.abs(b) * 3.0) % n], a)
                values.append(a * 0.5 + tf.unsqueeze(hist, 0) * 0.01)
        return [values[out_a % len(values)], values[out_b % len(values)]]
    return program


def _inputs(recipe, size, seed):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-2, 2, (size, size)).astype(np.float32) for _ in range(recipe[0])]


def _assert_close(got, want):
    # Values stay in about [-100, 100]; float32 rounding (and fused multiply-adds in native
    # code) over about ten chained ops stays well under 1e-4 of that.
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(recipes, st.integers(1, 7), st.integers(0, 1000))
def test_every_pass_preserves_results(recipe, size, seed):
    arrays = _inputs(recipe, size, seed)
    program = trace(build(recipe))
    want = interpret(clone_program(program), arrays)
    for _, run_pass in PASSES:
        program = run_pass(program)
        _assert_close(interpret(clone_program(program), arrays), want)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(recipes, st.integers(1, 9), st.integers(0, 1000))
def test_backends_match_the_reference_interpreter(backend, recipe, size, seed):
    arrays = _inputs(recipe, size, seed)
    program = build(recipe)
    want = interpret(trace(program), arrays)
    with tf.optimizations.recording() as fired:
        got = [t.numpy for t in tf.compile(program)(*arrays)]
    _assert_close(got, want)
    if "math_core" in fired:  # sin and cos through the core's vector functions: the inline versions' bits
        with tf.optimizations.disabled("math_core"):
            inline = [t.numpy for t in tf.compile(program)(*arrays)]
        for g, i in zip(got, inline):
            np.testing.assert_array_equal(g, i)


def test_interpreter_runs_gradients_after_the_autodiff_pass_only():
    """The oracle interprets a program with ``tf.grad`` once the autodiff pass has expanded
    it (d/dx sum(x^2) = 2x); before that pass it refuses with an InternalError."""
    def square_grad():
        x = tf.input([-1], tf.float32)
        return tf.grad(tf.sum(x * x), x)

    x = np.linspace(-2, 2, 9).astype(np.float32)
    program = trace(square_grad)
    with pytest.raises(tf.InternalError, match="autodiff pass expands it"):
        interpret(clone_program(program), [x])
    for name, run_pass in PASSES:
        program = run_pass(program)
        if name == "autodiff":
            break
    else:
        raise AssertionError("no pass named 'autodiff' in the pipeline")
    np.testing.assert_allclose(interpret(program, [x])[0], 2 * x, rtol=1e-6)


def _assert_exact(got, want, source):
    for k, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g)
        g = np.broadcast_to(g.reshape(()), w.shape) if g.size == 1 else g  # a value that stayed uniform
        np.testing.assert_array_equal(g, w, err_msg=f"output {k}; {describe(source)}")


@settings(max_examples=GENERATED or 60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.integers(1, 9), st.integers(0, 1000))
def test_generated_control_flow_through_every_pass(source, size, seed):
    arrays = inputs(size, seed)
    want = oracle(source, arrays)
    tf.initialize(tf.interpreter)
    try:
        program = tf.kernel_program(load(source)).traced
    finally:
        tf.initialize(tf.cpu)
    _assert_exact(interpret(clone_program(program), arrays), want, source)
    for _, run_pass in PASSES:
        program = run_pass(program)
    _assert_exact(interpret(clone_program(program), arrays), want, source)


@settings(max_examples=GENERATED or 12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                            HealthCheck.function_scoped_fixture])
@given(programs(), st.integers(1, 40), st.integers(0, 1000))
def test_generated_control_flow_on_every_backend(backend, source, size, seed):
    arrays = inputs(size, seed)
    result = tf.kernel_program(load(source))(*arrays)
    _assert_exact([t.numpy for t in result], oracle(source, arrays), source)


@settings(max_examples=GENERATED or 40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(smooth=True), st.integers(1, 9), st.integers(0, 1000))
def test_generated_gradients_match_central_differences(source, size, seed):
    _check_gradients(source, size, seed, "interpreter")


@settings(max_examples=GENERATED or 5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(smooth=True), st.integers(1, 9), st.integers(0, 1000))
def test_generated_gradients_are_the_same_without_dead_sets(source, size, seed):
    _check_dead_sets(source, size, seed)


def _check_dead_sets(source, size, seed) -> int:
    """The gradients with dead_sets on and off agree bit for bit on cpu and in the interpreter
    (a dropped update is one no read sees), and cpu agrees with the interpreter; returns how
    many updates it dropped."""
    arrays = inputs(size, seed, smooth=True)
    tf.initialize(tf.cpu)
    with tf.optimizations.disabled("program_cache"):
        on = tf.kernel_program(load(source, function="with_grad"))
        with tf.optimizations.disabled("dead_sets"):
            off = tf.kernel_program(load(source, function="with_grad"))
    assert "dead_sets" not in off.optimizations_fired
    got = [t.numpy for t in on(*arrays)]
    _assert_exact(got, [t.numpy for t in off(*arrays)], source)
    reference = interpret(clone_program(on.program), arrays)
    _assert_exact(reference, interpret(clone_program(off.program), arrays), source)
    for g, w in zip(got, reference):  # C++'s libm and numpy's differ by an ulp in tanh, sin
        np.testing.assert_allclose(g, np.broadcast_to(w, g.shape), rtol=1e-5, atol=1e-6, err_msg=describe(source))
    return on.optimizations_fired.get("dead_sets", 0)


def _check_gradients(source, size, seed, backend):
    arrays = inputs(size, seed, smooth=True)
    want = central_gradients(source, arrays, 1e-3)
    tf.initialize(getattr(tf, backend))
    try:
        grads = tf.kernel_program(load(source, function="with_grad"))(*arrays)
    finally:
        tf.initialize(tf.cpu)
    for k in (0, 1):
        got = np.broadcast_to(grads[k].numpy, want[k].shape)
        smooth = ~np.isnan(want[k])  # elements whose path through the branches is the same nearby
        # float32 chains of ~20 ops against float64 differences with h = 1e-3
        np.testing.assert_allclose(got[smooth], want[k][smooth], rtol=2e-3, atol=2e-3,
                                   err_msg=f"gradient w.r.t. input {k}; {describe(source)}")


WITH_GRAD = """
def with_grad(a: F.Arg([-1], F.float32), b: F.Arg([-1], F.float32), c: F.Arg([-1], F.int32)):
    out = generated(a, b, c) + a * 0.0  # per element even where the result is not
    return F.grad(F.sum(out), a), F.grad(F.sum(out), b), out
"""

# Programs the generator found, shrunk by hand: (source, size, seed).
FOUND = {
    # The count of elements still in a masked while (inside a per-element if) counted the
    # elements outside the if too: the loop never ended.
    "while_in_per_element_if": ("""
def generated(a: F.Arg([-1], F.float32), b: F.Arg([-1], F.float32), c: F.Arg([-1], F.int32)):
    f0 = -3.25
    n1 = 0
    if a < -1.0:
        k1 = 0
        while c != 2 and k1 < 4:
            k1 += 1
            if 2.75 > f0:
                f0 = F.tanh(F.min(F.float(n1), b)) * 2.0
                break
                n1 = F.int(a)
    return f0 * 0.75 + b - a * F.float(n1)
""", 7, 397),
    # Two reverse loops whose trip counts were read from two different buffers merged into
    # one: equal-looking reads of memory compared as the same size.
    "two_loops_with_counted_trips": ("""
def generated(a: F.Arg([-1], F.float32), b: F.Arg([-1], F.float32), c: F.Arg([-1], F.int32)):
    n1 = F.int(0.5) + 1
    f1 = F.tanh(F.sin(-1.0 + a)) * 2.0
    k0 = 0
    while (n1 <= 1) and k0 < 4:
        k0 += 1
        for k2 in range(F.max(c, 0) + 1):
            a = F.tanh(F.sin(1.0)) * 2.0
        for k2 in range(2, c):
            f1 = F.tanh(f1 + f1) * 2.0
    return f1 - a
""", 2, 420),
    # A masked while in a host loop under a per-element if: the mask's declaration lived only
    # in fusion's plan, and planning the loop again after guarding it by the if lost it.
    "masked_while_in_guarded_host_loop": ("""
def generated(a: F.Arg([-1], F.float32), b: F.Arg([-1], F.float32), c: F.Arg([-1], F.int32)):
    f0 = -3.0
    f1 = b
    n0 = 1
    if not ((c < -2) or (not (f1 < 0.5))):
        for k1 in range(3):
            k2 = 0
            while ((c <= 1) or (k1 >= -1)) and k2 < 4:
                k2 += 1
                n0 += 2
                if not (F.float(k1) != 3.25):
                    continue
            if f0 < f1:
                break
            f1 = F.tanh(((2.75 * -0.25) * (a + -2.0))) * 2.0
    return f0 * 0.75 + f1 - a * F.float(n0)
""", 9, 267),
    # dead_sets on and off differed in a last bit: dropping updates let g++ vectorize a loop,
    # and glibc's vector tanh and sin round differently from its scalar ones (float32 math is
    # now the same arithmetic in both, float_math.hpp).
    "dead_sets_changed_what_vectorized": ("""
def generated(a: F.Arg([-1], F.float32), b: F.Arg([-1], F.float32), c: F.Arg([-1], F.int32)):
    f0 = 3.25
    f1 = b
    n0 = 2
    n1 = 0
    if not (f0 < f1):
        for k1 in range(3):
            k2 = 0
            while (not ((f0 < 0.75) and (not (n0 < 0)))) and k2 < 4:
                k2 += 1
                n0 = n0
            f0 = F.tanh(((f0) + (-f0))) * 2.0
            k2 = 0
            while ((2.0 < f1) and (not (n0 >= 2))) and k2 < 4:
                k2 += 1
                f0 = F.tanh((-(a))) * 2.0
                a = F.tanh(((F.float(n1) - F.float(c)) - (F.float(k1) - F.float(c)))) * 2.0
        f0 = F.tanh((F.min(((a if n0 <= 0 else 0.0)), (0.25 - F.float(n1))))) * 2.0
    elif c < 0:
        f0 = F.tanh(((F.float(n1)) - (F.min(f0, F.float(c))))) * 2.0
        if n1 <= 0:
            n1 = n1 + 1
        elif not ((n0 >= 0) or (n0 != 2)):
            for k2 in range(c):
                n0 = -2
            f0 = F.tanh((F.max((F.min(f0, 0.0)), (F.float(n0))))) * 2.0
            n0 += 1
    else:
        n0 += 2
        n0 += 1
    f0 = F.tanh((F.sin((f1)))) * 2.0
    return f0 * 0.75 + f1 - a * F.float(n0 + n1)
""", 4, 556),
}


@pytest.mark.parametrize("backend", ["interpreter", "cpu"])
@pytest.mark.parametrize("name", sorted(FOUND))
def test_gradients_of_programs_random_testing_found(name, backend):
    source, size, seed = FOUND[name]
    _check_gradients(source.lstrip() + WITH_GRAD, size, seed, backend)


def test_dead_sets_fires_on_the_programs_random_testing_found():
    """Reverse loops recompute their state: each found program drops updates (the oracle reaches it)."""
    for name, (source, size, seed) in sorted(FOUND.items()):
        assert _check_dead_sets(source.lstrip() + WITH_GRAD, size, seed) > 0, name


@pytest.mark.parametrize("name", sorted(FOUND))
def test_gradients_of_programs_random_testing_found_after_every_pass(name):
    """The oracle runs the program after each pass (the autodiff pass once placed a loop
    bound in its scope twice, which later passes hid)."""
    source, size, seed = FOUND[name]
    source = source.lstrip() + WITH_GRAD
    arrays = inputs(size, seed, smooth=True)
    want = central_gradients(source, arrays, 1e-3)
    tf.initialize(tf.interpreter)
    try:
        program = tf.kernel_program(load(source, function="with_grad")).traced
    finally:
        tf.initialize(tf.cpu)
    for pass_name, run_pass in PASSES:
        program = run_pass(program)
        got = interpret(clone_program(program), arrays)
        for k in (0, 1):
            smooth = ~np.isnan(want[k])
            np.testing.assert_allclose(np.broadcast_to(got[k], want[k].shape)[smooth], want[k][smooth], rtol=2e-3,
                                       atol=2e-3, err_msg=f"after {pass_name}, gradient w.r.t. input {k}")
