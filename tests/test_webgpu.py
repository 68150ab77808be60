"""tf.webgpu: programs of both front ends on WebGPU (WGSL through wgpu), against numpy.

Tolerances: float32 arithmetic is exact to 0.5 ulp per op (2**-24 relative); the prelude's
exp / pow / inverse trig are within 2 ulp, the driver's sin / cos / tan / exp2 / log /
log2 within a few ulp on llvmpipe, so elementwise results are held to 4e-6 relative (about
32 ulp, for chains of a few ops). Sums of n float32 terms in a different order than numpy's
differ by up to n * 2**-24 of the sum of magnitudes. Integer, comparison and bit results
are exact.
"""

import subprocess
import sys

import corpus_native_a  # noqa: F401 (each module registers its cases)
import corpus_native_b  # noqa: F401
import corpus_round3_native  # noqa: F401
import corpus_round3_native_b  # noqa: F401
import corpus_round3_tracing  # noqa: F401
import corpus_tracing  # noqa: F401
import numpy as np
import pytest
from conftest import gl_unavailable_reason

import tensorfrost as tf
from tensorfrost.ir.errors import DTypeError, TensorFrostError

ELEMENTWISE_RTOL = 4e-6


def _unavailable():
    from tensorfrost.backend_webgpu.context import unavailable_reason
    return unavailable_reason()


_REASON = _unavailable()
pytestmark = pytest.mark.skipif(_REASON is not None, reason=f"no WebGPU device: {_REASON}")


@pytest.fixture(autouse=True)
def webgpu():
    tf.initialize(tf.webgpu)
    yield
    tf.initialize(tf.cpu)


@pytest.fixture
def rng():
    return np.random.default_rng(99)


# -- elementwise ops --------------------------------------------------------------------------

FLOAT_UNARY = {  # name: (tensorfrost function, numpy function, domain)
    "sin": (tf.sin, np.sin, (-10, 10)), "cos": (tf.cos, np.cos, (-10, 10)), "tan": (tf.tan, np.tan, (-1.4, 1.4)),
    "exp": (tf.exp, np.exp, (-80, 80)), "exp2": (tf.exp2, np.exp2, (-100, 100)), "log": (tf.log, np.log, (1e-3, 1e6)),
    "log2": (tf.log2, np.log2, (1e-3, 1e6)), "sqrt": (tf.sqrt, np.sqrt, (0, 1e4)),
    "rsqrt": (tf.rsqrt, lambda x: 1 / np.sqrt(x), (1e-3, 1e4)), "asin": (tf.asin, np.arcsin, (-1, 1)),
    "acos": (tf.acos, np.arccos, (-1, 1)), "atan": (tf.atan, np.arctan, (-50, 50)),
    "sinh": (tf.sinh, np.sinh, (-20, 20)), "cosh": (tf.cosh, np.cosh, (-20, 20)),
    "tanh": (tf.tanh, np.tanh, (-10, 10)), "floor": (tf.floor, np.floor, (-50, 50)),
    "ceil": (tf.ceil, np.ceil, (-50, 50)), "round": (tf.round, np.rint, (-50, 50)),
    "frac": (tf.frac, lambda x: x - np.floor(x), (-50, 50)), "abs": (tf.abs, np.abs, (-50, 50)),
    "sign": (tf.sign, np.sign, (-5, 5)),
}


@pytest.mark.parametrize("name", sorted(FLOAT_UNARY))
def test_float_unary_op(name, rng):
    fn, ref, (low, high) = FLOAT_UNARY[name]
    x = rng.uniform(low, high, 4096).astype(np.float32)
    x[:3] = [low, high, 0.5 * (low + high)]
    program = tf.compile(lambda: fn(tf.input([-1], tf.float32)))
    want = ref(x.astype(np.float64)).astype(np.float32)
    np.testing.assert_allclose(program(x).numpy, want, rtol=ELEMENTWISE_RTOL, atol=1e-6 if name in ("sin", "cos",
                               "tan", "frac") else 0)


def test_float_binary_ops_and_chains(rng):
    def chain():
        a = tf.input([-1], tf.float32)
        b = tf.input(a.shape, tf.float32)
        return [a + b * 2.0 - a / b, tf.pow(tf.abs(a), b * 0.25), tf.atan2(a, b), a % b, a // b,
                tf.min(a, b), tf.max(a, b), tf.clamp(a, -0.5, 0.5), tf.lerp(a, b, 0.25), tf.fma(a, b, 1.0)]
    a = rng.uniform(-4, 4, 2048).astype(np.float32)
    b = rng.uniform(0.5, 3, 2048).astype(np.float32) * rng.choice([-1, 1], 2048).astype(np.float32)
    got = [t.numpy for t in tf.compile(chain)(a, b)]
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    want = [a + b * np.float32(2) - a / b, np.power(np.abs(a64), b64 * 0.25), np.arctan2(a64, b64), np.fmod(a, b),
            np.floor_divide(a, b), np.minimum(a, b), np.maximum(a, b), np.clip(a, -0.5, 0.5),
            a + (b - a) * np.float32(0.25), a * b + np.float32(1)]
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, np.asarray(w, np.float32), rtol=ELEMENTWISE_RTOL, atol=1e-6,
                                   err_msg=f"output {k}")
    np.testing.assert_array_equal(got[3], np.fmod(a, b))  # fmod is exact


def test_nan_and_infinity_follow_numpy():
    def special():
        a = tf.input([-1], tf.float32)
        b = tf.input(a.shape, tf.float32)
        return [tf.min(a, b), tf.max(a, b), tf.select(a < b, a, b), tf.log(a), tf.sqrt(a), a / b, tf.exp(a)]
    a = np.array([np.nan, 1.0, -np.inf, 0.0, -1.0, 100.0], np.float32)
    b = np.array([1.0, np.nan, 2.0, 0.0, np.inf, -np.inf], np.float32)
    got = [t.numpy for t in tf.compile(special)(a, b)]
    with np.errstate(all="ignore"):
        want = [np.minimum(a, b), np.maximum(a, b), np.where(a < b, a, b), np.log(a), np.sqrt(a), a / b, np.exp(a)]
    for k, (g, w) in enumerate(zip(got, want)):  # (exp(1) and exp(-1) within an ulp, the rest exact)
        np.testing.assert_allclose(g, w, rtol=2**-23 if k == 6 else 0, atol=0, err_msg=f"output {k}")


def test_integer_ops_follow_c_semantics_with_zero_and_negative_divisors():
    def integers():
        a = tf.input([-1], tf.int32)
        b = tf.input(a.shape, tf.int32)
        return [a / b, a % b, a // b, a * b + 7, a & b, a | b, a ^ b, ~a, a << (b & 7), a >> (b & 7),
                tf.min(a, b), tf.max(a, b), tf.abs(a), tf.sign(a), -a]
    a = np.array([7, -7, 7, -7, 0, 5, -2**31, 2**31 - 1, 13, -13], np.int32)
    b = np.array([2, 2, -2, -2, 3, 0, -1, 1, 0, -5], np.int32)
    got = [t.numpy for t in tf.compile(integers)(a, b)]
    with np.errstate(all="ignore"):
        safe = np.where(b == 0, 1, b)
        quotient = np.where(b == 0, 0, np.trunc(a.astype(np.float64) / safe)).astype(np.int64).astype(np.int32)
        remainder = np.where((b == 0) | (b == -1), 0, np.fmod(a, safe))
        floored = np.where(b == 0, 0, a // safe)
        want = [quotient, remainder, floored, a * b + 7, a & b, a | b, a ^ b, ~a, a << (b & 7), a >> (b & 7),
                np.minimum(a, b), np.maximum(a, b), np.abs(a), np.sign(a), -a]
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_array_equal(g, np.asarray(w, np.int32), err_msg=f"output {k}")


def test_unsigned_ops_conversions_and_bitcasts():
    def unsigned():
        u = tf.input([-1], tf.uint32)
        f = tf.input(u.shape, tf.float32)
        return [u / 3, u % 5, u * 3 + 1, u >> 3, -u, tf.int(f), tf.uint(f), tf.float(u), tf.asuint(f),
                tf.asfloat(u), tf.int(f > 0.0), tf.pcg(u)]
    u = np.array([0, 1, 7, 2**31, 2**32 - 1, 12345], np.uint32)
    f = np.array([-1.5, 2.7, 3e9, -3e9, np.nan, 1e20], np.float32)
    got = [t.numpy for t in tf.compile(unsigned)(u, f)]
    with np.errstate(all="ignore"):
        want = [u // 3, u % 5, u * np.uint32(3) + np.uint32(1), u >> 3, (np.uint32(0) - u),
                np.array([-1, 2, -2**31, -2**31, -2**31, -2**31], np.int32),
                np.array([2**32 - 1, 2, 3000000000, 2**32 - 3000000000, 0, 0], np.uint32),  # (beyond int64: 0)
                u.astype(np.float32), f.view(np.uint32), u.view(np.float32), (f > 0).astype(np.int32)]
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_array_equal(g, np.asarray(w, g.dtype), err_msg=f"output {k}")
    from tensorfrost.ir.ops import OPS
    np.testing.assert_array_equal(got[-1], OPS["pcg"].ref(u))


def test_comparisons_select_and_bools(rng):
    def compare():
        a = tf.input([-1], tf.float32)
        b = tf.input(a.shape, tf.float32)
        m = (a < b) & ~(a == 0.0) | (a >= 2.0)
        return [tf.select(m, a, b * 2.0), tf.int(m), m, (a != b) ^ (a <= b)]
    a = rng.integers(-3, 4, 500).astype(np.float32)
    b = rng.integers(-3, 4, 500).astype(np.float32)
    got = [t.numpy for t in tf.compile(compare)(a, b)]
    m = (a < b) & ~(a == 0) | (a >= 2)
    np.testing.assert_array_equal(got[0], np.where(m, a, b * 2))
    np.testing.assert_array_equal(got[1], m.astype(np.int32))
    np.testing.assert_array_equal(got[2], m)
    np.testing.assert_array_equal(got[3], (a != b) ^ (a <= b))


# -- reductions, matmul, indexing ---------------------------------------------------------------

def test_reductions_over_axes(rng):
    def reductions():
        x = tf.input([-1, -1, -1], tf.float32)
        return [tf.sum(x, axis=0), tf.sum(x, axis=2), tf.max(x, axis=1), tf.min(x, axis=0), tf.mean(x, axis=1),
                tf.sum(tf.sum(tf.sum(x)))]
    x = rng.normal(size=(7, 33, 65)).astype(np.float32)
    got = [t.numpy for t in tf.compile(reductions)(x)]
    want = [x.sum(0), x.sum(2), x.max(1), x.min(0), x.mean(1), x.sum()]
    magnitude = [np.abs(x).sum(0), np.abs(x).sum(2), 0, 0, np.abs(x).mean(1), np.abs(x).sum()]
    for k, (g, w, m) in enumerate(zip(got, want, magnitude)):
        n = x.size if k == 5 else max(x.shape)
        np.testing.assert_allclose(g, w, rtol=0, atol=np.max(m) * n * 2**-24 + 1e-7, err_msg=f"output {k}")


def test_integer_reductions_are_exact(rng):
    x = rng.integers(-1000, 1000, (40, 300)).astype(np.int32)
    got = tf.compile(lambda: tf.sum(tf.input([-1, -1], tf.int32), axis=1))(x)
    np.testing.assert_array_equal(got.numpy, x.sum(1))


def test_matmul(rng):
    a = rng.normal(size=(70, 45)).astype(np.float32)
    b = rng.normal(size=(45, 33)).astype(np.float32)
    got = tf.compile(lambda: tf.matmul(tf.input([-1, -1], tf.float32), tf.input([-1, -1], tf.float32)))(a, b)
    np.testing.assert_allclose(got.numpy, a @ b, rtol=0, atol=(np.abs(a) @ np.abs(b)).max() * 45 * 2**-24)


def test_gathers_clamp_out_of_range_indices(rng):
    def gather():
        table = tf.input([-1, -1], tf.float32)
        rows = tf.input([-1], tf.int32)
        i, = rows.indices
        return [table[rows, i % table.shape[1]], table[rows[i] + 1, 0]]
    table = rng.normal(size=(10, 4)).astype(np.float32)
    rows = np.array([0, 3, 9, -5, 12, 2], np.int32)
    first, second = tf.compile(gather)(table, rows)
    clamp = np.clip(rows, 0, 9)
    np.testing.assert_array_equal(first.numpy, table[clamp, np.arange(6) % 4])
    np.testing.assert_array_equal(second.numpy, table[np.clip(rows + 1, 0, 9), 0])


def test_stencil_on_a_2d_grid(rng):
    def blur():
        u = tf.input([-1, -1], tf.float32)
        i, j = u.indices
        return (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]) * 0.25 - u
    u = rng.normal(size=(37, 53)).astype(np.float32)
    p = np.pad(u, 1, mode="edge")
    want = (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:]) * np.float32(0.25) - u
    np.testing.assert_allclose(tf.compile(blur)(u).numpy, want, rtol=0, atol=4 * 2**-23 * np.abs(p).max())


# -- atomics -----------------------------------------------------------------------------------

def test_scatter_add_of_ints_and_floats(rng):
    def histogram():
        keys = tf.input([-1], tf.int32)
        weights = tf.input(keys.shape, tf.float32)
        counts = tf.zeros([16], tf.int32)
        sums = tf.zeros([16], tf.float32)
        i, = keys.indices
        tf.scatterAdd(counts[keys[i]], 1)
        tf.scatterAdd(sums[keys[i]], weights[i])
        return [counts, sums]
    keys = rng.integers(0, 16, 5000).astype(np.int32)
    weights = rng.choice([-1.0, 0.5, 2.0, 0.25], 5000).astype(np.float32)  # sums exact in any order
    counts, sums = tf.compile(histogram)(keys, weights)
    np.testing.assert_array_equal(counts.numpy, np.bincount(keys, minlength=16))
    np.testing.assert_array_equal(sums.numpy, np.bincount(keys, weights, minlength=16).astype(np.float32))


def test_scatter_min_max_of_floats_and_ints(rng):
    def extremes():
        keys = tf.input([-1], tf.int32)
        values = tf.input(keys.shape, tf.float32)
        low = tf.zeros([8], tf.float32) + 1e30
        high = tf.zeros([8], tf.float32) - 1e30
        top = tf.zeros([8], tf.int32) - 1000000
        bits = tf.zeros([8], tf.uint32)
        i, = keys.indices
        tf.scatterMin(low[keys[i]], values[i])
        tf.scatterMax(high[keys[i]], values[i])
        tf.scatterMax(top[keys[i]], tf.int(values[i] * 100.0))
        tf.scatterOr(bits[keys[i]], tf.uint(1) << tf.uint(i % 32))
        return [low, high, top, bits]
    keys = rng.integers(0, 8, 3000).astype(np.int32)
    values = rng.normal(size=3000).astype(np.float32)
    low, high, top, bits = (t.numpy for t in tf.compile(extremes)(keys, values))
    for k in range(8):
        v = values[keys == k]
        assert low[k] == v.min() and high[k] == v.max()
        assert top[k] == (v * np.float32(100)).astype(np.int32).max()
        assert bits[k] == np.bitwise_or.reduce(np.uint32(1) << (np.nonzero(keys == k)[0] % 32).astype(np.uint32))


# -- control flow in both front ends ------------------------------------------------------------

def test_tracing_loop_with_break_on_a_host_value():
    def halve_until_small():
        x = tf.input([-1], tf.float32)
        total = tf.const(0)
        y = x * 1.0
        with tf.loop(100) as k:
            with tf.if_cond(tf.max(y) < 1.0):
                tf.break_loop()
            y.val = y * 0.5
            total.val = k + 1
        return [y, total]
    x = np.array([3.0, 40.0, 7.0], np.float32)
    y, total = tf.compile(halve_until_small)(x)
    np.testing.assert_array_equal(y.numpy, x / 64)
    assert int(total.numpy) == 6


def test_loop_inside_a_kernel_with_break():
    def collatz_steps():
        n = tf.input([-1], tf.int32)
        v = n * 1
        steps = tf.zeros(n.shape, tf.int32)
        with tf.loop(1000):
            with tf.if_cond(v == 1):
                tf.break_loop()
            v.val = tf.select(v % 2 == 0, v / 2, 3 * v + 1)
            steps.val += 1
        return steps

    def reference(m):
        count = 0
        while m != 1:
            m, count = (m // 2 if m % 2 == 0 else 3 * m + 1), count + 1
        return count
    n = np.arange(1, 300, dtype=np.int32)
    got = tf.compile(collatz_steps)(n)
    np.testing.assert_array_equal(got.numpy, [reference(int(m)) for m in n])


def test_kernel_program_while_and_break():
    @tf.kernel_program
    def newton_sqrt(a: tf.Arg([-1], tf.float32)):
        x = a * 1.0 + 1.0
        for _ in range(50):
            nxt = 0.5 * (x + a / x)
            if tf.max(tf.abs(nxt - x)) < 1e-6:
                break
            x = nxt
        i = 0
        while i < 3:
            i += 1
        return x * 1.0, i

    a = np.linspace(0.5, 100.0, 64).astype(np.float32)
    x, i = newton_sqrt(a)
    np.testing.assert_allclose(x.numpy, np.sqrt(a), rtol=4e-6)
    assert int(np.asarray(i.numpy if hasattr(i, "numpy") else i)) == 3


# -- autodiff and explicit kernels --------------------------------------------------------------

def test_gradient_of_a_linear_model(rng):
    def gradients():
        x = tf.input([-1, -1], tf.float32)
        w = tf.input([x.shape[1], -1], tf.float32)
        y = tf.input([x.shape[0], w.shape[1]], tf.float32)
        loss = tf.mean(tf.mean((x @ w - y) ** 2))
        return [tf.grad(loss, w), loss]
    x = rng.normal(size=(20, 5)).astype(np.float32)
    w = rng.normal(size=(5, 3)).astype(np.float32)
    y = rng.normal(size=(20, 3)).astype(np.float32)
    dw, loss = tf.compile(gradients)(x, w, y)
    residual = x.astype(np.float64) @ w - y
    np.testing.assert_allclose(loss.numpy, np.mean(residual ** 2), rtol=1e-5)
    np.testing.assert_allclose(dw.numpy, 2 * x.T @ residual / residual.size, rtol=1e-4, atol=1e-6)


def test_explicit_kernel_with_group_buffer_and_barrier(rng):
    def tile_sums():
        a = tf.input([-1], tf.float32)
        out = tf.buffer(a.shape, tf.float32)
        with tf.kernel(a.shape, group_size=[64]) as i:
            tile = tf.group_buffer(64, tf.float32)
            t = i.block_thread_index(0)
            tile[t] = a[i] * 2.0
            tf.group_barrier()
            out[i] = tile[63 - t] + tile[t]
        return out
    a = rng.normal(size=256).astype(np.float32)
    tiles = (a * 2).reshape(-1, 64)
    np.testing.assert_allclose(tf.compile(tile_sums)(a).numpy, (tiles[:, ::-1] + tiles).reshape(-1), rtol=2**-23)


def test_many_outputs_split_under_a_low_buffer_limit(rng, monkeypatch):
    from tensorfrost.backend_webgpu import runtime
    monkeypatch.setattr(runtime, "MAX_DIRECT_BINDINGS", 4)

    def fan_out():
        a = tf.input([-1], tf.float32)
        b = tf.input(a.shape, tf.float32)
        return [a * k + b for k in range(9)]
    a, b = rng.normal(size=(2, 1000)).astype(np.float32)
    program = tf.compile(fan_out)
    assert all(len(p.slots) <= 4 for k in program.executable.kernels for p in k.pieces)
    for k, t in enumerate(program(a, b)):
        np.testing.assert_array_equal(t.numpy, a * np.float32(k) + b)


# -- tensors, errors ----------------------------------------------------------------------------

def test_tensors_round_trip_and_empty_ones():
    for array in (np.arange(5, dtype=np.int32), np.array([True, False, True]), np.zeros((0, 3), np.float32),
                  np.array(2.5, np.float32), np.arange(7, dtype=np.uint32)):
        t = tf.tensor(array)
        assert t.numpy.dtype == array.dtype and t.numpy.shape == array.shape
        np.testing.assert_array_equal(t.numpy, array)
    doubled = tf.compile(lambda: tf.input([-1], tf.float32) * 2.0)(np.zeros(0, np.float32))
    assert doubled.numpy.shape == (0,)


def test_64_bit_values_are_a_clear_dtype_error():
    with pytest.raises(DTypeError, match="webgpu: WGSL has no 64-bit types"):
        tf.compile(lambda: tf.input([-1], tf.float64) * 2.0)


def test_missing_wgpu_names_what_to_install(monkeypatch):
    import sys

    from tensorfrost.backend_webgpu import context
    monkeypatch.setitem(sys.modules, "wgpu", None)
    with pytest.raises(TensorFrostError, match="wgpu package.*mesa-vulkan-drivers"):
        context._import_wgpu()


_GL_THEN_WEBGPU = """
import numpy as np, tensorfrost as tf
from tensorfrost.backend_gl import context
context.ensure_context()                      # the OpenGL compute context first
tf.initialize(tf.webgpu)                      # then the WebGPU device, in the same thread
x = np.arange(5, dtype=np.float32)
on_webgpu = tf.compile(lambda: tf.input([-1], tf.float32) * 3.0)(x).numpy
tf.initialize(tf.opengl)
on_opengl = tf.compile(lambda: tf.input([-1], tf.float32) + 1.0)(x).numpy
print(on_webgpu.tolist(), on_opengl.tolist())
"""


@pytest.mark.skipif(gl_unavailable_reason() is not None, reason="needs an OpenGL context (Mesa's EGL)")
def test_opengl_keeps_working_beside_a_webgpu_device():
    """wgpu-native's OpenGL ES backend, when it looks for adapters, makes its own EGL context
    current: OpenGL then linked no shader in a process that used both backends."""
    done = subprocess.run([sys.executable, "-c", _GL_THEN_WEBGPU], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split("\n")[-2] == "[0.0, 3.0, 6.0, 9.0, 12.0] [1.0, 2.0, 3.0, 4.0, 5.0]", done.stdout


_TENSORS_IN_CYCLES = """
import gc
import numpy as np
import tensorfrost as tf
tf.initialize(tf.webgpu)
def double():
    x = tf.input([-1], tf.float32)
    return x * 2.0
program = tf.compile(double)
x = np.arange(6, dtype=np.float32)
for k in range(5):
    out = program(x)
    cycle = [out]
    cycle.append(cycle)  # unreachable once dropped: only the collector frees it
    del out, cycle
    gc.collect()
print(program(x).numpy.tolist())
"""


def test_tensors_freed_by_the_garbage_collector_leave_the_buffer_pool_usable():
    """The collector finalizes every object of an unreachable cycle, wgpu's buffer too, while
    the tensor's finalizer puts that buffer in the pool for reuse: a released buffer in a bind
    group aborted the process (as a traceback holding tensors in pytest.raises did)."""
    done = subprocess.run([sys.executable, "-c", _TENSORS_IN_CYCLES], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split("\n")[-2] == "[0.0, 2.0, 4.0, 6.0, 8.0, 10.0]", done.stdout


# -- 8- and 16-bit elements packed in u32 words (emit/wgsl_words.py) ----------------------------

PACKED = [tf.int8, tf.uint8, tf.int16, tf.uint16, tf.float16, tf.bfloat16]


@pytest.mark.parametrize("d", PACKED, ids=[d.name for d in PACKED])
def test_packed_stores_of_neighbouring_threads_never_race(d):
    """Every thread stores its own element of a word it shares with 1 or 3 others, in a tensor
    of an odd size (its last word partly past the end): a store is a compare-and-swap on the
    word, which the kernel declares ``array<atomic<u32>>`` and reads with atomicLoad."""
    def program():
        x = tf.input([-1], d)
        y = tf.copy(x)
        i, = y.indices
        y[i] = x[i] + x[(i + 1) % x.shape[0]]  # (a store, then a read of the stored buffer's neighbour)
        return y

    x = (np.arange(1001) % 50 - 20).astype(d.numpy)
    compiled = tf.compile(program)
    got = compiled(x).numpy
    with np.errstate(over="ignore"):
        want = (x + np.roll(x, -1)).astype(d.numpy)
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    source = compiled.compiled_code()
    assert "array<atomic<u32>>" in source and "atomicCompareExchangeWeak" in source


def test_uint8_atomic_bitwise_ops_act_on_their_byte_only():
    """scatterOr / scatterAnd of uint8 are one native atomic on the word, masked to the byte."""
    def program():
        v = tf.input([-1], tf.uint8)
        slots = tf.input([-1], tf.int32)
        ors, ands = tf.zeros([6], tf.uint8), tf.zeros([6], tf.uint8) + 255
        i, = v.indices
        tf.scatterOr(ors[slots[i]], v[i])
        tf.scatterAnd(ands[slots[i]], v[i])
        return [ors, ands]

    v = np.array([1, 2, 4, 8, 16, 32, 64, 128, 3, 254], np.uint8)
    slots = np.array([0, 1, 2, 3, 4, 5, 0, 1, 2, 3], np.int32)
    ors, ands = tf.compile(program)(v, slots)
    want_or, want_and = np.zeros(6, np.uint8), np.full(6, 255, np.uint8)
    np.bitwise_or.at(want_or, slots, v)
    np.bitwise_and.at(want_and, slots, v)
    np.testing.assert_array_equal(ors.numpy, want_or)
    np.testing.assert_array_equal(ands.numpy, want_and)


def test_reads_of_packed_elements_at_any_offset_copy_whole_words():
    """The backend's read of ``count`` int8 / float16 elements from element ``first`` (a
    readback, a download) copies the aligned words holding them (WebGPU copies multiples of
    4 bytes) and returns those elements only."""
    for array in (np.arange(11, dtype=np.int8) - 5, (np.arange(7) * 0.5).astype(np.float16)):
        t = tf.tensor(array)
        for first in range(len(array)):
            for count in range(len(array) - first + 1):
                got = t.backend.read(t.storage, t.dtype, first, count)
                np.testing.assert_array_equal(got, array[first:first + count])
