"""What a kernel's dtypes need of a shading language and its driver, and the compile-time
errors where it has not got it.

GLSL computes float64 through GL_ARB_gpu_shader_fp64 (core since GL 4.0) and int64 /
uint64 through GL_ARB_gpu_shader_int64; a kernel that computes in them declares them, and
where the driver lacks one, compiling the program is a ``DTypeError`` that names the
dtype and the extension. (GLSL has no double ``exp``, ``log``, ``sin``...: the prelude
writes them in double, prelude_fp64_exp.shader and prelude_fp64_trig.shader.) 64-bit
atomic add and bitwise ops combine the two words of an element with 32-bit atomics; min,
max and float64 atomics would need a 64-bit compare-and-swap (GL_NV_shader_atomic_int64),
which the backend does not use: its ``Target`` refuses those (``atomic_bits``). HLSL spells
the 32-bit dtypes only. (Limits of a target are the user's to work around, named when the
program compiles: a ``DTypeError``, not the ``CompileError`` of a bug.)
"""

from __future__ import annotations

import re

from ..ir import dtypes as dt
from ..ir.errors import DTypeError
from ..ir.node import Node, walk

FP64 = "GL_ARB_gpu_shader_fp64"
INT64 = "GL_ARB_gpu_shader_int64"
ATOMIC_INT64 = "GL_NV_shader_atomic_int64"
# feature -> (the extension that gives it, its dtypes)
EXTENSIONS = {"fp64": (FP64, (dt.float64,)), "int64": (INT64, (dt.int64, dt.uint64))}
COMBINES = ("add", "min", "max", "and", "or", "xor")
_DOUBLE = re.compile(r"\bdouble\b|\bTF_(?:INF|NAN)64\b")
_INT64 = re.compile(r"\bu?int64_t\b")
_COMMENT = re.compile(r"//[^\n]*")


def block_needs(code: str) -> frozenset:
    """The features a prelude block spells: ``fp64`` (``double``), ``int64`` (``int64_t``)."""
    needs, code = set(), _COMMENT.sub("", code)
    if _DOUBLE.search(code):
        needs.add("fp64")
    if _INT64.search(code):
        needs.add("int64")
    return frozenset(needs)


def kernel_dtypes(kernel: Node) -> set:
    """Every dtype a kernel's shader holds: its values, buffers and uniforms."""
    dtypes = {u.dtype for u in kernel.contract.uniforms} | {b.dtype for b in kernel.contract.buffers}
    for node in walk(kernel.body):
        dtypes.add(node.dtype)
        dtypes.update(a.dtype for a in node.args)
    dtypes.discard(None)  # (statements: stores, ifs...)
    return dtypes


def kernel_features(kernel: Node) -> frozenset:
    """The features (``EXTENSIONS``' keys) a kernel's dtypes need."""
    dtypes = kernel_dtypes(kernel)
    return frozenset(f for f, (_, kinds) in EXTENSIONS.items() if dtypes & set(kinds))


def _first_node(kernel: Node, kinds) -> Node | None:
    """The first node of the kernel with a value of ``kinds`` and a place in the user's code."""
    for node in walk(kernel.body):
        if node.location is not None and (node.dtype in kinds or any(a.dtype in kinds for a in node.args)):
            return node
    return None


def check_extensions(kernel: Node, needed: frozenset, extensions, renderer: str = "this OpenGL driver") -> None:
    """A ``DTypeError`` where the kernel needs an extension that ``extensions`` (the
    driver's; None: any) lacks."""
    if extensions is None:
        return
    for feature in sorted(needed):
        extension, kinds = EXTENSIONS[feature]
        if extension in extensions:
            continue
        node = _first_node(kernel, kinds)
        used = sorted({d.name for d in kernel_dtypes(kernel) if d in kinds})
        names = " and ".join(f"tf.{n}" for n in used)
        raise DTypeError(f"{names} values are not available on opengl here: kernel {kernel.contract.name} computes "
                           f"in them, which needs the OpenGL extension {extension}, and {renderer} lacks it; convert "
                           f"to a 32-bit dtype (x.astype(tf.{'float32' if feature == 'fp64' else 'int32'})) or use "
                           "the cpu backend", node.location if node is not None else None)


def check_hlsl(kernel: Node) -> None:
    """A ``DTypeError`` for a kernel with values HLSL code generation does not spell."""
    odd = sorted({d.name for d in kernel_dtypes(kernel) if d not in dt.WORD})
    if odd:
        node = _first_node(kernel, {dt.dtype_of(n) for n in odd})
        raise DTypeError(f"kernel {kernel.contract.name} holds {', '.join('tf.' + n for n in odd)} values, which "
                           "tensorfrost's HLSL code generation does not spell (it spells tf.float32, tf.int32, "
                           "tf.uint32 and tf.bool1); generate GLSL (tf.glsl_lang) or C++ (tf.cpp_lang) kernels, or "
                           "convert to a 32-bit dtype", node.location if node is not None else None)
