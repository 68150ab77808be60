"""What every host emitter shares: the host part of a compiled program (its root scope:
input checks, allocations, kernel dispatches in host loops and ifs, readbacks, outputs) is
spelled once per target, C++ for the cpu backend (``backend_cpu/emit_cpp``), C++ against
the TFContext API for codegen mode (``backend_codegen/cpp_host``) and Python for the
OpenGL backend (``backend_gl/host``).

Each target spells one method per host op::

    stmt_input  stmt_input_dim  stmt_assert  stmt_alloc  stmt_free  stmt_readback
    stmt_region stmt_kernel     stmt_loop    stmt_if     stmt_break stmt_continue
    stmt_set    stmt_const      (and scalar arithmetic)

This base decides what is target-independent: which sizes an allocation (or a kernel's
grid) must check before it happens, with the words of ``runtime.shape_problem``, and how
errors name a buffer. A size computed on the host (``N * N``) is checked as the number it
stands for, computed without wrapping (``exact_size``: doubles in C++, ints in Python),
and every product or sum on the way to it must fit in the 32 bits it is computed in."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..ir import dtypes as dt
from ..ir.errors import DebugNanError
from ..ir.node import Node
from ..ir.ops import ALLOC, CONST, ELEMENTWISE
from ..runtime import MAX_ELEMENTS, allocation_labels
from .clike import value_ranges

_EXACT_NODES = 64  # the most host nodes one exact size expands (sizes are short expressions)


@dataclass
class SizeCheck:
    """A check of a size computed at run time. ``negative``: the dim ``dims[0]`` must be
    non-negative; ``too_many``: ``dims`` must hold at most MAX_ELEMENTS elements together;
    ``wrapped``: the host value ``value`` computed on the way to ``dims[0]`` must equal its
    exact value. ``message`` has ``{0}``, ``{1}``... for the exact values of the dims (of
    ``value`` and its 32-bit value for ``wrapped``)."""

    kind: str
    dims: list[int]
    message: str
    value: Node | None = None


class HostEmitter:
    """The shared part of the host emitters (a mixin: the targets' own bases walk the tree).
    Subclasses set ``program`` and ``mutable`` (and spell ``exact_leaf`` if not C++)."""

    program = None
    mutable: set = frozenset()
    _labels: dict | None = None
    _ranges: dict | None = None
    locate_buffers = True  # name the user's line of a buffer in messages (not in code shipped elsewhere)

    def allocation_label(self, node: Node) -> str:
        """How errors name the buffer ``node`` allocates: ``tensor 'x' (made at file:line)``,
        or the grid of a kernel: ``the elements of a kernel (at file:line)``."""
        if node.op is not ALLOC:
            located = next((n.location for n in node.subtree() if n.location is not None), None)
            where = f" (at {located})" if located is not None and self.locate_buffers else ""
            return f"the elements of a kernel{where}"
        if not self.locate_buffers:
            return f"tensor '{node.name or 'buffer'}'"
        if self._labels is None:
            self._labels = allocation_labels(self.program)
        return self._labels[node]

    def finite_checks(self, kernel: Node) -> list[tuple[Node, str]]:
        """Debug mode ``"nan"``: (buffer, message) of each float buffer ``kernel`` writes, to
        check for NaN and infinities after it; the message names the kernel, the buffer and
        the user's line of the value written (none of this when the mode is off)."""
        if self.program.debug != "nan":
            return []
        checks = []
        for buffer in kernel.contract.buffers:
            if buffer.op is not ALLOC or buffer not in kernel.contract.written or not buffer.dtype.is_float:
                continue
            store = next((n for n in kernel.subtree() if n.op.writes and n.args and n.args[0] is buffer), None)
            value = store.args[1] if store is not None and len(store.args) > 1 else store
            where = next((n.location for n in (value, store) if n is not None and n.location is not None), None)
            message = (f"{DebugNanError.PREFIX} kernel {kernel.contract.name} wrote a NaN or an infinity into "
                       f"{self.allocation_label(buffer)}" + (f", the value computed at {where}" if where else ""))
            checks.append((buffer, message))
        return checks

    def static_size(self, size: Node) -> int | None:
        """The value of a dim known when compiling, else None."""
        if size.op is CONST and size not in self.mutable:
            return int(size.attrs["value"])
        return None

    # -- sizes as the numbers they stand for ----------------------------------------------------

    def computed(self, node: Node) -> bool:
        """Whether ``node`` is host integer arithmetic that may wrap (``+ - *``...)."""
        return (node.op.kind == ELEMENTWISE and "exact" in node.op.emit and node.dtype.is_integer
                and node not in self.mutable)

    def exact_leaf(self, node: Node) -> str:
        """The value of ``node`` as an exact number in the target's spelling (C++'s: a double)."""
        return f"(double)({self.value(node)})"

    def exact_size(self, node: Node, budget: list | None = None) -> str:
        """``node``'s value as the number it stands for: its host arithmetic spelled (by the op
        table's ``exact`` templates) on exact numbers instead of 32-bit integers."""
        budget = budget if budget is not None else [_EXACT_NODES]
        if not self.computed(node) or budget[0] <= 0:
            return self.exact_leaf(node)
        budget[0] -= 1
        return node.op.emit["exact"].format(*[self.exact_size(a, budget) for a in node.args])

    def fits(self, node: Node) -> bool:
        """Whether ``node``'s exact value provably fits in int32 (``clike.value_ranges``)."""
        if self._ranges is None:
            self._ranges = value_ranges(self.program.walk())
        return node in self._ranges

    def wrapping_steps(self, dim: Node, itself: bool) -> list[Node]:
        """The host values on the way to ``dim`` whose arithmetic may wrap and that reach it
        through other integer ops (``(N * N) // N``): each must equal its exact value. With
        ``itself``, the dim too if it is computed (an allocation checks its exact value's range
        instead, which also rules out wrapping)."""
        steps, stack, seen = [], [(dim, True)], set()
        while stack and len(seen) < _EXACT_NODES:
            node, top = stack.pop()
            if node in seen or node.op.kind != ELEMENTWISE or not node.dtype.is_integer or node in self.mutable:
                continue
            seen.add(node)
            inside = self.computed(node)
            if inside and top and (itself or node is not dim) and not self.fits(node):
                steps.append(node)
            stack.extend((a, not inside) for a in node.args)
        return steps

    def size_checks(self, node: Node) -> list[SizeCheck]:
        """The checks an allocation needs before it happens: a size that may be negative, a
        count of elements that may exceed 32-bit indexing (one int32 dim read from an input
        never does), and host arithmetic on the way to a size that may wrap. A kernel's grid
        needs only the last (a grid's dims never hold more than a tensor's)."""
        label = self.allocation_label(node)
        kernel = node.op is not ALLOC
        # first the host values that wrapped on the way to a size: they are why it is wrong
        checks = [SizeCheck("wrapped", [axis], f"{label}: {WRAPPED.format(axis=axis)}", step)
                  for axis, dim in enumerate(node.shape) for step in self.wrapping_steps(dim, itself=kernel)]
        if kernel:
            return checks
        static = [self.static_size(size) for size in node.shape]
        checks += [SizeCheck("negative", [axis], f"{label}: shape[{axis}] is {{0}}, a negative size")
                   for axis, known in enumerate(static) if known is None or known < 0]
        if None in static:
            dim = node.shape[0]
            too_many = node.rank > 1 or dim.dtype is not dt.int32 or (self.computed(dim) and not self.fits(dim))
        else:
            too_many = math.prod(static) > MAX_ELEMENTS
        if too_many:
            listed = ", ".join(f"{{{k}}}" for k in range(node.rank))
            checks.append(SizeCheck("too_many", list(range(node.rank)),
                                    f"{label}: shape [{listed}] has more elements than the {MAX_ELEMENTS} a "
                                    "tensor can hold"))
        return checks

    def c_size_check(self, node: Node, check: SizeCheck, holds: bool = False) -> tuple[str, list[str]]:
        """(the condition under which ``check`` fails, or with ``holds`` passes, the values of
        its message as long longs) in C++: exact sizes are doubles, whose products cannot
        overflow, and rounding cannot move a size across 2^31 - 1."""
        compare = dict(zip(("!=", "<", ">"), ("==", ">=", "<="))) if holds else {c: c for c in ("!=", "<", ">")}
        if check.kind == "wrapped":
            exact, value = self.exact_size(check.value), f"(long long)({self.value(check.value)})"
            return f"{exact} {compare['!=']} (double){value}", [f"tf_exact_value({exact})", value]
        exact, values = [], []
        for axis in check.dims:
            dim = node.shape[axis]
            if self.computed(dim):
                exact.append(self.exact_size(dim))
                values.append(f"tf_exact_value({exact[-1]})")
            else:
                values.append(f"(long long)({self.value(dim)})")
                exact.append(f"(double){values[-1]}")
        if check.kind == "negative":
            return f"{exact[0] if self.computed(node.shape[check.dims[0]]) else values[0]} {compare['<']} 0", values
        return " * ".join(exact) + f" {compare['>']} {MAX_ELEMENTS}.0", values


# A host value on the way to a size wrapped (``{{0}}``: its exact value, ``{{1}}``: the wrapped one).
WRAPPED = ("shape[{axis}] is computed through {{0}}, which does not fit in the 32-bit integers sizes are "
           "computed in (it wraps to {{1}})")
