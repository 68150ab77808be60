"""Calling programs the way upstream TensorFrost programs do: one-element results, list
inputs, ``tf.if_cond`` with functions, and DLPack with numpy and torch."""

import gc

import numpy as np
import pytest
from conftest import DlpackProducer

import tensorfrost as tf


def _matmul():
    A = tf.input([-1, -1], tf.float32)
    B = tf.input([A.shape[1], -1], tf.float32)
    return [tf.matmul(A, B)]


def test_a_one_element_list_returns_the_tensor_which_also_unpacks(backend, rng):
    matmul = tf.compile(_matmul)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    b = rng.standard_normal((4, 2)).astype(np.float32)
    C = matmul(a, b)  # upstream 0.7: C.numpy
    np.testing.assert_allclose(C.numpy, a @ b, rtol=1e-5, atol=1e-5)  # 4-term float32 dot products
    assert isinstance(C, tf.TensorMemory) and C.shape == (3, 2) and C.type == tf.float32
    C, = matmul(tf.tensor(a), tf.tensor(b))  # the 0.6 README: C, = matmul(A, B)
    np.testing.assert_allclose(C.numpy, a @ b, rtol=1e-5, atol=1e-5)
    D = matmul(C, np.eye(2, dtype=np.float32))  # an output is an input of the next call
    np.testing.assert_allclose(D.numpy, a @ b, rtol=1e-5, atol=1e-5)


def test_tuples_and_several_outputs_keep_python_conventions(backend):
    def pair():
        x = tf.input([-1], tf.float32)
        return x + 1.0, x * 2.0

    def one_tuple():
        x = tf.input([-1], tf.float32)
        return (x + 1.0,)

    def bare():
        x = tf.input([-1], tf.float32)
        return x + 1.0
    a = np.array([1.0, 2.0], np.float32)
    first, second = tf.compile(pair)(a)
    np.testing.assert_array_equal(second.numpy, 2 * a)
    result = tf.compile(one_tuple)(a)
    assert type(result) is tuple and len(result) == 1
    np.testing.assert_array_equal(tf.compile(bare)(a).numpy, a + 1)


def test_python_lists_are_accepted_as_inputs(backend):
    matmul = tf.compile(_matmul)
    C = matmul([[1.0, 2.0], [3.0, 4.0]], [[1.0], [1.0]])
    np.testing.assert_array_equal(C.numpy, [[3.0], [7.0]])


def test_if_cond_with_functions_takes_one_branch_per_element(backend):
    def program():
        x = tf.input([-1], tf.float32)
        y = tf.copy(x)

        def negate():
            y.val = -y  # flips the sign the condition saw: the else branch must not run after it

        def shift():
            y.val = y + 100.0
        tf.if_cond(y > 0.0, negate, shift)
        z = tf.copy(x)

        def double():
            z.val = z * 2.0
        tf.if_cond(x < 0.0, double)
        return [y, z]
    a = np.array([1.0, -2.0, 3.0, 0.0], np.float32)
    y, z = (t.numpy for t in tf.compile(program)(a))
    np.testing.assert_array_equal(y, np.where(a > 0, -a, a + 100))
    np.testing.assert_array_equal(z, np.where(a < 0, 2 * a, a))


def test_if_cond_function_form_in_a_host_loop(backend):
    """Upstream's sphere tracers: a data-dependent exit inside a loop, written with functions."""
    def program():
        x = tf.input([-1], tf.float32)
        steps = tf.zeros(x.shape, tf.int32)
        value = tf.copy(x)

        def body(k):
            tf.if_cond(value > 10.0, tf.break_loop)
            value.val = value * 2.0
            steps.val = steps + 1
        tf.loop(0, 20, 1, body)
        return [value, steps]
    a = np.array([0.5, 3.0, 11.0, 0.01], np.float32)
    value, steps = (t.numpy for t in tf.compile(program)(a))
    want_value, want_steps = a.copy(), np.zeros(a.size, np.int32)
    for n in range(a.size):  # the same loop in plain Python, in float32
        for _ in range(20):
            if want_value[n] > 10.0:
                break
            want_value[n] *= np.float32(2.0)
            want_steps[n] += 1
    np.testing.assert_array_equal(value, want_value)
    np.testing.assert_array_equal(steps, want_steps)


def test_if_cond_rejects_what_is_not_a_function():
    def program():
        x = tf.input([-1], tf.float32)
        tf.if_cond(x > 0.0, x)
        return [x]
    with pytest.raises(tf.TraceError, match="true_body must be a function of no arguments, got Tensor"):
        tf.compile(program)


def _doubled():
    x = tf.input([-1], tf.float32)
    return [x * 2.0]


def test_dlpack_shares_memory_with_numpy_both_ways():
    tf.initialize(tf.cpu)
    t = tf.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    view = np.from_dlpack(t)
    view[0, 0] = 42.0  # a write through numpy shows in the tensor
    assert t.numpy[0, 0] == 42.0
    source = np.arange(4, dtype=np.int32)
    shared = tf.from_dlpack(source)
    source[1] = -5  # and a write to the producer shows too
    np.testing.assert_array_equal(shared.numpy, [0, -5, 2, 3])
    out = tf.compile(_doubled)(tf.from_dlpack(np.ones(3, np.float32)))
    kept = np.from_dlpack(out)
    del out
    gc.collect()
    [tf.tensor(np.full(3, 7.0, np.float32)) for _ in range(20)]  # would reuse a freed buffer
    np.testing.assert_array_equal(kept, [2.0, 2.0, 2.0])


def test_dlpack_copies_where_the_layout_does_not_fit():
    tf.initialize(tf.cpu)
    strided = np.arange(10, dtype=np.float32)[::2]
    copied = tf.from_dlpack(strided)
    strided[0] = 99.0
    np.testing.assert_array_equal(copied.numpy, [0, 2, 4, 6, 8])
    np.testing.assert_array_equal(tf.from_dlpack(np.arange(3, dtype=np.float64)).numpy, [0, 1, 2])
    flags = tf.tensor(np.array([True, False]))  # (stored as 32-bit words: exported as a copy of bools)
    exported = np.from_dlpack(flags)
    np.testing.assert_array_equal(exported, [True, False])
    exported[1] = True
    np.testing.assert_array_equal(flags.numpy, [True, False])
    with pytest.raises(tf.ArgumentError, match="expected a DLPack producer"):
        tf.from_dlpack(object())


def test_dlpack_shares_and_keeps_the_memory_alive():
    tf.initialize(tf.cpu)
    array = np.arange(8, dtype=np.float32)
    source = DlpackProducer(array)
    t = tf.tensor(source)  # a DLPack producer is shared, not copied
    array[3] = -7.0
    assert t.numpy[3] == -7.0
    del source, array
    gc.collect()
    [np.arange(8, dtype=np.float32) + k for k in range(20)]  # memory a freed array would have given back
    doubled = np.from_dlpack(tf.compile(_doubled)(t))
    gc.collect()
    [tf.tensor(np.zeros(8, np.float32)) for _ in range(20)]
    np.testing.assert_array_equal(doubled, 2 * np.array([0, 1, 2, -7, 4, 5, 6, 7], np.float32))
    doubled[0] = 5.0
    np.testing.assert_array_equal(t.numpy[:2], [0.0, 1.0])  # the program wrote a new buffer


def test_dlpack_of_an_opengl_tensor_is_a_copy():
    from conftest import gl_unavailable_reason
    reason = gl_unavailable_reason()
    if reason is not None:
        pytest.skip(f"no OpenGL 4.3 context: {reason}")
    tf.initialize(tf.opengl)
    try:
        on_gpu = tf.tensor(np.ones(3, np.float32))
        exported = np.from_dlpack(on_gpu)  # (a GPU buffer: exported as a copy in host memory)
        exported[0] = 5.0
        np.testing.assert_array_equal(on_gpu.numpy, [1, 1, 1])
        np.testing.assert_array_equal(tf.from_dlpack(np.ones(3, np.float32)).numpy, [1, 1, 1])
    finally:
        tf.initialize(tf.cpu)
