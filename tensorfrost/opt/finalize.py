"""Kernel finalization: name the kernels and list what each one needs from the host.

Guarantees afterwards: every kernel node has a ``contract`` (``ir.node.KernelContract``):
its ``index`` (dispatch order of first appearance), ``name``, ``buffers`` (memory it reads
or writes, in first-use order), ``written`` (the subset it writes) and ``uniforms`` (host
scalars it reads: dims of its grid and of its buffers, loop counters of host loops, host
arithmetic), so emitters need no analysis; and every break/continue is in the same kernel
as its loop (or both are host code).
"""

from __future__ import annotations

from ..emit.names import ascii_name
from ..ir.errors import InternalError
from ..ir.node import KernelContract, Node, Program, walk
from ..ir.ops import ALLOC, CONST, INPUT, KERNEL, LOAD, LOOP, SET
from .analysis import is_write, mutable_nodes


def _contract(kernel: Node, index: int, name: str, mutable: set) -> KernelContract:
    inside = set(walk(kernel.body))
    buffers, written, uniforms = [], set(), []

    def uniform(node: Node) -> None:
        if node not in inside and node not in uniforms and node.op not in (INPUT, ALLOC):
            if node.op is CONST and node.rank == 0 and node not in mutable:
                return  # constants are written into the code
            uniforms.append(node)

    for dim in kernel.shape:
        uniform(dim)
    for node in walk(kernel.body):
        if node.op is LOAD or (is_write(node) and node.op is not SET):
            memory = node.args[0]
            if memory not in buffers:
                buffers.append(memory)
                for dim in memory.shape:
                    uniform(dim)
            if is_write(node):
                written.add(memory)
            operands = node.args[1:]
        else:
            operands = node.args
        for arg in operands:
            uniform(arg)
        for dim in node.shape:
            uniform(dim)
    return KernelContract(index, name, tuple(buffers), frozenset(written), tuple(uniforms))


def _check_jump(node: Node) -> None:
    """A jump must reach its loop without crossing a kernel boundary: compilers reject a
    break outside a loop, and a host loop cannot be left from inside a kernel."""
    for owner in node.owner_chain():
        if owner.op is LOOP:
            return
        if owner.op is KERNEL:
            break
    raise InternalError(f"a {node.op.name} was placed outside its loop while compiling (from {node.location}); "
                        "this is a bug in tensorfrost, please report it", node.location)


def run(program: Program) -> Program:
    mutable = mutable_nodes(program)
    count = 0
    stem = ascii_name(program.name, "program")  # kernel names are identifiers of the generated code
    for node in program.walk():
        if node.op.jump:
            _check_jump(node)
        if node.op is KERNEL:
            node.contract = _contract(node, count, f"{stem}_k{count}", mutable)
            count += 1
    return program
