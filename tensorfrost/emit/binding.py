"""The binding ABI of a compiled kernel, shared by every backend and the codegen mode: how a
host binds a kernel's buffers and uniforms and how many threads a group has.

Buffers are bound written ones first, then read-only ones, each in first-use order
(``buffer_order``); uniforms (grid dims, loop counters, host scalars) are 32-bit words in
the order of the kernel's ``uniforms`` attribute; a kernel with a grid runs in groups of
``GROUP_SIZE`` threads along one axis, folded into rows of groups when there are more than
a dispatch dimension allows (``dispatch_groups``).

A target binds a limited number of storage buffers per shader (OpenGL drivers: 16 or more,
WebGPU: 8 by default). A kernel that needs more binds some directly and reaches the rest
through one arena buffer (``plan_bindings``): the host copies them into the arena at word
offsets before the dispatch (the offsets are extra uniform words after the kernel's own)
and copies the written ones back after it; the shader reads them as 32-bit words. Sizes and
offsets count 32-bit words whatever the dtype (8- and 16-bit elements are packed in words,
64-bit ones take two, at an even word of the arena: 8-byte aligned)."""

from __future__ import annotations

from dataclasses import dataclass

from ..ir.node import Node

GROUP_SIZE = 256


def buffer_order(kernel: Node) -> list:
    """The kernel's buffers in binding order: written ones, then read-only ones."""
    buffers, written = kernel.contract.buffers, kernel.contract.written
    return [b for b in buffers if b in written] + [b for b in buffers if b not in written]


def dispatch_groups(threads: int, max_x: int) -> tuple[int, int]:
    """(groups along x, rows of groups along y) covering ``threads`` with the fewest idle groups."""
    groups = -(-threads // GROUP_SIZE)
    rows = -(-groups // max_x)
    return -(-groups // rows), rows


def local_size(kernel: Node) -> int:
    """Threads per group: one for a kernel without a grid (a single thread)."""
    return GROUP_SIZE if kernel.rank else 1


@dataclass
class BindingPlan:
    """How one dispatch binds a kernel's buffers: ``parts[k]``, the ranges buffer ``k`` is
    bound in (a buffer over the largest storage block takes several); ``offsets[k]``, the word
    where buffer ``k`` starts in the arena, for those that live there (in the order of their
    offset uniforms); ``arena_words``, the arena's size."""

    parts: list
    offsets: dict
    arena_words: int

    def arena_parts(self, part_words: int) -> int:
        return _ranges(self.arena_words, part_words) if self.offsets else 0


def _ranges(words: int, part_words: int) -> int:
    return max(1, -(-words // part_words))


def plan_bindings(words: list, written: list, storage: list, budget: int, part_words: int,
                  alignment: list | None = None) -> BindingPlan | None:
    """The bindings of a kernel's buffers of ``words`` 32-bit words each (``written``: whether
    the kernel writes it; ``storage``: equal for buffers that are one memory bound twice) on a
    target that binds at most ``budget`` ranges of ``part_words`` words. Buffers move to the
    arena, cheapest copy first (read-only ones, which are only copied in; then the smallest),
    until the rest and the arena fit; one memory bound twice moves as one (one copy, so a
    write through one binding is what the other reads). A buffer starts in the arena at a
    multiple of its ``alignment`` (words; 2 for 64-bit elements, 1 by default). None if
    nothing fits."""
    parts = [_ranges(w, part_words) for w in words]
    plan = BindingPlan(parts, {}, 0)
    direct = sum(parts)
    if direct <= budget:
        return plan
    same: dict = {}
    for k, key in enumerate(storage):
        same.setdefault(key, []).append(k)
    order = sorted(same.values(), key=lambda ks: (any(written[k] for k in ks), words[ks[0]]))
    for group in order:
        if direct + plan.arena_parts(part_words) <= budget:
            break
        align = max(alignment[k] for k in group) if alignment else 1
        start = -(-plan.arena_words // align) * align
        for k in group:
            plan.offsets[k] = start
            direct -= parts[k]
        plan.arena_words = start + max(words[group[0]], align)  # an element even for an empty buffer (its index 0)
    return plan if direct + plan.arena_parts(part_words) <= budget else None
