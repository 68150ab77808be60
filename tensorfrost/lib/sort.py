"""Sorting inside tensor programs (``tf.sort``): a stable LSD radix sort, a bitonic network,
and numpy/torch-style ``sort``, ``argsort`` and ``topk`` built on them.

Keys are uint32, int32, float32, uint64, int64 or float64 (8- and 16-bit ints, bools and
16-bit floats sort as the 32-bit dtype that holds them). They sort in numpy's total order:
ints by value, floats with ``-0.0 == 0.0`` (a stable sort keeps their order) and every NaN
after ``+inf``. Each key is mapped to an unsigned word of its width whose order is that
order (ints: flip the sign bit; floats: flip every bit of negatives and the sign bit of the
rest; NaNs become all ones), only where a digit is needed, so the keys themselves move
untouched: sorted floats keep their ``-0.0`` and NaN bits. A float64's word is its bit
pattern computed arithmetically (there is no 64-bit reinterpretation), once per sort.
64-bit keys take twice the passes of 32-bit ones; the digit counts stay 32-bit (OpenGL has
no 64-bit atomics). Gradients through a float64 sort add into
float64 buffers: on OpenGL, which has no float64 atomic add, they are a clear error.

Every function sorts along the last axis of its keys (``sort``/``argsort``/``topk`` along
``axis``), each row on its own, with sizes known only when the program runs::

    def program():
        keys = tf.input([-1], tf.uint32)
        values = tf.input([-1], tf.uint32)
        sorted_keys, sorted_values = tf.sort.radix(keys, values)
        return sorted_keys, sorted_values

The radix sort counts digits per block of each row (one thread per block runs a loop over
its elements), scans the (digit, block) counts, then each block scatters its elements, in
order, to their places: a stable sort in ``ceil(max_bits / bits_per_pass)`` passes of a few
kernels each, with no atomics.
"""

from __future__ import annotations

from ..ir import dtypes as dt
from ..ir.builder import current
from ..ir.errors import ArgumentError, ShapeError, user_location
from ..ir.shapes import static_value
from ..tracing import algorithms as alg
from ..tracing.api import assert_tensor, buffer, const, indices, loop, zeros
from ..tracing.mathfn import asuint, ceil, copy, floor, log2, select, sqrt, uint
from ..tracing.mathfn import float as to_float
from ..tracing.mathfn import int as to_int
from ..tracing.mathfn import max as maximum
from ..tracing.mathfn import min as minimum
from ..tracing.tensor import Tensor

__all__ = ["radix", "bitonic", "sort", "argsort", "topk"]

# Narrower keys sort as the 32-bit dtype that holds each of their values exactly, in order.
_CARRIERS = {dt.int8: dt.int32, dt.int16: dt.int32, dt.uint8: dt.uint32, dt.uint16: dt.uint32, dt.bool1: dt.uint32,
             dt.float16: dt.float32, dt.bfloat16: dt.float32}
_SIGN_BIT = 0x80000000
_ALL_BITS = 0xFFFFFFFF
_SIGN_BIT64 = 1 << 63
_ALL_BITS64 = (1 << 64) - 1
_BLOCK_MIN = 16384  # elements per block at least: the per-block digit counts stay small to scan
_BLOCKS_MAX = 1024  # blocks per row at most, enough threads for every core


def ordered_bits(keys: Tensor, descending: bool = False) -> Tensor:
    """uint32 words (uint64 for 64-bit keys) whose unsigned order is numpy's order of
    ``keys`` (reversed when ``descending``: a stable sort then keeps equal keys in their
    order, as torch does).

    >>> bits = tf.compile(lambda: tf.sort.ordered_bits(tf.input([-1], tf.float32)))
    >>> words = bits(np.array([-2.0, -0.5, 0.0, 3.0], np.float32)).numpy
    >>> words.dtype, bool(np.all(np.diff(words.astype(np.int64)) > 0))   # increasing as the floats
    (dtype('uint32'), True)
    """
    if keys.dtype in _CARRIERS:
        keys = keys.astype(_CARRIERS[keys.dtype])
    if keys.dtype.bits == 64:
        word = _ordered_bits64(keys)
        return ~word if descending else word
    raw = asuint(keys) if keys.dtype is not dt.uint32 else keys
    if keys.dtype is dt.int32:
        word = raw ^ uint(_SIGN_BIT)
    elif keys.dtype is dt.float32:
        negative = (raw >> uint(31)) == uint(1)
        word = raw ^ select(negative, uint(_ALL_BITS), uint(_SIGN_BIT))
        word = select(keys == 0.0, uint(_SIGN_BIT), word)  # -0.0 sorts as 0.0
        word = select(keys != keys, uint(_ALL_BITS), word)  # every NaN last
    else:
        word = raw
    return ~word if descending else word


def _ordered_bits64(keys: Tensor) -> Tensor:
    if keys.dtype is dt.uint64:
        return keys
    if keys.dtype is dt.int64:
        return keys.astype(dt.uint64) ^ _SIGN_BIT64
    # Negatives: every bit flipped (of the sign too); the rest (-0.0 too, which sorts as 0.0): the sign bit set.
    flips = select(keys < 0.0, _word64(_SIGN_BIT64 - 1), _word64(_SIGN_BIT64))
    return select(keys != keys, _word64(_ALL_BITS64), _magnitude_bits(keys) ^ flips)  # every NaN last


def _word64(value: int) -> Tensor:
    return const(value, (), dt.uint64)


def _magnitude_bits(x: Tensor) -> Tensor:
    """The IEEE bits of ``|x|`` for a float64 ``x``, as a uint64, by exact arithmetic: ``|x|``
    is scaled by powers of two into [1, 2) (subnormals first by 2^64), which gives its binary
    exponent, and its 53 significant bits as an integer; a subnormal's are shifted down to
    its place. No product of two constants: a shader compiler may fold it (2^1074 overflows).
    Infinities give their bits; NaNs a word that the caller replaces."""
    magnitude = abs(x)
    tiny = magnitude < 2.0 ** -1022
    scaled, exponent = select(tiny, magnitude * 2.0 ** 64, magnitude), select(tiny, -64, 0)
    for k in (512, 256, 128, 64, 32, 16, 8, 4, 2, 1):  # down into [1, 2) from above ...
        big = scaled >= 2.0 ** k
        scaled, exponent = select(big, scaled * 2.0 ** -k, scaled), select(big, exponent + k, exponent)
    for k in (512, 256, 128, 64, 32, 16, 8, 4, 2, 1):  # ... and up from below
        small = scaled < 2.0 ** (1 - k)
        scaled, exponent = select(small, scaled * 2.0 ** k, scaled), select(small, exponent - k, exponent)
    # 2^52 |x| / 2^exponent: an integer of 53 bits (0 for 0; an infinity's conversion would be undefined)
    significand = select(scaled < 2.0, scaled * 2.0 ** 52, 0.0).astype(dt.uint64)
    biased = exponent + 1023
    normal = ((biased - 1).astype(dt.uint64) << 52) + significand  # (the leading bit adds the last 1)
    subnormal = significand >> minimum(maximum(1 - biased, 0), 63).astype(dt.uint64)
    finite = select(biased >= 1, normal, subnormal)
    return select(magnitude == float("inf"), _word64(0x7FF << 52), finite)


def _check_keys(keys, what: str) -> None:
    if not isinstance(keys, Tensor):
        raise ArgumentError(f"{what}: keys must be a tensor of the program, got {type(keys).__name__}",
                            user_location())
    if keys.node.rank == 0:
        raise ShapeError(f"{what}: keys must have rank 1 or more (a scalar has nothing to sort)", user_location())


def _check_values(keys: Tensor, values, what: str) -> None:
    if not isinstance(values, Tensor):
        raise ArgumentError(f"{what}: values must be a tensor of the program or None, got "
                            f"{type(values).__name__}", user_location())
    if values.node.rank != keys.node.rank:
        raise ShapeError(f"{what}: values must have the shape of keys (rank {keys.node.rank}), got rank "
                         f"{values.node.rank}", user_location())
    assert_tensor(values, keys.shape)  # checked when the program runs where sizes are free


def _digit(word: Tensor, shift: Tensor, mask: int) -> Tensor:
    return to_int((word >> shift) & uint(mask))


class _RadixPlan:
    """Blocks along the last axis of keys of ``shape``: ``blocks`` per row of ``size``
    elements, one thread per block (``lead`` indexes the leading axes, ``block`` the block)."""

    def __init__(self, shape):
        n = shape[-1]
        self.lead_shape = list(shape[:-1])
        self.blocks = minimum(maximum((n + (_BLOCK_MIN - 1)) // _BLOCK_MIN, 1), _BLOCKS_MAX)
        self.size = maximum((n + self.blocks - 1) // self.blocks, 1)
        # A trailing axis of 1: each thread's loop is a row of its own, so blocks spread over cores.
        grid = indices(self.lead_shape + [self.blocks, 1])
        self.lead, self.block = tuple(grid[:-2]), grid[-2]
        self.begin = self.block * self.size
        self.end = minimum(self.begin + self.size, n)

    def at(self, j) -> tuple:
        """The index of element ``j`` of this thread's row."""
        return (*self.lead, j)


def _radix_pass(plan: _RadixPlan, sources: list, targets: list, word_of, shift: Tensor, radix: int) -> None:
    """One stable counting pass from ``sources`` into ``targets`` (keys first) on the digit
    ``(word_of(key) >> shift) & (radix - 1)``."""
    mask = radix - 1
    keys, lead, block = sources[0], plan.lead, plan.block
    counts = zeros(plan.lead_shape + [plan.blocks, radix], dt.int32)
    with loop(plan.begin, plan.end) as j:
        counts[(*lead, block, _digit(word_of(keys[plan.at(j)]), shift, mask))] += 1
    # One thread per row turns the counts, digit by digit and block by block, into the place
    # of each block's first element with that digit (serial, but only blocks * radix steps).
    row = indices(plan.lead_shape + [1])[:-1]
    running = zeros(plan.lead_shape + [1], dt.int32)
    with loop(radix) as d:
        with loop(plan.blocks) as b:
            count = counts[(*row, b, d)]
            counts[(*row, b, d)] = running
            running.val = running + count
    with loop(plan.begin, plan.end) as j:
        slot = (*lead, block, _digit(word_of(keys[plan.at(j)]), shift, mask))
        place = counts[slot]
        for source, target in zip(sources, targets):
            target[plan.at(place)] = source[plan.at(j)]
        counts[slot] = place + 1


def _radix_sort(keys: Tensor, values: list, bits_per_pass: int, max_bits: int, descending: bool,
                with_positions: bool) -> tuple:
    """Stable sort along the last axis: (sorted keys, [values in that order], the sorted
    elements' original positions along the axis, or None)."""
    if keys.dtype is dt.float64:
        # Its order words cost some 60 ops: made once and sorted, the keys moved with them.
        words = ordered_bits(keys, descending)
        _, moved, positions = _radix_sort(words, [keys, *values], bits_per_pass, max_bits, False, with_positions)
        return moved[0], moved[1:], positions
    plan = _RadixPlan(keys.shape)
    radix = 1 << bits_per_pass
    passes = (max_bits + bits_per_pass - 1) // bits_per_pass
    if keys.dtype in (dt.uint32, dt.uint64) and not descending:
        def word_of(key):
            return key
    else:
        def word_of(key):
            return ordered_bits(key, descending)
    # Two buffers per array, there and back: a host loop runs two passes a trip, so the
    # program has the kernels of two passes whatever the number of passes.
    here = [copy(a) for a in (keys, *values)]
    if with_positions:
        here.append(copy(indices(keys.shape)[-1]))  # each element's own position, moved with it
    there = [buffer(a.shape, a.dtype) for a in here]
    with loop(passes // 2) as trip:
        _radix_pass(plan, here, there, word_of, uint(2 * bits_per_pass * trip), radix)
        _radix_pass(plan, there, here, word_of, uint(2 * bits_per_pass * trip + bits_per_pass), radix)
    if passes % 2:
        _radix_pass(plan, here, there, word_of, uint((passes - 1) * bits_per_pass), radix)
        here = there
    positions = here.pop() if with_positions else None
    return here[0], here[1:], positions


def _key_bits(keys: Tensor) -> int:
    """The width of the order words of ``keys``: 64 for 64-bit keys, else 32."""
    return 64 if keys.dtype.bits == 64 else 32


def _check_bits(bits_per_pass, max_bits, key_bits: int) -> None:
    for name, value, top, why in (("bits_per_pass", bits_per_pass, 16, ""),
                                  ("max_bits", max_bits, key_bits, f" (keys of {key_bits}-bit order words)")):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top:
            raise ArgumentError(f"tf.sort.radix: {name} must be an int in [1, {top}]{why}, got {value!r}",
                                user_location())


def radix(keys: Tensor, values: Tensor | None = None, bits_per_pass: int = 8,
          max_bits: int | None = None) -> Tensor | tuple[Tensor, Tensor]:
    """Stable radix sort of ``keys`` along their last axis (each row on its own).

    Parameters
    ----------
    keys : Tensor
        uint32, int32, float32, uint64, int64 or float64 (narrower ones as the 32-bit dtype
        that holds them), any shape of rank >= 1 (numpy's order: ``-0.0 == 0.0``, NaN last).
    values : Tensor, optional
        Moved with the keys: same shape, any dtype.
    bits_per_pass : int
        Digit width, 1 to 16: ``ceil(max_bits / bits_per_pass)`` passes, each with
        ``2**bits_per_pass`` counters per block (8, the default, suits 32-bit keys best).
    max_bits : int, optional
        Sort on the low ``max_bits`` bits of the (order-mapped) keys only: for unsigned keys
        known to be below ``2**max_bits`` this saves passes. Default: all of them (64 for
        64-bit keys, else 32).

    Returns
    -------
    The sorted keys, or ``(sorted keys, values in the same order)`` when ``values`` is given
    (upstream TensorFrost's convention)::

        keys = tf.input([-1], tf.uint32)
        values = tf.input([-1], tf.uint32)
        sorted_keys, sorted_values = tf.sort.radix(keys, values)

    >>> def by_key():
    ...     keys, values = tf.input([-1], tf.uint32), tf.input([-1], tf.float32)
    ...     return list(tf.sort.radix(keys, values))
    >>> keys, values = tf.compile(by_key)(np.array([3, 1, 2, 1], np.uint32),
    ...                                   np.array([0.5, 1.5, 2.5, 3.5], np.float32))
    >>> keys.tolist(), values.tolist()        # stable: the two 1s keep their order
    ([1, 1, 2, 3], [1.5, 3.5, 2.5, 0.5])
    """
    _check_keys(keys, "tf.sort.radix")
    if max_bits is None:
        max_bits = _key_bits(keys)
    _check_bits(bits_per_pass, max_bits, _key_bits(keys))
    if values is not None:
        _check_values(keys, values, "tf.sort.radix")
    sorted_keys, sorted_values, _ = _radix_sort(keys, [] if values is None else [values], bits_per_pass,
                                                max_bits, False, False)
    return sorted_keys if values is None else (sorted_keys, sorted_values[0])


# -- bitonic network -------------------------------------------------------------------------------


def _log2_ceil(n: Tensor) -> Tensor:
    """ceil(log2(n)) for n >= 1 as an int (float log2, then corrected by integer checks)."""
    m = to_int(ceil(log2(to_float(n))))
    m = select((1 << m) < n, m + 1, m)
    return select((m > 0) & ((1 << maximum(m - 1, 0)) >= n), m - 1, m)


def _stage_of(step: Tensor) -> tuple:
    """(stage k, step j within it) of the ``step``-th compare-exchange of the network, whose
    stage k has k + 1 steps: k = floor((sqrt(8 step + 1) - 1) / 2), corrected exactly."""
    k = to_int(floor((sqrt(to_float(8 * step + 1)) - 1.0) * 0.5))
    k = select(k * (k + 1) // 2 > step, k - 1, k)
    k = select((k + 1) * (k + 2) // 2 <= step, k + 1, k)
    return k, step - k * (k + 1) // 2


def _bitonic_step(sources: list, targets: list, word_of, step: Tensor, steps: Tensor) -> None:
    """One compare-exchange step, from ``sources`` (keys first) into ``targets``: the step's
    first exchange of a stage pairs i with its mirror in the block of 2^(k+1), the others pair
    i with i ^ 2^(k-j); the lower index keeps the smaller key. Past the last step, a copy."""
    keys = sources[0]
    where = indices(keys.shape)
    lead, i = where[:-1], where[-1]
    n = keys.shape[-1]
    stage, inner = _stage_of(step)
    distance = 1 << (stage - inner)
    partner = i ^ select(inner == 0, 2 * distance - 1, distance)
    mine, theirs = word_of(keys[(*lead, i)]), word_of(keys[(*lead, partner)])
    # A partner past the end is +inf padding: never taken. Equal keys are never exchanged.
    take = (partner < n) & (step < steps) & select(partner > i, theirs < mine, theirs > mine)
    for source, target in zip(sources, targets):
        target[(*lead, i)] = select(take, source[(*lead, partner)], source[(*lead, i)])


def bitonic(keys: Tensor, values: Tensor | None = None) -> Tensor | tuple[Tensor, Tensor]:
    """Sort ``keys`` along their last axis with a bitonic sorting network (not stable).

    Any length: the network runs over the next power of two, the missing elements counting
    as larger than every key. ``log2(n) (log2(n) + 1) / 2`` steps of one kernel each, in a
    loop on the host. Keys and the return convention are those of ``tf.sort.radix``::

        sorted_keys, sorted_values = tf.sort.bitonic(keys, values)

    >>> bitonic = tf.compile(lambda: tf.sort.bitonic(tf.input([-1], tf.float32)))
    >>> bitonic(np.array([0.5, -2, 7, 1, 3], np.float32)).tolist()   # any length
    [-2.0, 0.5, 1.0, 3.0, 7.0]
    """
    _check_keys(keys, "tf.sort.bitonic")
    arrays = [keys]
    if values is not None:
        _check_values(keys, values, "tf.sort.bitonic")
        arrays.append(values)
    words = keys.dtype is dt.float64
    if words:  # float64 order words cost some 60 ops: made once, and sorted with the keys
        arrays.insert(0, ordered_bits(keys))
    n = keys.shape[-1]
    stages = _log2_ceil(maximum(n, 1))
    steps = stages * (stages + 1) // 2

    def word_of(key):
        return key if key.dtype in (dt.uint32, dt.uint64) else ordered_bits(key)

    first = [copy(a) for a in arrays]
    second = [buffer(a.shape, a.dtype) for a in arrays]
    with loop((steps + 1) // 2) as pair:  # two steps a trip: there and back between the buffers
        _bitonic_step(first, second, word_of, 2 * pair, steps)
        _bitonic_step(second, first, word_of, 2 * pair + 1, steps)
    result = first[1:] if words else first
    return result[0] if values is None else (result[0], result[1])


# -- numpy / torch style ---------------------------------------------------------------------------


def _along_last(x: Tensor, axis: int, what: str) -> tuple:
    """(``x`` with ``axis`` swapped with the last axis, the normalized axis)."""
    rank = x.node.rank
    if isinstance(axis, bool) or not isinstance(axis, int) or not -rank <= axis < rank:
        raise ArgumentError(f"{what}: axis must be an int in [{-rank}, {rank - 1}] for keys of rank {rank}, "
                            f"got {axis!r}", user_location())
    axis %= rank
    return (x if axis == rank - 1 else alg.transpose(x, axis, rank - 1)), axis


def _restore(x: Tensor, axis: int) -> Tensor:
    rank = x.node.rank
    return x if axis == rank - 1 else alg.transpose(x, axis, rank - 1)


def _index(positions: Tensor) -> Tensor:
    """Positions to gather with. Detached: the gradient of a gather whose index tensor was
    written by index would otherwise read the index's initial zeros (an autodiff bug)."""
    return positions.detach_grad()


def sort(x: Tensor, axis: int = -1, descending: bool = False) -> Tensor:
    """``x`` sorted along ``axis`` (numpy's ``np.sort``; torch's ``sort(...).values``).

    Parameters
    ----------
    x : Tensor
        Any dtype (see the module's doc), any shape of rank >= 1. Floats sort as numpy does:
        ``-0.0`` and ``0.0`` are equal (kept in their order), NaNs come last (first when
        ``descending``, as in torch).
    axis : int
        The axis to sort along; every other index is a separate row.
    descending : bool
        Largest first.

    Returns a tensor of ``x``'s shape and dtype. Float values are gathered from ``x`` at
    their sorted positions, so ``tf.grad`` flows back through them (each element's gradient
    is the gradient of the place it moved to)::

        y = tf.sort.sort(tf.input([-1, -1], tf.float32), axis=0)

    >>> descending = tf.compile(lambda: tf.sort.sort(tf.input([-1, -1], tf.int32), descending=True))
    >>> x = np.array([[3, -1, 2], [0, 5, 5]], np.int32)
    >>> descending(x).numpy, -np.sort(-x)
    (array([[ 3,  2, -1],
           [ 5,  5,  0]], dtype=int32), array([[ 3,  2, -1],
           [ 5,  5,  0]], dtype=int32))
    """
    _check_keys(x, "tf.sort.sort")
    if x.dtype in _CARRIERS:
        return sort(x.astype(_CARRIERS[x.dtype]), axis, descending).astype(x.dtype)
    moved, axis = _along_last(x, axis, "tf.sort.sort")
    if not moved.dtype.is_float:
        keys, _, _ = _radix_sort(moved, [], 8, _key_bits(moved), bool(descending), False)
        return _restore(keys, axis)
    # Floats are gathered at their sorted positions, so gradients flow back to them.
    _, _, positions = _radix_sort(moved.detach_grad(), [], 8, _key_bits(moved), bool(descending), True)
    where = indices(moved.shape)
    return _restore(moved[(*where[:-1], _index(positions))], axis)


def argsort(x: Tensor, axis: int = -1, descending: bool = False) -> Tensor:
    """The int32 indices along ``axis`` that sort ``x`` (numpy's ``np.argsort(kind='stable')``):
    equal keys keep their order, also when ``descending`` (torch's ``stable=True``).

    ``tf.sort.sort``'s order of keys; the result has ``x``'s shape::

        order = tf.sort.argsort(scores, descending=True)
        ranked = items[order]

    >>> argsort = tf.compile(lambda: tf.sort.argsort(tf.input([-1], tf.float32)))
    >>> x = np.array([0.3, -1.0, 0.3, 2.0], np.float32)
    >>> argsort(x).tolist(), np.argsort(x, kind="stable").tolist()
    ([1, 0, 2, 3], [1, 0, 2, 3])
    """
    _check_keys(x, "tf.sort.argsort")
    if x.dtype in _CARRIERS:
        return argsort(x.astype(_CARRIERS[x.dtype]), axis, descending)
    moved, axis = _along_last(x, axis, "tf.sort.argsort")
    _, _, positions = _radix_sort(moved.detach_grad(), [], 8, _key_bits(moved), bool(descending), True)
    return _restore(positions, axis)


def topk(x: Tensor, k: int, axis: int = -1) -> tuple[Tensor, Tensor]:
    """The ``k`` largest elements along ``axis``, largest first, and their int32 indices
    (torch.topk): ``values, indices = tf.sort.topk(x, 5)``. Equal elements come in the
    order of their indices; NaN counts as the largest.

    Both results have ``x``'s shape with ``axis`` of size ``k``; the values are gathered
    from ``x`` at the indices, so gradients flow back to the elements chosen.

    >>> top2 = tf.compile(lambda: list(tf.sort.topk(tf.input([-1], tf.float32), 2)))
    >>> values, indices = top2(np.array([0.5, 4.0, -1.0, 4.0, 2.0], np.float32))
    >>> values.tolist(), indices.tolist()     # ties in index order
    ([4.0, 4.0], [1, 3])
    """
    _check_keys(x, "tf.sort.topk")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ArgumentError(f"tf.sort.topk: k must be a positive int, got {k!r}", user_location())
    moved, axis = _along_last(x, axis, "tf.sort.topk")
    size = static_value(moved.node.shape[-1])
    if size is not None and k > size:
        raise ArgumentError(f"tf.sort.topk: k={k} is more than the {size} elements along axis {axis}",
                            user_location())
    if size is None:
        builder = current()
        limit, count = builder.const(k, dt.int32), moved.node.shape[-1]
        builder.check(lambda: builder.elementwise("le", [limit, count]), [limit, count],
                      f"tf.sort.topk: k={{0}} is more than the {{1}} elements along axis {axis}")
    _, _, positions = _radix_sort(moved.detach_grad(), [], 8, _key_bits(moved), True, True)
    where = indices(list(moved.shape[:-1]) + [k])
    chosen = _index(positions)[(*where[:-1], where[-1])]
    values = moved[(*where[:-1], chosen)]
    return _restore(values, axis), _restore(chosen, axis)
