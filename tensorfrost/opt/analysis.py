"""Facts about a program that several passes need: which nodes are mutable memory, where
they are written, and whether a value read at one point is still the same at another."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..ir.node import Node, Program, operands, positions, scope_end, walk
from ..ir.ops import (
    ADD,
    ALLOC,
    CLAMP,
    CONST,
    DIM_ID,
    DIV,
    ELEMENTWISE,
    INPUT,
    INPUT_DIM,
    LOAD,
    LOOP,
    MOD,
    OPS,
    SET,
    SOURCE,
    STORE,
    SUB,
)
from ..ir.shapes import dims_equal, shapes_equal, static_value

# The cost model of the passes that recompute values instead of storing them (reindex,
# recompute): an op costs its table entry's ``cost``, a read of memory MEMORY_READ, and a
# value that recomputing could change (memory written in between) INFINITE.
MEMORY_READ = 128.0
INFINITE = float("inf")


def is_write(node: Node) -> bool:
    """Sets of variables, stores and scatters into memory: they change their first arg."""
    return node.op.writes


def indexed_access(node: Node) -> bool:
    """Loads, stores and scatters: accesses of memory at an index (args: memory, ...)."""
    return node.op is LOAD or (node.op.writes and node.op is not SET)


def mutable_nodes(program: Program) -> set[Node]:
    """Nodes whose value is changed after they are defined (targets of writes)."""
    return {n.args[0] for n in program.walk() if is_write(n)}


def set_variables(nodes) -> set[Node]:
    """The variables among ``nodes``' writes that ``set`` replaces whole: what emitters
    declare mutable (after the memory pass, memory is written by stores and scatters)."""
    return {n.args[0] for n in nodes if n.op is SET}


def kernel_traffic(kernel: Node) -> list[tuple[Node, int]]:
    """(buffer, passes) for each buffer of a finalized kernel's contract: how many times a
    launch moves it whole, once if it is read (loads, the read of an atomic), once more if
    written. The profiler's estimate of a kernel's bytes: whole buffers, not the elements touched."""
    read = {n.args[0] for n in walk(kernel.body) if n.op is LOAD or n.op.atomic}
    written = kernel.contract.written
    return [(b, (b in read) + (b in written)) for b in kernel.contract.buffers]


class MutationInfo:
    """Where each mutable node is written, by program position.

    ``unchanged(memory, a, b)``: no write to ``memory`` can happen after position ``a``
    and before position ``b`` (b later than a), counting every write inside a loop that
    contains ``b`` but not ``a`` (it may run between them on a later iteration).
    """

    def __init__(self, program: Program):
        self.pos = positions(program)
        self.writes: dict[Node, list[int]] = {}
        self.loops: list[tuple[int, int]] = []
        for node in program.walk():
            if is_write(node):
                self.writes.setdefault(node.args[0], []).append(self.pos[node])
            if node.op is LOOP:
                self.loops.append((self.pos[node], scope_end(node, self.pos)))

    @property
    def mutable(self):
        """The written nodes (a live view: variables added later are included)."""
        return self.writes

    def position(self, node: Node, default: int) -> int:
        return self.pos.get(node, default)

    def unchanged(self, memory: Node, a: int, b: int) -> bool:
        writes = self.writes.get(memory)
        if not writes:
            return True
        if any(a < w < b for w in writes):
            return False
        for start, end in self.loops:
            if start <= b <= end and not start <= a <= end and any(start < w <= end for w in writes):
                return False
        return True

    def add_variable(self, node: Node, position: int) -> None:
        """Register a variable created by a pass (written at ``position``)."""
        self.writes.setdefault(node, []).append(position)


def is_memory(node: Node, mutable) -> bool:
    """Nodes that live in memory and are read with loads: inputs, buffers, mutable nodes."""
    return node.op in (INPUT, ALLOC) or node in mutable


def is_cheap_source(node: Node) -> bool:
    return node.op.kind == SOURCE and node.op in (CONST, DIM_ID)


def reads_only_values(node: Node) -> bool:
    """True for pure elementwise nodes and sources (what can be recomputed anywhere)."""
    return node.op.kind == ELEMENTWISE or is_cheap_source(node) or node.op is INPUT_DIM


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


def slice_buffers(kept: set) -> set:
    """The buffers the nodes of a slice load from or write to."""
    return {n.args[0] for n in kept if n.op in (LOAD, STORE) or n.op.atomic}


# -- ranges of index arithmetic: what slices and tf.index_grid build ------------------------------
#
# An int32 scalar expression is a linear form (atoms with integer coefficients, and a constant);
# a claim ``form <= 0`` is proven by replacing atoms by their bounds (a clamp is at most its upper
# end, a loop counter at least its start, a size at least 0, ...) until only a constant is left.

_MAX, _MIN, _FLOORDIV, _MUL = OPS["max"], OPS["min"], OPS["floordiv"], OPS["mul"]
_DEPTH = 8  # bounds substituted before a proof gives up


def shift_in_range(offset: Node | None, extent: Node, dim: Node) -> bool:
    """True if ``e + offset`` lies in ``[0, dim)`` for every ``e`` in ``[0, extent)`` (no
    ``offset``: 0), proven from how the extent was computed (``b[2:]``, ``tf.index_grid``):
    an access of a shifted grid index that clamping never moves."""
    while True:  # wrappers that are positive only where their argument is, and at most it there
        if extent.op is _MAX and any(static_value(a) == 0 for a in extent.args):
            extent = next(a for a in extent.args if static_value(a) != 0)
        elif extent.op is _FLOORDIV and (static_value(extent.args[1]) or 0) > 0:
            extent = extent.args[0]
        else:
            break
    if offset is None:
        return at_most(extent, dim)
    return nonnegative(offset) and _nonpositive(_form([(extent, 1), (offset, 1), (dim, -1)]))


def nonnegative(node: Node) -> bool:
    """True if the int32 scalar ``node`` is provably >= 0."""
    return _nonpositive(_form([(node, -1)]))


def at_most(node: Node, bound: Node) -> bool:
    """True if the int32 scalar ``node`` is provably <= ``bound``."""
    return _nonpositive(_form([(node, 1), (bound, -1)]))


def factors(size: Node) -> list:
    """The factors of a product of sizes (``[size]`` if it is not a product)."""
    return factors(size.args[0]) + factors(size.args[1]) if size.op is _MUL else [size]


def product_within(parts: list, bounds: list) -> bool:
    """True if the product of the sizes ``parts`` is provably at most the product of the
    sizes ``bounds``: each part at most a bound of its own, the bounds left over at least 1."""
    values, limits = [static_value(p) for p in parts], [static_value(b) for b in bounds]
    if None not in values and None not in limits:
        return math.prod(values) <= math.prod(limits)
    left = list(bounds)
    for part in parts:
        if static_value(part) == 1:
            continue
        match = next((b for b in left if at_most(part, b)), None)
        if match is None:
            return False
        left.remove(match)
    return all((static_value(b) or 0) >= 1 for b in left)


def _form(terms, form: dict | None = None) -> dict:
    """The linear form (atom -> coefficient; None -> the constant) of ``sum(c * term)``
    (a term: a node, an int, or a form)."""
    form = {None: 0} if form is None else form
    for node, scale in terms:
        if isinstance(node, dict):  # a form already
            form[None] += scale * node[None]
            _form([(atom, scale * c) for atom, c in node.items() if atom is not None], form)
            continue
        value = static_value(node) if isinstance(node, Node) else node
        if value is not None:
            form[None] += scale * value
        elif node.op is ADD:
            _form([(node.args[0], scale), (node.args[1], scale)], form)
        elif node.op is SUB:
            _form([(node.args[0], scale), (node.args[1], -scale)], form)
        elif node.op is _MUL and any(static_value(a) is not None for a in node.args):
            constant, other = node.args if static_value(node.args[0]) is not None else node.args[::-1]
            _form([(other, scale * static_value(constant))], form)
        else:
            atom = next((a for a in form if a is not None and dims_equal(a, node)), node)
            form[atom] = form.get(atom, 0) + scale
    return form


def _nonpositive(form: dict, depth: int = 0) -> bool:
    """True if the linear form is provably <= 0."""
    atoms = [a for a, c in form.items() if a is not None and c != 0]
    if not atoms:
        return form[None] <= 0
    if depth >= _DEPTH:
        return False
    for atom in atoms:
        coefficient = form[atom]
        bounds = _bounds(atom, upper=coefficient > 0)
        if bounds is None:
            continue
        alternatives, every = bounds
        rest = {a: c for a, c in form.items() if a is not atom}
        proofs = (_nonpositive(_form([(b, coefficient)], dict(rest)), depth + 1) for b in alternatives)
        if all(proofs) if every else any(proofs):
            return True
    return False


def _bounds(atom: Node, upper: bool):
    """(values, every) such that ``atom`` is at most (``upper``) or at least each of
    ``values`` (every: the bound is their max / min, so a claim must hold for each of them;
    else for one), or None if nothing bounds it that way."""
    op, args = atom.op, atom.args
    if op is CLAMP:  # min(max(x, lo), hi)
        return ([args[2]], False) if upper else ([args[1], args[2]], True)
    if op is _MIN:
        return (list(args), False) if upper else (list(args), True)
    if op is _MAX:
        return (list(args), True) if upper else (list(args), False)
    step = static_value(args[2]) if op is LOOP else None
    if step is not None and step > 0:  # begin <= counter < end
        return ([_form([(args[1], 1), (-1, 1)])], False) if upper else ([args[0]], False)
    if op is _FLOORDIV and (static_value(args[1]) or 0) > 0:
        if upper:
            return [args[0], 0], True  # x // s <= max(x, 0)
        return ([0], False) if nonnegative(args[0]) else None
    if op is INPUT_DIM and not upper:
        return [0], False
    return None


# -- where an access reaches memory, and whether two elements can meet there --------------------


@dataclass(frozen=True)
class Place:
    """Where an access reaches memory: ``index`` (the ids of its index nodes, or "id" for
    the element's own place) and whether it ``separates`` the elements of the grid: no two
    of them reach one place through it. ``axes`` holds (grid axis, position in the index,
    id of its uniform shift or None) for each position that is a grid index, shifted within
    the memory's extent; ``needed``, the grid axes of more than one element."""

    index: object
    separates: bool
    axes: frozenset = field(default=frozenset(), compare=False)
    needed: frozenset = field(default=frozenset(), compare=False)


OWN = Place("id", True)


def apart(write, other, by_axes: bool = True) -> bool:
    """True if no element reaches through the access ``other`` a place that another element
    writes through ``write``: both are the same separating place, or (``by_axes``) both hold
    every grid axis at the same positions with the same shifts (``W[b, i, k]`` and
    ``W[b, k, i]`` over ``b``: whatever the rest of the index, elements reach their own ``W[b]``)."""
    if not (isinstance(write, Place) and isinstance(other, Place)):
        return False
    if write == other:
        return write.separates
    if not by_axes:
        return False
    common = {axis for axis, _, _ in write.axes & other.axes}
    return bool(write.axes) and common >= write.needed | other.needed


def place(index: list, memory: Node, grid, uniform) -> Place:
    """The place an access of ``memory`` at ``index`` reaches, from a kernel over ``grid``
    (``uniform(node)``: the node has one value for all elements)."""
    needed = frozenset(axis for axis, dim in enumerate(grid) if static_value(dim) != 1)
    axes = frozenset(_axis_positions(index, memory, grid, uniform))
    if all(i.op is DIM_ID and i.attrs["axis"] == k and shapes_equal(i.shape, grid)
           for k, i in enumerate(index)) and shapes_equal(memory.shape, grid):
        return Place("id", True, axes, needed)  # (== OWN)
    held = _held_axes(index, memory, grid, uniform)
    return Place(tuple(id(i) for i in index), needed <= held, axes, needed)


def _axis_positions(index: list, memory: Node, grid, uniform):
    """(axis, position, id of the shift or None) where ``index`` holds a grid axis plus a
    uniform shift that keeps it inside the memory (so that clamping merges no elements)."""
    for position, (i, dim) in enumerate(zip(index, memory.shape)):
        axis, offset = _shifted_axis(i, grid, uniform)
        if axis is not None and shift_in_range(offset, grid[axis], dim):
            yield axis, position, None if offset is None else id(offset)


def value_place(memory: Node, grid) -> Place:
    """Where a memory used as a value is read: each element's own place, or (a memory
    broadcast to the grid) places other elements read too."""
    return OWN if shapes_equal(memory.shape, grid) else Place(("broadcast", id(memory)), False)


def _held_axes(index: list, memory: Node, grid, uniform) -> set:
    """The grid axes that ``index`` keeps apart inside the memory (so that clamping merges
    no two elements): an axis as an index plus a uniform shift (``T[i + 1]``, slices), axes
    merged row-major into one index (``T[i * M + j]``, local buffers), and an axis split in
    two by a division and its remainder (a view of a reshape)."""
    held = {axis for axis, _, _ in _axis_positions(index, memory, grid, uniform)}
    for i, dim in zip(index, memory.shape):
        merged = _row_major(i, grid)
        if merged is not None and product_within(merged[1], factors(dim)):
            held.update(merged[0])
    for k, rest in enumerate(index):
        axis = _own_axis(rest.args[0], grid) if rest.op is MOD else None
        if axis is None:
            continue
        for m, quotient in enumerate(index):
            if quotient.op in (DIV, _FLOORDIV) and quotient.args[0] is rest.args[0] \
                    and dims_equal(quotient.args[1], rest.args[1]) and at_most(rest.args[1], memory.shape[k]) \
                    and product_within(factors(grid[axis]), [rest.args[1], memory.shape[m]]):
                held.add(axis)
    return held


def _row_major(index: Node, grid):
    """(axes, sizes) if ``index`` is ``((a * S_b + b) * S_c + c)...`` of distinct grid
    indices, each below the size it is multiplied past: it takes each value once, below the
    product of the sizes."""
    axis = _own_axis(index, grid)
    if axis is not None:
        return [axis], [grid[axis]]
    if index.op is not ADD:
        return None
    for scaled, last in (index.args, index.args[::-1]):
        axis = _own_axis(last, grid)
        if axis is None or scaled.op is not _MUL:
            continue
        for outer, size in (scaled.args, scaled.args[::-1]):
            inner = _row_major(outer, grid)
            if inner is not None and axis not in inner[0] and at_most(grid[axis], size):
                return inner[0] + [axis], inner[1] + [size]
    return None


def _shifted_axis(index: Node, grid, uniform) -> tuple:
    """(axis, uniform offset or None) if ``index`` is a grid index plus a uniform value."""
    if _own_axis(index, grid) is not None:
        return _own_axis(index, grid), None
    if index.op is ADD:
        for grid_index, offset in (index.args, index.args[::-1]):
            if _own_axis(grid_index, grid) is not None and uniform(offset):
                return _own_axis(grid_index, grid), offset
    return None, None


def _own_axis(index: Node, grid):
    """The axis of ``index`` if it is an index of the grid, else None."""
    return index.attrs["axis"] if index.op is DIM_ID and shapes_equal(index.shape, grid) else None
