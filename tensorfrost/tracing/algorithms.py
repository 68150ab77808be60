"""Reductions, scans, views and matrix products of the public API.

They build single high-level nodes (``reduce_sum``, ``transpose``, ``matmul``...). The
compiler lowers them to loops and index remaps later (``opt/lower.py``), so fusion sees
through them: ``tf.sum(A[i, k] * B[k, j], axis=2)`` becomes one kernel.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..ir import dtypes as dt
from ..ir.builder import current
from ..ir.errors import ArgumentError, ShapeError, user_location
from ..ir.node import Node
from ..ir.shapes import describe_shape, dims_equal, normalize_axis, static_value
from .tensor import Tensor, apply, node_of, provide


def _reduce(op_name: str, x, axis: int, dtype=None) -> Tensor:
    builder = current()
    node = node_of(x)
    if node.rank == 0:
        raise ShapeError(f"{op_name[7:]}: cannot reduce a scalar (rank 0)", user_location())
    axis = normalize_axis(axis, node.rank, f"{op_name[7:]} axis")
    if dtype is not None:
        node = builder.cast(node, dtype)
    elif node.dtype.is_bool and op_name in ("reduce_sum", "reduce_prod"):
        node = builder.cast(node, dt.int32)
    shape = node.shape[:axis] + node.shape[axis + 1:]
    if not shape:
        shape = (builder.const(1, dt.int32),)
    return Tensor(builder.make(op_name, [node], attrs={"axis": axis}, dtype=node.dtype, shape=shape))


def sum(x: Tensor, axis: int = -1) -> Tensor:  # noqa: A001
    """Sum along ``axis`` (default: the last), which is dropped; a 1-D tensor gives shape [1].

    >>> @tf.compile
    ... def row_sums(m: tf.Arg([-1, -1], tf.float32)):
    ...     return tf.sum(m), tf.sum(m, axis=0)
    >>> [r.numpy for r in row_sums(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))]
    [array([3., 7.], dtype=float32), array([4., 6.], dtype=float32)]
    """
    return _reduce("reduce_sum", x, axis)


def prod(x: Tensor, axis: int = -1) -> Tensor:
    """Product along ``axis``, which is dropped.

    >>> tf.compile(lambda: tf.prod(tf.input([-1, -1], tf.int32)))(np.array([[1, 2, 3], [4, 5, 6]], np.int32)).numpy
    array([  6, 120], dtype=int32)
    """
    return _reduce("reduce_prod", x, axis)


def mean(x: Tensor, axis: int = -1) -> Tensor:
    """Mean along ``axis``, which is dropped: in a float tensor's dtype (16-bit floats summed
    in float32 and rounded once), float32 for integers and bools.

    >>> tf.compile(lambda: tf.mean(tf.input([-1], tf.int32)))(np.array([1, 2, 4], np.int32)).numpy
    array([2.3333], dtype=float32)
    """
    node = node_of(x)
    dtype = node.dtype if node.dtype.is_float else dt.float32
    compute = dtype.compute
    total = _reduce("reduce_sum", Tensor(node), axis, compute)
    count = Tensor(node.shape[normalize_axis(axis, node.rank, "mean axis")])
    return (total / Tensor(current().cast(count.node, compute))).astype(dtype)


def norm(x: Tensor, axis: int = -1) -> Tensor:
    """Euclidean norm along ``axis``: ``sqrt(sum(x * x))``, in a float tensor's dtype (16-bit
    floats computed in float32 and rounded once), float32 for integers.

    >>> tf.compile(lambda: tf.norm(tf.input([-1, 2])))(np.array([[3.0, 4.0], [1.0, 1.0]], np.float32)).numpy
    array([5.    , 1.4142], dtype=float32)
    """
    node = node_of(x)
    dtype = node.dtype if node.dtype.is_float else dt.float32
    x = Tensor(current().cast(node, dtype.compute))
    return apply("sqrt", sum(x * x, axis)).astype(dtype)


def reduce_max(x, axis: int = -1) -> Tensor:
    return _reduce("reduce_max", x, axis)


def reduce_min(x, axis: int = -1) -> Tensor:
    return _reduce("reduce_min", x, axis)


def any(x: Tensor, axis: int = -1) -> Tensor:  # noqa: A001
    """True where any element along ``axis`` is nonzero.

    >>> tf.compile(lambda: tf.any(tf.input([-1, -1], tf.int32)))(np.array([[0, 0], [0, 3]], np.int32)).numpy
    array([False,  True])
    """
    return _reduce("reduce_any", x, axis, dt.bool1)


def all(x: Tensor, axis: int = -1) -> Tensor:  # noqa: A001
    """True where every element along ``axis`` is nonzero.

    >>> tf.compile(lambda: tf.all(tf.input([-1, -1], tf.int32)))(np.array([[1, 0], [2, 3]], np.int32)).numpy
    array([False,  True])
    """
    return _reduce("reduce_all", x, axis, dt.bool1)


def scan(op_name: str, x, axis: int = -1, exclusive: bool = False, reverse: bool = False) -> Tensor:
    """A scan node (``prefix_sum``, ``prefix_prod``, ``prefix_max``, ``prefix_min``) along
    ``axis``; the shape is unchanged. ``tensorfrost.lib.scan`` documents them."""
    builder = current()
    node = node_of(x)
    name = op_name if op_name == "prefix_sum" else "cum" + op_name[7:]
    if node.rank == 0:
        raise ShapeError(f"{name}: cannot scan a scalar (rank 0)", user_location())
    for flag, value in (("exclusive", exclusive), ("reverse", reverse)):
        if not isinstance(value, bool):
            raise ArgumentError(f"{name}: {flag} must be True or False, got {value!r}", user_location())
    axis = normalize_axis(axis, node.rank, f"{name} axis")
    if node.dtype.is_bool:
        node = builder.cast(node, dt.int32)
    attrs = {"axis": axis, "exclusive": exclusive, "reverse": reverse}
    return Tensor(builder.make(op_name, [node], attrs=attrs, dtype=node.dtype, shape=node.shape))


def prefix_sum(x, axis: int = -1, exclusive: bool = False, reverse: bool = False) -> Tensor:
    """Running sum along ``axis`` (numpy's cumsum); see ``tensorfrost.lib.scan.prefix_sum``."""
    return scan("prefix_sum", x, axis, exclusive, reverse)


def dot(a: Tensor, b: Tensor, axis: int = -1) -> Tensor:
    """Dot product along ``axis``: ``sum(a * b, axis)``; of two ``tf.vec``, the sum of the
    components' products.

    >>> def dot3():
    ...     a = tf.input([-1, 3], tf.float32)
    ...     return tf.dot(a, tf.input(a.shape, tf.float32))
    >>> a, b = np.array([[1.0, 2.0, 3.0]], np.float32), np.array([[4.0, 5.0, 6.0]], np.float32)
    >>> tf.compile(dot3)(a, b).numpy
    array([32.], dtype=float32)
    """
    vector = a if getattr(type(a), "is_vector", False) else b if getattr(type(b), "is_vector", False) else None
    if vector is not None:
        return vector.dot(b if vector is a else a)
    return sum(apply("mul", a, b), axis)


# -- views ---------------------------------------------------------------------------------


def _view(op_name: str, x, attrs: dict, shape) -> Tensor:
    node = node_of(x)
    return Tensor(current().make(op_name, [node], attrs=attrs, dtype=node.dtype, shape=tuple(shape)))


def transpose(x: Tensor, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Swap two axes (by default the last two).

    >>> tf.compile(lambda: tf.transpose(tf.input([2, 3])))(np.arange(6, dtype=np.float32).reshape(2, 3)).numpy
    array([[0., 3.],
           [1., 4.],
           [2., 5.]], dtype=float32)
    """
    node = node_of(x)
    if node.rank < 2:
        raise ShapeError(f"transpose: needs a tensor of rank 2 or more, got rank {node.rank}", user_location())
    a, b = normalize_axis(dim1, node.rank, "transpose dim1"), normalize_axis(dim2, node.rank, "transpose dim2")
    shape = list(node.shape)
    shape[a], shape[b] = shape[b], shape[a]
    return _view("transpose", Tensor(node), {"dim1": min(a, b), "dim2": max(a, b)}, shape)


def unsqueeze(x: Tensor, axis: int = -1) -> Tensor:
    """Insert an axis of size 1 at ``axis`` (``axis=-1`` appends one).

    >>> tf.compile(lambda: tf.unsqueeze(tf.input([-1]), 0))(np.array([1.0, 2.0], np.float32)).numpy
    array([[1., 2.]], dtype=float32)
    """
    node = node_of(x)
    axis = normalize_axis(axis, node.rank + 1, "unsqueeze axis")
    shape = node.shape[:axis] + (current().const(1, dt.int32),) + node.shape[axis:]
    return _view("unsqueeze", Tensor(node), {"axis": axis}, shape)


def squeeze(x: Tensor, axis: int = -1) -> Tensor:
    """Remove the axis ``axis``, which must have size 1.

    >>> tf.compile(lambda: tf.squeeze(tf.input([-1, 1])))(np.array([[1.0], [2.0]], np.float32)).numpy
    array([1., 2.], dtype=float32)
    """
    builder = current()
    node = node_of(x)
    axis = normalize_axis(axis, node.rank, "squeeze axis")
    dim = node.shape[axis]
    if static_value(dim) is not None and static_value(dim) != 1:
        raise ShapeError(f"squeeze: axis {axis} has size {static_value(dim)}, not 1", user_location())
    if static_value(dim) is None:
        builder.require_equal(builder.const(1, dt.int32), dim, f"squeeze: axis {axis} has size {{1}}, not 1")
    return _view("squeeze", Tensor(node), {"axis": axis}, node.shape[:axis] + node.shape[axis + 1:])


def _element_count(builder, shape) -> Node:
    total = builder.const(1, dt.int32)
    for d in shape:
        total = builder.elementwise("mul", [total, d])
    return total


def reshape(x: Tensor, shape: Sequence[int | Tensor]) -> Tensor:
    """The same elements, in row-major order, with a new shape of the same size; one entry
    may be -1, the size that keeps the element count (numpy's): ``x.reshape([2, -1])``.

    >>> tf.compile(lambda: tf.reshape(tf.input([-1]), [2, -1]))(np.arange(6, dtype=np.float32)).numpy
    array([[0., 1., 2.],
           [3., 4., 5.]], dtype=float32)
    """
    builder = current()
    node = node_of(x)
    shape = _inferred(builder, node, list(shape))
    dims = tuple(builder.dim(d.node if isinstance(d, Tensor) else d) for d in shape)
    old_n, new_n = _element_count(builder, node.shape), _element_count(builder, dims)
    if static_value(old_n) is not None and static_value(new_n) is not None:
        if static_value(old_n) != static_value(new_n):
            raise ShapeError(f"reshape: cannot reshape {describe_shape(node.shape)} "
                             f"({static_value(old_n)} elements) to {describe_shape(dims)} "
                             f"({static_value(new_n)} elements)", user_location())
    elif not dims_equal(old_n, new_n):
        builder.require_equal(old_n, new_n, "reshape: the tensor has {0} elements, the new shape {1}")
    return _view("reshape", Tensor(node), {}, dims)


def _inferred(builder, node: Node, shape: list) -> list:
    """``shape`` with its -1 replaced by the element count over the other entries' product."""
    holes = [k for k, d in enumerate(shape) if not isinstance(d, (Tensor, bool)) and isinstance(d, int) and d == -1]
    if not holes:
        return shape
    if len(holes) > 1:
        raise ShapeError(f"reshape: only one entry of the new shape may be -1, got {shape}", user_location())
    others = [builder.dim(d.node if isinstance(d, Tensor) else d) for k, d in enumerate(shape) if k != holes[0]]
    total, rest = _element_count(builder, node.shape), _element_count(builder, others)
    if static_value(total) is not None and static_value(rest) is not None:
        if static_value(rest) == 0 or static_value(total) % static_value(rest):
            raise ShapeError(f"reshape: cannot reshape {describe_shape(node.shape)} ({static_value(total)} elements) "
                             f"to {shape}: {static_value(total)} is not a multiple of {static_value(rest)}",
                             user_location())
        size = static_value(total) // static_value(rest)
    else:  # (a count that is not a multiple fails reshape's own check of the element counts)
        size = builder.elementwise("div", [total, builder.elementwise("max", [rest, builder.const(1, dt.int32)])])
    return shape[:holes[0]] + [size] + shape[holes[0] + 1:]


def split_dim(x: Tensor, split_size: int, axis: int = -1) -> Tensor:
    """Split ``axis`` (size n) into two axes ``[ceil(n / split_size), split_size]``.
    Elements past the end read as the last element (indices are clamped).

    >>> tf.compile(lambda: tf.split_dim(tf.input([-1], tf.int32), 2))(np.array([1, 2, 3, 4, 5], np.int32)).numpy
    array([[1, 2],
           [3, 4],
           [5, 5]], dtype=int32)
    """
    builder = current()
    node = node_of(x)
    axis = normalize_axis(axis, node.rank, "split_dim axis")
    if not isinstance(split_size, int) or split_size <= 0:
        raise ShapeError(f"split_dim: split_size must be a positive int, got {split_size!r}", user_location())
    size = builder.const(split_size, dt.int32)
    dim = node.shape[axis]
    padded = builder.elementwise("add", [dim, builder.const(split_size - 1, dt.int32)])
    count = builder.elementwise("div", [padded, size])
    shape = node.shape[:axis] + (count, size) + node.shape[axis + 1:]
    return _view("split_dim", Tensor(node), {"axis": axis, "size": split_size}, shape)


def merge_dim(x: Tensor, axis: int = -1, target_size: int | Tensor | None = None) -> Tensor:
    """Merge ``axis`` with the axis before it into one axis (of ``target_size`` if given,
    which undoes the padding of ``split_dim``).

    >>> tf.compile(lambda: tf.merge_dim(tf.input([-1, -1], tf.int32)))(np.array([[1, 2], [3, 4]], np.int32)).numpy
    array([1, 2, 3, 4], dtype=int32)
    """
    builder = current()
    node = node_of(x)
    axis = normalize_axis(axis, node.rank, "merge_dim axis")
    if axis == 0:
        raise ShapeError("merge_dim: axis 0 has no axis before it to merge with", user_location())
    merged = builder.elementwise("mul", [node.shape[axis - 1], node.shape[axis]])
    if target_size is not None:
        merged = builder.dim(target_size.node if isinstance(target_size, Tensor) else target_size)
    shape = node.shape[:axis - 1] + (merged,) + node.shape[axis + 1:]
    return _view("merge_dim", Tensor(node), {"axis": axis}, shape)


def repeat(x: Tensor, repeats: int, axis: int = -1) -> Tensor:
    """Repeat each element ``repeats`` times along ``axis`` (as numpy.repeat).

    >>> tf.compile(lambda: tf.repeat(tf.input([-1], tf.int32), 2))(np.array([1, 2, 3], np.int32)).numpy
    array([1, 1, 2, 2, 3, 3], dtype=int32)
    """
    builder = current()
    node = node_of(x)
    axis = normalize_axis(axis, node.rank, "repeat axis")
    if not isinstance(repeats, int) or repeats <= 0:
        raise ShapeError(f"repeat: repeats must be a positive int, got {repeats!r}", user_location())
    dim = builder.elementwise("mul", [node.shape[axis], builder.const(repeats, dt.int32)])
    shape = node.shape[:axis] + (dim,) + node.shape[axis + 1:]
    return _view("repeat", Tensor(node), {"axis": axis, "repeats": repeats}, shape)


def reverse(x: Tensor, axis: int = -1) -> Tensor:
    """Reverse the order of elements along ``axis``.

    >>> tf.compile(lambda: tf.reverse(tf.input([-1], tf.int32)))(np.array([1, 2, 3], np.int32)).numpy
    array([3, 2, 1], dtype=int32)
    """
    node = node_of(x)
    axis = normalize_axis(axis, node.rank, "reverse axis")
    return _view("reverse", Tensor(node), {"axis": axis}, node.shape)


# -- matrix products ----------------------------------------------------------------------------


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """Matrix product over the last two axes, with numpy's broadcasting of batch axes::

        C = tf.matmul(A, B)   # or A @ B; [..., N, M] @ [..., M, K] -> [..., N, K]

    Integers of fewer than 32 bits (int8 weights and activations) give an int32 product,
    summed in int32; 16-bit floats give their own dtype, summed in float32.

    >>> @tf.compile
    ... def product(a: tf.Arg([-1, -1], tf.float32), b: tf.Arg([-1, -1], tf.float32)):
    ...     return tf.matmul(a, b)
    >>> a = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    >>> product(a, np.array([[1.0], [-1.0]], np.float32)).numpy
    array([[-1.],
           [-1.]], dtype=float32)
    """
    builder = current()
    a_node, b_node = (node_of(v) for v in (a, b))
    if a_node.rank == 0 or b_node.rank == 0:
        raise ShapeError("matmul: operands must have rank 1 or more (use * for scalars)", user_location())
    if a_node.rank == 1 and b_node.rank == 1:
        return dot(Tensor(a_node), Tensor(b_node))
    if a_node.rank == 1:
        return squeeze(matmul(unsqueeze(Tensor(a_node), 0), Tensor(b_node)), -2)
    if b_node.rank == 1:
        return squeeze(matmul(Tensor(a_node), unsqueeze(Tensor(b_node), -1)), -1)
    result = dt.promote(a_node.dtype, b_node.dtype)
    if result.is_bool or (result.is_integer and result.bits < 32):
        result = dt.int32  # (int8 @ int8 sums its products in int32, as quantized inference does)
    a_node, b_node = builder.cast(a_node, result), builder.cast(b_node, result)
    inner_a, inner_b = a_node.shape[-1], b_node.shape[-2]
    if not dims_equal(inner_a, inner_b):
        if static_value(inner_a) is not None and static_value(inner_b) is not None:
            raise ShapeError(f"matmul: inner dims do not match: {describe_shape(a_node.shape)} @ "
                             f"{describe_shape(b_node.shape)}", user_location())
        builder.require_equal(inner_a, inner_b, "matmul: inner dims do not match ({0} vs {1})")
    batch = builder.broadcast([a_node.shape[:-2], b_node.shape[:-2]], "matmul batch")
    shape = tuple(batch) + (a_node.shape[-2], b_node.shape[-1])
    return Tensor(builder.make("matmul", [a_node, b_node], dtype=result, shape=shape))


provide(sum=sum, mean=mean, transpose=transpose, reshape=reshape, matmul=matmul)
