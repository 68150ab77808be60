"""Argument checks shared by the layers: every message names the function, the argument,
what was expected and what was given, and points at the user's line."""

from __future__ import annotations

from ...ir.errors import ArgumentError, DTypeError, ShapeError, user_location
from ...ir.shapes import static_value
from ...tracing.tensor import Tensor


def tensor_arg(value, fn: str, name: str, ranks=None) -> Tensor:
    """``value`` as a traced tensor of one of ``ranks`` (any rank when None)."""
    if not isinstance(value, Tensor):
        raise ArgumentError(f"{fn}: {name} must be a tensor inside a tensor program, got {type(value).__name__}",
                            user_location())
    if ranks is not None and value.ndim not in ranks:
        wanted = " or ".join(str(r) for r in ranks)
        raise ShapeError(f"{fn}: {name} must have rank {wanted}, got rank {value.ndim}", user_location())
    return value


def float_arg(value: Tensor, fn: str, name: str) -> Tensor:
    """``value`` unchanged when it is float32."""
    if not value.dtype.is_float:
        raise DTypeError(f"{fn}: {name} must be float32, got {value.dtype.name}", user_location())
    return value


def int_pair(value, fn: str, name: str, minimum: int) -> tuple:
    """An int or a pair of ints (height, width), each at least ``minimum``, as a pair."""
    pair = (value, value) if isinstance(value, int) else tuple(value) if isinstance(value, (tuple, list)) else None
    if pair is None or len(pair) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in pair):
        raise ArgumentError(f"{fn}: {name} must be an int or a pair of ints, got {value!r}", user_location())
    if min(pair) < minimum:
        raise ArgumentError(f"{fn}: {name} must be at least {minimum}, got {value!r}", user_location())
    return pair


def positive_int(value, fn: str, name: str) -> int:
    """``value`` when it is a Python int of at least 1."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ArgumentError(f"{fn}: {name} must be a positive int, got {value!r}", user_location())
    return value


def probability(value, fn: str, name: str) -> float:
    """``value`` as a float in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise ArgumentError(f"{fn}: {name} must be a number in [0, 1], got {value!r}", user_location())
    return float(value)


def static_dim(x: Tensor, axis: int):
    """The Python int of ``x.shape[axis]`` when it is known at trace time, else None."""
    return static_value(x.node.shape[axis])


def check_dim(x: Tensor, axis: int, expected, fn: str, what: str) -> None:
    """A ShapeError when ``x.shape[axis]`` is known and differs from ``expected`` (an int or None)."""
    have = static_dim(x, axis)
    if expected is not None and have is not None and have != expected:
        raise ShapeError(f"{fn}: {what} is {have}, expected {expected}", user_location())
