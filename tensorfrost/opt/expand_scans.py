"""Scan nodes become blocked scans written as tensor code (``tracing/blocked_scan.py``).

Runs after autodiff (which differentiates a scan as one node) and before lowering, which
lowers the loops, loads and stores the expansion builds like any other.

Guarantees afterwards: no ``prefix_sum``, ``prefix_prod``, ``prefix_max`` or ``prefix_min``
node remains.
"""

from __future__ import annotations

from ..ir.builder import using
from ..ir.node import Node, Program
from ..ir.ops import SCAN
from ..tracing.blocked_scan import COMBINE, blocked_scan
from ..tracing.tensor import Tensor
from .rewrite import Rebuilder


def run(program: Program) -> Program:
    """Replace every scan node by its blocked scan."""
    rb = Rebuilder(program)

    def visit(node: Node):
        if node.op.kind != SCAN:
            return None
        combine = COMBINE[node.op.combine]
        with using(rb.builder):
            result, = blocked_scan([Tensor(node.args[0])], node.attrs["axis"], lambda a, b: [combine(a[0], b[0])],
                                   [node.op.identity(node.dtype)], node.attrs.get("exclusive", False),
                                   node.attrs.get("reverse", False))
        return result.node

    return rb.run(visit)
