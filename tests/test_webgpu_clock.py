"""tf.webgpu's get_last_execution_time: the GPU's timestamps around a call's dispatches."""

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
