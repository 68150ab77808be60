"""Every op of the op table against its numpy reference, on edge values too.

Elementwise ops are grouped so that one compiled program checks many ops. The numpy
references themselves are checked against plain Python / numpy semantics in
``test_reference_semantics`` so that the backends are compared with the right thing.
"""

import numpy as np
import pytest
from dtype_cases import computable, refused_64

import tensorfrost as tf
from tensorfrost.ir import dtypes as dt_module
from tensorfrost.ir.ops import ELEMENTWISE, OPS
from tensorfrost.ir.ops_math import CONVERSIONS

I32_MIN, I32_MAX = np.iinfo(np.int32).min, np.iinfo(np.int32).max
FLOAT_EDGES = np.array([-np.inf, -1e30, -1e4, -3.5, -2.5, -1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 1.5, 2.5, 3.0,
                        1e4, 1e30, np.inf, np.nan], dtype=np.float32)
INT_EDGES = np.array([I32_MIN, I32_MIN + 1, -33, -7, -3, -1, 0, 1, 2, 3, 7, 31, 32, 33, I32_MAX], dtype=np.int32)
UINT_EDGES = np.array([0, 1, 2, 3, 7, 31, 32, 33, 2**31 - 1, 2**31, 2**32 - 2, 2**32 - 1], dtype=np.uint32)

# Public spelling of each elementwise op (operators where Python has one).
UNARY = {
    "neg": lambda a: -a, "abs": tf.abs, "sign": tf.sign, "not": lambda a: ~a, "floor": tf.floor, "ceil": tf.ceil,
    "round": tf.round, "trunc": tf.trunc, "frac": tf.frac, "exp": tf.exp, "exp2": tf.exp2, "log": tf.log,
    "log2": tf.log2, "sqrt": tf.sqrt, "rsqrt": tf.rsqrt, "rcp": tf.rcp, "sin": tf.sin, "cos": tf.cos,
    "tan": tf.tan, "asin": tf.asin, "acos": tf.acos, "atan": tf.atan, "sinh": tf.sinh, "cosh": tf.cosh,
    "tanh": tf.tanh, "float": tf.float, "int": tf.int, "uint": tf.uint, "bool": tf.bool, "asfloat": tf.asfloat,
    "asint": tf.asint, "asuint": tf.asuint, "pcg": tf.pcg, "pcgf": tf.pcgf, "reversebits": tf.reversebits,
    "copy": tf.copy,
}
BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b, "div": lambda a, b: a / b,
    "mod": lambda a, b: a % b, "floordiv": lambda a, b: a // b, "pow": tf.pow, "atan2": tf.atan2,
    "min": tf.min, "max": tf.max, "lt": lambda a, b: a < b, "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
    "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
    "shl": lambda a, b: a << b, "shr": lambda a, b: a >> b,
}
TERNARY = {"clamp": tf.clamp, "lerp": tf.lerp, "fma": tf.fma, "smoothstep": tf.smoothstep, "select": tf.select}

# Which ops apply to which operand dtype (the op's type rule rejects or converts the rest).
FLOAT_UNARY = ["neg", "abs", "sign", "floor", "ceil", "round", "trunc", "frac", "exp", "exp2", "log", "log2",
               "sqrt", "rsqrt", "rcp", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
               "float", "int", "uint", "bool", "asint", "asuint", "copy"]
INT_UNARY = ["neg", "abs", "sign", "not", "float", "uint", "bool", "asfloat", "asuint", "copy", "int"]
UINT_UNARY = ["neg", "abs", "sign", "not", "float", "int", "bool", "asfloat", "asint", "pcg", "pcgf",
              "reversebits", "copy", "uint"]
FLOAT_BINARY = ["add", "sub", "mul", "div", "mod", "floordiv", "pow", "atan2", "min", "max", "lt", "le", "gt",
                "ge", "eq", "ne"]
INT_BINARY = ["add", "sub", "mul", "div", "mod", "floordiv", "min", "max", "lt", "le", "gt", "ge", "eq", "ne",
              "and", "or", "xor", "shl", "shr"]
BOOL_OPS = ["and", "or", "xor", "eq", "ne"]

# Trig of huge arguments is ill-conditioned in float32: libraries legitimately differ there.
TRIG = {"sin", "cos", "tan"}


def _pairs(values):
    a, b = np.meshgrid(values, values, indexing="ij")
    return a.ravel(), b.ravel()


def _reference(name, *arrays):
    op = OPS[name]
    from tensorfrost.ir import dtypes as dt
    from tensorfrost.ir.ops import elementwise_types
    arg_types, result = elementwise_types(op, [dt.numpy_to_dtype(a.dtype) for a in arrays])
    args = [np.asarray(a).astype(t.numpy) for a, t in zip(arrays, arg_types)]
    with np.errstate(all="ignore"):
        return np.asarray(op.ref(*args)).astype(result.numpy)


def _compare(name, got, want):
    if want.dtype.kind == "f" and name in ("asfloat",):
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32), err_msg=name)
    elif want.dtype.kind == "f":
        # float32 results: a few ulp of difference between libm implementations.
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6, equal_nan=True, err_msg=name)
    else:
        np.testing.assert_array_equal(got, want, err_msg=name)


def _run_unary(names, values, dtype):
    def program():
        a = tf.input([-1], dtype)
        return [UNARY[n](a) for n in names]
    outs = tf.compile(program)(values)
    for name, out in zip(names, outs):
        inputs = values if name not in TRIG else np.where(np.abs(values) > 1e4, 0, values).astype(values.dtype)
        if name in TRIG:
            want = _reference(name, inputs)
            got = np.where(np.abs(values) > 1e4, want, out.numpy)
        else:
            want, got = _reference(name, values), out.numpy
        _compare(name, got, want)


def _run_binary(names, a_values, b_values, dtype):
    def program():
        a = tf.input([-1], dtype)
        b = tf.input([-1], dtype)
        return [BINARY[n](a, b) for n in names]
    outs = tf.compile(program)(a_values, b_values)
    for name, out in zip(names, outs):
        _compare(name, out.numpy, _reference(name, a_values, b_values))


def _samples(dtype) -> np.ndarray:
    """Values of ``dtype`` that reach every rule of a conversion: the extremes, zero, halves
    (rounding), values beyond the narrower types' ranges, NaN and inf for floats."""
    if dtype is tf.bool1:
        return np.array([True, False, True])
    if dtype.is_float:
        wide = np.array([-np.inf, -3e38, -2.0**63, -70000.0, -300.5, -128.5, -2.5, -1.0, -0.5, -0.0, 0.0, 0.49,
                         0.5, 1.5, 255.5, 65519.0, 65520.0, 2.0**31, 2.0**32 + 5, 2.0**63, 2.0**64, 3e38, np.inf,
                         np.nan, 1.0 + 2.0**-11 + 2.0**-30])
        with np.errstate(all="ignore"):
            return wide.astype(dtype.numpy)
    info = np.iinfo(dtype.numpy)
    return np.array([info.min, info.min + 1, -1 if info.min else 0, 0, 1, 127, 128, 255, 256, 65535, 65536,
                     info.max - 1, info.max], dtype=object).clip(info.min, info.max).astype(dtype.numpy)


@pytest.mark.parametrize("source", list(dt_module.ALL), ids=lambda d: d.name)
def test_conversions_between_every_pair_of_dtypes(backend, source):
    """``x.astype(target)`` for every pair: exactly the op table's reference (numpy's astype,
    with the float-to-int rule of ops_math._float_to_int), bit for bit."""
    values = _samples(source)
    targets = computable(backend, dt_module.ALL)  # (WebGPU: the 64-bit ones are refused, named)

    def program():
        a = tf.input([-1], source)
        return [a.astype(target) for target in targets]
    if refused_64(backend, [source], program):
        return
    outs = tf.compile(program)(values)
    for target, out in zip(targets, outs, strict=True):
        want = _reference(CONVERSIONS[target], values)
        got = out.numpy
        assert got.dtype == target.numpy, target
        if target.is_float:  # (NaN payloads aside)
            same = (got.astype(np.float64) == want.astype(np.float64)) | (np.isnan(got.astype(np.float64))
                                                                          & np.isnan(want.astype(np.float64)))
            assert same.all(), (source, target, values[~same], got[~same], want[~same])
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"{source} -> {target}")


def test_float_unary(backend):
    values = np.concatenate([FLOAT_EDGES, np.random.default_rng(0).standard_normal(64).astype(np.float32) * 3])
    _run_unary(FLOAT_UNARY, values, tf.float32)


def test_odd_functions_keep_relative_precision_near_zero(backend):
    """f(x) ~ x near 0: formulas such as (1 - e^-2x) / (1 + e^-2x) for tanh cancel there and
    lose digits that an absolute tolerance would not notice."""
    values = np.float32([1e-6, -3e-5, 1e-3, -0.01, 0.05, 0.1, -0.124, 0.126, 0.2, -0.45])
    names = ["tanh", "sinh", "sin", "tan", "asin", "atan"]

    def program():
        a = tf.input([-1], tf.float32)
        return [UNARY[n](a) for n in names]
    for name, out in zip(names, tf.compile(program)(values)):
        np.testing.assert_allclose(out.numpy, _reference(name, values), rtol=4e-7 * 4, atol=0, err_msg=name)


def test_int_unary(backend):
    _run_unary(INT_UNARY, INT_EDGES, tf.int32)


def test_uint_unary(backend):
    _run_unary(UINT_UNARY, UINT_EDGES, tf.uint32)


def test_float_binary(backend):
    a, b = _pairs(np.array([-np.inf, -3.5, -2.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.0, 3.5, np.inf, np.nan],
                           dtype=np.float32))
    _run_binary(FLOAT_BINARY, a, b, tf.float32)


def test_int_binary(backend):
    a, b = _pairs(INT_EDGES)
    _run_binary(INT_BINARY, a, b, tf.int32)


def test_uint_binary(backend):
    a, b = _pairs(UINT_EDGES)
    _run_binary(INT_BINARY, a, b, tf.uint32)


def test_bool_ops(backend):
    a, b = _pairs(np.array([False, True]))

    def program():
        x = tf.input([-1], tf.bool1)
        y = tf.input([-1], tf.bool1)
        return [BINARY[n](x, y) for n in BOOL_OPS] + [~x, tf.int(x), tf.float(y)]
    outs = tf.compile(program)(a, b)
    for name, out in zip(BOOL_OPS, outs):
        _compare(name, out.numpy, _reference(name, a, b))
    np.testing.assert_array_equal(outs[-3].numpy, ~a)
    np.testing.assert_array_equal(outs[-2].numpy, a.astype(np.int32))
    np.testing.assert_array_equal(outs[-1].numpy, b.astype(np.float32))


def test_ternary(backend, rng):
    a = np.concatenate([rng.standard_normal(40), [np.nan, np.inf, -np.inf, 0.0]]).astype(np.float32)
    b = np.concatenate([rng.standard_normal(40), [1.0, 2.0, 0.0, -1.0]]).astype(np.float32)
    c = np.concatenate([rng.standard_normal(40) + 2, [3.0, np.nan, 1.0, 0.0]]).astype(np.float32)
    ai, bi, ci = (np.array([-5, 0, 3, 10, I32_MIN, I32_MAX], np.int32), np.array([-2, -2, 4, 2, 0, -1], np.int32),
                  np.array([2, 2, 5, 7, 1, 1], np.int32))

    def program():
        x, y, z = tf.input([-1]), tf.input([-1]), tf.input([-1])
        p, q, r = tf.input([-1], tf.int32), tf.input([-1], tf.int32), tf.input([-1], tf.int32)
        return [tf.clamp(x, y, z), tf.lerp(x, y, z), tf.fma(x, y, z), tf.smoothstep(y, z, x),
                tf.select(x > y, x, z), tf.clamp(p, q, r), tf.fma(p, q, r), tf.select(p > q, p, r)]
    outs = tf.compile(program)(a, b, c, ai, bi, ci)
    names = ["clamp", "lerp", "fma", "smoothstep"]
    for name, out, args in zip(names, outs, [(a, b, c), (a, b, c), (a, b, c), (b, c, a)]):
        _compare(name, out.numpy, _reference(name, *args))
    _compare("select", outs[4].numpy, np.where(a > b, a, c))
    _compare("clamp", outs[5].numpy, _reference("clamp", ai, bi, ci))
    _compare("fma", outs[6].numpy, _reference("fma", ai, bi, ci))
    _compare("select", outs[7].numpy, np.where(ai > bi, ai, ci))


def test_weak_scalars_and_promotion(backend):
    def program():
        x = tf.input([-1], tf.float32)
        i = tf.input([-1], tf.int32)
        return [x * 2, 2 * x, i * 0.5, i + 1, x + i, 1.0 / x, i // 2, i % 3, x ** 2, x ** 0.5, 2 ** x]
    x = np.array([0.5, 2.0, -3.0, 4.0], np.float32)
    i = np.array([-7, 3, 0, 9], np.int32)
    outs = [o.numpy for o in tf.compile(program)(x, i)]
    assert outs[0].dtype == np.float32 and outs[2].dtype == np.float32 and outs[3].dtype == np.int32
    with np.errstate(invalid="ignore"):
        wants = [x * 2, 2 * x, i * 0.5, i + 1, x + i, 1 / x, i // 2, np.fmod(i, 3), x ** 2, np.sqrt(x), 2 ** x]
    for got, want in zip(outs, wants):
        np.testing.assert_allclose(got, want.astype(got.dtype), rtol=2e-6, equal_nan=True)


def test_reference_semantics():
    """The op table's references give C semantics where C and numpy differ, and numpy's
    elsewhere."""
    a = np.array([7, -7, 7, -7, 5, I32_MIN, I32_MIN], np.int32)
    b = np.array([2, 2, -2, -2, 0, -1, 1], np.int32)
    assert OPS["div"].ref(a, b).tolist() == [3, -3, -3, 3, 0, I32_MIN, I32_MIN]
    assert OPS["mod"].ref(a, b).tolist() == [1, -1, 1, -1, 0, 0, 0]
    assert OPS["floordiv"].ref(a, b).tolist() == [3, -4, -4, 3, 0, I32_MIN, I32_MIN]
    assert OPS["shl"].ref(np.int32([1, 1, 1]), np.int32([31, 32, 33])).tolist() == [I32_MIN, 1, 2]
    assert OPS["shr"].ref(np.int32([-8]), np.int32([1])).tolist() == [-4]
    assert OPS["round"].ref(np.float32([0.5, 1.5, 2.5, -0.5])).tolist() == [0.0, 2.0, 2.0, -0.0]
    assert OPS["int"].ref(np.float32([2.9, -2.9, np.nan, 3e9])).tolist() == [2, -2, I32_MIN, I32_MIN]
    assert OPS["uint"].ref(np.float32([2.9, -1.0])).tolist() == [2, 2**32 - 1]
    assert np.isnan(OPS["max"].ref(np.float32([np.nan]), np.float32([1.0]))[0])
    assert 0.0 <= OPS["pcgf"].ref(np.uint32([0, 1, 2**32 - 1])).max() < 1.0


REDUCTIONS = {
    "reduce_sum": (tf.sum, np.sum), "reduce_prod": (tf.prod, np.prod), "reduce_max": (tf.max, np.max),
    "reduce_min": (tf.min, np.min), "reduce_any": (tf.any, np.any), "reduce_all": (tf.all, np.all),
}


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_reductions(backend, rng, axis):
    x = rng.standard_normal((5, 7, 3)).astype(np.float32)
    x[0, 0, 0] = np.nan if axis == 0 else x[0, 0, 0]

    def program():
        a = tf.input([-1, -1, -1])
        i = tf.input([-1, -1, -1], tf.int32)
        out = [fn(a, axis=axis) for fn, _ in REDUCTIONS.values() if fn not in (tf.any, tf.all)]
        return out + [tf.any(a > 1.0, axis=axis), tf.all(a > -1.5, axis=axis), tf.sum(i, axis=axis),
                      tf.max(i, axis=axis), tf.mean(a, axis=axis), tf.norm(a, axis=axis)]
    xi = rng.integers(-100, 100, (5, 7, 3)).astype(np.int32)
    outs = [o.numpy for o in tf.compile(program)(x, xi)]
    wants = [ref(x, axis=axis) for fn, ref in REDUCTIONS.values() if fn not in (tf.any, tf.all)]
    wants += [np.any(x > 1, axis=axis), np.all(x > -1.5, axis=axis), xi.sum(axis=axis), xi.max(axis=axis),
              x.mean(axis=axis), np.sqrt((x.astype(np.float64) ** 2).sum(axis=axis))]
    for got, want in zip(outs, wants):
        # float32 sums of 3-7 terms: a few ulp of the magnitude of the terms.
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True)


def test_reduction_of_1d_has_shape_1(backend, rng):
    x = rng.standard_normal(1000).astype(np.float32)
    out = tf.compile(lambda: [tf.sum(tf.input([-1]))])(x)  # a one-element list gives the tensor
    assert out.shape == (1,)
    # a sequential float32 sum of 1000 terms of size ~1: error bound ~ n * eps * sum|x|.
    np.testing.assert_allclose(out.numpy, [x.astype(np.float64).sum()], atol=1000 * 1.2e-7 * np.abs(x).sum())


def test_prefix_sum(backend, rng):
    x = rng.integers(-5, 5, (4, 9)).astype(np.int32)
    outs = tf.compile(lambda: (lambda a: [tf.prefix_sum(a), tf.prefix_sum(a, axis=0)])(tf.input([-1, -1], tf.int32)))(x)
    np.testing.assert_array_equal(outs[0].numpy, np.cumsum(x, axis=1))
    np.testing.assert_array_equal(outs[1].numpy, np.cumsum(x, axis=0))


# Ops that are not elementwise, and the test that covers each.
STRUCTURAL_COVERAGE = {
    "const": "test_seed_examples", "dim_id": "test_seed_examples", "input": "test_seed_examples",
    "input_dim": "test_seed_examples", "load": "test_seed_examples", "store": "test_seed_examples",
    "set": "test_seed_examples", "scatter_add": "test_scatter", "scatter_min": "test_scatter",
    "scatter_max": "test_scatter", "scatter_and": "test_scatter", "scatter_or": "test_scatter",
    "scatter_xor": "test_scatter", "reduce_sum": "test_reductions", "reduce_prod": "test_reductions",
    "reduce_max": "test_reductions", "reduce_min": "test_reductions", "reduce_any": "test_reductions",
    "reduce_all": "test_reductions", "prefix_sum": "test_prefix_sum", "transpose": "test_views",
    "unsqueeze": "test_views", "squeeze": "test_views", "reshape": "test_views", "split_dim": "test_views",
    "merge_dim": "test_views", "repeat": "test_views", "reverse": "test_views", "matmul": "test_seed_examples",
    "loop": "test_seed_examples", "if": "test_seed_examples", "break": "test_seed_examples",
    "continue": "test_control_flow", "kernel": "test_fusion", "assert": "test_errors", "alloc": "test_fusion",
    "free": "test_fusion", "readback": "test_control_flow", "region": "test_control_flow",
    "grad": "test_autodiff", "jvp": "test_forward_mode", "detach": "test_autodiff", "pass_grad": "test_autodiff",
    "custom_grad": "compat/test_compat_custom", "library_grad": "test_linalg",
    "prefix_prod": "test_scan", "prefix_max": "test_scan", "prefix_min": "test_scan",
}


def test_every_op_is_covered():
    """Adding an op to the table without a test fails here."""
    elementwise = {n for n, o in OPS.items() if o.kind == ELEMENTWISE}
    tested = set(FLOAT_UNARY) | set(INT_UNARY) | set(UINT_UNARY) | set(FLOAT_BINARY) | set(INT_BINARY)
    tested |= set(BOOL_OPS) | set(TERNARY) | set(CONVERSIONS.values())
    assert elementwise - tested == set()
    assert set(OPS) - elementwise == set(STRUCTURAL_COVERAGE)
