"""Shared plumbing of ``tf.linalg``: argument checks and the [..., n, n] <-> [B, n, n] views.

Every routine works on a rank-3 stack of matrices [B, m, n] (B the product of the leading
axes, 1 for a single matrix, possibly known only when the program runs) and reshapes its
results back to the caller's leading axes."""

from __future__ import annotations

from ..ir import dtypes as dt
from ..ir.builder import current
from ..ir.errors import ShapeError, user_location
from ..ir.shapes import describe_shape, dims_equal, static_value
from ..tracing.algorithms import reshape, squeeze, unsqueeze
from ..tracing.api import const
from ..tracing.tensor import Tensor, node_of


class Stack:
    """A tensor of shape [..., m, n] seen as [B, m, n]: ``values`` is that rank-3 view,
    ``batch`` the leading dims and ``count`` their product B. A ``vector`` [..., n] is seen
    as [B, n, 1]."""

    def __init__(self, tensor, what: str, vector: bool = False):
        node = node_of(tensor)
        min_rank = 1 if vector else 2
        if node.rank < min_rank:
            raise ShapeError(f"{what}: expected a tensor of rank {min_rank} or more, got rank {node.rank} "
                             f"(shape {describe_shape(node.shape)})", user_location())
        if not node.dtype.is_float:
            node = current().cast(node, dt.float32)
        self.batch = list(node.shape[:node.rank - min_rank])
        self.count = const(1, (), dt.int32) if not self.batch else Tensor(self.batch[0])
        for dim in self.batch[1:]:
            self.count = self.count * Tensor(dim)
        tail = list(node.shape[len(self.batch):])
        self.rows = Tensor(tail[0])
        self.cols = Tensor(tail[1]) if len(tail) > 1 else None
        if self.batch:
            self.values = reshape(Tensor(node), [self.count] + tail if len(tail) > 1 else [self.count, tail[0], 1])
        else:  # (axes of size 1 are index remaps; a reshape's view divides its flat index)
            self.values = unsqueeze(Tensor(node), 0) if len(tail) > 1 else unsqueeze(unsqueeze(Tensor(node), 0), 2)

    def restore(self, tensor: Tensor, tail: list) -> Tensor:
        """``tensor`` [B, *tail] back to the leading dims of the argument: [..., *tail]."""
        return reshape(tensor, self.batch + tail) if self.batch else squeeze(tensor, 0)


def require_square(stack: Stack, what: str) -> None:
    """A clear error (now, or when the program runs) unless the matrices are square."""
    rows, cols = stack.rows.node, stack.cols.node
    if dims_equal(rows, cols):
        return
    if static_value(rows) is not None and static_value(cols) is not None:
        raise ShapeError(f"{what}: expected square matrices [..., n, n], got [..., {static_value(rows)}, "
                         f"{static_value(cols)}]", user_location())
    current().require_equal(rows, cols, f"{what}: expected square matrices [..., n, n], got {{0}} rows and "
                                        f"{{1}} columns", user_location())


def require_same(expected: Tensor, actual: Tensor, message: str) -> None:
    """A clear error unless two dims are equal; ``message`` may use {0} and {1}."""
    if dims_equal(expected.node, actual.node):
        return
    want, have = static_value(expected.node), static_value(actual.node)
    if want is not None and have is not None:
        raise ShapeError(message.format(want, have), user_location())
    current().require_equal(expected.node, actual.node, message, user_location())
