"""Lowering: algorithmic ops become loops, views become index remaps, broadcasts explicit.

Guarantees afterwards:
- no reduction, matmul or view nodes remain (scans were expanded before, by
  ``expand_scans``): reductions and matmuls are a variable updated in a loop; views are
  loads (or recomputed producers) at remapped indices;
- every operand of an elementwise op, and every value and index operand of a load,
  store, scatter or set, has exactly the shape of that node or is a scalar;
- every index operand of a load, store or scatter is an int32;
- every load reads memory (an input, a buffer, or a mutable node); loads of computed
  values were replaced by recomputing them at the index, or load from them (fusion then
  stores them in a buffer).
"""

from __future__ import annotations

from ..ir import dtypes as dt
from ..ir.node import Node, Program, Scope, users_map
from ..ir.ops import DIM_ID, ELEMENTWISE, IF, LOAD, MATMUL, OPS, REDUCTION, SET, STORE, VIEW
from ..ir.shapes import dims_equal, shapes_equal, static_value
from .analysis import MutationInfo, is_memory
from .reindex import Reindexer
from .rewrite import Rebuilder

UNROLL_LIMIT = 8  # reductions over constant axes this short become expressions, not loops
# A matmul reads each operand element N (or M) times: recompute an operand there only if it
# is a load and a couple of cheap ops (a scaled or negated input), else store it once.
OPERAND_BUDGET = 130.0


class _Lowering:
    def __init__(self, program: Program):
        self.rb = Rebuilder(program)
        self.b = self.rb.builder
        self.info = MutationInfo(program)
        counts = {n: len(u) for n, u in users_map(program).items()}
        self.rx = Reindexer(self.rb, self.info, counts)

    def run(self) -> Program:
        return self.rb.run(self.visit)

    def int_index(self, index: Node) -> Node:
        """``index`` as an int32. Wider values saturate at INT32_MAX (and INT32_MIN) first: a
        value of 2**31 or more is past the end of every dim (clamped to the last element),
        not negative; smaller ints widen."""
        dtype = index.dtype
        if dtype is dt.int32:
            return index
        if dtype.bits < 32 or dtype.is_bool:
            return self.b.cast(index, dt.int32)
        index = self.b.elementwise("min", [index, self.b.const(2**31 - 1, dtype)])
        if dtype.kind == "i":
            index = self.b.elementwise("max", [index, self.b.const(-(2**31), dtype)])
        return self.b.cast(index, dt.int32)

    # -- dispatch ------------------------------------------------------------------------------

    def visit(self, node: Node):
        kind = node.op.kind
        if kind == REDUCTION:
            return self.conform(self.reduction(node), node)
        if kind == MATMUL:
            return self.conform(self.matmul(node), node)
        if kind == VIEW:
            return self.conform(self.view(node), node)
        if kind == ELEMENTWISE:
            node.args = [self.broadcast(a, node.shape) for a in node.args]
            return None
        op = node.op
        if op is LOAD:
            node.args[1:] = [self.broadcast(self.int_index(i), node.shape) for i in node.args[1:]]
            memory = node.args[0]
            if not is_memory(memory, self.info.mutable):
                index = [self.rx.clamp_index(i, d) for i, d in zip(node.args[1:], memory.shape)]
                return self.conform(self.rx.value_at(memory, index), node)
        elif op is SET:
            node.args[1] = self.broadcast(node.args[1], node.args[0].shape)
        elif op.writes:  # a store or a scatter
            node.args[1:] = [self.broadcast(a if k == 0 else self.int_index(a), node.shape)
                             for k, a in enumerate(node.args[1:])]
        elif op is IF:
            target = _written_shape(node)
            cond = node.args[0]
            if cond.rank and target is not None and len(target) >= cond.rank and not shapes_equal(cond.shape, target):
                node.args[0] = self.broadcast(cond, target)
        return None

    def broadcast(self, arg: Node, shape) -> Node:
        """``arg`` evaluated at each element of ``shape`` (numpy broadcasting)."""
        if arg.rank == 0 or shapes_equal(arg.shape, shape):
            return arg
        grid = self.rx.grid(shape)
        return self.conform(self.rx.value_at(arg, self.rx.arg_index(arg, shape, grid)), None, shape)

    def conform(self, value: Node, like: Node | None, shape=None) -> Node:
        """``value`` with exactly the shape of ``like`` (broadcasting a scalar if needed)."""
        shape = like.shape if like is not None else shape
        if shapes_equal(value.shape, shape):
            return value
        return self.b.make("copy", [value], dtype=value.dtype, shape=shape)

    # -- helpers ---------------------------------------------------------------------------------

    def variable(self, value, dtype, shape) -> Node:
        var = self.b.const(value, dtype, shape)
        self.info.add_variable(var, self.rx.here())
        return var

    def counted_loop(self, count: Node) -> Node:
        loop = self.b.make("loop", [self.b.const(0, dt.int32), count, self.b.const(1, dt.int32)],
                           dtype=dt.int32, shape=())
        loop.body = Scope(loop)
        return loop

    def accumulate(self, var: Node, combine: str, value: Node) -> None:
        combined = self.b.elementwise(combine, [var, value])  # (max of bools is an int32 0/1)
        self.b.make("set", [var, self.b.cast(combined, var.dtype)], shape=var.shape)

    @staticmethod
    def identity(node: Node):
        value = node.op.identity(node.dtype)
        return value

    # -- algorithmic ops --------------------------------------------------------------------------

    def reduction(self, node: Node) -> Node:
        x = node.args[0]
        axis = node.attrs["axis"]
        length = static_value(x.shape[axis])
        if length is not None and 0 < length <= UNROLL_LIMIT:
            return self.unrolled_reduction(node, length)
        compute = node.dtype.compute  # (16-bit floats accumulate in float32, as torch and numpy do)
        acc = self.variable(self.identity(node), compute, node.shape)
        grid = self.rx.grid(node.shape) if x.rank > 1 else []
        loop = self.counted_loop(x.shape[axis])
        with self.b.inside(loop.body):
            value = self.rx.value_at(x, grid[:axis] + [loop] + grid[axis:])
            self.accumulate(acc, node.op.combine, self.b.cast(value, compute))
        return self.b.cast(acc, node.dtype)

    def unrolled_reduction(self, node: Node, length: int) -> Node:
        """A reduction over a short constant axis as an expression (x[0] + x[1] + x[2]): a
        plain value, which consumers of another shape can recompute instead of loading."""
        x, axis = node.args[0], node.attrs["axis"]
        grid = self.rx.grid(node.shape) if x.rank > 1 else []
        result = None
        for k in range(length):
            term = self.rx.value_at(x, grid[:axis] + [self.b.const(k, dt.int32)] + grid[axis:])
            term = self.b.cast(term, node.dtype.compute)
            result = term if result is None else self.b.elementwise(node.op.combine, [result, term])
        return self.b.cast(result, node.dtype)

    def matmul(self, node: Node) -> Node:
        a, b = node.args
        if _is_transposed(b) and not _few_rows(node):
            b = self.materialize(b)
        compute = node.dtype.compute
        acc = self.variable(0, compute, node.shape)
        grid = self.rx.grid(node.shape)
        batch = node.shape[:-2]
        loop = self.counted_loop(a.shape[-1])
        with self.b.inside(loop.body):
            a_batch = self.rx.arg_index(_batch_view(a), batch, grid[:-2]) if a.rank > 2 else []
            b_batch = self.rx.arg_index(_batch_view(b), batch, grid[:-2]) if b.rank > 2 else []
            a_val = self.rx.value_at(a, a_batch + [grid[-2], loop], OPERAND_BUDGET)
            b_val = self.rx.value_at(b, b_batch + [loop, grid[-1]], OPERAND_BUDGET)
            self.accumulate(acc, "add", self.b.elementwise("mul", [self.b.cast(a_val, compute),
                                                                  self.b.cast(b_val, compute)]))
        return self.b.cast(acc, node.dtype)

    def materialize(self, x: Node) -> Node:
        """``x`` computed into a variable of its own: a transposed ``B`` copied once (K*N
        work) so that a matmul's M*N*K loop reads rows of it, contiguous along the lanes
        of its output, rather than gathering a column per element."""
        copy = self.variable(0, x.dtype, x.shape)
        self.b.make("set", [copy, self.rx.value_at(x, self.rx.grid(x.shape))], shape=x.shape)
        return copy

    def view(self, node: Node) -> Node:
        src = node.args[0]
        out = self.rx.grid(node.shape)
        return self.rx.value_at(src, _VIEW_INDEX[node.op](self, node, src, out))


def _written_shape(node: Node):
    """The widest shape written inside a block (by set, store or scatter), if any."""
    best = None
    stack = list(node.body.nodes)
    while stack:
        inner = stack.pop()
        if inner.op in (SET, STORE) or inner.op.atomic:
            if best is None or inner.rank > len(best):
                best = inner.shape
        if inner.body is not None:
            stack.extend(inner.body.nodes)
    return best


def _is_transposed(x: Node) -> bool:
    """True if ``x`` (lowered) reads memory with its last two axes swapped (``W.T``, a
    matmul's backward): element ``[k, j]`` is ``W[j, k]``."""
    if x.op is not LOAD or x.rank < 2 or len(x.args) < 3:
        return False
    row, column = x.args[-2], x.args[-1]
    return all(i.op is DIM_ID and shapes_equal(i.shape, x.shape) for i in (row, column)) and \
        row.attrs["axis"] == x.rank - 1 and column.attrs["axis"] == x.rank - 2


def _few_rows(node: Node) -> bool:
    """A matmul with fewer output rows than a tile has (a matrix-vector product): reading
    the transposed operand directly, as dot products, costs less than copying it."""
    rows = static_value(node.shape[-2])
    return rows is not None and rows < 32


class _Shape:
    """Stands in for a node when only its shape matters (batch dims of a matmul operand)."""

    def __init__(self, shape):
        self.shape = tuple(shape)
        self.rank = len(self.shape)


def _batch_view(x: Node) -> _Shape:
    return _Shape(x.shape[:-2])


# -- index remaps of views: the source index for each output index ---------------------------------


def _transpose(lw, node, src, out):
    index = list(out)
    a, b = node.attrs["dim1"], node.attrs["dim2"]
    index[a], index[b] = index[b], index[a]
    return index


def _unsqueeze(lw, node, src, out):
    return out[:node.attrs["axis"]] + out[node.attrs["axis"] + 1:]


def _squeeze(lw, node, src, out):
    axis = node.attrs["axis"]
    return out[:axis] + [lw.b.const(0, dt.int32)] + out[axis:]


def _reshape(lw, node, src, out):
    """Leading dims the two shapes share keep their index; the rest go through the flat
    index, whose outermost part needs no ``mod`` (a division by a run-time size per element)."""
    b = lw.b
    keep = 0
    while keep < min(len(node.shape), len(src.shape)) - 1 and dims_equal(node.shape[keep], src.shape[keep]):
        keep += 1
    flat = b.const(0, dt.int32)
    for index, dim in zip(out[keep:], node.shape[keep:]):
        flat = b.elementwise("add", [b.elementwise("mul", [flat, dim]), index])
    result = []
    for dim in reversed(src.shape[keep + 1:]):
        result.append(b.elementwise("mod", [flat, dim]))
        flat = b.elementwise("div", [flat, dim])
    return list(out[:keep]) + [flat] + result[::-1]


def _split_dim(lw, node, src, out):
    b, axis = lw.b, node.attrs["axis"]
    joined = b.elementwise("add", [b.elementwise("mul", [out[axis], node.shape[axis + 1]]), out[axis + 1]])
    return out[:axis] + [lw.rx.clamp_index(joined, src.shape[axis])] + out[axis + 2:]


def _merge_dim(lw, node, src, out):
    b, axis = lw.b, node.attrs["axis"]
    total = b.elementwise("mul", [src.shape[axis - 1], src.shape[axis]])
    merged = lw.rx.clamp_index(out[axis - 1], total)
    return (out[:axis - 1] + [b.elementwise("div", [merged, src.shape[axis]]),
                              b.elementwise("mod", [merged, src.shape[axis]])] + out[axis:])


def _repeat(lw, node, src, out):
    b, axis = lw.b, node.attrs["axis"]
    index = list(out)
    index[axis] = b.elementwise("div", [out[axis], b.const(node.attrs["repeats"], dt.int32)])
    return index


def _reverse(lw, node, src, out):
    b, axis = lw.b, node.attrs["axis"]
    index = list(out)
    last = b.elementwise("sub", [src.shape[axis], b.const(1, dt.int32)])
    index[axis] = b.elementwise("sub", [last, out[axis]])
    return index


# Each view op's index map (where an element of the view reads its source), keyed by the
# op-table entry: a misspelt name fails at import.
_VIEW_INDEX = {OPS[name]: rule for name, rule in [
    ("transpose", _transpose), ("unsqueeze", _unsqueeze), ("squeeze", _squeeze), ("reshape", _reshape),
    ("split_dim", _split_dim), ("merge_dim", _merge_dim), ("repeat", _repeat), ("reverse", _reverse)]}


def run(program: Program) -> Program:
    """Lower reductions, scans, matmuls and views; make broadcasting explicit."""
    return _Lowering(program).run()
