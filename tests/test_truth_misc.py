"""Issue 26, items 5, 7, 8 and 9: answers that were silently wrong, each now right or an error.

- 9: every ``tf.grad`` call returns the gradient (the same one asked twice, or one loss
  differentiated with respect to an input and a value computed from it);
- 5: second (and third) derivatives through ``tf.linalg`` against finite differences of
  float64 closed forms of the first derivative (or of float64 numpy losses);
- 7: read-only memory shared through DLPack stays read-only;
- 8: a ``while`` loop whose condition never becomes false raises an error naming its line.
"""

import os
import re

import numpy as np
import pytest
import scipy.linalg

import tensorfrost as tf
import tensorfrost.ast_frontend.runtime as ast_runtime
from tensorfrost.lib import linalg

# -- item 9: every tf.grad call returns the gradient -------------------------------------------


def test_the_same_gradient_asked_for_twice_is_the_gradient_both_times(backend):
    def program():
        x = tf.input([-1], tf.float32)
        loss = tf.sum(tf.sin(x) * x)
        return [tf.grad(loss, x), tf.grad(loss, x), loss]
    x = np.linspace(-1, 2, 7).astype(np.float32)
    first, second, loss = (t.numpy for t in tf.compile(program)(x))
    want = np.cos(x) * x + np.sin(x)
    np.testing.assert_allclose(first, want, rtol=1e-6, atol=1e-6)  # a few float32 roundings
    np.testing.assert_allclose(second, want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(loss, [np.sum(np.sin(x) * x)], rtol=1e-6)


@pytest.mark.parametrize("input_first", [True, False])
def test_one_loss_differentiated_with_respect_to_an_input_and_a_value_made_from_it(backend, input_first):
    def program():
        x = tf.input([-1], tf.float32)
        y = tf.sin(x)
        loss = tf.sum(y * y)
        grads = [tf.grad(loss, x), tf.grad(loss, y)] if input_first else [tf.grad(loss, y), tf.grad(loss, x)]
        return grads if input_first else grads[::-1]
    x = np.linspace(-1, 2, 7).astype(np.float32)
    grad_x, grad_y = (t.numpy for t in tf.compile(program)(x))
    np.testing.assert_allclose(grad_y, 2 * np.sin(x), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(grad_x, 2 * np.sin(x) * np.cos(x), rtol=1e-6, atol=1e-6)


# -- item 5: derivatives of derivatives through tf.linalg ---------------------------------------

N = 4


def _general(rng):
    """Well conditioned (cond of a few), not symmetric."""
    return (rng.standard_normal((N, N)) + 3 * np.sqrt(N) * np.eye(N)).astype(np.float32)


def _inv_t(a):
    return np.linalg.inv(a).T


# name: (the loss of (a, b, w) in the program, its float64 gradient (d/da, d/db) in closed form)
FIRST_DERIVATIVES = {
    "inv": (lambda a, b, w: tf.sum(tf.sum(linalg.inv(a) * w)),
            lambda a, b, w: (-_inv_t(a) @ w @ _inv_t(a), 0 * b)),
    "det": (lambda a, b, w: linalg.det(a),
            lambda a, b, w: (np.linalg.det(a) * _inv_t(a), 0 * b)),
    "slogdet": (lambda a, b, w: linalg.slogdet(a)[1],
                lambda a, b, w: (_inv_t(a), 0 * b)),
    "solve": (lambda a, b, w: tf.sum(linalg.solve(a, b) * w[0, :]),
              lambda a, b, w: (-np.outer(_inv_t(a) @ w[0], np.linalg.solve(a, b)), _inv_t(a) @ w[0])),
    "triangular_solve": (
        lambda a, b, w: tf.sum(linalg.triangular_solve(a, b) * w[0, :]),
        lambda a, b, w: (np.tril(-np.outer(_inv_t(np.tril(a)) @ w[0], scipy.linalg.solve_triangular(a, b, lower=True))),
                         _inv_t(np.tril(a)) @ w[0])),
}


@pytest.mark.parametrize("name", sorted(FIRST_DERIVATIVES))
def test_hessian_vector_products_through_linalg(backend, rng, name):
    """tf.grad of <grad(loss), v>, against central differences of the closed-form gradient
    along v (in a and b at once)."""
    traced, gradient = FIRST_DERIVATIVES[name]
    a, w, v_a = _general(rng), *(rng.standard_normal((2, N, N)).astype(np.float32))
    b, v_b = rng.standard_normal((2, N)).astype(np.float32)

    def program():
        a_in, b_in, w_in, va_in, vb_in = (tf.input([-1, -1]), tf.input([-1]), tf.input([-1, -1]),
                                          tf.input([-1, -1]), tf.input([-1]))
        loss = traced(a_in, b_in, w_in)
        along = tf.sum(tf.sum(tf.grad(loss, a_in) * va_in)) + tf.sum(tf.grad(loss, b_in) * vb_in)
        return [tf.grad(along, a_in), tf.grad(along, b_in)]
    got_a, got_b = (t.numpy for t in tf.compile(program)(a, b, w, v_a, v_b))
    a64, b64, w64, va64, vb64 = (x.astype(np.float64) for x in (a, b, w, v_a, v_b))
    h = 1e-5  # float64 central differences: error ~h^2 |f'''| + eps / h, both below 1e-9
    plus, minus = gradient(a64 + h * va64, b64 + h * vb64, w64), gradient(a64 - h * va64, b64 - h * vb64, w64)
    want_a, want_b = ((p - m) / (2 * h) for p, m in zip(plus, minus))
    assert np.abs(want_a).max() > 1e-3  # the second derivative is not 0 (it came out 0 before)
    # float32: a few products of inverses of cond ~3 matrices, each rounding ~1e-7 relative
    scale = max(np.abs(want_a).max(), np.abs(want_b).max())
    np.testing.assert_allclose(got_a, want_a, atol=1e-4 * scale)
    np.testing.assert_allclose(got_b, want_b, atol=1e-4 * scale)


def _eigh_loss(a, w, c):
    values, vectors = np.linalg.eigh(a)
    return np.sum(values * c) + np.sum(vectors * vectors * w)  # independent of the vectors' signs


SECOND_DERIVATIVES = {  # name: (loss in the program, float64 numpy loss, whether directions are symmetric)
    "cholesky": (lambda a, w, c: tf.sum(tf.sum(linalg.cholesky(a) * w)),
                 lambda a, w, c: np.sum(np.linalg.cholesky(a) * w), False),
    "eigh": (lambda a, w, c: tf.sum(linalg.eigh(a)[0] * c) + tf.sum(tf.sum(linalg.eigh(a)[1] ** 2.0 * w)),
             _eigh_loss, True),
}


@pytest.mark.parametrize("name", sorted(SECOND_DERIVATIVES))
def test_second_derivatives_through_cholesky_and_eigh(backend, rng, name):
    """<H d1, d2> against the mixed central difference of the float64 numpy loss (both read
    a's lower triangle, or a as symmetric for eigh: then the directions are symmetric)."""
    traced, reference, symmetric = SECOND_DERIVATIVES[name]
    q, _ = np.linalg.qr(rng.standard_normal((N, N)))
    a = ((q * [1.0, 2.0, 3.5, 5.0]) @ q.T).astype(np.float32)  # SPD, eigenvalue gaps >= 1
    w = rng.standard_normal((N, N)).astype(np.float32)
    c = rng.standard_normal(N).astype(np.float32)
    d1, d2 = rng.standard_normal((2, N, N))
    if symmetric:
        d1, d2 = d1 + d1.T, d2 + d2.T

    def program():
        a_in, w_in, c_in, d_in = tf.input([-1, -1]), tf.input([-1, -1]), tf.input([-1]), tf.input([-1, -1])
        along = tf.sum(tf.sum(tf.grad(traced(a_in, w_in, c_in), a_in) * d_in))
        return [tf.grad(along, a_in)]
    hessian_d1 = tf.compile(program)(a, w, c, d1.astype(np.float32)).numpy
    a64, w64, c64 = (x.astype(np.float64) for x in (a, w, c))
    h = 1e-4  # mixed differences: error ~h^2 |f''''| + eps / h^2, both ~1e-8

    def loss(s, t):
        return reference(a64 + s * d1 + t * d2, w64, c64)
    want = (loss(h, h) - loss(h, -h) - loss(-h, h) + loss(-h, -h)) / (4 * h * h)
    assert abs(want) > 1e-2  # not 0
    # float32 eigenvectors and Cholesky factors carry ~n eps cond errors, a few more products here
    np.testing.assert_allclose(np.sum(hessian_d1 * d2), want, rtol=1e-3, atol=1e-3)


def test_a_third_derivative_through_det(backend, rng):
    """D^2(grad det)[v, v] against the second difference of the closed form det(a) a^-T."""
    a, v = _general(rng), rng.standard_normal((N, N)).astype(np.float32)

    def program():
        a_in, v_in = tf.input([-1, -1]), tf.input([-1, -1])
        first = tf.grad(linalg.det(a_in), a_in)
        second = tf.grad(tf.sum(tf.sum(first * v_in)), a_in)
        return [tf.grad(tf.sum(tf.sum(second * v_in)), a_in)]
    got = tf.compile(program)(a, v).numpy
    a64, v64, h = a.astype(np.float64), v.astype(np.float64), 1e-3  # error ~h^2 |f''''| ~1e-6 relative

    def gradient(x):
        return np.linalg.det(x) * _inv_t(x)
    want = (gradient(a64 + h * v64) - 2 * gradient(a64) + gradient(a64 - h * v64)) / (h * h)
    np.testing.assert_allclose(got, want, atol=3e-4 * np.abs(want).max())


# -- item 7: read-only memory shared through DLPack stays read-only -------------------------------


def test_read_only_memory_stays_read_only(backend, tmp_path):
    frozen = np.arange(8, dtype=np.float32)
    frozen.flags.writeable = False
    path = os.path.join(tmp_path, "values.bin")
    np.arange(8, dtype=np.float32).tofile(path)
    mapped = np.memmap(path, dtype=np.float32, mode="r")  # a write through it would be a segfault

    def double():
        return [tf.input([-1], tf.float32) * 2.0]
    double = tf.compile(double)
    for source in (frozen, mapped):
        shared = tf.from_dlpack(source)
        np.testing.assert_array_equal(double(shared).numpy, np.arange(8) * 2.0)
        if backend is tf.cpu:  # the tensor is over the source's memory: its export is read-only
            view = np.from_dlpack(shared)
            assert not view.flags.writeable
            with pytest.raises(ValueError, match="read-only"):
                view[0] = 99.0
            with pytest.raises(BufferError, match="readonly"):  # a consumer that cannot be told refuses
                shared.__dlpack__()
        else:  # OpenGL holds a copy, which it exports as a copy of its own
            copy = np.from_dlpack(shared)
            np.testing.assert_array_equal(copy, np.arange(8))
            copy[0] = 99.0
            assert shared.numpy[0] == 0.0
        assert source[0] == 0.0
    writable = np.arange(4, dtype=np.float32)  # writable memory is still shared both ways on cpu
    shared = tf.from_dlpack(writable)
    if backend is tf.cpu:
        np.from_dlpack(shared)[0] = 5.0
        assert writable[0] == 5.0


# -- item 8: a while loop that never ends is an error naming its line ------------------------------


TRIPS = 50  # the lowered trip limit: loops stop after TRIPS - 1 trips


@pytest.fixture
def few_trips(monkeypatch):
    monkeypatch.setattr(ast_runtime, "_FOREVER", TRIPS)


def _line(marker: str) -> int:
    with open(__file__) as source:
        return next(k for k, text in enumerate(source, 1) if marker in text and "_line(" not in text)


def _names_line(marker: str) -> str:
    """The location of the line with ``marker`` as the messages of both backends write it."""
    return rf"test_truth_misc\.py(:|\", line ){_line(marker)}\b"


def test_a_while_loop_that_never_ends_raises_an_error_naming_it(backend, few_trips):
    @tf.kernel_program
    def per_element(a: tf.Arg([-1], tf.float32)):
        x = a
        while x < 10.0:  # never ends (per element)
            x = x * 1.0
        return x

    @tf.kernel_program
    def scalar(a: tf.Arg([-1], tf.float32)):
        s = tf.sum(a)
        while s < 10.0:  # never ends (host)
            s = s * 1.0
        return s

    @tf.kernel_program
    def forever(a: tf.Arg([-1], tf.float32)):
        x = a
        while True:  # never ends (no break)
            x = x + 1.0
        return x

    for program, marker in ((per_element, "never ends (per element)"), (scalar, "never ends (host)"),
                            (forever, "never ends (no break)")):
        with pytest.raises(tf.RuntimeCheckError, match=re.compile(
                rf"this while loop's condition still held after {TRIPS - 1} trips.*{_names_line(marker)}", re.S)):
            program(np.ones(4, np.float32))


def test_a_while_loop_inside_another_is_checked_after_the_outer_one(backend, few_trips):
    @tf.kernel_program
    def nested(a: tf.Arg([-1], tf.int32)):
        x = a
        rounds = tf.sum(a) * 0
        while rounds < 3:
            while x > 0:  # inner loop, stuck at 100 and above
                x = x - tf.int(x < 100)
            x = x + 1
            rounds = rounds + 1
        return x

    np.testing.assert_array_equal(nested(np.array([3, 0, 7], np.int32)).numpy, [1, 1, 1])
    with pytest.raises(tf.RuntimeCheckError, match=_names_line("inner loop, stuck")):
        nested(np.array([3, 100, 7], np.int32))


def test_a_while_loop_may_use_every_trip_before_the_limit(backend, few_trips):
    @tf.kernel_program
    def count_to(m: tf.Arg([-1], tf.int32)):
        k = m * 0
        while k < m:  # counts to m
            k = k + 1
        return k

    np.testing.assert_array_equal(count_to(np.array([0, 5, TRIPS - 1], np.int32)).numpy, [0, 5, TRIPS - 1])
    with pytest.raises(tf.RuntimeCheckError, match=_names_line("counts to m")):
        count_to(np.array([0, 5, TRIPS], np.int32))
