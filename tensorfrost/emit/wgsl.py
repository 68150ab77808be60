"""WGSL compute shaders (WebGPU) from a compiled kernel program.

A kernel becomes one self-contained WGSL module with the binding ABI of the GLSL kernels
(``emit/binding.py``): its buffers are ``var<storage, read_write>`` arrays of 32-bit words at
``@group(0) @binding(k)`` in binding order, its uniforms 32-bit words in a uniform buffer
``tf_u`` bound after them (rows of ``vec4<u32>``: WGSL's uniform arrays have a 16-byte
stride), read with a dynamic offset so that the dispatches of one submission each have
their own. Every buffer is declared read-write, so that a tensor bound twice in a
dispatch never meets WebGPU's rule against one buffer being both read-only and writable.

The statements are the shader languages' (``shader.ShaderBody``) with what WGSL spells
otherwise: ``let`` / ``var`` declarations, ``select(f, t, c)`` instead of ``?:``, explicit
conversions, ``bitcast<T>``, loops with a declared counter, no unary minus of a u32, and
helpers of the WGSL prelude (``prelude.wgsl``). A buffer a kernel updates atomically is
an array of ``atomic<i32 / u32>``: its plain reads and writes are ``atomicLoad`` /
``atomicStore``, and a float atomic is a compare-and-swap loop on the float's bits
(WGSL has no float atomics).

8- and 16-bit dtypes compute as OpenGL's do (``shader.py``): ints as i32 / u32, wrapped to
their bits when declared; float16 and bfloat16 as f32, rounded to their dtype after every op
(``prelude_16.wgsl``, bit-exact with numpy). Their buffers are packed in u32 words
(``wgsl_words.py``); a buffer whose packed elements a kernel stores is an array of
``atomic<u32>`` (stores by compare-and-swap). 64-bit dtypes (float64, int64, uint64) are a
``DTypeError``: this emitter does not spell them yet (wgpu-native's shader-f64 / shader-int64
features are not used).
"""

from __future__ import annotations

from ..ir import dtypes as dt
from ..ir.errors import DTypeError
from ..ir.node import Node, walk
from ..ir.ops import OPS, SELECT, STORE
from ..ir.ops_math import value_code
from . import features
from .binding import GROUP_SIZE, local_size
from .clike import BodyEmitter, index_arithmetic
from .shader import (
    ARENA,
    KernelShader,
    ShaderBody,
    ShaderLang,
    describe,
    local_name,
    make_slots,
    mutable_nodes,
    prelude_blocks,
    select_prelude,
    uniform_offsets,
    uniform_words,
)
from .wgsl_nesting import FlatDeepIfs
from .wgsl_words import WgslWords

_PRELUDE = prelude_blocks([], files=("prelude.wgsl", "prelude_16.wgsl"))
_NEG = OPS["neg"]
_COMPONENTS = "xyzw"
_STORAGE = {"uint": "u32", "int": "i32", "float": "f32"}  # a slot's storage (GLSL's names) in WGSL
# The builtins every kernel's entry point takes: its group, the group count, its thread in it.
_ENTRY = ("@builtin(workgroup_id) tf_wg: vec3<u32>, @builtin(num_workgroups) tf_groups: vec3<u32>, "
          "@builtin(local_invocation_id) tf_lid: vec3<u32>")


class WgslLang(WgslWords, ShaderLang):
    name = "wgsl"
    types = {dt.float32: "f32", dt.int32: "i32", dt.uint32: "u32", dt.bool1: "bool", dt.float16: "f32",
             dt.bfloat16: "f32", dt.int8: "i32", dt.int16: "i32", dt.uint8: "u32", dt.uint16: "u32"}
    float_bits = "bitcast<u32>"
    bits_float = "bitcast<f32>"
    int_bits = "bitcast<u32>"
    bits_int = "bitcast<i32>"
    # 0, where the compiler cannot see it (a dispatch has at least one group along z): Mesa's
    # NIR, which lavapipe compiles WGSL's SPIR-V with too, needs what GLSL kernels need of it
    opaque_zero = "min(i32(tf_groups.z), 0)"
    atomic_names = {"add": "atomicAdd", "min": "atomicMin", "max": "atomicMax", "and": "atomicAnd",
                    "or": "atomicOr", "xor": "atomicXor"}

    def __init__(self, slots: list, atomic: set):
        super().__init__(slots, native_float_add=False)
        self.atomic_buffers = atomic  # names of the buffers declared as arrays of atomics

    def literal(self, value, dtype: dt.DType) -> str:
        if dtype.is_float and value != value:
            return "tf_nan()"
        if dtype.is_float and value in (float("inf"), float("-inf")):
            return "tf_inf()" if value > 0 else "(-tf_inf())"
        return super().literal(value, dtype)

    def declare(self, dtype: dt.DType, name: str, expr: str, mutable: bool = False) -> str:
        if dtype.is_integer and dtype.bits < 32:  # (wrapped, as C++ narrows on assignment to int8_t)
            expr = self.wrap_bits(expr, dtype.bits)
        return f"{'var' if mutable else 'let'} {name}: {self.type(dtype)} = {expr};"

    def uniform_word(self, k: int, dtype) -> str:
        word = f"tf_u.w[{k // 4}].{_COMPONENTS[k % 4]}"
        if dtype.is_float:
            return f"bitcast<f32>({word})"
        if dtype.kind == "i":
            return f"bitcast<i32>({word})"
        return f"({word} != 0u)" if dtype.is_bool else word

    # -- reads, writes and atomics of 32-bit words -----------------------------------------------

    def load_word(self, array: str, index: str) -> str:
        return f"atomicLoad(&{array}[{index}])" if array in self.atomic_buffers else f"{array}[{index}]"

    def store_word(self, array: str, index: str, value: str) -> str:
        if array in self.atomic_buffers:
            return f"atomicStore(&{array}[{index}], {value});"
        return f"{array}[{index}] = {value};"

    def bool_word(self, value: str) -> str:
        return f"select(0u, 1u, {value})"

    def int_local(self, name: str, expr: str) -> str:
        return f"let {name}: i32 = {expr};"

    def function_head(self, name: str, params, result: str | None = None) -> str:
        arrow = f" -> {result}" if result else ""
        return f"fn {name}({', '.join(f'{n}: {t}' for t, n in params)}){arrow}"

    def storage_type(self, slot) -> str:
        return _STORAGE[slot.storage]

    def atomic_on_word(self, combine: str, slot, word: str, value: str, dtype: dt.DType) -> str:
        if dtype is dt.bool1:  # 0/1 words: add and max are or, min is and
            combine = {"add": "or", "max": "or", "min": "and"}.get(combine, combine)
            return self.native_atomic(combine, word, self.bool_word(value))
        if dtype.is_float:  # (WGSL has no float atomics)
            return self._combined_by_cas(word, value, f"tf_{combine}_{value_code(dtype)}", "f32")
        if dtype is dt.int32 and slot.as_words:  # an int in the arena's u32 words: add and bitwise ops keep the bits
            if combine in ("min", "max"):  # (an unsigned comparison would not)
                return self._combined_by_cas(word, value, f"tf_{combine}_{value_code(dtype)}", "i32")
            return self.native_atomic(combine, word, f"bitcast<u32>({value})")
        return self.native_atomic(combine, word, value)

    @staticmethod
    def _combined_by_cas(word: str, value: str, combine: str, kind: str) -> str:
        """A compare-and-swap loop on the u32 ``word`` replacing it by ``combine`` of the value
        it holds (as ``kind``) and ``value``."""
        return ("{ " f"let tf_v = {value}; var tf_seen = atomicLoad(&{word}); "
                f"loop {{ let tf_next = bitcast<u32>({combine}(bitcast<{kind}>(tf_seen), tf_v)); "
                "if (tf_next == tf_seen) { break; } "
                f"let tf_r = atomicCompareExchangeWeak(&{word}, tf_seen, tf_next); "
                "if (tf_r.exchanged) { break; } tf_seen = tf_r.old_value; } }")

    def native_atomic(self, combine: str, word: str, value: str) -> str:
        return f"{self.atomic_names[combine]}(&{word}, {value});"


class WgslBody(FlatDeepIfs, ShaderBody):
    """Kernel statements in WGSL's spelling."""

    def stmt_const(self, node: Node) -> None:
        if node in self.mutable and node.dtype.is_integer:  # (see WgslLang.opaque_zero)
            zero = self.lang.opaque_zero if node.dtype.kind == "i" else f"u32({self.lang.opaque_zero})"
            self.define(node, f"{self.lang.literal(node.attrs['value'], node.dtype)} + {zero}")
            return
        BodyEmitter.stmt_const(self, node)

    def expression(self, node: Node) -> str:
        if node.op.ordered and node.args[0].dtype is dt.bool1:  # WGSL orders no bools
            args = [f"i32({self.value(a)})" for a in node.args]
            return node.op.spelling(self.lang.name, [dt.int32] * len(args)).format(*args)
        if node.op is SELECT:
            c, a, b = (self.value(a) for a in node.args)
            if node.dtype.is_float and node.args[0].op.ordered and set(node.args[0].args) == set(node.args[1:]):
                # Mesa folds `a < b ? a : b` into a min that drops a NaN (numpy's where keeps it):
                # one branch ORed with a zero it cannot see is no longer the compared value
                a = f"bitcast<f32>(bitcast<u32>({a}) | u32({self.lang.opaque_zero}))"
            return f"select({b}, {a}, {c})"
        if node.op is _NEG and node.dtype.kind == "u":
            return f"(0u - {self.value(node.args[0])})"
        return BodyEmitter.expression(self, node)

    def loop_statement(self, node: Node) -> None:
        """A loop's ``for`` and block (``FlatDeepIfs.stmt_loop`` calls it)."""
        begin, end, step = node.args
        counter, e, st = self.name(node), self.value(end), self.value(step)
        s = self.constant(step)
        # (comparisons in parentheses: WGSL reads `a < b, c > d` as a template list)
        up, down = f"({counter} < {e})", f"({counter} > {e})"
        cond = up if s is not None and s > 0 else down if s is not None and s < 0 else \
            f"select({down} && ({st} < 0), {up}, ({st} > 0))"
        if node in self.bounded or s in (1, -1):
            increment = f"{counter} += {st}"
        else:  # the last step may pass INT32_MAX: the counter stops at the end instead of wrapping
            def u32(value):  # (bitcast: u32(-1) of a literal is a compile error, not a wrap)
                return f"bitcast<u32>({value})"
            rising = f"select({e}, {counter} + {st}, ({u32(e)} - {u32(counter)} > {u32(st)}))"
            falling = f"select({e}, {counter} + {st}, ({u32(counter)} - {u32(e)} > 0u - {u32(st)}))"
            chosen = rising if s is not None and s > 0 else falling if s is not None and s < 0 else \
                f"select({falling}, {rising}, ({st} > 0))"
            increment = f"{counter} = {chosen}"
        self.emit(f"for (var {counter}: i32 = {self.value(begin)}; {cond}; {increment}) {{")
        self.block(node)


def check_dtypes(kernel: Node) -> None:
    """A ``DTypeError`` for a kernel with values the WGSL emitter does not spell."""
    odd = sorted({d.name for d in features.kernel_dtypes(kernel) if d.bits == 64})
    if odd:
        first = next((n for n in walk(kernel.body) if n.location is not None and n.dtype is not None
                      and n.dtype.name in odd), None)
        raise DTypeError(f"kernel {kernel.contract.name} holds {', '.join('tf.' + n for n in odd)} values, which "
                         "tensorfrost's WGSL kernels do not spell yet (WGSL has no 64-bit types); convert to a "
                         "32-bit dtype or use tf.cpu",
                         first.location if first is not None else None)


def _atomic_buffers(kernel: Node, keep: set | None) -> set:
    """The buffers combined atomically, and those of packed elements stored (by compare-and-swap)."""
    return {n.args[0] for n in walk(kernel.body) if (n.op.atomic or n.op is STORE and n.args[0].dtype.bits < 32)
            and (keep is None or n in keep)}


def _array(slot, part: int) -> str:
    """The name of the array of a slot's part (bound in one range: the slot's own)."""
    return slot.name if slot.parts == 1 else f"{slot.name}_p{part}"


def _indices(lang: WgslLang, dims: list) -> list:
    """The thread's flat index and grid indices (the flat dispatch of ``binding.py``)."""
    count = " * ".join(f"u32({d})" for d in dims)
    head = [f"    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * {GROUP_SIZE}u + tf_lid.x;",
            f"    if (tf_g >= {count}) {{ return; }}", "    var tf_rest: u32 = tf_g;"]
    for k in range(len(dims) - 1, 0, -1):
        head.append(f"    let i{k}: i32 = i32(tf_rest % u32({dims[k]}));")
        head.append(f"    tf_rest = tf_rest / u32({dims[k]});")
    return head + ["    let i0: i32 = i32(tf_rest);", "    let tf_t: i32 = i32(tf_g);"]


def emit_kernel(kernel: Node, keep: set | None = None, arena: tuple = (), parts: dict | None = None,
                elements_per_part: int = 0, arena_parts: int = 1) -> KernelShader:
    """The WGSL module of one kernel node (with ``keep``, only those nodes of its body: one
    piece of a kernel split to fit the buffer-binding limit, ``backend_gl/split.py``). The
    buffers in ``arena`` are reached through the arena buffer, bound last, at the offsets in
    the uniform words after the kernel's own (``shader.make_slots``); ``parts`` maps buffers
    bound in several ranges (of ``elements_per_part`` words each) to their count, and the
    arena's in ``arena_parts``."""
    check_dtypes(kernel)
    names: dict = {}
    slots = make_slots(kernel, names, False, parts, keep, arena, arena_parts)
    atomic = _atomic_buffers(kernel, keep)
    atomic_slots = [s for s in slots if s.node in atomic]
    if any(s.offset is not None for s in atomic_slots):
        atomic_slots.append(next(s for s in slots if s.name == ARENA))  # (every word of the arena is atomic)
    atomic_names = {_array(s, part) for s in atomic_slots for part in range(s.parts)}
    lang = WgslLang(slots, atomic_names)
    lang.elements_per_part = elements_per_part
    head = []
    for uniform, word in zip(kernel.contract.uniforms, uniform_offsets(kernel)):
        name = local_name(names, uniform)
        head.append("    " + lang.declare(uniform.dtype, name, lang.uniform_word(word, uniform.dtype)))
    body = WgslBody(lang, kernel.shape, [f"i{k}" for k in range(kernel.rank)], "tf_t" if kernel.rank else None, names)
    body.mutable = mutable_nodes(kernel)
    body.bounded = index_arithmetic(walk(kernel.body))
    body.keep = keep
    if kernel.rank:
        head += _indices(lang, [body.value(d) for d in kernel.shape])
    body.depth = 1
    body.scope(kernel.body.nodes)
    declarations = []
    bindings = 0
    for slot in slots:
        for part in range(slot.parts if slot.offset is None else 0):
            array = _array(slot, part)
            element = _STORAGE[slot.storage]
            element = f"atomic<{element}>" if array in lang.atomic_buffers else element
            declarations.append(f"@group(0) @binding({slot.binding + part}) var<storage, read_write> {array}: "
                                f"array<{element}>;")
            bindings += 1
    words = uniform_words(kernel, slots)
    if words:
        declarations += [f"struct TfUniforms {{ w: array<vec4<u32>, {-(-words // 4)}> }}",
                         f"@group(0) @binding({bindings}) var<uniform> tf_u: TfUniforms;"]
    size = local_size(kernel)
    helpers = list(lang.helpers.values())  # (per-buffer stores and atomics of packed elements)
    prelude = select_prelude(_PRELUDE, "\n".join(helpers + head + body.lines))
    if "tf_zero" in prelude:  # (a 0 the prelude's helpers hide operands behind: no `precise` in WGSL)
        declarations.append("var<private> tf_zero: u32;")
        head.insert(0, f"    tf_zero = u32({lang.opaque_zero});")
    main = [f"@compute @workgroup_size({size})", f"fn main({_ENTRY}) {{", *head, *body.lines, "}"]
    lines = describe(kernel, slots, names) + declarations
    if prelude:
        lines += ["", prelude]
    lines += [""] + ([*helpers, ""] if helpers else []) + main
    return KernelShader(kernel, "\n".join(lines) + "\n", slots, size)
