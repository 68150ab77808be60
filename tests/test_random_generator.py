"""tf.random.Generator: each draw gives new numbers, a seed gives the same sequence again,
the words are exactly a numpy rendering of the hash on every backend, the distributions
pass Kolmogorov-Smirnov and moment checks, ``next_seed`` feeds programs fresh seeds, and
bad arguments are named.

The seeds are fixed, so each check is deterministic; the bounds are critical values at a
1e-4 false-alarm level (a correct generator fails one in 10,000 seeds)."""

import math

import numpy as np
import pytest
from scipy import stats

import tensorfrost as tf
from tensorfrost.ir.ops_math import _pcg

N = 1 << 16
KS_BOUND = math.sqrt(-math.log(1e-4 / 2) / 2) / math.sqrt(N)  # Kolmogorov's asymptotic critical value
Z = 3.9  # two-sided normal quantile at 1e-4
MASK64 = 2**64 - 1


def splitmix64(value):
    value = (value + 0x9E3779B97F4A7C15) & MASK64
    value = ((value ^ (value >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    value = ((value ^ (value >> 27)) * 0x94D049BB133111EB) & MASK64
    return value ^ (value >> 31)


def reference_words(seed, draw, size):
    """The generator's words of its call number ``draw``, written from its definition: key and
    salt from SplitMix64 of (seed, call), two PCG rounds over each element's index."""
    mixed = splitmix64(splitmix64(seed & MASK64) ^ draw)
    key, salt = np.uint32(mixed & 0xFFFFFFFF), np.uint32(mixed >> 32)
    with np.errstate(over="ignore"):
        return _pcg(_pcg(np.arange(size, dtype=np.uint32) ^ salt) + (key ^ salt))


def test_words_match_the_definition_on_every_backend(backend):
    g = tf.random.Generator(12345)
    for draw in range(3):
        words = g.bits([3, 5]).numpy
        assert words.dtype == np.uint32 and words.shape == (3, 5)
        np.testing.assert_array_equal(words.reshape(-1), reference_words(12345, draw, 15))
    uniform = g.rand([7]).numpy  # call 3
    np.testing.assert_array_equal(uniform, (reference_words(12345, 3, 7) >> 8).astype(np.float32) / 2**24)
    assert g.draws == 4


def reference_seeds(seed, calls):
    """``next_seed``'s values of calls 0 .. calls-1, from its definition (PCG's permutation of
    the call number, twice), vectorized."""
    base = splitmix64(seed & MASK64)
    with np.errstate(over="ignore"):
        counters = ((base & 0xFFFFFFFF) + np.arange(calls, dtype=np.uint64)).astype(np.uint32)  # (mod 2^32)
        return _pcg(np.uint32(base >> 32) ^ _pcg(counters))


def test_next_seed_follows_its_definition_and_never_repeats():
    g = tf.random.Generator(2**64 + 31)  # (taken modulo 2^64)
    seeds = [g.next_seed().item() for _ in range(100)]
    np.testing.assert_array_equal(seeds, reference_seeds(31, 100))
    assert len(np.unique(reference_seeds(31, 1 << 20))) == 1 << 20  # a bijection of the call number


def test_each_call_gives_new_numbers(backend):
    g = tf.random.Generator(7)
    for draw in (g.rand, g.randn, g.bits):
        first, second = draw([4, 64]).numpy, draw([4, 64]).numpy
        assert not np.any(first == second)  # (two 32-bit draws agree by chance at about 256 / 2^24 elements)
    a, b = g.rand_int([256], 0, 1000).numpy, g.rand_int([256], 0, 1000).numpy
    assert (a == b).mean() < 0.02  # about 1 in 1000 by chance
    seeds = {g.next_seed().item() for _ in range(50)}
    assert len(seeds) == 50


def test_the_same_seed_gives_the_same_sequence(backend):
    def sequence(seed):
        g = tf.random.Generator(seed)
        return [g.rand([3, 4]).numpy, g.randn([10]).numpy, g.rand_int([5], -4, 9).numpy, g.next_seed().numpy,
                g.bits([2]).numpy]

    again = sequence(99)
    for first, second in zip(sequence(99), again):
        np.testing.assert_array_equal(first, second)
    other = sequence(100)
    assert not np.array_equal(other[0], again[0]) and not np.array_equal(other[1], again[1])


def test_shapes_and_dtypes(backend):
    g = tf.random.Generator(3)
    assert g.rand(5).shape == (5,) and g.rand(5).dtype == tf.float32
    assert g.randn([2, 3, 4]).shape == (2, 3, 4) and g.randn([1]).dtype == tf.float32
    assert g.rand_int((0, 3), 0, 2).shape == (0, 3) and g.rand_int([2], 0, 2).dtype == tf.int32
    scalar = g.rand([])
    assert scalar.shape == () and 0.0 <= float(scalar) < 1.0
    seed = g.next_seed()
    assert seed.shape == (1,) and seed.dtype == tf.uint32


def test_uniform_distribution(backend):
    samples = tf.random.Generator(2024).rand([N]).numpy
    assert samples.dtype == np.float32 and samples.min() >= 0.0 and samples.max() < 1.0
    assert np.all(samples * 2**24 == np.floor(samples * 2**24))  # multiples of 2^-24
    assert stats.kstest(samples, "uniform").statistic < KS_BOUND
    assert abs(samples.mean() - 0.5) < Z * math.sqrt(1 / 12 / N)
    # the variance of the sample variance of U(0, 1): (mu4 - sigma^4) / n = (1/80 - 1/144) / n
    assert abs(samples.var() - 1 / 12) < Z * math.sqrt((1 / 80 - 1 / 144) / N)


def test_normal_distribution(backend):
    samples = tf.random.Generator(2025).randn([N]).numpy.astype(np.float64)
    assert np.all(np.isfinite(samples))
    assert stats.kstest(samples, "norm").statistic < KS_BOUND + 2**-23  # (+ the uniforms' 2^-24 grid)
    assert abs(samples.mean()) < Z * math.sqrt(1 / N)
    assert abs(samples.var() - 1.0) < Z * math.sqrt(2 / N)  # Var of the sample variance: 2 sigma^4 / n


@pytest.mark.parametrize("low, high", [(-3, 7), (0, 1), (-2**31, 2**31)])
def test_integer_distribution(backend, low, high):
    samples = tf.random.Generator(77).rand_int([N], low, high).numpy.astype(np.int64)
    assert samples.min() >= low and samples.max() < high
    if high - low <= 16:  # chi-square on every value
        counts = np.bincount(samples - low, minlength=high - low)
        if high - low > 1:
            assert stats.chisquare(counts).pvalue > 1e-4
        else:
            assert counts.tolist() == [N]
    else:  # the full int32 range: uniform over it
        assert stats.kstest((samples - low) / 2**32, "uniform").statistic < KS_BOUND + 2**-32


def test_successive_calls_are_uncorrelated(backend):
    g = tf.random.Generator(5)
    first, second = g.randn([N]).numpy.astype(np.float64), g.randn([N]).numpy.astype(np.float64)
    assert abs(np.corrcoef(first, second)[0, 1]) < Z / math.sqrt(N)


def test_next_seed_gives_a_program_new_numbers_each_call(backend):
    def noise():
        x = tf.input([-1], tf.float32)
        seed = tf.input([1], tf.uint32)
        return x + tf.random.rand(x.shape, seed)

    prog = tf.compile(noise)
    zeros = np.zeros(64, np.float32)
    g = tf.random.Generator(11)
    first, second = prog(zeros, g.next_seed()).numpy, prog(zeros, g.next_seed()).numpy
    assert not np.any(first == second)
    # a seed that does not change gives the same numbers: the behaviour next_seed exists for
    np.testing.assert_array_equal(prog(zeros, np.array([3], np.uint32)).numpy,
                                  prog(zeros, np.array([3], np.uint32)).numpy)
    replay = tf.random.Generator(11)
    np.testing.assert_array_equal(prog(zeros, replay.next_seed()).numpy, first)


def test_draws_compile_once_per_kind_and_rank(backend):
    from tensorfrost.lib import random as random_module
    g = tf.random.Generator(0)
    g.rand([4, 4])
    before = len(random_module._programs)
    for size in (1, 3, 17):
        g.rand([size, 2])
    assert len(random_module._programs) == before


@pytest.mark.parametrize("call, message", [
    (lambda g: g.rand("big"), "Generator.rand: shape must be an int or a list of ints >= 0, got 'big'"),
    (lambda g: g.randn([2, -1]), "Generator.randn: shape must be an int or a list of ints >= 0, got [2, -1]"),
    (lambda g: g.rand([2.5]), "Generator.rand: shape must be an int or a list of ints >= 0, got [2.5]"),
    (lambda g: g.bits([True]), "Generator.bits: shape must be"),
    (lambda g: g.rand([1 << 20, 1 << 12]), "more than 2^31 - 1 elements"),
    (lambda g: g.rand_int([3], 0.5, 4), "Generator.rand_int: low must be an int, got 0.5"),
    (lambda g: g.rand_int([3], 0, "4"), "Generator.rand_int: high must be an int, got '4'"),
    (lambda g: g.rand_int([3], 5, 5), "Generator.rand_int: needs -2^31 <= low < high <= 2^31, got low=5, high=5"),
])
def test_bad_arguments_are_named(call, message):
    g = tf.random.Generator(0)
    with pytest.raises(tf.ArgumentError, match=None) as info:
        call(g)
    assert message in str(info.value)
    assert g.draws == 0  # nothing drawn


@pytest.mark.parametrize("seed", ["1", 1.0, None, True])
def test_bad_seed_is_named(seed):
    with pytest.raises(tf.ArgumentError, match="tf.random.Generator: seed must be an int, got"):
        tf.random.Generator(seed)


def test_repr_says_where_the_generator_is():
    g = tf.random.Generator(9)
    g.next_seed()
    assert repr(g) == "tf.random.Generator(seed=9, draws=1)"
