"""Choosing where programs run: ``tf.initialize(tf.cpu)``, ``tf.opengl``, ``tf.codegen``."""

from __future__ import annotations

import importlib
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
    """Upstream's enum of backends: ``tf.BackendType.cpu is tf.cpu``."""

    cpu, opengl, codegen = cpu, opengl, codegen


class CodeGenLang:
    """Upstream's enum of kernel languages: ``tf.CodeGenLang.glsl is tf.glsl_lang``."""

    cpp, glsl, hlsl, wgsl = cpp_lang, glsl_lang, hlsl_lang, wgsl_lang

_DEVICES = {d.name: d for d in (cpu, opengl, webgpu, codegen, interpreter)}


class _Settings:
    device: Device | None = None
    kernel_lang: KernelLang = cpp_lang
    compiler_flags: str = ""


settings = _Settings()


@dataclass(frozen=True)
class BuildOptions:
    """What a backend builds a program with, taken from the settings when it is compiled
    (backends get it as an argument; they never read the settings)."""

    kernel_lang: str = "cpp"  # codegen mode's kernel language: cpp, glsl, hlsl or wgsl
    compiler_flags: str = ""  # added to the C++ compiler's command by the cpu backend


def build_options() -> BuildOptions:
    return BuildOptions(settings.kernel_lang.name, settings.compiler_flags)


# Each device's backend: its module is imported on first use, so that ``import tensorfrost``
# loads neither cffi's compiled pool nor OpenGL, and no backend is imported by this module.
_BACKEND_CLASSES = {"cpu": ("backend_cpu.runtime", "CpuBackend"), "opengl": ("backend_gl.runtime", "GlBackend"),
                    "webgpu": ("backend_webgpu.runtime", "WebGpuBackend"),
                    "codegen": ("backend_codegen.mode", "CodegenBackend"),
                    "interpreter": ("interpreter_backend", "InterpreterBackend")}
_BACKENDS: dict = {}


def backend_for(device: Device):
    """The runtime object of a device (created on first use)."""
    if device.name not in _BACKENDS:
        if device.name not in _BACKEND_CLASSES:
            raise TensorFrostError(f"unknown device {device!r}")
        module, name = _BACKEND_CLASSES[device.name]
        _BACKENDS[device.name] = getattr(importlib.import_module(f"{__package__}.{module}"), name)()
    return _BACKENDS[device.name]


def initialize(device=cpu, flags: str = "", kernel_lang=None) -> None:
    """Select the backend for programs compiled from now on::

        tf.initialize(tf.cpu)
        tf.initialize(tf.codegen, kernel_lang=tf.glsl_lang)

    ``flags`` adds options for the C++ compiler of the cpu backend. A kernel language given
    second (``tf.initialize(tf.codegen, tf.glsl_lang)``) is the ``kernel_lang``.
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


def current_backend() -> Device:
    """The backend programs compile for now (upstream's name for ``current_device``)."""
    return current_device()


def current_device() -> Device:
    """The device chosen by ``tf.initialize`` (the cpu if it was never called)."""
    if settings.device is None:
        settings.device = cpu
    return settings.device
