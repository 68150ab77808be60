"""Kernels that differ only in their float constants compile once (optimization
"shared_kernels", backend_cpu/shared_kernels.py): the constants become arguments, and a
kernel whose code is then another's runs that kernel's functions.

Every test compares with numpy, and with the same program compiled with the optimization
off, bit for bit: a constant passed as an argument is the same float32 as the literal, and
the operations are the same, so nothing may change but the number of functions compiled."""

import re

import numpy as np
import pytest

import tensorfrost as tf


def _diffusion(steps: int, rate=lambda s: 0.1 + 0.001 * s):
    def program():
        u = tf.input([-1, -1], tf.float32)
        i, j = u.indices
        for s in range(steps):
            nearby = u[i - 1, j] + u[i + 1, j] if s % 2 else u[i, j - 1] + u[i, j + 1]
            u = u + rate(s) * (nearby - 2.0 * u)
        return [u]
    return program


def _diffusion_reference(u, steps: int, rate=lambda s: 0.1 + 0.001 * s):
    u = u.astype(np.float64)
    for s in range(steps):
        p = np.pad(u, 1, mode="edge")
        nearby = p[:-2, 1:-1] + p[2:, 1:-1] if s % 2 else p[1:-1, :-2] + p[1:-1, 2:]
        u = u + rate(s) * (nearby - 2.0 * u)
    return u


def _functions(prog) -> int:
    """How many row functions the program's C++ defines (one per kernel unless shared)."""
    return len(re.findall(r"void \w+_rows\([^;]*\{", prog.compiled_code()))


def _both(build, *inputs):
    """The program's outputs with sharing on and off, the counts of shared kernels and of
    row functions in each build."""
    results = []
    for off in (False, True):
        tf.optimizations.reset_counts()
        with tf.optimizations.disabled(*(["shared_kernels"] if off else [])):
            prog = tf.compile(build)
            out = prog(*inputs)
        out = out if isinstance(out, (list, tuple)) else [out]
        results.append(([t.numpy for t in out], tf.optimizations.counts()["shared_kernels"], _functions(prog)))
    return results


@pytest.fixture(autouse=True)
def _cpu():
    tf.initialize(tf.cpu)


@pytest.mark.parametrize("disabled", [(), ("chains",)], ids=["in bands", "kernel by kernel"])
def test_a_long_chain_of_steps_compiles_a_few_functions(disabled, rng):
    """40 diffusion steps, each with its own rate: 40 kernels, and (with the first and last
    kernels, which differ) a handful of functions; in bands (temporal chains) or kernel by
    kernel from the host, over several translation units."""
    u = rng.standard_normal((70, 45)).astype(np.float32)
    with tf.optimizations.disabled(*disabled):
        (shared, fired, functions), (alone, fired_off, functions_off) = _both(_diffusion(40), u)
    assert fired >= 30 and fired_off == 0, (fired, fired_off)
    assert functions <= 10 < 30 <= functions_off, (functions, functions_off)
    np.testing.assert_array_equal(shared[0], alone[0])
    # float32 steps of a contraction (rates < 0.15): the error stays a few ulp of |u| <= 4
    np.testing.assert_allclose(shared[0], _diffusion_reference(u, 40), rtol=0, atol=2e-5)


def test_kernels_of_other_constants_in_float64_and_float32(rng):
    """Rates that differ in float64 by less than a float32 ulp, a second constant in each
    kernel and a float64 program: each kernel gets its own values."""
    def program():
        x = tf.input([-1], tf.float64)
        y = tf.input([-1], tf.float32)
        i = x.indices[0]
        outs = []
        for s in range(5):
            x = x[i - 1] * (1.0 + 1e-12 * s) + x[i + 1] * (0.5 - 0.125 * s)
            y = y[i + 1] * (0.25 + s) - y[i - 1] * 3.5 * s
            outs += [x, y]
        return outs
    x, y = rng.standard_normal(300), rng.standard_normal(300).astype(np.float32)
    (shared, fired, _), (alone, _, _) = _both(program, x, y)
    assert fired > 0
    want_x, want_y = x.copy(), y.astype(np.float64)
    for s, (got_x, got_y, off_x, off_y) in enumerate(zip(shared[::2], shared[1::2], alone[::2], alone[1::2])):
        want_x = np.concatenate([want_x[:1], want_x[:-1]]) * (1.0 + 1e-12 * s) + \
            np.concatenate([want_x[1:], want_x[-1:]]) * (0.5 - 0.125 * s)
        want_y = np.concatenate([want_y[1:], want_y[-1:]]) * (0.25 + s) - \
            np.concatenate([want_y[:1], want_y[:-1]]) * 3.5 * s
        np.testing.assert_array_equal(got_x, off_x)
        np.testing.assert_array_equal(got_y, off_y)
        np.testing.assert_allclose(got_x, want_x, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got_y, want_y, rtol=1e-5, atol=1e-5 * 8.0 ** s)


def test_integer_constants_are_not_arguments(rng):
    """An index shift or an integer factor picks how a kernel is compiled (clamped or not,
    wrapping arithmetic): kernels that differ in one never share."""
    def program():
        x = tf.input([-1], tf.int32)
        i = x.indices[0]
        return [x[i - 1] * 3 + 1, x[i - 2] * 5 + 1]
    x = rng.integers(-1000, 1000, 257).astype(np.int32)
    (shared, fired, _), (alone, _, _) = _both(program, x)
    assert fired == 0
    want = [np.concatenate([x[:1], x[:-1]]) * 3 + 1, np.concatenate([x[:1], x[:1], x[:-2]]) * 5 + 1]
    for got, off, w in zip(shared, alone, want):
        np.testing.assert_array_equal(got, w)
        np.testing.assert_array_equal(off, w)


RATES = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35)


def _smoothing():
    @tf.kernel_program
    def smooth(x: tf.Arg([-1], tf.float32)):
        u = x
        for rate in RATES:
            i = u.indices[0]
            v = u + rate * (u[i - 1] + u[i + 1] - 2.0 * u)
            count = 0
            while v > 4.0 and count < 3:  # a while on data, its counter from 0
                v = v * 0.5
                count += 1
            u = v + count
        return u
    return smooth


def test_a_kernel_program_whose_steps_differ_in_a_rate(rng):
    """A kernel program (the AST front end) of smoothing steps, each with its own rate and a
    while loop on data: shares its kernels, the same bits as without sharing, and numpy's
    answer (in float32, step by step)."""
    x = (rng.random(200) * 8).astype(np.float32)
    tf.optimizations.reset_counts()
    got = _smoothing()(x).numpy
    assert tf.optimizations.counts()["shared_kernels"] > 0
    with tf.optimizations.disabled("shared_kernels"):
        np.testing.assert_array_equal(_smoothing()(x).numpy, got)
    u = x.copy()
    for rate in RATES:
        p = np.pad(u, 1, mode="edge")
        v = u + np.float32(rate) * ((p[:-2] + p[2:]) - np.float32(2.0) * u)
        count = np.zeros_like(v)
        for _ in range(3):
            live = v > 4.0
            v = np.where(live, v * np.float32(0.5), v)
            count += live
        u = v + count
    np.testing.assert_allclose(got, u, rtol=1e-6, atol=1e-6)
