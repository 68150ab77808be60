"""tf.optimizations: each optimization can be switched off by name (TENSORFROST_DISABLE, or a
``disabled`` block), counts how often it fired, and a program means the same with it off."""

import subprocess
import sys

import numpy as np
import pytest

import tensorfrost as tf
from tensorfrost.backend_cpu.runtime import pool


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty compile cache of the test's own."""
    tf.initialize(tf.cpu)
    _ = pool().fast_call  # built once per process, in the usual cache
    monkeypatch.setenv("TENSORFROST_CACHE_DIR", str(tmp_path / "cache"))


def _counts_of(action):
    tf.optimizations.reset_counts()
    action()
    return {name: count for name, count in tf.optimizations.counts().items() if count}


def _affine():
    x = tf.input([-1], tf.float32)
    return [x * 2.0 + 1.0]


def test_every_optimization_has_a_description_and_a_counter():
    assert set(tf.optimizations.counts()) == set(tf.optimizations.NAMES)
    assert all(text.strip() for text in tf.optimizations.NAMES.values())


def test_unknown_names_are_refused_with_the_known_ones_listed(monkeypatch):
    with pytest.raises(ValueError, match="unknown optimization 'tilling'.*tiling"):
        with tf.optimizations.disabled("tilling"):
            pass
    monkeypatch.setenv("TENSORFROST_DISABLE", "gemm, bogus")
    with pytest.raises(ValueError, match="TENSORFROST_DISABLE='gemm, bogus'.*'bogus'"):
        tf.optimizations.enabled("gemm")


def test_the_environment_and_blocks_switch_optimizations_off(monkeypatch):
    assert tf.optimizations.enabled("tiling")
    with tf.optimizations.disabled("tiling", "gemm"):
        assert not tf.optimizations.enabled("tiling") and not tf.optimizations.enabled("gemm")
        assert tf.optimizations.enabled("chains")
        with tf.optimizations.disabled("all"):
            assert tf.optimizations.disabled_set() == frozenset(tf.optimizations.NAMES)
        assert tf.optimizations.enabled("chains")
    assert tf.optimizations.enabled("tiling")
    monkeypatch.setenv("TENSORFROST_DISABLE", " chains ,hoist")
    assert tf.optimizations.disabled_set() == {"chains", "hoist"}
    monkeypatch.setenv("TENSORFROST_DISABLE", "all")
    assert not any(tf.optimizations.enabled(name) for name in tf.optimizations.NAMES)


def test_a_block_ends_even_when_its_body_raises():
    with pytest.raises(RuntimeError):
        with tf.optimizations.disabled("gemm"):
            raise RuntimeError("in the block")
    assert tf.optimizations.enabled("gemm")


def test_the_call_path_and_spare_outputs_count_and_switch_off():
    tf.initialize(tf.cpu)
    x = np.arange(10, dtype=np.float32)

    def calls(prog):
        def run():
            for _ in range(4):
                np.testing.assert_array_equal(prog(x).numpy, x * 2 + 1)
        return run

    on = _counts_of(calls(tf.compile(_affine)))
    assert on.get("fast_call") == 4 and on.get("spare_outputs", 0) >= 3  # each call after the first reuses one
    with tf.optimizations.disabled("fast_call", "spare_outputs"):
        prog = tf.compile(_affine)
    off = _counts_of(calls(prog))
    assert "fast_call" not in off and "spare_outputs" not in off


def test_the_program_cache_counts_hits_and_keys_on_the_switches(cache):
    tf.initialize(tf.cpu)
    x = np.arange(5, dtype=np.float32)

    def scaled():
        x = tf.input([-1], tf.float32)
        return [x * 3.0 - 0.5]

    first = tf.compile(scaled)
    hit = _counts_of(lambda: tf.compile(scaled))
    assert hit.get("program_cache") == 1
    with tf.optimizations.disabled("load_clamps"):  # another key: compiled, not loaded
        assert "program_cache" not in _counts_of(lambda: tf.compile(scaled))
    with tf.optimizations.disabled("program_cache"):
        prog = None

        def compile_it():
            nonlocal prog
            prog = tf.compile(scaled)
        assert "program_cache" not in _counts_of(compile_it)
    np.testing.assert_array_equal(prog(x).numpy, first(x).numpy)


def _stencil_steps():
    u = tf.input([-1, -1], tf.float32)
    for _ in range(3):
        i, j = u.indices
        u = u + (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - u * 4.0) * 0.25
    return [u]


def test_a_cache_hit_counts_again_what_the_compile_fired(cache):
    tf.initialize(tf.cpu)
    with tf.optimizations.disabled("program_cache"):
        fresh = _counts_of(lambda: tf.compile(_stencil_steps))
    tf.compile(_stencil_steps)  # stored
    hit = _counts_of(lambda: tf.compile(_stencil_steps))
    assert fresh.get("load_clamps", 0) > 0
    assert hit == {**fresh, "program_cache": 1}


def _reaches_the_passes():
    """Reaches merge_loops (two reductions of one row), load_clamps (shifted reads of a computed
    value), hoist (a sum whose scale does not change with k) and recompute (``y`` again in the
    kernel that adds the row's sum to it)."""
    x = tf.input([-1, -1], tf.float32)
    i, j = x.indices
    y = tf.sin(x) * 2.0
    shifted = y[i - 1, j] * 0.5 + y[i, j + 1]
    n = x.shape[1]
    total = tf.zeros(x.shape, tf.float32)
    with tf.loop(n) as k:
        total.val = total + x[i, k] * tf.sin(tf.float(i))
    return [tf.sum(shifted, axis=1) + tf.max(shifted, axis=1), total + y + tf.unsqueeze(tf.sum(y, axis=1), 1)]


@pytest.mark.parametrize("name", ["merge_loops", "recompute", "load_clamps", "hoist"])
def test_optional_passes_skip_when_switched_off_and_mean_the_same(name):
    tf.initialize(tf.cpu)
    x = np.random.default_rng(3).uniform(-1, 1, (9, 13)).astype(np.float32)
    with tf.optimizations.disabled("program_cache"):
        on = tf.compile(_reaches_the_passes)
    with tf.optimizations.disabled(name, "program_cache"):
        off = tf.compile(_reaches_the_passes)
    assert name not in off.optimizations_fired
    for a, b in zip(on(x), off(x)):
        np.testing.assert_allclose(a.numpy, b.numpy, rtol=1e-6, atol=1e-6)
    y = np.sin(x) * 2
    shifted = np.vstack([y[:1], y[:-1]]) * 0.5 + np.hstack([y[:, 1:], y[:, -1:]])
    np.testing.assert_allclose(off(x)[0].numpy, shifted.sum(1) + shifted.max(1), rtol=1e-5, atol=1e-5)
    total = x.sum(1, keepdims=True) * np.sin(np.arange(9.0))[:, None] + y + y.sum(1, keepdims=True)
    np.testing.assert_allclose(off(x)[1].numpy, total, rtol=1e-5, atol=1e-5)


def test_the_passes_that_are_optimizations_fire_on_programs_that_reach_them():
    tf.initialize(tf.cpu)
    with tf.optimizations.disabled("program_cache"):
        fired = tf.compile(_reaches_the_passes).optimizations_fired
    assert {"merge_loops", "load_clamps", "hoist", "recompute"} <= set(fired)


def test_the_environment_variable_reaches_a_fresh_process():
    code = ("import numpy as np, tensorfrost as tf; tf.initialize(tf.cpu)\n"
            "def f():\n    x = tf.input([-1], tf.float32)\n    return [x + 1.0]\n"
            "p = tf.compile(f)\n"
            "print(p(np.ones(3, np.float32)).numpy.tolist(), tf.optimizations.counts()['fast_call'])")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                            env={**__import__("os").environ, "TENSORFROST_DISABLE": "fast_call"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["[2.0,", "2.0,", "2.0]", "0"]
