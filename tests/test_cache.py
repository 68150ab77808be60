"""The on-disk cache of compiled programs: a second process compiles nothing, a corrupted
entry is rebuilt rather than loaded, and processes compiling at once never clash."""

import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import numpy as np
    import tensorfrost as tf
    from tensorfrost.backend_cpu.compiler import CompileStats

    def wave():
        u = tf.input([-1, -1], tf.float32)
        i, j = u.indices
        return u[i - 1, j] + u[i + 1, j] - u * {coefficient}

    prog = tf.compile(wave)
    out = prog(np.ones((8, 8), np.float32)).numpy
    assert np.allclose(out, 2.0 - {coefficient}), out
    print("compiles", CompileStats.compiles, "hits", CompileStats.cache_hits)
""")


def _run(cache_dir, coefficient=3.0, background=False):
    env = dict(os.environ, TENSORFROST_CACHE_DIR=str(cache_dir))
    args = [sys.executable, "-c", SCRIPT.format(coefficient=coefficient)]
    if background:
        return subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    result = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


@pytest.fixture
def cache_dir(tmp_path):
    return tmp_path / "cache"


def test_second_process_compiles_nothing(cache_dir):
    first = _run(cache_dir)
    assert first[0] == "compiles" and int(first[1]) >= 1  # the program (and the buffer pool)
    second = _run(cache_dir)
    assert second[:2] == ["compiles", "0"] and int(second[3]) == int(first[1])


def test_corrupted_entry_is_rebuilt(cache_dir):
    _run(cache_dir)
    (library,) = [p for p in cache_dir.iterdir() if p.suffix == ".so" and p.name.startswith("wave")]
    data = library.read_bytes()
    library.write_bytes(data[: len(data) // 2])  # a truncated library
    assert _run(cache_dir)[:2] == ["compiles", "1"]
    library.write_bytes(b"\x7fELF garbage" + data[12:])  # same size, wrong content
    assert _run(cache_dir)[:2] == ["compiles", "1"]
    assert _run(cache_dir)[:2] == ["compiles", "0"]


def test_concurrent_processes_never_see_half_a_file(cache_dir):
    procs = [_run(cache_dir, background=True) for _ in range(3)]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    assert _run(cache_dir)[:2] == ["compiles", "0"]
    leftovers = [p.name for p in cache_dir.iterdir() if p.name.startswith(".tmp-")]
    assert leftovers == []
