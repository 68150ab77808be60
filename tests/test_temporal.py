"""Temporal blocking of stencil chains (backend_cpu/temporal.py): a program of several
stencil steps must give what numpy and the reference interpreter give, whether the CPU
backend runs its kernels in bands of rows (a halo at the bands' and the grid's edges,
intermediate values in scratch) or one after another, and the OpenGL backend (which does
not block) must agree."""

import numpy as np
import pytest

import tensorfrost as tf
from tensorfrost.backend_cpu import temporal
from tensorfrost.ir import dtypes as dt
from tensorfrost.ir.ops import OPS
from tensorfrost.program import run_reference

C = 0.1
# odd sizes; sizes under a band (32 rows) and under the halo (10 rows); one row; one column
SIZES = [(1, 1), (3, 5), (7, 300), (45, 33), (100, 1), (257, 129), (40, 1100)]


def wave(steps: int, keep_middle: bool = False):
    u = tf.input([-1, -1], tf.float32)
    v = tf.input(u.shape, tf.float32)
    i, j = u.indices
    middle = None
    for step in range(steps):
        lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - u * 4.0
        v = v + C * lap
        u = u + C * v
        if step == steps // 2:
            middle = u
    return [u, v, middle] if keep_middle else [u, v]


def numpy_wave(u, v, steps: int, keep_middle: bool = False):
    u, v = u.astype(np.float64), v.astype(np.float64)
    middle = None
    for step in range(steps):
        p = np.pad(u, 1, mode="edge")
        v = v + C * (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * u)
        u = u + C * v
        if step == steps // 2:
            middle = u
    return [u, v, middle] if keep_middle else [u, v]


def shifted(x, di: int, dj: int = 0):
    """``x[i + di, j + dj]`` with indices clamped, as tensorfrost's loads clamp them."""
    n, m = x.shape[:2]
    rows = np.clip(np.arange(n) + di, 0, n - 1)
    cols = np.clip(np.arange(m) + dj, 0, m - 1)
    return x[rows][:, cols]


def blocked(program) -> int:
    """How many chain functions the CPU backend made of the program."""
    return program.compiled_code().count("// chain of ")


def check(got, want, scale=1.0):
    # float32 steps of size ~1 values: a few ulps per step, 25 steps at most
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy, w, rtol=0, atol=1e-5 * scale)


@pytest.mark.parametrize("steps", [1, 2, 10, 25])
def test_wave_chain_matches_numpy_at_every_size(steps, rng):
    program = tf.compile(lambda: wave(steps), name="wave_chain")
    per_chain = temporal.MAX_HALO + 1  # kernels: one step is one kernel of radius 1
    assert blocked(program) == steps // per_chain + (steps % per_chain >= 2)
    for shape in SIZES:
        u, v = rng.random(shape, dtype=np.float32), rng.random(shape, dtype=np.float32)
        check(program(u, v), numpy_wave(u, v, steps))


@pytest.mark.parametrize("band", [5, 1])
def test_bands_smaller_than_the_halo(band, rng, monkeypatch):
    monkeypatch.setattr(temporal, "BAND", band)
    program = tf.compile(lambda: wave(10, keep_middle=True), name=f"wave_bands_{band}")
    assert blocked(program) >= 1
    for shape in [(1, 40), (23, 19), (64, 65)]:
        u, v = rng.random(shape, dtype=np.float32), rng.random(shape, dtype=np.float32)
        check(program(u, v), numpy_wave(u, v, 10, keep_middle=True))


def test_wave_chain_matches_the_reference_interpreter(rng):
    program = tf.compile(lambda: wave(10), name="wave_chain")
    u, v = rng.random((70, 41), dtype=np.float32), rng.random((70, 41), dtype=np.float32)
    check(program(u, v), run_reference(program, u, v))


def test_a_middle_value_that_is_returned_is_still_written(rng):
    program = tf.compile(lambda: wave(10, keep_middle=True), name="wave_middle")
    assert blocked(program) >= 1
    for shape in [(5, 6), (150, 70)]:
        u, v = rng.random(shape, dtype=np.float32), rng.random(shape, dtype=np.float32)
        check(program(u, v), numpy_wave(u, v, 10, keep_middle=True))


def test_a_non_stencil_kernel_in_the_middle_splits_the_chain(rng):
    def program():
        u = tf.input([-1, -1], tf.float32)
        n = u.shape[0]
        i, j = u.indices
        for step in range(6):
            if step == 3:
                u = u[n - 1 - i, j] * 0.5  # rows reversed: not a constant offset
            else:
                u = u + 0.2 * (u[i - 1, j] + u[i + 1, j] - 2.0 * u)
        return [u]

    compiled = tf.compile(program, name="split_chain")
    # fusion recomputes the reversal in its neighbours: those kernels read rows anywhere, and
    # blocked they would read other bands' rows; the steps after them still form a chain
    assert 1 <= blocked(compiled) < len(compiled.get_kernels()) - 1
    for shape in [(1, 3), (9, 4), (200, 33)]:
        x = rng.random(shape, dtype=np.float32)
        want = x.astype(np.float64)
        for step in range(6):
            want = want[::-1] * 0.5 if step == 3 else want + 0.2 * (shifted(want, -1) + shifted(want, 1) - 2 * want)
        check(compiled(x), [want])


def test_different_radii_along_rows_and_columns(rng):
    def program():
        u = tf.input([-1, -1], tf.float32)
        i, j = u.indices
        for _ in range(4):
            u = 0.25 * (u[i - 2, j] + u[i + 3, j] + u[i, j - 5] + u[i + 1, j + 1])
        return [u]

    compiled = tf.compile(program, name="radii")
    assert blocked(compiled) == 1
    for shape in [(2, 2), (13, 7), (97, 50)]:
        x = rng.random(shape, dtype=np.float32)
        want = x.astype(np.float64)
        for _ in range(4):
            want = 0.25 * (shifted(want, -2) + shifted(want, 3) + shifted(want, 0, -5) + shifted(want, 1, 1))
        check(compiled(x), [want])


def test_integer_chain_is_exact(rng):
    def program():
        u = tf.input([-1, -1], tf.int32)
        i, j = u.indices
        for _ in range(7):
            u = (u[i - 1, j] + u[i + 1, j] * 3 + u[i, j + 1] + u) % 1009
        return [u]

    compiled = tf.compile(program, name="int_chain")
    assert blocked(compiled) == 1
    for shape in [(4, 3), (66, 17)]:
        x = rng.integers(0, 1009, shape).astype(np.int32)
        want = x.astype(np.int64)
        for _ in range(7):
            want = (shifted(want, -1) + shifted(want, 1) * 3 + shifted(want, 0, 1) + want) % 1009
        np.testing.assert_array_equal(compiled(x).numpy, want)


def test_three_dimensional_grid(rng):
    def program():
        u = tf.input([-1, -1, -1], tf.float32)
        i, j, k = u.indices
        for _ in range(5):
            u = u + 0.1 * (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j, k + 1] - 3.0 * u)
        return [u]

    compiled = tf.compile(program, name="grid3d")
    assert blocked(compiled) == 1
    for shape in [(3, 2, 2), (40, 5, 9)]:
        x = rng.random(shape, dtype=np.float32)
        want = x.astype(np.float64)
        for _ in range(5):
            up = want[np.clip(np.arange(shape[0]) - 1, 0, shape[0] - 1)]
            down = want[np.clip(np.arange(shape[0]) + 1, 0, shape[0] - 1)]
            right = want[:, :, np.clip(np.arange(shape[2]) + 1, 0, shape[2] - 1)]
            want = want + 0.1 * (up + down + right - 3 * want)
        check(compiled(x), [want])


def test_kernel_program_front_end_gives_the_same_chain(rng):
    @tf.kernel_program
    def steps(u: tf.Arg([-1, -1], tf.float32), v: tf.Arg([-1, -1], tf.float32)):
        i, j = u.indices
        for _ in tf.static_range(10):
            lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - u * 4.0
            v = v + C * lap
            u = u + C * v
        return u, v

    assert blocked(steps) == 1
    u, v = rng.random((77, 31), dtype=np.float32), rng.random((77, 31), dtype=np.float32)
    check(steps(u, v), numpy_wave(u, v, 10))


def test_chain_in_a_host_loop(rng):
    def program():
        u = tf.input([-1, -1], tf.float32)
        i, j = u.indices
        with tf.loop(3):
            w = u
            for _ in range(3):
                w = w + 0.2 * (w[i - 1, j] + w[i + 1, j] - 2.0 * w)
            u.val = w
        return [u]

    compiled = tf.compile(program, name="looped_chain")
    x = rng.random((50, 20), dtype=np.float32)
    want = x.astype(np.float64)
    for _ in range(9):
        want = want + 0.2 * (shifted(want, -1) + shifted(want, 1) - 2 * want)
    check(compiled(x), [want])


def test_wide_rows_run_unblocked(rng, monkeypatch):
    monkeypatch.setattr(temporal, "SCRATCH_LIMIT", 1)  # any row is too wide
    program = tf.compile(lambda: wave(10), name="wave_wide")
    assert blocked(program) == 1
    u, v = rng.random((60, 20), dtype=np.float32), rng.random((60, 20), dtype=np.float32)
    check(program(u, v), numpy_wave(u, v, 10))


def test_backends_agree(backend, rng):
    program = tf.compile(lambda: wave(10), name="wave_backends")
    u, v = rng.random((45, 33), dtype=np.float32), rng.random((45, 33), dtype=np.float32)
    check(program(u, v), numpy_wave(u, v, 10))


def test_shifted_reads_of_computed_values_are_clamped_once():
    # load_clamps: a load clamps its indices itself; a second clamp around ``i - 1`` hides the
    # stencil's offset from the emitter, whose rows then gather instead of vectorizing
    program = tf.compile(lambda: wave(3), name="wave_clamps")
    assert len(program.get_kernels()) == 3
    clamp = OPS["clamp"].spelling("cpp", [dt.int32] * 3).split("(")[0] + "("
    assert not any(clamp in source for source in program.get_kernels())


# -- chains of conditional updates: what a chained kernel stores must cover its rows in scratch --


def _updates_in_place():
    """Each step updates T from its row neighbours where a mask holds: the update reads T
    before the step (a kernel), then stores under an ``if`` (another), which keeps T's other
    elements; blocked, those elements came from scratch rows that nothing wrote."""
    u = tf.input([-1, -1], tf.int32)
    mask = tf.input(u.shape, tf.int32)
    i, j = u.indices
    T = u * 1
    for step in range(4):
        with tf.if_cond(mask > step):
            T[i, j] = (T[i - 1, j] + T[i + 1, j] * 2 + T[i, j - 1] + step) % 1009
    return [T]


def numpy_updates_in_place(u, mask):
    T = u.astype(np.int64)
    for step in range(4):
        new = (shifted(T, -1) + shifted(T, 1) * 2 + shifted(T, 0, -1) + step) % 1009
        T = np.where(mask > step, new, T)
    return [T]


def _selected_steps():
    """The same updates as selections: every step stores every element, and stays chained."""
    u = tf.input([-1, -1], tf.int32)
    mask = tf.input(u.shape, tf.int32)
    i, j = u.indices
    middle = None
    for step in range(4):
        u = tf.select(mask > step, (u[i - 1, j] + u[i + 1, j] * 2 + u[i, j - 1] + step) % 1009, u)
        middle = u if step == 1 else middle
    return [u, middle]


def numpy_selected_steps(u, mask):
    u, middle = u.astype(np.int64), None
    for step in range(4):
        u = np.where(mask > step, (shifted(u, -1) + shifted(u, 1) * 2 + shifted(u, 0, -1) + step) % 1009, u)
        middle = u if step == 1 else middle
    return [u, middle]


def _mixed_steps():
    """Selections, updates in place, and a store one row down (under an ``if`` that keeps it
    inside the grid) in one sequence of stencils."""
    u = tf.input([-1, -1], tf.int32)
    mask = tf.input(u.shape, tf.int32)
    n = u.shape[0]
    i, j = u.indices
    v = tf.select(mask > 1, u[i - 2, j] + u[i + 1, j], u * 3) % 1009
    T = v * 1
    with tf.if_cond(mask > 2):
        T[i, j] = (v[i + 3, j] + T[i, j + 1]) % 1009
    down = tf.zeros(u.shape, tf.int32)
    with tf.if_cond(i < n - 1):
        down[i + 1, j] = T[i - 1, j] + v
    w = (down[i - 1, j] + down[i + 1, j] + T) % 1009
    return [w, T]


def numpy_mixed_steps(u, mask):
    u = u.astype(np.int64)
    v = np.where(mask > 1, shifted(u, -2) + shifted(u, 1), u * 3) % 1009
    T = np.where(mask > 2, (shifted(v, 3) + shifted(v, 0, 1)) % 1009, v)
    down = np.zeros_like(u)
    down[1:] = (shifted(T, -1) + v)[:-1]
    return [(shifted(down, -1) + shifted(down, 1) + T) % 1009, T]


CONDITIONAL_CHAINS = {"updates_in_place": (_updates_in_place, numpy_updates_in_place),
                      "selected_steps": (_selected_steps, numpy_selected_steps),
                      "mixed_steps": (_mixed_steps, numpy_mixed_steps)}


@pytest.mark.parametrize("band", [3, 64])
@pytest.mark.parametrize("name", CONDITIONAL_CHAINS)
def test_conditional_updates_match_numpy_and_the_interpreter(name, band, rng, monkeypatch):
    build, reference = CONDITIONAL_CHAINS[name]
    monkeypatch.setattr(temporal, "BAND", band)
    program = tf.compile(build, name=f"{name}_{band}")  # the name keys the program cache on the band
    if name == "selected_steps":
        assert blocked(program) == 1
    for shape in [(1, 1), (2, 9), (9, 7), (150, 40)]:
        u, mask = rng.integers(0, 1009, shape).astype(np.int32), rng.integers(0, 5, shape).astype(np.int32)
        got = [t.numpy for t in program(u, mask)]
        for g, want, oracle in zip(got, reference(u, mask), run_reference(program, u, mask)):
            np.testing.assert_array_equal(g, want)
            np.testing.assert_array_equal(g, oracle)


@pytest.mark.parametrize("band", [3, 64])
def test_both_branches_of_an_if_store_into_the_tensor_they_read(band, rng, monkeypatch):
    """Issue 26's reproducer: blocked, the elements the first branch does not store were
    copied back from uninitialised scratch rows (values like 1074517506)."""
    monkeypatch.setattr(temporal, "BAND", band)

    def two_branches(x: tf.Arg([-1, -1], tf.int32)):
        T = x * 1
        i, j = T.indices
        if x > 5:
            T[i, j] = T[i, j - 1] + 1
        else:
            T[i, j] = T[i - 1, j] + 2
        return T

    program = tf.kernel_program(two_branches, name=f"two_branches_{band}")
    for shape in [(1, 1), (9, 7), (150, 40)]:
        x = rng.integers(0, 10, shape).astype(np.int32)
        T = x.astype(np.int64)
        T = np.where(x > 5, shifted(T, 0, -1) + 1, T)  # the first branch, for all its elements
        T = np.where(x > 5, T, shifted(T, -1) + 2)  # then the second: it sees the first's stores
        got = program(x).numpy
        np.testing.assert_array_equal(got, T)
        np.testing.assert_array_equal(got, run_reference(program, x)[0])
