"""Tensor programs shared by several workloads (traced by ``tf.compile``).

Importing this module imports tensorfrost; the workloads do it only inside their
tensorfrost implementations, so the harness runs without it.
"""

from __future__ import annotations

import tensorfrost as tf

WAVE_C = 0.1


def wave_step():
    """One step of the wave equation with clamped borders (the seed README's example)."""
    u = tf.input([-1, -1], tf.float32)
    v = tf.input(u.shape, tf.float32)
    i, j = u.indices
    lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - u * 4.0
    v_new = v + WAVE_C * lap
    return [u + WAVE_C * v_new, v_new]


def qr_decomposition():
    """Modified Gram-Schmidt QR (the seed README's example): a host loop of kernels."""
    A = tf.input([-1, -1], tf.float32)
    m, n = A.shape
    Q = tf.zeros([m, n])
    R = tf.zeros([n, n])
    j = tf.index(0, [m])
    with tf.loop(n - 1) as i:
        R[i, i] = tf.norm(A[j, i])
        Q[j, i] = A[j, i] / R[i, i]
        p, k = tf.index_grid([0, i + 1], [m, n])
        t, = tf.index_grid([i + 1], [n])
        R[i, t] = tf.sum(Q[p, i] * A[p, k], axis=0)
        A[p, k] -= Q[p, i] * R[i, k]
    R[n - 1, n - 1] = tf.norm(A[j, n - 1])
    Q[j, n - 1] = A[j, n - 1] / R[n - 1, n - 1]
    return [Q, R]


def add_one():
    """The smallest program: one kernel, one input, one output."""
    x = tf.input([-1], tf.float32)
    return x + 1.0
