"""Kernels' rows on the cpu backend's worker pool (pool.c ``tf_pool_parallel``): programs of
many kernels on grids below and above the parallel threshold, every way a grid's rows are
numbered as tasks (1-D chunks, outer axes of 2-D and 3-D grids, lane tiles of a matmul),
host loops and ifs that read device data between kernels, a failed check between kernels,
and calls from several threads at once."""

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import tensorfrost as tf

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHAPES = [(1, 1), (3, 5), (97, 131), (300, 700)]  # the last two run in pieces on the threads


@pytest.fixture(autouse=True)
def cpu():
    tf.initialize(tf.cpu)


def diffusion(steps):
    def program():
        u = tf.input([-1, -1], tf.float32)
        i, j = u.indices
        for s in range(steps):
            nearby = u[i - 1, j] + u[i + 1, j] if s % 2 else u[i, j - 1] + u[i, j + 1]
            u = u + 0.2 * (nearby - 2.0 * u)  # each step reads its neighbours: a kernel each
        return u
    return program


def diffusion_reference(u, steps):
    u = u.astype(np.float64)
    for s in range(steps):
        p = np.pad(u, 1, mode="edge")
        nearby = p[:-2, 1:-1] + p[2:, 1:-1] if s % 2 else p[1:-1, :-2] + p[1:-1, 2:]
        u = u + 0.2 * (nearby - 2.0 * u)
    return u


@pytest.mark.parametrize("shape", SHAPES)
def test_forty_kernels_on_small_and_large_grids(rng, shape):
    prog = tf.compile(diffusion(40))
    assert len(prog.get_kernels()) == 40
    u = rng.standard_normal(shape).astype(np.float32)
    np.testing.assert_allclose(prog(u).numpy, diffusion_reference(u, 40), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("n", [1, 4095, 4097, 100_003])
def test_one_dimensional_chunks(n):
    def program():
        x = tf.input([-1], tf.float32)
        i, = x.indices
        y = x[i - 1] + x[i + 1]
        return y[i + 1] * 2.0 + y
    x = np.arange(n, dtype=np.float32) % 7
    p = np.pad(x, 1, mode="edge")
    y = p[:-2] + p[2:]
    want = np.append(y[1:], y[-1]) * 2 + y
    np.testing.assert_allclose(tf.compile(program)(x).numpy, want, rtol=1e-6)


@pytest.mark.parametrize("shape", [(2, 3, 5), (7, 40, 130), (1, 300, 70)])
def test_three_dimensional_grids_number_their_rows_right(rng, shape):
    def program():
        u = tf.input([-1, -1, -1], tf.float32)
        i, j, k = u.indices
        v = u[i - 1, j, k] + u[i, j + 1, k] * 2.0 + tf.float(i * 10000 + j * 100)
        return v[i + 1, j - 1, k] - v
    u = rng.standard_normal(shape).astype(np.float32)
    p = np.pad(u, 1, mode="edge")
    i, j, _ = np.indices(shape)
    v = p[:-2, 1:-1, 1:-1] + p[1:-1, 2:, 1:-1] * 2 + (i * 10000 + j * 100)
    q = np.pad(v, 1, mode="edge")
    np.testing.assert_allclose(tf.compile(program)(u).numpy, q[2:, :-2, 1:-1] - v, rtol=1e-5, atol=1e-2)


@pytest.mark.parametrize("m, k, n", [(131, 67, 99), (2, 300, 513), (260, 5, 3)])
def test_matmul_lane_tiles_across_pieces(rng, m, k, n):
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)

    def program():
        return tf.matmul(tf.input([-1, -1], tf.float32), tf.input([-1, -1], tf.float32))
    np.testing.assert_allclose(tf.compile(program)(a, b).numpy, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def test_host_loop_and_if_read_device_data_between_kernels(rng):
    def program():
        steps = tf.input([1], tf.int32)
        u = tf.input([-1, -1], tf.float32)
        v = u * 1.0
        with tf.loop(steps[0]):
            i, j = v.indices
            v.val = v + 0.25 * (v[i, j + 1] - v)
            total = tf.sum(tf.sum(v, axis=1), axis=0)  # computed on the device, read by the host
            with tf.if_cond(total[0] > 100.0):
                v.val = v * 0.5
        return v
    prog = tf.compile(program)
    u = np.abs(rng.standard_normal((120, 333))).astype(np.float32)
    want = u.astype(np.float64)
    for _ in range(6):
        want = want + 0.25 * (np.append(want[:, 1:], want[:, -1:], axis=1) - want)
        if want.sum() > 100.0:
            want = want * 0.5
    np.testing.assert_allclose(prog(np.array([6], np.int32), u).numpy, want, rtol=1e-4)


def test_a_failed_check_between_kernels_names_the_line_and_the_process_goes_on(rng):
    def program():
        x = tf.input([-1, -1], tf.float32)
        i, j = x.indices
        y = x[i, j + 1] * 2.0 + x
        w = tf.input([-1], tf.float32)
        w = tf.assert_tensor(w, [y.shape[0]])  # checked after y's kernel ran
        return y[i + 1, j] + tf.unsqueeze(w, 1)
    prog = tf.compile(program)
    x = rng.standard_normal((200, 300)).astype(np.float32)
    with pytest.raises(tf.RuntimeCheckError) as info:
        prog(x, np.zeros(7, np.float32))
    assert "test_parallel_rows.py" in str(info.value)
    w = rng.standard_normal(200).astype(np.float32)
    y = np.append(x[:, 1:], x[:, -1:], axis=1) * 2 + x
    want = np.append(y[1:], y[-1:], axis=0) + w[:, None]
    np.testing.assert_allclose(prog(x, w).numpy, want, rtol=1e-5, atol=1e-5)
    u = rng.standard_normal((97, 131)).astype(np.float32)
    np.testing.assert_allclose(tf.compile(diffusion(3))(u).numpy, diffusion_reference(u, 3), rtol=1e-4, atol=1e-5)


def test_programs_called_from_several_threads_at_once(rng):
    """One program runs its rows on the workers at a time; the others run theirs on their
    own thread, with the same results."""
    prog = tf.compile(diffusion(12))
    inputs = [rng.standard_normal((150 + 10 * k, 260)).astype(np.float32) for k in range(4)]
    wants = [diffusion_reference(u, 12) for u in inputs]
    problems = []

    def work(u, want):
        try:
            for _ in range(15):
                np.testing.assert_allclose(prog(u).numpy, want, rtol=1e-4, atol=1e-5)
        except Exception as error:  # noqa: BLE001 - reported by the main thread
            problems.append(error)
    threads = [threading.Thread(target=work, args=pair) for pair in zip(inputs, wants)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not problems, problems[0]


def test_one_thread_runs_every_row_itself(tmp_path):
    script = ("import numpy as np, tensorfrost as tf\n"
              "tf.initialize(tf.cpu)\n"
              "x = np.arange(300 * 500, dtype=np.float32).reshape(300, 500)\n"
              "print(float(tf.compile(lambda: tf.input([-1, -1], tf.float32) * 2.0)(x).numpy.sum()))\n")
    env = dict(os.environ, OMP_NUM_THREADS="1", TENSORFROST_CACHE_DIR=str(tmp_path),
               PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert float(out.stdout.split()[-1]) == pytest.approx(float((np.arange(300 * 500, dtype=np.float64) * 2).sum()),
                                                          rel=1e-6)
