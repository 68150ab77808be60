"""Forward-mode derivatives and their compositions: ``tf.jvp``, ``tf.hvp``, ``tf.jacfwd``,
``tf.jacrev`` (``tf.grad``, reverse mode, is in ``api.py``). Each is called inside a program,
on tensors of the program, in both front ends; the autodiff pass expands them."""

from __future__ import annotations

from collections.abc import Sequence

from ..ir.builder import current
from ..ir.errors import DTypeError, ShapeError, TraceError, user_location
from ..ir.shapes import static_value
from . import algorithms as alg
from .api import grad, indices
from .mathfn import select
from .tensor import Tensor, node_of

MAX_JACOBIAN_SIZE = 256  # directional derivatives (or gradients) one tf.jacfwd (tf.jacrev) takes


def _as_list(value, what: str) -> tuple[list, bool]:
    if isinstance(value, (list, tuple)):
        if not value:
            raise TraceError(f"tf.jvp: {what} is an empty list", user_location())
        return list(value), True
    return [value], False


def _float_node(value, what: str, api: str):
    node = node_of(value)
    if not node.dtype.is_float:
        raise DTypeError(f"{api}: {what} must be a float tensor, got {node.dtype!r}", user_location())
    return node


def jvp(y: Tensor | Sequence[Tensor], x: Tensor | Sequence[Tensor],
        v: Tensor | float | Sequence[Tensor | float]) -> Tensor | list[Tensor]:
    """The directional derivative of ``y`` along the tangent ``v`` of ``x`` (forward mode)::

        y = tf.sin(x) * x
        dy = tf.jvp(y, x, v)        # = (cos(x) * x + sin(x)) * v

    ``x`` and ``v`` may be lists (one tangent per input; the derivatives add up), ``y`` a
    tensor or a list of tensors (the result is then a list). Each ``x`` is taken as defined
    at its creation, as in ``tf.grad``. Memory does not grow with the number of loop trips
    (no tape), so it suits long loops and maps with few inputs. ``v`` must have ``x``'s shape
    (or broadcast to it). Compose with ``tf.grad`` either way: ``tf.jvp(tf.grad(L, x), x, v)``
    is a Hessian-vector product (``tf.hvp``).

    >>> def slope():
    ...     x = tf.input([-1], tf.float32)
    ...     return tf.jvp(x * x * x, x, tf.ones_like(x))   # 3 x^2
    >>> tf.compile(slope)(np.array([1.0, 2.0, -3.0], np.float32)).numpy
    array([ 3., 12., 27.], dtype=float32)
    """
    ys, many = _as_list(y, "y")
    xs, x_many = _as_list(x, "x")
    vs, v_many = _as_list(v, "v")
    if x_many != v_many or len(xs) != len(vs):
        raise TraceError(f"tf.jvp: give one tangent per x: got {len(xs)} x and {len(vs)} v", user_location())
    builder = current()
    x_nodes, v_nodes = [], []
    for k, (xk, vk) in enumerate(zip(xs, vs)):
        what = f"x[{k}]" if x_many else "x"
        x_node = _float_node(xk, what, "tf.jvp")
        v_node = node_of(vk, x_node.dtype)
        if not (v_node.dtype.is_float or v_node.dtype.is_integer):
            raise DTypeError(f"tf.jvp: v{what[1:]} must be a number tensor, got {v_node.dtype!r}", user_location())
        builder.broadcast([v_node.shape, x_node.shape], f"tf.jvp: v{what[1:]} against {what}")
        if len(v_node.shape) > len(x_node.shape):
            raise ShapeError(f"tf.jvp: v{what[1:]} (rank {len(v_node.shape)}) has more axes than {what} "
                             f"(rank {len(x_node.shape)})", user_location())
        x_nodes.append(x_node)
        v_nodes.append(builder.cast(v_node, x_node.dtype))
    out = []
    for k, yk in enumerate(ys):
        y_node = _float_node(yk, f"y[{k}]" if many else "y", "tf.jvp")
        out.append(Tensor(builder.make("jvp", [y_node, *x_nodes, *v_nodes], attrs={"count": len(x_nodes)},
                                       dtype=y_node.dtype, shape=y_node.shape)))
    return out if many else out[0]


def hvp(loss: Tensor, x: Tensor, v: Tensor | float) -> Tensor:
    """The Hessian of ``sum(loss)`` with respect to ``x`` times ``v``: forward over reverse,
    ``tf.jvp(tf.grad(loss, x), x, v)``; one backward and one forward sweep, no Hessian.

    >>> def curvature():
    ...     x = tf.input([-1], tf.float32)
    ...     v = tf.input(x.shape, tf.float32)
    ...     return tf.hvp(tf.sum(x * x * x), x, v)   # the Hessian is diag(6 x)
    >>> x, v = np.array([1.0, 2.0], np.float32), np.array([1.0, 0.5], np.float32)
    >>> tf.compile(curvature)(x, v).numpy
    array([6., 6.], dtype=float32)
    """
    return jvp(grad(loss, x), x, v)


def _static_size(t, what: str, api: str) -> int:
    size = 1
    for d in node_of(t).shape:
        n = static_value(d)
        if n is None:
            raise ShapeError(f"{api}: {what} must have a shape known when the program is traced (its size sets how "
                             f"many derivatives are taken), got a shape with a size given at run time",
                             user_location())
        size *= n
    if size > MAX_JACOBIAN_SIZE:
        raise ShapeError(f"{api}: {what} has {size} elements; a dense Jacobian takes one sweep per element, at most "
                         f"{MAX_JACOBIAN_SIZE}: use tf.jvp or tf.grad of the products you need", user_location())
    return size


def _basis(t: Tensor, k: int) -> Tensor:
    """The one-hot tensor of ``t``'s shape and dtype with a 1 at flat index ``k``."""
    shape = t.shape
    if not shape:
        return Tensor(current().const(1.0, t.dtype))
    flat = None
    for axis, index in enumerate(indices(shape)):
        flat = index if flat is None else flat * shape[axis] + index
    return select(flat == k, 1.0, 0.0).astype(t.dtype)


def _outer(a: Tensor, b: Tensor) -> Tensor:
    """a[..., None, ...] * b[None, ..., ...]: shape a.shape + b.shape."""
    for _ in range(b.node.rank):
        a = alg.unsqueeze(a, -1)
    return a * b


def jacfwd(y: Tensor, x: Tensor) -> Tensor:
    """The dense Jacobian of ``y`` with respect to ``x``, shape ``y.shape + x.shape``, by one
    forward sweep per element of ``x`` (a small ``x``, of a shape known at trace time).

    >>> def jacobian():
    ...     x = tf.input([2], tf.float32)
    ...     y = tf.sin(x) * x[0]   # dy_i/dx_j = cos(x_i) x_0 [i == j] + sin(x_i) [j == 0]
    ...     return tf.jacfwd(y, x)
    >>> tf.compile(jacobian)(np.array([1.0, 2.0], np.float32)).numpy
    array([[ 1.3818,  0.    ],
           [ 0.9093, -0.4161]], dtype=float32)
    """
    y_t, x_t = Tensor(_float_node(y, "y", "tf.jacfwd")), Tensor(_float_node(x, "x", "tf.jacfwd"))
    total = None
    for k in range(_static_size(x_t, "x", "tf.jacfwd")):
        basis = _basis(x_t, k)
        column = _outer(jvp(y_t, x_t, basis), basis)
        total = column if total is None else total + column
    return total


def jacrev(y: Tensor, x: Tensor) -> Tensor:
    """The dense Jacobian of ``y`` with respect to ``x``, shape ``y.shape + x.shape``, by one
    backward sweep per element of ``y`` (a small ``y``, of a shape known at trace time).

    >>> def jacobian():
    ...     x = tf.input([2], tf.float32)
    ...     y = tf.sin(x) * x[0]   # dy_i/dx_j = cos(x_i) x_0 [i == j] + sin(x_i) [j == 0]
    ...     return tf.jacrev(y, x)
    >>> tf.compile(jacobian)(np.array([1.0, 2.0], np.float32)).numpy
    array([[ 1.3818,  0.    ],
           [ 0.9093, -0.4161]], dtype=float32)
    """
    y_t, x_t = Tensor(_float_node(y, "y", "tf.jacrev")), Tensor(_float_node(x, "x", "tf.jacrev"))
    total = None
    for k in range(_static_size(y_t, "y", "tf.jacrev")):
        basis = _basis(y_t, k)
        row = _outer(basis, grad(y_t * basis, x_t))
        total = row if total is None else total + row
    return total

