"""Codegen mode: ``tf.initialize(tf.codegen, kernel_lang=...)`` compiles programs to source.

Nothing runs. Each compiled program adds a C++ main function (named after the program)
and its kernels, in the chosen kernel language (``tf.cpp_lang``, ``tf.glsl_lang``,
``tf.hlsl_lang`` or ``tf.wgsl_lang``), to a process-wide list::

    tf.initialize(tf.codegen, kernel_lang=tf.glsl_lang)
    qr = tf.compile(QRDecomposition)
    with open("tensorfrost_main.cpp", "w") as f:
        f.write(tf.get_cpp_header())
        for function in tf.get_all_generated_main_functions():
            f.write(function)
    for k, kernel in enumerate(tf.get_all_generated_kernels()):
        ...  # kernel k is what the main functions dispatch as kernel k

Main function ``dispatch`` calls number kernels by their position in that list, and pass
the buffers written ones first, then read-only ones (together: the binding order,
``emit/binding.py``) and the uniforms as 32-bit words (the kernel's ``tf_u`` words).

A WGSL kernel binds, in ``@group(0)``, buffer ``k`` of that order as the storage buffer at
``@binding(k)`` (each ``var<storage, read_write>``, whether or not the kernel writes it),
and, where it has uniforms, one uniform buffer at the binding after them: WGSL's uniform
arrays have a 16-byte stride, so the host packs the words in rows of four ``u32``, word
``w`` at byte ``4 * w`` (row ``w / 4``, component ``w % 4``), the buffer padded with zeros
to a whole row (the binding's size is ``16 * ceil(words / 4)`` bytes). It is bound as a
plain uniform buffer (or with a dynamic offset, as tf.webgpu binds it: the shader reads it
the same either way). Its entry is ``main`` with ``@workgroup_size(group)``; dispatch
``ceil(product(shape) / group)`` groups, folded into rows along y past the device's limit.
Codegen mode does not split kernels to a buffer limit: a host with WebGPU's default limits
(8 storage buffers per shader stage) must request more for a kernel that binds more.

Programs compiled for the other devices add their kernels to that list too (as upstream's
kernel manager does), in the device's language: C++ on tf.cpu, GLSL on tf.opengl, WGSL on
tf.webgpu.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..backend_cpu.emit_cpp import CppProgram
from ..emit.binding import buffer_order
from ..emit.glsl import emit_kernel as emit_glsl
from ..emit.hlsl import emit_kernel as emit_hlsl
from ..emit.names import ascii_name, is_reserved
from ..emit.wgsl import emit_kernel as emit_wgsl
from ..ir import dtypes as dt
from ..ir.errors import TensorFrostError
from ..ir.node import Node
from ..ir.ops import KERNEL
from ..ir.target import Target
from .cpp_host import MainFunction, cpp_header

_UNIFORM_READ = {dt.float32: "tf_bitcast<float>(tf_uniforms[{}])", dt.int32: "tf_bitcast<int32_t>(tf_uniforms[{}])",
                 dt.uint32: "tf_uniforms[{}]", dt.bool1: "(tf_uniforms[{}] != 0u)"}


class _Generated:
    """Every main function codegen mode produced in this process, and every kernel any mode did."""

    main_functions: list[str] = []
    kernels: list[str] = []
    function_names: set[str] = set()


# Where a shader's main function starts, and its buffer declarations (name, element type:
# WGSL's atomic words as their scalar).
_MAIN = {"glsl": re.compile(r"^void main\(", re.M), "hlsl": re.compile(r"^\[numthreads\(", re.M),
         "wgsl": re.compile(r"^@compute ", re.M)}
_BINDING_LINE = re.compile(r"^(?:layout\(|uniform |cbuffer |RWStructuredBuffer<|StructuredBuffer<|@group\(|"
                           r"struct TfUniforms )")
_BUFFERS = {"glsl": re.compile(r"buffer tf_b\d+ \{ (?P<type>\w+) (?P<name>\w+)\[\]; \}"),
            "hlsl": re.compile(r"StructuredBuffer<(?P<type>\w+)> (?P<name>\w+) : register"),
            "wgsl": re.compile(r"var<storage, read_write> (?P<name>\w+): array<(?:atomic<)?(?P<type>\w+)>"),
            "cpp": re.compile(r"(?:const )?(?P<type>float|int32_t|uint32_t)\* __restrict (?P<name>\w+)")}


class GeneratedKernel(str):
    """One kernel's source; also indexable as upstream's entry of the list:
    ``k[0]`` is ``(header, bindings, main)`` (C++ kernels: ``("", "", source)``) and ``k[1]``
    the buffers in binding order as ``(name, element type)`` pairs. Slices are the text's."""

    def __new__(cls, source: str, lang: str):
        kernel = super().__new__(cls, source)
        kernel.lang = lang
        return kernel

    def parts(self) -> tuple:
        """(header, bindings, main): a shader's main function, the lines declaring its
        buffers and uniforms, and the rest (version, prelude, helpers)."""
        marker = _MAIN.get(self.lang)
        found = marker.search(self) if marker else None
        if found is None:
            return "", "", str(self)
        before = str(self)[:found.start()].splitlines(keepends=True)
        bindings = "".join(line for line in before if _BINDING_LINE.match(line))
        header = "".join(line for line in before if not _BINDING_LINE.match(line))
        return header, bindings, str(self)[found.start():]

    def buffers(self) -> list:
        """(name, element type) of each buffer, in binding order."""
        pattern = _BUFFERS.get(self.lang)
        if pattern is None:
            return []
        text = str(self)
        if self.lang == "cpp":  # the parameters of the kernel's entry, its last function
            entry = text.rfind("\nvoid ")
            text = text[entry:text.index("{", entry)] if entry >= 0 else ""
        return [(m["name"], m["type"]) for m in pattern.finditer(text)]

    def __getitem__(self, key):
        if isinstance(key, int):
            return (self.parts(), self.buffers())[key]
        return str.__getitem__(self, key)


def record(executable, device) -> None:
    """Add the kernels of a program compiled for ``device`` to ``get_all_generated_kernels()``
    (codegen mode's build adds its own, numbered as its main function dispatches them)."""
    if isinstance(executable, CodegenExecutable):
        return
    lang = {"cpu": "cpp", "opengl": "glsl", "webgpu": "wgsl"}.get(device.name, device.name)
    _Generated.kernels.extend(GeneratedKernel(source, lang) for source in executable.kernel_sources)


def _cpp_dispatch_entry(kernel: Node) -> str:
    """An ``extern "C"`` adapter calling a C++ kernel with buffers in binding order and
    uniforms as words, the way a generic dispatcher holds them."""
    order = buffer_order(kernel)
    args = []
    for buffer in kernel.contract.buffers:
        storage = "float" if buffer.dtype is dt.float32 else ("int32_t" if buffer.dtype is dt.int32 else "uint32_t")
        args.append(f"({storage}*)tf_buffers[{order.index(buffer)}]")
    for k, uniform in enumerate(kernel.contract.uniforms):
        args.append(_UNIFORM_READ[uniform.dtype].format(k))
    name = kernel.contract.name
    return (f'extern "C" void {name}_dispatch(void* const* tf_buffers, const uint32_t* tf_uniforms) {{\n'
            f"    (void)tf_buffers; (void)tf_uniforms;\n    {name}({', '.join(args)});\n}}")


def kernel_sources(program, lang: str) -> list[str]:
    """The source of every kernel of a compiled program in ``lang`` ('cpp', 'glsl', 'hlsl', 'wgsl')."""
    kernels = [n for n in program.walk() if n.op is KERNEL]
    shader = {"glsl": emit_glsl, "hlsl": emit_hlsl, "wgsl": emit_wgsl}.get(lang)
    if shader is not None:
        return [shader(k).source for k in kernels]
    sources = CppProgram(program, share=False).kernel_sources  # (exported: a function per kernel)
    return [f"{source}\n{_cpp_dispatch_entry(k)}\n" for source, k in zip(sources, kernels, strict=True)]


class CodegenExecutable:
    """A program compiled in codegen mode: its sources; calling it is an error."""

    def __init__(self, program, function_name: str, kernel_offset: int, lang: str):
        self.name = program.name
        self.kernel_sources = kernel_sources(program, lang)
        self.main_source = MainFunction(program, function_name, kernel_offset).source
        self.full_source = "\n".join([self.main_source, *self.kernel_sources])

    def __call__(self, memories):
        raise TensorFrostError(f"{self.name} was compiled in codegen mode, which only generates code; "
                               "tf.initialize(tf.cpu) or tf.initialize(tf.opengl) to run programs")


class CodegenBackend:
    """The ``tf.codegen`` device."""

    name = "codegen"
    # (its generated host code and the HLSL and WGSL emitters hold 32-bit words only)
    target = Target("codegen", ("cpp", "glsl", "hlsl", "wgsl"), frozenset(dt.WORD),
                    {d: "its generated code holds 32-bit values only" for d in dt.ALL if d not in dt.WORD})

    def upload(self, array, dtype):
        raise TensorFrostError("codegen mode holds no tensors: it only generates code (initialize tf.cpu or "
                               "tf.opengl to run programs)")

    download = upload

    def build(self, program, options) -> CodegenExecutable:
        base = ascii_name(program.name, "program")
        function_name, k = base, 1
        while function_name in _Generated.function_names or is_reserved(function_name):
            function_name, k = f"{base}_{k}", k + 1
        if function_name != base:  # kernel names must be unique across the generated code too
            for node in program.walk():
                if node.op is KERNEL:
                    node.contract = replace(node.contract, name=f"{function_name}_k{node.contract.index}")
        executable = CodegenExecutable(program, function_name, len(_Generated.kernels), options.kernel_lang)
        _Generated.function_names.add(function_name)
        _Generated.main_functions.append(executable.main_source)
        _Generated.kernels.extend(GeneratedKernel(source, options.kernel_lang) for source in executable.kernel_sources)
        return executable


def get_cpp_header() -> str:
    """The C++ header the generated main functions need (helpers and the TFContext API).

    >>> header = tf.get_cpp_header()
    >>> "TFContext" in header
    True
    """
    return cpp_header()


def get_cpp_implementation() -> str:
    """Upstream's second half of the codegen API. Here ``get_cpp_header()`` is complete (its
    functions are inline), so this is a comment that says so: ``header + implementation``
    compiles as upstream's does.

    >>> tf.get_cpp_implementation().startswith("//")
    True
    """
    return "// tensorfrost: the codegen API is header-only (see get_cpp_header()); nothing to add here.\n"


def get_all_generated_main_functions() -> list[str]:
    """The C++ main function of every program compiled in codegen mode, in compile order.

    >>> tf.initialize(tf.codegen, kernel_lang=tf.glsl_lang)
    >>> _ = tf.compile(lambda: tf.input([-1], tf.float32) * 2.0, name="twice")
    >>> main = tf.get_all_generated_main_functions()[-1]
    >>> "twice" in main, "dispatch" in main     # the main function, and the kernel it runs
    (True, True)
    >>> tf.initialize(tf.cpu)
    """
    return list(_Generated.main_functions)


def get_all_generated_kernels() -> list[GeneratedKernel]:
    """The source of every kernel compiled in this process, in compile order, in the
    language of its device (codegen mode: its ``kernel_lang``); main functions of codegen
    mode dispatch kernel ``k`` of this list as ``tf.dispatch(k, ...)``. Each is a str, and
    also upstream's ``((header, bindings, main), buffers)``::

        for kernel in tf.get_all_generated_kernels():
            print(kernel[0][2])  # its main function

    >>> tf.initialize(tf.codegen, kernel_lang=tf.glsl_lang)
    >>> _ = tf.compile(lambda: tf.input([-1], tf.float32) * 2.0, name="twice")
    >>> kernel = tf.get_all_generated_kernels()[-1]
    >>> "#version" in kernel, "void main()" in kernel
    (True, True)
    >>> tf.initialize(tf.cpu)
    """
    return list(_Generated.kernels)
