"""What GLSL and HLSL kernels share: buffer slots, uniforms, thread indexing, atomics.

A kernel runs one thread per element of its grid, in groups of ``GROUP_SIZE`` threads
along one axis (the binding ABI of ``emit/binding.py``). The flat thread index is
``(group.y * groups_x + group.x) * GROUP_SIZE + local.x``; each grid index is recovered
from the flat index by division. The OpenGL runtime may instead run a kernel of rank >= 2
that reads its grid indices in a 3-D dispatch (``grid2d``: x along the last axis, y the one
before), which divides only for axes before those two. The host's uniforms are 32-bit words
``tf_u[k]``.

A buffer larger than the driver's largest storage block is bound as several ranges
("parts"); its reads, writes and atomics then go through generated helpers that pick the
part. Float atomics are native where the language and the driver allow, otherwise a
compare-and-swap loop on the buffer's 32-bit words.

A kernel with more buffers than the target binds reaches some of them through the arena
(``emit/binding.py``): one buffer of 32-bit words ``tf_arena``, where each such buffer starts
at the word given by a uniform after the kernel's own. Its values are read and written as
words (bit casts), and its atomics act on words: integer add and bitwise ones natively,
int32 min / max and every float one by compare-and-swap.

Values of every dtype: 8- and 16-bit ints compute as int / uint, wrapped to their bits when
declared; 16-bit floats compute as float, rounded after every op; float64 and int64 / uint64
are GLSL's double and int64_t (extensions, ``features.py``). Buffers of 8- and 16-bit
elements are packed in 32-bit words (``words.py``), as are 64-bit ones in the arena or with
atomics; a uniform of 64 bits takes two words.
"""

from __future__ import annotations

import math
import os
import re
import warnings

from ..ir import dtypes as dt
from ..ir.errors import warning_level
from ..ir.node import Node, walk
from ..ir.ops import SELECT, SET
from ..ir.ops_math import value_code
from ..opt.analysis import set_variables
from ..opt.fission import SHADER_EXPANDED_OPS, expanded_ops
from . import features
from .binding import buffer_order
from .clike import BodyEmitter, Lang, c_comment, index_arithmetic
from .names import numbered_name
from .words import WordAccess


def local_name(names: dict, node: Node) -> str:
    """The name of ``node`` in one kernel, numbered within the kernel (not by global node
    ids) so that equal kernels get equal sources and share one compiled shader; an ASCII
    identifier that no shading language reserves (emit/names.py)."""
    if node not in names:
        base = re.sub(r"^buf\d+$", "buf", node.name or "v")  # the memory pass numbers buffers by node id
        names[node] = numbered_name(base, len(names))
    return names[node]


ARENA = "tf_arena"


class Slot:
    """One buffer of a kernel: where it is bound and how its words are read. The arena is a
    slot without a node; a buffer in the arena has no binding but an ``offset``: the uniform
    word that holds where it starts there."""

    def __init__(self, node: Node | None, name: str, binding: int | None, written: bool, as_words: bool,
                 parts: int, offset: int | None = None):
        self.node = node
        self.name = name
        self.binding = binding  # first binding (a buffer in parts takes one per part)
        self.written = written
        self.as_words = as_words  # data declared as uint: float for compare-and-swap atomics, the arena's
        self.parts = parts
        self.offset = offset

    @property
    def in_words(self) -> bool:
        """Whether its elements are reached through 32-bit words: the arena and what lives
        there, packed 8- and 16-bit elements, 64-bit ones with atomics (``words.py``)."""
        return self.node is None or self.offset is not None or self.as_words or self.node.dtype.bits < 32

    @property
    def storage(self) -> str:
        if self.in_words or self.node.dtype in (dt.uint32, dt.bool1):
            return "uint"
        return _NATIVE_STORAGE[self.node.dtype]

    @property
    def item_words(self) -> int:
        """32-bit words per item of its array (2 for a double or int64_t array)."""
        return 2 if not self.in_words and self.node.dtype.bits == 64 else 1


_NATIVE_STORAGE = {dt.int32: "int", dt.float32: "float", dt.float64: "double", dt.int64: "int64_t",
                   dt.uint64: "uint64_t"}


class ShaderLang(WordAccess, Lang):
    """Spelling shared by shader languages; subclasses name the intrinsics."""

    types = {dt.float32: "float", dt.int32: "int", dt.uint32: "uint", dt.bool1: "bool", dt.float16: "float",
             dt.bfloat16: "float", dt.int8: "int", dt.int16: "int", dt.uint8: "uint", dt.uint16: "uint",
             dt.float64: "double", dt.int64: "int64_t", dt.uint64: "uint64_t"}
    storage_types = {**types, dt.bool1: "uint", dt.float16: "uint", dt.bfloat16: "uint", dt.int8: "uint",
                     dt.int16: "uint", dt.uint8: "uint", dt.uint16: "uint"}
    float_bits = "floatBitsToUint"
    bits_float = "uintBitsToFloat"
    int_bits = "uint"  # an int's 32 bits as a uint word, and back (GLSL keeps the bits)
    bits_int = "int"
    atomic_names = {}  # combine -> the native atomic function
    elements_per_part = 0

    def __init__(self, slots: list, native_float_add: bool):
        self.slots = {s.name: s for s in slots}
        self.arena = self.slots.get(ARENA)
        self.native_float_add = native_float_add
        self.helpers: dict[str, str] = {}  # name -> source of the part-choosing helpers
        self.native_float_atomics = False  # whether a native float atomic was emitted

    # -- values of every dtype -------------------------------------------------------------------

    def literal(self, value, dtype: dt.DType) -> str:
        if dtype is dt.float64:
            if math.isnan(value):
                return "TF_NAN64"
            if math.isinf(value):
                return "TF_INF64" if value > 0 else "(-TF_INF64)"
            text = repr(float(value))
            return (text if ("." in text or "e" in text) else text + ".0") + "lf"
        if dtype is dt.int64:
            return "(-9223372036854775807l - 1l)" if int(value) == -(2**63) else f"{int(value)}l"
        if dtype is dt.uint64:
            return f"{int(value)}ul"
        return super().literal(value, dtype)

    def rounded(self, dtype: dt.DType, expr: str) -> str:
        return f"tf_round_{dtype.name}({expr})"

    def assigned(self, expr: str, source: dt.DType, target: dt.DType) -> str:
        """``expr`` of ``source`` converted as C++ converts a value assigned to a variable of
        ``target`` (shading languages convert nothing implicitly)."""
        if target.is_bool:
            return f"({expr} != {self.literal(0, source)})"
        if target.is_integer and target.bits < 32:
            return self.wrap_bits(f"{self.type(target)}({expr})", target.bits)
        return f"{self.type(target)}({expr})"

    def select_bits(self, dtype: dt.DType) -> tuple[str, str, str]:
        """(a float's bits, a float of bits, the type of the bits)."""
        if dtype is dt.float64:
            return "unpackDouble2x32", "packDouble2x32", "uvec2"
        return self.float_bits, self.bits_float, "uint"

    def declare(self, dtype: dt.DType, name: str, expr: str, mutable: bool = False) -> str:
        if dtype.is_integer and dtype.bits < 32:  # (as C++ narrows on assignment to int8_t)
            expr = self.wrap_bits(expr, dtype.bits)
        return super().declare(dtype, name, expr, mutable)

    def wrap_bits(self, expr: str, bits: int) -> str:
        """An int / uint ``expr`` wrapped to its low ``bits`` (sign-extended for an int)."""
        return f"bitfieldExtract({expr}, 0, {bits})"

    # -- plain reads and writes ---------------------------------------------------------------

    def _word_slot(self, buffer: str, index: str) -> tuple[Slot, str]:
        """The slot holding ``buffer``'s words and the index there (the arena's, past its offset)."""
        slot = self.slots[buffer]
        if slot.offset is None:
            return slot, index
        return self.arena, f"{self.uniform_word(slot.offset, dt.int32)} + {self.type(dt.int32)}({index})"

    # (a language's spelling of one 32-bit word of an array: WGSL's atomic arrays differ)
    def load_word(self, array: str, index: str) -> str:
        return f"{array}[{index}]"

    def store_word(self, array: str, index: str, value: str) -> str:
        return f"{array}[{index}] = {value};"

    def bool_word(self, value: str) -> str:
        return f"({value} ? 1u : 0u)"

    def int_local(self, name: str, expr: str) -> str:
        return f"int {name} = {expr};"

    def function_head(self, name: str, params, result: str | None = None) -> str:
        """A helper function's signature; ``params``: (type, name) pairs."""
        return f"{result or 'void'} {name}({', '.join(f'{t} {n}' for t, n in params)})"

    def storage_type(self, slot: Slot) -> str:
        return slot.storage

    def buffer_read(self, buffer: str, index: str, dtype: dt.DType) -> str:
        if dtype.bits != 32 and self.slots[buffer].in_words:
            return self.word_read(buffer, index, dtype)
        slot, index = self._word_slot(buffer, index)
        word = self.load_word(slot.name, index) if slot.parts == 1 else self._read_helper(slot) + f"({index})"
        if dtype is dt.bool1:
            return f"({word} != 0u)"
        if slot.as_words and dtype is not dt.uint32:
            return f"{self.bits_float if dtype.is_float else self.bits_int}({word})"
        return word

    def buffer_write(self, buffer: str, index: str, value: str, dtype: dt.DType) -> str:
        if dtype.bits != 32 and self.slots[buffer].in_words:
            return self.word_write(buffer, index, value, dtype)
        slot, index = self._word_slot(buffer, index)
        value = self._encode(slot, value, dtype)
        if slot.parts == 1:
            return self.store_word(slot.name, index, value)
        return f"{self._write_helper(slot)}({index}, {value});"

    def _encode(self, slot: Slot, value: str, dtype: dt.DType) -> str:
        if dtype is dt.bool1:
            return self.bool_word(value)
        if slot.as_words and dtype is not dt.uint32:
            return f"{self.float_bits if dtype.is_float else self.int_bits}({value})"
        return value

    # -- atomics ------------------------------------------------------------------------------

    def atomic(self, combine: str, buffer: str, index: str, value: str, dtype: dt.DType) -> str:
        if dtype.bits != 32:
            return self.word_atomic(combine, buffer, index, value, dtype)
        slot, index = self._word_slot(buffer, index)
        if slot.parts == 1:
            return self.atomic_on_word(combine, slot, f"{slot.name}[{index}]", value, dtype)
        return f"{self._atomic_helper(slot, combine, dtype)}({index}, {value});"

    def atomic_on_word(self, combine: str, slot: Slot, word: str, value: str, dtype: dt.DType) -> str:
        if dtype is dt.bool1:  # 0/1 words: add and max are or, min is and
            combine = {"add": "or", "max": "or", "min": "and"}.get(combine, combine)
            return self.native_atomic(combine, word, self.bool_word(value))
        if dtype.is_float and (slot.as_words or combine != "add"):
            return (f"TF_ATOMIC_CAS({word}, {value}, tf_{combine}_{value_code(dtype)}, {self.bits_float}, "
                    f"{self.float_bits})")
        if dtype is dt.int32 and slot.as_words:  # an int in uint words: add and bitwise ops keep the bits
            if combine in ("min", "max"):  # (an unsigned comparison would not)
                return f"TF_ATOMIC_CAS({word}, {value}, tf_{combine}_i32, {self.bits_int}, {self.int_bits})"
            return self.native_atomic(combine, word, f"{self.int_bits}({value})")
        self.native_float_atomics |= dtype.is_float
        return self.native_atomic(combine, word, value)

    def native_atomic(self, combine: str, word: str, value: str) -> str:
        return f"{self.atomic_names[combine]}({word}, {value});"

    # -- buffers bound in parts ----------------------------------------------------------------

    def part_branches(self, array: str, parts: int, index: str, size: int, statement) -> list:
        """Lines running ``statement(part_array, index_there)`` on the part of ``array`` (bound
        in ``parts`` ranges of ``size`` items) that holds item ``index``."""
        lines = [f"    {self.int_local('tf_p', f'{index} / {size}')}",
                 f"    {self.int_local('tf_j', f'{index} - tf_p * {size}')}"]
        for part in range(parts):
            keyword = "if" if part == 0 else "else if"
            condition = f"{keyword} (tf_p == {part})" if part < parts - 1 else "else"
            lines.append(f"    {condition} {{ {statement(f'{array}_p{part}', 'tf_j')} }}")
        return lines

    def _part_helper(self, name: str, slot: Slot, params, result, statement) -> str:
        if name not in self.helpers:
            size = self.elements_per_part // slot.item_words  # (items of a double array: half as many)
            body = self.part_branches(slot.name, slot.parts, "i", size, statement)
            head = self.function_head(name, [(self.type(dt.int32), "i"), *params], result)
            self.helpers[name] = "\n".join([f"{head} {{", *body, "}"])
        return name

    def _read_helper(self, slot: Slot) -> str:
        return self._part_helper(f"tf_read_{slot.name}", slot, [], self.storage_type(slot),
                                 lambda array, j: f"return {self.load_word(array, j)};")

    def _write_helper(self, slot: Slot) -> str:
        return self._part_helper(f"tf_write_{slot.name}", slot, [(self.storage_type(slot), "v")], None,
                                 lambda array, j: self.store_word(array, j, "v"))

    def _atomic_helper(self, slot: Slot, combine: str, dtype: dt.DType) -> str:
        name = f"tf_atomic_{combine}_{dtype.name}_{slot.name}"  # (the arena holds several dtypes)
        return self._part_helper(name, slot, [(self.type(dtype), "v")], None,
                                 lambda array, j: self.atomic_on_word(combine, slot, f"{array}[{j}]", "v", dtype))


class ShaderBody(BodyEmitter):
    """Kernel statements with shader identifiers and no ordering of booleans; with
    ``keep``, only the statements of those nodes (one piece of a split kernel)."""

    keep: set | None = None

    def scope(self, nodes) -> None:
        super().scope(nodes if self.keep is None else [n for n in nodes if n in self.keep])

    def name(self, node: Node) -> str:
        if node not in self.names:
            local_name(self.names, node)
        return self.names[node]

    def stmt_const(self, node: Node) -> None:
        opaque = getattr(self.lang, "opaque_zero", None)
        if node in self.mutable and opaque is not None and node.dtype.is_integer and node.dtype.bits <= 32:
            # An integer variable starts from a value the shader compiler cannot see: Mesa's
            # loop analysis computed a wrong trip count for a loop that counts it from a
            # constant and leaves on a test of it after the increment (every result 0).
            zero = opaque if node.dtype.kind == "i" else f"uint({opaque})"
            self.define(node, f"{self.lang.literal(node.attrs['value'], node.dtype)} + {zero}")
            return
        super().stmt_const(node)

    def expression(self, node: Node) -> str:
        if node.op.ordered and node.args[0].dtype is dt.bool1:  # shaders order no bools
            args = [f"int({self.value(a)})" for a in node.args]
            return node.op.spelling(self.lang.name, [dt.int32] * len(args)).format(*args)
        opaque = getattr(self.lang, "opaque_zero", None)
        if node.op is SELECT and node.dtype.is_float and opaque is not None and node.args[0].op.ordered \
                and set(node.args[0].args) == set(node.args[1:]):
            # Mesa folds `a < b ? a : b` into a min that drops a NaN (numpy's where keeps it):
            # one branch ORed with a zero it cannot see is no longer the compared value
            c, a, b = (self.value(a) for a in node.args)
            to_bits, from_bits, words = self.lang.select_bits(node.dtype)
            return f"({c} ? {from_bits}({to_bits}({a}) | {words}(uint({opaque}))) : {b})"
        return super().expression(node)

    def stmt_set(self, node: Node) -> None:
        target, value = node.args
        text = self.value(value)
        if value.dtype is not target.dtype:  # (a bool accumulator of an int max: converted as C++ assigns)
            text = self.lang.assigned(text, value.dtype, target.dtype)
        self.emit(f"{self.target(target)} = {text};")


def has_atomic(kernel: Node, memory: Node, combines) -> bool:
    """Whether the kernel has an atomic into ``memory`` that combines by one of ``combines``."""
    return any(n.op.atomic and n.args[0] is memory and n.op.combine in combines
               for n in walk(kernel.body))


def uniform_offsets(kernel: Node) -> list:
    """The first word of each uniform of the kernel in ``tf_u`` (a 64-bit one takes two), and
    after them the count of words they take."""
    offsets, word = [], 0
    for uniform in kernel.contract.uniforms:
        offsets.append(word)
        word += 2 if uniform.dtype.bits == 64 else 1
    return offsets + [word]


def make_slots(kernel: Node, names: dict, native_float_add: bool, parts: dict | None = None,
               keep: set | None = None, arena: tuple = (), arena_parts: int = 1) -> list:
    """The kernel's buffers as slots (those the ``keep`` nodes use, if given); ``parts``
    gives a buffer's part count where above 1. The buffers in ``arena`` live there, their
    offsets in the uniform words after the kernel's own, in this order; the arena, bound in
    ``arena_parts`` ranges, is the last slot."""
    slots, binding = [], 0
    cas = ("add", "min", "max") if not native_float_add else ("min", "max")
    used = None if keep is None else {n.args[0] for n in keep if n.op.kind == "memory" and n.op is not SET}
    offsets = {memory: uniform_offsets(kernel)[-1] + k for k, memory in enumerate(arena)}
    for memory in buffer_order(kernel):
        if used is not None and memory not in used:
            continue
        written, name = memory in kernel.contract.written, local_name(names, memory)
        if memory in offsets:
            slots.append(Slot(memory, name, None, written, False, 1, offsets[memory]))
            continue
        count = (parts or {}).get(memory, 1)
        as_words = (memory.dtype is dt.float32 and has_atomic(kernel, memory, cas)
                    or memory.dtype.bits == 64 and has_atomic(kernel, memory, features.COMBINES))
        slots.append(Slot(memory, name, binding, written, as_words, count))
        binding += count
    if arena:
        written = any(s.written for s in slots if s.offset is not None)
        slots.append(Slot(None, ARENA, binding, written, True, arena_parts))
    return slots


def uniform_words(kernel: Node, slots: list) -> int:
    """The uniform words of a kernel's shader: its uniforms, then its arena offsets."""
    return uniform_offsets(kernel)[-1] + sum(1 for s in slots if s.offset is not None)


def mutable_nodes(kernel: Node) -> set:
    """Variables the kernel sets, and uniforms (a host variable must be read by name, not
    folded as its initial constant)."""
    return set_variables(walk(kernel.body)) | set(kernel.contract.uniforms)


# -- the prelude, cut into blocks so that a kernel carries only what it uses ------------------

# The prelude's files, in the order their blocks may use each other's
PRELUDE_FILES = ("prelude.shader", "prelude_16.shader", "prelude_64.shader", "prelude_fp64_exp.shader",
                 "prelude_fp64_trig.shader")
_DEFINES = re.compile(r"^(?:#define\s+(TF_\w+)|\w+\s+(tf_\w+)\s*\()", re.M)
_USES = re.compile(r"\b(?:tf|TF)_\w+\b")


def prelude_blocks(spelling: list, files: tuple = PRELUDE_FILES) -> list:
    """(defined names, text, features) of each blank-line-separated block of the shader prelude
    (written in GLSL), respelled for one language by ``spelling``: (regular expression,
    replacement) pairs applied in order. ``features``: what the block needs of the driver
    (``features.block_needs``). ``files``: a language's own prelude instead (WGSL's)."""
    text = ""
    for name in files:
        with open(os.path.join(os.path.dirname(__file__), name)) as f:
            text += f.read() + "\n\n"
    for pattern, replacement in spelling:
        text = re.sub(pattern, replacement, text)
    blocks = []
    for block in re.split(r"\n\s*\n", text):
        lines = [line for line in block.strip().splitlines() if line.strip()]
        code = "\n".join(lines)
        defined = {a or b for a, b in _DEFINES.findall(code)}
        if defined:
            blocks.append((defined, code, features.block_needs(code)))
    return blocks


def select_prelude(blocks: list, code: str, available: frozenset = frozenset()) -> str:
    """The prelude blocks ``code`` uses, with the blocks they use, in file order; of the
    blocks that need features (64-bit overloads), those the kernel has (``available``)."""
    needed = set(_USES.findall(code))
    chosen = []
    for defined, text, needs in reversed(blocks):
        if defined & needed and needs <= available:
            chosen.append(text)
            needed |= set(_USES.findall(text))
    return "\n\n".join(reversed(chosen))


class KernelShader:
    """One kernel's emitted source and what its dispatcher needs to know."""

    def __init__(self, kernel: Node, source: str, slots: list, local_size: int):
        self.kernel = kernel
        self.index = kernel.contract.index
        self.name = kernel.contract.name
        self.source = source
        self.slots = slots
        self.uniforms = list(kernel.contract.uniforms)
        self.local_size = local_size
        self.rank = kernel.rank
        self.indexed = True  # whether the body reads its grid indices (not only the flat one)


def emit_body(kernel: Node, lang: ShaderLang, names: dict, keep: set | None = None,
              grid2d: bool = False) -> tuple[list, list]:
    """(lines declaring uniforms and thread indices, body lines) of ``main``, indented once.
    With ``grid2d`` (a kernel of rank >= 2) the dispatch is 3-D: x runs along the last axis,
    y along the one before, z over the rest, so no thread divides to find its row."""
    head = []
    for uniform, word in zip(kernel.contract.uniforms, uniform_offsets(kernel)):
        name = local_name(names, uniform)
        head.append("    " + lang.declare(uniform.dtype, name, lang.uniform_word(word, uniform.dtype)))
    rank = kernel.rank
    grid_vars = [f"i{k}" for k in range(rank)]
    body = ShaderBody(lang, kernel.shape, grid_vars, "tf_t" if rank else None, names)
    body.mutable = mutable_nodes(kernel)
    body.bounded = index_arithmetic(walk(kernel.body))  # loops whose counter cannot overflow
    body.keep = keep
    if rank:
        dims = [body.value(d) for d in kernel.shape]
        head += _grid_indices(lang, dims) if grid2d else _flat_indices(lang, dims)
    body.depth = 1
    body.scope(kernel.body.nodes)
    _warn_if_large(kernel)
    return head, body.lines


def _warn_if_large(kernel: Node) -> None:
    """Say so before a shader compiler spends minutes: a kernel that fission could not bring
    within SHADER_EXPANDED_OPS (one loop's body holds more, or the target sets no limit)."""
    count = expanded_ops(kernel)
    if count > 2 * SHADER_EXPANDED_OPS:
        warnings.warn(f"tensorfrost: kernel {kernel.contract.name} holds {count} operations that shader compilers "
                      f"expand into long code (sin, exp, pow...), more than {SHADER_EXPANDED_OPS} in one place: its "
                      "compile may take minutes (llvmpipe: 22 s for 1,000 sins, growing with their square). Such "
                      "code usually comes from a Python loop unrolled while tracing (a for over Python ints, "
                      "tf.static_range); tf.loop, or range(...) in a kernel program, keeps it one loop",
                      stacklevel=warning_level())


def _flat_indices(lang: ShaderLang, dims: list) -> list:
    count = " * ".join(f"uint({d})" for d in dims)
    head = [f"    const uint tf_g = {lang.flat_thread_index()};", f"    if (tf_g >= {count}) return;",
            "    uint tf_rest = tf_g;"]
    for k in range(len(dims) - 1, 0, -1):
        head.append(f"    const int i{k} = int(tf_rest % uint({dims[k]}));")
        head.append(f"    tf_rest = tf_rest / uint({dims[k]});")
    return head + ["    const int i0 = int(tf_rest);", "    const int tf_t = int(tf_g);"]


def _grid_indices(lang: ShaderLang, dims: list) -> list:
    last, row = len(dims) - 1, len(dims) - 2
    head = [f"    const int i{last} = int(gl_GlobalInvocationID.x);",
            f"    const int i{row} = int(gl_GlobalInvocationID.y);",
            f"    if (i{last} >= {dims[last]} || i{row} >= {dims[row]}) return;"]
    if row:
        head.append("    uint tf_rest = gl_WorkGroupID.z;")
    for k in range(row - 1, 0, -1):  # the leading axes share z: one division per axis, per thread
        head.append(f"    const int i{k} = int(tf_rest % uint({dims[k]}));")
        head.append(f"    tf_rest = tf_rest / uint({dims[k]});")
    if row:
        head.append("    const int i0 = int(tf_rest);")
    flat = f"(int(gl_WorkGroupID.z) * {dims[row]} + i{row}) * {dims[last]} + i{last}"
    return head + [f"    const int tf_t = {flat};"]


def describe(kernel: Node, slots: list, names: dict) -> list:
    """Comment lines that document a kernel's interface."""
    grid = ", ".join(names.get(d) or str(d.attrs.get("value", d.label)) for d in kernel.shape)
    lines = [f"kernel {kernel.contract.name}: one thread per element of [{grid}]"]
    for slot in slots:
        access = "read-write" if slot.written else "read-only"
        parts = f" in {slot.parts} parts" if slot.parts > 1 else ""
        dtype = "32-bit words" if slot.node is None else slot.node.dtype.name
        dtype += ", packed in 32-bit words" if slot.node is not None and slot.in_words and slot.offset is None \
            and slot.node.dtype.bits != 32 else ""
        where = f"binding {slot.binding}" if slot.offset is None else f"in {ARENA} from word tf_u[{slot.offset}]"
        lines.append(f"{where}: {slot.name} ({dtype}, {access}{parts})")
    for uniform, word in zip(kernel.contract.uniforms, uniform_offsets(kernel)):
        words = f"tf_u[{word}..{word + 1}]" if uniform.dtype.bits == 64 else f"tf_u[{word}]"
        lines.append(f"{words}: {names[uniform]} ({uniform.dtype.name})")
    return ["// " + c_comment(line) for line in lines]
