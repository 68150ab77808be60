"""Atomic scatters under heavy contention, with negative values, on every backend.

Float values are small integers so that every order of the additions gives the exact
sum; results must then equal numpy's exactly. On OpenGL the float atomics run both as
the driver's native float add (where it has one) and as compare-and-swap loops.
"""

import numpy as np
import pytest
from conftest import gl_unavailable_reason

import tensorfrost as tf

N = 1 << 20


def _select(variant: str, monkeypatch) -> None:
    """Initialize the backend of a variant: "cpu", "opengl" (native float atomics where the
    driver has them), or "opengl-cas" (compare-and-swap loops forced)."""
    if variant == "cpu":
        tf.initialize(tf.cpu)
        return
    reason = gl_unavailable_reason()
    if reason is not None:
        pytest.skip(f"no OpenGL 4.3 context: {reason}")
    tf.initialize(tf.opengl)
    from tensorfrost.backend import backend_for
    gl = backend_for(tf.opengl)
    if variant == "opengl-cas":
        monkeypatch.setattr(gl, "native_float_add", False)


@pytest.fixture(params=["cpu", "opengl", "opengl-cas"])
def float_atomics(request, monkeypatch):
    """Every way float atomics are emitted: C++, GLSL native float add, GLSL CAS loops."""
    _select(request.param, monkeypatch)
    yield request.param
    tf.initialize(tf.cpu)


def _scatter_program(dtype, slots):
    def program():
        v = tf.input([-1], dtype)
        s = tf.input([-1], tf.int32)
        i, = v.indices
        total = tf.zeros([slots], dtype)
        low = tf.const(10**6, [slots], dtype)
        high = tf.const(-10**6, [slots], dtype)
        tf.scatterAdd(total[s[i]], v[i])
        tf.scatterMin(low[s[i]], v[i])
        tf.scatterMax(high[s[i]], v[i])
        return [total, low, high]
    return program


def _expected(values, index, slots):
    total = np.zeros(slots, values.dtype)
    low = np.full(slots, 10**6, values.dtype)
    high = np.full(slots, -10**6, values.dtype)
    np.add.at(total, index, values)
    np.minimum.at(low, index, values)
    np.maximum.at(high, index, values)
    return total, low, high


def _million_scatters(dtype, slots, rng):
    values = rng.integers(-7, 5, N).astype(dtype.numpy)  # mostly negative: sums go below zero
    index = rng.integers(0, slots, N).astype(np.int32)
    got = [t.numpy for t in tf.compile(_scatter_program(dtype, slots))(values, index)]
    for out, want in zip(got, _expected(values, index, slots), strict=True):
        np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("slots", [1, 1024])
def test_million_float_scatters_into_few_slots(float_atomics, rng, slots):
    _million_scatters(tf.float32, slots, rng)


@pytest.mark.parametrize("slots", [1, 1024])
def test_million_int_scatters_into_few_slots(backend, rng, slots):
    _million_scatters(tf.int32, slots, rng)


def test_float_min_max_of_negative_fractions(float_atomics, rng):
    values = (-rng.random(50_000) * 1e3).astype(np.float32)  # all negative: bit-pattern order is wrong
    values[::7] *= -1.0
    index = rng.integers(0, 64, values.size).astype(np.int32)
    total, low, high = tf.compile(_scatter_program(tf.float32, 64))(values, index)
    _, want_low, want_high = _expected(values, index, 64)
    np.testing.assert_array_equal(low.numpy, want_low)
    np.testing.assert_array_equal(high.numpy, want_high)
    want_total = np.zeros(64, np.float64)
    np.add.at(want_total, index, values.astype(np.float64))
    np.testing.assert_allclose(total.numpy, want_total, rtol=1e-4, atol=1e-2)
