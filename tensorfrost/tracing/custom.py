"""User operations with their own gradient (upstream's ``tf.register_custom_operation`` and
``tf.custom``)::

    def forward(inputs, tensor, axes):
        return [tf.tanh(inputs[0])]

    def vjp(inputs, gradient, tensor):
        return [gradient * (1.0 - tensor * tensor)]

    tf.register_custom_operation("new_tanh", ["f_f"], forward, vjp)

    def program():
        A = tf.input([-1], tf.float32)
        B = tf.custom("new_tanh", [A])
        return B, tf.grad(B, A)

``forward(inputs, tensor, axes)`` builds the value with tensor operations where ``tf.custom``
is called (so it fuses with the code around it): ``inputs`` are the argument tensors,
``tensor`` a zero tensor of the result's shape and dtype, ``axes`` its indices along each
axis; it returns a list holding the result. ``vjp(inputs, gradient, tensor)`` returns one
gradient per input (None for none): gradients reach the inputs only through it, never
through the operations of ``forward``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..ir import dtypes as dt
from ..ir.builder import current
from ..ir.errors import TensorFrostError, TraceError, user_location
from .api import indices, zeros
from .tensor import Tensor, node_of

_KINDS = {"f": dt.float32, "i": dt.int32, "u": dt.uint32, "b": dt.bool1}


@dataclass
class _Operation:
    name: str
    output: dt.DType
    forward: object
    vjp: object
    jvp: object


_REGISTRY: dict[str, _Operation] = {}


def register_custom_operation(name: str, overloads: str | Sequence[str], forward: Callable[..., list[Tensor]],
                              vjp: Callable[..., list[Tensor | None]] | None = None,
                              jvp: Callable[..., Tensor] | None = None) -> None:
    """Register ``tf.custom(name, ...)``. ``overloads`` lists type signatures in upstream's
    spelling, ``"ff_f"``: one letter per input (f, i, u, b), then the result's; the result
    type is taken from the first. ``vjp`` may be None for an operation without gradient.
    ``jvp(inputs, tangents, tensor)`` (optional) returns the result's tangent from one
    tangent per input (None for zero) for ``tf.jvp``; without it, ``tf.jvp`` transposes the
    vjp (one reverse sweep of the vjp's code).

    >>> def forward(inputs, tensor, axes):
    ...     return [tf.tanh(inputs[0])]
    >>> def vjp(inputs, gradient, tensor):
    ...     return [gradient * (1.0 - tensor * tensor)]
    >>> tf.register_custom_operation("new_tanh", ["f_f"], forward, vjp)
    >>> def program():
    ...     a = tf.input([-1], tf.float32)
    ...     b = tf.custom("new_tanh", [a])
    ...     return b, tf.grad(b, a)
    >>> [r.numpy for r in tf.compile(program)(np.array([0.0, 1.0], np.float32))]
    [array([0.    , 0.7616], dtype=float32), array([1.  , 0.42], dtype=float32)]
    """
    if not isinstance(name, str) or not name:
        raise TensorFrostError(f"tf.register_custom_operation: name must be a non-empty string, got {name!r}")
    overloads = [overloads] if isinstance(overloads, str) else list(overloads)
    if not overloads or not all(isinstance(o, str) and "_" in o and o.rsplit("_", 1)[1] in _KINDS
                                for o in overloads):
        raise TensorFrostError(f"tf.register_custom_operation({name!r}): overloads must be strings like "
                               f"'ff_f' (input letters, '_', the result's letter: f, i, u or b), got {overloads!r}")
    for function, what in ((forward, "forward"), (vjp, "vjp"), (jvp, "jvp")):
        if function is not None and not callable(function):
            raise TensorFrostError(f"tf.register_custom_operation({name!r}): {what} must be a function, got "
                                   f"{type(function).__name__}")
    if forward is None:
        raise TensorFrostError(f"tf.register_custom_operation({name!r}): forward is required")
    _REGISTRY[name] = _Operation(name, _KINDS[overloads[0].rsplit("_", 1)[1]], forward, vjp, jvp)


def custom(name: str, inputs: Sequence[Tensor], shape: Sequence[int | Tensor] | None = None) -> Tensor:
    """The result of the registered operation ``name`` on ``inputs`` (a list of tensors),
    of ``shape`` (default: the first input's).

    >>> def forward(inputs, tensor, axes):
    ...     return [tf.tanh(inputs[0])]
    >>> def vjp(inputs, gradient, tensor):
    ...     return [gradient * (1.0 - tensor * tensor)]
    >>> tf.register_custom_operation("new_tanh", ["f_f"], forward, vjp)
    >>> def program():
    ...     a = tf.input([-1], tf.float32)
    ...     b = tf.custom("new_tanh", [a])
    ...     return b, tf.grad(b, a)
    >>> [r.numpy for r in tf.compile(program)(np.array([0.0, 1.0], np.float32))]
    [array([0.    , 0.7616], dtype=float32), array([1.  , 0.42], dtype=float32)]
    """
    operation = _REGISTRY.get(name)
    if operation is None:
        known = ", ".join(sorted(_REGISTRY)) or "none"
        raise TraceError(f"tf.custom: no operation {name!r} is registered (registered: {known}); call "
                         "tf.register_custom_operation first", user_location())
    tensors = [x if isinstance(x, Tensor) else Tensor(node_of(x)) for x in inputs]
    if shape is None:
        if not tensors:
            raise TraceError(f"tf.custom({name!r}): give a shape for an operation without inputs", user_location())
        shape = tensors[0].shape
    placeholder = zeros(shape, operation.output)
    # Gradients go through the vjp only: the forward's operations (loops updating tensors in
    # place, say) are not differentiated.
    detached = [t.detach_grad() for t in tensors]
    result = operation.forward(detached, placeholder, list(indices(shape)) if placeholder.ndim else [])
    if isinstance(result, (list, tuple)):
        if len(result) != 1:
            raise TraceError(f"tf.custom({name!r}): forward must return a list of one tensor, got {len(result)}",
                             user_location())
        result = result[0]
    value = node_of(result)
    node = current().make("custom_grad", [value, *(t.node for t in tensors)], attrs={"name": name},
                          dtype=value.dtype, shape=value.shape)
    return Tensor(node)


def custom_vjp(name: str, inputs, gradient: Tensor, value, location) -> list:
    """The gradients of the inputs of custom operation ``name`` (called by the autodiff pass)."""
    operation = _REGISTRY[name]
    if operation.vjp is None:
        return [None] * len(inputs)
    grads = operation.vjp([Tensor(n) for n in inputs], gradient, Tensor(value))
    grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
    if len(grads) != len(inputs):
        raise TraceError(f"the vjp of custom operation {name!r} returned {len(grads)} gradient(s) for "
                         f"{len(inputs)} input(s)", location)
    return [g if g is None or isinstance(g, Tensor) else Tensor(node_of(g)) for g in grads]


def custom_jvp(name: str, inputs, tangents: list, value, location):
    """The tangent of custom operation ``name``'s result (called by the forward-mode pass):
    its jvp's, None (zero) for an operation with neither rule, or NotImplemented for one
    with only a vjp (the pass transposes it)."""
    operation = _REGISTRY[name]
    if operation.jvp is None:
        return None if operation.vjp is None else NotImplemented
    tangent = operation.jvp([Tensor(n) for n in inputs], tangents, Tensor(value))
    if isinstance(tangent, (list, tuple)):
        if len(tangent) != 1:
            raise TraceError(f"the jvp of custom operation {name!r} must return one tangent, got {len(tangent)}",
                             location)
        tangent = tangent[0]
    return tangent if tangent is None or isinstance(tangent, Tensor) else Tensor(node_of(tangent))
