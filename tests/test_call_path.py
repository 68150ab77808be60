"""The per-call path of a compiled program: after a call has taken the fast path (tensors
checked by type, numpy arrays read in place, outputs placed in the storage of earlier outputs
no tensor holds any more), every argument that differs still gets the checked path and its
error, and no output is ever written over while something can still read it."""

import gc
import threading
import weakref

import numpy as np
import pytest

import tensorfrost as tf
from tensorfrost.ir.errors import ArgumentError, TensorFrostError


def _add_one():
    x = tf.input([-1], tf.float32)
    return x + 1.0


def _two_inputs():
    a = tf.input([-1, -1], tf.float32)
    b = tf.input([-1, -1], tf.float32)
    return [a * 2.0 + b, a - b]


def _two_dtypes():
    x = tf.input([-1], tf.float32)
    return [x + 1.0, tf.int(x) * 2]


def _twice():
    x = tf.input([-1], tf.float32)
    y = x * 2.0
    return [y, y]


def _identity():
    x = tf.input([-1], tf.float32)
    return [x, x * 3.0]


@pytest.fixture
def cpu():
    tf.initialize(tf.cpu)
    yield


def test_bad_arguments_after_cached_calls_get_the_checked_errors(cpu):
    prog = tf.compile(_add_one)
    x = tf.tensor(np.arange(4, dtype=np.float32))
    for _ in range(3):
        np.testing.assert_array_equal(prog(x).numpy, np.arange(4) + 1)
    with pytest.raises(ArgumentError, match=r"argument 0 \('x'\).*expected tf.float32, got a tf.int32 tensor"):
        prog(tf.tensor(np.arange(4, dtype=np.int32)))
    with pytest.raises(ArgumentError, match=r"argument 0 \('x'\).*rank 1, got rank 2"):
        prog(tf.tensor(np.zeros((2, 2), np.float32)))
    with pytest.raises(ArgumentError, match=r"argument 0 \('x'\).*rank 1, got rank 2"):
        prog(np.zeros((2, 2), np.float32))
    with pytest.raises(ArgumentError, match=r"argument 0 \('x'\).*numeric array.*complex64"):
        prog(np.zeros(3, np.complex64))
    with pytest.raises(ArgumentError, match="takes 1 input"):
        prog(x, x)
    np.testing.assert_array_equal(prog(x).numpy, np.arange(4) + 1)  # and the fast path still works


def test_numpy_arguments_of_any_layout_give_numpy_answers(cpu):
    prog = tf.compile(_two_inputs)
    rng = np.random.default_rng(0)
    a, b = rng.random((6, 8), np.float32), rng.random((6, 8), np.float32)
    layouts = [(a, b), (a[::2, ::2], b[::2, ::2]), (np.asfortranarray(a), b), (a.astype(np.float64), b),
               (a.T, b.T), (a.astype(np.float16), b), (a[:, 1:], b[:, 1:]), (a.astype(">f4"), b),
               (a, b.astype(np.int32)), (a, b)]
    for u, v in layouts:
        first, second = prog(u, v)
        np.testing.assert_allclose(first.numpy, u * 2 + v, rtol=1e-6)
        np.testing.assert_allclose(second.numpy, u - v, rtol=1e-6)
    unaligned = np.frombuffer(np.zeros(6 * 8 * 4 + 1, np.uint8)[1:].tobytes(), np.float32).reshape(6, 8)
    assert prog(unaligned, b)[1].numpy.tolist() == (-b).tolist()


def test_a_shared_numpy_input_is_not_what_an_output_returns(cpu):
    prog = tf.compile(_identity)
    x = np.arange(3, dtype=np.float32)
    same, triple = prog(x)
    x[:] = 7.0  # the output that is the input itself was copied; nothing else reads x afterwards
    np.testing.assert_array_equal(same.numpy, [0, 1, 2])
    np.testing.assert_array_equal(triple.numpy, [0, 3, 6])
    tensor = tf.tensor(x)
    same, triple = prog(tensor)
    assert same is tensor
    np.testing.assert_array_equal(triple.numpy, [21, 21, 21])
    first, second = tf.compile(_twice)(tensor)
    assert first is second
    np.testing.assert_array_equal(first.numpy, [14, 14, 14])


def test_held_outputs_are_never_written_over(cpu):
    prog = tf.compile(_add_one)
    outputs = [prog(np.full(5, k, np.float32)) for k in range(8)]
    views = []
    for k in range(8):  # a numpy view over an output's memory holds it as well as the tensor
        views.append(np.from_dlpack(prog(np.full(5, 10 + k, np.float32))))
    storage = prog(np.zeros(5, np.float32)).storage  # ... as does its storage alone
    for k in range(20):
        prog(np.full(5, 100 + k, np.float32))
    for k, out in enumerate(outputs):
        np.testing.assert_array_equal(out.numpy, np.full(5, k + 1))
    for k, view in enumerate(views):
        np.testing.assert_array_equal(view, np.full(5, 11 + k))
    assert storage is not None


def test_changing_shapes_and_freed_inputs(cpu):
    prog = tf.compile(_add_one)
    for n in [1, 5, 5, 3, 4096, 3, 1]:
        x = tf.tensor(np.arange(n, dtype=np.float32))
        np.testing.assert_array_equal(prog(x).numpy, np.arange(n) + 1)
        del x
        gc.collect()
        y = tf.tensor(np.full(n, 2.0, np.float32))  # may land where x was
        np.testing.assert_array_equal(prog(y).numpy, np.full(n, 3.0))
    out = prog(prog(prog(np.ones(4, np.float32))))  # outputs fed back as inputs
    np.testing.assert_array_equal(out.numpy, np.full(4, 4.0))


def test_a_failed_run_leaves_the_program_usable(cpu):
    prog = tf.compile(_two_inputs)
    ok = np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(prog(ok, ok)[0].numpy, np.full((2, 3), 3.0))
    with pytest.raises(TensorFrostError, match=r"shape\[0\] is 3 but must equal .*shape\[0\], which is 2"):
        prog(ok, np.ones((3, 3), np.float32))
    with pytest.raises(TensorFrostError, match=r"shape\[0\] is 3 but must equal .*shape\[0\], which is 2"):
        prog(tf.tensor(ok), tf.tensor(np.ones((3, 3), np.float32)))
    np.testing.assert_array_equal(prog(ok, ok)[0].numpy, np.full((2, 3), 3.0))


def test_threads_calling_one_program(cpu):
    prog = tf.compile(_add_one)
    errors = []

    def work(k):
        for j in range(200):
            value = float(k * 1000 + j)
            array = np.full(7, value, np.float32)
            out = prog([array, tf.tensor(array), array.astype(np.float64)][j % 3])  # the last: the checked path
            if not np.array_equal(out.numpy, np.full(7, value + 1)):
                errors.append((k, j))
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_spare_outputs_go_back_to_the_pool_with_the_program(cpu):
    prog = tf.compile(_add_one)
    x = tf.tensor(np.zeros(1 << 16, np.float32))
    for _ in range(4):
        prog(x)
    before = tf.allocated_memory() - tf.unused_allocated_memory()
    del prog
    gc.collect()
    assert tf.allocated_memory() - tf.unused_allocated_memory() < before


def test_outputs_dropped_in_any_order_keep_their_values_and_dtypes(cpu):
    prog = tf.compile(_two_dtypes)  # outputs of one size: either may land in the other's old storage
    kept = []
    for k in range(12):
        first, second = prog(np.full(3, k, np.float32))
        assert (first.dtype, second.dtype) == (tf.float32, tf.int32)
        np.testing.assert_array_equal(first.numpy, np.full(3, k + 1.0))
        np.testing.assert_array_equal(second.numpy, np.full(3, 2 * k))
        kept.append(first if k % 3 else second)  # drop one, the other, or both
    for k, out in enumerate(kept):
        np.testing.assert_array_equal(out.numpy, np.full(3, k + 1.0) if k % 3 else np.full(3, 2 * k))


def test_an_output_seen_through_a_weak_reference_is_not_reused(cpu):
    prog = tf.compile(_add_one)
    seen = weakref.WeakSet()
    for k in range(6):
        seen.add(prog(np.full(2, k, np.float32)))
    for k in range(20):
        np.testing.assert_array_equal(prog(np.full(2, 100 + k, np.float32)).numpy, np.full(2, 101 + k))
    for out in list(seen):  # those still alive have the values they were returned with
        assert out.numpy[0] < 10 and out.numpy[0] == out.numpy[1]


def test_the_python_call_path_without_the_extension(cpu, monkeypatch):
    from tensorfrost.backend_cpu.runtime import pool
    monkeypatch.setattr(pool(), "fast_call", None)  # as where Python's headers are missing
    prog = tf.compile(_two_inputs)
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    for _ in range(3):
        first, second = prog(a, tf.tensor(a))
        np.testing.assert_array_equal(first.numpy, a * 3)
        np.testing.assert_array_equal(second.numpy, np.zeros((2, 3)))
    with pytest.raises(TensorFrostError):
        prog(a, np.ones((3, 3), np.float32))


def _skip_without_python_headers():
    """The extension needs Python.h (a system resource: Debian's python3-dev, pyenv's builds
    have it); without it the Python path serves every call."""
    import os
    import sysconfig
    header = os.path.join(sysconfig.get_paths()["include"], "Python.h")
    if not os.path.isfile(header):
        pytest.skip(f"no Python headers ({header} is missing): the extension cannot be built")


def test_the_extension_is_used_where_python_headers_exist(cpu):
    from tensorfrost.backend_cpu.runtime import pool
    _skip_without_python_headers()
    assert pool().fast_call is not None
    assert tf.compile(_add_one).executable.native is not None


def test_a_storage_layout_the_extension_cannot_read_leaves_the_python_path(cpu, monkeypatch):
    from tensorfrost.backend_cpu import runtime
    _skip_without_python_headers()  # with them, a build that failed fails here, not skips
    assert runtime.pool().fast_call is not None
    real = runtime._storage_samples()
    monkeypatch.setattr(runtime, "_storage_samples", lambda: ((real[0][0], real[0][1] + 64),))
    prog = tf.compile(_add_one)
    assert prog.executable.native is None  # as if cffi kept a pointer's address elsewhere
    np.testing.assert_array_equal(prog(tf.tensor(np.ones(3, np.float32))).numpy, np.full(3, 2.0))


def test_a_programs_fast_call_outlives_the_program(cpu):
    prog = tf.compile(_add_one)
    call = prog.executable.call_fast
    del prog
    gc.collect()
    for _ in range(3):
        np.testing.assert_array_equal(call((np.ones(3, np.float32),))[0].numpy, np.full(3, 2.0))
