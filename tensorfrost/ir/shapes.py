"""Symbolic shapes: comparing dims, normalizing axes.

A dim is a scalar int32 node. Two dims are equal when they are the same node, constants
of the same value, or the same operation on equal dims (``A.shape[1] * 2`` traced twice).
"""

from __future__ import annotations

from .errors import ShapeError
from .node import Node
from .ops import CONST, INPUT, INPUT_DIM


def static_value(dim: Node):
    """The Python int of a constant dim, else None."""
    if dim.op is CONST:
        return int(dim.attrs["value"])
    return None


def dims_equal(a: Node, b: Node, _depth: int = 0) -> bool:
    if a is b:
        return True
    va, vb = static_value(a), static_value(b)
    if va is not None or vb is not None:
        return va == vb
    if a.op is not b.op or len(a.args) != len(b.args) or a.attrs != b.attrs or _depth > 16:
        return False
    if a.op.reads_memory and a.args[0].op is not INPUT:
        return False  # two reads of a buffer the program writes may see different values
    if a.op is INPUT_DIM or a.op.pure:
        return all(dims_equal(x, y, _depth + 1) for x, y in zip(a.args, b.args))
    return False


def shapes_equal(a, b) -> bool:
    return len(a) == len(b) and all(dims_equal(x, y) for x, y in zip(a, b))


def normalize_axis(axis: int, rank: int, what: str = "axis") -> int:
    """A possibly negative axis as an index in ``range(rank)``, with a clear error."""
    if not isinstance(axis, int):
        raise ShapeError(f"{what}: expected a Python int, got {type(axis).__name__}")
    if not -rank <= axis < rank:
        raise ShapeError(f"{what}: {axis} is out of range for a tensor of rank {rank}")
    return axis % rank


def describe_dim(dim: Node) -> str:
    """A short human description of a dim, for error messages."""
    value = static_value(dim)
    if value is not None:
        return str(value)
    if dim.op is INPUT_DIM:
        src = dim.args[0]
        return f"{src.name or 'input' + str(src.attrs['index'])}.shape[{dim.attrs['axis']}]"
    if dim.name:
        return dim.name
    return dim.label


def describe_shape(shape) -> str:
    return "[" + ", ".join(describe_dim(d) for d in shape) + "]"
