"""Packed and 64-bit elements in WGSL: ``words.py``'s reads, stores and atomics on the 32-bit
words of a buffer, in WGSL's spelling.

WGSL has no macros and no pointer parameters into storage: each store or atomic is a helper
function generated per buffer (``words.WordAccess._helper``), which names the global array.
A buffer whose packed elements a kernel stores (or combines atomically) is an array of
``atomic<u32>``: a store replaces its element's bits by a compare-and-swap loop on the word
(``atomicCompareExchangeWeak``), so that threads storing neighbouring elements never race,
and its plain reads are ``atomicLoad``. (WebGPU binds no buffer in parts: a word is ``buffer[w]``, or the
arena's past the buffer's offset.)
"""

from __future__ import annotations

from ..ir import dtypes as dt
from .words import WordAccess


class WgslWords(WordAccess):
    pair_type = "vec2<u32>"

    def shift_amount(self, amount: str) -> str:
        return f"u32({amount})"

    @staticmethod
    def _cas(word: str, combined: str) -> str:
        """Replace ``word`` by ``combined`` (of the word seen, ``tf_seen``) by compare-and-swap."""
        return (f"var tf_seen = atomicLoad(&{word}); loop {{ let tf_next = {combined}; "
                "if (tf_next == tf_seen) { break; } "
                f"let tf_r = atomicCompareExchangeWeak(&{word}, tf_seen, tf_next); "
                "if (tf_r.exchanged) { break; } tf_seen = tf_r.old_value; }")

    def store_bits(self, word: str, bits: int) -> str:
        return self._cas(word, f"insertBits(tf_seen, tf_v, u32(tf_o), {bits}u)")

    def combine_bits(self, word: str, dtype: dt.DType, combined: str, encode: str) -> str:
        value = f"{encode}({combined}(tf_get_{dtype.name}(tf_seen, tf_o), tf_v))"
        return self._cas(word, f"insertBits(tf_seen, {value}, u32(tf_o), {dtype.bits}u)")

    def set_word(self, word: str, value: str) -> str:  # (64-bit elements in words: atomic buffers)
        return f"atomicStore(&{word}, {value});"

    def carry_add(self, low: str, high: str) -> str:
        return (f"let tf_low = atomicAdd(&{low}, tf_v.x); "
                f"atomicAdd(&{high}, tf_v.y + select(0u, 1u, tf_low + tf_v.x < tf_low));")

    def pair(self, dtype: dt.DType, words: str = "", value: str = "") -> str:
        if words:
            return f"bitcast<{self.type(dtype)}>(vec2<u32>({words}))"
        return f"bitcast<vec2<u32>>({value})"

    def wrap_bits(self, expr: str, bits: int) -> str:
        return f"extractBits({expr}, 0u, {bits}u)"
