"""Hostile or unlucky input, round three (issue 28): files planted where tensorfrost writes,
checkpoints built to exhaust memory or to smuggle something in, names no one expected,
nesting deeper than the compiler's recursion, producers that refuse to export, messages
longer than a fixed buffer or holding a NUL, and a machine that is odd (no HOME, fork,
Ctrl-C in the middle of a compile). Each must give the right answer or a clear tensorfrost
error, never write where it should not, never crash; probes that could crash run in a
subprocess."""

import contextlib
import io
import os
import re
import shutil
import stat
import struct
import subprocess
import sys
import textwrap
import threading
import time
import warnings
import zlib

import numpy as np
import pytest
from conftest import DlpackProducer, webgpu_unavailable_reason
from test_codegen import CPU_RUNTIME

import tensorfrost as tf
from tensorfrost.program import MAX_NESTING

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _run_script(code: str, env=None, timeout=300) -> subprocess.CompletedProcess:
    environment = dict(os.environ, PYTHONPATH=ROOT, **(env or {}))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, env={k: v for k, v in environment.items() if v is not None})


def _double():
    a = tf.input([-1], tf.float32)
    return a * 2.0


# -- 1. IR dumps: never through a planted link, never outside the directory ------------------


def test_ir_dumps_never_write_through_a_planted_link(tmp_path, monkeypatch):
    dump, victim = tmp_path / "dump", tmp_path / "victim"
    dump.mkdir()
    victim.write_text("precious\n")
    (dump / "planted.00.trace.txt").symlink_to(victim)
    monkeypatch.setenv("TENSORFROST_DUMP_IR", str(dump))
    tf.initialize(tf.cpu)
    with pytest.warns(UserWarning, match=r"planted\.00\.trace\.txt is a symbolic link"):
        prog = tf.compile(_double, name="planted")
    assert victim.read_text() == "precious\n"
    assert (dump / "planted.00.trace.txt").is_symlink()
    finalized = [p for p in dump.iterdir() if p.name.startswith("planted.") and p.name.endswith(".finalize.txt")]
    assert len(finalized) == 1 and "kernel" in finalized[0].read_text()  # the other passes' dumps are written
    assert stat.S_IMODE(finalized[0].stat().st_mode) == 0o600
    np.testing.assert_array_equal(prog(np.arange(3, dtype=np.float32)).numpy, [0, 2, 4])


def test_ir_dumps_refuse_a_directory_others_can_write_or_a_file(tmp_path, monkeypatch):
    tf.initialize(tf.cpu)
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("TENSORFROST_DUMP_IR", str(shared))
    with pytest.warns(UserWarning, match=r"not writing IR dumps there: others can write to it") as caught:
        prog = tf.compile(_double, name="shared_dump")
    assert len(caught) == 1 and list(shared.iterdir()) == []  # one warning, not one per pass
    np.testing.assert_array_equal(prog(np.ones(2, np.float32)).numpy, [2, 2])
    plain = tmp_path / "plain"
    plain.write_text("x")
    monkeypatch.setenv("TENSORFROST_DUMP_IR", str(plain))
    with pytest.warns(UserWarning, match=r"it exists and is not a directory"):
        tf.compile(_double, name="file_dump")
    assert plain.read_text() == "x"


def test_ir_dumps_of_long_and_odd_program_names_stay_in_the_directory(tmp_path, monkeypatch):
    """A 300-character name was OSError ENAMETOOLONG; a name is also sanitized of separators."""
    dump = tmp_path / "a" / "dump"
    monkeypatch.setenv("TENSORFROST_DUMP_IR", str(dump))
    monkeypatch.chdir(tmp_path)
    tf.initialize(tf.cpu)
    long_a, long_b = "p" * 299 + "a", "p" * 299 + "b"
    odd = "../../x; touch canary\n$(touch canary2) `id` é"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in (long_a, long_b, odd):
            prog = tf.compile(_double, name=name)
            np.testing.assert_array_equal(prog(np.ones(2, np.float32)).numpy, [2, 2])
    names = [p.name for p in dump.iterdir()]
    assert all(len(n.encode()) < 120 and re.fullmatch(r"[A-Za-z0-9_.-]+", n) for n in names), names
    traces = [n for n in names if n.endswith(".00.trace.txt")]
    assert len(traces) == 3  # the two long names stay two files
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a"] and sorted(os.listdir(tmp_path / "a")) == ["dump"]


# -- 2. checkpoints checked member by member, before anything is inflated --------------------


def _npy_header(shape, dtype="<f4") -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": dtype, "fortran_order": False, "shape": tuple(shape)})
    return buffer.getvalue()


def _raw_zip(entries) -> bytes:
    """A zip archive written by hand, so that it can lie: each entry is ``(name, stored bytes,
    declared size, crc, method, external attributes)``, for deflated (8) or stored (0) data."""
    local, central = io.BytesIO(), io.BytesIO()
    for name, data, size, crc, method, external in entries:
        encoded, offset = name.encode(), local.tell()
        local.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0x21, crc, len(data), size,
                                len(encoded), 0) + encoded + data)
        central.write(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x0314, 20, 0, method, 0, 0x21, crc, len(data),
                                  size, len(encoded), 0, 0, 0, 0, external, offset) + encoded)
    count = len(entries)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, central.tell(), local.tell(), 0)
    return local.getvalue() + central.getvalue() + end


def _stored(name: str, data: bytes, external: int = 0o644 << 16):
    return (name, data, len(data), zlib.crc32(data), 0, external)


def _zeros_bomb(header: bytes, mebibytes: int):
    """A deflated member: ``header`` and then ``mebibytes`` MiB of zeros, in about 1 KB per MiB
    (after a full flush, deflate writes the same bytes for the same input)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = compressor.compress(header) + compressor.flush(zlib.Z_FULL_FLUSH)
    zeros = bytes(1 << 20)
    block = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    crc = zlib.crc32(header)
    for _ in range(mebibytes):
        crc = zlib.crc32(zeros, crc)
    return head + block * mebibytes + compressor.flush(), len(header) + (mebibytes << 20), crc


class _Square(tf.Module):
    def __init__(self):
        super().__init__()
        self.W = tf.Parameter([16, 16], tf.float32)


class _Free(tf.Module):
    def __init__(self):
        super().__init__()
        self.W = tf.Parameter([-1, -1], tf.float32)


_PEAK_SCRIPT = """
    import resource, sys
    import numpy as np, tensorfrost as tf
    from test_hostile_inputs import _Square
    tf.initialize(tf.cpu)
    net = _Square()
    net.initialize_parameters(seed=0)
    net.load(sys.argv[1] + ".good")  # everything a load needs, loaded once
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        net.load(sys.argv[1])
        print("loaded")
    except tf.CheckpointError as error:
        print("refused:", error)
    print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)  # MiB more at the peak
"""


BOMB_CLAIMS = {  # what the member's header says, and what the refusal says
    "a_gibibyte_shape": (_npy_header([16384, 16384]), r"declared shape \[16, 16\], got a tensor of shape \[16384"),
    "the_parameters_shape": (_npy_header([16, 16]), r"holds 1073741952 bytes, but its header says \[16, 16\] float32 "
                             r"values: 1152 bytes"),
    # numpy reads all the header a file claims before it checks the claim
    "a_4_gib_header": (b"\x93NUMPY\x02\x00" + struct.pack("<I", 0xFFFFFF00), r"its header claims 4294967040 bytes"),
}


@pytest.mark.parametrize("claim", list(BOMB_CLAIMS))
def test_a_deflated_gibibyte_checkpoint_member_is_refused_without_inflating_it(tmp_path, claim):
    """A 1 MB file whose W.npy inflates to 1 GiB, for a [16, 16] parameter: the load cost +2 GB."""
    header, expected = BOMB_CLAIMS[claim]
    data, size, crc = _zeros_bomb(header, 1024)
    bomb = tmp_path / "bomb.npz"
    bomb.write_bytes(_raw_zip([("W.npy", data, size, crc, 8, 0o644 << 16)]))
    assert bomb.stat().st_size < 2 << 20
    good = _Square()
    good.initialize_parameters(seed=0)
    good.save(str(bomb) + ".good")
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(_PEAK_SCRIPT), str(bomb)], capture_output=True,
                         text=True, timeout=300, env=dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, HERE])))
    assert out.returncode == 0, out.stderr[-3000:]
    verdict, grown = out.stdout.splitlines()
    assert verdict.startswith("refused:") and re.search(expected, verdict), verdict
    assert int(grown) < 64, f"the refused load grew the peak memory by {grown} MiB"


def test_checkpoint_members_that_claim_too_much_or_hold_more_or_less_than_their_header(tmp_path):
    net = _Free()
    net.W = np.ones((2, 3), np.float32)
    cases = {
        "huge": (_npy_header([2**20, 2**20]), r"shape \[1048576, 1048576\] has more elements than the 2147483647"),
        "longer": (_npy_header([4, 4]) + bytes(4 * 16 + 4), r"holds \d+ bytes, but its header says \[4, 4\] float32"),
        "shorter": (_npy_header([4, 4]) + bytes(4 * 16 - 4), r"holds \d+ bytes, but its header says \[4, 4\] float32"),
        "rank": (_npy_header([4]) + bytes(16), r"declared shape \[-1, -1\] \(rank 2\), got a tensor of rank 1"),
    }
    for label, (member, message) in cases.items():
        path = tmp_path / f"{label}.npz"
        path.write_bytes(_raw_zip([_stored("W.npy", member)]))
        with pytest.raises(tf.CheckpointError, match=rf"_Free.load\(.*{label}\.npz\): parameter 'W': .*{message}"):
            net.load(path)
        np.testing.assert_array_equal(net.W.numpy, np.ones((2, 3), np.float32))  # unchanged
    exact = tmp_path / "exact.npz"
    exact.write_bytes(_raw_zip([_stored("W.npy", _npy_header([4, 4]) + np.arange(16, dtype="<f4").tobytes())]))
    np.testing.assert_array_equal(net.load(exact).W.numpy, np.arange(16, dtype=np.float32).reshape(4, 4))


# -- 4. nesting, and producers that refuse to export ---------------------------------------------


def _nested(depth: int, kinds: tuple):
    def nested():
        a = tf.input([-1], tf.float32)
        b = tf.zeros(a.shape, tf.float32)
        with contextlib.ExitStack() as blocks:
            for k in range(depth):
                if kinds[k % len(kinds)] == "loop":
                    blocks.enter_context(tf.loop(2 if k % 7 == 0 else 1))
                else:
                    blocks.enter_context(tf.if_cond(a[0] > -1.0))  # the deepest block's line
            b.val = b + 1.0
        return b
    return nested


NESTED_LINE = next(n for n, line in enumerate(open(__file__), 1) if "# the deepest block's line" in line)


def test_300_nested_if_blocks_compile_and_run(backend):
    """RecursionError before (the emitters recurse into nested blocks)."""
    limit = sys.getrecursionlimit()
    prog = tf.compile(_nested(300, ("if",)))
    np.testing.assert_array_equal(prog(np.ones(4, np.float32)).numpy, np.ones(4))
    np.testing.assert_array_equal(prog(np.full(4, -2.0, np.float32)).numpy, np.zeros(4))
    assert sys.getrecursionlimit() == limit  # raised for the compile only


def _deep_ifs_around_loops():
    """90 nested blocks, a loop of 1 or 2 trips in every ninth, the others ifs on the data,
    each scaling the running value; at the bottom a break under an if (WGSL: the ifs from
    depth 48 on are flattened into guards, emit/wgsl_nesting.py)."""
    a = tf.input([-1], tf.float32)
    b = tf.zeros(a.shape, tf.float32)
    with contextlib.ExitStack() as blocks:
        for k in range(90):
            if k % 9 == 4:
                blocks.enter_context(tf.loop(2 if k % 2 == 0 else 1))
                b.val = b + 0.5
            else:
                blocks.enter_context(tf.if_cond(a > -1.0 + k * 0.01))
                b.val = b * 1.01
        b.val = b + 1.0
        with tf.if_cond(a > 0.5):
            tf.break_loop()
        b.val = b + 2.0
    return b


def _deep_reference(x: float) -> np.float32:
    f32 = np.float32

    def level(k, b):  # (value, whether a break is on its way to the enclosing loop)
        if k == 90:
            b = f32(b + f32(1.0))
            return (b, True) if x > 0.5 else (f32(b + f32(2.0)), False)
        if k % 9 == 4:
            for _ in range(2 if k % 2 == 0 else 1):
                b, broke = level(k + 1, f32(b + f32(0.5)))
                if broke:
                    break
            return b, False
        if x > f32(-1.0 + k * 0.01):
            return level(k + 1, f32(b * f32(1.01)))
        return b, False
    return level(0, f32(0.0))[0]


def test_90_nested_ifs_and_loops_with_a_break_match_python(backend):
    prog = tf.compile(_deep_ifs_around_loops)
    x = np.array([1.0, 0.2, -0.5, -0.05, -0.3, -2.0], np.float32)  # (leaving at depths 0-90)
    want = np.array([_deep_reference(v) for v in x], np.float32)
    # (OpenGL's compiler fuses b * 1.01 + 0.5 into one rounding: up to 1 ulp per level, 90 levels)
    np.testing.assert_allclose(prog(x).numpy, want, rtol=90 * 2.0**-24)


def test_300_nested_loops_and_ifs_compile_and_run_on_the_cpu():
    """The loops of 2 trips (one block in seven) multiply: 2^(number of them) adds of 1."""
    tf.initialize(tf.cpu)
    kinds = ("loop", "if")
    prog = tf.compile(_nested(300, kinds))
    doubled = sum(1 for k in range(300) if kinds[k % 2] == "loop" and k % 7 == 0)
    np.testing.assert_array_equal(prog(np.ones(3, np.float32)).numpy, np.full(3, 2.0**doubled))


def test_loops_nested_beyond_what_wgsl_compilers_take_are_refused_at_the_users_line():
    reason = webgpu_unavailable_reason()
    if reason is not None:
        pytest.skip(f"no WebGPU device: {reason}")
    tf.initialize(tf.webgpu)
    try:
        with pytest.raises(tf.TensorFrostError, match=r"nests more than 110 loops in one another, more than WGSL "
                                                      r"compilers take") as info:
            tf.compile(_nested(300, ("loop",)))
        assert "test_hostile_inputs.py" in str(info.value)
    finally:
        tf.initialize(tf.cpu)


def test_nesting_beyond_the_limit_is_a_trace_error_at_the_users_line():
    tf.initialize(tf.cpu)
    start = time.perf_counter()
    with pytest.raises(tf.TraceError, match=rf"has {MAX_NESTING + 1} tf.loop / tf.if_cond blocks nested in one "
                                            rf"another, more than the {MAX_NESTING}") as info:
        tf.compile(_nested(MAX_NESTING + 1, ("if",)))
    assert f"line {NESTED_LINE}" in str(info.value)
    assert time.perf_counter() - start < 60  # refused before the passes


class _RefusingProducer:
    """What torch gives for a tensor that requires grad: a DLPack producer that refuses."""

    def __dlpack__(self, **options):
        raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")

    def __dlpack_device__(self):
        return (1, 0)

    def __array__(self, dtype=None, copy=None):
        raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")


def test_a_dlpack_producer_that_refuses_to_export_is_an_argument_error(backend):
    prog = tf.compile(_double, name="doubled")
    refused = r"expected a DLPack producer in CPU memory, got a _RefusingProducer \(Can't export tensors that"
    with pytest.raises(tf.ArgumentError, match=rf"tf.from_dlpack: {refused}"):
        tf.tensor(_RefusingProducer())
    with pytest.raises(tf.ArgumentError, match=rf"tf.tensor: {refused}"):
        tf.tensor(_RefusingProducer(), tf.float32)
    for _ in range(2):  # (the first call and the program's later ones take different paths)
        with pytest.raises(tf.ArgumentError, match=rf"argument 0 \('a'\) of doubled: {refused}"):
            prog(_RefusingProducer())
        values = np.arange(5, dtype=np.float64)  # (converted, as an array would be)
        np.testing.assert_array_equal(prog(DlpackProducer(values)).numpy, 2 * values)


# -- 5. check messages arrive whole --------------------------------------------------------------

LONG_NAME = "n" * 3000 + "END"


def _asserting():
    a = tf.input([-1], tf.float32)
    tf.assert_value("before\0after", a > 0.0)  # the first check's line
    tf.assert_value(LONG_NAME, a < 10.0)
    return a * 2.0


ASSERT_LINE = next(n for n, line in enumerate(open(__file__), 1) if "# the first check's line" in line)


def _where(message: str) -> int | None:
    found = re.search(r'test_hostile_inputs\.py(?::|", line )(\d+)', message)
    return int(found.group(1)) if found else None


def test_check_messages_with_a_nul_or_3000_characters_arrive_whole(backend):
    prog = tf.compile(_asserting)
    np.testing.assert_array_equal(prog(np.ones(3, np.float32)).numpy, [2, 2, 2])
    for value, shown, line in [(0.0, "before\\x00after", ASSERT_LINE), (20.0, LONG_NAME, ASSERT_LINE + 1)]:
        with pytest.raises(tf.RuntimeCheckError) as info:
            prog(np.full(3, value, np.float32))
        message = str(info.value)
        assert f"tf.assert_value: '{shown}' is false" in message, message[:200]
        assert _where(message) == line, message[-300:]


_CHECK_HARNESS = CPU_RUNTIME + r"""
int main() {
    CpuRuntime runtime;
    TFContext tf{&runtime};
    for (float value : {0.0f, 20.0f}) {
        TFTensor a = tf.allocate("a", {3u}, TFType::Float);
        for (int k = 0; k < 3; k++) ((float*)a.buffer.get())[k] = value;
        try {
            @MAIN@(tf, a);
        } catch (const tf_error& e) { std::printf("%s\n", e.what()); }
    }
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="no g++ to compile the generated C++")
def test_codegen_check_messages_arrive_whole(tmp_path):
    tf.initialize(tf.codegen, kernel_lang=tf.cpp_lang)
    try:
        mains, kernels = len(tf.get_all_generated_main_functions()), len(tf.get_all_generated_kernels())
        tf.compile(_asserting)
    finally:
        tf.initialize(tf.cpu)
    new_main, = tf.get_all_generated_main_functions()[mains:]
    new_kernels = tf.get_all_generated_kernels()[kernels:]
    names = [source.split('extern "C" void ')[1].split("(")[0] for source in new_kernels]
    table = ", ".join(["nullptr"] * kernels + names)
    main = re.search(r"(\w+)\(TFContext", new_main).group(1)
    source = tmp_path / "run.cpp"
    source.write_text(tf.get_cpp_header() + "".join(new_kernels) + new_main
                      + _CHECK_HARNESS.replace("@KERNELS@", table).replace("@MAIN@", main))
    build = subprocess.run(["g++", "-std=c++17", "-O1", "-o", str(tmp_path / "run"), str(source)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    lines = subprocess.run([str(tmp_path / "run")], capture_output=True, text=True, check=True,
                           timeout=60).stdout.splitlines()
    assert lines == ["tf.assert_value: 'before\\x00after' is false", f"tf.assert_value: '{LONG_NAME}' is false"]


# -- probes: checkpoints from strangers -----------------------------------------------------------


class _Pair(tf.Module):
    def __init__(self):
        super().__init__()
        self.W = tf.Parameter([2, 2], tf.float32)
        self.b = tf.Parameter([2], tf.float32)


def _npy(array, **options) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, **options)
    return buffer.getvalue()


def _checkpoint(path, entries) -> str:
    path.write_bytes(_raw_zip([entry if isinstance(entry, tuple) and len(entry) == 6 else _stored(*entry)
                               for entry in entries]))
    return str(path)


W_VALUES, B_VALUES = np.arange(4, dtype=np.float32).reshape(2, 2), np.array([5, 6], np.float32)
GOOD = [("W.npy", _npy(W_VALUES)), ("b.npy", _npy(B_VALUES))]


def test_probe_checkpoint_with_two_members_of_one_name_is_refused(tmp_path):
    """Zip allows two members of one name; numpy silently read the last one."""
    path = _checkpoint(tmp_path / "twice.npz", GOOD + [("W.npy", _npy(np.zeros((2, 2), np.float32)))])
    with pytest.raises(tf.CheckpointError, match=r"the file holds two members for 'W' \('W.npy' and 'W.npy'\)"):
        _Pair().load(path)
    path = _checkpoint(tmp_path / "spelled_twice.npz", GOOD + [("W", _npy(np.zeros((2, 2), np.float32)))])
    with pytest.raises(tf.CheckpointError, match=r"two members for 'W' \('W.npy' and 'W'\)"):
        _Pair().load(path)


class _Planted:
    def __reduce__(self):
        return (os.system, ("touch planted_by_a_pickle",))


def test_probe_a_pickle_in_a_checkpoint_never_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    member = _npy(np.array([_Planted()], dtype=object), allow_pickle=True)
    path = _checkpoint(tmp_path / "pickle.npz", [("W.npy", member), GOOD[1]])
    with pytest.raises(tf.CheckpointError, match=r"parameter 'W': the member 'W.npy' holds Python objects \(a "
                                                 r"pickle\), which Module.load never reads"):
        _Pair().load(path)
    assert not (tmp_path / "planted_by_a_pickle").exists()


def test_probe_a_checkpoint_of_60000_members_is_refused_quickly_and_briefly(tmp_path):
    """The message listed every unexpected member (a megabyte of text)."""
    path = _checkpoint(tmp_path / "many.npz", GOOD + [(f"m{k}.npy", b"") for k in range(60000)])
    start = time.perf_counter()
    with pytest.raises(tf.CheckpointError, match=r"unexpected: \['m0', .*'m9', '... 59990 more'\]") as info:
        _Pair().load(path)
    assert time.perf_counter() - start < 20 and len(str(info.value)) < 500


def test_probe_member_names_with_separators_are_names_not_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, key in [("../W.npy", "../W"), ("/tmp/W.npy", "/tmp/W"), ("sub/W.npy", "sub/W"), ("W.npy/", "W.npy/")]:
        path = _checkpoint(tmp_path / "odd.npz", [(name, _npy(W_VALUES)), GOOD[1]])
        with pytest.raises(tf.CheckpointError, match=rf"missing: \['W'\]; unexpected: \['{re.escape(key)}'\]"):
            _Pair().load(path)
    assert sorted(os.listdir(tmp_path)) == ["odd.npz"]  # nothing extracted anywhere
    plain = _checkpoint(tmp_path / "plain.npz", [("W", _npy(W_VALUES)), GOOD[1]])  # numpy reads "W" as W too
    np.testing.assert_array_equal(_Pair().load(plain).W.numpy, W_VALUES)


def test_probe_a_symbolic_link_member_is_not_followed(tmp_path):
    link = ("W.npy", b"/etc/passwd", 11, zlib.crc32(b"/etc/passwd"), 0, (stat.S_IFLNK | 0o777) << 16)
    path = _checkpoint(tmp_path / "link.npz", [link, GOOD[1]])
    with pytest.raises(tf.CheckpointError, match=r"parameter 'W': the member 'W.npy' is not a numpy array"):
        _Pair().load(path)


def test_probe_arrays_numpy_writes_other_ways_load_as_numpy_reads_them(tmp_path):
    """Fortran order, big-endian, float64 and int64, headers of format 2.0 and 3.0."""
    variants = {"fortran": _npy(np.asfortranarray(W_VALUES.astype(np.float64))),
                "big_endian": _npy(W_VALUES.astype(">f4")), "int64": _npy(W_VALUES.astype(np.int64)),
                "v2": _npy(W_VALUES, version=(2, 0)), "v3": _npy(W_VALUES, version=(3, 0))}
    for label, member in variants.items():
        path = _checkpoint(tmp_path / f"{label}.npz", [("W.npy", member), GOOD[1]])
        np.testing.assert_array_equal(np.load(path)["W"], W_VALUES)  # numpy's own reading
        net = _Pair().load(path)
        np.testing.assert_array_equal(net.W.numpy, W_VALUES)
        np.testing.assert_array_equal(net.b.numpy, B_VALUES)
    with pytest.raises(tf.CheckpointError, match=r"parameter 'W': expected tf.float32 values, got a complex64 array"):
        _Pair().load(_checkpoint(tmp_path / "complex.npz", [("W.npy", _npy(W_VALUES.astype(np.complex64))), GOOD[1]]))


def test_probe_checkpoints_that_are_pipes_devices_or_directories(tmp_path):
    """A named pipe blocked load forever; a pipe's stream raised io.UnsupportedOperation."""
    fifo = tmp_path / "fifo.npz"
    os.mkfifo(fifo)
    for path, what in [(fifo, "not a regular file"), ("/dev/zero", "not a regular file"), (tmp_path, "a directory")]:
        with pytest.raises(tf.CheckpointError, match=f"the path is {what}"):
            _Pair().load(path)
    read, write = os.pipe()
    os.write(write, _raw_zip([_stored(*entry) for entry in GOOD]))
    os.close(write)
    with os.fdopen(read, "rb") as stream, pytest.raises(tf.CheckpointError, match="the file object cannot seek"):
        _Pair().load(stream)
    buffered = io.BytesIO(_raw_zip([_stored(*entry) for entry in GOOD]))
    np.testing.assert_array_equal(_Pair().load(buffered).b.numpy, B_VALUES)


_FULL_DISK_SCRIPT = """
    import os, resource, signal, sys
    import numpy as np, tensorfrost as tf
    tf.initialize(tf.cpu)
    net = tf.Module()
    net.W = tf.Parameter([256, 256], tf.float32)
    net.initialize_parameters(seed=1)
    net.save(sys.argv[1])
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # (a write past the limit fails with EFBIG instead)
    resource.setrlimit(resource.RLIMIT_FSIZE, (100000, 100000))
    net.initialize_parameters(seed=2)
    try:
        net.save(sys.argv[1])
    except OSError as error:
        print(error)
"""


def test_probe_a_save_that_runs_out_of_space_keeps_the_old_file(tmp_path):
    """Past a file size limit (as on a full disk): the old checkpoint and no temporary remain,
    and the error names the file (it did not)."""
    path = tmp_path / "net.npz"
    out = _run_script(_FULL_DISK_SCRIPT.replace("sys.argv[1]", repr(str(path))))
    assert out.returncode == 0, out.stderr[-3000:]
    assert f"File too large (nothing was written; the file is as it was): '{path}'" in out.stdout
    assert sorted(os.listdir(tmp_path)) == ["net.npz"]
    model = tf.Module()
    model.W = tf.Parameter([256, 256], tf.float32)
    model.initialize_parameters(seed=1)
    expected = model.W.numpy
    np.testing.assert_array_equal(model.load(path).W.numpy, expected)


# -- probes: names, shapes and arguments nobody expected -------------------------------------------

ODD_NAMES = ["int", "__LINE__", "__FILE__", "main", "tf_main", "std", "NULL", "errno", "in", "out", "error",
             "layout", "uniform", "buffer", "gl_GlobalInvocationID", "void", "return", "class", "float", "tf_g",
             "tf_b0", "tf_u", "i0", "v_3", "b_0", "a_shape0_1", "x.y", "_", "__", "9lives", ""]


def _odd_names(names):
    def odd_names():
        inputs = [tf.input([-1], tf.float32, name=name) for name in names]
        total = inputs[0] * 0.0
        for k, value in enumerate(inputs):
            total = total + value * float(k + 1)
        return total
    return odd_names


@pytest.mark.parametrize("names", [ODD_NAMES, ["Δt", "é", "日本"]], ids=["keywords", "unicode"])
def test_probe_names_that_are_keywords_macros_or_our_own_identifiers(backend, names):
    prog = tf.compile(_odd_names(names), name="int")
    values = [np.full(3, k, np.float32) for k in range(len(names))]
    expected = sum(v * np.float32(k + 1) for k, v in enumerate(values))
    np.testing.assert_array_equal(prog(*values).numpy, expected)


def test_probe_a_tensor_of_nine_axes_is_a_shape_error_at_its_line(backend):
    """The cpu wrote a ninth dim past the 8 of an output's slot (into its rank, or the next
    slot); opengl refused only when it ran."""
    def nine_axes():
        a = tf.input([-1], tf.float32)
        b = tf.reshape(a, [1, 1, 1, 1, 1, 1, 1, 1, a.shape[0]])  # nine axes
        return b * 2.0
    line = next(n for n, text in enumerate(open(__file__), 1) if "# nine axes" in text)
    with pytest.raises(tf.ShapeError, match=r"a tensor has at most 8 axes, got one of shape \[1, 1, 1, 1, 1, 1, 1, "
                                            r"1, a.shape\[0\]\] \(9 axes\)") as info:
        tf.compile(nine_axes)
    assert f"line {line}" in str(info.value)


def test_probe_arguments_with_negative_zero_or_transposed_strides(backend):
    def affine():
        a = tf.input([-1, -1], tf.float32)
        return a * 2.0 + 1.0
    prog = tf.compile(affine)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    kept = x.copy()
    views = [x[::-1, ::-2], np.broadcast_to(np.arange(4, dtype=np.float32), (3, 4)), x.T, x.astype(np.float64)[::-1],
             np.lib.stride_tricks.as_strided(x, (3, 3), (4, 0))]
    for view in views:
        np.testing.assert_array_equal(prog(view).numpy, view * np.float32(2) + np.float32(1))
        np.testing.assert_array_equal(tf.tensor(view).numpy, view)
    np.testing.assert_array_equal(x, kept)


class _Raises:
    def __init__(self, error):
        self.error = error

    def __array__(self, dtype=None, copy=None):
        raise self.error


def test_probe_objects_whose_conversion_raises_anything(backend):
    """A KeyError from a user's __array__ came out raw."""
    prog = tf.compile(_double, name="doubled")
    for error in (KeyError("boom"), MemoryError(), ZeroDivisionError("no")):
        name = type(error).__name__
        with pytest.raises(tf.ArgumentError, match=rf"argument 0 \('a'\) of doubled: converting the _Raises to an "
                                                   rf"array raised {name}"):
            prog(_Raises(error))
        with pytest.raises(tf.ArgumentError, match=rf"tf.tensor: converting the _Raises to an array raised {name}"):
            tf.tensor(_Raises(error))


def test_probe_ten_thousand_arguments(backend):
    prog = tf.compile(_double, name="doubled")
    x = np.ones(2, np.float32)
    start = time.perf_counter()
    for _ in range(2):
        with pytest.raises(tf.ArgumentError, match=r"^doubled takes 1 input\(s\) \(a\), got 10000$"):
            prog(*([x] * 10000))
    assert time.perf_counter() - start < 10
    np.testing.assert_array_equal(prog(x).numpy, [2, 2])


# -- probes: the machine is odd ---------------------------------------------------------------------

_HOMELESS = """
    import warnings
    import numpy as np, tensorfrost as tf
    tf.initialize(tf.cpu)
    def affine():
        a = tf.input([-1], tf.float32)
        return a * 3.0 + 1.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        print(tf.compile(affine)(np.arange(3, dtype=np.float32)).numpy.tolist())
    print([str(w.message)[:60] for w in caught])
"""


@pytest.mark.parametrize("setting", ["no_home", "cache_in_proc", "cache_is_a_device"])
def test_probe_no_home_or_a_cache_directory_that_cannot_be(tmp_path, setting):
    env = {"no_home": {"HOME": None, "TENSORFROST_CACHE_DIR": None},  # (the default: ~ from the password file)
           "cache_in_proc": {"TENSORFROST_CACHE_DIR": "/proc/self/tensorfrost-cache"},
           "cache_is_a_device": {"TENSORFROST_CACHE_DIR": "/dev/null"}}[setting]
    out = _run_script(_HOMELESS, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    assert lines[0] == "[1.0, 4.0, 7.0]"
    expected = "[]" if setting == "no_home" else "not using the compile cache directory"
    assert expected in lines[1], lines[1]


def _named(name: str):
    def named():
        a = tf.input([-1], tf.float32, name=name)
        b = tf.zeros([a.shape[0] - 10])  # a size check
        return a * 2.0, b
    return named


def test_probe_surrogates_and_nuls_in_program_and_input_names(backend, tmp_path, monkeypatch):
    """Strings that UTF-8 cannot encode and C cannot hold, in every place a name goes: the
    generated code, the compile cache's file names, the IR dumps and the messages."""
    monkeypatch.setenv("TENSORFROST_DUMP_IR", str(tmp_path / "dump"))
    for name in ("sur\udc80rogate", "nul\0name"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            prog = tf.compile(_named(name), name=name)
        doubled, zeros = prog(np.ones(12, np.float32))
        np.testing.assert_array_equal(doubled.numpy, np.full(12, 2.0))
        assert zeros.shape == (2,)
        with pytest.raises(tf.RuntimeCheckError, match=r"shape\[0\] is -7, a negative size"):
            prog(np.ones(3, np.float32))
        with pytest.raises(tf.ArgumentError, match=rf"argument 0 \('{re.escape(name)}'\)"):
            prog(np.ones((2, 2), np.float32))
    assert len([n for n in os.listdir(tmp_path / "dump") if ".00.trace." in n]) == 2


def test_probe_shared_memory_dropped_while_another_thread_calls():
    """Tensors over DLPack producers' memory, replaced and dropped by one thread while another
    calls a program on them: every result is right (each call holds what it reads)."""
    tf.initialize(tf.cpu)
    prog = tf.compile(_double, name="doubled")
    shared = {"t": tf.from_dlpack(DlpackProducer(np.zeros(1 << 16, np.float32)))}
    stop, wrong = threading.Event(), []

    def replace():
        k = 0
        while not stop.is_set():
            k += 1
            shared["t"] = tf.from_dlpack(DlpackProducer(np.full(1 << 16, k % 7, np.float32)))

    thread = threading.Thread(target=replace)
    thread.start()
    try:
        for _ in range(300):
            tensor = shared["t"]
            values = np.from_dlpack(tensor).copy()
            result = prog(tensor).numpy
            if not np.array_equal(result, 2 * values):
                wrong.append(values[0])
    finally:
        stop.set()
        thread.join()
    assert wrong == []
