"""Reverse-mode gradients against central finite differences in float64 numpy.

Each gradient is of ``sum(weights * f(inputs))`` with random weights, so every element of
the Jacobian matters. Finite differences use float64 numpy with step 1e-4: their error
(~1e-8) is far below the float32 rounding of the compiled gradient (~1e-6 relative), so
tolerances are those of float32 chains of a few ops.
"""

import numpy as np
import pytest

import tensorfrost as tf

EPS = 1e-4


def numeric_gradient(f, arrays, k):
    """d sum(f(*arrays)) / d arrays[k], by central differences in float64."""
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    x = arrays[k]
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        saved = x[index]
        x[index] = saved + EPS
        up = np.sum(f(*arrays))
        x[index] = saved - EPS
        down = np.sum(f(*arrays))
        x[index] = saved
        grad[index] = (up - down) / (2 * EPS)
    return grad


def check_gradients(program_body, reference, arrays, rtol=2e-3, atol=2e-4):
    """Compile a program computing ``loss = sum(w * body(inputs))`` and its gradients with
    respect to every input; compare with finite differences of ``reference``."""
    rng = np.random.default_rng(7)
    shapes = [np.shape(a) for a in arrays]
    out_shape = np.shape(reference(*[np.asarray(a, np.float64) for a in arrays]))
    weights = rng.uniform(0.5, 1.5, out_shape).astype(np.float32)

    def program():
        # Axes of size 1 are declared so: free (-1) sizes combined elementwise must be equal.
        inputs = [tf.input([1 if n == 1 else -1 for n in s], tf.float32) for s in shapes]
        w = tf.input([-1] * len(out_shape), tf.float32)
        loss = program_body(*inputs) * w
        return [tf.grad(loss, x) for x in inputs]
    grads = tf.compile(program)(*arrays, weights)
    grads = grads if isinstance(grads, tuple) else (grads,)
    weighted = lambda *a: reference(*a) * weights  # noqa: E731
    for k, got in enumerate(grads):
        np.testing.assert_allclose(got.numpy, numeric_gradient(weighted, arrays, k), rtol=rtol, atol=atol,
                                   err_msg=f"gradient with respect to input {k}")


UNARY = {
    "neg": (lambda a: -a, np.negative, (-2, 2)), "abs": (tf.abs, np.abs, (0.2, 2)),
    "frac": (tf.frac, lambda a: a - np.floor(a), (0.1, 0.9)), "exp": (tf.exp, np.exp, (-2, 2)),
    "exp2": (tf.exp2, np.exp2, (-2, 2)), "log": (tf.log, np.log, (0.5, 3)), "log2": (tf.log2, np.log2, (0.5, 3)),
    "sqrt": (tf.sqrt, np.sqrt, (0.5, 3)), "rsqrt": (tf.rsqrt, lambda a: 1 / np.sqrt(a), (0.5, 3)),
    "rcp": (tf.rcp, lambda a: 1 / a, (0.5, 3)), "sin": (tf.sin, np.sin, (-3, 3)), "cos": (tf.cos, np.cos, (-3, 3)),
    "tan": (tf.tan, np.tan, (-1, 1)), "asin": (tf.asin, np.arcsin, (-0.8, 0.8)),
    "acos": (tf.acos, np.arccos, (-0.8, 0.8)), "atan": (tf.atan, np.arctan, (-2, 2)),
    "sinh": (tf.sinh, np.sinh, (-2, 2)), "cosh": (tf.cosh, np.cosh, (-2, 2)), "tanh": (tf.tanh, np.tanh, (-2, 2)),
    "copy": (tf.copy, lambda a: a, (-2, 2)),
}
BINARY = {
    "add": (lambda a, b: a + b, np.add), "sub": (lambda a, b: a - b, np.subtract),
    "mul": (lambda a, b: a * b, np.multiply), "div": (lambda a, b: a / b, np.divide),
    "mod": (lambda a, b: a % b, np.fmod), "min": (tf.min, np.minimum), "max": (tf.max, np.maximum),
    "pow": (tf.pow, np.power), "atan2": (tf.atan2, np.arctan2),
}
def _hermite(t):
    return t * t * (3 - 2 * t)


TERNARY = {
    "lerp": (tf.lerp, lambda a, b, t: a + (b - a) * t),
    "fma": (tf.fma, lambda a, b, c: a * b + c),
    "clamp": (tf.clamp, lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi)),
    "smoothstep": (tf.smoothstep, lambda e0, e1, x: _hermite(np.clip((x - e0) / (e1 - e0), 0, 1))),
    "select": (lambda a, b, c: tf.select(a > 0.0, b, c), lambda a, b, c: np.where(a > 0, b, c)),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_ops(backend, name):
    fn, ref, (lo, hi) = UNARY[name]
    x = np.random.default_rng(1).uniform(lo, hi, 9).astype(np.float32)
    check_gradients(fn, ref, [x])


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_ops(backend, name):
    fn, ref = BINARY[name]
    rng = np.random.default_rng(2)
    a = rng.uniform(0.5, 2.0, (3, 4)).astype(np.float32)
    b = rng.uniform(0.6, 2.1, (3, 4)).astype(np.float32)
    check_gradients(fn, ref, [a, b])


@pytest.mark.parametrize("name", sorted(TERNARY))
def test_ternary_ops(backend, name):
    fn, ref = TERNARY[name]
    rng = np.random.default_rng(3)
    a, b, c = (rng.uniform(-1, 1, 8).astype(np.float32) for _ in range(3))
    if name == "smoothstep":
        a, b = a - 2.0, b + 2.0  # edges well apart, x inside
    if name == "clamp":
        b, c = b - 1.5, c + 1.5
    check_gradients(fn, ref, [a, b, c])


def test_broadcast_operands_sum_back(backend):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    row = rng.standard_normal((1, 4)).astype(np.float32)
    col = rng.standard_normal(3).astype(np.float32)[:, None].copy()
    check_gradients(lambda x, r, c: x * r + c, lambda x, r, c: x * r + c, [a, row, col])


REDUCTIONS = {
    "sum": (lambda x: tf.sum(x, axis=1), lambda x: np.sum(x, axis=1)),
    "mean": (lambda x: tf.mean(x, axis=0), lambda x: np.mean(x, axis=0)),
    "prod": (lambda x: tf.prod(x, axis=1), lambda x: np.prod(x, axis=1)),
    "max": (lambda x: tf.max(x, axis=1), lambda x: np.max(x, axis=1)),
    "min": (lambda x: tf.min(x, axis=0), lambda x: np.min(x, axis=0)),
    "norm": (lambda x: tf.norm(x, axis=1), lambda x: np.linalg.norm(x, axis=1)),
    "prefix_sum": (lambda x: tf.prefix_sum(x, axis=1), lambda x: np.cumsum(x, axis=1)),
    "sum_1d": (lambda x: tf.sum(tf.reshape(x, [12])), lambda x: np.sum(x).reshape(1)),
    "dot": (lambda x: tf.dot(x, x), lambda x: np.sum(x * x, axis=-1)),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions(backend, name):
    fn, ref = REDUCTIONS[name]
    x = np.random.default_rng(5).uniform(0.5, 2.0, (3, 4)).astype(np.float32)
    check_gradients(fn, ref, [x])


VIEWS = {
    "transpose": (lambda x: tf.transpose(x), lambda x: np.swapaxes(x, -1, -2)),
    "T": (lambda x: x.T * 2.0, lambda x: np.swapaxes(x, -1, -2) * 2),
    "unsqueeze": (lambda x: tf.unsqueeze(x, 1) * 3.0, lambda x: x[:, None] * 3),
    "squeeze": (lambda x: tf.squeeze(tf.unsqueeze(x, 0), 0) ** 2, lambda x: x ** 2),
    "reshape": (lambda x: tf.reshape(x, [4, 6]) ** 2, lambda x: x.reshape(4, 6) ** 2),
    "reverse": (lambda x: tf.reverse(x, 1) * tf.reverse(x, 2), lambda x: x[:, ::-1] * x[:, :, ::-1]),
    "repeat": (lambda x: tf.repeat(x, 3, 2) ** 2, lambda x: np.repeat(x, 3, 2) ** 2),
    "split_dim": (lambda x: tf.split_dim(x, 3, 2) ** 2,
                  lambda x: np.take(x, np.minimum(np.arange(6), 3), axis=2).reshape(2, 3, 2, 3) ** 2),
    "merge_dim": (lambda x: tf.merge_dim(x, axis=1) ** 2, lambda x: x.reshape(6, 4) ** 2),
    "slice": (lambda x: x[:, 1:, ::2] ** 2, lambda x: x[:, 1:, ::2] ** 2),
    "rows": (lambda x: x[1] * x[0], lambda x: x[1] * x[0]),
    "columns": (lambda x: x[:, 0] * x[:, 2], lambda x: x[:, 0] * x[:, 2]),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views_and_indexing(backend, name):
    fn, ref = VIEWS[name]
    x = np.random.default_rng(6).uniform(-2, 2, (2, 3, 4)).astype(np.float32)
    check_gradients(fn, ref, [x])


def test_matmul_with_batch_broadcast(backend):
    rng = np.random.default_rng(8)
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((4, 5)).astype(np.float32)
    check_gradients(lambda x, y: x @ y, lambda x, y: x @ y, [a, b])


def test_loads_with_duplicate_indices_scatter_their_gradients(backend):
    x = np.random.default_rng(9).standard_normal(6).astype(np.float32)

    def body(a):
        i, = tf.indices([10])
        return a[(i * 7) % 6] * a[i % 3]
    check_gradients(body, lambda a: a[(np.arange(10) * 7) % 6] * a[np.arange(10) % 3], [x])


def test_stores_and_scatter_add(backend):
    rng = np.random.default_rng(10)
    x = rng.standard_normal(6).astype(np.float32)
    v = rng.standard_normal(4).astype(np.float32)

    def body(a, b):
        c = a * 1.0
        i, = b.indices
        c[i + 1] = b * 2.0  # overwritten elements get no gradient from a
        tf.scatterAdd(c[i % 2], b * b)
        return c * c

    def reference(a, b):
        c = a.copy()
        c[1:5] = b * 2
        np.add.at(c, np.arange(4) % 2, b * b)
        return c * c
    check_gradients(body, reference, [x, v])


def test_gradient_of_a_gather_through_an_index_buffer_written_by_index(backend):
    """The gather's index is a buffer filled by a store: the backward pass must read what was
    stored, not the zeros it was declared with (it scattered every gradient to element 0)."""
    n = 7

    def program():
        x = tf.input([n], tf.float32)
        w = tf.input([n], tf.float32)
        i, = tf.indices([n])
        pos = tf.buffer([n], tf.int32)
        pos[i] = (n - 1) - i
        return [tf.grad(tf.sum(x[pos] * w), x)]
    w = np.arange(1, n + 1, dtype=np.float32)
    np.testing.assert_array_equal(tf.compile(program)(np.zeros(n, np.float32), w).numpy, w[::-1])
