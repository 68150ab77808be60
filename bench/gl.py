"""OpenGL rows of the workloads: tensorfrost on ``tf.opengl``, hand-written GLSL compute
shaders, and taichi's ``ti.opengl``, all on the same driver (Mesa llvmpipe here, headless).

The hand-written shaders run on tensorfrost's own EGL context (the same context setup),
keep their data in storage buffers, and are timed at the best of a few local sizes tried
during setup. Taichi's GL backend makes its own context current, so its rows switch to it
and back around each call; whether it can start headless at all is probed in a child
process (on some drivers ``ti.init(arch=ti.opengl)`` crashes the process).
"""

from __future__ import annotations

import ctypes
import functools
import os
import subprocess
import sys
import time

import numpy as np

from .harness import NotAvailableError, Target
from .peers import GL_IMPLS

# Issue 18's goals for the OpenGL row: 90% of the hand-written shaders, and taichi's speed.
TARGETS = [Target("peer", 0.9, peers=(GL_IMPLS[1],), impl=GL_IMPLS[0], text="at least 90% of hand GLSL"),
           Target("peer", 1.0, peers=(GL_IMPLS[2],), impl=GL_IMPLS[0], text="at least taichi on OpenGL")]


def _gl():
    os.environ.setdefault("PYOPENGL_PLATFORM", "egl")
    from OpenGL import GL
    return GL


def context():
    """Tensorfrost's compute context, current on this thread."""
    from tensorfrost.backend_gl import context as tf_context
    try:
        tf_context.ensure_context()
    except Exception as e:  # noqa: BLE001 - no GL here is a missing peer, not a failure
        raise NotAvailableError(f"no OpenGL 4.3 context: {e}") from None
    return _gl()


def buffer(data: np.ndarray | int) -> int:
    """A storage buffer holding ``data`` (or ``data`` bytes, undefined)."""
    gl = _gl()
    nbytes = data if isinstance(data, int) else data.nbytes
    pointer = None if isinstance(data, int) else np.ascontiguousarray(data).ctypes.data_as(ctypes.c_void_p)
    buf = int(gl.glGenBuffers(1))
    gl.glBindBuffer(gl.GL_SHADER_STORAGE_BUFFER, buf)
    gl.glBufferData(gl.GL_SHADER_STORAGE_BUFFER, nbytes, pointer, gl.GL_DYNAMIC_DRAW)
    return buf


def read(buf: int, shape, dtype=np.float32) -> np.ndarray:
    gl = _gl()
    out = np.empty(shape, dtype)
    gl.glBindBuffer(gl.GL_SHADER_STORAGE_BUFFER, buf)
    gl.glGetBufferSubData(gl.GL_SHADER_STORAGE_BUFFER, 0, out.nbytes, out.ctypes.data_as(ctypes.c_void_p))
    return out


def program(source: str) -> int:
    from tensorfrost.backend_gl.programs import compile_program
    return compile_program(source, "hand-written").id


def dispatch(prog: int, buffers, groups, uniforms=()) -> None:
    """One dispatch of ``prog`` with ``buffers`` at bindings 0, 1, ..., int uniforms at
    locations 0, 1, ..., followed by the barrier every tensorfrost dispatch has."""
    gl = _gl()
    gl.glUseProgram(prog)
    for k, value in enumerate(uniforms):
        gl.glUniform1i(k, int(value))
    for k, buf in enumerate(buffers):
        gl.glBindBufferBase(gl.GL_SHADER_STORAGE_BUFFER, k, buf)
    gl.glDispatchCompute(*groups)
    gl.glMemoryBarrier(gl.GL_SHADER_STORAGE_BARRIER_BIT | gl.GL_BUFFER_UPDATE_BARRIER_BIT)


def finish() -> None:
    _gl().glFinish()


def best_local_size(make_run, sizes):
    """The ``run`` of the fastest local size: ``make_run(size)`` builds one; each is timed
    once after a warm-up call."""
    best = None
    for size in sizes:
        run = make_run(size)
        run()
        t = _timed(run)
        if best is None or t < best[0]:
            best = (t, run)
    return best[1]


def _timed(run) -> float:
    t0 = time.perf_counter()
    run()
    return time.perf_counter() - t0


def groups_1d(threads: int, local: int) -> tuple[int, int, int]:
    """Groups for ``threads`` along x, folded into rows when over the 65,535 limit."""
    groups = -(-threads // local)
    rows = -(-groups // 65535)
    return -(-groups // rows), rows, 1


# -- tensorfrost on tf.opengl -------------------------------------------------------------------

def tensorfrost_on(setup, select, finish, warm_up=True):
    """Wrap a tensorfrost impl ``setup(inputs, params) -> (run, fetch)`` to build and run on the
    backend ``select()`` returns (it raises ``NotAvailableError`` where there is none), each
    timed run ending with ``finish()``, the wait for the device; the cpu stays selected for
    the impls set up after it. ``warm_up=False`` for a ``setup`` that makes its first call
    itself (a stateful run, W6's training step, must leave its state as it was)."""
    @functools.wraps(setup)
    def impl(inp, p):
        import tensorfrost as tf
        tf.initialize(select())
        try:
            run, fetch = setup(inp, p)
            if warm_up:
                run()  # the first call makes its tensors while that backend is selected
        finally:
            tf.initialize(tf.cpu)

        def finished():
            out = run()
            finish()
            return out
        return finished, fetch
    return impl


def _select_gl():
    import tensorfrost as tf
    context()
    return tf.opengl


def tensorfrost_gl(setup, warm_up=True):
    """``setup`` on ``tf.opengl``, ending each run with ``glFinish`` as the hand-written rows
    do (llvmpipe dispatches synchronously anyway)."""
    return tensorfrost_on(setup, _select_gl, finish, warm_up)


# -- taichi on ti.opengl ------------------------------------------------------------------------

_PROBE = ("import sys, taichi as ti; ti.init(arch=ti.{arch}, log_level=ti.ERROR); "
          "sys.exit(0 if ti.lang.impl.current_cfg().arch == ti.{arch} else 3)")


@functools.cache
def taichi_problem(arch: str) -> str | None:
    """Why taichi's ``arch`` backend (``opengl``, ``vulkan``) cannot start headless here, or
    None. Probed in a child process: on some drivers ``ti.init`` crashes the process, and
    where the backend is missing taichi falls back to the cpu with a warning."""
    env = dict(os.environ, EGL_PLATFORM=os.environ.get("EGL_PLATFORM", "surfaceless"), TI_LOG_LEVEL="error")
    try:
        done = subprocess.run([sys.executable, "-c", _PROBE.format(arch=arch)], env=env, capture_output=True,
                              timeout=120)
    except subprocess.TimeoutExpired:
        return f"ti.init(arch=ti.{arch}) did not finish in 120 s"
    if done.returncode == 3:
        return f"ti.init(arch=ti.{arch}) fell back to another arch (no {arch} device here)"
    if done.returncode != 0:
        return f"ti.init(arch=ti.{arch}) failed headless (exit status {done.returncode})"
    return None


class _EglCurrent:
    """The EGL context current on this thread, to restore later."""

    def __init__(self):
        from OpenGL import EGL
        self.egl = EGL
        self.state = (EGL.eglGetCurrentDisplay(), EGL.eglGetCurrentSurface(EGL.EGL_DRAW),
                      EGL.eglGetCurrentSurface(EGL.EGL_READ), EGL.eglGetCurrentContext())

    def make_current(self) -> None:
        if self.state[0]:
            self.egl.eglMakeCurrent(*self.state)


def taichi_gl(setup):
    """Wrap a taichi impl to run on ``ti.opengl``, switching contexts around each call so that
    the tensorfrost and hand-written GL rows keep theirs."""
    @functools.wraps(setup)
    def impl(inp, p):
        problem = taichi_problem("opengl")
        if problem:
            raise NotAvailableError(problem)
        import taichi as ti
        os.environ.setdefault("EGL_PLATFORM", "surfaceless")  # taichi's EGL default display, headless
        ours = _EglCurrent()
        ti.init(arch=ti.opengl, default_fp=ti.f32, log_level=ti.WARN)
        theirs = _EglCurrent()
        try:
            run, fetch = setup(inp, p)
        finally:
            ours.make_current()

        def switched(body):
            def call(*args):
                theirs.make_current()
                try:
                    return body(*args)
                finally:
                    ours.make_current()
            return call
        return switched(run), switched(fetch)
    return impl
