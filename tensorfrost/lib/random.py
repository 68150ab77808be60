"""Random numbers (``tf.random``), counter-based: each element's value is a hash of
(seed, stream, element index), so the same seed gives the same numbers on every backend,
in any order of evaluation.

The functions are pure: ``tf.random.rand(shape)`` in a compiled program gives the same
numbers on every call of the program unless its seed changes. For fresh numbers each
call, make the seed an input of the program (an int32/uint32 scalar or [1] tensor) and
pass a new one each call, without recompiling; ``tf.random.Generator(seed).next_seed()``
gives such seeds, and ``Generator.rand`` / ``randn`` / ``rand_int`` draw new numbers
outside programs, as numpy's ``np.random.default_rng(seed)`` does::

    def step():
        x = tf.input([-1, 64], tf.float32)
        seed = tf.input([1], tf.uint32)
        keep = tf.random.dropout_mask(x.shape, 0.1, seed)
        noise = tf.random.randn(x.shape, seed)
        ...
    step = tf.compile(step)
    g = tf.random.Generator(0)
    for _ in range(100):
        out = step(x, g.next_seed())

Every call in a program gets a stream of its own (numbered in the order of the calls), so
two calls with one seed are independent; pass ``stream=`` to choose it. The hash is two
rounds of PCG's output permutation (``tf.pcg``), whose 32-bit results pass the mean,
variance and Kolmogorov-Smirnov checks of tests/test_random.py and
tests/test_random_generator.py."""

from __future__ import annotations

import math
import threading
import weakref

import numpy as np

from .. import backend as devices
from ..ir import dtypes as dt
from ..ir.builder import current
from ..ir.errors import ArgumentError, user_location
from ..ir.shapes import static_value
from ..program import TensorProgram, build_conditions
from ..tracing.api import const, indices
from ..tracing.api import input as tensor_input
from ..tracing.helpers import element_index
from ..tracing.mathfn import cos, log, pcg, select, sqrt, uint
from ..tracing.mathfn import float as to_float
from ..tracing.mathfn import int as to_int
from ..tracing.tensor import Tensor
from .sort import argsort

Shape = list[int | Tensor] | tuple[int | Tensor, ...]  # a shape: ints, or dims of other tensors
Seed = int | Tensor  # a Python int, or a uint32/int32 tensor (a program input, to change per call)

__all__ = ["bits", "rand", "randn", "rand_int", "dropout_mask", "rand_like", "randn_like", "rand_int_like",
           "permutation", "shuffle", "Generator"]

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


def bits(shape: Shape, seed: Seed = 0, stream: int | None = None) -> Tensor:
    """Uniform random uint32 of ``shape``: every 32-bit pattern equally likely.

    >>> tf.compile(lambda: tf.random.bits([3], seed=7))().numpy
    array([1171586029, 2504227644,   91209142], dtype=uint32)
    """
    key = _seed_key(seed)
    salt = pcg(key + uint(const((_next_stream(stream) * _GOLDEN) % 2**32, (), dt.uint32)))
    return _words(shape, key, salt)


def _words(shape, key: Tensor, salt: Tensor) -> Tensor:
    """The hash of each element's index under (key, salt): a bijection of the indices for
    each pair. The salt enters both rounds: from the first alone, two salts that agree above
    the tensor's index bits would give the same numbers in another order."""
    return pcg(pcg(uint(element_index(shape)) ^ salt) + (key ^ salt))


def _unit(word: Tensor) -> Tensor:
    """A uint32 mapped to a float in [0, 1) (its top 24 bits: every value exact)."""
    return to_float(word >> uint(const(8, (), dt.uint32))) * (1.0 / _TWO_POW_24)


def _normal(word: Tensor) -> Tensor:
    """A standard normal float32 from a uint32 (Box-Muller on two hashes of it)."""
    u1 = 1.0 - _unit(word)  # in (0, 1]: its log is finite
    u2 = _unit(pcg(word ^ uint(const(0x68E31DA4, (), dt.uint32))))
    return sqrt(-2.0 * log(u1)) * cos((2.0 * math.pi) * u2)


def _check_bounds(where: str, low, high) -> None:
    for name, value in (("low", low), ("high", high)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ArgumentError(f"{where}: {name} must be an int, got {value!r}", user_location())
    if not -2**31 <= low < high <= 2**31:
        raise ArgumentError(f"{where}: needs -2^31 <= low < high <= 2^31, got low={low}, high={high}",
                            user_location())


def rand(shape: Shape, seed: Seed = 0, stream: int | None = None) -> Tensor:
    """Uniform float32 in [0, 1) of ``shape`` (multiples of 2^-24).

    The numbers are a function of ``seed`` and the call's stream alone: a compiled program
    gives the same numbers on every call unless its seed changes. Pass the seed as an input
    of the program (a uint32 [1] tensor) and change it each call, for example with
    ``tf.random.Generator(seed).next_seed()``; outside programs ``Generator.rand`` draws new
    numbers each call.

    >>> noise = tf.compile(lambda: tf.random.rand([2, 3], seed=7))
    >>> noise().numpy
    array([[0.2728, 0.5831, 0.0212],
           [0.1406, 0.4226, 0.2756]], dtype=float32)
    >>> np.array_equal(noise().numpy, noise().numpy)    # the same seed: the same numbers
    True
    """
    return _unit(bits(shape, seed, stream))


def randn(shape: Shape, seed: Seed = 0, stream: int | None = None) -> Tensor:
    """Standard normal float32 of ``shape`` (Box-Muller on two hashes of each element).
    The same seed gives the same numbers on every call (see ``rand``).

    >>> tf.compile(lambda: tf.random.randn([4], seed=7))().numpy
    array([ 0.2961, -1.1981,  0.1626, -0.2153], dtype=float32)
    """
    return _normal(bits(shape, seed, stream))


def rand_int(shape: Shape, low: int, high: int, seed: Seed = 0, stream: int | None = None) -> Tensor:
    """Uniform int32 in [low, high) of ``shape`` (bias below (high - low) / 2^32). The same
    seed gives the same numbers on every call (see ``rand``).

    >>> tf.compile(lambda: tf.random.rand_int([6], 0, 10, seed=7))().numpy
    array([9, 4, 2, 0, 9, 2], dtype=int32)
    """
    _check_bounds("tf.random.rand_int", low, high)
    word = bits(shape, seed, stream)
    span = high - low
    offset = word if span == 2**32 else word % uint(const(span, (), dt.uint32))
    return to_int(offset + uint(const(low % 2**32, (), dt.uint32)))  # wraps as uint32, then as int32


def dropout_mask(shape: Shape, rate: float, seed: Seed = 0, stream: int | None = None) -> Tensor:
    """A float32 mask of ``shape``: 0 with probability ``rate``, else 1 / (1 - rate), so that
    ``x * mask`` keeps the expected value of ``x``. The same seed gives the same mask on
    every call (see ``rand``): pass a seed input that changes each training step.

    >>> def dropped():
    ...     x = tf.input([-1], tf.float32)
    ...     step = tf.input([1], tf.uint32)
    ...     return x * tf.random.dropout_mask(x.shape, 0.5, step)
    >>> dropped = tf.compile(dropped)
    >>> dropped(np.ones(6, np.float32), np.array([2], np.uint32)).numpy
    array([0., 2., 0., 2., 2., 0.], dtype=float32)
    >>> dropped(np.ones(6, np.float32), np.array([3], np.uint32)).numpy   # another step, another mask
    array([0., 0., 2., 2., 2., 0.], dtype=float32)
    """
    if not 0.0 <= rate < 1.0:
        raise ArgumentError(f"tf.random.dropout_mask: rate must be in [0, 1), got {rate!r}", user_location())
    return select(rand(shape, seed, stream) < rate, 0.0, 1.0 / (1.0 - rate))


def rand_like(x: Tensor, seed: Seed = 0, stream: int | None = None) -> Tensor:
    """``rand(x.shape, seed, stream)``: uniform float32 in [0, 1) of ``x``'s shape.

    >>> tf.compile(lambda: tf.random.rand_like(tf.input([-1], tf.float32), 7))(np.zeros(3, np.float32)).numpy
    array([0.2728, 0.5831, 0.0212], dtype=float32)
    """
    return rand(x.shape, seed, stream)


def randn_like(x: Tensor, seed: Seed = 0, stream: int | None = None) -> Tensor:
    """``randn(x.shape, seed, stream)``: standard normal float32 of ``x``'s shape.

    >>> tf.compile(lambda: tf.random.randn_like(tf.input([-1], tf.float32), 7))(np.zeros(3, np.float32)).shape
    (3,)
    """
    return randn(x.shape, seed, stream)


def rand_int_like(x: Tensor, low: int, high: int, seed: Seed = 0, stream: int | None = None) -> Tensor:
    """``rand_int(x.shape, low, high, seed, stream)``: uniform int32 in [low, high).

    >>> digits = tf.compile(lambda: tf.random.rand_int_like(tf.input([-1], tf.float32), 0, 10, 7))
    >>> digits(np.zeros(5, np.float32)).numpy
    array([9, 4, 2, 0, 9], dtype=int32)
    """
    return rand_int(x.shape, low, high, seed, stream)


def permutation(n: int | Tensor, seed: Seed = 0, stream: int | None = None) -> Tensor:
    """A random permutation of ``0 .. n-1`` as int32 of shape [n]: the stable argsort of
    ``n`` random words (``tf.sort.argsort``), so every order is equally likely up to ties
    between 32-bit words (about n^2 / 2^33 pairs, which keep their order).

    ``n`` is an int or an int scalar tensor (e.g. ``x.shape[0]``)::

        order = tf.random.permutation(x.shape[0], seed)
        batch = x[order[0:64]]

    >>> tf.compile(lambda: tf.random.permutation(5, 7))().numpy
    array([2, 3, 0, 4, 1], dtype=int32)
    """
    if isinstance(n, bool) or not isinstance(n, (int, Tensor)):
        raise ArgumentError(f"tf.random.permutation: n must be an int or an int scalar tensor, got {n!r}",
                            user_location())
    if isinstance(n, int) and n < 0:
        raise ArgumentError(f"tf.random.permutation: n must be >= 0, got {n}", user_location())
    return argsort(bits([n], seed, stream))


def shuffle(x: Tensor, seed: Seed = 0, axis: int = 0, stream: int | None = None) -> Tensor:
    """``x`` with its slices along ``axis`` in a random order (``permutation`` of that axis)::

        shuffled = tf.random.shuffle(samples, seed)   # rows permuted, each row intact

    >>> rows = tf.compile(lambda: tf.random.shuffle(tf.input([-1, 2], tf.float32), 7))
    >>> rows(np.arange(10, dtype=np.float32).reshape(5, 2)).numpy
    array([[4., 5.],
           [6., 7.],
           [0., 1.],
           [8., 9.],
           [2., 3.]], dtype=float32)
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


# -- a generator that advances (numpy's np.random.default_rng) --------------------------------

_MASK64 = 2**64 - 1
_DRAWS = ("bits", "rand", "randn", "rand_int")
_programs: dict = {}  # (draw, rank, backend name) -> the compiled draw
_programs_lock = threading.Lock()


def _splitmix64(value: int) -> int:
    """SplitMix64's finalizer: a bijection of 64-bit words whose every output bit depends on
    every input bit (so consecutive counters give unrelated keys)."""
    value = (value + 0x9E3779B97F4A7C15) & _MASK64
    value = ((value ^ (value >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    value = ((value ^ (value >> 27)) * 0x94D049BB133111EB) & _MASK64
    return value ^ (value >> 31)


def _permute32(value: int) -> int:
    """PCG's output permutation of a 32-bit word (``tf.pcg``): a bijection."""
    state = (value * 747796405 + 2891336453) & 0xFFFFFFFF
    word = (((state >> ((state >> 28) + 4)) ^ state) * 277803737) & 0xFFFFFFFF
    return (word >> 22) ^ word


def _draw_program(draw: str, rank: int):
    """The compiled program of one draw of ``rank`` on the current backend: its inputs are
    the shape (int32 [rank]), the key and salt (uint32 [2]) and, for ``rand_int``, the span
    and low bound as uint32 words (so that one program serves every bound)."""
    device = devices.current_device()
    cache_key = (draw, rank, device.name, build_conditions())
    program = _programs.get(cache_key)
    if program is None:
        with _programs_lock:
            program = _programs.get(cache_key)
            if program is None:
                def drawn():
                    dims = tensor_input([rank], dt.int32)
                    keys = tensor_input([2], dt.uint32)
                    bounds = tensor_input([2], dt.uint32) if draw == "rand_int" else None
                    word = _words([dims[k] for k in range(rank)], keys[0], keys[1])
                    if draw == "rand":
                        return _unit(word)
                    if draw == "randn":
                        return _normal(word)
                    if draw == "rand_int":  # a span of 2^32 is the word 0: every word is kept
                        span = bounds[0]
                        kept = select(span == uint(const(0, (), dt.uint32)), word,
                                      word % (span + uint(span == uint(const(0, (), dt.uint32)))))
                        return to_int(kept + bounds[1])
                    return word
                program = TensorProgram(drawn, name=f"generator_{draw}_rank{rank}", device=device)
                _programs[cache_key] = program
    return program


def _checked_shape(where: str, shape) -> list[int]:
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = [shape]
    if not isinstance(shape, (list, tuple)) or any(
            isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 0 for d in shape):
        raise ArgumentError(f"{where}: shape must be an int or a list of ints >= 0, got {shape!r}")
    if any(d > 2**31 - 1 for d in shape) or math.prod(int(d) for d in shape) > 2**31 - 1:
        raise ArgumentError(f"{where}: shape {list(shape)} has more than 2^31 - 1 elements")
    return [int(d) for d in shape]


class Generator:
    """Random numbers that advance, as numpy's ``np.random.default_rng(seed)``: each call
    gives new numbers, and the same ``seed`` gives the same sequence of calls again (on
    every backend: the numbers are a hash of the seed, the number of the call and each
    element's index).

    Outside programs, ``rand``, ``randn``, ``rand_int`` and ``bits`` return tensors on the
    current backend (each kind of draw is compiled once per rank and backend, then cached):

    >>> g = tf.random.Generator(42)
    >>> g.rand([2, 3])
    tf.tensor([[0.8507, 0.0339, 0.3041],
               [0.4544, 0.739 , 0.5466]], dtype=tf.float32, shape=[2, 3], backend=cpu)
    >>> np.array_equal(g.rand([2, 3]).numpy, tf.random.Generator(42).rand([2, 3]).numpy)
    False

    Inside programs, which give the same numbers for the same seed, ``next_seed()`` is the
    seed input that advances: a new uint32 [1] tensor for each call of the program.

    >>> def noisy():
    ...     x = tf.input([-1], tf.float32)
    ...     seed = tf.input([1], tf.uint32)
    ...     return x + tf.random.randn(x.shape, seed)
    >>> noisy = tf.compile(noisy)
    >>> g = tf.random.Generator(0)
    >>> a, b = noisy(np.zeros(3, np.float32), g.next_seed()), noisy(np.zeros(3, np.float32), g.next_seed())
    >>> np.array_equal(a.numpy, b.numpy)
    False

    ``seed`` is any int (taken modulo 2^64); ``g.seed`` is it, ``g.draws`` the calls made so
    far. A generator is not meant to be shared by threads that draw at once (as numpy's).
    """

    def __init__(self, seed: int = 0):
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ArgumentError(f"tf.random.Generator: seed must be an int, got {seed!r}")
        self.seed = int(seed) & _MASK64
        self.draws = 0  # calls made so far: the next call's number

    def _next_keys(self) -> tuple[int, int]:
        """The (key, salt) words of the next call: 64 bits of (seed, call number), so calls
        repeat no pair until 2^64 of them."""
        mixed = _splitmix64(_splitmix64(self.seed) ^ self.draws)
        self.draws += 1
        return mixed & 0xFFFFFFFF, mixed >> 32

    def _draw(self, draw: str, where: str, shape, bounds=None):
        dims = _checked_shape(where, shape)
        program = _draw_program(draw, len(dims))
        arguments = [np.array(dims, np.int32), np.array(self._next_keys(), np.uint32)]
        if bounds is not None:
            arguments.append(np.array(bounds, np.uint32))
        return program(*arguments)

    def bits(self, shape):
        """Uniform uint32 of ``shape`` (every 32-bit pattern equally likely), new each call.

        >>> tf.random.Generator(1).bits([3]).numpy.dtype
        dtype('uint32')
        """
        return self._draw("bits", "Generator.bits", shape)

    def rand(self, shape):
        """Uniform float32 in [0, 1) of ``shape`` (multiples of 2^-24), new each call.

        >>> g = tf.random.Generator(1)
        >>> g.rand(3).numpy
        array([0.4475, 0.275 , 0.1937], dtype=float32)
        >>> g.rand(3).numpy
        array([0.1922, 0.6544, 0.6501], dtype=float32)
        """
        return self._draw("rand", "Generator.rand", shape)

    def randn(self, shape):
        """Standard normal float32 of ``shape``, new each call.

        >>> tf.random.Generator(1).randn([2, 2]).numpy
        array([[-1.0441,  0.6841],
               [-0.507 ,  0.8384]], dtype=float32)
        """
        return self._draw("randn", "Generator.randn", shape)

    def rand_int(self, shape, low: int, high: int):
        """Uniform int32 in [low, high) of ``shape`` (bias below (high - low) / 2^32), new
        each call.

        >>> tf.random.Generator(1).rand_int([8], 0, 6).numpy
        array([4, 4, 5, 1, 1, 1, 3, 0], dtype=int32)
        """
        _check_bounds("Generator.rand_int", low, high)
        return self._draw("rand_int", "Generator.rand_int", shape, ((high - low) % 2**32, low % 2**32))

    def next_seed(self):
        """A new uint32 [1] tensor each call, for the ``seed`` input of a program that draws
        with ``tf.random`` (whose numbers change only when their seed does). The seeds of one
        generator do not repeat within 2^32 calls.

        >>> g = tf.random.Generator(5)
        >>> g.next_seed()
        tf.tensor([4239190345], dtype=tf.uint32, shape=[1], backend=cpu)
        >>> g.next_seed().item() != tf.random.Generator(5).next_seed().item()
        True
        """
        base = _splitmix64(self.seed)  # a bijection of the call number: no seed repeats in 2^32 calls
        key = _permute32((base >> 32) ^ _permute32((base + self.draws) & 0xFFFFFFFF))
        self.draws += 1
        return devices.backend_for(devices.current_device()).upload(np.array([key], np.uint32), dt.uint32)

    def __repr__(self) -> str:
        return f"tf.random.Generator(seed={self.seed}, draws={self.draws})"
