"""The GEMM core library (backend_cpu/gemm_core.py): compiled once, not into each program
that multiplies matrices; verified like every cached library, so a damaged or planted core
is rebuilt, never loaded; programs that use it compute the product right."""

import os
import subprocess
import sys
import textwrap

import numpy as np

import tensorfrost as tf
from tensorfrost.backend_cpu import compiler, gemm, gemm_core

SCRIPT = textwrap.dedent("""
    import numpy as np
    import tensorfrost as tf
    from tensorfrost.backend_cpu.compiler import CompileStats

    def product(offset):
        def matmul():
            a = tf.input([-1, -1], tf.float32)
            b = tf.input([a.shape[1], -1], tf.float32)
            return tf.tanh(a @ b) + offset  # an epilogue after the GEMM
        return matmul

    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(200, 176)).astype(np.float32), rng.normal(size=(176, 190)).astype(np.float32) * 0.1
    for offset in (0.5, 1.5):  # two programs, one core
        out = tf.compile(product(offset))(a, b).numpy
        np.testing.assert_allclose(out, np.tanh(a.astype(np.float64) @ b) + offset, atol=1e-5)
    print("compiles", CompileStats.compiles, "hits", CompileStats.cache_hits)
""")


def _run(cache_dir):
    env = dict(os.environ, TENSORFROST_CACHE_DIR=str(cache_dir))
    result = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return [int(n) for n in result.stdout.split()[1::2]]


def _core(cache_dir):
    (core,) = cache_dir.glob(gemm_core.NAME + "-*.so")
    return core


def test_programs_share_one_core_and_a_damaged_or_planted_one_is_rebuilt(tmp_path):
    cache = tmp_path / "cache"
    assert _run(cache) == [5, 0]  # the pool, the call extension, the core and the two programs
    core = _core(cache)
    data = core.read_bytes()
    assert _run(cache)[0] == 0
    core.write_bytes(data[: len(data) // 2])
    assert _run(cache)[0] == 1  # the core alone
    canary = tmp_path / "planted_core_ran"
    planted = tmp_path / "planted.c"
    planted.write_text('#include <stdio.h>\n__attribute__((constructor)) static void planted(void) {\n'
                       f'    FILE* f = fopen("{canary}", "w");\n    if (f) fclose(f);\n}}\n')
    subprocess.run(["g++", "-x", "c", "-shared", "-fPIC", "-o", str(core), str(planted)], check=True)
    assert _run(cache)[0] == 1 and not canary.exists()
    assert _core(cache) == core and _run(cache)[0] == 0  # rebuilt under its key, then a hit


def test_units_call_the_core_and_the_code_shown_holds_the_whole_gemm(tmp_path, monkeypatch):
    monkeypatch.setenv("TENSORFROST_CACHE_DIR", str(tmp_path / "cache"))
    tf.initialize(tf.cpu)

    def matmul():
        a = tf.input([-1, -1], tf.float32)
        return a @ a

    prog = tf.compile(matmul)
    assert "tf_gemm_run" in prog.compiled_code() and gemm.CORE_MARKER not in prog.compiled_code()
    a = np.random.default_rng(5).normal(size=(180, 180)).astype(np.float32)
    np.testing.assert_allclose(prog(a).numpy, a.astype(np.float64) @ a, rtol=1e-4, atol=1e-4)
    tf.initialize(tf.cpu, flags="-O2")  # other flags: another core, with another entry point
    try:
        np.testing.assert_allclose(tf.compile(matmul)(a).numpy, a.astype(np.float64) @ a, rtol=1e-4, atol=1e-4)
    finally:
        tf.initialize(tf.cpu)
    assert gemm_core.entry_point(["-O2"]) != gemm_core.entry_point(["-O3"])


def test_the_core_exports_both_instances_and_the_code_shown_compiles(tmp_path, monkeypatch):
    """One core library holds the float32 and float64 GEMMs (an entry point each); the code
    shown of a float64 product (the whole GEMM inside) compiles on its own."""
    monkeypatch.setenv("TENSORFROST_CACHE_DIR", str(tmp_path / "cache"))
    tf.initialize(tf.cpu)

    def matmul():
        a = tf.input([-1, -1], tf.float64)
        return tf.tanh(a @ a)

    prog = tf.compile(matmul)
    a = np.random.default_rng(6).uniform(-1, 1, (180, 180))
    before = tf.optimizations.counts()["gemm"]
    np.testing.assert_allclose(prog(a).numpy, np.tanh(a @ a), rtol=1e-12, atol=1e-12)
    assert tf.optimizations.counts()["gemm"] > before
    name = gemm_core.entry_point(compiler.cxx_flags(""))
    core = gemm_core._loaded[name]
    assert getattr(core, name) is not None and getattr(core, name + "_f64") is not None
    shown = tmp_path / "shown.cpp"
    shown.write_text(prog.compiled_code())
    assert "const double* a" in shown.read_text()
    check = subprocess.run(["g++", "-std=c++17", "-fopenmp", "-fsyntax-only", str(shown)], capture_output=True,
                           text=True)
    assert check.returncode == 0, check.stderr[-3000:]
