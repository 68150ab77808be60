"""Lane tiling (backend_cpu/tiling.py) under numpy: kernels whose elements run a loop are
computed ROWS x LANES elements at a time (8 x 32), each lane loop stepping only along the
tile axes its statements vary along. Accumulations whose summand ignores the lane or the
row (a product with a constant or broadcast operand, a row sum stored in every column, the
gradient of a summed matmul) must run once per element, not once per lane or row of the
tile: every case here gave 8x or 32x before. Sizes below, at and above one tile, not
multiples of 8 or 32; OpenGL (which does not tile) must agree."""

import numpy as np
import pytest

import tensorfrost as tf

# rows x depth: under one tile row (7), one tile (8), one more (9), a ROW_BLOCK and more (65, 130)
SHAPES = [(1, 1), (7, 3), (8, 32), (9, 33), (31, 5), (65, 17), (130, 129)]
# float32 sums of at most 130 terms of size ~1 (a few ulps each)
RTOL, ATOL = 1e-5, 1e-4


def check(got, want):
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


def fired(program, name: str) -> int:
    return program.optimizations_fired.get(name, 0)


def assert_tiled(program, backend):
    """On cpu the case reaches the tiled path (what it is here to test)."""
    if backend is tf.cpu:
        assert fired(program, "tiling") >= 1, program.optimizations_fired


@pytest.mark.parametrize("width", [10, 40, 130])
def test_product_with_a_constant_operand(backend, rng, width):
    def program():
        a = tf.input([-1, -1], tf.float32)
        _, depth = a.shape
        return [a @ tf.ones([depth, width], tf.float32)]

    compiled = tf.compile(program)
    assert_tiled(compiled, backend)
    for m, k in SHAPES:
        a = rng.random((m, k), dtype=np.float32)
        check(compiled(a).numpy, a @ np.ones((k, width), np.float32))


def test_constant_operand_on_the_left(backend, rng):
    def program():
        a = tf.input([-1, -1], tf.float32)
        m, _ = a.shape
        return [tf.ones([40, m], tf.float32) @ a]

    compiled = tf.compile(program)
    assert_tiled(compiled, backend)
    for m, n in SHAPES:
        a = rng.random((m, n), dtype=np.float32)
        check(compiled(a).numpy, np.ones((40, m), np.float32) @ a)


def test_row_sum_accumulated_in_every_column(backend, rng):
    def program():
        a = tf.input([-1, -1], tf.float32)
        width = tf.input([-1], tf.float32)
        m, depth = a.shape
        acc = tf.zeros([m, width.shape[0]])
        i, j = acc.indices
        with tf.loop(depth) as k:
            acc.val = acc + a[i, k]
        return [acc]

    compiled = tf.compile(program)
    assert_tiled(compiled, backend)
    for (m, k), n in zip(SHAPES, [1, 5, 32, 40, 33, 8, 130]):
        a = rng.random((m, k), dtype=np.float32)
        got = compiled(a, np.zeros(n, np.float32)).numpy
        check(got, np.repeat(a.sum(1, keepdims=True), n, axis=1))


def test_accumulators_of_the_row_the_lane_and_both_in_one_loop(backend, rng):
    """Three accumulators updated in one lane loop: one per row, one per column, one per
    element; and a value read before the update it precedes."""
    def program():
        a = tf.input([-1, -1], tf.float32)
        b = tf.input([-1, -1], tf.float32)
        m, depth = a.shape
        _, n = b.shape
        rows, cols, both, before = tf.zeros([m, n]), tf.zeros([m, n]), tf.zeros([m, n]), tf.zeros([m, n])
        i, j = rows.indices
        with tf.loop(depth) as k:
            before.val = before + rows * 0.5
            rows.val = rows + a[i, k]
            cols.val = cols + b[k, j]
            both.val = both + a[i, k] * b[k, j]
        return [rows, cols, both, before]

    compiled = tf.compile(program)
    assert_tiled(compiled, backend)
    for m, k in SHAPES:
        n = m + 3
        a, b = rng.random((m, k), dtype=np.float32), rng.random((k, n), dtype=np.float32)
        got = [t.numpy for t in compiled(a, b)]
        prefix = np.cumsum(a, axis=1) - a  # rows before step k
        want = [np.repeat(a.sum(1, keepdims=True), n, 1), np.repeat(b.sum(0, keepdims=True), m, 0), a @ b,
                np.repeat(0.5 * prefix.sum(1, keepdims=True), n, 1)]
        for g, w in zip(got, want):
            check(g, w)


def test_values_of_the_row_and_of_the_lane_read_before_the_loop(backend, rng):
    """A row's value and a lane's value computed in one lane loop before the accumulation
    loop and kept for it (each an array over the whole tile: g++ 12 at -O3 miscompiled a
    row's array written inside the lane loop, storing zeros)."""
    def program():
        a = tf.input([-1, -1], tf.float32)
        b = tf.input([-1, -1], tf.float32)
        m, depth = a.shape
        _, n = b.shape
        acc = tf.zeros([m, n])
        i, j = acc.indices
        first, top = a[i, 0], b[0, j]
        with tf.loop(depth) as k:
            with tf.loop(3) as step:
                acc.val = acc + a[i, k] * first + top * tf.float(step)
        return [acc + first * first]

    compiled = tf.compile(program)
    assert_tiled(compiled, backend)
    for m, k in SHAPES:
        n = 2 * m + 1
        a, b = rng.random((m, k), dtype=np.float32), rng.random((k, n), dtype=np.float32)
        first, top = a[:, :1], b[:1, :]
        want = 3 * a.sum(1, keepdims=True) * first + 3 * k * top + first * first
        check(compiled(a, b).numpy, want)


def test_gradient_of_a_summed_product(backend, rng):
    """d/dA sum(B @ A) = B^T @ ones: every column of the gradient is B's column sums."""
    def program():
        a = tf.input([-1, -1], tf.float32)
        b = tf.input([-1, -1], tf.float32)
        return [tf.grad(tf.sum(tf.sum(b @ a)), a)]

    compiled = tf.compile(program)
    for m, k in SHAPES:
        n = k + 2
        a, b = rng.random((k, n), dtype=np.float32), rng.random((m, k), dtype=np.float32)
        check(compiled(a, b).numpy, np.repeat(b.sum(0)[:, None], n, axis=1))


def test_rank_three_grid(backend, rng):
    def program():
        a = tf.input([-1, -1, -1], tf.float32)
        batch, m, depth = a.shape
        acc = tf.zeros([batch, m, 37])
        b, i, j = acc.indices
        with tf.loop(depth) as k:
            acc.val = acc + a[b, i, k] * tf.float(j + 1)
        return [acc, a @ tf.ones([depth, 37], tf.float32)]

    compiled = tf.compile(program)
    assert_tiled(compiled, backend)
    for batch, (m, k) in zip([1, 3, 2], [(9, 33), (65, 17), (8, 32)]):
        a = rng.random((batch, m, k), dtype=np.float32)
        acc, product = (t.numpy for t in compiled(a))
        sums = a.sum(2, keepdims=True)
        check(acc, sums * np.arange(1, 38, dtype=np.float32))
        check(product, np.repeat(sums, 37, axis=2))


def test_kernel_program_front_end(backend, rng):
    @tf.kernel_program
    def row_sums(a: tf.Arg([-1, -1], tf.float32)):
        m, depth = a.shape
        i, _ = tf.indices([m, 40])
        _, q = tf.indices([40, m])
        acc, lane = 0.0, 0.0
        for k in range(depth):
            acc = acc + a[i, k]
        for k in range(m):
            lane = lane + a[k, q]
        return acc, lane

    assert_tiled(row_sums, backend)
    for m, k in SHAPES:
        a = rng.random((m, k), dtype=np.float32)
        acc, lane = (t.numpy for t in row_sums(a))
        check(acc, np.repeat(a.sum(1, keepdims=True), 40, axis=1))
        columns = np.minimum(np.arange(m), k - 1)  # a[k, q] past the last column reads it (clamped)
        check(lane, np.repeat(a.sum(0)[None, columns], 40, axis=0))


def test_masked_kernel_with_a_per_row_accumulator(backend, rng):
    """An ``if`` makes the tile one row: the row's accumulator is then the same for every
    lane (uniform in the tile), the counter under the ``if`` one per lane."""
    def program():
        a = tf.input([-1, -1], tf.float32)
        m, depth = a.shape
        acc, count = tf.zeros([m, 45]), tf.zeros([m, 45])
        i, j = acc.indices
        with tf.loop(depth) as k:
            acc.val = acc + a[i, k]
            with tf.if_cond(a[i, k] * 45.0 > tf.float(j)):
                count.val = count + 1.0
        return [acc, count]

    compiled = tf.compile(program)
    assert_tiled(compiled, backend)
    for m, k in SHAPES:
        a = rng.random((m, k), dtype=np.float32)
        acc, count = (t.numpy for t in compiled(a))
        check(acc, np.repeat(a.sum(1, keepdims=True), 45, axis=1))
        np.testing.assert_array_equal(count, (a[:, :, None] * np.float32(45) > np.arange(45)).sum(1))


def test_variables_carried_across_a_loop_with_a_break(backend, rng):
    """A loop with a ``break`` runs masked: a per-row sum that stops at the row's first value
    above a threshold, another per-row sum that does not stop, and a value after the loop."""
    def program():
        a = tf.input([-1, -1], tf.float32)
        m, depth = a.shape
        stopped, total = tf.zeros([m, 33]), tf.zeros([m, 33])
        i, j = stopped.indices
        threshold = 0.5 + tf.float(j) / 66.0
        with tf.loop(depth) as k:
            total.val = total + a[i, k]
            with tf.if_cond(a[i, k] > threshold):
                tf.break_loop()
            stopped.val = stopped + a[i, k]
        return [stopped, total, stopped * 2.0 + total]

    compiled = tf.compile(program)
    assert_tiled(compiled, backend)
    thresholds = 0.5 + np.arange(33, dtype=np.float32) / np.float32(66)
    for m, k in SHAPES:
        a = rng.random((m, k), dtype=np.float32)
        stopped, total, mixed = (t.numpy for t in compiled(a))
        want_stopped, want_total = np.zeros((m, 33)), np.zeros((m, 33))
        for r in range(m):
            for c in range(33):
                over = np.nonzero(a[r] > thresholds[c])[0]
                end = over[0] if len(over) else k
                want_stopped[r, c] = a[r, :end].sum()
                want_total[r, c] = a[r, :end + 1].sum()
        check(stopped, want_stopped)
        check(total, want_total)
        check(mixed, 2 * want_stopped + want_total)


def test_a_uniform_store_after_a_break_runs_only_for_the_live_lanes(backend, rng):
    """Every lane of a row stores the same value at [i, k] after a ``break`` that all of them
    take together: the store must not run once they have left the loop."""
    def program():
        a = tf.input([-1, -1], tf.float32)
        m, depth = a.shape
        total = tf.zeros([m, 40])
        reached = tf.zeros([m, depth])
        i, j = total.indices
        with tf.loop(depth) as k:
            total.val = total + a[i, k] * tf.float(j)
            with tf.if_cond(a[i, k] > 0.7):
                tf.break_loop()
            reached[i, k] = 1.0
        return [total, reached]

    compiled = tf.compile(program)
    assert_tiled(compiled, backend)
    for m, k in SHAPES:
        a = rng.random((m, k), dtype=np.float32)
        total, reached = (t.numpy for t in compiled(a))
        over = a > 0.7
        stop = np.where(over.any(1), over.argmax(1), k)  # the trip that breaks (k: none)
        steps = np.arange(k)
        check(reached, (steps[None, :] < stop[:, None]).astype(np.float32))
        sums = np.where(steps[None, :] <= stop[:, None], a, 0).sum(1)
        check(total, sums[:, None] * np.arange(40, dtype=np.float32))


# -- every optimization of the cpu kernels: fires where it should, and the program means the same off --


def _product(a: int, b: int, c: int):
    def build():
        x = tf.input([a, b], tf.float32)
        y = tf.input([b, c], tf.float32)
        return [x @ y]
    return build, [(a, b), (b, c)], lambda x, y: x @ y


def _product_with_epilogue():
    def build():
        x = tf.input([-1, -1], tf.float32)
        y = tf.input([-1, -1], tf.float32)
        return [tf.max(x @ y + 1.0, 0.5)]
    return build, [(200, 180), (180, 190)], lambda x, y: np.maximum(x @ y + 1, 0.5)


def _stencil_steps():
    def build():
        u = tf.input([-1, -1], tf.float32)
        i, j = u.indices
        for _ in range(3):
            u = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
        return [u]

    def reference(u):
        for _ in range(3):
            p = np.pad(u, 1, mode="edge")
            u = 0.25 * (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:])
        return u
    return build, [(150, 70)], reference


def _varying_steps():
    def build():
        u = tf.input([-1, -1], tf.float32)
        i, j = u.indices
        for s in range(6):  # steps that differ only in a constant: their kernels share their code
            nearby = u[i - 1, j] + u[i + 1, j] if s % 2 else u[i, j - 1] + u[i, j + 1]
            u = u + (0.1 + 0.02 * s) * (nearby - 2.0 * u)
        return [u]

    def reference(u):
        for s in range(6):
            p = np.pad(u, 1, mode="edge")
            nearby = p[:-2, 1:-1] + p[2:, 1:-1] if s % 2 else p[1:-1, :-2] + p[1:-1, 2:]
            u = u + (0.1 + 0.02 * s) * (nearby - 2.0 * u)
        return u
    return build, [(150, 70)], reference


def _transposed_copy():
    def build():
        x = tf.input([-1, -1], tf.float32)
        return [x.T * 2.0]
    return build, [(70, 45)], lambda x: x.T * 2


def _row_sums():
    def build():
        x = tf.input([-1, -1], tf.float32)
        return [tf.sum(x, axis=1)]
    return build, [(70, 45)], lambda x: x.sum(1)


# name -> a program that reaches it, its input shapes, numpy's answer
REACHING = {
    "tiling": _product(20, 30, 40),
    "tile_rows": _product(20, 30, 40),
    "gemm": _product(200, 180, 190),
    "gemm_epilogue": _product_with_epilogue(),
    "chains": _stencil_steps(),
    "column_blocks": _transposed_copy(),
    "stencil_interior": _stencil_steps(),
    "simd_reductions": _row_sums(),
    "shared_kernels": _varying_steps(),
}


@pytest.mark.parametrize("name", REACHING)
def test_cpu_kernel_optimizations_fire_and_mean_the_same_off(name, rng):
    build, shapes, reference = REACHING[name]
    inputs = [rng.random(shape, dtype=np.float32) for shape in shapes]
    want = reference(*[x.astype(np.float64) for x in inputs])
    tf.initialize(tf.cpu)
    for off, fires in ((False, True), (True, False)):
        tf.optimizations.reset_counts()
        with tf.optimizations.disabled(*([name] if off else [])):
            compiled = tf.compile(build)
            got = compiled(*inputs).numpy
        assert (tf.optimizations.counts()[name] > 0) == fires, (name, off, tf.optimizations.counts())
        # float32 sums of up to 180 products of values in [0, 1): relative error ~1e-6
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
