"""Shrink kernel grids along axes nothing depends on.

If no node of a kernel reads the thread index along an axis, every thread along that axis
does exactly the same work: redundant stores of the same values, or (for a read-modify-
write like ``b[0, j] -= a[1, j]`` over a 2-D grid) a race that numpy's buffered semantics
would resolve as a single update. Running the axis once gives numpy's result, always, and
saves the work. Kernels with scatters keep their grid: each thread's atomic update counts.

Guarantees afterwards: every axis of a kernel's grid is read by some node of the kernel,
except in kernels that scatter.
"""

from __future__ import annotations

from ..ir import dtypes as dt
from ..ir.node import Node, Program, Scope, walk
from ..ir.ops import DIM_ID, KERNEL, OPS
from ..ir.shapes import shapes_equal


def _shrink(kernel: Node) -> None:
    nodes = list(walk(kernel.body))
    if any(n.op.atomic for n in nodes):
        return
    grid = kernel.shape
    used = {n.attrs["axis"] for n in nodes if n.op is DIM_ID and shapes_equal(n.shape, grid)}
    if len(used) == len(grid):
        return
    one = Node(OPS["const"], dt.int32, (), attrs={"value": 1})
    one.scope = kernel.scope
    kernel.scope.nodes.insert(kernel.scope.nodes.index(kernel), one)
    new_grid = tuple(d if axis in used else one for axis, d in enumerate(grid))
    for node in nodes:
        if shapes_equal(node.shape, grid):
            node.shape = new_grid
    kernel.shape = new_grid


def _visit(scope: Scope) -> None:
    for node in list(scope.nodes):
        if node.op is KERNEL:
            _shrink(node)
        elif node.body is not None:
            _visit(node.body)


def run(program: Program) -> Program:
    _visit(program.root)
    return program
