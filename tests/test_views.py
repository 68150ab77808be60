"""Views (transpose, reshape, split/merge, repeat, reverse, unsqueeze/squeeze) and numpy-style
indexing, on inputs and on computed values (which fusion may recompute at the new index)."""

import numpy as np

import tensorfrost as tf


def test_views_of_inputs(backend, rng):
    x = rng.standard_normal((4, 5, 6)).astype(np.float32)

    def program():
        a = tf.input([-1, -1, -1])
        return [tf.transpose(a), a.T, tf.transpose(a, 0, 2), tf.unsqueeze(a, 1), tf.reshape(a, [6, 20]),
                tf.squeeze(tf.unsqueeze(a, 0), 0), tf.reverse(a, 1), tf.repeat(a, 2, 1)]
    wants = [x.swapaxes(1, 2), x.swapaxes(1, 2), x.swapaxes(0, 2), x[:, None], x.reshape(6, 20), x, x[:, ::-1],
             np.repeat(x, 2, 1)]
    for got, want in zip(tf.compile(program)(x), wants):
        assert got.shape == want.shape
        np.testing.assert_array_equal(got.numpy, want)


def test_views_of_computed_values(backend, rng):
    x = rng.standard_normal((4, 6)).astype(np.float32)

    def program():
        a = tf.input([-1, -1])
        b = a * 2.0 + 1.0
        return [b.T, tf.reshape(b, [3, 8]), tf.reverse(b, 0), tf.unsqueeze(b, 0) + tf.unsqueeze(b, 1)]
    b = x * 2 + 1
    wants = [b.T, b.reshape(3, 8), b[::-1], b[None] + b[:, None]]
    for got, want in zip(tf.compile(program)(x), wants):
        np.testing.assert_allclose(got.numpy, want, rtol=1e-6)


def test_split_and_merge_dim(backend, rng):
    x = rng.standard_normal((4, 5, 6)).astype(np.float32)

    def program():
        a = tf.input([-1, -1, -1])
        s = tf.split_dim(a, 4, 2)
        return [s, tf.merge_dim(s, axis=3, target_size=6), tf.merge_dim(a, axis=1)]
    split, merged, flat = tf.compile(program)(x)
    padded = np.take(x, np.minimum(np.arange(8), 5), axis=2).reshape(4, 5, 2, 4)  # clamped padding
    np.testing.assert_array_equal(split.numpy, padded)
    np.testing.assert_array_equal(merged.numpy, x)
    np.testing.assert_array_equal(flat.numpy, x.reshape(20, 6))


def test_numpy_style_indexing(backend, rng):
    x = rng.standard_normal((4, 5, 6)).astype(np.float32)
    idx = np.array([3, 0, 2], np.int32)

    def program():
        a = tf.input([-1, -1, -1])
        i = tf.input([-1], tf.int32)
        return [a[:, 0], a[1], a[1:3, ::2, -1], a[..., 2], a[i], a[:, :, i], a[2, i], a[::-1, 1:4]]
    wants = [x[:, 0], x[1], x[1:3, ::2, -1], x[..., 2], x[idx], x[:, :, idx], x[2, idx], x[::-1, 1:4]]
    for got, want in zip(tf.compile(program)(x, idx), wants):
        assert got.shape == want.shape
        np.testing.assert_array_equal(got.numpy, want)


def test_matmul_broadcast_batch(backend, rng):
    a = rng.standard_normal((3, 4, 5)).astype(np.float32)
    b = rng.standard_normal((5, 2)).astype(np.float32)
    c = rng.standard_normal((1, 2, 7)).astype(np.float32)
    v = rng.standard_normal(5).astype(np.float32)

    def program():
        x = tf.input([-1, -1, -1])
        y = tf.input([-1, -1])
        z = tf.input([1, -1, -1])  # a batch axis of size 1 broadcasts; free sizes must match
        w = tf.input([-1])
        return [x @ y, (x @ y) @ z, x @ w, w @ y, tf.dot(w, w)]
    wants = [a @ b, (a @ b) @ c, a @ v, v @ b, np.dot(v, v)]
    for got, want in zip(tf.compile(program)(a, b, c, v), wants):
        assert got.shape == np.shape(want) or (np.ndim(want) == 0 and got.shape == (1,))
        # dot products of <= 7 terms in float32
        np.testing.assert_allclose(got.numpy.reshape(np.shape(want)), want, rtol=1e-5, atol=1e-5)
