"""WebGPU rows of the workloads (issue 30): tensorfrost on ``tf.webgpu`` and taichi's
``ti.vulkan``, both on the Vulkan driver the machine has (Mesa lavapipe here, on the cpu).

A tensorfrost call on WebGPU submits its work and returns without waiting for it; each timed
run waits for the queue afterwards by reading 4 bytes of a buffer of its own (the queue runs
submissions in order, so the copy completes after the call's kernels). wgpu-py's
``queue.on_submitted_work_done_sync()`` would be the direct wait, but in wgpu 0.32.0 its
callback's signature does not match wgpu-native's and it raises a TypeError. The read costs
about 0.15 ms on an idle queue here.

Taichi's rows run one after the other (library peers are set up and timed alone, in table
order: ``taichi``, ``taichi (opengl)``, then ``taichi (vulkan)``), so the vulkan row's
``ti.init`` comes after the other taichi rows are timed and checked, and restarting taichi's
runtime invalidates nothing still in use. Taichi's Vulkan backend needs no context switch
(it makes no EGL context current, unlike ``ti.opengl``).
"""

from __future__ import annotations

import functools

from . import gl
from .harness import NotAvailableError, Target
from .peers import GL_IMPLS, WEBGPU_IMPLS

# Issue 30's goals for the WebGPU row: 90% of tensorfrost on OpenGL, and taichi on Vulkan.
TARGETS = [Target("peer", 0.9, peers=(GL_IMPLS[0],), impl=WEBGPU_IMPLS[0],
                  text="at least 90% of tensorfrost on OpenGL"),
           Target("peer", 1.0, peers=(WEBGPU_IMPLS[1],), impl=WEBGPU_IMPLS[0], text="at least taichi on Vulkan")]


def _device():
    from tensorfrost.backend_webgpu import context
    problem = context.unavailable_reason()
    if problem:
        raise NotAvailableError(problem)
    return context.context()


def _select_webgpu():
    import tensorfrost as tf
    _device()
    return tf.webgpu


@functools.cache
def _fence():
    found = _device()
    usage = found.wgpu.BufferUsage
    return found.device.create_buffer(size=16, usage=usage.STORAGE | usage.COPY_SRC)


def finish() -> None:
    """Wait for the work submitted to the queue so far."""
    _device().device.queue.read_buffer(_fence(), 0, 4)


def tensorfrost_webgpu(setup, warm_up=True):
    """``setup`` on ``tf.webgpu``, each timed run waiting for the queue."""
    return gl.tensorfrost_on(setup, _select_webgpu, finish, warm_up)


def taichi_vulkan(setup):
    """Wrap a taichi impl to run on ``ti.vulkan`` (restarting taichi's runtime there)."""
    @functools.wraps(setup)
    def impl(inp, p):
        problem = gl.taichi_problem("vulkan")
        if problem:
            raise NotAvailableError(problem)
        import taichi as ti
        ti.init(arch=ti.vulkan, default_fp=ti.f32, log_level=ti.WARN)
        return setup(inp, p)
    return impl
