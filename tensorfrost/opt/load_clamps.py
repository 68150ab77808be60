"""Drop clamps that repeat a load's own clamping.

Reading a value at a shifted index (``u[i - 1, j]`` of a computed ``u``) clamps the index to
the value's shape: ``load(buf, clamp(i - 1, 0, n - 1), clamp(j, 0, m - 1))``. A load clamps
its indices to its memory's shape anyway, so such a clamp changes nothing, but it hides the
plain ``i - 1`` from the emitters: they then neither see the stencil's offsets (to split the
row into clamped borders and a contiguous interior) nor a contiguous ``j``, and gather.

Guarantees afterwards: no load index is ``clamp(x, 0, d - 1)`` for its memory's dim ``d``.
"""

from __future__ import annotations

from .. import optimizations
from ..ir.node import Node, Program
from ..ir.ops import CLAMP, LOAD, SUB
from ..ir.shapes import dims_equal, static_value


def _is_last_index(bound: Node, dim: Node) -> bool:
    if static_value(bound) is not None and static_value(dim) is not None:
        return static_value(bound) == static_value(dim) - 1
    return bound.op is SUB and static_value(bound.args[1]) == 1 and dims_equal(bound.args[0], dim)


def run(program: Program) -> Program:
    for node in program.walk():
        if node.op is not LOAD:
            continue
        memory = node.args[0]
        for axis, index in enumerate(node.args[1:]):
            if (index.op is CLAMP and axis < memory.rank and static_value(index.args[1]) == 0
                    and _is_last_index(index.args[2], memory.shape[axis])):
                node.args[1 + axis] = index.args[0]
                optimizations.fired("load_clamps")
    return program
