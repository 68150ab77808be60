"""Elements that are not one 32-bit word, reached through the words of a ``uint`` buffer.

8- and 16-bit elements are packed: element ``i`` of an 8-bit tensor is byte ``i % 4`` of
word ``i / 4`` (16-bit: half ``i % 2`` of word ``i / 2``), read with ``bitfieldExtract``
(sign-extended for signed dtypes). A store replaces its bits by compare-and-swap on the
word (``TF_STORE_BITS``), so that threads storing neighbouring elements never race; atomics
are compare-and-swap loops on the word that combine the decoded values (16-bit floats in
float32, rounded back), except bitwise ones of integers, which act on the word natively.

A 64-bit element in words (in the arena, or a buffer with 64-bit atomics) is words ``2i``
(low) and ``2i + 1`` (high). Its atomic add is an atomic add of the low words whose carry
goes into an atomic add of the high words: the sum of every add is exact, as a 64-bit
atomic's; bitwise atomics act on each word. (The arena places 64-bit tensors at even words,
and buffer parts hold an even number of words, so both words are in one part.)

The statements go through helper functions generated per buffer (``helpers``), which choose
the part of a buffer bound in several ranges.
"""

from __future__ import annotations

from ..ir import dtypes as dt
from ..ir.ops_math import value_code

_SHIFT = {8: 2, 16: 1}  # log2 of the elements per word
_PAIR = {dt.float64: ("packDouble2x32({})", "unpackDouble2x32({})"),
         dt.int64: ("int64_t(packUint2x32({}))", "unpackUint2x32(uint64_t({}))"),
         dt.uint64: ("packUint2x32({})", "unpackUint2x32({})")}
_ENCODE = {dt.float16: "tf_f32_to_f16", dt.bfloat16: "tf_f32_to_bf16"}  # bits of a 16-bit float (else uint)


class WordAccess:
    """Reads, writes and atomics of packed and 64-bit elements, for ``ShaderLang``."""

    def _container(self, buffer: str, word: str):
        """(the slot whose array holds ``buffer``'s word ``word``, that word's index there)."""
        slot = self.slots[buffer]
        if slot.offset is None:
            return slot, word
        return self.arena, f"{self.uniform_word(slot.offset, dt.int32)} + {word}"

    def _word(self, container, word: str) -> str:
        if container.parts == 1:
            return self.load_word(container.name, word)
        return f"{self._read_helper(container)}({word})"

    def _helper(self, container, name: str, params: list, body) -> str:
        """The name of ``void name_<container>(int tf_w, params)`` (``params``: (type, name)
        pairs), which runs the statement
        ``body(word)``, where ``word(k)`` is the lvalue of word ``tf_w + k`` of the container."""
        function = f"{name}_{container.name}"
        if function in self.helpers:
            return function

        def at(array: str, index: str):
            return lambda k: f"{array}[{index}{f' + {k}' if k else ''}]"

        if container.parts == 1:
            lines = [f"    {body(at(container.name, 'tf_w'))}"]
        else:
            lines = self.part_branches(container.name, container.parts, "tf_w", self.elements_per_part,
                                       lambda array, j: body(at(array, j)))
        head = self.function_head(function, [(self.type(dt.int32), "tf_w"), *params])
        self.helpers[function] = "\n".join([f"{head} {{", *lines, "}"])
        return function

    # -- what a language spells otherwise (WGSL: emit/wgsl_words.py) ---------------------------------

    def store_bits(self, word: str, bits: int) -> str:
        """Store ``tf_v``'s low bits at ``tf_o`` of ``word`` (compare-and-swap)."""
        return f"TF_STORE_BITS({word}, tf_o, {bits}, tf_v)"

    def combine_bits(self, word: str, dtype: dt.DType, combined: str, encode: str) -> str:
        """Combine ``tf_v`` into the element at ``tf_o`` of ``word`` (compare-and-swap)."""
        return f"TF_ATOMIC_BITS({word}, tf_o, {dtype.bits}, tf_v, {combined}, tf_get_{dtype.name}, {encode})"

    pair_type = "uvec2"

    def shift_amount(self, amount: str) -> str:
        return amount

    def set_word(self, word: str, value: str) -> str:
        return f"{word} = {value};"

    def pair(self, dtype: dt.DType, words: str = "", value: str = "") -> str:
        """A 64-bit value of its (low, high) words ``words``, or the words of ``value``."""
        return _PAIR[dtype][0].format(f"uvec2({words})") if words else _PAIR[dtype][1].format(value)

    def carry_add(self, low: str, high: str) -> str:
        return (f"uint tf_low = atomicAdd({low}, tf_v.x); "
                f"atomicAdd({high}, tf_v.y + (tf_low + tf_v.x < tf_low ? 1u : 0u));")

    @staticmethod
    def _packed_place(index: str, dtype: dt.DType) -> tuple[str, str]:
        """(word, bit offset) of element ``index`` (an int variable) of a packed buffer."""
        shift = _SHIFT[dtype.bits]
        return f"({index} >> {shift})", f"(({index} & {(1 << shift) - 1}) << {5 - shift})"

    # -- reads and writes -----------------------------------------------------------------------

    def word_read(self, buffer: str, index: str, dtype: dt.DType) -> str:
        if dtype.bits < 32:
            word, offset = self._packed_place(f"({index})", dtype)
            container, word = self._container(buffer, word)
            return f"tf_get_{dtype.name}({self._word(container, word)}, {offset})"
        low = self._word(*self._container(buffer, f"2 * ({index})"))
        high = self._word(*self._container(buffer, f"2 * ({index}) + 1"))
        return self.pair(dtype, f"{low}, {high}")

    def word_write(self, buffer: str, index: str, value: str, dtype: dt.DType) -> str:
        if dtype.bits < 32:
            word, offset = self._packed_place("tf_e", dtype)
            container, word = self._container(buffer, word)
            store = self._helper(container, f"tf_store{dtype.bits}", self._params(dt.uint32),
                                 lambda at: self.store_bits(at(0), dtype.bits))
            bits = f"{_ENCODE.get(dtype, self.type(dt.uint32))}({value})"
            return f"{{ {self._at(index)} {store}({word}, {offset}, {bits}); }}"
        container, word = self._container(buffer, "2 * tf_e")
        store = self._helper(container, "tf_store64", [(self.pair_type, "tf_v")],
                             lambda at: f"{self.set_word(at(0), 'tf_v.x')} {self.set_word(at(1), 'tf_v.y')}")
        return f"{{ {self._at(index)} {store}({word}, {self.pair(dtype, value=value)}); }}"

    # -- atomics --------------------------------------------------------------------------------

    def word_atomic(self, combine: str, buffer: str, index: str, value: str, dtype: dt.DType) -> str:
        """An atomic of a packed element, or of a 64-bit integer (add and bitwise ones:
        the target's ``check_atomics`` refuses the rest before)."""
        if dtype.bits == 64:
            return self._wide_atomic(combine, buffer, index, value, dtype)
        word, offset = self._packed_place("tf_e", dtype)
        container, word = self._container(buffer, word)
        if dtype.is_integer and combine in ("and", "or", "xor"):
            mask, offset_bits = (1 << dtype.bits) - 1, self.shift_amount("tf_o")
            bits = f"(({self.type(dt.uint32)}(tf_v) & {mask}u) << {offset_bits})"
            operand = f"{bits} | ~({mask}u << {offset_bits})" if combine == "and" else bits
            statement = lambda at: self.native_atomic(combine, at(0), operand)  # noqa: E731
        else:
            encode = _ENCODE.get(dtype, self.type(dt.uint32))
            combined = f"tf_{combine}_{value_code(dtype)}"
            statement = lambda at: self.combine_bits(at(0), dtype, combined, encode)  # noqa: E731
        helper = self._helper(container, f"tf_atomic_{combine}_{dtype.name}", self._params(dtype), statement)
        return f"{{ {self._at(index)} {helper}({word}, {offset}, {value}); }}"

    def _params(self, dtype: dt.DType) -> list:
        return [(self.type(dt.int32), "tf_o"), (self.type(dtype), "tf_v")]

    def _at(self, index: str) -> str:
        return self.declare(dt.int32, "tf_e", index)

    def _wide_atomic(self, combine: str, buffer: str, index: str, value: str, dtype: dt.DType) -> str:
        container, word = self._container(buffer, "2 * tf_e")
        if combine == "add":
            def statement(at):
                return self.carry_add(at(0), at(1))
        else:
            def statement(at):
                return f"{self.native_atomic(combine, at(0), 'tf_v.x')} {self.native_atomic(combine, at(1), 'tf_v.y')}"
        helper = self._helper(container, f"tf_atomic_{combine}64", [(self.pair_type, "tf_v")], statement)
        return f"{{ {self._at(index)} {helper}({word}, {self.pair(dtype, value=value)}); }}"
