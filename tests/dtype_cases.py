"""Shared cases and references of the dtype tests (tests/test_dtypes_*.py).

The references are independent of tensorfrost's own (the op table's numpy ``ref``s): integer
results come from Python ints wrapped to the dtype's bits, conversions to floats from exact
rationals rounded to nearest even at the target's precision (so no reference rounds twice),
float to integer conversions from the rule in the docstring of ``ops_math._float_to_int``,
and 16-bit float results from the op computed in float32 and rounded once (what numpy and
ml_dtypes compute for one op).

A check collects every mismatch of a test (op, dtype, a few inputs with what came back and
what was expected) and fails once at the end with all of them, so one failing op does not
hide the others.
"""

from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from conftest import gl_unavailable_reason, webgpu_unavailable_reason

import tensorfrost as tf

BF16 = np.dtype(ml_dtypes.bfloat16)
ALL = [tf.bool1, tf.int8, tf.int16, tf.int32, tf.int64, tf.uint8, tf.uint16, tf.uint32, tf.uint64,
       tf.float16, tf.bfloat16, tf.float32, tf.float64]
INTS = [d for d in ALL if d.is_integer]
FLOATS = [d for d in ALL if d.is_float]
NUMERIC = INTS + FLOATS
BACKENDS = ["cpu", "interpreter", "opengl", "webgpu"]

# (mantissa bits with the implicit one, smallest normal exponent, largest exponent)
FORMATS = {"float16": (11, -14, 15), "bfloat16": (8, -126, 127), "float32": (24, -126, 127),
           "float64": (53, -1022, 1023)}


def ids(dtypes):
    return [d.name for d in dtypes]


def use_backend(name):
    """Select backend ``name`` (the fixture's body); skips OpenGL and WebGPU only without a device."""
    if name == "opengl":
        reason = gl_unavailable_reason()  # (the one skip: the system has no OpenGL context, as conftest's)
        if reason is not None:
            pytest.skip(f"no OpenGL 4.3 context: {reason}")
    if name == "webgpu":
        reason = webgpu_unavailable_reason()  # (likewise: no WebGPU adapter at all)
        if reason is not None:
            pytest.skip(f"no WebGPU device: {reason}")
    tf.initialize(getattr(tf, name))


def np_dtype(d) -> np.dtype:
    return np.dtype(d.numpy)


def compute_dtype(d) -> np.dtype:
    """The numpy dtype a float dtype's ops are computed in."""
    return np.dtype(np.float32) if d.is_float and d.bits == 16 else np_dtype(d)


# -- exact references ------------------------------------------------------------------------------


def wrap(value: int, d) -> int:
    """A Python int wrapped to the bits of integer dtype ``d`` (two's complement)."""
    bits = 64 if d.bits == 64 else d.bits
    value %= 1 << bits
    if d.kind == "i" and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def _exponent(v: Fraction) -> int:
    """floor(log2(v)) of a positive rational."""
    e = v.numerator.bit_length() - v.denominator.bit_length()
    return e - 1 if Fraction(2) ** e > v else e


def round_exact(value, d) -> float:
    """``value`` (a Python int or float, taken exactly) rounded to nearest even in float dtype
    ``d``; overflow gives inf as IEEE rounding does. Returns a Python float holding it."""
    if isinstance(value, float) and not math.isfinite(value):
        return value
    v = Fraction(value)
    if v == 0:
        return math.copysign(0.0, value) if isinstance(value, float) else 0.0
    p, emin, emax = FORMATS[d.name]
    quantum = Fraction(2) ** (max(_exponent(abs(v)), emin) - (p - 1))
    r = round(v / quantum) * quantum  # (Fraction's round: half to even)
    if abs(r) >= Fraction(2) ** (emax + 1):
        return math.copysign(math.inf, value)
    return math.copysign(float(r), value) if r == 0 else float(r)


def float_to_int_rule(x: float, d) -> int:
    """The rule of ``ops_math._float_to_int``'s docstring: truncate toward zero; outside int32
    (int64 for 64-bit targets), NaN or inf give the smallest int32 (int64), then wrap to smaller
    ints; unsigned targets go through int64 and wrap, beyond that 0 (uint64 converts values
    below 2**64 exactly)."""
    finite = math.isfinite(x)
    if d.kind == "i":
        wide = 64 if d.bits == 64 else 32
        inside = finite and -(2.0 ** (wide - 1)) <= x < 2.0 ** (wide - 1)
        return wrap(int(x) if inside else -(2 ** (wide - 1)), d)
    if finite and -(2.0 ** 63) <= x < 2.0 ** 63:
        return wrap(int(x), d)
    if finite and d.bits == 64 and 2.0 ** 63 <= x < 2.0 ** 64:
        return int(x)
    return 0


def convert(x: np.ndarray, d) -> np.ndarray:
    """numpy array ``x`` converted to dtype ``d`` by the references above."""
    x = np.asarray(x)
    target = np_dtype(d)
    if d.is_bool:
        return x != 0
    if x.dtype == np.bool_:
        return x.astype(target)
    if x.dtype.kind in "iu":
        if d.is_integer:
            return np.array([wrap(int(v), d) for v in x.ravel()], dtype=object).astype(target).reshape(x.shape)
        return np.array([round_exact(int(v), d) for v in x.ravel()], np.float64).astype(target).reshape(x.shape)
    values = x.astype(np.float64).ravel()
    if d.is_integer:
        return np.array([float_to_int_rule(float(v), d) for v in values], dtype=object).astype(target).reshape(x.shape)
    return np.array([round_exact(float(v), d) for v in values], np.float64).astype(target).reshape(x.shape)


# -- promotion --------------------------------------------------------------------------------------


def promoted(a, b):
    """The dtype of ``a op b`` for two tensors: numpy's result, except that an integer or bool
    meeting a float gives the float (JAX's lattice); int64 with uint64 is float64."""
    if a.is_float != b.is_float:
        return a if a.is_float else b
    found = np.result_type(np_dtype(a), np_dtype(b))
    return {np_dtype(d): d for d in ALL}[found]


def weak_promoted(d, value):
    """The dtype of ``tensor op value`` for a Python scalar ``value`` (weak)."""
    if isinstance(value, float) and not d.is_float:
        return tf.float32
    if isinstance(value, int) and not isinstance(value, bool) and d.is_bool:
        return tf.int32
    return d


# -- sample values ----------------------------------------------------------------------------------


def int_range(d):
    if d.is_bool:
        return 0, 1
    info = np.iinfo(np_dtype(d))
    return int(info.min), int(info.max)


def float_max(d) -> float:
    p, _, emax = FORMATS[d.name]
    return float((2 - Fraction(2) ** (1 - p)) * Fraction(2) ** emax)


def sample(d, n: int, seed: int, special: bool = True, scale: float | None = None) -> np.ndarray:
    """``n`` values of dtype ``d``: edge values first (when ``special``), then random ones
    (ints over the whole range; floats normal of scale ``scale``, default 100)."""
    rng = np.random.default_rng(seed)
    if d.is_bool:
        return rng.integers(0, 2, n).astype(bool)
    if d.is_integer:
        lo, hi = int_range(d)
        edges = [lo, lo + 1, 0, 1, 2, 3, 7, 100, hi - 1, hi, hi // 2, -1, -2, -7, -100] if special else []
        edges = [v for v in edges if lo <= v <= hi]
        rand = [int(v) for v in rng.integers(lo, hi, n, dtype=np.int64 if d.kind == "i" else np.uint64,
                                             endpoint=True)]
        if scale is not None:
            rand = [int(v) for v in rng.integers(max(lo, -int(scale)), min(hi, int(scale)), n, endpoint=True)]
        values = (edges + rand)[:n]
        rng.shuffle(values)
        return np.array(values, dtype=object).astype(np_dtype(d))
    big = float_max(d)
    tiny = float(Fraction(2) ** FORMATS[d.name][1])
    edges = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 0.1, 3.0, -7.0, 100.0, math.inf, -math.inf, math.nan,
             big, -big, tiny, tiny / 4, 1.0 / 3.0] if special else []
    rand = list(rng.standard_normal(n) * (100.0 if scale is None else scale))
    values = (edges + rand)[:n]
    rng.shuffle(values)
    return convert(np.array(values, np.float64), d)


# -- comparisons ------------------------------------------------------------------------------------


def ulp(values: np.ndarray, d) -> np.ndarray:
    """The spacing of float dtype ``d`` at each of ``values`` (float64)."""
    p, emin, _ = FORMATS[d.name]
    mag = np.abs(values.astype(np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.floor(np.log2(np.where(mag > 0, mag, 1.0)))
    return np.exp2(np.maximum(e, emin) - (p - 1))


class Checks:
    """Collects the mismatches of one test; ``done()`` fails with all of them."""

    def __init__(self, label: str = ""):
        self.label = label
        self.failures: list[str] = []

    def fail(self, what: str) -> None:
        self.failures.append(what)

    def same(self, what: str, got, want, ulps: float = 0, rtol: float = 0.0, atol: float = 0.0,
             inputs: tuple = ()) -> bool:
        """``got`` (a TensorMemory or array) equals ``want`` in dtype, shape and values: ints
        exactly, floats within ``ulps`` units in the last place of the expected dtype (or
        ``rtol``/``atol``), NaN where NaN, infinities of the same sign."""
        got = got.numpy if hasattr(got, "numpy") and not isinstance(got, np.ndarray) else np.asarray(got)
        want = np.asarray(want)
        if got.dtype != want.dtype:
            self.fail(f"{what}: dtype {got.dtype}, expected {want.dtype}")
            return False
        if got.shape != want.shape:
            self.fail(f"{what}: shape {got.shape}, expected {want.shape}")
            return False
        if want.dtype.kind in "biu":
            bad = got != want
        else:
            g, w = got.astype(np.float64), want.astype(np.float64)
            d = {np.dtype(x.numpy): x for x in FLOATS}[want.dtype]
            with np.errstate(invalid="ignore"):
                finite = np.isfinite(w) & np.isfinite(g)
                allowed = ulps * ulp(w, d) + rtol * np.abs(w) + atol
                bad = np.where(finite, np.abs(g - w) > allowed,
                               ~((np.isnan(g) & np.isnan(w)) | (g == w)))
        if np.any(bad):
            where = np.argwhere(bad)[:4]
            shown = []
            for index in map(tuple, where):
                given = ", ".join(repr(np.asarray(x)[index].item()) for x in inputs if np.shape(x) == got.shape)
                shown.append(f"[{given}] -> got {got[index].item()!r}, expected {want[index].item()!r}")
            self.fail(f"{what}: {int(np.sum(bad))} of {bad.size} differ: " + "; ".join(shown))
            return False
        return True

    def done(self) -> None:
        if self.failures:
            pytest.fail(f"{self.label}: {len(self.failures)} failing checks:\n  " + "\n  ".join(self.failures),
                        pytrace=False)


# -- elementwise references -------------------------------------------------------------------------


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


INT_OPS = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: 0 if b == 0 else _trunc_div(a, b),
    "mod": lambda a, b: 0 if b == 0 else a - b * _trunc_div(a, b),
    "floordiv": lambda a, b: 0 if b == 0 else a // b,
    "min": min, "max": max, "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
}


def int_binary(op: str, a: np.ndarray, b: np.ndarray, d) -> np.ndarray:
    """An integer op of Python ints, wrapped to ``d`` (C's ``/`` and ``%``: x / 0 = x % 0 = 0)."""
    fn = INT_OPS[op]
    out = [wrap(fn(int(x), int(y)), d) for x, y in zip(a.ravel(), b.ravel())]
    return np.array(out, dtype=object).astype(np_dtype(d)).reshape(a.shape)


def int_shift(op: str, a: np.ndarray, b: np.ndarray, d) -> np.ndarray:
    """``a << b`` / ``a >> b`` with the amount taken modulo the bits of ``d``."""
    out = []
    for x, y in zip(a.ravel(), b.ravel()):
        amount = int(y) % d.bits
        out.append(wrap(int(x) << amount if op == "shl" else int(x) >> amount, d))
    return np.array(out, dtype=object).astype(np_dtype(d)).reshape(a.shape)


def in_compute(fn, d, *arrays) -> np.ndarray:
    """``fn`` of float arrays computed in ``d``'s compute dtype, rounded once to ``d``."""
    c = compute_dtype(d)
    with np.errstate(all="ignore"):
        return np.asarray(fn(*[np.asarray(x).astype(c) for x in arrays])).astype(np_dtype(d))


# -- elementwise cases ------------------------------------------------------------------------------

# (a, b) pairs where integer and float ops have edge cases: INT_MIN / -1, x / 0, signs of % and //
INT_PAIRS = [("min", -1), (7, 0), (-7, 2), (7, -2), (-7, -2), ("min", 1), ("max", 2), (100, 100), (-100, 100),
             ("max", "max"), ("min", "min"), (0, 0), (5, 3), (-5, 3), ("max", -1)]
FLOAT_PAIRS = [(1.0, 0.1), (-7.5, 2.0), (7.5, -2.0), (1.0, 0.0), (-1.0, 0.0), (0.0, 0.0), (5.0, math.inf),
               (math.inf, math.inf), (math.nan, 1.0), (1.0, math.nan), ("max", 2.0), ("max", 0.5), (0.3, 0.1),
               (2.0, 10.0), (-8.0, 1.0 / 3.0), (0.5, -0.0)]


def paired_inputs(d, n: int):
    """Operands ``a``, ``b`` (the pairs above, then samples), ``c`` (a third operand) and
    shift amounts ``s`` in [-3, 2 * bits + 3) for integer dtypes."""
    pairs = INT_PAIRS if not d.is_float else FLOAT_PAIRS
    lo, hi = (int_range(d) if not d.is_float else (-float_max(d), float_max(d)))

    def value(v):
        v = {"min": lo, "max": hi}.get(v, v) if isinstance(v, str) else v
        return v if d.is_float or lo <= v <= hi else None
    kept = [(value(x), value(y)) for x, y in pairs if value(x) is not None and value(y) is not None]
    kept = kept if not d.is_bool else []
    def column(values):
        if d.is_float:
            return convert(np.array(values, np.float64), d)
        return np.array(values, dtype=object).astype(np_dtype(d))
    a = np.concatenate([column([x for x, _ in kept]), sample(d, n, seed=11)])
    b = np.concatenate([column([y for _, y in kept]), sample(d, n, seed=12)])
    c = sample(d, a.size, seed=13)
    rng = np.random.default_rng(14)
    s = None
    if d.is_integer:
        amounts = rng.integers(0 if d.kind == "u" else -3, 2 * d.bits + 3, a.size)
        s = np.array([int(v) for v in amounts], dtype=object).astype(np_dtype(d))
    return a, b, c, s


def _wrapped1(d, fn):
    return lambda a: np.array([wrap(fn(int(v)), d) for v in a], dtype=object).astype(np_dtype(d))


def elementwise_cases(d):
    """``{label: (tf function of (a, b, c, s, cond), reference of the numpy inputs, ulps)}`` of the
    ops that apply to dtype ``d``. ulps: 0 for exactly rounded ops, 1 for 16-bit float results of
    float functions (float32 within 1 ulp, then one rounding), 4 for float32 and float64 ones
    (the cpu's float32 ones are within 1 ulp, libm's float64 ones about 1, numpy's own float32
    ones within 1-3, the shader languages' within a few)."""
    cases = {
        "a < b": (lambda a, b, c, s, k: a < b, lambda a, b, c, s: np.less(a, b), 0),
        "a <= b": (lambda a, b, c, s, k: a <= b, lambda a, b, c, s: np.less_equal(a, b), 0),
        "a > b": (lambda a, b, c, s, k: a > b, lambda a, b, c, s: np.greater(a, b), 0),
        "a >= b": (lambda a, b, c, s, k: a >= b, lambda a, b, c, s: np.greater_equal(a, b), 0),
        "a == b": (lambda a, b, c, s, k: a == b, lambda a, b, c, s: np.equal(a, b), 0),
        "a != b": (lambda a, b, c, s, k: a != b, lambda a, b, c, s: np.not_equal(a, b), 0),
    }
    if not d.is_float:
        for label, fn, ref in (("a & b", lambda a, b: a & b, np.bitwise_and),
                               ("a | b", lambda a, b: a | b, np.bitwise_or),
                               ("a ^ b", lambda a, b: a ^ b, np.bitwise_xor)):
            cases[label] = (lambda a, b, c, s, k, fn=fn: fn(a, b), lambda a, b, c, s, ref=ref: ref(a, b), 0)
        cases["~a"] = (lambda a, b, c, s, k: ~a,
                       lambda a, b, c, s: np.logical_not(a) if d.is_bool else np.invert(a), 0)
    if d.is_bool:
        return cases
    ops = {"a + b": (lambda a, b: a + b, "add", np.add), "a - b": (lambda a, b: a - b, "sub", np.subtract),
           "a * b": (lambda a, b: a * b, "mul", np.multiply), "a / b": (lambda a, b: a / b, "div", np.divide),
           "a % b": (lambda a, b: a % b, "mod", np.fmod), "a // b": (lambda a, b: a // b, "floordiv", np.floor_divide),
           "tf.min(a, b)": (tf.min, "min", np.minimum), "tf.max(a, b)": (tf.max, "max", np.maximum)}
    for label, (fn, name, ref) in ops.items():
        if d.is_float:
            cases[label] = (lambda a, b, c, s, k, fn=fn: fn(a, b),
                            lambda a, b, c, s, ref=ref: in_compute(ref, d, a, b), 0)
        else:
            cases[label] = (lambda a, b, c, s, k, fn=fn: fn(a, b),
                            lambda a, b, c, s, name=name: int_binary(name, a, b, d), 0)
    cases["tf.select(k, a, b)"] = (lambda a, b, c, s, k: tf.select(k, a, b), None, 0)  # (reference: in the test)
    clamp = lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi)  # noqa: E731
    if d.is_float:
        cases["-a"] = (lambda a, b, c, s, k: -a, lambda a, b, c, s: -a, 0)
        cases["tf.abs(a)"] = (lambda a, b, c, s, k: tf.abs(a), lambda a, b, c, s: np.abs(a), 0)
        cases["tf.sign(a)"] = (lambda a, b, c, s, k: tf.sign(a), lambda a, b, c, s: in_compute(np.sign, d, a), 0)
        cases["tf.clamp(a, b, c)"] = (lambda a, b, c, s, k: tf.clamp(a, b, c),
                                      lambda a, b, c, s: in_compute(clamp, d, a, b, c), 0)
        cases["tf.fma(a, b, c)"] = (lambda a, b, c, s, k: tf.fma(a, b, c),
                                    lambda a, b, c, s: in_compute(lambda x, y, z: x * y + z, d, a, b, c), 0)
        cases["tf.lerp(a, b, c)"] = (lambda a, b, c, s, k: tf.lerp(a, b, c),
                                     lambda a, b, c, s: in_compute(lambda x, y, t: x + (y - x) * t, d, a, b, c), 0)
        smooth = lambda e0, e1, x: (lambda t: t * t * (3 - 2 * t))(np.clip((x - e0) / (e1 - e0), 0, 1))  # noqa: E731
        cases["tf.smoothstep(a, b, c)"] = (lambda a, b, c, s, k: tf.smoothstep(a, b, c),
                                           lambda a, b, c, s: in_compute(smooth, d, a, b, c), 0)
        libm = 1 if d.bits == 16 else 4
        unary = {"floor": (np.floor, 0), "ceil": (np.ceil, 0), "round": (np.rint, 0), "trunc": (np.trunc, 0),
                 "frac": (lambda x: x - np.floor(x), 0), "sqrt": (np.sqrt, 0), "rsqrt": (lambda x: 1 / np.sqrt(x), 0),
                 "rcp": (lambda x: 1 / x, 0), "exp": (np.exp, libm), "exp2": (np.exp2, libm), "log": (np.log, libm),
                 "log2": (np.log2, libm), "sin": (np.sin, libm), "cos": (np.cos, libm), "tan": (np.tan, libm),
                 "asin": (np.arcsin, libm), "acos": (np.arccos, libm), "atan": (np.arctan, libm),
                 "sinh": (np.sinh, libm), "cosh": (np.cosh, libm), "tanh": (np.tanh, libm)}
        for name, (ref, ulps) in unary.items():
            cases[f"tf.{name}(a)"] = (lambda a, b, c, s, k, name=name: getattr(tf, name)(a),
                                      lambda a, b, c, s, ref=ref: in_compute(ref, d, a), ulps)
        for name, ref in (("pow", np.power), ("atan2", np.arctan2)):
            cases[f"tf.{name}(a, b)"] = (lambda a, b, c, s, k, name=name: getattr(tf, name)(a, b),
                                         lambda a, b, c, s, ref=ref: in_compute(ref, d, a, b), libm)
        return cases
    cases["-a"] = (lambda a, b, c, s, k: -a, lambda a, b, c, s: _wrapped1(d, lambda v: -v)(a), 0)
    cases["tf.abs(a)"] = (lambda a, b, c, s, k: tf.abs(a), lambda a, b, c, s: _wrapped1(d, abs)(a), 0)
    cases["tf.sign(a)"] = (lambda a, b, c, s, k: tf.sign(a),
                           lambda a, b, c, s: _wrapped1(d, lambda v: (v > 0) - (v < 0))(a), 0)
    cases["tf.clamp(a, b, c)"] = (lambda a, b, c, s, k: tf.clamp(a, b, c), lambda a, b, c, s: clamp(a, b, c), 0)
    cases["tf.fma(a, b, c)"] = (lambda a, b, c, s, k: tf.fma(a, b, c), lambda a, b, c, s: np.array(
        [wrap(int(x) * int(y) + int(z), d) for x, y, z in zip(a, b, c)], dtype=object).astype(np_dtype(d)), 0)
    cases["a << s"] = (lambda a, b, c, s, k: a << s, lambda a, b, c, s: int_shift("shl", a, s, d), 0)
    cases["a >> s"] = (lambda a, b, c, s, k: a >> s, lambda a, b, c, s: int_shift("shr", a, s, d), 0)
    # float functions of integers compute in float32
    cases["tf.sqrt(a)"] = (lambda a, b, c, s, k: tf.sqrt(a),
                           lambda a, b, c, s: in_compute(np.sqrt, tf.float32, convert(a, tf.float32)), 0)
    cases["tf.floor(a)"] = (lambda a, b, c, s, k: tf.floor(a), lambda a, b, c, s: convert(a, tf.float32), 0)
    return cases


# -- data of reductions, scans, scatters and matmul ---------------------------------------------------

ROWS, COLS = 5, 37


def reduction_data(d, seed: int):
    """[ROWS, COLS] values whose sums and products are exact in float32 in any order: ints over
    the whole range (they wrap, which no order changes), floats small multiples of 1/2 for sums
    and {1, -1, 2, 1/2} with one 3/2 and one 1 + ulp per row for products. A 16-bit float's first
    row is 2048 (256 for bfloat16) then ones: one rounding of the float32 sum keeps every one,
    rounding each step keeps none. A NaN at [1, 3] for floats (sum, max and min propagate it)."""
    rng = np.random.default_rng(seed)
    if not d.is_float:
        return sample(d, ROWS * COLS, seed).reshape(ROWS, COLS), None
    sums = rng.integers(-16, 17, (ROWS, COLS)) / 2.0
    if d.bits == 16:
        sums[0] = 1.0
        sums[0, 0] = 2048.0 if d is tf.float16 else 256.0
    sums[1, 3] = np.nan
    prods = rng.choice([1.0, -1.0, 2.0, 0.5], (ROWS, COLS))
    prods[:, 5] = 1.5
    prods[:, 9] = 1.0 + (2.0 ** -7 if d is tf.bfloat16 else 2.0 ** -10)
    return convert(sums, d), convert(prods, d)


def fraction_of(x):
    return Fraction(int(x)) if isinstance(x, (int, np.integer)) else Fraction(float(x))


def exact_reduce(x: np.ndarray, axis: int, fn, d) -> np.ndarray:
    """``fn`` (sum or product of Fractions) along ``axis``, rounded once to ``d``; NaN rows NaN."""
    moved = np.moveaxis(x, axis, -1)
    out = []
    for row in moved.reshape(-1, moved.shape[-1]):
        if d.is_float and np.isnan(row.astype(np.float64)).any():
            out.append(math.nan)
            continue
        value = fn([fraction_of(v) if not isinstance(v, (bool, np.bool_)) else Fraction(int(v)) for v in row])
        out.append(round_exact(value, d) if d.is_float else wrap(int(value), d))
    return np.array(out, dtype=np.float64 if d.is_float else object).astype(np_dtype(d)).reshape(moved.shape[:-1])


def product(values):
    return math.prod(values, start=Fraction(1))


FORMAT_BITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}


def scan_reference(x, axis, fn, identity, exclusive=False, reverse=False):
    x = np.flip(x, axis) if reverse else x
    out = fn.accumulate(x, axis=axis, dtype=x.dtype)
    if exclusive:
        out = np.concatenate([np.full_like(np.take(out, [0], axis), identity), np.delete(out, -1, axis)], axis)
    return np.flip(out, axis) if reverse else out


def scan_data(d, seed: int, shape):
    """Values whose running sums and products are exact in ``d`` itself (any order)."""
    rng = np.random.default_rng(seed)
    if d.is_integer:
        return sample(d, math.prod(shape), seed).reshape(shape), sample(d, math.prod(shape), seed + 1).reshape(shape)
    if d.is_bool:
        x = rng.integers(0, 2, shape).astype(bool)
        return x, x
    steps = rng.choice([-1.0, 0.0, 1.0], shape).reshape(-1, shape[-1])
    for row in steps:  # a walk that stays within [-20, 20]: every prefix is exact in bfloat16
        total = 0.0
        for k, step in enumerate(row):
            row[k] = -step if abs(total + step) > 20 else step
            total += row[k]
    steps = steps.reshape(shape)
    return convert(steps, d), convert(rng.choice([1.0, -1.0, 2.0, 0.5], shape), d)


def scatter_values(d, count: int, seed: int):
    """Values whose atomic sums are exact in ``d`` in any order (halves up to 8 for floats)."""
    if d.is_float:
        return convert(np.random.default_rng(seed).integers(-16, 17, count) / 2.0, d)
    return sample(d, count, seed, special=False)


def matmul_data(d, shape, seed: int):
    """Integers over the whole range; floats small halves (exact sums of products in float32)."""
    if d.is_float:
        return convert(np.random.default_rng(seed).integers(-8, 9, shape) / 2.0, d)
    return sample(d, math.prod(shape), seed, special=False).reshape(shape)


def exact_matmul(a, b, d) -> np.ndarray:
    """The product in Python ints (floats: the data are halves, so 2a and 2b are ints), wrapped
    or rounded once to ``d``."""
    scale = 2 if a.dtype.kind not in "biu" else 1
    ia = np.array([[int(v * scale) for v in row] for row in a.astype(np.float64 if scale == 2 else object)], object)
    ib = np.array([[int(v * scale) for v in row] for row in b.astype(np.float64 if scale == 2 else object)], object)
    out = ia.dot(ib)
    if d.is_float:
        return np.array([[round_exact(Fraction(v, 4), d) for v in row] for row in out], np.float64).astype(np_dtype(d))
    return np.array([[wrap(int(v), d) for v in row] for row in out], dtype=object).astype(np_dtype(d))


# -- what a backend cannot compute -----------------------------------------------------------------


def computable(backend, dtypes=ALL) -> list:
    """The dtypes of ``dtypes`` that ``backend`` computes in (WebGPU: none of 64 bits yet)."""
    name = getattr(backend, "name", backend)  # (a name here, conftest's fixture gives the device)
    return [d for d in dtypes if not (name == "webgpu" and d.bits == 64)]


def refused_64(backend, dtypes, program=None, run=None) -> bool:
    """Whether ``backend`` cannot compute one of ``dtypes`` (WebGPU's WGSL kernels spell no
    64-bit dtype yet): then it asserts that building ``program`` (or calling ``run``) is the
    clear DTypeError, never a skip, and the test ends there."""
    if computable(backend, dtypes) == list(dtypes):
        return False
    with pytest.raises(tf.DTypeError, match=r"cannot be computed on webgpu: WGSL has no 64-bit types"):
        (run or (lambda: tf.compile(program)))()
    return True
