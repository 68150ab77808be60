"""The cpu backend under clang (``CXX=clang++``): a representative set of programs built by
clang agree with numpy and their libraries really are clang's; the compiler's family comes
from its own answer, not its name; a library one compiler built is never loaded for the
other under one name; clang without its OpenMP runtime, or a clang that is not installed,
is a clear error naming CXX.

clang is required, not optional: .ci/run installs it (Debian's clang and libomp-dev), and a
machine without it fails here with the packages to install."""

import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

import tensorfrost as tf
from tensorfrost.backend_cpu import compiler, toolchain

PACKAGES = "the Debian packages clang and libomp-dev (apt-get install clang libomp-dev; .ci/run installs them)"

# elementwise with float math (float_math.hpp, vectorized), reductions, a matmul through the GEMM core,
# a loop with break, scatterAdd, a kernel_program, uint32/float64/float16, and a gradient
SCRIPT = textwrap.dedent("""
    import numpy as np
    import tensorfrost as tf
    from tensorfrost.backend_cpu import fast_call
    from tensorfrost.backend_cpu.compiler import CompileStats

    tf.initialize(tf.cpu)
    rng = np.random.default_rng(5)

    def dense():
        a = tf.input([-1], tf.float32)
        b = tf.input([-1, -1], tf.float32)
        c = tf.input([-1, -1], tf.float32)
        return a * 2.0 + tf.sin(a), tf.sum(b, axis=1), tf.max(b, axis=0), tf.matmul(b, c)

    a = rng.uniform(-3, 3, 1000).astype(np.float32)
    b = rng.uniform(-1, 1, (96, 80)).astype(np.float32)
    c = rng.uniform(-1, 1, (80, 72)).astype(np.float32)
    ew, rows, cols, mm = tf.compile(dense)(a, b, c)
    np.testing.assert_allclose(ew.numpy, a * 2 + np.sin(a), rtol=1e-6, atol=1e-6)  # a few float32 roundings
    np.testing.assert_allclose(rows.numpy, b.sum(1), rtol=1e-5, atol=1e-5)  # 80 terms of size 1
    np.testing.assert_array_equal(cols.numpy, b.max(0))
    np.testing.assert_allclose(mm.numpy, b.astype(np.float64) @ c, rtol=1e-5, atol=1e-5)

    def counted():
        count = tf.input([-1], tf.int32)
        slot = tf.input([-1], tf.int32)
        total = tf.zeros(count.shape, tf.int32)
        with tf.loop(100) as k:
            with tf.if_cond(k >= count):
                tf.break_loop()
            total.val = total + k
        i, = count.indices
        bins = tf.zeros([4], tf.int32)
        tf.scatterAdd(bins[slot[i]], total[i])
        return total, bins

    n = rng.integers(0, 40, 257).astype(np.int32)
    s = rng.integers(0, 4, 257).astype(np.int32)
    total, bins = tf.compile(counted)(n, s)
    triangle = n * (n - 1) // 2
    np.testing.assert_array_equal(total.numpy, triangle)
    np.testing.assert_array_equal(bins.numpy, np.bincount(s, weights=triangle, minlength=4).astype(np.int32))

    @tf.kernel_program
    def steps(x: tf.Arg([-1], tf.float32)):
        y = x * 1.0
        taken = 0
        for k in range(8):
            if y < 0.0:
                break
            taken += 1
            y = y - 1.0
        return y, taken

    x = np.array([0.5, 3.0, 9.0, 5.5, -2.0], np.float32)
    y, taken = steps(x)
    want = np.minimum(np.where(x < 0, 0, np.floor(x) + 1), 8).astype(np.int32)
    np.testing.assert_array_equal(taken.numpy, want)
    np.testing.assert_array_equal(y.numpy, x - want)  # (exact: small integers and halves)

    def dtypes():
        u = tf.input([-1], tf.uint32)
        d = tf.input([-1], tf.float64)
        h = tf.input([-1], tf.float16)
        return u * 2654435761 + (u >> 3), tf.exp(d) + 1e-12, h * 3.0

    u = rng.integers(0, 2**32, 300, dtype=np.uint64).astype(np.uint32)
    d = rng.uniform(-2, 2, 300)
    h = rng.uniform(-4, 4, 300).astype(np.float16)
    hashed, exp64, tripled = tf.compile(dtypes)(u, d, h)
    np.testing.assert_array_equal(hashed.numpy, u * np.uint32(2654435761) + (u >> np.uint32(3)))  # wraps
    np.testing.assert_allclose(exp64.numpy, np.exp(d) + 1e-12, rtol=1e-14)  # float64 all the way
    assert tripled.numpy.dtype == np.float16
    np.testing.assert_array_equal(tripled.numpy, h * np.float16(3))

    def gradient():
        x = tf.input([-1], tf.float32)
        w = tf.input([-1], tf.float32)
        return tf.grad(tf.sum(tf.sin(x) * w * x), x)

    g = rng.uniform(-2, 2, 500).astype(np.float32)
    w = rng.uniform(0.5, 1.5, 500).astype(np.float32)
    got = tf.compile(gradient)(g, w).numpy
    np.testing.assert_allclose(got, w * (np.cos(g) * g + np.sin(g)), rtol=1e-5, atol=1e-5)
    fast_call.wait_for_build()  # (built in a thread: counted once it is done)
    print("compiles", CompileStats.compiles)
""")


def _clang() -> str:
    found = shutil.which("clang++")
    if found is None:
        pytest.fail(f"clang++ is not on PATH: these tests need {PACKAGES}")
    return found


def _comment(library) -> str:
    """The .comment section of an ELF file: each compiler that built part of it names itself."""
    result = subprocess.run(["readelf", "-p", ".comment", str(library)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _clang_version() -> str:
    said = subprocess.run([_clang(), "--version"], capture_output=True, text=True, timeout=30).stdout
    return re.search(r"clang version (\S+)", said).group(1)


def _script(path, text: str) -> str:
    path.write_text(text)
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TENSORFROST_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_programs_built_by_clang_agree_with_numpy_and_are_clangs(tmp_path):
    clang, cache, script = _clang(), tmp_path / "cache", tmp_path / "clang_programs.py"
    script.write_text(SCRIPT)  # (a kernel_program's source is read from its file)
    env = dict(os.environ, CXX="clang++", TENSORFROST_CACHE_DIR=str(cache))
    for compiles in ("9", "0"):  # 5 programs, the GEMM and math cores, the pool, the fast path; then all hits
        result = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                                timeout=300)
        assert result.returncode == 0, result.stderr[-4000:]
        assert result.stdout.split() == ["compiles", compiles], result.stdout
    libraries = sorted(cache.glob("*.so"))
    assert len(libraries) == 9, libraries
    version = _clang_version()
    for library in libraries:
        assert f"clang version {version}" in _comment(library), library
        record = library.with_name(library.name + ".record").read_text()
        assert f"\nbinary {toolchain.binary([clang])}\n" in record
        assert "\ncompiler clang++ (" in record and f"clang version {version})" in record


def test_the_family_comes_from_the_compilers_answer_not_its_name(private_cache, tmp_path, monkeypatch):
    """clang under the name g++: its flags are clang's (g++'s -fno-loop-interchange would stop it)."""
    disguised = _script(tmp_path / "g++", f'#!/bin/sh\nexec {_clang()} "$@"\n')
    assert compiler._identify([disguised], disguised)[0] == toolchain.CLANG
    assert compiler._identify(["g++"], "g++")[0] == toolchain.GCC
    monkeypatch.setenv("CXX", disguised)
    library = compiler.build_library('extern "C" int tf_disguised() { return 3; }\n', "disguised")
    assert "clang version" in _comment(library)


def test_one_name_switched_between_compilers_never_loads_the_others_library(private_cache, tmp_path, monkeypatch):
    """``c++`` pointed at g++, then clang++ (as update-alternatives does): each build is its
    own compiler's; a hit only while the name points at the compiler that built it."""
    name = tmp_path / "bin" / "c++"
    name.parent.mkdir()
    monkeypatch.setenv("CXX", str(name))
    source = 'extern "C" int tf_switched() { return 5; }\n'
    seen = []
    for target in [shutil.which("g++"), _clang(), _clang(), shutil.which("g++")]:
        if name.is_symlink():
            name.unlink()
        name.symlink_to(target)
        compiles = compiler.CompileStats.compiles
        comment = _comment(compiler.build_library(source, "switched"))
        seen.append((compiler.CompileStats.compiles - compiles, "clang version" in comment))
    assert seen == [(1, False), (1, True), (0, True), (1, False)]


SHIFTED = textwrap.dedent("""
    import numpy as np
    import tensorfrost as tf
    from tensorfrost.backend_cpu import fast_call
    from tensorfrost.backend_cpu.compiler import CompileStats

    out = tf.compile(lambda: tf.input([-1], tf.float32) * 3.0 + 0.5, name="shifted")(np.arange(4, dtype=np.float32))
    assert out.numpy.tolist() == [0.5, 3.5, 6.5, 9.5], out.numpy
    fast_call.wait_for_build()  # (built in a thread: counted once it is done)
    print("compiles", CompileStats.compiles, "program_hits", CompileStats.program_hits)
""")


def test_a_program_cache_entry_of_g_plus_plus_is_not_a_hit_for_clang_under_one_name(tmp_path):
    """The program cache (passes skipped) keys on the command, not the compiler it resolves
    to: its entry's library check is what makes clang compile again, and then hit."""
    name, cache = tmp_path / "bin" / "c++", tmp_path / "cache"
    name.parent.mkdir()
    env = dict(os.environ, CXX=str(name), TENSORFROST_CACHE_DIR=str(cache))
    seen = []
    for target in [shutil.which("g++"), _clang(), _clang()]:
        if name.is_symlink():
            name.unlink()
        name.symlink_to(target)
        result = subprocess.run([sys.executable, "-c", SHIFTED], env=env, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr[-4000:]
        seen.append(result.stdout.split())
        (library,) = cache.glob("shifted-*.so")
        assert ("clang version" in _comment(library)) == (target == _clang())
    # the program, the pool and the fast path each time the compiler changed; then all hits
    assert seen == [["compiles", "3", "program_hits", "0"], ["compiles", "3", "program_hits", "0"],
                    ["compiles", "0", "program_hits", "1"]]


def test_clang_without_its_openmp_names_cxx_and_the_package(private_cache, tmp_path, monkeypatch):
    """clang whose headers lack omp.h, as where libomp-dev is not installed."""
    said = subprocess.run([_clang(), "-print-resource-dir"], capture_output=True, text=True, timeout=30)
    resource, stripped = said.stdout.strip(), tmp_path / "resource"
    (stripped / "include").mkdir(parents=True)
    for entry in os.listdir(os.path.join(resource, "include")):
        if entry != "omp.h":
            (stripped / "include" / entry).symlink_to(os.path.join(resource, "include", entry))
    no_openmp = _script(tmp_path / "clang-without-openmp",
                        f'#!/bin/sh\nexec {_clang()} -resource-dir {stripped} "$@"\n')
    monkeypatch.setenv("CXX", no_openmp)
    source = '#include <omp.h>\nextern "C" int tf_threads() { return omp_get_max_threads(); }\n'
    with pytest.raises(tf.CompilerSetupError) as info:
        compiler.build_library(source, "no_openmp")
    message = str(info.value)
    assert message.startswith(f"the C++ compiler CXX={no_openmp!r} cannot compile OpenMP"), message
    assert "'omp.h' file not found" in message and "install libomp-dev" in message


def test_a_clang_that_is_not_installed_is_named(private_cache, monkeypatch):
    monkeypatch.setenv("CXX", "clang++-999")
    with pytest.raises(tf.CompilerSetupError, match=r"CXX='clang\+\+-999' cannot be run: No such file"):
        compiler.build_library('extern "C" int tf_absent() { return 1; }\n', "absent")


@pytest.mark.parametrize("said, kind, package", [
    ("/usr/bin/ld: cannot find -lomp: No such file or directory", toolchain.CLANG, "libomp-dev"),
    ("/usr/bin/ld: cannot find -lgomp: No such file or directory", toolchain.GCC, "libgomp1"),
    ("x.cpp:1:10: fatal error: omp.h: No such file or directory", toolchain.GCC, "libgomp1"),
    ("ld.lld: error: unable to find library -lomp", toolchain.UNKNOWN, "libomp-dev for clang")])
def test_the_linkers_words_for_a_missing_openmp_runtime_name_the_package(said, kind, package):
    """What ld and g++ print where the OpenMP runtime is not installed (the omp.h case of clang
    is built for real above)."""
    message = toolchain.missing_openmp(f"In file included:\n{said}\n1 error generated.", kind, "CXX='c++'")
    assert message.startswith("the C++ compiler CXX='c++' cannot compile OpenMP") and package in message
    assert said in message
    assert toolchain.missing_openmp("x.cpp:3: error: 'y' was not declared in this scope", kind, "g++") is None
