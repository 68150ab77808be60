"""The scalars the host must know before it runs a kernel: the sizes of tensors and the
operands of run-time checks (fusion, opt/fuse.py, makes them host values). What the host
cannot compute from dims, constants and its loop counters (a rank-0 input, a sum that a
kernel computes) it reads, just before the first use that needs it."""

from __future__ import annotations

from ..ir.node import Node, Program
from ..ir.ops import ASSERT, LOAD, LOOP, OPS
from .analysis import is_write


def dim_cones(program: Program) -> set[Node]:
    """Scalar nodes that shapes and run-time checks are computed from: the host must know them."""
    needed: set[Node] = set()
    stack = [d for n in program.walk() for d in (n.args if n.op is ASSERT else n.shape)]
    while stack:
        node = stack.pop()
        if node in needed or node.rank != 0:
            continue
        needed.add(node)
        if node.op.kind == "elementwise":
            stack.extend(node.args)
        elif node.op is LOAD:
            stack.extend(node.args[1:])
    return needed


def read_for_host(program: Program, host: set, mutable: set) -> bool:
    """Make every scalar that a shape or a check needs a host value: the host computes the
    arithmetic on the way to it (``n + 1``, ``(n - p * p) // p``) and reads (a ``load``,
    which the memory pass turns into a readback) each value it cannot compute, a rank-0
    input or what a kernel computes (a sum, a count), just before the first use that needs
    it, so that the kernel computing it runs before. Returns whether it placed any read."""
    cone, unknown = set(), set()  # the host's arithmetic; the values it must read
    stack = [d for n in program.walk() for d in (n.args if n.op is ASSERT else n.shape)]
    while stack:
        node = stack.pop()
        if node in host or node in cone or node in unknown or node.rank or node.op is LOOP:
            continue
        if node.op is LOAD or (node.op.kind == "elementwise" and node not in mutable):
            cone.add(node)
            stack.extend(node.args[1:] if node.op is LOAD else node.args)
        else:
            unknown.add(node)
    reads: dict = {}  # value (and, for a variable, the scope) -> the host's read of it
    for node in list(program.walk()):
        if is_write(node):  # a variable's read before this write is out of date after it
            reads = {key: read for key, read in reads.items() if key[0] is not node.args[0]}
        first = 1 if node.op is LOAD else 0  # (a load's memory is read where it is)
        operands = node.args[first:] if node.op is ASSERT or node in cone else []
        for value in {v: None for v in [*node.shape, *operands] if v in unknown}:
            key = (value, node.scope if value in mutable else None)
            if key not in reads:
                reads[key] = _host_read(value, node, value in mutable)
            node.shape = tuple(reads[key] if d is value else d for d in node.shape)
            if operands:
                node.args[first:] = [reads[key] if a is value else a for a in node.args[first:]]
    return bool(unknown)


def _host_read(value: Node, user: Node, variable: bool) -> Node:
    """A load of ``value`` placed before ``user`` (a variable's value there), or before the
    node around ``user`` in ``value``'s scope (a value's read then serves every later use)."""
    anchor = user
    if not variable:
        anchor = next((n for n in (user, *user.owner_chain()) if n.scope is value.scope), user)
    read = Node(OPS["load"], value.dtype, (), [value], location=user.location)
    anchor.scope.insert_before(anchor, [read])
    return read
