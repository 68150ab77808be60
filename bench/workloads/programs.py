"""Tensor programs shared by several workloads (traced by ``tf.compile``).

Importing this module imports tensorfrost; the workloads do it only inside their
tensorfrost implementations, so the harness runs without it.
"""

from __future__ import annotations

import tensorfrost as tf
from tensorfrost.lib import linalg

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
    q, r = linalg.qr(tf.input([-1, -1], tf.float32))
    return [q, r]


def add_one():
    """The smallest program: one kernel, one input, one output."""
    x = tf.input([-1], tf.float32)
    return x + 1.0
