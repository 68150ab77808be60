"""``tf.kernel`` programs in upstream TensorFrost's style (its kernels, matrix_mul and
fft_group notebooks, and an n-body step with a shared tile), against numpy."""

import numpy as np
import pytest

import tensorfrost as tf


def test_upstreams_elementwise_kernel(backend, rng):
    def kernels():
        A = tf.input([-1, -1], tf.float32)
        B = tf.input(A.shape, tf.float32)
        C = tf.buffer(A.shape, tf.float32)
        with tf.kernel(A.shape) as (i, j):
            C[i, j] = A[i, j] + B[i, j]
        return C
    a, b = rng.random((10, 7), np.float32), rng.random((10, 7), np.float32)
    np.testing.assert_array_equal(tf.compile(kernels)(a, b).numpy, a + b)


def tiled_matmul():
    """Upstream's "2d local + group tiled version" (TBK = 2 results per thread and axis: with
    its TBK = 4 the 16 accumulators need more storage buffers than an OpenGL shader binds)."""
    A = tf.input([-1, -1], tf.float32)
    N, M = A.shape
    B = tf.input([M, -1], tf.float32)
    K = B.shape[1]
    C = tf.buffer([N, K], tf.float32)
    BK, TBK = 16, 2
    GK = BK // TBK
    with tf.kernel([N / TBK, K / TBK], group_size=[GK, GK]) as (i, j):
        A_group_tile = tf.group_buffer(BK * BK, tf.float32)
        B_group_tile = tf.group_buffer(BK * BK, tf.float32)
        tx = i.block_thread_index(1)
        ty = i.block_thread_index(0)
        gx, gy = i - tx, j - ty
        results = [tf.const(0.0) for _ in range(TBK * TBK)]
        with tf.loop(0, M, BK) as blk:
            for blk_ty in range(TBK):
                for blk_tx in range(TBK):
                    ltx, lty = blk_tx * GK + tx, blk_ty * GK + ty
                    A_group_tile[ltx * BK + lty] = A[TBK * gx + ltx, blk + lty]
            for blk_tx in range(TBK):
                for blk_ty in range(TBK):
                    ltx, lty = blk_tx * GK + tx, blk_ty * GK + ty
                    B_group_tile[ltx * BK + lty] = B[blk + ltx, TBK * gy + lty]
            tf.group_barrier()
            with tf.loop(BK) as k:
                B_row = [B_group_tile[k * BK + (tid * GK + ty)] for tid in range(TBK)]
                for tid in range(TBK):
                    A_value = A_group_tile[(tid * GK + tx) * BK + k]
                    for tid2 in range(TBK):
                        results[tid * TBK + tid2].val += A_value * B_row[tid2]
            tf.group_barrier()
        for tid in range(TBK):
            for tid2 in range(TBK):
                C[TBK * gx + tid * GK + tx, TBK * gy + tid2 * GK + ty] = results[tid * TBK + tid2]
    return C


def test_upstreams_group_tiled_matmul(backend, rng):
    a, b = rng.random((64, 48), np.float32), rng.random((48, 32), np.float32)
    c = tf.compile(tiled_matmul)(a, b).numpy
    # 48-term float32 dot products of values in [0, 1): relative error a few 1e-7 * 48
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


def group_fft(N, BK):
    """Upstream's fft_group notebook: a radix-2 FFT of N points by one group in group memory."""
    RADIX2 = int(np.log2(N))

    def fft():
        A = tf.input([N, 2], tf.float32)

        def expi(angle):
            return tf.cos(angle), tf.sin(angle)

        def cmul(a, b):
            return a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]

        def radix2(temp, span, index):
            group_size = span << 1
            group_offset = index & (span - 1)
            k1 = ((index - group_offset) << 1) + group_offset
            k2 = k1 + span
            angle = 2 * np.pi * -1.0 * tf.float(group_offset) / tf.float(group_size)
            v1 = temp[2 * k1], temp[2 * k1 + 1]
            v2 = cmul(expi(angle), (temp[2 * k2], temp[2 * k2 + 1]))
            temp[2 * k1] = v1[0] + v2[0]
            temp[2 * k1 + 1] = v1[1] + v2[1]
            temp[2 * k2] = v1[0] - v2[0]
            temp[2 * k2 + 1] = v1[1] - v2[1]

        with tf.kernel([N], group_size=[BK]) as group_index:
            temp = tf.group_buffer(N * 2, tf.float32)
            tx = group_index.block_thread_index(0)
            M = N // BK
            for i in range(M):
                row = i * BK + tx
                idx = tf.int(tf.reversebits(tf.uint(row)) >> (32 - RADIX2))
                temp[2 * idx] = A[row, 0]
                temp[2 * idx + 1] = A[row, 1]
            tf.group_barrier()
            span = 1
            while span < N:
                for j in range(M // 2):
                    radix2(temp, span, j * BK + tx)
                tf.group_barrier()
                span *= 2
            for i in range(M):
                row = i * BK + tx
                A[row, 0] = temp[2 * row]
                A[row, 1] = temp[2 * row + 1]
        return A
    return fft


def test_upstreams_group_memory_fft(backend, rng):
    N = 64
    signal = rng.standard_normal((N, 2)).astype(np.float32)
    out = tf.compile(group_fft(N, 32))(signal).numpy
    expected = np.fft.fft(signal[:, 0] + 1j * signal[:, 1])
    # 6 radix-2 stages in float32 with sin/cos twiddles: error ~ log2(N) * eps * |x| * sqrt(N)
    np.testing.assert_allclose(out[:, 0] + 1j * out[:, 1], expected, atol=1e-4 * np.sqrt(N))


def nbody_step():
    """An n-body acceleration with the positions staged through a shared tile per group."""
    P = tf.input([-1, 3], tf.float32)
    N = P.shape[0]
    acc = tf.buffer([N, 3], tf.float32)
    T = 16
    with tf.kernel([N], group_size=[T]) as i:
        tile = tf.group_buffer(T * 3, tf.float32)
        tx = i.block_thread_index(0)
        a = [tf.const(0.0) for _ in range(3)]
        with tf.loop(0, N, T) as start:
            for c in range(3):
                tile[tx * 3 + c] = P[start + tx, c]
            tf.group_barrier()
            with tf.loop(T) as k:
                d = [tile[k * 3 + c] - P[i, c] for c in range(3)]
                inv = tf.rsqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + 0.01)
                w = inv * inv * inv
                for c in range(3):
                    a[c].val += d[c] * w
            tf.group_barrier()
        for c in range(3):
            acc[i, c] = a[c]
    return acc


def test_nbody_with_a_shared_tile(backend, rng):
    p = rng.standard_normal((48, 3)).astype(np.float32)  # N a multiple of the tile
    got = tf.compile(nbody_step)(p).numpy
    d = p[None, :, :] - p[:, None, :]
    w = (np.sum(d * d, axis=2) + 0.01) ** -1.5
    expected = np.sum(d * w[:, :, None], axis=1)
    # 48 terms of size up to 1000 (softening 0.01): float32 rsqrt and sums, relative 1e-5
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())


def test_local_buffers_block_index_and_errors(backend):
    def program():
        x = tf.input([-1], tf.float32)
        out = tf.buffer([x.shape[0], 2], tf.int32)
        with tf.kernel(x.shape, group_size=[4]) as i:
            scratch = tf.local_buffer(3, tf.float32)
            for k in range(3):
                scratch[k] = x[i] * float(k)
            out[i, 0] = i.block_index()
            out[i, 1] = tf.int(scratch[2] + scratch[1])
        return out
    x = np.arange(10, dtype=np.float32)
    out = tf.compile(program)(x).numpy
    np.testing.assert_array_equal(out[:, 0], np.arange(10) // 4)
    np.testing.assert_array_equal(out[:, 1], (3 * x).astype(np.int32))

    def outside():
        x = tf.input([-1], tf.float32)
        tf.group_buffer(4)
        return x
    with pytest.raises(tf.TraceError, match=r"tf.group_buffer must be called inside `with tf.kernel"):
        tf.compile(outside)


def test_an_explicit_kernel_in_a_kernel_program(backend):
    from kernel_program_cases import group_sums
    a = np.arange(12, dtype=np.float32)
    expected = np.minimum(a.reshape(3, 4).sum(axis=1), 10.0).repeat(4)
    np.testing.assert_array_equal(group_sums(a).numpy, expected)
