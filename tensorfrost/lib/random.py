"""Random numbers inside tensor programs (``tf.random``): counter-based, so each element's
value is a hash of (seed, stream, element index) and the same seed gives the same numbers
on every backend, in any order of evaluation.

The seed is a Python int or a tensor (an int or uint scalar or [1] input), so a compiled
training step draws fresh numbers each call from a seed argument, without recompiling::

    def step():
        x = tf.input([-1, 64], tf.float32)
        seed = tf.input([1], tf.uint32)
        keep = tf.random.dropout_mask(x.shape, 0.1, seed)
        noise = tf.random.randn(x.shape, seed)
        ...

Every call in a program gets a stream of its own (numbered in the order of the calls), so
two calls with one seed are independent; pass ``stream=`` to choose it. The hash is two
rounds of PCG's output permutation (``tf.pcg``), whose 32-bit results pass the mean,
variance and Kolmogorov-Smirnov checks of tests/test_random.py."""

from __future__ import annotations

import math
import weakref

from ..ir import dtypes as dt
from ..ir.builder import current
from ..ir.errors import ArgumentError, user_location
from ..ir.shapes import static_value
from ..tracing.api import const, indices
from ..tracing.helpers import element_index
from ..tracing.mathfn import cos, log, pcg, select, sqrt, uint
from ..tracing.mathfn import float as to_float
from ..tracing.mathfn import int as to_int
from ..tracing.tensor import Tensor
from .sort import argsort

_STREAMS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # program -> calls so far
_GOLDEN = 0x9E3779B9  # spreads stream numbers over the 32-bit space
_TWO_POW_24 = 16777216.0


def _next_stream(stream) -> int:
    if stream is not None:
        if isinstance(stream, bool) or not isinstance(stream, int):
            raise ArgumentError(f"tf.random: stream must be an int, got {stream!r}", user_location())
        return stream
    program = current().program
    number = _STREAMS.get(program, 0)
    _STREAMS[program] = number + 1
    return number


def _seed_key(seed) -> Tensor:
    if isinstance(seed, Tensor):
        if seed.dtype not in (dt.int32, dt.uint32) or seed.node.rank > 1 or (
                seed.node.rank == 1 and static_value(seed.node.shape[0]) != 1):
            raise ArgumentError(f"tf.random: a seed tensor must be an int32 or uint32 scalar or [1] tensor, got "
                                f"{seed.dtype!r} of rank {seed.node.rank}", user_location())
        return uint(seed[0] if seed.node.rank else seed)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ArgumentError(f"tf.random: seed must be an int or an int/uint tensor, got {seed!r}", user_location())
    return const(seed % 2**32, (), dt.uint32)


def bits(shape, seed=0, stream: int | None = None) -> Tensor:
    """Uniform random uint32 of ``shape``: every 32-bit pattern equally likely."""
    key = _seed_key(seed)
    salt = pcg(key + uint(const((_next_stream(stream) * _GOLDEN) % 2**32, (), dt.uint32)))
    return pcg(pcg(uint(element_index(shape)) ^ salt) + key)


def _unit(word: Tensor) -> Tensor:
    """A uint32 mapped to a float in [0, 1) (its top 24 bits: every value exact)."""
    return to_float(word >> uint(const(8, (), dt.uint32))) * (1.0 / _TWO_POW_24)


def rand(shape, seed=0, stream: int | None = None) -> Tensor:
    """Uniform float32 in [0, 1) of ``shape`` (multiples of 2^-24)."""
    return _unit(bits(shape, seed, stream))


def randn(shape, seed=0, stream: int | None = None) -> Tensor:
    """Standard normal float32 of ``shape`` (Box-Muller on two hashes of each element)."""
    word = bits(shape, seed, stream)
    u1 = 1.0 - _unit(word)  # in (0, 1]: its log is finite
    u2 = _unit(pcg(word ^ uint(const(0x68E31DA4, (), dt.uint32))))
    return sqrt(-2.0 * log(u1)) * cos((2.0 * math.pi) * u2)


def rand_int(shape, low: int, high: int, seed=0, stream: int | None = None) -> Tensor:
    """Uniform int32 in [low, high) of ``shape`` (bias below (high - low) / 2^32)."""
    for name, value in (("low", low), ("high", high)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ArgumentError(f"tf.random.rand_int: {name} must be an int, got {value!r}", user_location())
    if not -2**31 <= low < high <= 2**31:
        raise ArgumentError(f"tf.random.rand_int: needs -2^31 <= low < high <= 2^31, got low={low}, high={high}",
                            user_location())
    word = bits(shape, seed, stream)
    span = high - low
    offset = word if span == 2**32 else word % uint(const(span, (), dt.uint32))
    return to_int(offset + uint(const(low % 2**32, (), dt.uint32)))  # wraps as uint32, then as int32


def dropout_mask(shape, rate: float, seed=0, stream: int | None = None) -> Tensor:
    """A float32 mask of ``shape``: 0 with probability ``rate``, else 1 / (1 - rate), so that
    ``x * mask`` keeps the expected value of ``x``."""
    if not 0.0 <= rate < 1.0:
        raise ArgumentError(f"tf.random.dropout_mask: rate must be in [0, 1), got {rate!r}", user_location())
    return select(rand(shape, seed, stream) < rate, 0.0, 1.0 / (1.0 - rate))


def rand_like(x: Tensor, seed=0, stream: int | None = None) -> Tensor:
    return rand(x.shape, seed, stream)


def randn_like(x: Tensor, seed=0, stream: int | None = None) -> Tensor:
    return randn(x.shape, seed, stream)


def rand_int_like(x: Tensor, low: int, high: int, seed=0, stream: int | None = None) -> Tensor:
    return rand_int(x.shape, low, high, seed, stream)


def permutation(n, seed=0, stream: int | None = None) -> Tensor:
    """A random permutation of ``0 .. n-1`` as int32 of shape [n]: the stable argsort of
    ``n`` random words (``tf.sort.argsort``), so every order is equally likely up to ties
    between 32-bit words (about n^2 / 2^33 pairs, which keep their order).

    ``n`` is an int or an int scalar tensor (e.g. ``x.shape[0]``)::

        order = tf.random.permutation(x.shape[0], seed)
        batch = x[order[0:64]]
    """
    if isinstance(n, bool) or not isinstance(n, (int, Tensor)):
        raise ArgumentError(f"tf.random.permutation: n must be an int or an int scalar tensor, got {n!r}",
                            user_location())
    if isinstance(n, int) and n < 0:
        raise ArgumentError(f"tf.random.permutation: n must be >= 0, got {n}", user_location())
    return argsort(bits([n], seed, stream))


def shuffle(x: Tensor, seed=0, axis: int = 0, stream: int | None = None) -> Tensor:
    """``x`` with its slices along ``axis`` in a random order (``permutation`` of that axis)::

        shuffled = tf.random.shuffle(samples, seed)   # rows permuted, each row intact
    """
    if not isinstance(x, Tensor) or x.node.rank == 0:
        raise ArgumentError("tf.random.shuffle: x must be a tensor of rank 1 or more", user_location())
    rank = x.node.rank
    if isinstance(axis, bool) or not isinstance(axis, int) or not -rank <= axis < rank:
        raise ArgumentError(f"tf.random.shuffle: axis must be an int in [{-rank}, {rank - 1}], got {axis!r}",
                            user_location())
    axis %= rank
    order = permutation(x.shape[axis], seed, stream)
    where = list(indices(x.shape))
    where[axis] = order[where[axis]]
    return x[tuple(where)]
