"""``tf.profile`` (tensorfrost/profiler.py): per-kernel times that add up to the program's,
launches counted through host loops, bytes moved from the kernel contract, the user's lines;
the profiling build leaves the program's own code and call path alone; the compile log."""

import inspect
import logging
import os
import subprocess
import sys

import numpy as np

import tensorfrost as tf
from tensorfrost import program as program_module
from tensorfrost.backend_cpu.runtime import pool

N = 1 << 16


def _elementwise():
    a = tf.input([-1], tf.float32)
    return a * 2.0 + 1.0


def _heavy():
    a = tf.input([-1], tf.float32)
    n = a.shape[0]
    i = a.indices[0]

    def work(v):
        for _ in range(6):
            v = tf.sin(v) * 1.1 + tf.cos(v * 0.7)
        return v

    b = work(a)
    c = work(b[(i + 1) % n])  # (a neighbour's value: a kernel of its own)
    return [c, work(c[(i + 7) % n])]


def _looped():
    a = tf.input([-1], tf.float32)
    n = a.shape[0]
    x = a * 1.0
    with tf.loop(10):
        i = x.indices[0]
        x.val = x[(i + 1) % n] * 0.5 + 1.0  # a neighbour's value: one launch per trip
    return x


def _inputs(n=N):
    return np.random.default_rng(0).normal(size=n).astype(np.float32)


def test_the_table_lists_every_kernel_by_time(backend):
    prog = tf.compile(_heavy)
    found = prog.profile(_inputs())
    table = str(found)
    header = table.splitlines()[0].split()
    assert header == ["kernel", "program", "launches", "total", "ms", "%", "GB/s", "user", "lines"]
    names = [r.kernel for r in found.kernels]
    assert sorted(names) == sorted(f"heavy_k{k}" for k in range(len(prog.get_kernels())))
    assert [r.seconds for r in found.kernels] == sorted((r.seconds for r in found.kernels), reverse=True)
    rows = table.splitlines()[1:1 + len(names)]
    assert [row.split()[0] for row in rows] == names  # slowest first, as the records
    assert "program heavy: 1 call(s)" in table and table.splitlines()[-1].startswith("total: ")


def test_the_kernels_add_up_to_the_program(backend):
    prog = tf.compile(_heavy)
    x = tf.tensor(_inputs(1 << 18))
    prog.profile(x)  # (the profiling build's first call: shaders compiled, pages mapped)
    gaps = []
    for _ in range(3):  # measured again when the shared machine's load stretched the host part of a run
        with tf.profile() as found:
            for _ in range(3):
                prog(x)
        (record,) = found.programs
        assert record.calls == 3 and record.kernels_timed
        assert found.total_seconds == record.seconds
        kernels = sum(r.seconds for r in found.kernels)
        gaps.append((kernels, record.seconds))
        if abs(kernels - record.seconds) <= 0.2 * record.seconds + 1e-3:
            break
    else:
        raise AssertionError(f"the kernels' seconds and the program's differ by over 20% in each run: {gaps}")


def test_a_loop_of_ten_trips_launches_its_kernels_ten_times(backend):
    prog = tf.compile(_looped)
    found = prog.profile(_inputs(1024))
    launches = sorted(r.launches for r in found.kernels)
    assert launches[0] == 1 and launches[-1] == 10  # a*1.0 before the loop, the trip's kernels inside
    assert set(launches) == {1, 10}
    np.testing.assert_allclose(prog(_inputs(1024)).numpy, _looped_reference(_inputs(1024)), rtol=1e-6)


def _looped_reference(a):
    x = a.copy()
    for _ in range(10):
        x = np.roll(x, -1) * 0.5 + 1.0
    return x


def test_bytes_moved_of_an_elementwise_kernel(backend):
    prog = tf.compile(_elementwise)
    x = _inputs()
    with tf.profile() as found:
        for _ in range(3):
            prog(x)
    (record,) = found.kernels
    assert record.launches == 3
    assert record.bytes == 3 * (N * 4 + N * 4)  # float32: n read and n written per launch
    assert record.gb_per_second == record.bytes / record.seconds / 1e9


def test_user_lines_point_at_the_source(backend):
    prog = tf.compile(_elementwise)
    (record,) = prog.profile(_inputs()).kernels
    lines, first = inspect.getsourcelines(_elementwise)
    assert record.lines == ((__file__, first + 2),)  # return a * 2.0 + 1.0
    assert f"test_profiler.py:{first + 2}" in str(prog.profile(_inputs()))
    assert tf.profiler.format_lines([("d/a.py", 3), ("d/a.py", 5), ("d/a.py", 6), ("d/a.py", 7), ("b.py", 1)]) \
        == "b.py:1 a.py:3,5-7"  # (files in the order of their paths)


def test_outputs_as_without_a_profile(backend):
    prog = tf.compile(_heavy)
    x = _inputs()
    plain = [t.numpy for t in prog(x)]
    with tf.profile():
        profiled = [t.numpy for t in prog(x)]
    for got, want in zip(profiled, plain):
        np.testing.assert_array_equal(got, want)


def test_profiling_leaves_the_program_and_its_call_path_alone(backend):
    prog = tf.compile(_elementwise)
    code, executable, call = prog.compiled_code(), prog.executable, tf.TensorProgram.__call__
    with tf.profile():
        with tf.profile():  # (nested: both record, the plain path comes back after the outer one)
            prog(_inputs())
        assert tf.TensorProgram.__call__ is not call
    assert tf.TensorProgram.__call__ is call is program_module._PLAIN_CALL
    assert prog.compiled_code() == code and prog.executable is executable
    if backend is tf.cpu:  # (the timers are in the profiling build's code alone)
        assert "tf_profile" not in code and "tf_profile" in prog._profiling_build.full_source


def test_a_backend_without_kernel_times_gives_the_program_time():
    tf.initialize(tf.interpreter)
    try:
        prog = tf.compile(_elementwise)
        found = prog.profile(_inputs(64))
    finally:
        tf.initialize(tf.cpu)
    (program,) = found.programs
    assert not program.kernels_timed and program.seconds > 0
    assert "its backend gives no kernel times: program time only" in str(found)


def _log_program(offset):
    def logged():
        a = tf.input([-1], tf.float32)
        return a * offset + 1.0
    return logged


def test_the_compile_log_says_miss_then_hit(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("TENSORFROST_CACHE_DIR", str(tmp_path / "cache"))
    tf.initialize(tf.cpu)
    _ = pool().fast_call  # (built once per process: not part of the compiles below)
    caplog.set_level(logging.INFO, logger="tensorfrost")
    for expected in ("miss", "hit"):
        caplog.clear()
        tf.compile(_log_program(3.25))
        (message,) = [r.getMessage() for r in caplog.records if r.name == "tensorfrost"]
        assert message.startswith("compiled logged: 1 kernel(s), trace ")
        assert "passes" in message and "C++ compile" in message
        assert message.endswith(f"program cache {expected}")


def test_tensorfrost_log_prints_compiles_on_stderr(tmp_path):
    script = "import tensorfrost as tf\ntf.compile(lambda: tf.input([-1], tf.float32) + 1.0)\n"
    env = dict(os.environ, TENSORFROST_LOG="compile", TENSORFROST_CACHE_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "tensorfrost: compiled lambda: 1 kernel(s)" in done.stderr and "program cache miss" in done.stderr
