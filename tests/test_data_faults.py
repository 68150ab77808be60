"""Faults in the data a user hands over or gets back: shapes no tensor can have (negative
sizes, more than 2^31 - 1 elements, computed when the program runs or given up front),
ragged or non-numeric values, float64 values float32 cannot hold, OpenGL work from the
wrong thread, and checkpoints that a crash or a foreign file could leave half-written.
Each must raise a clear tensorfrost error (naming what was given and what was expected),
never crash, never answer wrongly, and leave the process usable."""

import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest
from conftest import webgpu_unavailable_reason
from test_codegen import CPU_RUNTIME

import tensorfrost as tf
from tensorfrost.nn.checkpoint import temporary_files

LIMIT = 2**31 - 1


def _zeros_minus_ten():
    a = tf.input([-1], tf.float32)
    b = tf.zeros([a.shape[0] - 10])
    return b


def _square_zeros():
    a = tf.input([-1], tf.float32)
    c = tf.zeros([a.shape[0], a.shape[0]])
    return c


def _plus_one():
    a = tf.input([-1], tf.float32)
    return a + 1.0


# -- shapes and values given up front ------------------------------------------------------------


def test_tensor_of_a_shape_over_the_element_limit_is_refused(backend):
    """More than 2^31 - 1 elements: refused before any memory is taken (it used to be accepted
    on the cpu, and kernels indexing it with 32-bit ints crashed)."""
    with pytest.raises(tf.ShapeError, match=r"tf.tensor: shape \[65537, 32768\] has more elements than the "
                                            r"2147483647 a tensor can hold"):
        tf.tensor([65537, 32768], tf.float32)
    with pytest.raises(tf.ShapeError, match=r"shape \[1099511627776, 1099511627776\] has more elements"):
        tf.tensor([2**40, 2**40], tf.int32)
    with pytest.raises(tf.ShapeError, match="9 axes, more than the 8 a tensor can have"):
        tf.tensor([1] * 9, tf.float32)
    np.testing.assert_array_equal(tf.tensor([2, 3], tf.float32).numpy, np.zeros((2, 3), np.float32))


def test_arrays_over_the_element_limit_are_refused_without_a_copy(backend):
    huge = np.broadcast_to(np.zeros(1, np.float32), (65537, 32768))  # a view: no memory behind it
    with pytest.raises(tf.ArgumentError, match="tf.tensor: 2147516416 elements is more than the 2147483647"):
        tf.tensor(huge)
    prog = tf.compile(_plus_one)
    with pytest.raises(tf.ArgumentError, match=r"argument 0 \('a'\) of plus_one: 2147483648 elements is more"):
        prog(np.broadcast_to(np.zeros(1, np.float32), (2**31,)))
    with pytest.raises(tf.ArgumentError, match="at most 8 axes, got an array of 9"):
        tf.tensor(np.zeros([1] * 9, np.float32))
    np.testing.assert_array_equal(prog(np.arange(3, dtype=np.float32)).numpy, np.arange(3) + 1.0)


def test_negative_shapes_ragged_lists_and_non_numbers_are_tensorfrost_errors(backend):
    with pytest.raises(tf.ShapeError, match=r"tf.tensor: shape\[0\] is -3, a negative size .*a list of ints with "
                                            "a dtype is a shape"):
        tf.tensor([-3, 4], tf.float32)
    with pytest.raises(tf.ArgumentError, match="tf.tensor: expected a numeric array .*rectangular.*got a list"):
        tf.tensor([[1, 2], [3]])
    prog = tf.compile(_plus_one)
    with pytest.raises(tf.ArgumentError, match=r"argument 0 \('a'\) of plus_one: .*rectangular.*got a list"):
        prog([[1.0], [2.0, 3.0]])
    for value, given in [("abc", "str"), ({"a": 1}, "dict"), (np.array([1 + 2j]), "ndarray .*complex128"),
                         (tf.Parameter([3]), "Parameter")]:
        with pytest.raises(tf.ArgumentError, match=rf"argument 0 \('a'\) of plus_one: expected a numeric array, "
                                                   rf"got a {given}"):
            prog(value)
    # bools are values, not sizes
    np.testing.assert_array_equal(tf.tensor([True, 2], tf.float32).numpy, np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal(prog([1.0, 2.0]).numpy, np.array([2.0, 3.0], np.float32))


def test_float64_values_out_of_float32_range_are_refused(backend):
    """A finite float64 beyond float32's range used to become inf; inf and nan stay allowed.
    A float64 array keeps its dtype (issue 29); asked for float32 (a dtype given, or a
    list's default float), a finite value must stay finite; a program's float32 input takes
    only the values float32 holds exactly (it never rounds without a word)."""
    np.testing.assert_array_equal(tf.tensor(np.array([1.0, 1e300])).numpy, [1.0, 1e300])
    with pytest.raises(tf.ArgumentError, match=r"element \[0, 1\] is -1e\+39, outside the tf.float32 "
                                               r"range .*inf and nan are allowed"):
        tf.tensor(np.array([[0.0, -1e39]]), tf.float32)
    with pytest.raises(tf.ArgumentError, match=r"element \[0\] is 1e\+300"):
        tf.tensor([1e300])
    prog = tf.compile(_plus_one)
    with pytest.raises(tf.ArgumentError, match=r"argument 0 \('a'\) of plus_one: expected tf.float32 values, got a "
                                               r"float64 array whose element \[2\] \(1e\+300\)"):
        prog(np.array([1.0, 2.0, 1e300]))
    with pytest.raises(tf.ArgumentError, match=r"element \[1\] \(0.1\) tf.float32 cannot hold exactly"):
        prog(np.array([1.0, 0.1]))
    edge = np.array([np.inf, -np.inf, np.nan, 2.0**100, float(np.finfo(np.float32).max), -3.5])
    np.testing.assert_array_equal(tf.tensor(edge, tf.float32).numpy, edge.astype(np.float32))
    np.testing.assert_array_equal(prog(edge).numpy, edge.astype(np.float32) + np.float32(1.0))


# -- sizes computed when the program runs --------------------------------------------------------


def test_negative_size_computed_at_run_time_raises(backend):
    """Size 3 - 10: the cpu returned shape (-7,) over uninitialized memory, OpenGL shape (0,)."""
    prog = tf.compile(_zeros_minus_ten)
    with pytest.raises(tf.RuntimeCheckError, match=r"tensor 'b' \(made at .*test_data_faults.py:\d+\): "
                                                   r"shape\[0\] is -7, a negative size"):
        prog(np.zeros(3, np.float32))
    np.testing.assert_array_equal(prog(np.ones(13, np.float32)).numpy, np.zeros(3, np.float32))
    np.testing.assert_array_equal(prog(np.ones(10, np.float32)).numpy, np.zeros(0, np.float32))


def test_size_over_the_element_limit_computed_at_run_time_raises(backend):
    prog = tf.compile(_square_zeros)
    with pytest.raises(tf.RuntimeCheckError, match=r"tensor 'c' \(made at .*\): shape \[65537, 65537\] has more "
                                                   r"elements than the 2147483647 a tensor can hold"):
        prog(np.zeros(65537, np.float32))
    np.testing.assert_array_equal(prog(np.zeros(5, np.float32)).numpy, np.zeros((5, 5), np.float32))


_HARNESS = CPU_RUNTIME + r"""
int main() {
    CpuRuntime runtime;
    TFContext tf{&runtime};
    for (uint n : {13u, 3u, 65537u}) {
        TFTensor a = tf.allocate("a", {n}, TFType::Float);
        try {
            TFTensor b = @MINUS@(tf, a);
            std::printf("minus %u: size %zu\n", n, b.size());
        } catch (const tf_error& e) { std::printf("minus %u: %s\n", n, e.what()); }
        try {
            TFTensor c = @SQUARE@(tf, a);
            std::printf("square %u: size %zu\n", n, c.size());
        } catch (const tf_error& e) { std::printf("square %u: %s\n", n, e.what()); }
    }
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="no g++ to compile the generated C++")
def test_codegen_main_functions_check_sizes_before_allocating(tmp_path):
    """The C++ host code of codegen mode: a negative size became a huge uint allocation."""
    tf.initialize(tf.codegen, kernel_lang=tf.cpp_lang)
    try:
        mains, kernels = len(tf.get_all_generated_main_functions()), len(tf.get_all_generated_kernels())
        tf.compile(_zeros_minus_ten)
        tf.compile(_square_zeros)
    finally:
        tf.initialize(tf.cpu)
    new_mains = tf.get_all_generated_main_functions()[mains:]
    new_kernels = tf.get_all_generated_kernels()[kernels:]
    names = [source.split('extern "C" void ')[1].split("(")[0] for source in new_kernels]
    table = ", ".join(["nullptr"] * kernels + names)
    minus, square = (re.search(r"(\w+)\(TFContext", main).group(1) for main in new_mains)
    program = tmp_path / "run.cpp"
    program.write_text(tf.get_cpp_header() + "".join(new_kernels) + "".join(new_mains)
                       + _HARNESS.replace("@KERNELS@", table).replace("@MINUS@", minus).replace("@SQUARE@", square))
    build = subprocess.run(["g++", "-std=c++17", "-O1", "-Wall", "-o", str(tmp_path / "run"), str(program)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    lines = subprocess.run([str(tmp_path / "run")], capture_output=True, text=True, check=True,
                           timeout=60).stdout.splitlines()
    assert lines == [
        "minus 13: size 3",
        "square 13: size 169",
        "minus 3: tensor 'b': shape[0] is -7, a negative size",
        "square 3: size 9",
        "minus 65537: size 65527",
        "square 65537: tensor 'c': shape [65537, 65537] has more elements than the 2147483647 a tensor can hold",
    ]


# -- threads ------------------------------------------------------------------------------------


def test_programs_called_from_another_thread(backend):
    """The cpu and WebGPU run programs from any thread. An OpenGL context is current on one
    thread only: from another one, a GlThreadError instead of PyOpenGL's raw EGL_BAD_ACCESS;
    the owning thread goes on working."""
    prog = tf.compile(_plus_one)
    x = tf.tensor(np.arange(4, dtype=np.float32))
    results = {}

    def work():
        for what, call in [("call", lambda: prog(x).numpy), ("upload", lambda: tf.tensor(np.ones(2, np.float32))),
                           ("download", lambda: x.numpy), ("compile", lambda: tf.compile(_plus_one))]:
            try:
                results[what] = call()
            except Exception as exc:  # (checked below, on the main thread)
                results[what] = exc

    worker = threading.Thread(target=work, name="worker-7")
    worker.start()
    worker.join()
    if backend is not tf.opengl:
        np.testing.assert_array_equal(results["call"], np.arange(4) + 1.0)
        np.testing.assert_array_equal(results["download"], np.arange(4))
        assert isinstance(results["compile"], tf.TensorProgram)
        np.testing.assert_array_equal(results["upload"].numpy, np.ones(2, np.float32))
    else:
        for what, error in results.items():
            assert isinstance(error, tf.GlThreadError), (what, error)
            assert isinstance(error, tf.TensorFrostError)
            assert "thread 'worker-7'" in str(error) and "thread 'MainThread'" in str(error), str(error)
    np.testing.assert_array_equal(prog(x).numpy, np.arange(4) + 1.0)


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
def test_programs_called_from_two_threads_at_once_give_each_its_own_result(device):
    """Where programs run from any thread (not OpenGL: the test above), two threads calling at
    the same time each get their own inputs' results (WebGPU: one command encoder per device,
    locked)."""
    reason = webgpu_unavailable_reason() if device == "webgpu" else None
    if reason is not None:
        pytest.skip(f"no WebGPU device: {reason}")
    tf.initialize(getattr(tf, device))
    prog = tf.compile(_plus_one)
    failures = []

    def work(offset):
        for k in range(40):
            x = np.arange(1000, dtype=np.float32) + offset + k
            got = prog(x).numpy
            if not np.array_equal(got, x + 1.0):
                failures.append((offset, k))

    workers = [threading.Thread(target=work, args=(offset,)) for offset in (0.0, 5000.0)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    tf.initialize(tf.cpu)
    assert failures == []


# -- checkpoints --------------------------------------------------------------------------------


class _Net(tf.Module):
    def __init__(self, size=4):
        super().__init__()
        self.W = tf.Parameter([size, size], tf.float32)
        self.b = tf.Parameter([size], tf.float32)


class _FileNet(tf.Module):
    def __init__(self):
        super().__init__()
        self.file = tf.Parameter([3], tf.float32)  # a name np.savez(path, **arrays) could not take


class _IntNet(tf.Module):
    def __init__(self):
        super().__init__()
        self.b = tf.Parameter([4], tf.float32, random_scale=0.0)
        self.W = tf.Parameter([4, 4], tf.int32)


def test_save_load_round_trip_and_file_mode(backend, tmp_path):
    net = _Net()
    net.initialize_parameters(seed=3)
    net.save(tmp_path / "net")  # ".npz" added, as np.savez does; load finds it either way
    assert sorted(p.name for p in tmp_path.iterdir()) == ["net.npz"]
    for path in (tmp_path / "net", tmp_path / "net.npz"):
        other = _Net().load(path)
        np.testing.assert_array_equal(other.W.numpy, net.W.numpy)
        np.testing.assert_array_equal(other.b.numpy, net.b.numpy)
    named = _FileNet()
    named.file = np.arange(3, dtype=np.float32)
    named.save(tmp_path / "named.npz")
    np.testing.assert_array_equal(_FileNet().load(tmp_path / "named.npz").file.numpy, np.arange(3))
    os.unlink(tmp_path / "named.npz")
    with open(tmp_path / "plain", "w"):
        pass  # the mode open() gives a new file here
    assert stat.S_IMODE(os.stat(tmp_path / "net.npz").st_mode) == stat.S_IMODE(os.stat(tmp_path / "plain").st_mode)
    os.chmod(tmp_path / "net.npz", 0o600)
    net.save(tmp_path / "net.npz")  # a replaced file keeps its mode
    assert stat.S_IMODE(os.stat(tmp_path / "net.npz").st_mode) == 0o600


def _saved_net(path) -> "_Net":
    net = _Net()
    net.initialize_parameters(seed=1)
    net.save(path)
    return net


def test_damaged_checkpoints_raise_checkpoint_errors(backend, tmp_path):
    good = tmp_path / "good.npz"
    net = _saved_net(good)
    data = good.read_bytes()
    flipped = bytearray(data)
    flipped[len(data) // 3] ^= 0xFF
    np.save(tmp_path / "single.npy", np.zeros(3))
    cases = {"empty.npz": (b"", "the file is empty"), "text.npz": (b"hello\n", r"not an \.npz archive"),
             "cut.npz": (data[:len(data) // 2], "damaged or incomplete"),
             "cut_early.npz": (data[:40], "damaged or incomplete"),
             "flipped.npz": (bytes(flipped), "damaged or incomplete")}
    for name, (content, _) in cases.items():
        (tmp_path / name).write_bytes(content)
    cases["single.npy"] = (None, r"a single numpy array \(\.npy\)")
    before = net.W.numpy.copy()
    for name, (_, message) in cases.items():
        path = tmp_path / name
        with pytest.raises(tf.CheckpointError, match=rf"_Net.load\({re.escape(str(path))}\): .*{message}"):
            net.load(path)
        np.testing.assert_array_equal(net.W.numpy, before)  # unchanged
    ints = _IntNet()
    ints.initialize_parameters()
    with pytest.raises(tf.CheckpointError, match=r"parameter 'W': expected tf.int32 values, got a float32 array"):
        ints.load(good)
    np.testing.assert_array_equal(ints.b.numpy, np.zeros(4, np.float32))  # all parameters or none
    assert issubclass(tf.CheckpointError, tf.TensorFrostError)
    with pytest.raises(FileNotFoundError):
        net.load(tmp_path / "absent.npz")
    np.testing.assert_array_equal(_Net().load(good).W.numpy, before)


def test_a_failing_save_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "net.npz"
    net = _saved_net(path)
    old = path.read_bytes()
    calls = []

    def write_then_fail(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real(*args, **kwargs)
    real = np.lib.format.write_array
    monkeypatch.setattr(np.lib.format, "write_array", write_then_fail)
    net.initialize_parameters(seed=2)
    with pytest.raises(OSError, match="No space left"):
        net.save(path)
    assert path.read_bytes() == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["net.npz"]


_SAVER = textwrap.dedent("""
    import os, signal, sys
    import numpy as np
    import tensorfrost as tf

    class Big(tf.Module):
        def __init__(self):
            super().__init__()
            self.layers = tf.ParameterArray()
            for k in range(8):
                self.layers[k] = tf.Parameter([512, 512], tf.float32)  # 1 MiB each

    path, kill_in = sys.argv[1], int(sys.argv[2])
    if kill_in:  # die while writing the 5th array of version `kill_in`
        write_array = np.lib.format.write_array
        written = []
        def write_or_die(*args, **kwargs):
            written.append(1)
            if len(written) == (kill_in - 1) * 8 + 5:
                os.kill(os.getpid(), signal.SIGKILL)
            return write_array(*args, **kwargs)
        np.lib.format.write_array = write_or_die
    model = Big()
    for version in range(1, 100000):
        model.update_parameters([np.full((512, 512), version, np.float32)] * 8)
        model.save(path)
        print(version, flush=True)
""")


def _big_versions(path) -> set:
    """The versions the saved layers hold (one, for a consistent file)."""
    model = tf.Module()
    model.layers = tf.ParameterArray()
    for k in range(8):
        model.layers[k] = tf.Parameter([512, 512], tf.float32)
    model.load(path)
    return {float(v) for layer in model.layers for v in np.unique(layer.numpy)}


def _kill_saver(path, delay: float, kill_in: int = 0) -> int:
    """Run the saver until it has saved once, then SIGKILL it ``delay`` seconds later (or let it
    kill itself in the middle of version ``kill_in``); the versions it reported complete."""
    child = subprocess.Popen([sys.executable, "-c", _SAVER, str(path), str(kill_in)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        first = child.stdout.readline()
        assert first.strip() == "1", child.stderr.read()
        if kill_in:
            child.wait(timeout=120)
        else:
            time.sleep(delay)
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL, child.stderr.read()
    return 1 + len(child.stdout.read().split())


def test_sigkill_during_save_leaves_a_complete_file(backend, tmp_path):
    """A save killed at any moment leaves the old complete file or the new complete one (it
    used to leave a truncated one that load could not read); the temporary file a killed save
    leaves is never read and is removed by the next save of the same path."""
    path = tmp_path / "big.npz"
    done = _kill_saver(path, 0.0, kill_in=3)  # killed mid-write, deterministically
    assert done == 2 and _big_versions(path) == {2.0}
    assert len(temporary_files(str(path))) == 1  # the killed writer's, with its pid in the name
    for delay in (0.0, 0.05, 0.15, 0.3):
        done = _kill_saver(path, delay)
        versions = _big_versions(path)
        assert len(versions) == 1 and done <= versions.pop() <= done + 1
    model = tf.Module()
    model.x = tf.Parameter([3], tf.float32)
    model.x = np.arange(3, dtype=np.float32)
    model.save(path)  # the next save cleans up after the killed ones
    assert temporary_files(str(path)) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.npz"]
    model.x = np.zeros(3, np.float32)
    np.testing.assert_array_equal(model.load(path).x.numpy, np.arange(3, dtype=np.float32))
