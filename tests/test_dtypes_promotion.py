"""Promotion and conversion between every pair of dtypes (issue 29), in compiled programs on
cpu, the interpreter and OpenGL.

- Two tensors combine by JAX's lattice: numpy 2's result type, except that an integer meeting a
  float never widens the float (int32 + float32 is float32) and int64 + uint64 is float64. The
  table is checked against ``jax.numpy.promote_types`` (with 64-bit types on) and then, op by
  op (add, mul, <, select, min, max), in programs: the result's dtype and its values, which
  are the operands converted to the common dtype, then the op (integers wrap, 16-bit floats
  round once from float32).
- Python scalars are weak: they take the tensor's dtype, except that a float with an integer
  or bool tensor gives float32 and an int with a bool tensor gives int32.
- ``x.astype(d)`` / ``tf.cast(x, d)`` for every pair: the references of tests/dtype_cases.py
  (exact rational rounding for anything to a float, wrapping for ints, the documented float to
  int rule), with values picked where rounding twice (through float32 or float64) would show.

Each program holds many checks (one compile per source dtype), so a test's failure lists every
mismatching op, dtype and input.
"""

import numpy as np
import pytest
from dtype_cases import (
    ALL,
    BACKENDS,
    Checks,
    computable,
    convert,
    ids,
    in_compute,
    int_binary,
    np_dtype,
    promoted,
    refused_64,
    sample,
    use_backend,
    weak_promoted,
)

import tensorfrost as tf

N = 32  # elements per input: the edge values of sample() and some random ones


@pytest.fixture(params=BACKENDS)
def backend(request):
    use_backend(request.param)
    yield request.param
    tf.initialize(tf.cpu)


def test_expected_promotion_is_jax_lattice():
    """The oracle of these tests is JAX's table (64-bit types enabled), pair by pair."""
    import jax  # (the test extra installs it)
    jax.config.update("jax_enable_x64", True)
    differ = [(a.name, b.name, np.dtype(jax.numpy.promote_types(np_dtype(a), np_dtype(b))).name, promoted(a, b).name)
              for a in ALL for b in ALL
              if np.dtype(jax.numpy.promote_types(np_dtype(a), np_dtype(b))) != np_dtype(promoted(a, b))]
    assert differ == []


def _expected_binary(op, a, b, p):
    """``a op b`` with both converted to ``p`` first (JAX's and numpy's order)."""
    x, y = convert(a, p), convert(b, p)
    if op == "lt":
        return np.less(x, y)
    if p.is_bool:  # numpy: + is or, * is and, min / max of bools are bools
        return {"add": np.logical_or, "mul": np.logical_and, "min": np.minimum, "max": np.maximum}[op](x, y)
    if p.is_integer:
        return int_binary(op, x, y, p)
    return in_compute({"add": np.add, "mul": np.multiply, "min": np.minimum, "max": np.maximum}[op], p, x, y)


@pytest.mark.parametrize("left", ALL, ids=ids(ALL))
def test_binary_ops_promote_like_jax(backend, left):
    """``left`` op ``right`` for every right dtype: the result dtype and values of +, *, <,
    select, min and max (test_elementwise_ops has the other comparisons, in one dtype)."""
    # (on WebGPU, none of 64 bits, nor one that promotes to 64 bits, as int32 with uint32: their own tests' error)
    traced, rights = {}, [d for d in computable(backend) if computable(backend, [promoted(left, d)])]

    def program():
        a = tf.input([-1], left)
        others = [tf.input([-1], d) for d in rights]
        cond = tf.input([-1], tf.bool1)
        outs = []
        for right, b in zip(rights, others):
            results = {"add": a + b, "mul": a * b, "lt": a < b, "select": tf.select(cond, a, b),
                       "min": tf.min(a, b), "max": tf.max(a, b)}
            traced[right.name] = {op: r.dtype for op, r in results.items()}
            outs += results.values()
        return outs

    if refused_64(backend, [left], program):
        return
    run = tf.compile(program)
    a = sample(left, N, seed=1)
    others = [sample(d, N, seed=2 + k) for k, d in enumerate(ALL) if d in rights]
    cond = sample(tf.bool1, N, seed=99)
    outs = iter(run(a, *others, cond))
    checks = Checks(f"{left.name} op right on {backend}")
    for right, b in zip(rights, others):
        p = promoted(left, right)
        for op in ("add", "mul", "lt", "select", "min", "max"):
            got = next(outs)
            # (tensorfrost's one rule beside the lattice: + and * of two bools count, as C's and
            # upstream's do, giving int32; numpy and JAX give their logical or / and)
            counts = left is right is tf.bool1 and op in ("add", "mul")
            want_dtype = tf.bool1 if op == "lt" else tf.int32 if counts else p
            if traced[right.name][op] is not want_dtype:
                checks.fail(f"{left.name} {op} {right.name}: traced dtype {traced[right.name][op]!r}, "
                            f"expected {want_dtype!r}")
            if op == "select":
                want = np.where(cond, convert(a, p), convert(b, p))
            elif counts:
                want = _expected_binary(op, a.astype(np.int32), b.astype(np.int32), tf.int32)
            else:
                want = _expected_binary(op, a, b, p)
            checks.same(f"{left.name} {op} {right.name}", got, want, inputs=(a, b))
    checks.done()


SCALARS = [3, 2.5, 0.1]
WEAK_OPS = {"x + s": lambda x, s, c: x + s, "x * s": lambda x, s, c: x * s, "s - x": lambda x, s, c: s - x,
            "max(x, s)": lambda x, s, c: tf.max(x, s), "select(c, x, s)": lambda x, s, c: tf.select(c, x, s),
            "x < s": lambda x, s, c: x < s}


def _expected_weak(op, x, s, c, r):
    """The reference of ``WEAK_OPS[op]`` with ``x`` and ``s`` converted to ``r``."""
    xs = np.broadcast_to(s, x.shape)
    if op == "x < s":
        return np.less(x, xs)
    if op == "select(c, x, s)":
        return np.where(c, x, xs)
    if r.is_float:
        fn = {"x + s": np.add, "x * s": np.multiply, "s - x": lambda a, b: np.subtract(b, a),
              "max(x, s)": np.maximum}[op]
        return in_compute(fn, r, x, xs)
    if op == "max(x, s)":
        return np.maximum(x, xs)
    name = {"x + s": "add", "x * s": "mul", "s - x": "sub"}[op]
    return int_binary(name, xs, x, r) if op == "s - x" else int_binary(name, x, xs, r)


@pytest.mark.parametrize("d", ALL, ids=ids(ALL))
def test_python_scalars_are_weak(backend, d):
    """``x + s``, ``x * s``, ``s - x``, ``tf.max(x, s)``, ``tf.select(c, x, s)`` and ``x < s`` for
    a tensor ``x`` of dtype ``d`` and s in 3, 2.5, 0.1: the tensor's dtype (float32 for a float
    scalar with an integer or bool tensor, int32 for an int scalar with a bool one), with the
    scalar converted to it first (0.1 rounds to float16 before the add)."""
    cases = []  # (op, scalar, traced dtype)

    def program():
        x = tf.input([-1], d)
        cond = tf.input([-1], tf.bool1)
        outs = []
        for value in SCALARS:
            for op, fn in WEAK_OPS.items():
                outs.append(fn(x, value, cond))
                cases.append((op, value, outs[-1].dtype))
        return outs

    x = sample(d, N, seed=40, scale=20.0)
    cond = sample(tf.bool1, N, seed=98)
    if refused_64(backend, [d], program):
        return
    outs = tf.compile(program)(x, cond)
    checks = Checks(f"weak scalars with {d.name} on {backend}")
    for (op, value, traced), got in zip(cases, outs):
        r = weak_promoted(d, value)
        what = f"{d.name} {op} with s = {value!r}"
        want_dtype = tf.bool1 if op == "x < s" else r
        if traced is not want_dtype:
            checks.fail(f"{what}: traced dtype {traced!r}, expected {want_dtype!r}")
        checks.same(what, got, _expected_weak(op, convert(x, r), convert(np.array([value]), r), cond, r), inputs=(x,))
    checks.done()


# -- conversions ----------------------------------------------------------------------------------

# Floats where a conversion can go wrong: halfway cases of every target, overflow thresholds,
# values just outside int32 / int64 / uint64, NaN and inf, and float64 values exactly halfway
# between two float16 (bfloat16, float32) after rounding to float32 (or to float64 for ints).
FLOAT_EDGES = [0.5, 1.5, 2.5, -0.5, -2.5, 0.9999, -0.9999, 127.5, 128.0, -128.5, 255.9, 256.0, 300.7, -129.5,
               32767.5, 65504.0, 65519.0, 65520.0, -65536.0, 1e10, -1e10, 3e9, -3e9, 2.0 ** 31, -(2.0 ** 31),
               2.0 ** 31 - 128, 2.0 ** 32, 2.0 ** 63, -(2.0 ** 63), 9.21e18, 2.0 ** 64, 1.9e19, -1e19, 1e30,
               float("nan"), float("inf"), float("-inf"), -0.0, 1e-8, 6e-8, 3e-5, 1e-40,
               1 + 2.0 ** -11 + 2.0 ** -30, -(1 + 2.0 ** -11 + 2.0 ** -30), 2049 + 2.0 ** -20,
               1 + 2.0 ** -8 + 2.0 ** -30, 257 + 2.0 ** -20, 1 + 2.0 ** -24 + 2.0 ** -60, 3.4e38, 3.3961e38]
INT_EDGES = [2 ** 24 + 1, 2 ** 24 + 3, 2 ** 30 + 2 ** 22 + 1, -(2 ** 30 + 2 ** 22 + 1), 2 ** 31 - 1, 65519, 65520,
             2049, 2051, 2 ** 53 + 1, 2 ** 62 + 2 ** 38 + 1, 2 ** 63 - 1, -(2 ** 63), 2 ** 64 - 1,
             2 ** 63 + 2 ** 39 + 1, -(2 ** 62 + 2 ** 38 + 1), 2 ** 40 + 2 ** 32 + 1, 257, 259, 4095, 300, -129]


def conversion_inputs(d) -> np.ndarray:
    """The sample values of ``d`` and the edge cases above that ``d`` can hold."""
    base = sample(d, N, seed=60)
    if d.is_bool:
        return base
    if d.is_float:
        extra = convert(np.array(FLOAT_EDGES + [float(v) for v in INT_EDGES]), d)
    else:
        lo, hi = np.iinfo(np_dtype(d)).min, np.iinfo(np_dtype(d)).max
        extra = np.array([v for v in INT_EDGES if lo <= v <= hi], dtype=object).astype(np_dtype(d))
    return np.concatenate([base, extra])


@pytest.mark.parametrize("source", ALL, ids=ids(ALL))
def test_conversions_from(backend, source):
    """``x.astype(d)`` and ``tf.cast(x, d)`` of a ``source`` tensor for every target ``d``,
    and upstream's ``tf.float``/``tf.int``/``tf.uint``/``tf.bool`` (float32, int32, uint32, bool1)."""
    upstream = {tf.float32: tf.float, tf.int32: tf.int, tf.uint32: tf.uint, tf.bool1: tf.bool}
    targets = computable(backend)  # (on WebGPU, no 64-bit ones: their own tests' error)

    def program():
        x = tf.input([-1], source)
        outs = []
        for d in targets:
            outs += [x.astype(d), tf.cast(x, d)]
        return outs + [fn(x) for fn in upstream.values()]

    x = conversion_inputs(source)
    if refused_64(backend, [source], program):
        return
    outs = tf.compile(program)(x)
    checks = Checks(f"conversions from {source.name} on {backend}")
    for k, (d, got) in enumerate(zip([d for d in targets for _ in range(2)] + list(upstream), outs)):
        how = f"tf.{upstream[d].__name__}" if k >= 2 * len(targets) else "tf.cast" if k % 2 else "astype"
        checks.same(f"{how}({source.name} -> {d.name})", got, convert(x, d), inputs=(x,))
    checks.done()


def test_float64_to_16_bit_floats_round_once(backend):
    """float64 values just above the midpoint of two float16 (bfloat16) numbers, which rounding
    to float32 first puts exactly on the midpoint (then ties to even goes down): the direct,
    correctly rounded result is the upper one, as numpy's and ml_dtypes' astype give."""
    def program():
        x = tf.input([-1], tf.float64)
        return [x.astype(tf.float16), x.astype(tf.bfloat16), x.astype(tf.float32)]

    half = np.array([1 + 2.0 ** -11 + 2.0 ** -40, -(2 + 2.0 ** -10 + 2.0 ** -40), 2049 + 2.0 ** -25,
                     (1 + 2.0 ** -11) * 2.0 ** -14 + 2.0 ** -60], np.float64)
    bf = np.array([1 + 2.0 ** -8 + 2.0 ** -40, 257 + 2.0 ** -25, -(1 + 2.0 ** -8 + 2.0 ** -40) * 2.0 ** 100])
    x = np.concatenate([half, bf])
    if refused_64(backend, [tf.float64], program):
        return
    f16, b16, f32 = tf.compile(program)(x)
    checks = Checks(f"float64 -> 16-bit on {backend}")
    with np.errstate(over="ignore"):  # (the last value overflows float16)
        for got, d in ((f16, tf.float16), (b16, tf.bfloat16), (f32, tf.float32)):
            want = x.astype(np_dtype(d))  # numpy's and ml_dtypes' casts round once, as the exact reference does
            assert np.array_equal(want, convert(x, d), equal_nan=True)
            checks.same(f"float64 -> {d.name}", got, want, inputs=(x,))
    assert x[:1].astype(np.float16)[0] == np.float16(1 + 2.0 ** -10)  # (the upper neighbour)
    checks.done()
