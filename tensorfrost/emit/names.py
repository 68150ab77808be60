"""Users' names (of tensors, inputs, parameters, programs) as identifiers of generated code.

Every target reads ASCII identifiers only (GLSL and HLSL have no others; C++ would take
UTF-8, WGSL takes some), so a name is spelled in ASCII letters, digits and single
underscores: accents are dropped (``é`` -> ``e``) and any other character is its code
point (``Δt`` -> ``u0394t``). A name never starts with a digit, an underscore, ``gl_``
(GLSL's built-ins) or ``tf_`` (the emitters' own names), holds no ``__`` (reserved in GLSL
and C++) and is never a word a target language reserves.
"""

from __future__ import annotations

import re
import unicodedata

_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_RESERVED_PREFIXES = ("gl_", "tf_")

_CPP = """alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue co_await co_return
co_yield decltype default delete do double dynamic_cast else enum explicit export extern false float for
friend goto if inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private
protected public register reinterpret_cast requires return short signed sizeof static static_assert
static_cast struct switch template this thread_local throw true try typedef typeid typename union unsigned
using virtual void volatile wchar_t while xor xor_eq main std NULL int8_t int16_t int32_t int64_t uint8_t
uint16_t uint32_t uint64_t size_t"""
_GLSL = """attribute const uniform varying buffer shared coherent volatile restrict readonly writeonly atomic_uint
layout centroid flat smooth noperspective patch sample invariant precise break continue do for while switch
case default if else subroutine in out inout int void bool true false float double discard return lowp
mediump highp precision struct common partition active asm class union enum typedef template this resource
goto inline noinline public static extern external interface long short half fixed unsigned superp input
output filter sizeof cast namespace using uint"""
_HLSL = """AppendStructuredBuffer BlendState Buffer ByteAddressBuffer CompileShader ComputeShader
ConsumeStructuredBuffer DepthStencilState DepthStencilView DomainShader GeometryShader Hullshader
InputPatch LineStream OutputPatch PixelShader PointStream RasterizerState RenderTargetView
RWBuffer RWByteAddressBuffer RWStructuredBuffer RWTexture1D RWTexture1DArray RWTexture2D
RWTexture2DArray RWTexture3D SamplerState SamplerComparisonState StructuredBuffer Texture1D
Texture1DArray Texture2D Texture2DArray Texture2DMS Texture2DMSArray Texture3D TextureCube
TextureCubeArray TriangleStream VertexShader asm asm_fragment cbuffer centroid column_major compile
compile_fragment discard dword export fxgroup globallycoherent groupshared inline inout line lineadj
linear matrix min10float min12int min16float min16int min16uint namespace nointerpolation noperspective
packoffset pass pixelfragment point precise register row_major sample sampler snorm stateblock
stateblock_state string tbuffer technique technique10 technique11 texture triangle triangleadj uniform
unorm vector vertexfragment half dword asfloat asint asuint"""
_WGSL = """alias break case const const_assert continue continuing default diagnostic discard else enable
false fn for if let loop override requires return struct switch true var while f16 f32 i32 u32 bool array
atomic ptr sampler sampler_comparison NULL Self abstract active alignas alignof as asm asm_fragment async
attribute auto await become binding_array cast catch class co_await co_return co_yield coherent
column_major common compile compile_fragment concept const_cast consteval constexpr constinit crate
debugger decltype delete demote demote_to_helper do dynamic_cast enum explicit export extends extern
external fallthrough filter final finally friend from fxgroup get goto groupshared highp impl implements
import inline instanceof interface layout lowp macro macro_rules match mediump meta mod module move mut
mutable namespace new nil noexcept noinline nointerpolation noperspective null nullptr of operator package
packoffset partition pass patch pixelfragment precise precision premerge priv protected pub public
readonly ref regardless register reinterpret_cast require resource restrict self set shared sizeof smooth
snorm static static_assert static_cast std subroutine super target template this thread_local throw trait
try type typedef typeid typename typeof union unless unorm unsafe unsized use using varying virtual
volatile wgsl where with writeonly yield"""
# Names the generated code itself declares where a user's name could stand beside them (the
# codegen main function's context parameter and the API it calls).
_TENSORFROST = "tf TFContext TFTensor TFType TFDispatch TFRuntime"
_WORDS = frozenset(" ".join([_CPP, _GLSL, _HLSL, _WGSL, _TENSORFROST]).split())
# Families of type names: vec3, uvec2, mat3x4, float4, int2x2, vec4f, mat2x2h, sampler2DArray,
# image3D, texture_depth_2d, ... (exact words: a name with a suffix added is never one).
_TYPE_NAMES = re.compile(r"[bdiu]?vec[2-4]|d?mat[2-4](?:x[2-4])?|vec[2-4][fhiu]|mat[2-4]x[2-4][fh]"
                         r"|(?:bool|u?int|half|float|double|dword|min1[06]float|min1[26]int|min16uint)[1-4](?:x[1-4])?"
                         r"|[iu]?(?:sampler|image|texture)(?:[1-3]D|Cube|Buffer|2DRect)(?:MS)?(?:Array)?(?:Shadow)?"
                         r"|texture_(?:(?:depth_|storage_)?(?:multisampled_)?(?:[1-3]d|cube)(?:_array)?|external)")


def is_reserved(name: str) -> bool:
    """Whether ``name`` is a word some target language (C++, GLSL, HLSL, WGSL) or the
    generated code reserves, or has a reserved prefix."""
    return name in _WORDS or name.startswith(_RESERVED_PREFIXES) or _TYPE_NAMES.fullmatch(name) is not None


def ascii_name(text, fallback: str = "v") -> str:
    """``text`` spelled as the stem of an identifier (see the module's docstring); ``fallback``
    when nothing is left of it. The stem itself may still be a reserved word: callers append
    a number (``identifier``) or use ``unique_name``."""
    parts = []
    for char in unicodedata.normalize("NFKD", str(text or "")):
        if char in _ALNUM:
            parts.append(char)
        elif ord(char) < 128:
            parts.append("_")
        elif not unicodedata.combining(char):  # an accent on a letter is dropped with the letter kept
            parts.append(f"u{ord(char):04x}")
    stem = re.sub("_+", "_", "".join(parts)).strip("_") or fallback
    if stem[0].isdigit() or (stem + "_").startswith(_RESERVED_PREFIXES):  # ("gl" numbered would be gl_3)
        stem = fallback + stem
    return stem


def numbered_name(text, number: int, fallback: str = "v") -> str:
    """``<stem>_<number>``: distinct numbers give distinct names whatever the texts (the
    number follows the last underscore), and no reserved word ends in ``_<digits>``."""
    return f"{ascii_name(text, fallback)}_{number}"


def unique_name(text, taken: set, fallback: str = "v") -> str:
    """The stem of ``text`` if it is free (not in ``taken``, not reserved, and not of the
    ``<stem>_<number>`` form that ``numbered_name`` gives), else the stem with the first
    free suffix ``_x<k>``; added to ``taken``."""
    stem = ascii_name(text, fallback)
    name, k = stem, 1
    while name in taken or is_reserved(name) or re.search(r"_\d+$", name):
        name, k = f"{stem}_x{k}", k + 1
    taken.add(name)
    return name
