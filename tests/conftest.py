"""Shared test setup: every test that takes ``backend`` runs once per backend."""

import os
import shutil
import subprocess

import numpy as np
import pytest

import tensorfrost as tf

# Every compile in the tests checks the IR's structure after the passes before fusion (and in the
# subprocesses tests start, which inherit the environment).
os.environ.setdefault("TENSORFROST_VALIDATE", "1")

# Backends the whole suite runs on.
BACKENDS = ["cpu", "opengl", "webgpu"]


# A subprocess script's helper (after ``import os, signal, threading, time``): how long
# ``call()`` took to stop after a SIGINT sent half a second into it.
INTERRUPTED_AFTER = """def interrupted_after(call):
    sent = []
    timer = threading.Timer(0.5, lambda: (sent.append(time.monotonic()), os.kill(os.getpid(), signal.SIGINT)))
    timer.start()
    try:
        call()
    except KeyboardInterrupt:
        return time.monotonic() - sent[0]
    raise AssertionError("the call finished: it was not long enough")
"""


class DlpackProducer:
    """A DLPack producer that is not a numpy array (as a torch or jax tensor is one): it
    exports its array's memory and nothing else."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, **options):
        return self._array.__dlpack__(**options)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def gl_unavailable_reason():
    """None when an OpenGL 4.3 context can be created, else why not."""
    from tensorfrost.backend_gl.context import unavailable_reason
    return unavailable_reason()


def webgpu_unavailable_reason():
    """None when a WebGPU device can be made, else why not."""
    from tensorfrost.backend_webgpu.context import unavailable_reason
    return unavailable_reason()


@pytest.fixture(params=BACKENDS)
def backend(request):
    """Select a backend for the test; yields the device object. OpenGL cases skip, with
    the reason, only where no OpenGL 4.3 context can be created."""
    if request.param == "opengl":
        reason = gl_unavailable_reason()
        if reason is not None:
            pytest.skip(f"no OpenGL 4.3 context: {reason}")
    if request.param == "webgpu":
        reason = webgpu_unavailable_reason()
        if reason is not None:
            pytest.skip(f"no WebGPU device: {reason}")
    device = getattr(tf, request.param)
    tf.initialize(device)
    yield device
    tf.initialize(tf.cpu)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture(scope="session")
def x_display():
    """An X display for window tests: $DISPLAY if set, else a private Xvfb server."""
    if os.environ.get("DISPLAY"):
        yield os.environ["DISPLAY"]
        return
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        pytest.skip("no X display, and no Xvfb to start one (apt-get install xvfb)")
    # -displayfd: the server picks a free display itself and writes its number when ready, so
    # test processes running side by side (pytest -n) never race for one number.
    read_end, write_end = os.pipe()
    server = subprocess.Popen([xvfb, "-displayfd", str(write_end), "-screen", "0", "640x480x24", "-nolisten", "tcp"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=(write_end,))
    os.close(write_end)
    with os.fdopen(read_end) as announced:
        number = announced.readline().strip()
    if not number:
        server.kill()
        pytest.fail(f"{xvfb} did not start (it announced no display number)")
    os.environ["DISPLAY"] = f":{number}"
    try:
        yield os.environ["DISPLAY"]
    finally:
        del os.environ["DISPLAY"]
        server.terminate()
        server.wait(timeout=10)


def central_differences(f, x, h=1e-6):
    """d f / d x of a scalar function of a float64 array, by central differences (error
    ~h^2 |f'''|; h must stay well above float64 rounding of f's values)."""
    x = np.asarray(x, np.float64)
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = h
        grad[index] = (f(x + step) - f(x - step)) / (2 * h)
    return grad
