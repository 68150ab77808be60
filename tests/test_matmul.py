"""Matmul against numpy on every backend: the shapes that exercise the CPU's two paths (the
tiled per-element loop for small products, the packed GEMM of backend_cpu/gemm.hpp for
large ones: its edges of micro-tiles, k slices and column blocks), transposed and batched
operands, a fused epilogue, and the gradients of a training step; float64 products through
the GEMM's float64 instance, with it on (its counter fired) and off."""

import numpy as np
import pytest

import tensorfrost as tf
from tensorfrost.backend_cpu import gemm
from tensorfrost.backend_cpu.emit_cpp import CppProgram


def _close(got, want, k):
    """float32 products of k terms of size ~1: errors grow like sqrt(k) ulps."""
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * np.sqrt(max(k, 1)) * 4)


def _data(rng, *shape):
    return rng.uniform(-1.0, 1.0, shape).astype(np.float32)


def _matmul_program(shape_a, shape_b, form="ab", dtype=tf.float32):
    """Inputs of any size, except batch axes of size 1 (which broadcast only when declared)."""
    def declared(shape):
        return [1 if d == 1 and axis < len(shape) - 2 else -1 for axis, d in enumerate(shape)]

    def matmul():
        a = tf.input(declared(shape_a), dtype)
        b = tf.input(declared(shape_b), dtype)
        return (a.T if form == "tn" else a) @ (b.T if form == "nt" else b)
    return tf.compile(matmul)


# (m, k, n): small ones take the tiled loop; from 160^3 work (and 16 rows and columns) the GEMM,
# here with edges of its 6 x 16 micro-tiles, 256-deep k slices and 3072-wide column blocks;
# n not a multiple of 32 from 48^3 work and 8 rows and columns (a classifier's 10 outputs).
SHAPES = [(1, 1, 1), (1, 37, 53), (53, 37, 1), (7, 1, 5), (5, 3, 9), (33, 17, 65), (173, 300, 131),
          (300, 700, 17), (17, 9, 3100), (20, 70, 3100), (2100, 1, 2100), (160, 160, 160), (97, 513, 96),
          (1024, 256, 10), (61, 1031, 9), (8, 8, 1800), (47, 47, 47), (129, 64, 8), (7, 4000, 9)]


@pytest.mark.parametrize("m,k,n", SHAPES)
def test_plain_shapes(backend, rng, m, k, n):
    a, b = _data(rng, m, k), _data(rng, k, n)
    _close(_matmul_program(a.shape, b.shape)(a, b).numpy, a @ b, k)


@pytest.mark.parametrize("form", ["tn", "nt"])
@pytest.mark.parametrize("m,k,n", [(5, 3, 9), (1, 40, 30), (30, 40, 1), (173, 300, 131), (96, 257, 190),
                                   (300, 256, 10)])
def test_transposed_operands(backend, rng, form, m, k, n):
    a = _data(rng, k, m) if form == "tn" else _data(rng, m, k)
    b = _data(rng, n, k) if form == "nt" else _data(rng, k, n)
    want = (a.T if form == "tn" else a) @ (b.T if form == "nt" else b)
    _close(_matmul_program(a.shape, b.shape, form)(a, b).numpy, want, k)


@pytest.mark.parametrize("shape_a,shape_b", [
    ((3, 7, 5), (3, 5, 4)), ((3, 130, 170), (3, 170, 190)),      # batched
    ((3, 130, 170), (170, 190)), ((130, 170), (2, 170, 190)),    # one operand broadcast over the batch
    ((2, 1, 64, 90), (3, 90, 200)), ((2, 3, 5, 6), (1, 6, 4)),  # broadcast batch axes of size 1
    ((4, 1, 300), (300, 20)), ((20, 300), (4, 300, 1))])
def test_batched(backend, rng, shape_a, shape_b):
    a, b = _data(rng, *shape_a), _data(rng, *shape_b)
    _close(_matmul_program(shape_a, shape_b)(a, b).numpy, a @ b, shape_a[-1])


@pytest.mark.parametrize("m,k,n", [(9, 5, 7), (190, 210, 150)])
def test_fused_epilogue(backend, rng, m, k, n):
    def layer():
        x = tf.input([-1, -1], tf.float32)
        w = tf.input([x.shape[1], -1], tf.float32)
        b = tf.input([w.shape[1]], tf.float32)
        return tf.tanh(x @ w + b)

    x, w, b = _data(rng, m, k), _data(rng, k, n) * 0.2, _data(rng, n)
    _close(tf.compile(layer)(x, w, b).numpy, np.tanh(x @ w + b), k)


@pytest.mark.parametrize("batch,hidden", [(12, 10), (300, 200)])
def test_gradients_of_a_training_step(backend, rng, batch, hidden):
    """loss = sum((tanh(X W + b) - Y)^2): dW = X^T G and dX = G W^T, with G = 2 (H - Y)(1 - H^2)."""
    def step():
        x = tf.input([-1, -1], tf.float32)
        w = tf.input([x.shape[1], -1], tf.float32)
        b = tf.input([w.shape[1]], tf.float32)
        y = tf.input([x.shape[0], w.shape[1]], tf.float32)
        loss = tf.sum(tf.sum((tf.tanh(x @ w + b) - y) ** 2))
        return [tf.grad(loss, w), tf.grad(loss, b), tf.grad(loss, x)]

    x, w = _data(rng, batch, hidden + 7), _data(rng, hidden + 7, hidden) * 0.2
    b, y = _data(rng, hidden), _data(rng, batch, hidden)
    h = np.tanh(x.astype(np.float64) @ w + b)
    g = 2 * (h - y) * (1 - h * h)
    dw, db, dx = (out.numpy for out in tf.compile(step)(x, w, b, y))
    _close(dw, x.T @ g, batch * 4)
    _close(db, g.sum(axis=0), batch * 4)
    _close(dx, g @ w.T, hidden * 4)


def test_cpu_kernels_take_the_gemm_path_where_it_applies():
    """A matmul of buffers (inputs, or operands computed once into buffers) gets the GEMM
    call: into its output when it only stores the product, else through an epilogue."""
    tf.initialize(tf.cpu)

    def program():
        x = tf.input([-1, -1], tf.float32)
        w = tf.input([x.shape[1], -1], tf.float32)
        return [x @ w, tf.tanh(x.T @ x), tf.sin(x) @ tf.cos(w)]

    kernels = [n for n in tf.compile(program).program.walk() if n.op.name == "kernel"]
    plans = [gemm.plan(k) for k in kernels]
    assert [p is not None and p.direct for p in plans].count(True) == 2
    assert [p is not None and not p.direct for p in plans].count(True) == 1
    assert "tf_gemm(" in CppProgram(tf.compile(program).program).full_source


# float64 through the GEMM's double instance (6 x 8 micro-tiles on AVX2, 6 x 16 on AVX-512,
# 72-row A blocks, 256-deep k slices): rows, columns and depths off those multiples, a product
# split into several tasks, transposed, batched and broadcast operands.
F64_CASES = [((173, 300), (300, 131), "ab"), ((97, 513), (513, 96), "ab"), ((300, 700), (700, 17), "ab"),
             ((61, 1031), (1031, 9), "ab"), ((400, 260), (260, 1100), "ab"), ((300, 173), (300, 131), "tn"),
             ((173, 257), (190, 257), "nt"), ((3, 130, 170), (3, 170, 190), "ab"),
             ((130, 170), (2, 170, 190), "ab"), ((2, 1, 64, 90), (3, 90, 200), "ab")]


def _close64(got, want, k):
    """float64 sums of k products of size <= 1: errors of a few ulps of sqrt(k), far under the
    1e-7 that a float32 accumulation (or float32 operands) would leave."""
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14 * k)


@pytest.mark.parametrize("shape_a,shape_b,form", F64_CASES)
@pytest.mark.parametrize("switch", ["on", "off"])
def test_float64_products_through_the_gemm(rng, shape_a, shape_b, form, switch):
    tf.initialize(tf.cpu)
    a, b = rng.uniform(-1.0, 1.0, shape_a), rng.uniform(-1.0, 1.0, shape_b)
    want = (np.swapaxes(a, -1, -2) if form == "tn" else a) @ (np.swapaxes(b, -1, -2) if form == "nt" else b)
    k = shape_a[-2] if form == "tn" else shape_a[-1]
    with tf.optimizations.disabled(*(["gemm"] if switch == "off" else [])):
        before = tf.optimizations.counts()["gemm"]
        got = _matmul_program(shape_a, shape_b, form, tf.float64)(a, b).numpy
        fired = tf.optimizations.counts()["gemm"] - before
    _close64(got, want, k)
    assert (fired > 0) == (switch == "on")


@pytest.mark.parametrize("switch", ["on", "off"])
def test_float64_epilogue(rng, switch):
    """An epilogue after a float64 GEMM runs on its rows of C, read as doubles."""
    tf.initialize(tf.cpu)

    def layer():
        x = tf.input([-1, -1], tf.float64)
        w = tf.input([x.shape[1], -1], tf.float64)
        b = tf.input([w.shape[1]], tf.float64)
        return tf.tanh(x @ w + b)

    x, w, b = rng.uniform(-1, 1, (190, 210)), rng.uniform(-1, 1, (210, 150)) * 0.2, rng.uniform(-1, 1, 150)
    with tf.optimizations.disabled(*(["gemm"] if switch == "off" else [])):
        before = tf.optimizations.counts()
        got = tf.compile(layer)(x, w, b).numpy
        after = tf.optimizations.counts()
    np.testing.assert_allclose(got, np.tanh(x @ w + b), rtol=1e-12, atol=1e-14 * 210)
    fired = {name for name in ("gemm", "gemm_epilogue") if after[name] > before[name]}
    assert fired == ({"gemm", "gemm_epilogue"} if switch == "on" else set())


def test_other_dtypes_keep_the_generated_loop(rng):
    """The GEMM has float32 and float64 instances only: an int32 product stays a loop (exact)."""
    tf.initialize(tf.cpu)

    def matmul():
        a = tf.input([-1, -1], tf.int32)
        b = tf.input([a.shape[1], -1], tf.int32)
        return a @ b

    prog = tf.compile(matmul)
    assert all(gemm.plan(n) is None for n in prog.program.walk() if n.op.name == "kernel")
    a, b = rng.integers(-100, 100, (190, 210), dtype=np.int32), rng.integers(-100, 100, (210, 150), dtype=np.int32)
    before = tf.optimizations.counts()["gemm"]
    np.testing.assert_array_equal(prog(a, b).numpy, a @ b)
    assert tf.optimizations.counts()["gemm"] == before


def test_float64_product_of_the_native_front_end(rng):
    """``tf.matmul`` in a @tf.kernel_program function takes the float64 GEMM as the tracing style does."""
    tf.initialize(tf.cpu)

    def matmul(a: tf.Arg([-1, -1], tf.float64), b: tf.Arg([-1, -1], tf.float64)):
        return tf.matmul(a, b)

    a, b = rng.uniform(-1.0, 1.0, (181, 263)), rng.uniform(-1.0, 1.0, (263, 139))
    before = tf.optimizations.counts()["gemm"]
    _close64(tf.kernel_program(matmul)(a, b).numpy, a @ b, 263)
    assert tf.optimizations.counts()["gemm"] > before
