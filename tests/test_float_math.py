"""float32 math on the cpu backend (float_math.hpp): the nearest float to the true value
within 1 ulp (numpy's float64 function, rounded, is the reference), C's special values
(signed zeros, infinities, NaN, pow's and atan2's cases) bit for bit, and the same bits for a
value wherever it is computed: in a vectorized loop or a scalar one, at any array size and
position. (glibc's vector functions rounded differently from its scalar ones, so a value's
sin depended on its array's size, and switching an optimization off changed results.)"""

import numpy as np
import pytest

import tensorfrost as tf

UNARY = {"sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
         "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "exp": np.exp,
         "exp2": np.exp2, "log": np.log, "log2": np.log2}
BINARY = {"pow": np.power, "atan2": np.arctan2}
SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0,
                    1e-45, -1e-45, 1e-30, 3.4028235e38, -3.4028235e38, 1.1754944e-38, 88.72, 89.5,
                    -103.5, 128.0, -150.0, 2.0**24, 2.0**24 - 1, 1e30, -7.5e37, 100.0], np.float32)


def _all_functions():
    x = tf.input([-1], tf.float32)
    y = tf.input([-1], tf.float32)
    return tuple(getattr(tf, name)(x) for name in UNARY) + tuple(getattr(tf, name)(x, y) for name in BINARY)


@pytest.fixture(scope="module")
def functions():
    tf.initialize(tf.cpu)
    return tf.compile(_all_functions)


def _run(program, x, y):
    return dict(zip([*UNARY, *BINARY], [t.numpy for t in program(x, y)]))


def _references(x, y):
    with np.errstate(all="ignore"):
        x64, y64 = x.astype(np.float64), y.astype(np.float64)
        return {**{n: f(x64) for n, f in UNARY.items()}, **{n: f(x64, y64) for n, f in BINARY.items()}}


def _ulps(got, want64):
    """Distance of float32 ``got`` from the float64 truth, in float32 ulps at the truth (0 where
    they agree as floats: equal, or both NaN); inf where one is not finite and they differ."""
    with np.errstate(over="ignore"):  # (a float64 beyond float32's range rounds to inf)
        want = want64.astype(np.float32)
    agree = (got == want) | (np.isnan(got) & np.isnan(want))
    distance = np.zeros(got.shape)
    finite = ~agree & np.isfinite(want64) & np.isfinite(got)
    ulp = np.spacing(np.maximum(np.abs(want64[finite]).astype(np.float32), np.float32(1e-45))).astype(np.float64)
    distance[finite] = np.abs(got[finite].astype(np.float64) - want64[finite]) / ulp
    distance[~agree & ~finite] = np.inf
    return distance


def _samples(rng, n):
    """Every float32 range: random bit patterns (so every exponent, NaNs and infinities too), the
    ranges programs use, and special values."""
    bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    return np.concatenate([bits, rng.uniform(-12, 12, n).astype(np.float32),
                           rng.uniform(-1.1, 1.1, n).astype(np.float32), SPECIAL])


def test_every_function_is_within_an_ulp_of_the_truth(functions):
    """1 ulp is the claim (float_math.hpp computes in double, then rounds once: the error before
    that rounding is below 1e-13 relative, so nearly every result is the nearest float)."""
    rng = np.random.default_rng(7)
    x = _samples(rng, 1 << 17)
    y = np.concatenate([rng.permutation(x[:-SPECIAL.size]), SPECIAL[::-1]])
    with np.errstate(invalid="ignore"):
        y[::3] = np.round(y[::3] * 0.001)  # integer exponents, where pow's sign depends on parity
    got, want = _run(functions, x, y), _references(x, y)
    for name in [*UNARY, *BINARY]:
        distance = _ulps(got[name], want[name])
        worst = int(np.argmax(distance))
        assert distance.max() <= 1.0, (f"tf.{name}({x[worst]!r}" + (f", {y[worst]!r}" if name in BINARY else "")
                                       + f") = {got[name][worst]!r}, the truth {want[name][worst]!r}")
        assert np.mean(distance > 0.5) < 1e-4, name  # almost always the nearest float


def test_special_values_are_cs_bit_for_bit(functions):
    """Signed zeros, infinities and NaN as C's functions give them (numpy's float64 ones, rounded):
    sin(-0) = -0, log(0) = -inf, pow(-0, -3) = -inf, pow(-8, 1/3) = NaN, atan2(-0, -1) = -pi..."""
    x, y = (a.ravel().copy() for a in np.meshgrid(SPECIAL, SPECIAL))
    got, want = _run(functions, x, y), _references(x, y)
    for name in [*UNARY, *BINARY]:
        with np.errstate(over="ignore"):
            w = want[name].astype(np.float32)
        same = (got[name].view(np.uint32) == w.view(np.uint32)) | (np.isnan(got[name]) & np.isnan(w))
        bad = np.flatnonzero(~same)[:5]
        assert not bad.size, [(name, x[i], y[i], got[name][i], w[i]) for i in bad]


def test_a_value_gets_the_same_bits_at_every_size_and_position(functions):
    """Vectorized loops and their scalar tails compute the same arithmetic: an element of a
    4099-element array equals that element alone, and every copy of a repeated value agrees."""
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(-20, 20, 4096).astype(np.float32), SPECIAL[:3]])
    y = rng.uniform(-4, 4, x.size).astype(np.float32)
    whole = _run(functions, x, y)
    for start, stop in [(0, 1), (5, 8), (100, 117), (4090, 4099)]:
        part = _run(functions, x[start:stop], y[start:stop])
        for name in whole:
            np.testing.assert_array_equal(part[name].view(np.uint32), whole[name][start:stop].view(np.uint32),
                                          err_msg=f"tf.{name} on elements {start}:{stop}")
    repeated = _run(functions, np.repeat(x[:64], 37), np.repeat(y[:64], 37))
    for name, values in repeated.items():
        values = values.reshape(64, 37).view(np.uint32)
        assert (values == values[:, :1]).all(), f"tf.{name}: copies of one value differ"


def _branchy_program():
    """The same functions in a loop g++ cannot vectorize (a data-dependent while with an early
    exit), next to the plain elementwise ones."""
    x = tf.input([-1], tf.float32)
    plain = tf.exp(x) + tf.sin(x) * tf.tanh(x) + tf.log(tf.abs(x) + 1.0) + tf.pow(tf.abs(x), 0.75)
    out = tf.zeros(x.shape, tf.float32)
    i = x.indices[0]
    steps = tf.int(tf.abs(x[i])) % 3 + 1
    with tf.loop(steps) as k:
        v = x[i] + tf.float(k) * 0.0
        out[i] = tf.exp(v) + tf.sin(v) * tf.tanh(v) + tf.log(tf.abs(v) + 1.0) + tf.pow(tf.abs(v), 0.75)
        with tf.if_cond(v > 1e30):
            tf.break_loop()
    return plain, out


def test_a_loop_that_does_not_vectorize_gives_the_same_bits():
    tf.initialize(tf.cpu)
    program = tf.compile(_branchy_program)
    x = np.random.default_rng(11).uniform(-6, 6, 1000).astype(np.float32)
    plain, looped = (t.numpy for t in program(x))
    np.testing.assert_array_equal(plain.view(np.uint32), looped.view(np.uint32))
    with np.errstate(all="ignore"):
        d = x.astype(np.float64)
        want = np.exp(d) + np.sin(d) * np.tanh(d) + np.log(np.abs(d) + 1) + np.abs(d) ** 0.75
    np.testing.assert_allclose(plain, want, rtol=1e-6)  # a few float32 roundings of the sum
