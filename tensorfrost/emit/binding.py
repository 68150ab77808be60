"""The binding ABI of a compiled kernel, shared by every backend and the codegen mode: how a
host binds a kernel's buffers and uniforms and how many threads a group has.

Buffers are bound written ones first, then read-only ones, each in first-use order
(``buffer_order``); uniforms (grid dims, loop counters, host scalars) are 32-bit words in
the order of the kernel's ``uniforms`` attribute; a kernel with a grid runs in groups of
``GROUP_SIZE`` threads along one axis, folded into rows of groups when there are more than
a dispatch dimension allows (``dispatch_groups``)."""

from __future__ import annotations

from ..ir.node import Node

GROUP_SIZE = 256


def buffer_order(kernel: Node) -> list:
    """The kernel's buffers in binding order: written ones, then read-only ones."""
    buffers, written = kernel.attrs["buffers"], kernel.attrs["written"]
    return [b for b in buffers if b in written] + [b for b in buffers if b not in written]


def dispatch_groups(threads: int, max_x: int) -> tuple[int, int]:
    """(groups along x, rows of groups along y) covering ``threads`` with the fewest idle groups."""
    groups = -(-threads // GROUP_SIZE)
    rows = -(-groups // max_x)
    return -(-groups // rows), rows


def local_size(kernel: Node) -> int:
    """Threads per group: one for a kernel without a grid (a single thread)."""
    return GROUP_SIZE if kernel.rank else 1
