"""The OpenGL backend computes in every dtype (issue 29): 8- and 16-bit elements packed in
32-bit words (stores and atomics by compare-and-swap on the word), 16-bit floats computed in
float32 and rounded to nearest even after every op, float64 and int64 / uint64 through
GLSL's extensions, every dtype through the arena. Each program runs on opengl and is
compared with numpy (the references of ``dtype_cases``: Python ints wrapped to the dtype,
exact rationals rounded once) and with the cpu backend, bit for bit where the op is exact,
within the dtype's ulps for transcendentals. What the target cannot do is a DTypeError
when the program is compiled.
"""

import numpy as np
import pytest
from conftest import gl_unavailable_reason
from dtype_cases import ALL, NUMERIC, Checks, convert, ids, in_compute, int_binary, int_shift, np_dtype, sample, wrap

import tensorfrost as tf
from tensorfrost import backend as devices
from tensorfrost.backend_gl import runtime as gl_runtime
from tensorfrost.ir.errors import DTypeError

pytestmark = pytest.mark.skipif(gl_unavailable_reason() is not None,
                                reason=f"no OpenGL 4.3 context: {gl_unavailable_reason()}")
N = 101  # elements: not a multiple of 4 (a packed tensor's last word is partly used)
PACKED = [tf.int8, tf.uint8, tf.int16, tf.uint16, tf.float16, tf.bfloat16]


def run(device: str, fn, *arrays) -> list:
    """``fn``'s outputs (numpy arrays) compiled and run on ``device``."""
    tf.initialize(getattr(tf, device))
    try:
        return [o.numpy for o in tf.compile(fn)(*arrays)]
    finally:
        tf.initialize(tf.cpu)


def bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(np.uint8) if a.dtype == np.bool_ else a.view(f"u{a.dtype.itemsize}")


def same_bits(checks: Checks, what: str, got: np.ndarray, want: np.ndarray, inputs=(), against: str = "cpu") -> None:
    """``got`` has ``want``'s dtype and bits (any NaN where a NaN is: payloads are the CPU's)."""
    if got.dtype != want.dtype or got.shape != want.shape:
        checks.fail(f"{what}: {got.dtype}{got.shape}, expected {want.dtype}{want.shape}")
        return
    bad = bits(got) != bits(want)
    if want.dtype.kind == "f" or want.dtype == np.dtype(tf.bfloat16.numpy):
        bad &= ~(np.isnan(got.astype(np.float64)) & np.isnan(want.astype(np.float64)))
    if np.any(bad):
        k = int(np.flatnonzero(bad.reshape(-1))[0])
        shown = ", ".join(repr(np.asarray(x).reshape(-1)[k].item()) for x in inputs)
        checks.fail(f"{what}: {int(bad.sum())} of {bad.size} differ from {against}, e.g. [{shown}] -> "
                    f"{got.reshape(-1)[k].item()!r}, {against} {want.reshape(-1)[k].item()!r}")


def ints(values, d) -> np.ndarray:
    """Python ints (already in range) as an array of integer dtype ``d``."""
    return np.array(list(values), dtype=object).astype(np_dtype(d))


def _gl_backend():
    return devices.backend_for(tf.opengl)


# -- elementwise arithmetic ------------------------------------------------------------------------

def _arithmetic(d):
    def program():
        x, y = tf.input([-1], d), tf.input([-1], d)
        outs = [x + y, x - y, x * y, x / y, x % y, x // y, tf.min(x, y), tf.max(x, y), -x, tf.abs(x),
                tf.select(x < y, x, y), x < y, x <= y, x == y, x != y, x * y + x]
        if d.is_integer:
            outs += [x & y, x | y, x ^ y, ~x, x << y, x >> y]
        else:
            outs += [tf.floor(x), tf.ceil(x), tf.round(x), tf.trunc(x), tf.frac(x), tf.sqrt(x), 1.0 / x]
        return outs
    return program


def _arithmetic_references(d, a, b) -> list:
    if d.is_integer:
        binary = [int_binary(op, a, b, d) for op in ("add", "sub", "mul", "div", "mod", "floordiv", "min", "max")]
        unary = [ints((wrap(-int(v), d) for v in a), d), ints((wrap(abs(int(v)), d) for v in a), d)]
        fma = ints((wrap(int(p) * int(q) + int(p), d) for p, q in zip(a, b)), d)
        tail = [int_binary(op, a, b, d) for op in ("and", "or", "xor")]
        tail += [ints((wrap(~int(v), d) for v in a), d), int_shift("shl", a, b, d), int_shift("shr", a, b, d)]
    else:
        binary = [in_compute(fn, d, a, b) for fn in (np.add, np.subtract, np.multiply, np.divide, np.fmod,
                                                     np.floor_divide, np.minimum, np.maximum)]
        unary = [in_compute(np.negative, d, a), in_compute(np.abs, d, a)]
        fma = in_compute(np.add, d, in_compute(np.multiply, d, a, b), a)
        tail = [in_compute(fn, d, a) for fn in (np.floor, np.ceil, np.rint, np.trunc,
                                                lambda v: v - np.floor(v), np.sqrt, lambda v: 1 / v)]
    compare = [np.less(a, b), np.less_equal(a, b), np.equal(a, b), np.not_equal(a, b)]
    return binary + unary + [np.where(a < b, a, b)] + compare + [fma] + tail


@pytest.mark.parametrize("d", NUMERIC, ids=ids(NUMERIC))
def test_arithmetic_is_numpy_and_the_cpu_bit_for_bit(d):
    a, b = sample(d, N, 1), sample(d, N, 2)
    gl, cpu = run("opengl", _arithmetic(d), a, b), run("cpu", _arithmetic(d), a, b)
    checks = Checks(f"arithmetic of {d.name} on opengl")
    for k, (got, want, theirs) in enumerate(zip(gl, _arithmetic_references(d, a, b), cpu, strict=True)):
        checks.same(f"output {k}", got, want, inputs=(a, b))
        same_bits(checks, f"output {k}", got, theirs, (a, b))
    checks.done()


# -- conversions -----------------------------------------------------------------------------------

_OUT_OF_RANGE = [3e9, -3e9, 2.0**31, -2.0**31, -2.0**31 - 1024.0, 2.0**32 + 5.0, 2.0**63, -(2.0**63), 2.0**64,
                 1.8e19, 9.21e18, 1e30, -1e30, 65519.0, 65520.0, 70000.0, 300.7, -129.5, 255.5, 1077936129.0]


@pytest.mark.parametrize("source", ALL, ids=ids(ALL))
def test_conversions_are_numpy_and_the_cpu_bit_for_bit(source):
    x = sample(source, 64, 7)
    if source.is_float:
        x = np.concatenate([x, convert(np.array(_OUT_OF_RANGE), source)])
    elif source.is_integer:
        x = np.concatenate([x, convert(np.array([1077936129, -1077936129, 2**24 + 1, 65520, 65519]), source)])

    def program():
        v = tf.input([-1], source)
        return [v.astype(t) for t in ALL]

    gl, cpu = run("opengl", program, x), run("cpu", program, x)
    checks = Checks(f"conversions from {source.name} on opengl")
    for target, got, theirs in zip(ALL, gl, cpu, strict=True):
        checks.same(f"astype({source.name} -> {target.name})", got, convert(x, target), inputs=(x,))
        same_bits(checks, f"astype({source.name} -> {target.name})", got, theirs, (x,))
    checks.done()


# -- transcendentals -------------------------------------------------------------------------------

_MATH = {"exp": (np.exp, 8), "exp2": (np.exp2, 8), "log": (np.log, 1e4), "log2": (np.log2, 1e4),
         "sin": (np.sin, 20), "cos": (np.cos, 20), "tan": (np.tan, 1.5), "asin": (np.arcsin, 1),
         "acos": (np.arccos, 1), "atan": (np.arctan, 50), "sinh": (np.sinh, 8), "cosh": (np.cosh, 8),
         "tanh": (np.tanh, 5)}


@pytest.mark.parametrize("d", [tf.float16, tf.bfloat16], ids=["float16", "bfloat16"])
def test_16_bit_transcendentals_round_the_float32_result(d):
    """Each computes in float32 and rounds once: within 1 ulp of the 16-bit dtype of numpy's
    float32 result rounded (the float32 results differ in their last bits only)."""
    rng = np.random.default_rng(5)
    ranges = [scale for _, scale in _MATH.values()]
    x = convert(np.concatenate([rng.uniform(-s, s, 64) for s in ranges]), d)
    y = convert(rng.uniform(0.1, 4.0, x.size), d)

    def program():
        v, w = tf.input([-1], d), tf.input([-1], d)
        return [getattr(tf, name)(v) for name in _MATH] + [tf.pow(tf.abs(v), w), tf.atan2(v, w)]

    gl, cpu = run("opengl", program, x, y), run("cpu", program, x, y)
    wants = [in_compute(fn, d, x) for fn, _ in _MATH.values()]
    wants += [in_compute(lambda p, q: np.power(np.abs(p), q), d, x, y), in_compute(np.arctan2, d, x, y)]
    checks = Checks(f"{d.name} transcendentals on opengl")
    for name, got, want, theirs in zip([*_MATH, "pow", "atan2"], gl, wants, cpu, strict=True):
        checks.same(name, got, want, ulps=1, inputs=(x, y))
        checks.same(f"{name} (cpu)", got, theirs, ulps=1, inputs=(x, y))
    checks.done()


_SPECIAL_64 = [0.0, -0.0, 1.0, -1.0, 0.5, np.inf, -np.inf, np.nan, 1e-310, 5e-324, 1e300, -1e300, 709.78, -745.1,
               1023.9, -1074.7, 1e22, np.pi, np.pi / 2, 1e6, 2.0**60, 1e308, 700.0, -700.0, 22.5, 1e-20, 0.97, -0.99]


def test_float64_transcendentals_are_written_in_double():
    """GLSL has no double exp, sin...: the prelude's (fdlibm's algorithms) are within 2 ulps
    of numpy's float64, huge arguments of sin / cos / tan (reduced exactly) and the special
    values (inf, NaN, subnormals, overflow and underflow edges) included."""
    rng = np.random.default_rng(37)
    x = np.concatenate([_SPECIAL_64, rng.standard_normal(600) * 10, rng.uniform(-1, 1, 200),
                        np.exp(rng.uniform(-700, 700, 200)), rng.uniform(-1e6, 1e6, 100)])
    y = np.concatenate([rng.standard_normal(x.size - 12) * 3,
                        [0.5, 2.0, -1.0, np.inf, -np.inf, 0.0, 1e20, -1e20, 3.0, 1.5, -3.0, 7.0]])
    names = [*_MATH, "pow", "atan2"]

    def program():
        v, w = tf.input([-1], tf.float64), tf.input([-1], tf.float64)
        return [getattr(tf, name)(v) for name in _MATH] + [tf.pow(v, w), tf.atan2(v, w)]

    gl, cpu = run("opengl", program, x, y), run("cpu", program, x, y)
    with np.errstate(all="ignore"):
        wants = [fn(x) for fn, _ in _MATH.values()] + [np.power(x, y), np.arctan2(x, y)]
    checks = Checks("float64 transcendentals on opengl")
    for name, got, want, theirs in zip(names, gl, wants, cpu, strict=True):
        checks.same(name, got, want, ulps=2, inputs=(x, y))
        checks.same(f"{name} (cpu)", got, theirs, ulps=3, inputs=(x, y))
    checks.done()


# -- reductions ------------------------------------------------------------------------------------

@pytest.mark.parametrize("d", NUMERIC, ids=ids(NUMERIC))
def test_reductions_match_the_cpu(d):
    x = sample(d, 7 * 37, 3, special=False, scale=None if d.is_integer else 10.0).reshape(7, 37)

    def program():
        v = tf.input([-1, -1], d)
        return [tf.sum(v, axis=1), tf.max(v, axis=1), tf.min(v, axis=0), tf.sum(v, axis=0)]

    gl, cpu = run("opengl", program, x), run("cpu", program, x)
    checks = Checks(f"reductions of {d.name} on opengl")
    for k, (got, theirs) in enumerate(zip(gl, cpu, strict=True)):
        if k in (1, 2) or d.is_integer:  # max, min and integer sums are exact
            same_bits(checks, f"output {k}", got, theirs)
        else:
            checks.same(f"output {k}", got, theirs, ulps=1)
    checks.same("max", gl[1], x.max(axis=1))
    checks.same("min", gl[2], x.min(axis=0))
    sums = x.astype(gl[0].dtype) if d.is_integer else x.astype(np.float64)
    with np.errstate(over="ignore"):
        want = np.sum(sums, axis=1, dtype=gl[0].dtype if d.is_integer else np.float64).astype(gl[0].dtype)
    # (numpy sums pairwise, the kernels in order: float32 and float64 sums differ in their last bits)
    checks.same("sum", gl[0], want, ulps=1, rtol={tf.float32: 1e-6, tf.float64: 1e-14}.get(d, 0.0))
    checks.done()


# -- atomics ---------------------------------------------------------------------------------------

def _scatter_values(d, n: int, rng) -> np.ndarray:
    if d.is_float:  # small integers: every partial sum is exact in the dtype
        return rng.integers(-1, 2, n).astype(np_dtype(d))
    return sample(d, n, 11, special=False)


@pytest.mark.parametrize("d", [*PACKED, tf.int64, tf.uint64], ids=ids([*PACKED, tf.int64, tf.uint64]))
def test_scatter_add_of_threads_hitting_neighbouring_elements(d, rng):
    """4096 threads add into 16 elements, thread i into element i % 16: neighbouring threads
    hit neighbouring elements of one word at once (packed dtypes), or carry from the low word
    into the high one (64-bit ones). Every add counts, as numpy's add.at."""
    values = _scatter_values(d, 4096, rng)
    slots = (np.arange(4096) % 16).astype(np.int32)

    def program():
        v = tf.input([-1], d)
        s = tf.input([v.shape[0]], tf.int32)
        total = tf.zeros([16], d)
        i, = v.indices
        tf.scatterAdd(total[s[i]], v[i])
        return [total]

    (got,), (theirs,) = run("opengl", program, values, slots), run("cpu", program, values, slots)
    if d.is_float:
        want = np.zeros(16, np.float64)
        np.add.at(want, slots, values.astype(np.float64))
        want = want.astype(np_dtype(d))
    else:
        sums = [sum(int(v) for v in values[slots == k]) for k in range(16)]
        want = ints((wrap(s, d) for s in sums), d)
    checks = Checks(f"scatterAdd of {d.name} on opengl")
    checks.same("total", got, want)
    same_bits(checks, "total", got, theirs)
    checks.done()


_COMBINES = {"min": (tf.scatterMin, np.minimum), "max": (tf.scatterMax, np.maximum),
             "and": (tf.scatterAnd, np.bitwise_and), "or": (tf.scatterOr, np.bitwise_or),
             "xor": (tf.scatterXor, np.bitwise_xor)}
_OTHER_ATOMICS = [(d, c) for d in (tf.int8, tf.uint8, tf.int16, tf.uint16) for c in _COMBINES] + \
    [(d, c) for d in (tf.float16, tf.bfloat16) for c in ("min", "max")] + \
    [(d, c) for d in (tf.int64, tf.uint64) for c in ("and", "or", "xor")]


@pytest.mark.parametrize(("d", "combine"), _OTHER_ATOMICS, ids=[f"{d.name}-{c}" for d, c in _OTHER_ATOMICS])
def test_other_atomics_on_neighbouring_elements(d, combine, rng):
    values = sample(d, 2048, 13, special=False, scale=None if d.is_integer else 50.0)
    slots = (np.arange(2048) % 12).astype(np.int32)
    scatter, ufunc = _COMBINES[combine]
    start = convert(np.arange(12) - 5, d) if combine in ("min", "max") else sample(d, 12, 17, special=False)

    def program():
        v = tf.input([-1], d)
        s = tf.input([v.shape[0]], tf.int32)
        t = tf.input([12], d)
        out = tf.buffer([12], d)
        j, = out.indices
        out[j] = t[j]
        i, = v.indices
        scatter(out[s[i]], v[i])
        return [out]

    (got,), (theirs,) = run("opengl", program, values, slots, start), run("cpu", program, values, slots, start)
    want = start.copy()
    ufunc.at(want, slots, values)
    checks = Checks(f"scatter {combine} of {d.name} on opengl")
    checks.same("out", got, want)
    same_bits(checks, "out", got, theirs)
    checks.done()


# -- memory: odd offsets, every element from its own thread, round trips, the arena ---------------

@pytest.mark.parametrize("d", [*PACKED, tf.float64, tf.int64], ids=ids([*PACKED, tf.float64, tf.int64]))
def test_loads_and_stores_at_odd_offsets(d):
    x = sample(d, 37, 19)

    def program():
        v = tf.input([-1], d)
        n = v.shape[0]
        out = tf.buffer([2 * n], d)
        i, = v.indices
        out[2 * i + 1] = v[i]  # one thread stores two neighbours, of one word for 8 and 16 bits
        out[2 * i] = v[n - 1 - i]
        return [out, v[i + 1], v[i * 3 % n]]

    got = run("opengl", program, x)
    want = np.empty(74, x.dtype)
    want[1::2], want[0::2] = x, x[::-1]
    checks = Checks(f"odd offsets of {d.name} on opengl")
    for what, g, w in zip(("interleaved", "shifted", "strided"), got,
                          (want, x[np.minimum(np.arange(37) + 1, 36)], x[np.arange(37) * 3 % 37]), strict=True):
        same_bits(checks, what, g, w, against="numpy")
    checks.done()


@pytest.mark.parametrize("shape", [(1,), (3,), (5,), (1023,), (5, 67)], ids=str)
@pytest.mark.parametrize("d", [tf.int8, tf.uint8, tf.int16, tf.float16, tf.bfloat16],
                         ids=["int8", "uint8", "int16", "float16", "bfloat16"])
def test_every_element_is_written_by_its_own_thread(d, shape):
    """Threads storing neighbouring elements of one word at once lose none of the stores
    (a 2-D grid runs in 64 x 4 groups: rows of 67 end in the middle of a word)."""
    x = sample(d, int(np.prod(shape)), 23).reshape(shape)

    def program():
        v = tf.input([-1] * len(shape), d)
        return [v * 3 + 1]

    (got,) = run("opengl", program, x)
    if d.is_integer:
        want = ints((wrap(int(v) * 3 + 1, d) for v in x.reshape(-1)), d)
    else:
        want = in_compute(np.add, d, in_compute(np.multiply, d, x.reshape(-1), np.float32(3)), np.float32(1))
    checks = Checks(f"{d.name}{list(shape)} on opengl")
    same_bits(checks, "v * 3 + 1", got, want.reshape(shape), (x,), against="numpy")
    checks.done()


@pytest.mark.parametrize("n", [0, 1, 3, 5, 8])
@pytest.mark.parametrize("d", ALL, ids=ids(ALL))
def test_tensors_round_trip_in_their_own_dtype(d, n):
    x = sample(d, n, 29) if n else np.zeros(0, np_dtype(d))
    tf.initialize(tf.opengl)
    try:
        t = tf.tensor(x)
        zeros = tf.tensor([n], d)
        assert t.storage.nbytes == -(-n * d.itemsize // 4) * 4  # whole words: packed, or two per element
        got, empty = t.numpy, zeros.numpy
    finally:
        tf.initialize(tf.cpu)
    checks = Checks(f"{d.name}[{n}] on opengl")
    same_bits(checks, "values", got, x, against="the uploaded array")
    same_bits(checks, "zeros", empty, np.zeros(n, np_dtype(d)), against="zeros")
    checks.done()


def test_64_bit_host_scalars_reach_kernels_as_two_words():
    """Host variables of 64 bits (updated in a host loop) are uniforms of two words."""
    def program():
        x, y = tf.input([-1], tf.int64), tf.input([-1], tf.float64)
        acc, scale = tf.const(2**31 - 1, [], tf.int64), tf.const(0.5, [], tf.float64)
        with tf.loop(3):
            acc.val = acc * 3 + 1
            scale.val = scale * 1.1
        small = tf.const(-3, [], tf.int8)
        with tf.loop(2):
            small.val = small * 100
        return [x + acc, y * scale, x.astype(tf.int8) + small]

    x, y = np.arange(5, dtype=np.int64), np.linspace(-1.0, 1.0, 5)
    gl, cpu = run("opengl", program, x, y), run("cpu", program, x, y)
    checks = Checks("64-bit uniforms on opengl")
    acc = ((2**31 - 1) * 3 + 1) * 3 + 1
    checks.same("int64", gl[0], x + (acc * 3 + 1))
    checks.same("float64", gl[1], y * (0.5 * 1.1 * 1.1 * 1.1))
    checks.same("int8", gl[2], ints((wrap(v + wrap(-30000, tf.int8), tf.int8) for v in range(5)), tf.int8))
    for k, (g, c) in enumerate(zip(gl, cpu, strict=True)):
        same_bits(checks, f"output {k}", g, c)
    checks.done()


def test_sizes_read_back_from_packed_and_64_bit_elements():
    """A size the host reads from a tensor: byte 3 of an int8 tensor's first word, the
    second int64 (words 2 and 3), half 0 of a uint16 tensor's second word."""
    def program():
        a, b, c = tf.input([-1], tf.int8), tf.input([-1], tf.int64), tf.input([-1], tf.uint16)
        n = a[3].astype(tf.int32) + b[1].astype(tf.int32) + c[2].astype(tf.int32)
        return [tf.zeros([n], tf.float32) + 1.0]

    a = np.array([9, -7, 100, 5, 2], np.int8)
    b = np.array([2**40, 3, -1], np.int64)
    c = np.array([65535, 1, 4, 2], np.uint16)
    (got,) = run("opengl", program, a, b, c)
    np.testing.assert_array_equal(got, np.ones(5 + 3 + 4, np.float32))


def test_the_arena_places_64_bit_tensors_at_even_words():
    from tensorfrost.emit.binding import plan_bindings
    plan = plan_bindings([3, 4, 5, 7], [False] * 4, [1, 2, 3, 4], 1, 1 << 20, alignment=[1, 2, 1, 2])
    starts = dict(plan.offsets)
    assert sorted(starts) == [0, 1, 2, 3]
    assert starts[1] % 2 == 0 and starts[3] % 2 == 0
    spans = sorted((starts[k], starts[k] + [3, 4, 5, 7][k]) for k in starts)
    assert all(end <= start for (_, end), (start, _) in zip(spans, spans[1:]))  # no overlap
    assert plan.arena_words == spans[-1][1]


def _mixed_program():
    a, b = tf.input([-1], tf.int8), tf.input([-1], tf.float16)
    c, e = tf.input([-1], tf.float64), tf.input([-1], tf.int64)
    f = tf.input([-1], tf.uint16)
    hist = tf.zeros([9], tf.int8)
    wide = tf.zeros([5], tf.int64)
    i, = a.indices
    tf.scatterAdd(hist[i % 9], a[i])
    j, = e.indices
    tf.scatterAdd(wide[j % 5], e[j])
    return [a * 3, b + 1.5, c * 0.25 - 1.0, e + 5, f ^ (f + f), b.astype(tf.float64) + c[0], hist, wide]


@pytest.mark.parametrize(("limit", "part_words"), [(None, None), (None, 256), (4, None), (1, None)],
                         ids=["direct", "parts", "direct4", "arena"])
def test_packed_and_64_bit_tensors_through_the_arena_and_in_parts(limit, part_words, monkeypatch):
    """With the direct bindings lowered, tensors of every width live in the arena (64-bit ones
    at even words); with small storage blocks, buffers bind in parts (a double array counts
    its parts in words too)."""
    rng = np.random.default_rng(31)
    arrays = [rng.integers(-128, 128, 3001).astype(np.int8), rng.standard_normal(1001).astype(np.float16),
              rng.standard_normal(301), rng.integers(-2**62, 2**62, 299), rng.integers(0, 2**16, 513).astype(np.uint16)]
    cpu = run("cpu", _mixed_program, *arrays)
    monkeypatch.setattr(gl_runtime, "MAX_DIRECT_BINDINGS", limit)
    tf.initialize(tf.opengl)
    if part_words:
        monkeypatch.setattr(_gl_backend(), "elements_per_part", part_words)  # 256 words: 2 to 3 parts a buffer
    before = gl_runtime.ArenaStats.dispatches
    gl = run("opengl", _mixed_program, *arrays)
    checks = Checks(f"mixed dtypes on opengl, direct bindings {limit}")
    for k, (g, c) in enumerate(zip(gl, cpu, strict=True)):
        same_bits(checks, f"output {k}", g, c)
    checks.done()
    assert limit != 1 or gl_runtime.ArenaStats.dispatches > before  # (one binding: everything in the arena)


# -- what the target cannot do: errors when the program is compiled --------------------------------

_CAS_64 = [(tf.int64, tf.scatterMax), (tf.uint64, tf.scatterMin), (tf.float64, tf.scatterAdd)]


@pytest.mark.parametrize(("d", "scatter"), _CAS_64, ids=["int64-max", "uint64-min", "float64-add"])
def test_64_bit_atomics_that_need_compare_and_swap_are_refused_when_compiling(d, scatter):
    def program():
        v = tf.input([-1], d)
        out = tf.zeros([4], d)
        i, = v.indices
        scatter(out[i % 4], v[i])
        return [out]

    tf.initialize(tf.opengl)
    try:
        with pytest.raises(DTypeError, match=rf"(?s){scatter.__name__} into a tf\.{d.name} tensor is not available "
                                               r"on opengl.*GL_NV_shader_atomic_int64.*test_dtypes_opengl\.py"):
            tf.compile(program)
    finally:
        tf.initialize(tf.cpu)


@pytest.mark.parametrize(("d", "extension"), [(tf.int64, "GL_ARB_gpu_shader_int64"),
                                              (tf.uint64, "GL_ARB_gpu_shader_int64"),
                                              (tf.float64, "GL_ARB_gpu_shader_fp64")], ids=ids([tf.int64, tf.uint64,
                                                                                                   tf.float64]))
def test_a_driver_without_the_extension_is_a_compile_error(d, extension, monkeypatch):
    def program():
        v = tf.input([-1], d)
        return [v * 2]

    tf.initialize(tf.opengl)
    try:
        backend = _gl_backend()
        have = backend.driver["extensions"]
        assert extension in have  # llvmpipe has it: the program compiles and runs
        np.testing.assert_array_equal(tf.compile(program)(np.arange(3, dtype=np_dtype(d)))[0].numpy,
                                      np.arange(3, dtype=np_dtype(d)) * 2)
        monkeypatch.setitem(backend.driver, "extensions", have - {extension})
        # (the program is checked against the backend's Target before any pass: a DTypeError)
        with pytest.raises(tf.DTypeError, match=rf"(?s)tf\.{d.name} values .*test_dtypes_opengl\.py.* cannot be "
                                                rf"computed on opengl: .*lacks {extension}"):
            tf.compile(program)
    finally:
        tf.initialize(tf.cpu)


def test_hlsl_names_the_dtypes_it_does_not_spell():
    from tensorfrost.emit import hlsl
    from tensorfrost.ir.ops import KERNEL
    from tensorfrost.opt.pipeline import compile_program
    from tensorfrost.tracing.trace import trace

    def program():
        v = tf.input([-1], tf.float16)
        return [v * 2.0]

    compiled, _ = compile_program(trace(program))
    kernel = next(n for n in compiled.walk() if n.op is KERNEL)
    with pytest.raises(DTypeError, match=r"tf\.float16 values, which tensorfrost's HLSL code generation does not "
                                           r"spell"):
        hlsl.emit_kernel(kernel)


def test_float32_math_is_the_cpus_within_a_few_ulps():
    """float32 transcendentals: the prelude's (or the driver's) within a few float32 ulps."""
    x = np.linspace(-3.0, 3.0, 97).astype(np.float32)

    def program():
        v = tf.input([-1], tf.float32)
        return [tf.exp(v), tf.tanh(v), tf.atan(v), tf.sin(v)]

    gl, cpu = run("opengl", program, x), run("cpu", program, x)
    checks = Checks("float32 math on opengl")
    for name, g, c in zip(("exp", "tanh", "atan", "sin"), gl, cpu, strict=True):
        checks.same(name, g, c, ulps=4)
    checks.done()

