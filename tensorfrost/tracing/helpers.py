"""Small tensor helpers of upstream TensorFrost's Python API: ``zeros_like``, ``eye``, flat
indices, hashes, ``modf`` and value assertions. Each is a few ops of the public API, so it
fuses with the code around it."""

from __future__ import annotations

from collections.abc import Sequence

from ..ir import dtypes as dt
from ..ir.builder import current
from ..ir.errors import ShapeError, TraceError, user_location
from ..ir.ops import CONST
from . import algorithms as alg
from .api import indices, ones, uniform, zeros
from .mathfn import asuint, copy, floor, pcg, pcgf, select, uint
from .tensor import Tensor, node_of, provide


def _shape_list(shape, what: str) -> list:
    if isinstance(shape, Tensor):
        raise ShapeError(f"{what}: expected a list of dims, got a tensor (use x.shape)", user_location())
    return list(shape)


def zeros_like(x: Tensor) -> Tensor:
    """Zeros of ``x``'s shape and dtype.

    >>> tf.compile(lambda: tf.zeros_like(tf.input([-1], tf.int32)))(np.array([5, 6], np.int32)).numpy
    array([0, 0], dtype=int32)
    """
    return zeros(x.shape, x.dtype)


def ones_like(x: Tensor) -> Tensor:
    """Ones of ``x``'s shape and dtype.

    >>> tf.compile(lambda: tf.ones_like(tf.input([-1], tf.int32)))(np.array([5, 6], np.int32)).numpy
    array([1, 1], dtype=int32)
    """
    return ones(x.shape, x.dtype)


def eye(n: int | Tensor, dtype: dt.DType = dt.float32) -> Tensor:
    """The ``n`` x ``n`` identity matrix (``n`` an int or a scalar int tensor).

    >>> tf.compile(lambda: tf.eye(2))().numpy
    array([[1., 0.],
           [0., 1.]], dtype=float32)
    """
    i, j = indices([n, n])
    one = dt.dtype_of(dtype)
    return select(i == j, ones([], one), zeros([], one))


def eye_like(x: Tensor) -> Tensor:
    """The identity matrix with as many rows as ``x`` (upstream's spelling: its shape[0]).

    >>> tf.compile(lambda: tf.eye_like(tf.input([-1, -1], tf.int32)))(np.zeros((2, 5), np.int32)).numpy
    array([[1, 0],
           [0, 1]], dtype=int32)
    """
    return eye(x.shape[0], x.dtype)


def flat_index(shape: Sequence[int | Tensor], index: Sequence[int | Tensor]) -> Tensor:
    """The row-major (C-order) position of ``index`` (one int tensor per axis) in ``shape``,
    like ``numpy.ravel_multi_index``.

    >>> def positions():
    ...     i, j = tf.indices([2, 3])
    ...     return tf.flat_index([2, 3], [i, j])
    >>> tf.compile(positions)().numpy
    array([[0, 1, 2],
           [3, 4, 5]], dtype=int32)
    """
    shape, index = _shape_list(shape, "tf.flat_index shape"), list(index)
    if len(shape) != len(index):
        raise ShapeError(f"tf.flat_index: {len(index)} indices for a shape of {len(shape)} axes", user_location())
    if not shape:
        return Tensor(current().const(0, dt.int32))
    flat = index[0]
    for size, i in zip(shape[1:], index[1:]):
        flat = flat * size + i
    return flat if isinstance(flat, Tensor) else Tensor(node_of(flat, dt.int32))


def indices_from_flat_index(index: Tensor | int, shape: Sequence[int | Tensor]) -> tuple[Tensor, ...]:
    """The per-axis indices of row-major position ``index`` in ``shape``, like
    ``numpy.unravel_index``; the inverse of ``flat_index``.

    >>> def row_and_column():
    ...     i, j = tf.indices_from_flat_index(tf.input([-1], tf.int32), [2, 3])
    ...     return i, j
    >>> [r.numpy for r in tf.compile(row_and_column)(np.array([0, 4, 5], np.int32))]
    [array([0, 1, 1], dtype=int32), array([0, 1, 2], dtype=int32)]
    """
    shape = _shape_list(shape, "tf.indices_from_flat_index shape")
    out = []
    rest = index
    for size in reversed(shape[1:]):
        out.append(rest % size)
        rest = rest // size
    out.append(rest)
    return tuple(reversed(out))


def element_index(shape: Sequence[int | Tensor]) -> Tensor:
    """Each element's row-major position in a tensor of ``shape`` (int32, of that shape).

    >>> tf.compile(lambda: tf.element_index([2, 2]))().numpy
    array([[0, 1],
           [2, 3]], dtype=int32)
    """
    shape = _shape_list(shape, "tf.element_index shape")
    return flat_index(shape, indices(shape))


def _seeded(shape, seed) -> Tensor:
    seed_node = node_of(seed, dt.uint32)
    seed = Tensor(seed_node) if seed_node.dtype is dt.uint32 else asuint(Tensor(seed_node))
    return uint(element_index(shape)) + seed * 2654435761


def hash(shape: Sequence[int | Tensor], seed: int | Tensor) -> Tensor:  # noqa: A001 (upstream's name)
    """A uint32 hash of each element's position in ``shape`` and ``seed`` (upstream's
    ``tf.hash``: PCG of ``index + seed * 2654435761``; a float seed counts by its bits).

    >>> tf.compile(lambda: tf.hash([3], 7))().numpy
    array([ 783135426, 4233372494, 3381454645], dtype=uint32)
    """
    return pcg(_seeded(_shape_list(shape, "tf.hash shape"), seed))


def random_value(shape: Sequence[int | Tensor], seed: int | Tensor) -> Tensor:
    """A float in [0, 1) per element, from ``tf.hash(shape, seed)`` (upstream's
    ``tf.random_value``). For distributions and streams see ``tf.random``.

    >>> tf.compile(lambda: tf.random_value([3], 7))().numpy
    array([0.1823, 0.9857, 0.7873], dtype=float32)
    """
    return pcgf(_seeded(_shape_list(shape, "tf.random_value shape"), seed))


def get_copy(x: Tensor) -> Tensor:
    """A copy of ``x`` (upstream's name for ``tf.copy``).

    >>> def doubled():
    ...     x = tf.input([-1], tf.float32)
    ...     y = tf.get_copy(x)
    ...     y.val = y * 2.0
    ...     return x, y
    >>> [r.numpy for r in tf.compile(doubled)(np.array([1.0, 2.0], np.float32))]
    [array([1., 2.], dtype=float32), array([2., 4.], dtype=float32)]
    """
    return copy(x)


def modf(a: Tensor | float, b: Tensor | float) -> Tensor:
    """``a - b * floor(a / b)``: the float remainder with the sign of ``b`` (GLSL's ``mod``,
    numpy's ``np.mod``), upstream's ``tf.modf``.

    >>> tf.compile(lambda: tf.modf(tf.input([-1]), 3.0))(np.array([7.0, -1.0, 4.5], np.float32)).numpy
    array([1. , 2. , 1.5], dtype=float32)
    """
    return a - b * floor(a / b)


def assert_value(name: str, x: Tensor | bool) -> None:
    """Check when the program runs that every element of ``x`` is nonzero (true); otherwise
    the call raises an error naming ``name`` and the user's line.

    >>> def safe_sqrt():
    ...     x = tf.input([-1], tf.float32)
    ...     tf.assert_value("x >= 0", x >= 0.0)
    ...     return tf.sqrt(x)
    >>> f = tf.compile(safe_sqrt)
    >>> f(np.array([4.0, 9.0], np.float32)).numpy
    array([2., 3.], dtype=float32)
    >>> f(np.array([4.0, -1.0], np.float32))
    Traceback (most recent call last):
    tensorfrost.ir.errors.RuntimeCheckError: ...tf.assert_value: 'x >= 0' is false...
    """
    node = node_of(x)
    condition = Tensor(node) if node.dtype.is_bool else Tensor(node) != 0
    while condition.ndim > 1:
        condition = alg.all(condition, axis=-1)
    if condition.ndim:
        condition = Tensor(uniform(alg.all(condition, axis=-1).node))  # a reduction of 1-D has shape [1]
    message = f"tf.assert_value: '{name}' is false".replace("{", "{{").replace("}", "}}")
    current().make("assert", [condition.node], attrs={"message": message}, location=user_location())


def print_value(name: str, x: Tensor) -> None:
    """Print ``name: value`` of ``x`` each time the program runs, after it has run (the value
    ``x`` has where this is called). Call it at the top level of the program, not inside
    ``tf.loop`` or ``tf.if_cond``; in codegen mode the value is an extra last output.

    >>> def squares():
    ...     x = tf.input([-1], tf.float32)
    ...     tf.print_value("x", x)
    ...     return x * x
    >>> tf.compile(squares)(np.array([1.0, 3.0], np.float32)).numpy
    x: [1. 3.]
    array([1., 9.], dtype=float32)
    """
    builder = current()
    if builder.scope is not builder.program.root:
        raise TraceError("tf.print_value must be called at the top level of the program, not inside tf.loop or "
                         "tf.if_cond (print a value the loop leaves behind instead)", user_location())
    node = node_of(x)
    builder.program.printed.append((str(name), current().make("copy", [node], dtype=node.dtype, shape=node.shape)))


def try_get_constant(x: Tensor):
    """The Python value of a constant tensor; raises for any other."""
    node = x.node if isinstance(x, Tensor) else node_of(x)
    if node.op is not CONST:
        raise TraceError(f"try_get_constant: {node.label} is not a constant (it is computed by "
                         f"'{node.op.name}')", user_location())
    return node.attrs["value"]


provide(try_get_constant=try_get_constant)
