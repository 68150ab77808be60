"""Small vectors (``tf.vec``): 2 to 4 tensors that move together, for the shader-style code
upstream's Mandelbrot notebook writes::

    z = tf.vec(0.0, 0.0)
    c = tf.float(tf.vec(i, j)) * (3.0 / S) - 2.0
    with tf.loop(128):
        z.val = tf.vec(z.x * z.x - z.y * z.y + c.x, 2.0 * z.x * z.y + c.y)
        tf.if_cond(tf.dot(z, z) > 4.0, tf.break_loop)
    image[i, j, :] = 0.5 + 0.5 * tf.cos(tf.vec(0.0, 0.3, 0.6) + t)

Operators and elementwise functions (``tf.cos``, ``tf.float``, ``tf.select`` ...) apply per
component, a tensor or number meeting a vector applies to each component; ``tf.dot(u, v)``
is the sum of the components' products; ``.x .y .z .w`` (or ``v[k]``) are the components;
``v.val = w`` updates each one (a vector made from constants is a variable, like
``tf.copy``); ``A[..., :] = v`` stores the components along the last axis. There is no
vector type in the IR: each component is an ordinary tensor, so vectors fuse like any
other code.
"""

from __future__ import annotations

from ..ir.errors import ShapeError, TraceError, user_location
from .mathfn import copy
from .tensor import Tensor, apply

_NAMES = "xyzw"


class Vec:
    """A vector of 2 to 4 tensor components (see the module docstring)."""

    __slots__ = ("components",)
    __array_priority__ = 1001  # numpy scalars defer to our operators
    is_vector = True  # how tensor.apply, tf.dot and indexing recognise a vector without importing this module

    def __init__(self, components):
        self.components = tuple(components)

    def __len__(self) -> int:
        return len(self.components)

    def __iter__(self):
        return iter(self.components)

    def __getitem__(self, k: int):
        return self.components[k]

    def __getattr__(self, name: str):
        if len(name) == 1 and name in _NAMES:
            k = _NAMES.index(name)
            if k < len(self.components):
                return self.components[k]
        raise AttributeError(f"a tf.vec of {len(self.components)} components has no attribute '{name}'")

    @property
    def val(self) -> Vec:
        return self

    @val.setter
    def val(self, value) -> None:
        value = _components(value, len(self.components), "tf.vec .val")
        for mine, new in zip(self.components, value):
            mine.val = new

    def __repr__(self) -> str:
        return f"tf.vec({', '.join(map(repr, self.components))})"

    def __bool__(self):
        raise TraceError("a tf.vec has no Python truth value", user_location())

    @staticmethod
    def map_components(function, operands) -> Vec:
        """``function`` applied per component; other operands apply to each component."""
        count = next(len(v) for v in operands if isinstance(v, Vec))
        per_operand = [_components(v, count, "tf.vec") for v in operands]
        return Vec(function(*parts) for parts in zip(*per_operand))

    def dot(self, other):
        """The sum of the components' products (``tf.dot(u, v)``)."""
        total = None
        for x, y in zip(self.components, _components(other, len(self), "tf.dot")):
            total = x * y if total is None else total + x * y
        return total

    def store_into(self, target: Tensor, index) -> None:
        """``target[..., :] = v``: component k goes to position k of the last axis."""
        items = list(index) if isinstance(index, tuple) else [index]
        if not items or items[-1] != slice(None):
            raise TraceError("storing a tf.vec needs ':' as the last index (A[i, j, :] = v)", user_location())
        for k, component in enumerate(self.components):
            target[tuple(items[:-1]) + (k,)] = component


def _components(value, count: int, what: str) -> tuple:
    if isinstance(value, Vec):
        if len(value) != count:
            raise ShapeError(f"{what}: a vector of {len(value)} components meets one of {count}", user_location())
        return value.components
    return (value,) * count


def vec(*components: Tensor | float) -> Vec:
    """A vector of 2 to 4 components (tensors or numbers); made of constants it is a variable
    whose components ``.val`` can update.

    >>> def lengths():
    ...     p = tf.input([-1, 2], tf.float32)
    ...     i, = tf.indices([p.shape[0]])
    ...     v = tf.vec(p[i, 0], p[i, 1]) * 2.0
    ...     return tf.sqrt(tf.dot(v, v))
    >>> tf.compile(lengths)(np.array([[3.0, 4.0], [1.0, 0.0]], np.float32)).numpy
    array([10.,  2.], dtype=float32)
    """
    if not 2 <= len(components) <= 4:
        raise ShapeError(f"tf.vec: expected 2 to 4 components, got {len(components)}", user_location())
    return Vec(c if isinstance(c, Tensor) else copy(c) for c in components)


def _binary(op_name: str, swapped: bool = False):
    def method(self, other):
        if swapped:
            return Vec.map_components(lambda a, b: apply(op_name, b, a), (self, other))
        return Vec.map_components(lambda a, b: apply(op_name, a, b), (self, other))
    return method


# The operators, per component.
for _name, _op in (("add", "add"), ("sub", "sub"), ("mul", "mul"), ("truediv", "div"), ("mod", "mod"),
                   ("floordiv", "floordiv"), ("lt", "lt"), ("le", "le"), ("gt", "gt"), ("ge", "ge")):
    setattr(Vec, f"__{_name}__", _binary(_op))
    if _name not in ("lt", "le", "gt", "ge"):
        setattr(Vec, f"__r{_name}__", _binary(_op, swapped=True))
Vec.__neg__ = lambda self: Vec(-c for c in self.components)
Vec.__pow__ = lambda self, p: Vec(c ** p for c in self.components)
