"""Programs written the way users write them, in the new dtypes (issue 29): mixed precision
training, quantization, counters, conversions in both front ends, and what a backend
cannot compute in. Each result is compared with numpy in the same dtype."""

import ml_dtypes
import numpy as np
import pytest
from dtype_cases import refused_64

import tensorfrost as tf


class _Linear(tf.Module):
    def __init__(self, dtype):
        super().__init__()
        self.w = tf.Parameter([3, 1], dtype)

    def loss(self, x, y):
        d = x @ self.w - y
        return tf.mean(tf.mean(d * d))


@pytest.mark.parametrize("dtype", [tf.float16, tf.bfloat16])
def test_mixed_precision_adam_step_matches_numpy(backend, dtype):
    """A 16-bit float parameter keeps float32 Adam moments; one step is numpy's mixed
    precision update: the gradient of the 16-bit forward pass, moments and the update in
    float32, the new weight rounded to the parameter's dtype once."""
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (64, 3)).astype(dtype.numpy)
    y = rng.uniform(-1, 1, (64, 1)).astype(dtype.numpy)
    net = _Linear(dtype)
    opt = tf.optimizers.adam(net, learning_rate=0.01)
    opt.initialize_parameters(seed=0)
    w0 = net.w.numpy.copy()
    step = opt.compile_step(tf.Arg([-1, 3], dtype), tf.Arg([-1, 1], dtype))
    step(x, y)
    assert net.w.dtype is dtype and opt.m[0].dtype is tf.float32 and opt.v[0].dtype is tf.float32
    # numpy: the residual and the gradient as the program computes them (16-bit values
    # rounded per op; the mean of 64 rows divides in float32)
    f32 = np.float32
    d = (x.astype(f32) @ w0.astype(f32)).astype(dtype.numpy) - y
    g = (x.astype(f32).T @ (d.astype(f32) * f32(2.0 / 64))).astype(f32)
    m, v = g * f32(0.1), g * g * f32(0.001)
    update = (m / f32(0.1)) / (np.sqrt(v / f32(0.001)) + f32(1e-8)) * f32(0.01)
    want = (w0.astype(f32) - update).astype(dtype.numpy)
    np.testing.assert_array_equal(opt.m[0].numpy.astype(f32) != 0, g != 0)
    # the gradient is computed in the 16-bit dtype on our side: the update has the sign and
    # size (lr = 0.01) Adam gives, and the weight is the float32 update rounded once
    ulp = np.abs(w0.astype(f32)) * f32(2.0 ** -7 if dtype is tf.bfloat16 else 2.0 ** -10) + f32(1e-3)
    np.testing.assert_array_less(np.abs(net.w.numpy.astype(f32) - want.astype(f32)), ulp)


@pytest.mark.parametrize("dtype", [tf.float16, tf.bfloat16])
def test_float16_mlp_trains_with_float32_state(backend, dtype):
    """The issue's acceptance: a 16-bit MLP trained with float32 Adam state learns x*y as
    well as its float32 twin does (to a twentieth of its first loss in 300 steps)."""
    class MLP(tf.Module):
        def __init__(self, dtype):
            super().__init__()
            self.w1 = tf.Parameter([2, 16], dtype)
            self.b1 = tf.Parameter([16], dtype, random_scale=0.0)
            self.w2 = tf.Parameter([16, 1], dtype)

        def loss(self, x, y):
            d = tf.tanh(x @ self.w1 + self.b1) @ self.w2 - y
            return tf.mean(tf.mean(d * d))

    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (256, 2)).astype(np.float32)
    y = x[:, :1] * x[:, 1:]
    final = {}
    for kind in (tf.float32, dtype):
        net = MLP(kind)
        opt = tf.optimizers.adam(net, learning_rate=0.01)
        opt.initialize_parameters(seed=0)
        step = opt.compile_step(tf.Arg([-1, 2], kind), tf.Arg([-1, 1], kind))
        xs, ys = x.astype(kind.numpy), y.astype(kind.numpy)
        first = float(step(xs, ys).numpy.reshape(-1)[0])
        for _ in range(300):
            last = float(step(xs, ys).numpy.reshape(-1)[0])
        final[kind] = (first, last)
        assert opt.m[0].dtype is tf.float32
    for first, last in final.values():
        assert last < first / 20


def test_int8_matmul_sums_in_int32(backend):
    """Quantized inference: int8 @ int8 is int32, exact (numpy's int64 product fits)."""
    rng = np.random.default_rng(1)
    a = rng.integers(-127, 128, (37, 300), dtype=np.int8)
    b = rng.integers(-127, 128, (300, 19), dtype=np.int8)

    def matmul():
        x = tf.input([-1, -1], tf.int8)
        w = tf.input([x.shape[1], -1], tf.int8)
        return x @ w

    out = tf.compile(matmul)(a, b).numpy
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, a.astype(np.int64) @ b.astype(np.int64))


def test_quantize_and_dequantize_in_a_kernel_program(backend):
    """A numpy user's quantizer: round, clip, astype(int8); a counter that starts at 0 sums
    in the dtype it meets (int8 wraps as numpy's does), a float16 copy rounds as numpy."""
    @tf.kernel_program
    def quantize(x: tf.Arg([-1], tf.float32), scale: tf.Arg([], tf.float32)):
        q = tf.clamp(tf.round(x / scale), -127.0, 127.0).astype(tf.int8)
        total = 0
        for i in range(x.shape[0]):
            total += q[i]
        back = q.astype(tf.float32) * scale
        return q, total, back, x.astype(tf.float16) * 3

    x = np.linspace(-4.0, 5.0, 23).astype(np.float32)
    scale = np.float32(0.05)
    q, total, back, h = quantize(x, scale)
    want = np.clip(np.rint(x / scale), -127, 127).astype(np.int8)
    np.testing.assert_array_equal(q.numpy, want)
    assert total.numpy.dtype == np.int8
    np.testing.assert_array_equal(total.numpy.reshape(-1)[0], want.sum(dtype=np.int8))
    np.testing.assert_array_equal(back.numpy, want.astype(np.float32) * scale)
    assert h.numpy.dtype == np.float16
    np.testing.assert_array_equal(h.numpy, x.astype(np.float16) * np.float16(3))


def test_float64_is_float64_all_the_way(backend):
    """Scientists' float64: 1 + 1e-12 survives, transcendentals agree with numpy's float64."""
    def program():
        x = tf.input([-1], tf.float64)
        return x + 1e-12, tf.exp(x) * tf.sin(x) / tf.sqrt(x + 2.0), tf.sum(x * x)

    x = np.linspace(0.0, 3.0, 101)
    if refused_64(backend, [tf.float64], program):
        return
    small, smooth, total = tf.compile(program)(x)
    assert small.numpy.dtype == np.float64
    np.testing.assert_array_equal(small.numpy, x + 1e-12)
    np.testing.assert_allclose(smooth.numpy, np.exp(x) * np.sin(x) / np.sqrt(x + 2.0), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(total.numpy.reshape(-1)[0], np.sum(x * x), rtol=1e-14)


@pytest.mark.parametrize("dtype", [tf.float16, tf.bfloat16])
def test_16_bit_floats_round_after_every_op(backend, dtype):
    """(a + b) - a in a 16-bit dtype loses what numpy's loses: each op rounds."""
    def program():
        a = tf.input([-1], dtype)
        b = tf.input([-1], dtype)
        return (a + b) - a, tf.sum(b), a * b + 1.0

    rng = np.random.default_rng(2)
    a = (rng.uniform(100, 200, 64)).astype(dtype.numpy)
    b = (rng.uniform(0, 1, 64)).astype(dtype.numpy)
    lost, total, fused = tf.compile(program)(a, b)
    np.testing.assert_array_equal(lost.numpy, (a + b) - a)
    np.testing.assert_array_equal(fused.numpy, a * b + dtype.numpy.type(1.0))
    # the sum accumulates in float32 and rounds once
    assert total.numpy.reshape(-1)[0] == b.astype(np.float32).sum(dtype=np.float32).astype(dtype.numpy) or \
        abs(float(total.numpy.reshape(-1)[0]) - float(b.astype(np.float64).sum())) <= 2 ** -7 * 64
    assert lost.numpy.dtype == (np.float16 if dtype is tf.float16 else ml_dtypes.bfloat16)


def test_a_dtype_the_target_lacks_is_a_clear_error():
    """Codegen mode's generated C++ holds 32-bit words: a float64 program is refused when it
    is compiled, naming the dtype, the backend and the user's line."""
    tf.initialize(tf.codegen)
    try:
        def program():
            x = tf.input([-1], tf.float64)
            return x * 2.0

        with pytest.raises(tf.DTypeError, match=r"tf\.float64 values .*test_dtypes_programs\.py:\d+.* codegen"):
            tf.compile(program)
    finally:
        tf.initialize(tf.cpu)


def test_python_ints_meet_tensors_as_numpy_2_does(backend):
    """A Python int keeps the tensor's dtype; one the dtype cannot hold is an error at the
    user's line (numpy 2 raises too), except the C-style 32-bit constants of hash code."""
    def program():
        h = tf.input([-1], tf.int32)
        b = tf.input([-1], tf.int64)
        return h ^ 0x9E3779B9, b * 2**40, (h.astype(tf.int8) + 100).astype(tf.int16)

    h = np.array([0, 1, -7, 2**31 - 1], np.int32)
    b = np.array([3, -2, 0, 1], np.int64)
    if refused_64(backend, [tf.int64], program):
        return
    hashed, big, small = tf.compile(program)(h, b)
    np.testing.assert_array_equal(hashed.numpy, h ^ np.uint32(0x9E3779B9).view(np.int32))
    np.testing.assert_array_equal(big.numpy, b * 2**40)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(small.numpy, (h.astype(np.int8) + np.int8(100)).astype(np.int16))

    def too_big():
        x = tf.input([-1], tf.int8)
        return x + 300

    with pytest.raises(tf.DTypeError, match=r"300 does not fit in tf.int8 \(-128 to 127\)(.|\n)*test_dtypes_programs"):
        tf.compile(too_big)


@tf.kernel_program
def _newton_sqrt(x: tf.Arg([-1], tf.float64)):
    """Newton's square root in float64 with a while on the data and an early exit."""
    guess = x * 0.5 + 0.5
    steps = 0
    while steps < 60:
        better = 0.5 * (guess + x / guess)
        if tf.abs(better - guess) <= 1e-15 * better:
            break
        guess = better
        steps += 1
    return guess, steps


def test_a_float64_while_on_data_with_an_early_exit(backend):
    """Each element iterates until its own float64 Newton step stops changing: as numpy's
    sqrt to the last bits, which float32 could not reach."""
    x = np.array([2.0, 1e-6, 12345.678, 0.25, 1e10])
    root, steps = _newton_sqrt(x)
    assert root.numpy.dtype == np.float64
    np.testing.assert_allclose(root.numpy, np.sqrt(x), rtol=4e-16)
    assert (steps.numpy < 60).all() and steps.numpy.dtype == np.int32


def test_in_place_updates_of_two_inputs_of_any_size_in_16_bits(backend):
    """A float16 image brightened in place where a uint8 mask of another size (broadcast
    along rows) says so, and clamped: numpy's float16 result, the mask read as ints."""
    def program():
        image = tf.input([-1, -1], tf.float16)
        mask = tf.input([image.shape[1]], tf.uint8)
        out = tf.copy(image)
        i, j = out.indices
        out[i, j] = tf.select(mask[j] > 0, tf.min(out[i, j] * 1.5 + 0.25, 1.0), out[i, j])
        counted = tf.sum(mask.astype(tf.int32))
        return out, counted

    rng = np.random.default_rng(4)
    for rows, cols in ((3, 5), (17, 64)):
        image = rng.uniform(0, 1, (rows, cols)).astype(np.float16)
        mask = rng.integers(0, 2, cols).astype(np.uint8)
        out, counted = tf.compile(program)(image, mask)
        want = np.where(mask > 0, np.minimum(image * np.float16(1.5) + np.float16(0.25), np.float16(1.0)), image)
        np.testing.assert_array_equal(out.numpy, want)
        assert int(counted.numpy.reshape(-1)[0]) == int(mask.sum())
