"""Tensor programs shared by several workloads (traced by ``tf.compile``).

Importing this module imports tensorfrost; the workloads do it only inside their
tensorfrost implementations, so the harness runs without it.
"""

from __future__ import annotations

import numpy as np

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


def wave_steps(steps: int = 10):
    """``steps`` steps of ``wave_step`` in one program, unrolled at trace time (the chain of
    stencil kernels that the CPU backend blocks in time)."""
    u = tf.input([-1, -1], tf.float32)
    v = tf.input(u.shape, tf.float32)
    i, j = u.indices
    for _ in range(steps):
        lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - u * 4.0
        v = v + WAVE_C * lap
        u = u + WAVE_C * v
    return [u, v]


def diffusion_chain(steps: int = 100):
    """``steps`` diffusion steps along alternating axes: each reads its neighbours in the
    last step's result, so each is its own kernel (a large program for compile times)."""
    u = tf.input([-1, -1], tf.float32)
    i, j = u.indices
    for s in range(steps):
        c = 0.1 + 0.001 * s
        nearby = u[i - 1, j] + u[i + 1, j] if s % 2 else u[i, j - 1] + u[i, j + 1]
        u = u + c * (nearby - 2.0 * u)
    return [u]


def diffusion_chain_reference(u, steps: int = 100):
    """numpy's ``diffusion_chain`` (indices clamped at the borders, as tensorfrost's are)."""
    u = u.astype(np.float64)
    for s in range(steps):
        p = np.pad(u, 1, mode="edge")
        nearby = p[:-2, 1:-1] + p[2:, 1:-1] if s % 2 else p[1:-1, :-2] + p[1:-1, 2:]
        u = u + (0.1 + 0.001 * s) * (nearby - 2.0 * u)
    return u


def qr_decomposition():
    """Modified Gram-Schmidt QR (the seed README's example): a host loop of kernels."""
    q, r = linalg.qr(tf.input([-1, -1], tf.float32))
    return [q, r]


def add_one():
    """The smallest program: one kernel, one input, one output."""
    x = tf.input([-1], tf.float32)
    return x + 1.0
