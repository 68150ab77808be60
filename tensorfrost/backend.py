"""Choosing where programs run: ``tf.initialize(tf.cpu)``, ``tf.opengl``, ``tf.codegen``."""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass

from .ir.errors import TensorFrostError


class Device:
    """A backend a program can be compiled for."""

    def __init__(self, name: str, description: str):
        self.name = name
        self.description = description

    def __repr__(self) -> str:
        return f"tf.{self.name}"


class KernelLang:
    """A language kernels are generated in (codegen mode)."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"tf.{self.name}_lang"


cpu = Device("cpu", "C++ compiled by g++, run with OpenMP on every core")
opengl = Device("opengl", "GLSL compute shaders through OpenGL 4.3+")
webgpu = Device("webgpu", "WGSL compute shaders through WebGPU (wgpu: Vulkan, Metal, Direct3D 12)")
codegen = Device("codegen", "generate code without running it")
interpreter = Device("interpreter", "the numpy reference interpreter (slow; for debugging)")
cpp_lang, glsl_lang, hlsl_lang, wgsl_lang = (KernelLang(name) for name in ("cpp", "glsl", "hlsl", "wgsl"))


class BackendType:
    """Upstream's enum of backends: ``tf.BackendType.cpu is tf.cpu``.

    >>> tf.BackendType.cpu is tf.cpu, tf.BackendType.opengl
    (True, tf.opengl)
    """

    cpu, opengl, codegen = cpu, opengl, codegen


class CodeGenLang:
    """Upstream's enum of kernel languages: ``tf.CodeGenLang.glsl is tf.glsl_lang``.

    >>> tf.CodeGenLang.glsl is tf.glsl_lang, tf.CodeGenLang.wgsl
    (True, tf.wgsl_lang)
    """

    cpp, glsl, hlsl, wgsl = cpp_lang, glsl_lang, hlsl_lang, wgsl_lang

_DEVICES = {d.name: d for d in (cpu, opengl, webgpu, codegen, interpreter)}


class _Settings:
    device: Device | None = None
    kernel_lang: KernelLang = cpp_lang
    compiler_flags: str = ""
    debug: bool | str = False


settings = _Settings()
DEBUG_MODES = (False, True, "nan")  # (TENSORFROST_DEBUG applies without an initialize too: see the end)


@dataclass(frozen=True)
class BuildOptions:
    """What a backend builds a program with, taken from the settings when it is compiled
    (backends get it as an argument; they never read the settings)."""

    kernel_lang: str = "cpp"  # codegen mode's kernel language: cpp, glsl, hlsl or wgsl
    compiler_flags: str = ""  # added to the C++ compiler's command by the cpu backend
    debug: bool | str = False  # debug mode: True checks every index when programs run; "nan" kernels' outputs too
    profile: bool = False  # each kernel timed and counted (tf.profile builds such a twin of a program)


def build_options() -> BuildOptions:
    return BuildOptions(settings.kernel_lang.name, settings.compiler_flags, settings.debug)


# Each device's backend: its module is imported on first use, so that ``import tensorfrost``
# loads neither cffi's compiled pool nor OpenGL, and no backend is imported by this module.
_BACKEND_CLASSES = {"cpu": ("backend_cpu.runtime", "CpuBackend"), "opengl": ("backend_gl.runtime", "GlBackend"),
                    "webgpu": ("backend_webgpu.runtime", "WebGpuBackend"),
                    "codegen": ("backend_codegen.mode", "CodegenBackend"),
                    "interpreter": ("interpreter_backend", "InterpreterBackend")}
_BACKENDS: dict = {}


def device_named(name: str) -> Device:
    """The device called ``name`` (a backend's ``name``): ``device_named("cpu") is tf.cpu``."""
    if name not in _DEVICES:
        raise TensorFrostError(f"unknown device {name!r}; the devices are {', '.join(_DEVICES)}")
    return _DEVICES[name]


def backend_for(device: Device):
    """The runtime object of a device (created on first use)."""
    if device.name not in _BACKENDS:
        if device.name not in _BACKEND_CLASSES:
            raise TensorFrostError(f"unknown device {device!r}")
        module, name = _BACKEND_CLASSES[device.name]
        _BACKENDS[device.name] = getattr(importlib.import_module(f"{__package__}.{module}"), name)()
    return _BACKENDS[device.name]


def initialize(device: Device | str = cpu, flags: str | KernelLang = "", kernel_lang: KernelLang | None = None,
               debug: bool | str = False) -> None:
    """Select the backend for programs compiled from now on::

        tf.initialize(tf.cpu)
        tf.initialize(tf.codegen, kernel_lang=tf.glsl_lang)
        tf.initialize(tf.cpu, debug=True)  # an index out of range raises tf.DebugIndexError

    ``flags`` adds options for the C++ compiler of the cpu backend. A kernel language given
    second (``tf.initialize(tf.codegen, tf.glsl_lang)``) is the ``kernel_lang``.

    ``debug=True`` checks every index of every load and store against its tensor's shape
    when a program runs (instead of clamping it) and raises ``tf.DebugIndexError`` naming
    the line, the tensor, the index and the shape; ``debug="nan"`` also checks the float
    values each kernel writes, raising ``tf.DebugNanError`` at a NaN or infinity. The
    environment variable ``TENSORFROST_DEBUG=1`` (or ``nan``) turns it on for every
    ``initialize``. Off, it changes nothing in the generated code.

    >>> tf.initialize(tf.cpu, debug=True)
    >>> def shifted(x: tf.Arg([-1], tf.float32)):
    ...     i, = x.indices
    ...     return x[i + 1]                     # reads past the end at the last element
    >>> try:
    ...     tf.compile(shifted)(np.zeros(4, np.float32))
    ... except tf.DebugIndexError as error:
    ...     print(str(error).splitlines()[0])
    index out of range: ...
    >>> tf.initialize(tf.cpu)                   # debug off again: the index is clamped
    >>> tf.compile(shifted)(np.arange(4, dtype=np.float32)).tolist()
    [1.0, 2.0, 3.0, 3.0]
    """
    if isinstance(flags, KernelLang) and kernel_lang is None:
        flags, kernel_lang = "", flags
    flags = "" if flags is None else flags
    if not isinstance(flags, str):
        raise TensorFrostError(f"tf.initialize: flags must be a string of C++ compiler options, got {flags!r}")
    if isinstance(device, str):
        device = _DEVICES.get(device, device)
    if not isinstance(device, Device):
        raise TensorFrostError(f"tf.initialize: device must be tf.cpu, tf.opengl, tf.webgpu, tf.codegen or "
                               f"tf.interpreter, got {device!r}")
    debug = _debug_mode(debug)
    if kernel_lang is not None and not isinstance(kernel_lang, KernelLang):
        raise TensorFrostError(f"tf.initialize: kernel_lang must be tf.cpp_lang, tf.glsl_lang, tf.hlsl_lang or "
                               f"tf.wgsl_lang, got {kernel_lang!r}")
    if device is opengl:
        from .backend_gl import context
        context.ensure_context()
    if device is webgpu:  # (an error now, naming what to install, rather than at the first compile)
        backend_for(webgpu)
    settings.device = device
    settings.kernel_lang = kernel_lang or (glsl_lang if device is opengl else cpp_lang)
    settings.compiler_flags = flags
    settings.debug = debug


def _debug_mode(debug) -> bool | str:
    """The debug mode ``initialize`` was given, or the one ``TENSORFROST_DEBUG`` asks for."""
    if not isinstance(debug, (bool, int, str)) or debug not in DEBUG_MODES:
        raise TensorFrostError(f"tf.initialize: debug must be False, True or \"nan\", got {debug!r}")
    debug = debug if debug == "nan" else bool(debug)
    if debug is False:
        variable = os.environ.get("TENSORFROST_DEBUG", "").strip().lower()
        debug = "nan" if variable == "nan" else variable not in ("", "0", "false")
    return debug


def current_backend() -> Device:
    """The backend programs compile for now (upstream's name for ``current_device``).

    >>> tf.initialize(tf.cpu)
    >>> tf.current_backend()
    tf.cpu
    """
    return current_device()


def current_device() -> Device:
    """The device chosen by ``tf.initialize`` (the cpu if it was never called)."""
    if settings.device is None:
        settings.device = cpu
    return settings.device


settings.debug = _debug_mode(False)
