"""Algorithms of tensorfrost.lib, on every backend, against numpy."""

import numpy as np
import pytest

import tensorfrost as tf
from tensorfrost.lib import linalg


@pytest.mark.parametrize("shape", [(6, 6), (40, 13)])
def test_qr_factors_and_leaves_its_argument_unchanged(backend, rng, shape):
    def program():
        a = tf.input([-1, -1], tf.float32)
        doubled = a * 2.0
        q, r = linalg.qr(doubled)
        return [q, r, doubled]
    a = rng.standard_normal(shape).astype(np.float32)
    q, r, doubled = (t.numpy for t in tf.compile(program)(a))
    n = shape[1]
    # float32 Gram-Schmidt on a well-conditioned random matrix: errors of a few 1e-6
    np.testing.assert_allclose(q @ r, 2 * a, atol=2e-5)
    np.testing.assert_allclose(q.T @ q, np.eye(n), atol=2e-5)
    np.testing.assert_array_equal(np.tril(r, -1), np.zeros((n, n)))
    np.testing.assert_array_equal(doubled, 2 * a)
