"""Every op family in every dtype (issue 29) against numpy, on cpu, the interpreter and OpenGL,
in both front ends.

Semantics checked (tests/dtype_cases.py has the references):
- elementwise ops on 16-bit floats are computed in float32 and rounded to the dtype after
  every op (numpy's and ml_dtypes' results); float64 computes in float64; integers of every
  width wrap after every op (int8 100 + 100 = -56), ``/`` and ``%`` truncate with x / 0 = x % 0
  = 0, ``//`` floors, shifts take the amount modulo the dtype's bits;
- reductions keep the dtype (bools count in int32) and accumulate 16-bit floats in float32,
  rounding once; scans, gathers, slices, scatters and atomics (colliding indices) keep the
  dtype; matmul of 16-bit floats sums in float32 and rounds once, of ints narrower than 32 bits
  gives int32;
- the library (sort, fft, linalg, nn, grad) in the new dtypes, float64 to float64 precision;
- ``@tf.kernel_program`` with ``tf.Arg(shape, dtype)``: a counter ``total = 0`` summed with
  ``+=`` takes the dtype of what is added, as numpy's scalars do.

Data of order-dependent reductions is exact in float32 (small dyadic values: every partial
sum or product is exact in any order), so a result is compared exactly with the exact value
rounded once; values of crafted rows (2048 + 1 + 1 ...) tell one rounding from rounding every
step.
"""

import math

import numpy as np
import pytest
from conftest import central_differences
from dtype_cases import (
    ALL,
    BACKENDS,
    COLS,
    FLOATS,
    FORMAT_BITS,
    NUMERIC,
    ROWS,
    Checks,
    convert,
    elementwise_cases,
    exact_matmul,
    exact_reduce,
    ids,
    in_compute,
    int_binary,
    matmul_data,
    np_dtype,
    paired_inputs,
    product,
    reduction_data,
    refused_64,
    sample,
    scan_data,
    scan_reference,
    scatter_values,
    use_backend,
    wrap,
)

import tensorfrost as tf

N = 48


@pytest.fixture(params=BACKENDS)
def backend(request):
    use_backend(request.param)
    yield request.param
    tf.initialize(tf.cpu)


# -- elementwise ---------------------------------------------------------------------------------


@pytest.mark.parametrize("d", ALL, ids=ids(ALL))
def test_elementwise_ops(backend, d):
    """Every elementwise op that applies to ``d``, two or three operands of ``d``: dtype and values."""
    cases = elementwise_cases(d)

    def program():
        a, b, c = (tf.input([-1], d) for _ in range(3))
        s = tf.input([-1], d) if d.is_integer else None
        k = tf.input([-1], tf.bool1)
        return [fn(a, b, c, s, k) for fn, _, _ in cases.values()]

    a, b, c, s = paired_inputs(d, N)
    k = sample(tf.bool1, a.size, seed=15)
    if refused_64(backend, [d], program):
        return
    outs = tf.compile(program)(*[x for x in (a, b, c, s) if x is not None], k)
    checks = Checks(f"elementwise {d.name} on {backend}")
    for (label, (_, ref, ulps)), got in zip(cases.items(), outs):
        want = np.where(k, a, b) if ref is None else ref(a, b, c, s)
        operands = (a, b, c) if "c" in label.split("(")[-1] else (a, s) if "s" in label else (a, b)
        if backend in ("opengl", "webgpu") and d.compute is tf.float32:  # (WGSL: the same driver builtins)
            got, ulps = _glsl_float_domain(label, a, b, got.numpy, want, ulps)
        checks.same(f"{d.name} {label}", got, want, ulps=ulps, inputs=operands)
    checks.done()


def _glsl_float_domain(label, a, b, got, want, ulps):
    """GLSL leaves its float32 builtins' precision to the driver: llvmpipe's sin/cos/tan are
    good for |x| <= 1e4 only, its log/log2 flush subnormals, and pow is exp2(y log2 x), whose
    error grows with |y log2 x| (GLSL 4.50, 4.7.1). Those elements take numpy's value (as
    tests/test_ops.py does for trig); pow is checked to that bound (|y log2 x| + 4 ulp)."""
    x, y = np.asarray(a, np.float64), np.asarray(b, np.float64)
    name = label.split("(")[0].split(".")[-1]
    with np.errstate(all="ignore"):
        if name in ("sin", "cos", "tan"):
            outside = np.abs(x) > 1e4
        elif name in ("log", "log2"):
            outside = (x != 0) & (np.abs(x) < np.finfo(np.float32).tiny)
        elif name == "pow":
            outside = (x != 0) & (np.abs(x) < np.finfo(np.float32).tiny)
            ulps = max(ulps, 4 + int(np.nanmax(np.where(np.isfinite(y * np.log2(np.abs(x))),
                                                        np.abs(y * np.log2(np.abs(x))), 0))))
        else:
            return got, ulps
    return np.where(outside, want, got).astype(got.dtype), ulps


CHAIN_DTYPES = [tf.int8, tf.uint8, tf.int16, tf.uint16, tf.float16, tf.bfloat16]


@pytest.mark.parametrize("d", CHAIN_DTYPES, ids=ids(CHAIN_DTYPES))
def test_chains_round_or_wrap_after_every_op(backend, d):
    """``((a + b) * b - a) // 3`` (ints) and ``((a + b) * b - a) / b + a`` (floats): each op
    rounds (wraps) before the next, as numpy's do, inside one fused kernel and through a loop
    that adds ``b`` five times."""
    def program():
        a, b = tf.input([-1], d), tf.input([-1], d)
        fused = ((a + b) * b - a) // 3 if d.is_integer else ((a + b) * b - a) / b + a
        acc = tf.copy(a)
        with tf.loop(5):
            acc.val = acc + b
        return [fused, acc]

    a, b = sample(d, N, seed=20, special=False, scale=150), sample(d, N, seed=30, special=False, scale=150)
    got_fused, got_acc = tf.compile(program)(a, b)
    with np.errstate(all="ignore"):
        if d.is_integer:
            step = int_binary("sub", int_binary("mul", int_binary("add", a, b, d), b, d), a, d)
            fused = int_binary("floordiv", step, np.full_like(a, 3), d)
        else:
            fused = ((a + b) * b - a) / b + a  # numpy: float16 / bfloat16 round every op
        acc = a.copy()
        for _ in range(5):
            acc = int_binary("add", acc, b, d) if d.is_integer else (acc + b)
    checks = Checks(f"chains of {d.name} on {backend}")
    checks.same(f"{d.name} fused chain", got_fused, fused, inputs=(a, b))
    checks.same(f"{d.name} loop acc += b", got_acc, acc, inputs=(a, b))
    checks.done()


# -- reductions and scans ------------------------------------------------------------------------

@pytest.mark.parametrize("d", ALL, ids=ids(ALL))
def test_reductions(backend, d):
    """tf.sum / prod / max / min / any / all / mean / norm over each axis of a [5, 37] tensor and
    over a static axis of 4 (an unrolled expression): the dtype kept (bools count in int32;
    mean and norm of integers are float32), 16-bit floats summed in float32 and rounded once."""
    numeric = not d.is_bool

    def program():
        x = tf.input([-1, -1], d)
        p = tf.input([-1, -1], d)
        w = tf.input([-1, 4], d)
        outs = []
        for axis in (0, 1):
            outs += [tf.sum(x, axis), tf.max(x, axis=axis), tf.min(x, axis=axis), tf.any(x, axis), tf.all(x, axis)]
            outs += [tf.prod(p, axis), tf.mean(x, axis), tf.norm(x, axis)] if numeric else [tf.prod(x, axis)]
        return outs + [tf.sum(w, 1), tf.prod(w, 1)]

    x, p = reduction_data(d, seed=50)
    p = x if p is None else p
    w = x[:, :4].copy() if not d.is_float else np.nan_to_num(x[:, :4].astype(np.float64)).astype(np_dtype(d))
    if refused_64(backend, [d], program):
        return
    outs = iter(tf.compile(program)(x, p, w))
    checks = Checks(f"reductions of {d.name} on {backend}")
    counted = tf.int32 if d.is_bool else d
    as_float = d if d.is_float else tf.float32
    for axis in (0, 1):
        checks.same(f"tf.sum({d.name}, {axis})", next(outs), exact_reduce(x, axis, sum, counted), inputs=(x,))
        for name, fn in (("max", np.max), ("min", np.min)):
            want = fn(x, axis=axis)
            checks.same(f"tf.{name}({d.name}, axis={axis})", next(outs), want)
        checks.same(f"tf.any({d.name}, {axis})", next(outs), np.any(x != 0, axis=axis))
        checks.same(f"tf.all({d.name}, {axis})", next(outs), np.all(x != 0, axis=axis))
        checks.same(f"tf.prod({d.name}, {axis})", next(outs), exact_reduce(p, axis, product, counted))
        if numeric:
            n = x.shape[axis]
            total = exact_reduce(x, axis, sum, tf.float64) if d.is_float else np.array(
                [float(sum(int(v) for v in row)) for row in np.moveaxis(x, axis, -1)])
            eps = 2.0 ** -FORMAT_BITS[as_float.name]
            checks.same(f"tf.mean({d.name}, {axis})", next(outs), (total / n).astype(np_dtype(as_float)),
                        rtol=(n + 2) * eps * (1 if d.is_float else 2.0 ** 8), atol=eps)
            norm = np.sqrt(np.sum(x.astype(np.float64) ** 2, axis=axis))
            got = next(outs)
            if d.bits < 64 or d.is_float:  # (the squares of 64-bit ints overflow float32, which norm computes in)
                checks.same(f"tf.norm({d.name}, {axis})", got, norm.astype(np_dtype(as_float)), rtol=(n + 2) * eps)
    checks.same(f"tf.sum({d.name}[:, :4], 1) (static axis)", next(outs), exact_reduce(w, 1, sum, counted))
    checks.same(f"tf.prod({d.name}[:, :4], 1) (static axis)", next(outs), exact_reduce(w, 1, product, counted))
    checks.done()


@pytest.mark.parametrize("d", ALL, ids=ids(ALL))
def test_scans(backend, d):
    """prefix_sum (inclusive, exclusive, reverse, along each axis, and one long line scanned
    in blocks), cumprod, cummax, cummin: the dtype kept (bools count in int32), numpy's values."""
    def program():
        x, p, line = tf.input([-1, -1], d), tf.input([-1, -1], d), tf.input([-1], d)
        outs = [tf.prefix_sum(x, axis=1), tf.cumsum(x, axis=0, exclusive=True), tf.prefix_sum(line, reverse=True)]
        if not d.is_bool:
            outs += [tf.cumprod(p, axis=1), tf.cummax(x, axis=1), tf.cummin(x, axis=0, reverse=True)]
        return outs

    x, p = scan_data(d, 70, (ROWS, COLS))
    line, _ = scan_data(d, 72, (5000,))
    if refused_64(backend, [d], program):
        return
    outs = iter(tf.compile(program)(x, p, line))
    checks = Checks(f"scans of {d.name} on {backend}")
    s = tf.int32 if d.is_bool else d
    xs, lines = convert(x, s), convert(line, s)
    with np.errstate(all="ignore"):
        checks.same(f"prefix_sum({d.name}, axis=1)", next(outs), scan_reference(xs, 1, np.add, 0))
        checks.same(f"cumsum({d.name}, axis=0, exclusive)", next(outs),
                    scan_reference(xs, 0, np.add, 0, exclusive=True))
        checks.same(f"prefix_sum(line of 5000 {d.name}, reverse)", next(outs),
                    scan_reference(lines, 0, np.add, 0, reverse=True))
        if not d.is_bool:
            checks.same(f"cumprod({d.name}, axis=1)", next(outs), scan_reference(p, 1, np.multiply, 1))
            checks.same(f"cummax({d.name}, axis=1)", next(outs), scan_reference(x, 1, np.maximum, 0))
            checks.same(f"cummin({d.name}, axis=0, reverse)", next(outs),
                        scan_reference(x, 0, np.minimum, 0, reverse=True))
    checks.done()


# -- indexing, scatters, matmul ----------------------------------------------------------------


@pytest.mark.parametrize("d", ALL, ids=ids(ALL))
def test_indexing(backend, d):
    """Gathers with index tensors (clamped out of range), slices, reverse, transpose, reshape,
    tf.index_grid and indexed stores keep the dtype and the values' bits."""
    def program():
        x = tf.input([-1, -1], d)
        rows = tf.input([-1], tf.int32)
        r, c = x.shape
        i, j = tf.indices([rows.shape[0], c])
        gathered = x[rows[i], j]
        shifted = x[tf.indices([r, c])[0] + 1, tf.indices([r, c])[1]]  # (the last row clamps)
        p, q = tf.index_grid([1, 0], [r, c], [2, 3])
        stored = tf.zeros([c, r], d)
        a, b = x.indices
        stored[b, a] = x[a, b]
        return [gathered, shifted, x[1:4, 2:], tf.reverse(x, 1), tf.transpose(x), tf.reshape(x, [c, r]), x[p, q],
                stored]

    x = sample(d, ROWS * 9, seed=80).reshape(ROWS, 9)
    rows = np.array([4, 0, 2, 2, -3, 7, 1], np.int32)
    if refused_64(backend, [d], program):
        return
    outs = tf.compile(program)(x, rows)
    wants = [x[np.clip(rows, 0, ROWS - 1)], x[np.minimum(np.arange(ROWS) + 1, ROWS - 1)], x[1:4, 2:], x[:, ::-1], x.T,
             x.reshape(9, ROWS), x[1::2, ::3], x.T]
    checks = Checks(f"indexing {d.name} on {backend}")
    for name, got, want in zip(["x[rows[i], j]", "x[i + 1, j]", "x[1:4, 2:]", "tf.reverse(x, 1)", "tf.transpose(x)",
                                "tf.reshape(x, [c, r])", "x[index_grid([1, 0], [r, c], [2, 3])]", "stored[j, i] = x"],
                               outs, wants):
        checks.same(f"{d.name} {name}", got, want)
    checks.done()


@pytest.mark.parametrize("d", NUMERIC, ids=ids(NUMERIC))
def test_scatters_with_colliding_indices(backend, d):
    """tf.scatterAdd / Min / Max (and And / Or / Xor for integers) of 96 values into 8 slots
    of a tensor of ``d`` (one of them an input: the program writes a copy): numpy's ufunc.at."""
    bitwise = d.is_integer

    def program():
        v = tf.input([-1], d)
        slots = tf.input([-1], tf.int32)
        start = tf.input([8], d)
        total = tf.zeros([8], d)
        low, high = tf.copy(start), tf.copy(start)
        i, = v.indices
        tf.scatterAdd(total[slots[i]], v[i])
        tf.scatterMin(low[slots], v)
        tf.scatterMax(high[slots], v)
        outs = [total, low, high]
        if bitwise:
            ands, ors, xors = tf.copy(start), tf.copy(start), tf.copy(start)
            tf.scatterAnd(ands[slots], v)
            tf.scatterOr(ors[slots], v)
            tf.scatterXor(xors[slots], v)
            tf.scatterAdd(start[slots], v)  # into the input itself: a copy of it
            outs += [ands, ors, xors, start]
        return outs

    if refused_64(backend, [d], program):
        return
    if backend == "opengl" and d.bits == 64:  # (llvmpipe has no 64-bit compare-and-swap: refused, named)
        with pytest.raises(tf.DTypeError, match=rf"tf\.scatter(Min|Max|Add) into a tf\.{d.name} tensor is not "
                                                  r"available on opengl: it needs a 64-bit atomic compare-and-swap"):
            tf.compile(program)
        return
    v = scatter_values(d, 96, seed=90)
    slots = np.random.default_rng(91).integers(0, 8, 96).astype(np.int32)
    start = scatter_values(d, 8, seed=92)
    outs = tf.compile(program)(v, slots, start)
    checks = Checks(f"scatters of {d.name} on {backend}")
    ufuncs = [("scatterAdd", np.add, np.zeros(8, np_dtype(d))), ("scatterMin", np.minimum, start),
              ("scatterMax", np.maximum, start)]
    if bitwise:
        ufuncs += [("scatterAnd", np.bitwise_and, start), ("scatterOr", np.bitwise_or, start),
                   ("scatterXor", np.bitwise_xor, start), ("scatterAdd into an input", np.add, start)]
    for (name, ufunc, initial), got in zip(ufuncs, outs):
        want = initial.copy()
        with np.errstate(all="ignore"):
            ufunc.at(want, slots, v)
        checks.same(f"tf.{name}({d.name})", got, want, inputs=(v,))
    if bitwise:
        checks.same(f"input of {d.name} after scatterAdd into it", start, scatter_values(d, 8, seed=92))
    checks.done()


@pytest.mark.parametrize("d", ALL, ids=ids(ALL))
def test_matmul(backend, d):
    """``A @ B`` of [6, 9] @ [9, 5] and [33, 40] @ [40, 17] (big enough for the blocked paths):
    16-bit floats sum in float32 and round once (a row 2048, 1, 1... against ones keeps every
    one), ints narrower than 32 bits and bools give int32 summed in int32, others their dtype
    (wrapping)."""
    out = tf.int32 if d.is_bool or (d.is_integer and d.bits < 32) else d

    def program():
        a, b = tf.input([-1, -1], d), tf.input([-1, -1], d)
        c, e = tf.input([-1, -1], d), tf.input([-1, -1], d)
        return [a @ b, tf.matmul(c, e)]

    a, b = matmul_data(d, (6, 9), 100), matmul_data(d, (9, 5), 101)
    c, e = matmul_data(d, (33, 40), 102), matmul_data(d, (40, 17), 103)
    if d.is_float and d.bits == 16:
        a[0], b[:, 0] = 1.0, 1.0
        a[0, 0] = 2048.0 if d is tf.float16 else 256.0
    if refused_64(backend, [d], program):
        return
    small, large = tf.compile(program)(a, b, c, e)
    checks = Checks(f"matmul of {d.name} on {backend}")
    checks.same(f"{d.name} [6, 9] @ [9, 5]", small, exact_matmul(a, b, out))
    checks.same(f"{d.name} [33, 40] @ [40, 17]", large, exact_matmul(c, e, out))
    checks.done()


# -- the library: sort, fft, linalg, nn, grad -----------------------------------------------------


@pytest.mark.parametrize("d", ALL, ids=ids(ALL))
def test_sort(backend, d):
    """tf.sort.sort and tf.sort.argsort (stable) of keys of ``d``, NaN last: numpy's stable sort
    (64-bit keys: radix passes over all 64 bits)."""
    def program():
        x = tf.input([-1], d)
        return [tf.sort.sort(x), tf.sort.argsort(x)]

    x = sample(d, 64, seed=110)
    if refused_64(backend, [d], program):
        return
    keys, order = tf.compile(program)(x)
    checks = Checks(f"sort of {d.name} on {backend}")
    want = np.argsort(x, kind="stable")
    checks.same(f"tf.sort.sort({d.name})", keys, x[want])
    checks.same(f"tf.sort.argsort({d.name})", order, want.astype(np.int32))
    checks.done()


@pytest.mark.parametrize("d", FLOATS, ids=ids(FLOATS))
def test_fft(backend, d):
    """rfft, fft and irfft of ``d`` signals (64 points: Stockham; 12 points: Bluestein) against
    numpy in float64. float32 and float64 results keep their dtype, within 64 eps (float64:
    about 1e-14) of the spectrum's largest value; 16-bit inputs may give their own dtype or
    float32, within 64 eps of float32 or of their own dtype (each op rounds to it)."""
    def program():  # (static lengths: each compiles its own algorithm only)
        x, y = tf.input([64], d), tf.input([12], d)
        return [tf.fft.rfft(x), tf.fft.fft(tf.fft.complex(x, x * 0.5)), tf.fft.rfft(y),
                tf.fft.irfft(tf.fft.rfft(x), 64)]

    x = convert(np.random.default_rng(120).standard_normal(64), d)
    y = convert(np.random.default_rng(121).standard_normal(12), d)
    xf, yf = x.astype(np.float64), y.astype(np.float64)
    wants = [np.fft.rfft(xf), np.fft.fft(xf + 0.5j * xf), np.fft.rfft(yf), np.fft.irfft(np.fft.rfft(xf), 64)]
    checks = Checks(f"fft of {d.name} on {backend}")
    if refused_64(backend, [d], program):
        return
    for name, got, want in zip(["rfft (64)", "fft (64)", "rfft (12)", "irfft(rfft) (64)"], tf.compile(program)(x, y),
                               wants):
        allowed = (d,) if d.bits >= 32 else (d, tf.float32)
        if got.dtype not in allowed:
            checks.fail(f"tf.fft {name} of {d.name}: dtype {got.dtype!r}, expected one of {allowed}")
            continue
        want = np.stack([want.real, want.imag], -1) if np.iscomplexobj(want) else want
        eps = 2.0 ** -(FORMAT_BITS[got.dtype.name] - 1)
        checks.same(f"tf.fft {name} of {d.name}", got.numpy.astype(np.float64), want,
                    atol=64 * eps * float(np.max(np.abs(want))))
    checks.done()


def test_linalg_float64(backend):
    """solve, inv, det, slogdet, cholesky, lu, eigh and svd of a batch of two float64 matrices and
    qr of one (it takes [m, n]), condition numbers below 100: float64 results within 1e-12
    relative of numpy's (float32 would be 1e-6 off)."""
    def program():
        a = tf.input([-1, -1, -1], tf.float64)
        b = tf.input([-1, -1], tf.float64)
        spd = a @ tf.transpose(a)
        q, r = tf.linalg.qr(tf.input([-1, -1], tf.float64))
        sign, logdet = tf.linalg.slogdet(a)
        p, low, up = tf.linalg.lu(a)
        w, v = tf.linalg.eigh(spd)
        u, s, vt = tf.linalg.svd(a)
        return [tf.linalg.solve(a, b), tf.linalg.inv(a), tf.linalg.det(a), sign, logdet, tf.linalg.cholesky(spd),
                q, r, p, low, up, w, v, s, u, vt]

    rng = np.random.default_rng(130)
    a = rng.standard_normal((2, 5, 5)) + 5 * np.eye(5)
    b = rng.standard_normal((2, 5))
    spd = a @ np.transpose(a, (0, 2, 1))
    if refused_64(backend, [tf.float64], program):
        return
    outs = tf.compile(program)(a, b, a[0])
    names = ["solve", "inv", "det", "slogdet sign", "slogdet logdet", "cholesky", "qr Q", "qr R", "lu P", "lu L",
             "lu U", "eigh w", "eigh v", "svd S", "svd U", "svd Vt"]
    got = dict(zip(names, outs))
    checks = Checks(f"linalg float64 on {backend}")
    for name, value in got.items():
        if value.dtype is not tf.float64:
            checks.fail(f"tf.linalg {name} of float64: dtype {value.dtype!r}, expected tf.float64")
    g = {k: v.numpy.astype(np.float64) for k, v in got.items()}
    sign, logdet = np.linalg.slogdet(a)
    w, v = np.linalg.eigh(spd)
    tol = dict(rtol=1e-12, atol=1e-11)
    checks.same("solve", g["solve"], np.linalg.solve(a, b[..., None])[..., 0], **tol)
    checks.same("inv", g["inv"], np.linalg.inv(a), **tol)
    checks.same("det", g["det"], np.linalg.det(a), rtol=1e-12, atol=0)
    checks.same("slogdet", np.stack([g["slogdet sign"], g["slogdet logdet"]]), np.stack([sign, logdet]), **tol)
    checks.same("cholesky", g["cholesky"], np.linalg.cholesky(spd), **tol)
    checks.same("qr: Q @ R", g["qr Q"] @ g["qr R"], a[0], **tol)
    checks.same("qr: Q orthogonal", g["qr Q"].T @ g["qr Q"], np.eye(5), **tol)
    checks.same("qr: R upper", np.tril(g["qr R"], -1), np.zeros((5, 5)))
    checks.same("lu: P @ L @ U", g["lu P"] @ g["lu L"] @ g["lu U"], a, **tol)
    checks.same("eigh w", g["eigh w"], w, rtol=1e-12, atol=1e-10)
    checks.same("eigh: |v| (signs free)", np.abs(g["eigh v"]), np.abs(v), rtol=1e-9, atol=1e-9)
    checks.same("svd S", g["svd S"], np.linalg.svd(a, compute_uv=False), **tol)
    checks.same("svd: U S Vt", (g["svd U"] * g["svd S"][:, None, :]) @ g["svd Vt"], a, **tol)
    checks.done()


NN_DTYPES = [tf.float16, tf.bfloat16, tf.float64]
# A result of a few ops each rounded to a 16-bit float is within a few units of its last place
# of the float64 value (layer_norm, softmax: about 6 ops on the way); float64 to 1e-12.
NN_TOLERANCE = {"float16": 8 * 2.0 ** -11, "bfloat16": 8 * 2.0 ** -8, "float64": 1e-12}


class _Net(tf.Module):
    """tf.nn.Linear whose parameters are declared in ``dtype``."""

    def __init__(self, dtype):
        super().__init__()
        self.fc = tf.nn.Linear(6, 3)
        self.fc.weight = tf.Parameter([3, 6], dtype)
        self.fc.bias = tf.Parameter([3], dtype)


@pytest.mark.parametrize("d", NN_DTYPES, ids=ids(NN_DTYPES))
def test_nn_layers(backend, d):
    """tf.nn.linear / relu / gelu / softmax / log_softmax / layer_norm of ``d`` tensors and a
    tf.nn.Linear module with ``d`` parameters: results of ``d`` within NN_TOLERANCE of float64."""
    def program():
        net = _Net(d)
        net.initialize_input()
        x = tf.input([-1, 6], d)
        return [net.fc(x), tf.nn.relu(x), tf.nn.gelu(x), tf.nn.softmax(x, 1), tf.nn.log_softmax(x, 1),
                tf.nn.layer_norm(x, [6])]

    net = _Net(d)
    net.initialize_parameters(seed=0)
    x = convert(np.random.default_rng(140).standard_normal((4, 6)) * 2, d)
    if refused_64(backend, [d], program):
        return
    outs = tf.compile(program)(net, x)
    w, b = net.fc.weight.numpy.astype(np.float64), net.fc.bias.numpy.astype(np.float64)
    xf = x.astype(np.float64)
    exps = np.exp(xf - xf.max(1, keepdims=True))
    erf = np.vectorize(math.erf)
    centered = xf - xf.mean(1, keepdims=True)
    softmax = exps / exps.sum(1, keepdims=True)
    wants = [xf @ w.T + b, np.maximum(xf, 0), 0.5 * xf * (1 + erf(xf / math.sqrt(2))), softmax, np.log(softmax),
             centered / np.sqrt((centered ** 2).mean(1, keepdims=True) + 1e-5)]
    checks = Checks(f"nn layers of {d.name} on {backend}")
    tol = NN_TOLERANCE[d.name]
    for name, got, want in zip(["Linear", "relu", "gelu", "softmax", "log_softmax", "layer_norm"], outs, wants):
        if got.dtype is not d:
            checks.fail(f"tf.nn {name} of {d.name}: dtype {got.dtype!r}, expected {d!r}")
        # (gelu's erf is Abramowitz and Stegun 7.1.26, documented to 1.5e-7 absolute: that bounds
        # it in float64, scaled by |x| / 2 <= 4)
        limit = max(tol, 4 * 1.5e-7) if name == "gelu" else tol
        checks.same(f"tf.nn {name} of {d.name}", got.numpy.astype(np.float64), want, rtol=limit, atol=limit)
    checks.done()


GRAD_TOLERANCE = {"float16": 32 * 2.0 ** -11, "bfloat16": 32 * 2.0 ** -8, "float64": 1e-8}


def _loss64(x, a):
    return float(np.sum(np.sin(x) * x * x) + np.sum(np.tanh(a @ x)) + np.sum(np.exp(-x) / (1 + x * x)))


@pytest.mark.parametrize("d", NN_DTYPES, ids=ids(NN_DTYPES))
def test_grad_matches_finite_differences(backend, d):
    """tf.grad of sum(sin(x) x^2) + sum(tanh(A @ x)) + sum(exp(-x) / (1 + x^2)) with respect to
    x [7] and A [3, 7] in ``d``, against central differences of the float64 function at the same
    inputs: float64 within 1e-8 (differences with h = 1e-6 are within ~1e-10); 16-bit floats
    within 32 units of their precision of the largest gradient (about ten ops, each rounded,
    with sums of 7 terms)."""
    def program():
        x, a = tf.input([-1], d), tf.input([-1, -1], d)
        loss = tf.sum(tf.sin(x) * x * x) + tf.sum(tf.tanh(a @ x)) + tf.sum(tf.exp(-x) / (1.0 + x * x))
        return [tf.grad(loss, x), tf.grad(loss, a)]

    if refused_64(backend, [d], program):
        return
    if backend == "opengl" and d is tf.float64:  # (its backward scatters: no float64 atomics on llvmpipe)
        with pytest.raises(tf.DTypeError, match=r"tf\.scatterAdd into a tf\.float64 tensor is not available on "
                                                  r"opengl"):
            tf.compile(program)
        return
    rng = np.random.default_rng(150)
    x, a = convert(rng.standard_normal(7), d), convert(rng.standard_normal((3, 7)) * 0.5, d)
    gx, ga = tf.compile(program)(x, a)
    x64, a64 = x.astype(np.float64), a.astype(np.float64)
    want_x = central_differences(lambda v: _loss64(v, a64), x64)
    want_a = central_differences(lambda m: _loss64(x64, m), a64)
    checks = Checks(f"gradients in {d.name} on {backend}")
    for name, got, want in (("d loss / d x", gx, want_x), ("d loss / d A", ga, want_a)):
        if got.dtype is not d:
            checks.fail(f"tf.grad {name} in {d.name}: dtype {got.dtype!r}, expected {d!r}")
        tol = GRAD_TOLERANCE[d.name] * max(1.0, float(np.max(np.abs(want))))
        checks.same(f"tf.grad {name} in {d.name}", got.numpy.astype(np.float64), want, atol=tol)
    checks.done()


# -- the AST front end ---------------------------------------------------------------------------

KP_DTYPES = [tf.int8, tf.uint16, tf.int64, tf.uint64, tf.float16, tf.bfloat16, tf.float64]


def _kernel_program_of(d):
    def counters(x: tf.Arg([-1], d), y: tf.Arg([-1], d)):
        total = 0
        for i in range(x.shape[0]):
            total += x[i]
        return total, x // y, x % y, x / y, max(x, y), abs(x), min(x, y) - x
    return tf.kernel_program(counters)


@pytest.mark.parametrize("d", KP_DTYPES, ids=ids(KP_DTYPES))
def test_kernel_program_in_dtypes(backend, d):
    """``@tf.kernel_program`` with ``tf.Arg([-1], d)`` parameters: ``total = 0; for i in range(n):
    total += x[i]`` adds in ``d`` step by step, as numpy's scalars do (int8 wraps, float16 rounds
    every add: 2048 + 1 stays 2048); ``//`` and ``%`` follow Python (floor, the sign of the
    divisor; integers by 0 give 0), ``/`` of integers is float32, ``max``/``min``/``abs`` are
    elementwise."""
    x = sample(d, 40, seed=160, special=False, scale=100)
    y = sample(d, 40, seed=161, special=False, scale=9)
    if d.is_float and d.bits == 16:
        x[:12] = [2048.0 if d is tf.float16 else 256.0] + [1.0] * 11
    y[:3] = 0
    if refused_64(backend, [d], run=lambda: _kernel_program_of(d)(x, y)):
        return
    got = _kernel_program_of(d)(x, y)
    checks = Checks(f"kernel program in {d.name} on {backend}")
    acc = np_dtype(d).type(0)
    with np.errstate(all="ignore"):
        for v in x:
            acc = (acc + v).astype(np_dtype(d)) if d.is_float else np.array(wrap(int(acc) + int(v), d), np_dtype(d))
        if d.is_integer:
            floor_q = int_binary("floordiv", x, y, d)
            rem = np.array([0 if int(b) == 0 else int(a) % int(b) for a, b in zip(x, y)], dtype=object).astype(x.dtype)
            true_div = in_compute(np.divide, tf.float32, convert(x, tf.float32), convert(y, tf.float32))
            low = int_binary("sub", np.minimum(x, y), x, d)
        else:
            floor_q, rem = in_compute(np.floor_divide, d, x, y), in_compute(np.remainder, d, x, y)
            true_div = in_compute(np.divide, d, x, y)
            low = in_compute(np.subtract, d, np.minimum(x, y), x)
        wants = [np.asarray(acc).reshape(np.shape(got[0].numpy)), floor_q, rem, true_div, np.maximum(x, y),
                 np.array([wrap(abs(int(v)), d) for v in x], object).astype(x.dtype) if d.is_integer else np.abs(x),
                 low]
    # (float32 and float64 loops that only accumulate may run in SIMD lanes, in another order:
    # tf.optimizations' simd_reductions; 16-bit floats add in order)
    order = dict(atol=x.size * 2.0 ** -52 * float(np.sum(np.abs(x)))) if d is tf.float64 else {}
    for name, value, want in zip(["total += x[i]", "x // y", "x % y", "x / y", "max(x, y)", "abs(x)", "min(x, y) - x"],
                                 got, wants):
        checks.same(f"{d.name} {name}", value, want, inputs=(x, y), **(order if name.startswith("total") else {}))
    checks.done()
