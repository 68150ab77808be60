"""Splitting a kernel that uses more buffers than a shader may bind.

Drivers cap the storage blocks of one compute shader (16 on Mesa's llvmpipe), while fusion
happily puts 30 outputs of one input into one kernel. Such a kernel runs as several
shaders ("pieces"), each doing the writes to some of the buffers and only the work those
writes need (a backward slice of the kernel body). That is only sound when no buffer the
kernel writes is also read by it, so such kernels are never split.
"""

from __future__ import annotations

from ..emit.binding import buffer_order
from ..ir.errors import CompileError
from ..ir.node import Node, operands, walk
from ..ir.ops import LOAD, SET, STORE


def _writes(kernel: Node) -> list:
    return [n for n in walk(kernel.body) if n.op is STORE or n.op.atomic]


def backward_slice(kernel: Node, roots) -> set:
    """The nodes of ``kernel``'s body that the ``roots`` depend on (values, variables,
    enclosing control flow, and the breaks and continues of the loops kept)."""
    inside = set(walk(kernel.body))
    sets_of: dict[Node, list] = {}
    exits_of: dict[Node, list] = {}
    for node in inside:
        if node.op is SET:
            sets_of.setdefault(node.args[0], []).append(node)
        elif node.op.jump:
            loop = node.enclosing_loop()
            if loop is not None:
                exits_of.setdefault(loop, []).append(node)
    kept, work = set(), list(roots)
    while work:
        node = work.pop()
        if node in kept or node not in inside:
            continue
        kept.add(node)
        work.extend(operands(node))
        work.extend(sets_of.get(node, ()))
        work.extend(exits_of.get(node, ()))
        owner = node.scope.owner
        if owner is not None and owner is not kernel:
            work.append(owner)
    return kept


def _buffers(kept: set) -> set:
    return {n.args[0] for n in kept if n.op in (LOAD, STORE) or n.op.atomic}


def split_kernel(kernel: Node, max_buffers: int) -> list | None:
    """None if the kernel fits in one shader, else the node sets of its pieces."""
    if len(kernel.attrs["buffers"]) <= max_buffers:
        return None
    name = kernel.attrs["name"]
    written = kernel.attrs["written"]
    loaded = {n.args[0] for n in walk(kernel.body) if n.op is LOAD}
    if written & loaded:
        raise CompileError(f"kernel {name} uses {len(kernel.attrs['buffers'])} buffers, more than the "
                           f"{max_buffers} this OpenGL driver binds in one shader, and reads a buffer it "
                           "writes, so it cannot be split into several shaders")
    by_target: dict[Node, list] = {}
    for write in _writes(kernel):
        by_target.setdefault(write.args[0], []).append(write)
    pieces, roots, kept = [], [], set()
    for target in buffer_order(kernel):
        if target not in by_target:
            continue
        trial = backward_slice(kernel, roots + by_target[target])
        if len(_buffers(trial)) > max_buffers and roots:
            pieces.append(kept)
            roots = []
            trial = backward_slice(kernel, by_target[target])
        if len(_buffers(trial)) > max_buffers:
            raise CompileError(f"kernel {name}: the writes to one buffer need {len(_buffers(trial))} buffers, "
                               f"more than the {max_buffers} this OpenGL driver binds in one shader")
        roots += by_target[target]
        kept = trial
    pieces.append(kept)
    return pieces
