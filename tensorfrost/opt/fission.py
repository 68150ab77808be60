"""Kernel fission: a kernel that touches more buffers than the target can bind in one
shader, or holds more operations that drivers expand into long code (sin, exp, pow: op-table
cost ``EXPANDED_COST`` or more) than ``SHADER_EXPANDED_OPS``, runs as several kernels, one
after another. (llvmpipe's compile time grows with the square of their number in a shader:
100 sins took 0.9 s, 1,000 took 22 s and 3,000, a Python loop unrolled by tracing, 257 s.)

Fusion never lets one element of a kernel read what another element writes (except through
atomics), so running the statements of the kernel body in consecutive dispatches, each
element doing its part of every dispatch in order, computes the same thing. What one part
computes and a later part reads goes through a buffer of the kernel's shape; a kernel-local
variable used by several parts lives in such a buffer. Only the top level of the body is
cut: a loop that alone needs too many buffers stays whole (the backend reaches the buffers
over its limit through an arena, at the cost of copies that fission avoids).

Runs only when the program carries a ``max_buffers`` limit (the OpenGL backend sets it to
the driver's storage-block limit), and only on kernels that read a buffer they write or
that have an output whose slice alone needs too many buffers: the others the backend
splits by recomputing each output's slice, which needs no buffers.
Guarantees afterwards: every such kernel whose top level can be cut touches at most
``max_buffers`` buffers, and holds at most ``SHADER_EXPANDED_OPS`` expanded operations where
no single top-level statement holds more.
"""

from __future__ import annotations

import warnings

from ..ir import dtypes as dt
from ..ir.errors import warning_level
from ..ir.node import Node, Program, walk
from ..ir.ops import CONST, DIM_ID, ELEMENTWISE, KERNEL, LOAD, OPS, SET
from .analysis import backward_slice, is_write, slice_buffers

EXPANDED_COST = 8.0  # sin, cos, exp, log, pow, atan2...: the driver's code for each is long
SHADER_EXPANDED_OPS = 64  # per shader: about 0.5 s of llvmpipe's compiler


def expanded_ops(node: Node) -> int:
    """Operations of ``node`` and its body that drivers expand into long code."""
    return sum(1 for n in node.subtree() if n.op.kind == ELEMENTWISE and n.op.cost >= EXPANDED_COST)


def _make(op: str, args=(), dtype=None, shape=(), attrs=None, name=None) -> Node:
    return Node(OPS[op], dtype, shape, args, attrs, name=name)


def _memory(node: Node) -> set:
    """The buffers ``node`` and its body load from or write to."""
    found = set()
    for n in [node, *(walk(node.body) if node.body is not None else ())]:
        if n.op is LOAD or (is_write(n) and n.op is not SET):
            found.add(n.args[0])
    return found


def _free(node: Node, mutable: set) -> bool:
    """Values every part recomputes instead of passing: grid indices and constants."""
    return node.op is DIM_ID or (node.op is CONST and node not in mutable)


class _Fission:
    def __init__(self, kernel: Node, limit: int, mutable: set):
        self.kernel, self.limit, self.mutable = kernel, limit, mutable
        self.top = list(kernel.body.nodes)
        self.index = {node: k for k, node in enumerate(self.top)}
        # for each top-level node: the top-level values its subtree reads (or sets)
        self.reads = []
        for node in self.top:
            used = set()
            for n in [node, *(walk(node.body) if node.body is not None else ())]:
                used.update(a for a in n.args if a in self.index and a is not node)
            self.reads.append(used)
        self.readers: dict[Node, list[int]] = {}  # top-level value -> the positions that read it
        for k, used in enumerate(self.reads):
            for value in used:
                self.readers.setdefault(value, []).append(k)
        self.expanded = [expanded_ops(node) for node in self.top]

    def parts(self) -> list[list[int]] | None:
        """Consecutive ranges of top-level positions, each within the limits; None if the
        kernel fits or cannot be cut."""
        movable = [k for k, n in enumerate(self.top) if not _free(n, self.mutable)]
        if len(set().union(*(_memory(self.top[k]) for k in movable))) <= self.limit and \
                sum(self.expanded) <= SHADER_EXPANDED_OPS:
            return None
        parts, current, expanded = [], [], 0
        for k in movable:
            too_many = expanded + self.expanded[k] > SHADER_EXPANDED_OPS
            if current and (too_many or self._cost(current + [k]) > self.limit):
                parts.append(current)
                current, expanded = [], 0
            current.append(k)
            expanded += self.expanded[k]
        parts.append(current)
        return parts if len(parts) > 1 and all(self._cost(p) <= self.limit for p in parts) else None

    def _cost(self, part: list[int]) -> int:
        """Buffers a part would bind: its memory, the values it takes from earlier parts and
        the values it passes on (estimated with everything after it as later)."""
        first, last = part[0], part[-1]
        memory = set().union(*(_memory(self.top[k]) for k in part))
        taken = {v for k in part for v in self.reads[k]
                 if self.index[v] < first and not _free(v, self.mutable)}
        passed = {self.top[k] for k in part if self.readers.get(self.top[k], [-1])[-1] > last}
        return len(memory) + len(taken) + len(passed)

    def apply(self, parts: list[list[int]]) -> list[Node]:
        """The nodes that replace the kernel: buffers for what crosses parts, then a kernel
        per part."""
        part_of = {k: p for p, part in enumerate(parts) for k in part}
        crossing = []
        for k, node in enumerate(self.top):
            if k in part_of and any(part_of.get(j, part_of[k]) != part_of[k] for j in self.readers.get(node, ())):
                crossing.append(node)
        buffers = {v: _make("alloc", dtype=v.dtype, shape=self.kernel.shape, name=v.name or "part")
                   for v in crossing}
        out = list(buffers.values())
        for p, part in enumerate(parts):
            out.append(self._part(p, part, part_of, buffers))
        return out

    def _part(self, p: int, part: list[int], part_of: dict, buffers: dict) -> Node:
        kernel = _make("kernel", shape=self.kernel.shape)
        kernel.body = type(self.kernel.body)(kernel)
        grid = [_make("dim_id", dtype=dt.int32, shape=self.kernel.shape, attrs={"axis": a})
                for a in range(self.kernel.rank)]
        copies = {}
        body = list(grid)
        for node in self.top:  # cheap values every part recomputes
            if _free(node, self.mutable) and node.op is CONST:
                copies[node] = _make("const", dtype=node.dtype, shape=node.shape, attrs=node.attrs)
                body.append(copies[node])
        own = {n: grid[n.attrs["axis"]] for n in self.top if n.op is DIM_ID}
        copies.update(own)
        for value, buffer in buffers.items():  # values from earlier parts
            if part_of[self.index[value]] < p and any(value in self.reads[k] for k in part):
                if value in self.mutable:
                    continue  # a variable: read where it is used, below
                copies[value] = _make("load", [buffer, *grid], dtype=value.dtype, shape=self.kernel.shape)
                body.append(copies[value])
        for k in part:
            body.append(self.top[k])
            value = self.top[k]
            if value in buffers and value not in self.mutable:
                body.append(_make("store", [buffers[value], value, *grid], shape=self.kernel.shape))
        kernel.body.set_nodes(body)
        for node in walk(kernel.body):
            node.args = [copies.get(a, a) for a in node.args]
            node.shape = tuple(copies.get(d, d) for d in node.shape)
        self._variables_in_memory(kernel, buffers, grid)
        return kernel

    def _variables_in_memory(self, kernel: Node, buffers: dict, grid: list) -> None:
        """Kernel-local variables shared by parts live in their buffer: the declaration and
        every set store into it, every read loads from it."""
        for variable, buffer in buffers.items():
            if variable not in self.mutable:
                continue
            for node in list(walk(kernel.body)):
                if node is variable:
                    _replace(node, _make("store", [buffer, node, *grid], shape=kernel.shape), after=True)
                elif node.op is SET and node.args[0] is variable:
                    _replace(node, _make("store", [buffer, node.args[1], *grid], shape=kernel.shape))
                elif variable in node.args[1 if node.op is SET else 0:]:
                    load = _make("load", [buffer, *grid], dtype=variable.dtype, shape=kernel.shape)
                    node.scope.insert_before(node, [load])
                    node.args = [load if a is variable and not (node.op is SET and k == 0) else a
                                 for k, a in enumerate(node.args)]


def _replace(old: Node, new: Node, after: bool = False) -> None:
    nodes = old.scope.nodes
    position = nodes.index(old)
    new.scope = old.scope
    if after:
        nodes.insert(position + 1, new)
    else:
        nodes[position] = new




def _needs_fission(kernel: Node, limit: int) -> bool:
    """Whether the backend cannot split ``kernel`` by recomputing each output's slice: it reads
    a buffer it writes, or the slice of one output alone needs more than ``limit`` buffers."""
    body = list(walk(kernel.body))
    loaded = {n.args[0] for n in body if n.op is LOAD}
    writes = [n for n in body if is_write(n) and n.op is not SET]
    if any(n.args[0] in loaded for n in writes):
        return True
    if len(_memory(kernel)) <= limit:
        return False
    return any(len(slice_buffers(backward_slice(kernel, [w]))) > limit for w in writes)


def run(program: Program) -> Program:
    limit = program.max_buffers
    if not limit:
        return program
    mutable = {n.args[0] for n in program.walk() if is_write(n)}
    for kernel in [n for n in program.walk() if n.op is KERNEL]:
        if not _needs_fission(kernel, limit) and expanded_ops(kernel) <= SHADER_EXPANDED_OPS:
            continue
        fission = _Fission(kernel, limit, mutable)
        parts = fission.parts()
        if parts is None:
            continue
        if sum(fission.expanded) > 4 * SHADER_EXPANDED_OPS:
            _warn_large(program, sum(fission.expanded), len(parts))
        replacement = fission.apply(parts)
        scope = kernel.scope
        position = scope.nodes.index(kernel)
        for node in replacement:
            node.scope = scope
        scope.nodes[position:position + 1] = replacement
    return program


def _warn_large(program: Program, count: int, parts: int) -> None:
    warnings.warn(f"tensorfrost: a kernel of {program.name} holds {count} operations that shader compilers expand "
                  f"into long code (sin, exp, pow...), so it runs as {parts} shaders; their first run compiles them "
                  "all (llvmpipe: about 8 ms for each such operation). Such code usually comes from a Python loop "
                  "unrolled while tracing (a for over Python ints, tf.static_range); tf.loop, or range(...) in a "
                  "kernel program, keeps it one loop", stacklevel=warning_level())
