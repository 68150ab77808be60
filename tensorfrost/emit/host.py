"""What every host emitter shares: the host part of a compiled program (its root scope:
input checks, allocations, kernel dispatches in host loops and ifs, readbacks, outputs) is
spelled once per target, C++ for the cpu backend (``backend_cpu/emit_cpp``), C++ against
the TFContext API for codegen mode (``backend_codegen/cpp_host``) and Python for the
OpenGL backend (``backend_gl/host``).

Each target spells one method per host op::

    stmt_input  stmt_input_dim  stmt_assert  stmt_alloc  stmt_free  stmt_readback
    stmt_region stmt_kernel     stmt_loop    stmt_if     stmt_break stmt_continue
    stmt_set    stmt_const      (and scalar arithmetic)

This base decides what is target-independent: which sizes an allocation must check
before it happens, with the words of ``runtime.shape_problem``, and how errors name a
buffer."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..ir import dtypes as dt
from ..ir.node import Node
from ..ir.ops import CONST
from ..runtime import MAX_ELEMENTS, allocation_labels


@dataclass
class SizeCheck:
    """A check of an allocation's size computed at run time: ``dims`` (indices into the
    allocation's shape) must be non-negative (``negative``) or hold at most MAX_ELEMENTS
    elements together (``too_many``); ``message`` has ``{0}``, ``{1}``... for their values."""

    kind: str
    dims: list[int]
    message: str


class HostEmitter:
    """The shared part of the host emitters (a mixin: the targets' own bases walk the tree).
    Subclasses set ``program`` and ``mutable``."""

    program = None
    mutable: set = frozenset()
    _labels: dict | None = None
    locate_buffers = True  # name the user's line of a buffer in messages (not in code shipped elsewhere)

    def allocation_label(self, node: Node) -> str:
        """How errors name the buffer ``node`` allocates: ``tensor 'x' (made at file:line)``."""
        if not self.locate_buffers:
            return f"tensor '{node.name or 'buffer'}'"
        if self._labels is None:
            self._labels = allocation_labels(self.program)
        return self._labels[node]

    def static_size(self, size: Node) -> int | None:
        """The value of a dim known when compiling, else None."""
        if size.op is CONST and size not in self.mutable:
            return int(size.attrs["value"])
        return None

    def size_checks(self, node: Node) -> list[SizeCheck]:
        """The checks an allocation needs before it happens: a size that may be negative, and
        a count of elements that may exceed 32-bit indexing (one int32 dim never does)."""
        label = self.allocation_label(node)
        static = [self.static_size(size) for size in node.shape]
        checks = [SizeCheck("negative", [axis], f"{label}: shape[{axis}] is {{0}}, a negative size")
                  for axis, known in enumerate(static) if known is None or known < 0]
        if None in static:
            too_many = node.rank > 1 or node.shape[0].dtype is not dt.int32
        else:
            too_many = math.prod(static) > MAX_ELEMENTS
        if too_many:
            listed = ", ".join(f"{{{k}}}" for k in range(node.rank))
            checks.append(SizeCheck("too_many", list(range(node.rank)),
                                    f"{label}: shape [{listed}] has more elements than the {MAX_ELEMENTS} a "
                                    "tensor can hold"))
        return checks
