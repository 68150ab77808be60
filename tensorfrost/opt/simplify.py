"""Constant folding and algebraic identities.

Guarantees afterwards: no elementwise node has only constant operands (it is a constant
now, computed with the op's numpy reference, so folding never changes results), and
``x + 0``, ``x - 0``, ``x * 1``, ``x / 1``, integer ``x * 0`` and ``select`` on a constant
condition are gone. Mutable nodes
are left alone (they are variables, not values).
"""

from __future__ import annotations

import numpy as np

from ..ir.node import Node, Program
from ..ir.ops import ADD, CONST, DIV, ELEMENTWISE, MUL, SELECT, SUB
from ..ir.shapes import shapes_equal
from .analysis import mutable_nodes
from .rewrite import Rebuilder


def _const_value(node: Node, mutable):
    if node.op is CONST and node not in mutable:
        return node.attrs["value"]
    return None


def run(program: Program) -> Program:
    mutable = mutable_nodes(program)
    rb = Rebuilder(program)

    def visit(node: Node):
        if node.op.kind != ELEMENTWISE or node in mutable:
            return None
        values = [_const_value(a, mutable) for a in node.args]
        if all(v is not None for v in values):
            with np.errstate(all="ignore"):
                result = node.op.ref(*[np.asarray(v, dtype=a.dtype.numpy) for v, a in zip(values, node.args)])
            value = np.asarray(result).astype(node.dtype.numpy).item()
            return rb.builder.const(value, node.dtype, node.shape)
        return _identity(node, values, mutable)

    return rb.run(visit)


def _identity(node: Node, values: list, mutable) -> Node | None:
    op = node.op
    if op is SELECT and values[0] is not None:
        chosen = node.args[1] if values[0] else node.args[2]
        same = chosen.dtype is node.dtype and shapes_equal(chosen.shape, node.shape)
        return chosen if same and chosen not in mutable else None
    if len(node.args) != 2:
        return None
    a, b = node.args
    va, vb = values

    def keep(x: Node, other_value, neutral) -> bool:
        return (other_value == neutral and x not in mutable and x.dtype is node.dtype
                and shapes_equal(x.shape, node.shape))

    if op in (ADD, SUB) and keep(a, vb, 0):
        return a
    if op is ADD and keep(b, va, 0):
        return b
    if op in (MUL, DIV) and keep(a, vb, 1):
        return a
    if op is MUL and keep(b, va, 1):
        return b
    if op is MUL and node.dtype.is_integer and 0 in (va, vb) and shapes_equal((), node.shape):
        zero = a if va == 0 else b
        return zero if zero.dtype is node.dtype else None
    return None
