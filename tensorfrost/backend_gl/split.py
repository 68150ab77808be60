"""Splitting a kernel that uses more buffers than a shader may bind.

Drivers cap the storage blocks of one compute shader (16 on Mesa's llvmpipe), while fusion
happily puts 30 outputs of one input into one kernel. Such a kernel runs as several
shaders ("pieces"), each doing the writes to some of the buffers and only the work those
writes need (a backward slice of the kernel body): no copies, only recomputation. That is
only sound when no buffer the kernel writes is also read by it, and it helps only when each
piece fits; other kernels run whole and reach the buffers over the limit through the
arena (``emit/binding.plan_bindings``).
"""

from __future__ import annotations

from ..emit.binding import buffer_order
from ..ir.node import Node, walk
from ..ir.ops import LOAD, STORE
from ..opt.analysis import backward_slice, slice_buffers


def _writes(kernel: Node) -> list:
    return [n for n in walk(kernel.body) if n.op is STORE or n.op.atomic]


def split_kernel(kernel: Node, max_buffers: int) -> list | None:
    """The node sets of the kernel's pieces, each within ``max_buffers`` buffers; None if the
    kernel fits in one shader or cannot be split so."""
    if len(kernel.contract.buffers) <= max_buffers:
        return None
    written = kernel.contract.written
    loaded = {n.args[0] for n in walk(kernel.body) if n.op is LOAD}
    if written & loaded:
        return None
    by_target: dict[Node, list] = {}
    for write in _writes(kernel):
        by_target.setdefault(write.args[0], []).append(write)
    pieces, roots, kept = [], [], set()
    for target in buffer_order(kernel):
        if target not in by_target:
            continue
        trial = backward_slice(kernel, roots + by_target[target])
        if len(slice_buffers(trial)) > max_buffers and roots:
            pieces.append(kept)
            roots = []
            trial = backward_slice(kernel, by_target[target])
        if len(slice_buffers(trial)) > max_buffers:
            return None  # the writes to one buffer alone need more
        roots += by_target[target]
        kept = trial
    pieces.append(kept)
    return pieces
