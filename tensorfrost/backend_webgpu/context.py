"""The WebGPU adapter and device (wgpu-py, on wgpu-native): one per process, made on first use.

The device is requested with the adapter's own limits (the storage buffers per shader
stage, the largest buffer and binding), not WebGPU's defaults (8 storage buffers, 128 MiB
per binding), so that fission splits kernels only where this adapter needs it. Without the
``wgpu`` package or an adapter, ``TensorFrostError`` says what to install.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

from ..ir.errors import TensorFrostError

_INSTALL = ("install the webgpu extra (pip install 'tensorfrost[webgpu]', which brings the wgpu package) and a "
            "WebGPU-capable driver: a GPU's Vulkan, Metal or Direct3D 12 driver, or on Debian/Ubuntu the CPU "
            "Vulkan driver lavapipe (apt-get install mesa-vulkan-drivers)")
# The adapter limits the device asks for (the rest stay WebGPU's defaults).
_LIMITS = ("max-storage-buffers-per-shader-stage", "max-storage-buffer-binding-size", "max-buffer-size",
           "max-compute-workgroups-per-dimension", "max-compute-invocations-per-workgroup",
           "max-compute-workgroup-size-x", "max-uniform-buffer-binding-size")
# The optional features the device asks for where the adapter has them.
_FEATURES = ("timestamp-query",)  # (get_last_execution_time: the GPU's own clock)


@dataclass(frozen=True)
class Limits:
    max_buffers: int  # storage buffers one shader binds
    max_binding_bytes: int  # bytes of one storage buffer binding
    max_buffer_bytes: int
    max_groups: int  # workgroups per dispatch dimension
    uniform_alignment: int  # of a dynamic uniform buffer offset
    storage_alignment: int  # of a storage buffer binding's offset
    description: str


@dataclass(frozen=True)
class Context:
    wgpu: object  # the module
    adapter: object
    device: object
    limits: Limits
    features: frozenset  # of _FEATURES, those the device has


def _import_wgpu():
    os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")  # (wgpu-native's Wayland probe only warns without one)
    try:
        import wgpu.backends.wgpu_native.extras  # (wgpu and its native backend, which wgpu-py ships)
    except ImportError as exc:
        raise TensorFrostError(f"tf.webgpu needs the wgpu package, which is not installed ({exc}): "
                               f"{_INSTALL}") from None
    # Leave wgpu-native's OpenGL ES backend out of the adapters it looks at: probing it makes its
    # own EGL context current, and the OpenGL backend's compute context, current on the same
    # thread, then links no shader. (Too late once wgpu's instance exists, made by user code.)
    try:
        wgpu.backends.wgpu_native.extras.set_instance_extras(backends=["Vulkan", "Metal", "DX12"])
    except Exception:  # noqa: BLE001 (the instance exists already: nothing to change)
        pass
    return wgpu


@functools.cache
def context() -> Context:
    """The process's WebGPU device (created on the first call; the failure raised each time)."""
    wgpu = _import_wgpu()
    try:
        adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    except Exception as exc:  # wgpu raises its own errors (and RuntimeError) when no adapter exists
        adapter, reason = None, str(exc)
    else:
        reason = "wgpu found no adapter"
    if adapter is None:
        raise TensorFrostError(f"tf.webgpu: no WebGPU adapter is available ({reason}): {_INSTALL}")
    limits = adapter.limits
    wanted = {name: limits[name] for name in _LIMITS if name in limits}
    features = frozenset(name for name in _FEATURES if name in adapter.features)
    device = adapter.request_device_sync(required_limits=wanted, required_features=sorted(features))
    info = adapter.info
    description = f"{info.get('device', 'an adapter')} ({info.get('backend_type', 'WebGPU')})"
    found = Limits(max_buffers=int(limits["max-storage-buffers-per-shader-stage"]),
                   max_binding_bytes=int(limits["max-storage-buffer-binding-size"]),
                   max_buffer_bytes=int(limits["max-buffer-size"]),
                   max_groups=int(limits["max-compute-workgroups-per-dimension"]),
                   uniform_alignment=int(limits["min-uniform-buffer-offset-alignment"]),
                   storage_alignment=int(limits["min-storage-buffer-offset-alignment"]),
                   description=description)
    return Context(wgpu, adapter, device, found, features)


def unavailable_reason() -> str | None:
    """None when a WebGPU device can be made here, else why not (for tests that skip)."""
    try:
        context()
    except TensorFrostError as exc:
        return str(exc)
    return None
