"""The core libraries (backend_cpu/core_library.py). The GEMM core (gemm_core.py): compiled
once, not into each program that multiplies matrices; verified like every cached library,
so a damaged or planted core is rebuilt, never loaded; programs that use it compute the
product right. The math core (math_core.py): float32 sin, cos and tan as vector functions
that skip the reduction of arguments from 2^24 when no lane needs it, with the inline
versions' bits (the switch off), in vectors with and without such a lane; a cached program
loads it before its own library; the code shown inlines them."""

import os
import subprocess
import sys
import textwrap

import numpy as np

import tensorfrost as tf
from tensorfrost import optimizations
from tensorfrost.backend_cpu import compiler, gemm, gemm_core, math_core

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


def _run(cache_dir, script=SCRIPT):
    env = dict(os.environ, TENSORFROST_CACHE_DIR=str(cache_dir))
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
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
    core = gemm_core.CORE.loaded[name]
    assert getattr(core, name) is not None and getattr(core, name + "_f64") is not None
    shown = tmp_path / "shown.cpp"
    shown.write_text(prog.compiled_code())
    assert "const double* a" in shown.read_text()
    check = subprocess.run(["g++", "-std=c++17", "-fopenmp", "-fsyntax-only", str(shown)], capture_output=True,
                           text=True)
    assert check.returncode == 0, check.stderr[-3000:]


# -- the math core -------------------------------------------------------------------------

def _trig():
    x = tf.input([-1], tf.float32)
    return tf.sin(x), tf.cos(x), tf.tan(x), tf.sin(x * 0.5) * tf.cos(x) + tf.exp(-x * x)


def _values():
    """Blocks of 16 and 8 (the vectors' lanes) with no large argument, one, or all large, and
    every float bit pattern beside them, in an array whose length no vector width divides."""
    rng = np.random.default_rng(5)
    small = rng.uniform(-30, 30, 4096).astype(np.float32)
    small[::37] = rng.uniform(1.6e7, 1e9, small[::37].size)  # about one vector in three holds one
    large = (rng.uniform(-1, 1, 512) * 2.0 ** rng.integers(24, 127, 512)).astype(np.float32)
    bits = rng.integers(0, 2**32, 2053, dtype=np.uint64).astype(np.uint32).view(np.float32)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 2.0**24, -(2.0**24), 2.0**24 - 1], np.float32)
    return np.concatenate([small, large, bits, special])


def test_the_core_gives_the_inline_versions_bits_and_fires():
    tf.initialize(tf.cpu)
    x = _values()
    with optimizations.recording() as fired:
        with_core = [t.numpy for t in tf.compile(_trig)(x)]
    assert fired.get("math_core", 0) >= 1
    with optimizations.disabled("math_core"), optimizations.recording() as fired:
        inline = [t.numpy for t in tf.compile(_trig)(x)]
    assert fired.get("math_core", 0) == 0
    for name, a, b in zip(["sin", "cos", "tan", "chain"], with_core, inline):
        same = (a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))
        assert same.all(), (name, x[~same][:4], a[~same][:4], b[~same][:4])
    with np.errstate(all="ignore"):
        want = np.sin(x.astype(np.float64))
    finite = np.isfinite(x)
    np.testing.assert_allclose(with_core[0][finite], want[finite], rtol=1.2e-7, atol=1e-45)


MATH_SCRIPT = textwrap.dedent("""
    import numpy as np
    import tensorfrost as tf
    from tensorfrost.backend_cpu.compiler import CompileStats

    def wave():
        x = tf.input([-1], tf.float32)
        return tf.sin(x) * tf.cos(x * 3.0)

    x = np.linspace(-1e3, 1e3, 10001, dtype=np.float32)
    out = tf.compile(wave)(x).numpy
    d = x.astype(np.float64)
    np.testing.assert_allclose(out, np.sin(d) * np.cos(np.float32(3.0) * x).astype(np.float64), atol=3e-7)
    print("compiles", CompileStats.compiles, "program_hits", CompileStats.program_hits)
""")


def test_a_cached_program_loads_the_core_before_its_library(tmp_path):
    cache = tmp_path / "cache"
    assert _run(cache, MATH_SCRIPT) == [4, 0]  # the pool, the call extension, the core and the program
    assert len(list(cache.glob(math_core.CORE.name + "-*.so"))) == 1
    assert _run(cache, MATH_SCRIPT) == [0, 1]  # (its library would not load without the core's names)


def test_the_code_shown_inlines_them():
    program = tf.compile(_trig)
    program(np.ones(4, np.float32))
    source = program.executable.full_source
    assert math_core.MARKER not in source and "static inline float tf_sin_f32(float x)" in source
