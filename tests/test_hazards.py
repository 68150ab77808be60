"""Reads of a tensor that the same kernel writes (issue 26, items 2 and 11).

A program means what numpy would do: every operation acts on all elements before the next
starts, so a read sees every write before it in the program, whatever element wrote it, and
none after. Fusion may put two operations in one kernel only where no element of it reaches
a place that another element of it writes. Each program here has such a hazard (a store to
another element then a read, a read of a neighbour then a store, a scatter then a read, an
if whose body clears its own condition elsewhere, both branches of an if, sweeps that read
neighbours in place); each must give numpy's answer
in the reference interpreter before any pass, compiled (with the race check on), and on
every backend. The race check itself must see a kernel fused by hand where elements race,
which the interpreter, running all elements of a kernel at once, would hide."""

import numpy as np
import pytest

import tensorfrost as tf
from tensorfrost.interpreter_backend import run_compiled
from tensorfrost.ir.interpreter import run as interpret
from tensorfrost.ir.node import clone_program
from tensorfrost.ir.shapes import shapes_equal
from tensorfrost.opt.pipeline import compile_program
from tensorfrost.tracing.trace import trace


def _clamped(n, k):
    return np.clip(k, 0, n - 1)


def flip_copy():
    """Item 11: a store to the mirrored row, then a copy of the whole tensor."""
    x = tf.input([-1, -1], tf.float32)
    N, M = x.shape
    i, j = x.indices
    b = tf.zeros([N, M])
    b[N - 1 - i, j] = x
    c = tf.zeros([N, M])
    c[i, j] = b
    return [c]


def gather_through_a_stored_index():
    """A store of indices at permuted places, then those indices used for a gather."""
    x = tf.input([-1], tf.float32)
    N = x.shape[0]
    i, = x.indices
    p = tf.zeros([N], tf.int32)
    p[N - 1 - i] = i
    return [x[p] * 2.0]


def scatter_then_read():
    """A scatter into a histogram, then the histogram read at every element."""
    x = tf.input([-1], tf.float32)
    N = x.shape[0]
    i, = x.indices
    h = tf.zeros([N])
    tf.scatterAdd(h[(i * 3) % N], x)
    return [h + x]


def shift_in_place():
    """A read of the right neighbour, then a store to the own element (write after read)."""
    x = tf.input([-1, -1], tf.float32)
    T = x * 1.0
    i, j = T.indices
    T[i, j] = T[i, j + 1] * 2.0
    return [T]


def store_of_itself_mirrored():
    """``b[mirror] = b``: one store reads the whole tensor it writes."""
    x = tf.input([-1, -1], tf.float32)
    N = x.shape[0]
    b = x * 1.0
    i, j = b.indices
    b[N - 1 - i, j] = b
    return [b]


def update_past_the_edge():
    """``T[i + 1] += 1``: the last element's index is clamped onto the place of the one
    before; numpy's buffered update adds once there."""
    x = tf.input([-1], tf.float32)
    T = x * 1.0
    i, = T.indices
    T[i + 1] += 1.0
    return [T]


def condition_cleared_by_neighbour():
    """An if on a mask that its body clears at the next element: the mask is read whole
    before the body runs."""
    x = tf.input([-1], tf.float32)
    keep = x > 0.0
    i, = x.indices
    out = x * 1.0
    with tf.if_cond(keep):
        keep[i + 1] = False
        out.val = out * 10.0
    return [out, tf.select(keep, 1.0, 0.0)]


def _reference_flip(x):
    return [np.flip(x, 0)]


def _reference_gather(x):
    return [x[::-1] * 2]


def _reference_scatter(x):
    h = np.zeros_like(x)
    np.add.at(h, (np.arange(len(x)) * 3) % len(x), x)
    return [h + x]


def _reference_shift(x):
    return [x[:, _clamped(x.shape[1], np.arange(x.shape[1]) + 1)] * 2]


def _reference_edge(x):
    t = x.copy()
    t[_clamped(len(x), np.arange(len(x)) + 1)] += 1  # buffered: a repeated place gets one update
    return [t]


def _reference_condition(x):
    keep = x > 0
    after = keep.copy()
    after[_clamped(len(x), np.flatnonzero(keep) + 1)] = False
    return [np.where(keep, x * 10, x), after.astype(np.float32)]


def _reals(rng, shape):
    return (rng.integers(-40, 40, shape) / 4).astype(np.float32)  # quarters: exact in float32


CASES = {
    "flip_copy": (flip_copy, lambda rng: [_reals(rng, (16, 14))], _reference_flip),
    "gather_through_a_stored_index": (gather_through_a_stored_index, lambda rng: [_reals(rng, 37)],
                                      _reference_gather),
    "scatter_then_read": (scatter_then_read, lambda rng: [_reals(rng, 40)], _reference_scatter),
    "shift_in_place": (shift_in_place, lambda rng: [_reals(rng, (9, 13))], _reference_shift),
    "store_of_itself_mirrored": (store_of_itself_mirrored, lambda rng: [_reals(rng, (11, 6))], _reference_flip),
    "update_past_the_edge": (update_past_the_edge, lambda rng: [_reals(rng, 70)], _reference_edge),
    "condition_cleared_by_neighbour": (condition_cleared_by_neighbour, lambda rng: [_reals(rng, 61)],
                                       _reference_condition),
}


def _check(got, want):
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), w)  # quarters and sums of a few: exact


@pytest.mark.parametrize("name", sorted(CASES))
def test_hazard_matches_numpy_on_the_backend(backend, name):
    function, make_inputs, reference = CASES[name]
    arrays = make_inputs(np.random.default_rng(5))
    _check([t.numpy for t in tf.compile(function)(*arrays)], reference(*arrays))


@pytest.mark.parametrize("name", sorted(CASES))
def test_hazard_matches_numpy_in_the_interpreter_before_and_after_the_passes(name):
    """The reference interpreter (each operation over all elements, then the next) gives
    numpy's answer, and so does the compiled program, without a race in any kernel."""
    function, make_inputs, reference = CASES[name]
    arrays = make_inputs(np.random.default_rng(6))
    program = trace(function)
    _check(interpret(clone_program(program), arrays), reference(*arrays))
    _check(run_compiled(program, arrays, check_races=True), reference(*arrays))


# -- item 2: both branches of an if store into the tensor they read at neighbours ------------------


def _two_branches():
    @tf.kernel_program
    def two_branches(x: tf.Arg([-1, -1], tf.int32)):
        T = x * 1
        i, j = T.indices
        if x > 5:
            T[i, j] = T[i, j - 1] + 1
        else:
            T[i, j] = T[i - 1, j] + 2
        return T
    return two_branches


def _reference_two_branches(x):
    n, m = x.shape
    rows, cols = np.indices(x.shape)
    t, taken = x.copy(), x > 5
    left = t[rows, _clamped(m, cols - 1)] + 1  # the first branch, for all its elements
    t[taken] = left[taken]
    above = t[_clamped(n, rows - 1), cols] + 2  # then the second: it sees the first's stores
    t[~taken] = above[~taken]
    return t


def _sweeps():
    @tf.kernel_program
    def sweeps(x: tf.Arg([-1, -1], tf.float32)):
        T = x * 1.0
        i, j = T.indices
        for _ in range(3):  # a sweep in place: each sweep reads the neighbours of the sweep before
            T[i, j] = (T[i - 1, j] + T[i + 1, j] + T[i, j - 1] + T[i, j + 1]) * 0.25
        return T
    return sweeps


def _reference_sweeps(x):
    n, m = x.shape
    rows, cols = np.indices(x.shape)
    t = x.astype(np.float64)
    for _ in range(3):
        t = (t[_clamped(n, rows - 1), cols] + t[_clamped(n, rows + 1), cols] + t[rows, _clamped(m, cols - 1)]
             + t[rows, _clamped(m, cols + 1)]) * 0.25
    return t


def _red_black():
    @tf.kernel_program
    def red_black(x: tf.Arg([-1, -1], tf.float32)):
        T = x * 1.0
        i, j = T.indices
        for _ in range(2):
            for colour in tf.static_range(2):  # Gauss-Seidel: red places, then black ones
                if (i + j) % 2 == colour:
                    T[i, j] = (T[i - 1, j] + T[i + 1, j] + T[i, j - 1] + T[i, j + 1]) * 0.25
        return T
    return red_black


def _reference_red_black(x):
    n, m = x.shape
    rows, cols = np.indices(x.shape)
    t = x.astype(np.float64)
    for _ in range(2):
        for colour in range(2):
            mean = (t[_clamped(n, rows - 1), cols] + t[_clamped(n, rows + 1), cols] + t[rows, _clamped(m, cols - 1)]
                    + t[rows, _clamped(m, cols + 1)]) * 0.25
            place = (rows + cols) % 2 == colour
            t[place] = mean[place]
    return t


def test_both_branches_of_an_if_read_what_the_program_wrote_before(backend):
    x = np.random.default_rng(2).integers(0, 10, (13, 11)).astype(np.int32)
    np.testing.assert_array_equal(_two_branches()(x).numpy, _reference_two_branches(x))


@pytest.mark.parametrize("build, reference", [(_sweeps, _reference_sweeps), (_red_black, _reference_red_black)],
                         ids=["sweeps_in_place", "red_black"])
def test_loops_over_neighbours_read_the_sweep_before(backend, build, reference):
    """A sweep that updates a tensor from its neighbours in place reads, for every element,
    the neighbours of the sweep before (numpy's meaning, a Jacobi step); an ordered update
    (Gauss-Seidel) is written with a mask per colour."""
    x = _reals(np.random.default_rng(3), (12, 9))
    # a few sums of quarters scaled by 1/4: float32 rounding stays far below 1e-5 of |x| <= 10
    np.testing.assert_allclose(build()(x).numpy, reference(x), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("build, reference", [(_two_branches, _reference_two_branches),
                                              (_sweeps, _reference_sweeps), (_red_black, _reference_red_black)],
                         ids=["two_branches", "sweeps_in_place", "red_black"])
def test_item_2_programs_have_no_race_when_compiled(build, reference):
    tf.initialize(tf.interpreter)
    try:
        traced = build().traced
    finally:
        tf.initialize(tf.cpu)
    rng = np.random.default_rng(4)
    x = rng.integers(0, 10, (7, 8)).astype(np.int32) if build is _two_branches else _reals(rng, (7, 8))
    np.testing.assert_allclose(run_compiled(traced, [x], check_races=True)[0], reference(x), rtol=1e-5, atol=1e-5)


# -- no hazard: fusion as before -----------------------------------------------------------------------


def _kernel_count(function) -> int:
    compiled, _ = compile_program(trace(function))
    return sum(1 for n in compiled.walk() if n.op.name == "kernel")


def test_a_read_of_the_own_element_after_its_store_shares_the_kernel():
    def program():
        x = tf.input([-1, -1], tf.float32)
        T = x * 1.0
        i, j = T.indices
        T[i, j] = T[i, j] + 1.0
        with tf.loop(4):
            T.val = T * 0.5 + x
        return [T[i, j] * 2.0]
    assert _kernel_count(program) == 1


def test_a_loop_of_each_element_over_its_own_row_runs_in_one_kernel():
    """Each element i updates row i of T in a loop (reading the place its last trip wrote):
    no other element reaches that row, so the loop runs inside one kernel."""
    def program():
        x = tf.input([-1, -1], tf.float32)
        N, M = x.shape
        T = x * 1.0
        i, = tf.indices([N])
        with tf.loop(1, M) as k:
            T[i, k] = T[i, k] + T[i, k] * 0.5
        return [T]
    compiled, _ = compile_program(trace(program))
    assert not any(n.op.name == "loop" for n in compiled.root.nodes)  # no host loop of kernels
    x = _reals(np.random.default_rng(8), (5, 6))
    want = x.copy()
    want[:, 1:] *= 1.5
    np.testing.assert_array_equal(run_compiled(trace(program), [x])[0], want)


def test_slices_updated_in_place_stay_one_kernel():
    """``T[1:-1, 2:] += 1`` reads and writes through one index that a slice keeps inside the
    tensor: one kernel for the update (and one for ``T = x * 1``)."""
    def program():
        x = tf.input([-1, -1], tf.float32)
        T = x * 1.0
        T[1:-1, 2:] += 1.0
        return [T]
    assert _kernel_count(program) == 2
    x = _reals(np.random.default_rng(9), (6, 5))
    want = x.copy()
    want[1:-1, 2:] += 1
    np.testing.assert_array_equal(run_compiled(trace(program), [x])[0], want)


# -- the race check ----------------------------------------------------------------------------------------


def _fused_by_hand(function):
    """``function`` compiled, then the first two adjacent kernels of one grid where the
    second reads a buffer the first writes merged into one: the fusion a hazard forbids."""
    compiled, _ = compile_program(trace(function))
    nodes = compiled.root.nodes
    kernels = [k for k, n in enumerate(nodes) if n.op.name == "kernel"]
    for a, b in zip(kernels, kernels[1:]):
        first, second = nodes[a], nodes[b]
        written = {n.args[0] for n in first.subtree() if n.op.name == "store" or n.op.atomic}
        read = {n.args[0] for n in second.subtree() if n.op.name == "load"}
        between = nodes[a + 1:b]
        if written & read and shapes_equal(first.shape, second.shape) and \
                all(n.op.name in ("alloc", "free") for n in between):
            first.body.set_nodes(first.body.nodes + second.body.nodes)
            compiled.root.set_nodes(nodes[:a] + between + [first] + nodes[b + 1:])
            return compiled, first.contract.name
    raise AssertionError("no two kernels to fuse by hand")


@pytest.mark.parametrize("name", ["flip_copy", "scatter_then_read", "shift_in_place"])
def test_race_check_sees_a_kernel_where_elements_race(name):
    """Kernels fused by hand where one element reads what another writes: the interpreter
    without the check gives numpy's answer anyway (it runs every element of a kernel at
    once), the check names the kernel."""
    function, make_inputs, reference = CASES[name]
    arrays = make_inputs(np.random.default_rng(10))
    racy, kernel = _fused_by_hand(function)
    _check(interpret(clone_program(racy), arrays), reference(*arrays))
    with pytest.raises(tf.InternalError, match=rf"race in kernel '{kernel}': element \[.*\] (reads|writes|updates)"):
        interpret(racy, arrays, check_races=True)


def test_race_check_allows_what_numpy_allows():
    """Several elements storing to one place in one statement (numpy leaves one of the
    values), atomic adds to one place, and reads of places no one writes are no race."""
    def program():
        x = tf.input([-1], tf.float32)
        N = x.shape[0]
        i, = x.indices
        halves = tf.zeros([N])
        halves[i // 2] = x * 0.0 + 1.0
        total = tf.zeros([1])
        tf.scatterAdd(total[0], x[i] + x[N - 1 - i])
        return [halves, total]
    x = _reals(np.random.default_rng(11), 9)
    halves, total = run_compiled(trace(program), [x], check_races=True)
    np.testing.assert_array_equal(halves, np.where(np.arange(9) <= 4, 1.0, 0.0))
    np.testing.assert_array_equal(total, [2 * x.sum()])


def test_stores_of_a_loops_trips_at_one_place_leave_one_of_their_values(backend):
    """A loop whose trip k stores to element i + k runs in one kernel (like a scatter of a
    permutation, which must not become a loop of kernels): where two trips' stores meet,
    one of them is left, not necessarily the last trip's as in numpy; the race check says so."""
    def program():
        x = tf.input([-1], tf.float32)
        N = x.shape[0]
        T = tf.zeros([N])
        i, = T.indices
        with tf.loop(3) as k:
            T[(i + k) % N] = x + tf.float(k)
        return [T]
    x = _reals(np.random.default_rng(13), 50)
    got = tf.compile(program)(x).numpy
    n = np.arange(50)
    candidates = np.stack([x[(n - k) % 50] + k for k in range(3)])
    assert np.all(np.any(got == candidates, axis=0))
    with pytest.raises(tf.InternalError, match=r"race in kernel '.*': element \[\d+\] writes"):
        run_compiled(trace(program), [x], check_races=True)


def test_the_interpreter_device_checks_every_kernel_for_races():
    """``tf.interpreter`` runs compiled programs with the race check: a hazard program
    compiled for it runs (fusion left no race) and gives numpy's answer."""
    tf.initialize(tf.interpreter)
    try:
        x = _reals(np.random.default_rng(12), (8, 5))
        np.testing.assert_array_equal(tf.compile(flip_copy)(x).numpy, np.flip(x, 0))
    finally:
        tf.initialize(tf.cpu)
