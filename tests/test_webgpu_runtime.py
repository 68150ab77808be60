"""tf.webgpu's runtime: uploads of any byte count, get_last_execution_time from the GPU's
timestamps around a call's dispatches, and packed tensors through the arena (the shared
programs of tests/test_many_buffers.py run through it too)."""

import time

import numpy as np
import pytest
from conftest import webgpu_unavailable_reason

import tensorfrost as tf
from tensorfrost.backend_webgpu.context import context

_REASON = webgpu_unavailable_reason()
pytestmark = pytest.mark.skipif(_REASON is not None, reason=f"no WebGPU device: {_REASON}")


@pytest.fixture(autouse=True)
def webgpu():
    tf.initialize(tf.webgpu)
    yield
    tf.initialize(tf.cpu)


def _iterated_sine():
    x = tf.input([-1], tf.float32)
    v = x * 1.0
    with tf.loop(50):
        v.val = tf.sin(v) + 1.0
    return v


def test_the_gpu_time_of_a_call_lies_within_its_wall_time():
    """The GPU clock starts at the first dispatch and stops at the last, both inside the
    interval from the call to its result on the host (clocks of the same machine)."""
    prog = tf.compile(_iterated_sine)
    x = tf.tensor(np.linspace(-1, 1, 1 << 16, dtype=np.float32))
    _ = prog(x).numpy  # (the first call builds the pipelines)
    start = time.perf_counter()
    y = prog(x).numpy
    wall_ms = (time.perf_counter() - start) * 1000.0
    gpu_ms = prog.get_last_execution_time()
    want = x.numpy.astype(np.float64)
    for _ in range(50):
        want = np.sin(want) + 1.0
    np.testing.assert_allclose(y, want, rtol=1e-5)  # (50 float32 sines: each within a few ulp)
    if "timestamp-query" in context().features:
        assert 0.0 < gpu_ms <= wall_ms, (gpu_ms, wall_ms)
    else:
        assert 0.0 < gpu_ms


def test_a_call_that_dispatches_nothing_took_no_gpu_time():
    def same():
        return tf.input([-1], tf.float32)
    prog = tf.compile(same)
    prog(np.ones(3, np.float32))
    if "timestamp-query" in context().features:
        assert prog.get_last_execution_time() == 0.0
    else:  # (the call's wall time)
        assert prog.get_last_execution_time() > 0.0


@pytest.mark.parametrize("count", [0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33])
def test_uploads_of_any_byte_count_read_back_exactly(count):
    """A buffer is written while mapped at its creation, 8 bytes at a time and a zero-filled
    tail: every byte count (WebGPU maps at multiples of 8, binds multiples of 4)."""
    from tensorfrost.backend_webgpu.runtime import WgpuBuffer
    device = context().device
    data = (np.arange(count, dtype=np.uint8) * 37 + 11).astype(np.uint8)
    buffer = WgpuBuffer(device, data.nbytes, data)
    stored = np.frombuffer(device.queue.read_buffer(buffer.buffer), np.uint8)
    np.testing.assert_array_equal(stored[:count], data)
    assert not stored[count:].any()  # (the padding of the last word and the 16-byte minimum)
    values = np.arange(count, dtype=np.float32) * 0.5 - 3.0
    np.testing.assert_array_equal(tf.tensor(values).numpy, values)


def _packed_program():
    a, b = tf.input([-1], tf.int8), tf.input([-1], tf.float16)
    c, e = tf.input([-1], tf.bfloat16), tf.input([-1], tf.uint16)
    hist = tf.zeros([9], tf.int8)
    low = tf.zeros([5], tf.int32)
    i, = a.indices
    tf.scatterAdd(hist[i % 9], a[i])
    j, = e.indices
    tf.scatterMin(low[j % 5], tf.int(e[j]) - 300)
    return [a * 3, b + 1.5, c * 0.25 - 1.0, e ^ (e + e), hist, low, b.astype(tf.float32) + c[0]]


@pytest.mark.parametrize("limit", [None, 4, 1], ids=["direct", "direct4", "arena"])
def test_packed_tensors_and_atomics_through_the_arena_match_the_cpu(limit, monkeypatch):
    """With the direct bindings lowered, packed 8- and 16-bit tensors (stored and combined
    atomically by compare-and-swap on their words) live in the arena's words: every bit as
    the cpu computes it."""
    from tensorfrost.backend_gl.runtime import ArenaStats
    from tensorfrost.backend_webgpu import runtime
    rng = np.random.default_rng(31)
    arrays = [rng.integers(-128, 128, 3001).astype(np.int8), rng.standard_normal(1001).astype(np.float16),
              rng.standard_normal(301).astype(tf.bfloat16.numpy), rng.integers(0, 2**16, 513).astype(np.uint16)]
    tf.initialize(tf.cpu)
    want = [t.numpy for t in tf.compile(_packed_program)(*arrays)]
    monkeypatch.setattr(runtime, "MAX_DIRECT_BINDINGS", limit)
    tf.initialize(tf.webgpu)
    before = ArenaStats.dispatches
    got = [t.numpy for t in tf.compile(_packed_program)(*arrays)]
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g.dtype == w.dtype, k
        np.testing.assert_array_equal(g.view(np.uint8), w.view(np.uint8), err_msg=f"output {k}")
    assert limit != 1 or ArenaStats.dispatches > before  # (one binding: every kernel through the arena)


@pytest.mark.parametrize(("limit", "words"), [(None, 256), (2, 1024)], ids=["parts", "arena-in-parts"])
def test_buffers_over_the_largest_binding_are_bound_in_parts(limit, words, monkeypatch):
    """With the binding range lowered to a few hundred words, a kernel's buffers are bound in
    up to 12 ranges (reads, stores of packed elements, atomics and the arena's own parts
    choosing the range of each element): every bit as the cpu computes it."""
    from tensorfrost import backend as devices
    from tensorfrost.backend_gl.runtime import ArenaStats
    from tensorfrost.backend_webgpu import runtime
    rng = np.random.default_rng(5)
    arrays = [rng.integers(-128, 128, 3001).astype(np.int8), rng.standard_normal(1001).astype(np.float16),
              rng.standard_normal(301).astype(tf.bfloat16.numpy), rng.integers(0, 2**16, 513).astype(np.uint16)]
    tf.initialize(tf.cpu)
    want = [t.numpy for t in tf.compile(_packed_program)(*arrays)]
    monkeypatch.setattr(runtime, "MAX_DIRECT_BINDINGS", limit)
    tf.initialize(tf.webgpu)
    monkeypatch.setattr(devices.backend_for(tf.webgpu), "elements_per_part", words)
    before = ArenaStats.dispatches
    got = [t.numpy for t in tf.compile(_packed_program)(*arrays)]
    assert limit is None or ArenaStats.dispatches > before  # (2 bindings: the arena, of 2 ranges, and one more)
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        np.testing.assert_array_equal(g.view(np.uint8), w.view(np.uint8), err_msg=f"output {k}")
    monkeypatch.setattr(runtime, "MAX_DIRECT_BINDINGS", None)
    x = rng.standard_normal(5000).astype(np.float32)  # (float scatters in parts: compare-and-swap loops)
    def histogram():
        v = tf.input([-1], tf.float32)
        out = tf.zeros([700], tf.float32)
        i, = v.indices
        tf.scatterAdd(out[i % 700], v[i] * 0.5)
        return out

    counts = np.zeros(700, np.float64)
    np.add.at(counts, np.arange(5000) % 700, x.astype(np.float64) * 0.5)
    # (7 or 8 float32 adds per bin in any order: within 8 * 2**-24 of the sum of magnitudes)
    bound = np.zeros(700)
    np.add.at(bound, np.arange(5000) % 700, np.abs(x.astype(np.float64)) * 0.5)
    assert (np.abs(tf.compile(histogram)(x).numpy - counts) <= bound * 8 * 2.0**-24 + 1e-30).all()


def test_an_arena_that_needs_more_ranges_than_the_adapter_binds_is_a_clear_error(monkeypatch):
    from tensorfrost import backend as devices
    from tensorfrost.backend_webgpu import runtime
    monkeypatch.setattr(runtime, "MAX_DIRECT_BINDINGS", 1)
    monkeypatch.setattr(devices.backend_for(tf.webgpu), "elements_per_part", 64)
    prog = tf.compile(_packed_program)
    arrays = [np.zeros(3001, np.int8), np.zeros(1001, np.float16), np.zeros(301, tf.bfloat16.numpy),
              np.zeros(513, np.uint16)]
    with pytest.raises(tf.RuntimeCheckError, match=r"more storage buffer bindings than the 1 .* even with most of "
                                                   r"them in one arena buffer"):
        prog(*arrays)
    monkeypatch.undo()  # (the process goes on: the same program with the adapter's own limits)
    assert prog(*arrays)[0].numpy.shape == (3001,)
