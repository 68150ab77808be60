"""tf.random: distribution checks (Kolmogorov-Smirnov, chi-square, moments) on both backends,
the same numbers as the reference interpreter from the same seed, fresh numbers from a seed
argument without recompiling, independent streams, and clear errors.

The seeds are fixed, so each check is deterministic; the bounds are the distributions'
critical values at a 1e-4 false-alarm level (a correct generator fails one in 10,000 seeds)."""

import math

import numpy as np
import pytest

import tensorfrost as tf
from tensorfrost.backend_cpu.compiler import CompileStats

N = 1 << 17
KS_BOUND = math.sqrt(-math.log(1e-4 / 2) / 2) / math.sqrt(N)  # Kolmogorov's asymptotic critical value


def draws():
    seed = tf.input([1], tf.uint32)
    like = tf.input([-1], tf.float32)
    n = like.shape[0]
    return [tf.random.rand([n], seed), tf.random.randn([n], seed), tf.random.rand_int([n], -3, 7, seed),
            tf.random.bits([n // 2, 2], seed), tf.random.dropout_mask([n], 0.25, seed)]


def _run(seed: int, device=None):
    if device is not None:
        tf.initialize(device)
    try:
        return [t.numpy for t in tf.compile(draws)(np.array([seed], np.uint32), np.zeros(N, np.float32))]
    finally:
        if device is not None:
            tf.initialize(tf.cpu)


def _ks(sorted_samples, cdf) -> float:
    n = len(sorted_samples)
    below, above = np.arange(1, n + 1) / n - cdf, cdf - np.arange(n) / n
    return float(max(below.max(), above.max()))


def test_distributions(backend):
    uniform, normal, ints, words, mask = _run(2024)
    assert uniform.dtype == np.float32 and 0.0 <= uniform.min() and uniform.max() < 1.0
    assert _ks(np.sort(uniform.astype(np.float64)), np.sort(uniform.astype(np.float64))) < KS_BOUND
    assert abs(np.corrcoef(uniform[:-1], uniform[1:])[0, 1]) < 4 / math.sqrt(N)  # neighbours unrelated
    pairs = np.histogram2d(uniform[0::2], uniform[1::2], bins=16, range=[[0, 1], [0, 1]])[0]
    assert ((pairs - N / 512) ** 2 / (N / 512)).sum() < 348  # chi-square, 255 degrees of freedom, p = 1e-4
    normal_cdf = 0.5 * (1 + np.vectorize(math.erf)(np.sort(normal.astype(np.float64)) / math.sqrt(2)))
    assert _ks(np.sort(normal), normal_cdf) < KS_BOUND
    assert abs(normal.mean()) < 4 / math.sqrt(N) and abs(normal.var() - 1) < 4 * math.sqrt(2 / N)  # 4 sigma
    counts = np.bincount(ints + 3, minlength=10)
    assert ints.min() == -3 and ints.max() == 6 and ints.dtype == np.int32
    expected = N / 10
    assert ((counts - expected) ** 2 / expected).sum() < 33.7  # chi-square, 9 degrees of freedom, p = 1e-4
    assert len(np.unique(words)) == words.size  # distinct element indices hash to distinct words
    zeros = (mask == 0).mean()
    assert abs(zeros - 0.25) < 4 * math.sqrt(0.25 * 0.75 / N) and set(np.unique(mask)) == {0.0, np.float32(4 / 3)}


def test_the_same_numbers_as_the_reference_interpreter(backend):
    got, want = _run(7), _run(7, tf.interpreter)
    for k in (0, 2, 3, 4):  # integer hashing: bit for bit
        np.testing.assert_array_equal(got[k], want[k])
    # log, sqrt and cos: a few ulp in C++; GLSL and WGSL promise cos only to 2^-11 absolute,
    # times the Box-Muller radius sqrt(-2 log u), at most sqrt(-2 log 2^-24) = 5.8
    atol = 1e-5 if backend is tf.cpu else 2.0**-11 * math.sqrt(-2 * math.log(2.0**-24))
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=atol)


def test_streams_of_one_seed_are_not_the_same_numbers_reordered(backend):
    """Streams 21 and 77 of seed 0 once drew the same 2^20 words in another order (their salts
    agreed above bit 20, and only the first hash round saw the salt)."""
    def streams():
        return [tf.random.bits([1 << 20], 0, stream=21), tf.random.bits([1 << 20], 0, stream=77)]
    a, b = (t.numpy for t in tf.compile(streams)())
    shared = np.intersect1d(a, b).size
    assert shared < 1024, shared  # two independent draws of 2^20 words share 2^40 / 2^32 = 256 on average


def test_a_seed_argument_draws_fresh_numbers_without_recompiling(backend):
    program = tf.compile(draws)
    zeros = np.zeros(1000, np.float32)
    compiles = CompileStats.compiles
    first, again, other = (program(np.array([s], np.uint32), zeros)[0].numpy for s in (1, 1, 2))
    assert CompileStats.compiles == compiles
    np.testing.assert_array_equal(first, again)
    assert (first != other).mean() > 0.99


def test_calls_in_one_program_are_independent_streams(backend):
    def two():
        seed = tf.input([], tf.int32)
        return [tf.random.rand([4096], seed), tf.random.rand([4096], seed), tf.random.rand([4096], seed, stream=0)]
    a, b, c = (t.numpy for t in tf.compile(two)(np.int32(3)))
    np.testing.assert_array_equal(a, c)  # the first call is stream 0
    assert abs(np.corrcoef(a, b)[0, 1]) < 4 / math.sqrt(4096) and (a != b).mean() > 0.99


def test_bad_arguments_are_named():
    def float_seed():
        return [tf.random.rand([4], tf.input([1], tf.float32))]
    with pytest.raises(tf.ArgumentError, match="seed tensor must be an int32 or uint32 scalar or \\[1\\]"):
        tf.compile(float_seed)
    with pytest.raises(tf.ArgumentError, match="rate must be in \\[0, 1\\), got 1.5"):
        tf.compile(lambda: [tf.random.dropout_mask([4], 1.5)])
    with pytest.raises(tf.ArgumentError, match="low < high"):
        tf.compile(lambda: [tf.random.rand_int([4], 5, 5)])
    with pytest.raises(tf.ArgumentError, match="seed must be an int or an int/uint tensor, got 'x'"):
        tf.compile(lambda: [tf.random.rand([4], "x")])


def _permutations():
    seed = tf.input([1], tf.uint32)
    x = tf.input([-1, -1], tf.float32)
    return [tf.random.permutation(10, seed), tf.random.permutation(x.shape[1], seed, stream=7),
            tf.random.shuffle(x, seed), tf.random.shuffle(x, seed, axis=1, stream=7)]


def test_permutation_and_shuffle(backend):
    x = np.arange(7 * 1001, dtype=np.float32).reshape(7, 1001)
    seeds = [np.array([s], np.uint32) for s in (1, 1, 2)]
    (p10, a, rows, columns), (_, b, _, _), (_, c, _, _) = ([t.numpy for t in tf.compile(_permutations)(s, x)]
                                                           for s in seeds)
    assert p10.dtype == np.int32 and a.dtype == np.int32
    np.testing.assert_array_equal(np.sort(p10), np.arange(10))  # permutations
    np.testing.assert_array_equal(np.sort(a), np.arange(1001))
    np.testing.assert_array_equal(a, b)  # the same seed repeats
    assert (a != c).mean() > 0.9  # another seed gives another order
    np.testing.assert_array_equal(columns, x[:, a])  # columns moved whole, by the permutation of stream 7
    np.testing.assert_array_equal(np.sort(rows[:, 0]), x[:, 0])  # rows moved whole
    np.testing.assert_array_equal(rows, x[(rows[:, 0] // 1001).astype(int)])
    if backend is not tf.cpu:  # the same permutation as on the CPU, where its distribution is checked
        tf.initialize(tf.cpu)
        np.testing.assert_array_equal(tf.compile(_permutations)(seeds[0], x)[1].numpy, a)


def test_permutations_are_uniform():
    """Where elements 0 and 1 land over 2000 seeds: chi-square of the first's place (10 cells)
    and of the pair's places (90 cells)."""
    tf.initialize(tf.cpu)
    compiled = tf.compile(lambda: tf.random.permutation(10, tf.input([1], tf.uint32)))
    runs = 2000
    first = np.zeros(10, np.int64)
    pairs = np.zeros((10, 10), np.int64)
    for seed in range(runs):
        place = np.argsort(compiled(np.array([seed], np.uint32)).numpy)  # where each element landed
        first[place[0]] += 1
        pairs[place[0], place[1]] += 1
    expected = runs / 10
    assert ((first - expected) ** 2 / expected).sum() < 33.7  # chi-square, 9 degrees of freedom, p = 1e-4
    expected = runs / 90
    cells = pairs[~np.eye(10, dtype=bool)]
    assert ((cells - expected) ** 2 / expected).sum() < 147.4  # 89 degrees of freedom, p = 1e-4


def test_bad_permutation_arguments_are_named():
    with pytest.raises(tf.ArgumentError, match="n must be an int or an int scalar tensor, got 2.5"):
        tf.compile(lambda: [tf.random.permutation(2.5)])
    with pytest.raises(tf.ArgumentError, match=r"axis must be an int in \[-2, 1\], got 2"):
        tf.compile(lambda: [tf.random.shuffle(tf.input([-1, -1], tf.float32), axis=2)])
