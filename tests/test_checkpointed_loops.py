"""Reverse mode with bounded memory: checkpointed loops (``tf.loop(..., checkpoint=k)`` and
``for t in tf.checkpointed(range(T), every=k)``), and tapes of only what the backward pass
reads (the ``dead_sets`` optimization).

A checkpointed loop must give the gradient of the same loop without checkpoints (the same
float32 operations in the same order: equal to rounding) and the central differences of a
float64 numpy reference (rtol 2e-3: float32 chains of tens of steps, as in
test_gradients_through_loops.py). Its memory is measured in a child process, as the growth
of the peak resident set over the run.
"""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from test_gradients_through_loops import central

import tensorfrost as tf
from tensorfrost.ir.ops import ALLOC

RTOL = 2e-3
N, T = 12, 23


def springs(checkpoint, begin=0, step=1, stop_at=None):
    """A pendulum per element (symplectic Euler), x and v carried; with ``stop_at`` an
    element leaves the loop (break) once its x passes it."""
    def program():
        x0, k = tf.input([N], tf.float32), tf.input([N], tf.float32)
        x = x0 * 1.0
        v = tf.zeros([N], tf.float32)
        with tf.loop(begin, begin + T * step, step, checkpoint=checkpoint) as t:
            v.val = v - 0.1 * k * tf.sin(x) + 0.001 * tf.float(t)
            x.val = x + 0.1 * v
            if stop_at is not None:
                with tf.if_cond(x > stop_at):
                    tf.break_loop()
        loss = x * x
        return tf.grad(loss, k), tf.grad(loss, x0)
    return program


def springs_reference(x0, k, begin=0, step=1, stop_at=None):
    x, v = np.array(x0, np.float64), np.zeros_like(x0, dtype=np.float64)
    going = np.ones(len(x), bool)
    for t in range(begin, begin + T * step, step):
        v = np.where(going, v - 0.1 * k * np.sin(x) + 0.001 * t, v)
        x = np.where(going, x + 0.1 * v, x)
        if stop_at is not None:
            going &= ~(x > stop_at)
    return x * x


X0 = np.linspace(-1.5, 1.7, N).astype(np.float32)
K = np.linspace(0.5, 2.0, N).astype(np.float32)


@pytest.mark.parametrize("every", [2, 5, 23, 40])
@pytest.mark.parametrize("bounds", [(0, 1, None), (3, 2, None), (0, 1, 1.0)], ids=["plain", "offset_step", "break"])
def test_a_checkpointed_loop_gives_the_full_tapes_gradient(backend, every, bounds):
    begin, step, stop_at = bounds
    full = tf.compile(springs(None, begin, step, stop_at))(X0, K)
    got = tf.compile(springs(every, begin, step, stop_at))(X0, K)
    for g, w in zip(got, full):
        np.testing.assert_allclose(g.numpy, w.numpy, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[0].numpy, central(lambda k: springs_reference(X0, k, begin, step, stop_at), K),
                               rtol=RTOL, atol=RTOL * 5)
    np.testing.assert_allclose(got[1].numpy, central(lambda x: springs_reference(x, K, begin, step, stop_at), X0),
                               rtol=RTOL, atol=RTOL * 5)


def _kernel_program(every):
    @tf.kernel_program
    def program(x0: tf.Arg([-1], tf.float32), k: tf.Arg([-1], tf.float32), steps: tf.Arg([], tf.int32)):
        x = x0 * 1.0
        v = x0 * 0.0
        for _t in tf.checkpointed(range(steps), every=every):
            if x > 1.2:
                continue  # an element past 1.2 stays there
            v = v - 0.1 * k * tf.sin(x)
            x = x + 0.1 * v
        return tf.grad(tf.sum(x * x), k)
    return program


def test_a_kernel_program_for_over_checkpointed_range(backend):
    def reference(k):
        x, v = np.float64(X0), np.zeros(N)
        for _ in range(T):
            moving = ~(x > 1.2)
            v = np.where(moving, v - 0.1 * k * np.sin(x), v)
            x = np.where(moving, x + 0.1 * v, x)
        return x * x
    full = _kernel_program(1)(X0, K, np.int32(T)).numpy
    for every in (4, 23, 100):
        got = _kernel_program(every)(X0, K, np.int32(T)).numpy
        np.testing.assert_allclose(got, full, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(full, central(reference, K), rtol=RTOL, atol=RTOL * 5)


def test_checkpointed_outside_a_program_loop_is_the_iterable_and_bad_counts_are_refused():
    assert tf.checkpointed([1, 2], every=3) == [1, 2]  # a Python loop: nothing to checkpoint
    for bad in (0, -2, 2.5, True, "4"):
        with pytest.raises(tf.TraceError, match=r"tf.checkpointed: every must be a positive int"):
            tf.checkpointed(range(4), every=bad)

    def program():
        x = tf.input([4], tf.float32)
        with tf.loop(4, checkpoint=0):
            x.val = x + 1.0
        return x
    with pytest.raises(tf.TraceError, match=r"tf.loop: checkpoint must be a positive int .* got 0") as error:
        tf.compile(program)
    assert os.path.basename(__file__) in str(error.value)


# -- tapes of what the backward reads ------------------------------------------------------------

def _tape_rows(program) -> list:
    """The [T, N] allocations of a compiled program (the tapes of the loop's variables)."""
    return [n for n in program.program.walk() if n.op is ALLOC and len(n.shape) == 2]


def test_reverse_mode_tapes_only_the_state_its_backward_reads(backend):
    """x and v are carried; the backward reads x (through sin) but never v (it enters only
    linearly): one tape, as jax keeps, and the same gradient as with both taped."""
    tf.optimizations.reset_counts()
    pruned = tf.compile(springs(None))
    assert tf.optimizations.counts()["dead_sets"] > 0
    with tf.optimizations.disabled("dead_sets"):
        both = tf.compile(springs(None))
    assert len(_tape_rows(pruned)) == 1 and len(_tape_rows(both)) == 2
    for g, w in zip(pruned(X0, K), both(X0, K)):
        np.testing.assert_array_equal(g.numpy, w.numpy)


def test_an_update_nothing_reads_is_dropped_and_results_stay(backend):
    """Kernel programs as written: a variable overwritten before it is read, one set in a
    loop and read in the next trip (kept), one set in a branch and read after it (kept)."""
    @tf.kernel_program
    def program(a: tf.Arg([-1], tf.float32)):
        s = a * 2.0
        s = a + 1.0  # the first value is never read
        acc = a * 0.0
        for i in range(3):
            acc = acc + s * i
        if a > 0.0:
            s = s * 3.0
        return s + acc
    a = np.array([-1.0, 0.5, 2.0], np.float32)
    s = np.where(a > 0, (a + 1) * 3, a + 1)
    np.testing.assert_array_equal(program(a).numpy, s + (a + 1) * 3)


# -- memory at scale --------------------------------------------------------------------------

CHILD = textwrap.dedent("""
    import sys
    import numpy as np
    import tensorfrost as tf
    N, T, every = 100_000, 10_000, 100

    def program():
        u0 = tf.input([N], tf.float32)
        u = u0 * 1.0
        i = tf.indices([N])[0]
        with tf.loop(T, checkpoint=every):  # a nonlinear heat equation: the backward reads u
            u.val = u + 0.2 * (u[tf.max(i - 1, 0)] + u[tf.min(i + 1, N - 1)] - 2.0 * u) - 0.01 * u * u * u
        return tf.grad(tf.sum(u * u), u0)

    def status(key):
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith(key))
    prog = tf.compile(program)
    u0 = np.random.default_rng(0).uniform(-1, 1, N).astype(np.float32)
    before = status("VmRSS")
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # the peak resident set starts again from now
    g = prog(u0).numpy
    print(status("VmHWM") - before, T * N * 4, float(np.abs(g).max()), int(np.isfinite(g).all()))
""")


def test_a_long_simulation_with_checkpoints_keeps_a_small_fraction_of_the_tape():
    """10^5 elements over 10^4 steps: the full tape is 4 GB (T x N float32); with
    checkpoint=100 the run grows the resident set by under 5% of that."""
    result = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=600,
                            env={**os.environ, "TENSORFROST_DISABLE": ""})
    assert result.returncode == 0, result.stderr[-3000:]
    grown, full_tape, largest, finite = result.stdout.split()
    assert int(finite) and float(largest) > 0
    grown_mib, tape_mib = int(grown) / 2**20, int(full_tape) / 2**20
    assert int(grown) < 0.05 * int(full_tape), f"grew {grown_mib:.0f} MiB of a {tape_mib:.0f} MiB tape"
