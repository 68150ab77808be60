"""Faults around the compiler: a build killed by SIGKILL (during g++ or while its entry is
written) leaves nothing that breaks the next process, which compiles correctly and removes
the leftovers; a compiler that hangs is stopped after the timeout; a failing shader's source
never goes where someone else could have pointed it; Ctrl-C stops a long native call. The
risky parts run in subprocesses."""

import hashlib
import os
import re
import signal
import stat
import subprocess
import sys
import tempfile
import time

import pytest
from conftest import INTERRUPTED_AFTER, gl_unavailable_reason
from test_cache import SCRIPT, _run

import tensorfrost as tf

KILL_AT_REPLACE = """
import os, signal
_replace = os.replace
_calls = []
def _replace_or_die(src, dst, *args, **kwargs):
    if os.path.basename(str(dst)).startswith("wave"):  # a file of the program's cache entry
        _calls.append(dst)
        if len(_calls) == int(os.environ["TF_KILL_AT"]):
            os.kill(os.getpid(), signal.SIGKILL)
    return _replace(src, dst, *args, **kwargs)
os.replace = _replace_or_die
"""


def _script(path, text: str) -> str:
    path.write_text(text)
    path.chmod(0o755)
    return str(path)


def _leftovers(cache_dir) -> list[str]:
    return sorted(p.name for p in cache_dir.iterdir() if p.name.startswith(".tmp-"))


def _wait_for(path, seconds: float = 60.0) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        time.sleep(0.02)
    raise AssertionError(f"{path} never appeared")


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"  # a zombie no one reaped yet
    except OSError:
        return True


def _next_run_recovers(cache_dir):
    out = _run(cache_dir)  # asserts the results
    assert out[0] == "compiles" and int(out[1]) >= 1
    assert _leftovers(cache_dir) == []
    assert _run(cache_dir)[:2] == ["compiles", "0"]


def test_sigkill_during_the_compiler(tmp_path):
    cache_dir = tmp_path / "cache"
    pid_file = tmp_path / "compiler.pid"
    slow = _script(tmp_path / "slow-g++", '#!/bin/sh\ncase "$*" in *--version*) exec g++ "$@";; esac\n'
                                          'echo $$ > "$TF_COMPILER_PID"\nsleep 30\nexec g++ "$@"\n')
    env = dict(os.environ, TENSORFROST_CACHE_DIR=str(cache_dir), CXX=slow, TF_COMPILER_PID=str(pid_file))
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT.format(coefficient=3.0)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        group = os.getpgid(int(_wait_for(pid_file)))
        os.killpg(proc.pid, signal.SIGKILL)  # Python first, then everything of the compiler's
        os.killpg(group, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    assert _leftovers(cache_dir), "the build was not under way when it was killed"
    _next_run_recovers(cache_dir)


@pytest.mark.parametrize("kill_at", [1, 2])
def test_sigkill_while_the_cache_entry_is_written(tmp_path, kill_at):
    """Killed at the first or second rename into the program's entry (the library, then its
    record): the next process rebuilds the entry and removes the dead one's temporary files."""
    cache_dir = tmp_path / "cache"
    env = dict(os.environ, TENSORFROST_CACHE_DIR=str(cache_dir), TF_KILL_AT=str(kill_at))
    result = subprocess.run([sys.executable, "-c", KILL_AT_REPLACE + SCRIPT.format(coefficient=3.0)], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == -signal.SIGKILL, result.stderr
    assert _leftovers(cache_dir)
    _next_run_recovers(cache_dir)


def test_a_hanging_compiler_is_stopped_after_the_timeout(tmp_path):
    child_file = tmp_path / "child.pid"
    hanging = _script(tmp_path / "hanging-g++", '#!/bin/sh\nsleep 30 &\necho $! > "$TF_CHILD_PID"\nwait\n')
    env = dict(os.environ, TENSORFROST_CACHE_DIR=str(tmp_path / "cache"), CXX=hanging,
               TENSORFROST_COMPILE_TIMEOUT="0.5", TF_CHILD_PID=str(child_file))
    catching = (f"import sys, tensorfrost as tf\ntry:\n    exec({SCRIPT.format(coefficient=3.0)!r})\n"
                "except tf.CompilerSetupError as error:\n    print(error)\n    sys.exit(3)\n")
    start = time.monotonic()
    result = subprocess.run([sys.executable, "-c", catching], env=env, capture_output=True, text=True, timeout=25)
    assert time.monotonic() - start < 20
    assert result.returncode == 3, result.stderr  # a CompilerSetupError
    assert re.search(r"CXX='.*hanging-g\+\+' did not finish within 0\.5 s", result.stdout), result.stdout
    assert "TENSORFROST_COMPILE_TIMEOUT" in result.stdout
    assert _gone(int(_wait_for(child_file))), "the compiler's own children were left running"
    assert _leftovers(tmp_path / "cache") == []


def test_a_failing_shader_never_writes_through_a_planted_link(tmp_path, monkeypatch):
    """The source of a shader the driver rejects used to go to a fixed name in the shared
    temporary directory: a link planted there made us overwrite the file it points at."""
    reason = gl_unavailable_reason()
    if reason is not None:
        pytest.skip(f"no OpenGL 4.3 context: {reason}")
    from tensorfrost.backend import backend_for
    from tensorfrost.backend_gl import programs
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the shared temporary directory, for this test
    monkeypatch.setattr(programs, "_source_dir", None, raising=False)
    bad = "#version 430\nlayout(local_size_x = 1) in;\nvoid main() {\n    undefined_name = 2;\n}\n"
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    predictable = tmp_path / "tensorfrost-gl"
    predictable.mkdir()
    (predictable / f"broken_kernel-{hashlib.sha256(bad.encode()).hexdigest()[:16]}.comp").symlink_to(victim)
    tf.initialize(tf.opengl)
    try:
        backend_for(tf.opengl)
        with pytest.raises(tf.CompileError) as info:
            programs.compile_program(bad, "broken_kernel")
    finally:
        tf.initialize(tf.cpu)
    assert victim.read_text() == "precious"
    saved = re.search(r"source in (\S+\.comp)\)", str(info.value)).group(1)
    with open(saved) as f:
        assert f.read() == bad
    directory = os.stat(os.path.dirname(saved))
    assert directory.st_uid == os.geteuid() and stat.S_IMODE(directory.st_mode) == 0o700


INTERRUPTED = """
import os, signal, threading, time
import numpy as np, tensorfrost as tf
from tensorfrost.backend_cpu import runtime
runtime.unit_count = lambda characters: int(os.environ["UNITS"])  # the flag is shared across units
tf.initialize(tf.cpu)

def diffuse():  # a host loop of stencil steps: kernels, one after another
    x = tf.input([-1], tf.float32)
    steps = tf.input([], tf.int32)
    y = x * 1.0
    i, = y.indices
    with tf.loop(steps):
        y.val = 0.5 * (y[tf.max(i - 1, 0)] + y[tf.min(i + 1, y.shape[0] - 1)]) + 1.0
    return y

def halve_until_small(x: tf.Arg([-1], tf.float32)):  # one kernel: a while that never ends
    while x > 1.0:
        x = x * 1.0
    return x

""" + INTERRUPTED_AFTER + """
x = np.zeros(4096, np.float32)
stepper = tf.compile(diffuse)
print("host loop", interrupted_after(lambda: stepper(x, 2**31 - 1)))
want = x.copy()
for _ in range(3):
    want = 0.5 * (want[np.r_[0, 0:4095]] + want[np.r_[1:4096, 4095]]) + 1.0
print("then", np.allclose(stepper(x, 3).numpy, want, rtol=1e-6))
forever = tf.kernel_program(halve_until_small)
print("while", interrupted_after(lambda: forever(np.full(100000, 2.0, np.float32))))
print("then", forever(np.array([0.5, 1.0], np.float32)).numpy.tolist() == [0.5, 1.0])
"""


@pytest.mark.parametrize("units", [1, 3])
def test_ctrl_c_stops_a_long_native_call(tmp_path, units):
    """SIGINT during a long program on the CPU raises KeyboardInterrupt within a second (the
    program checks a flag between kernels, host loop trips, rows and while trips), and the
    process goes on working: the next calls give the right results."""
    script = tmp_path / "interrupted.py"
    script.write_text(INTERRUPTED)
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300,
                            env=dict(os.environ, TENSORFROST_CACHE_DIR=str(tmp_path / "cache"), UNITS=str(units)))
    assert result.returncode == 0, result.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in result.stdout.splitlines() if line.startswith(("host", "while")))
    assert float(lines["host"].split()[-1]) < 1.0 and float(lines["while"]) < 1.0, result.stdout
    assert result.stdout.count("then True") == 2, result.stdout
