"""GLSL 4.30 compute shaders from a compiled kernel program.

Each kernel becomes one self-contained shader: version line, the extensions its dtypes need
(``features.py``), the storage blocks of its buffers, the uniform words ``tf_u``, the
prelude helpers it uses, and ``main``. The same source is what the OpenGL runtime compiles
and what codegen mode hands to the user.
"""

from __future__ import annotations

import re

from ..ir.node import Node
from . import features
from .binding import GROUP_SIZE, local_size
from .shader import (
    KernelShader,
    ShaderLang,
    describe,
    emit_body,
    make_slots,
    prelude_blocks,
    select_prelude,
    uniform_words,
)

_PRELUDE = prelude_blocks([(r"\btf_exponent_t\b", "int")])
# Threads per group of a 3-D dispatch (``grid2d``): a row segment of GRID_LOCAL[0] by
# GRID_LOCAL[1] rows, GROUP_SIZE in all.
GRID_LOCAL = (64, GROUP_SIZE // 64)
NV_FLOAT_ATOMICS = "GL_NV_shader_atomic_float"


class GlslLang(ShaderLang):
    name = "glsl"
    opaque_zero = "min(int(gl_NumWorkGroups.z), 0)"  # 0 (a dispatch has at least one group along z)
    atomic_names = {"add": "atomicAdd", "min": "atomicMin", "max": "atomicMax", "and": "atomicAnd",
                    "or": "atomicOr", "xor": "atomicXor"}

    def uniform_word(self, k: int, dtype) -> str:
        word = f"tf_u[{k}]"
        if dtype.bits == 64:  # (two words, the low one first)
            pair = f"uvec2({word}, tf_u[{k + 1}])"
            return {"float64": f"packDouble2x32({pair})", "int64": f"int64_t(packUint2x32({pair}))"}.get(
                dtype.name, f"packUint2x32({pair})")
        if dtype.is_float:  # (16-bit floats too: their value as a float32)
            return f"uintBitsToFloat({word})"
        if dtype.kind == "i":
            return f"int({word})"
        return f"({word} != 0u)" if dtype.is_bool else word

    def flat_thread_index(self) -> str:
        return (f"(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * {GROUP_SIZE}u + "
                "gl_LocalInvocationID.x")


def emit_kernel(kernel: Node, native_float_add: bool = False, parts: dict | None = None,
                elements_per_part: int = 0, keep: set | None = None, grid2d: bool = False,
                arena: tuple = (), arena_parts: int = 1, extensions=None,
                renderer: str = "this OpenGL driver") -> KernelShader:
    """The GLSL shader of one kernel node.

    ``native_float_add`` uses ``GL_NV_shader_atomic_float`` for float scatter-adds (else a
    compare-and-swap loop); ``parts`` maps buffers bound in several ranges to their part
    count, each part holding ``elements_per_part`` elements. With ``keep`` the shader runs
    only those nodes of the body (one piece of a kernel split by ``split.py``). With
    ``grid2d`` it runs in a 3-D dispatch of ``GRID_LOCAL`` groups (``shader.emit_body``); the
    default, a flat dispatch, is the binding ABI of codegen mode. The buffers in ``arena`` are
    reached through the arena buffer, bound in ``arena_parts`` ranges (``shader.make_slots``).
    ``extensions``: the driver's (None: assume every one a kernel may need, as codegen does);
    a kernel whose dtypes need one it lacks is a ``CompileError`` (``features.py``).
    """
    needed = features.kernel_features(kernel)
    features.check_extensions(kernel, needed, extensions, renderer)
    names: dict = {}
    slots = make_slots(kernel, names, native_float_add, parts, keep, arena, arena_parts)
    lang = GlslLang(slots, native_float_add)
    lang.elements_per_part = elements_per_part
    head, body = emit_body(kernel, lang, names, keep, grid2d)
    size = local_size(kernel)
    declarations = [f"layout(local_size_x = {GRID_LOCAL[0]}, local_size_y = {GRID_LOCAL[1]}) in;" if grid2d
                    else f"layout(local_size_x = {size}) in;"]
    for slot in slots:
        access = "" if slot.written else "readonly "
        for part in range(slot.parts if slot.offset is None else 0):
            member = slot.name if slot.parts == 1 else f"{slot.name}_p{part}"
            declarations.append(f"layout(std430, binding = {slot.binding + part}) {access}buffer "
                                f"tf_b{slot.binding + part} {{ {slot.storage} {member}[]; }};")
    words = uniform_words(kernel, slots)
    if words:
        declarations.append(f"uniform uint tf_u[{words}];")
    helpers = list(lang.helpers.values())
    main = ["void main() {", *head, *body, "}"]
    code = "\n".join(helpers + main)
    lines = ["#version 430"]
    if lang.native_float_atomics:
        lines.append(f"#extension {NV_FLOAT_ATOMICS} : require")
    lines += [f"#extension {features.EXTENSIONS[f][0]} : require" for f in sorted(needed)]
    lines += describe(kernel, slots, names) + declarations
    prelude = select_prelude(_PRELUDE, code, needed)
    if prelude:
        lines += ["", prelude]
    lines += [""] + ([*helpers, ""] if helpers else []) + main
    shader = KernelShader(kernel, "\n".join(lines) + "\n", slots, size)
    shader.indexed = bool(re.search(r"\bi\d+\b", "\n".join(body)))
    return shader
