"""HLSL compute shaders from a compiled kernel program (codegen mode only).

The layout mirrors the GLSL kernels: written buffers are ``RWStructuredBuffer`` UAVs
``u0, u1, ...`` and read-only ones ``StructuredBuffer`` SRVs ``t0, t1, ...`` (both in
binding order); the uniform words sit in ``cbuffer tf_uniforms : register(b0)`` as
``uint4`` rows, followed by one more word: the number of groups along x of the dispatch
(HLSL has no ``gl_NumWorkGroups``). Float atomics are compare-and-swap loops. It spells the
32-bit dtypes (float32, int32, uint32, bool1); a kernel holding others is a ``CompileError``
that says so (``features.check_hlsl``).
"""

from __future__ import annotations

from ..ir.node import Node
from .binding import GROUP_SIZE, local_size
from .features import check_hlsl
from .shader import (
    KernelShader,
    ShaderLang,
    describe,
    emit_body,
    make_slots,
    prelude_blocks,
    select_prelude,
)

# The shader prelude is GLSL: HLSL's names for its built-ins and its compare-and-swap.
_PRELUDE = prelude_blocks([
    (r"\b(?:u?int)BitsToFloat\(", "asfloat("), (r"\bfloatBitsToUint\(", "asuint("),
    (r"\bfloatBitsToInt\(", "asint("), (r"\bbitfieldReverse\(", "reversebits("),
    (r"\broundEven\(", "round("), (r"\bfma\(", "mad("), (r"\bvec2\b", "float2"), (r"\bfindMSB\(", "firstbithigh("),
    (r"\btf_exponent_t\b", "float"),
    (r"uint (\w+) = atomicCompSwap\((\w+), (\w+), (\w+)\);", r"uint \1; InterlockedCompareExchange(\2, \3, \4, \1);"),
])
_COMPONENTS = "xyzw"


def _word(k: int) -> str:
    return f"tf_u[{k // 4}].{_COMPONENTS[k % 4]}"


class HlslLang(ShaderLang):
    name = "hlsl"
    float_bits = "asuint"
    bits_float = "asfloat"
    int_bits = "asuint"
    bits_int = "asint"
    atomic_names = {"add": "InterlockedAdd", "min": "InterlockedMin", "max": "InterlockedMax",
                    "and": "InterlockedAnd", "or": "InterlockedOr", "xor": "InterlockedXor"}

    def __init__(self, slots: list, uniform_count: int):
        super().__init__(slots, native_float_add=False)
        self.uniform_count = uniform_count

    def uniform_word(self, k: int, dtype) -> str:
        word = _word(k)
        return {"float32": f"asfloat({word})", "int32": f"asint({word})",
                "bool1": f"({word} != 0u)"}.get(dtype.name, word)

    def flat_thread_index(self) -> str:
        groups_x = _word(self.uniform_count)
        return f"(tf_group.y * {groups_x} + tf_group.x) * {GROUP_SIZE}u + tf_local.x"


def emit_kernel(kernel: Node) -> KernelShader:
    """The HLSL compute shader of one kernel node."""
    check_hlsl(kernel)
    names: dict = {}
    slots = make_slots(kernel, names, native_float_add=False)
    uniforms = kernel.contract.uniforms
    lang = HlslLang(slots, len(uniforms))
    head, body = emit_body(kernel, lang, names)
    size = local_size(kernel)
    rows = len(uniforms) // 4 + 1  # the uniforms and the group count
    declarations = [f"cbuffer tf_uniforms : register(b0) {{ uint4 tf_u[{rows}]; }};"]
    uav = srv = 0
    for slot in slots:
        if slot.written:
            declarations.append(f"RWStructuredBuffer<{slot.storage}> {slot.name} : register(u{uav});")
            uav += 1
        else:
            declarations.append(f"StructuredBuffer<{slot.storage}> {slot.name} : register(t{srv});")
            srv += 1
    main = [f"[numthreads({size}, 1, 1)]",
            "void main(uint3 tf_group : SV_GroupID, uint3 tf_local : SV_GroupThreadID) {", *head, *body, "}"]
    code = "\n".join(main)
    lines = describe(kernel, slots, names)
    lines.append(f"// {_word(len(uniforms))}: groups along x of the dispatch")
    lines += declarations
    prelude = select_prelude(_PRELUDE, code)
    if prelude:
        lines += ["", prelude]
    lines += [""] + main
    return KernelShader(kernel, "\n".join(lines) + "\n", slots, size)
