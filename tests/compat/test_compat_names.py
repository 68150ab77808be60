"""Upstream TensorFrost's helper names, used the way its programs use them, against numpy."""

import numpy as np
import pytest

import tensorfrost as tf


def test_enums_and_types_spell_upstreams_names():
    assert tf.float32.type == tf.TFType.float and tf.int32.type == tf.TFType.int
    assert tf.uint32.type == tf.TFType.uint and tf.bool1.type == tf.TFType.bool
    assert tf.float32.size == 32
    assert tf.BackendType.cpu is tf.cpu and tf.BackendType.opengl is tf.opengl
    assert tf.CodeGenLang.glsl is tf.glsl_lang and tf.CodeGenLang.cpp is tf.cpp_lang
    tf.initialize(tf.BackendType.cpu)
    assert tf.current_backend() is tf.cpu
    assert tf.tensor(np.zeros(3, np.int32)).type == tf.int32


def test_like_constructors_eye_and_copy(backend, rng):
    def program():
        x = tf.input([-1, -1], tf.float32)
        n = x.shape[0]
        zeros = tf.zeros_like(x) + 3.0  # upstream writes tf.zeros(x.shape, x.type)
        typed = tf.zeros(x.shape, x.type)
        return [zeros, tf.ones_like(x), typed, tf.eye(n), tf.eye_like(x), tf.get_copy(x) * 2.0]
    a = rng.standard_normal((4, 3)).astype(np.float32)
    zeros, ones, typed, eye, eye_like, doubled = (t.numpy for t in tf.compile(program)(a))
    np.testing.assert_array_equal(zeros, np.full((4, 3), 3.0, np.float32))
    np.testing.assert_array_equal(ones, np.ones((4, 3), np.float32))
    np.testing.assert_array_equal(typed, np.zeros((4, 3), np.float32))
    np.testing.assert_array_equal(eye, np.eye(4, dtype=np.float32))
    np.testing.assert_array_equal(eye_like, np.eye(4, dtype=np.float32))
    np.testing.assert_array_equal(doubled, 2 * a)


def test_flat_indices_round_trip_like_ravel_multi_index(backend):
    def program():
        x = tf.input([-1, -1, -1], tf.int32)
        flat = tf.element_index(x.shape)
        i, j, k = tf.indices_from_flat_index(flat, x.shape)
        again = tf.flat_index(x.shape, [i, j, k])
        return [flat, i, j, k, again]
    shape = (3, 5, 2)
    flat, i, j, k, again = (t.numpy for t in tf.compile(program)(np.zeros(shape, np.int32)))
    expected = np.arange(np.prod(shape)).reshape(shape)
    np.testing.assert_array_equal(flat, expected)
    for got, want in zip((i, j, k), np.unravel_index(expected, shape)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(again, expected)


def _pcg(v):
    """PCG's output permutation, as upstream's tf.pcg, in numpy uint32 arithmetic."""
    v = v.astype(np.uint64)
    state = (v * 747796405 + 2891336453) & 0xFFFFFFFF
    word = (((state >> ((state >> 28) + 4)) ^ state) * 277803737) & 0xFFFFFFFF
    return ((word >> 22) ^ word).astype(np.uint32)


def test_hash_and_random_value_follow_upstreams_formula(backend):
    def program():
        x = tf.input([-1, -1], tf.float32)
        return [tf.hash(x.shape, 7), tf.random_value(x.shape, 7)]
    hashed, value = (t.numpy for t in tf.compile(program)(np.zeros((5, 7), np.float32)))
    index = np.arange(35, dtype=np.uint64).reshape(5, 7)
    expected = _pcg((index + 7 * 2654435761) & 0xFFFFFFFF)
    np.testing.assert_array_equal(hashed, expected)
    assert value.dtype == np.float32 and (value >= 0).all() and (value < 1).all()
    assert len(np.unique(value)) == value.size  # 35 draws of a good 32-bit hash do not collide


def test_modf_is_the_remainder_with_the_divisors_sign(backend):
    def program():
        x = tf.input([-1], tf.float32)
        return [tf.modf(x, 1.5), tf.modf(x, -1.5)]
    a = np.array([-4.0, -1.5, -0.25, 0.0, 0.7, 3.0, 5.2], np.float32)
    positive, negative = (t.numpy for t in tf.compile(program)(a))
    # x - y * floor(x / y) in float32: a few ulps of |x| from numpy's exact remainder
    np.testing.assert_allclose(positive, np.mod(a, 1.5), atol=1e-6)
    np.testing.assert_allclose(negative, np.mod(a, -1.5), atol=1e-6)


def test_assert_value_stops_a_call_and_the_program_stays_usable(backend):
    def program():
        x = tf.input([-1, -1], tf.float32)
        tf.assert_value("x is finite", x == x)
        return [x * 2.0]
    step = tf.compile(program)
    ok = np.ones((3, 4), np.float32)
    np.testing.assert_array_equal(step(ok).numpy, 2 * ok)
    bad = ok.copy()
    bad[1, 2] = np.nan
    with pytest.raises(tf.RuntimeCheckError, match=r"'x is finite' is false(.|\n)*test_compat_names.py"):
        step(bad)
    np.testing.assert_array_equal(step(ok[:2]).numpy, 2 * ok[:2])


def test_tensor_methods_upstream_calls(backend):
    def program():
        x = tf.input([-1], tf.float32)
        k = tf.const(3.0)
        assert k.try_get_constant() == 3.0
        with pytest.raises(tf.TraceError, match="not a constant"):
            x.try_get_constant()
        y = (x * k).set_debug_name("scaled")
        y.hint_range(-10.0, 10.0)
        return [y.stop_fusion() + 1.0]
    step = tf.compile(program)
    a = np.array([1.0, -2.0], np.float32)
    np.testing.assert_array_equal(step(a).numpy, 3 * a + 1)
    assert "scaled" in step.list_operations()
    assert step.get_last_execution_time() > 0.0


def test_allocated_memory_counts_tensors_and_the_reuse_pool(backend):
    import gc
    gc.collect()
    before, unused_before = tf.allocated_memory(), tf.unused_allocated_memory()
    t = tf.tensor(np.zeros(1 << 20, np.float32))  # 4 MiB
    assert tf.allocated_memory() - before >= 4 << 20
    del t
    gc.collect()
    # both backends keep a released buffer for the next tensor of its size
    assert tf.unused_allocated_memory() - unused_before >= 4 << 20
    assert tf.allocated_memory() >= before + (4 << 20)
    kept = tf.unused_allocated_memory()
    x = tf.tensor(np.ones(1 << 20, np.float32))
    out = tf.compile(lambda: tf.input([-1], tf.float32) + 1.0)(x)  # its output takes the kept buffer
    assert tf.unused_allocated_memory() <= kept - (4 << 20)
    np.testing.assert_array_equal(out.numpy[:3], [2.0, 2.0, 2.0])


def test_cpp_header_and_implementation_are_upstreams_pair(tmp_path):
    """Upstream's engines paste header + implementation into one file: it must compile."""
    import shutil
    import subprocess
    source = tmp_path / "api.cpp"
    source.write_text("#include <cstdint>\n#include <cstring>\n" + tf.get_cpp_header() + tf.get_cpp_implementation())
    compiler = shutil.which("g++")
    if compiler is None:
        pytest.skip("no g++ (the cpu backend needs it: apt-get install g++)")
    result = subprocess.run([compiler, "-std=c++17", "-fsyntax-only", str(source)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]


def test_scatter_add_prev_compacts_in_order_and_counts(backend):
    """Upstream's fetch-and-add, deterministic here: as if the elements added in row-major order."""
    def compact():
        x = tf.input([-1], tf.float32)
        count = tf.zeros([1], tf.int32)
        keep = x > 0.0
        slot = tf.scatterAddPrev(count[0], tf.int(keep))
        out = tf.zeros(x.shape, tf.float32) - 1.0
        i, = x.indices
        with tf.if_cond(keep):
            out[slot] = x[i]
        return out, count, slot

    def histogram():
        b = tf.input([-1, -1], tf.int32)
        h = tf.zeros([5], tf.float32) + 10.0
        previous = tf.scatterAddPrev(h[b], 1.5)
        return h, previous
    x = np.array([3, -1, 2, 0, 5, -2, 7, 1], np.float32)
    out, count, slot = (t.numpy for t in tf.compile(compact)(x))
    kept = x[x > 0]
    np.testing.assert_array_equal(out, np.concatenate([kept, -np.ones(x.size - kept.size, np.float32)]))
    np.testing.assert_array_equal(count, [kept.size])
    np.testing.assert_array_equal(slot, np.cumsum(x > 0) - (x > 0))
    b = np.array([[1, 3, 1], [4, 1, 3]], np.int32)
    h, previous = (t.numpy for t in tf.compile(histogram)(b))
    want_h, want_previous = np.full(5, 10.0, np.float32), np.zeros(b.shape, np.float32)
    for k, place in enumerate(b.ravel()):  # the serial loop it must equal
        want_previous.flat[k] = want_h[place]
        want_h[place] += 1.5
    np.testing.assert_array_equal(h, want_h)
    np.testing.assert_array_equal(previous, want_previous)


def test_print_value_prints_after_each_run_and_is_not_an_output(backend, capsys):
    def program():
        x = tf.input([-1], tf.float32)
        tf.print_value("sum", tf.sum(x))
        tf.print_value("doubled", x * 2.0)
        return [x + 1.0]
    step = tf.compile(program)
    result = step(np.array([1.0, 2.0, 3.0], np.float32))
    np.testing.assert_array_equal(result.numpy, [2.0, 3.0, 4.0])  # the program's one output, alone
    assert capsys.readouterr().out.splitlines() == ["sum: 6.0", "doubled: [2. 4. 6.]"]

    def inside_a_loop():
        x = tf.input([-1], tf.float32)
        with tf.loop(3):
            tf.print_value("x", x)
        return [x]
    with pytest.raises(tf.TraceError, match="print_value must be called at the top level"):
        tf.compile(inside_a_loop)


def test_a_check_message_keeps_the_users_text_on_every_backend(backend):
    """Braces, quotes and backslashes in an assert_value name reach the error as written
    (the C++ host's formatter now reads Python's {{ }} escapes, as the others do)."""
    name = 'ratio {0} "x"\\'

    def program():
        x = tf.input([-1], tf.float32)
        tf.assert_value(name, x > 0.0)
        return [x]
    with pytest.raises(tf.RuntimeCheckError) as caught:
        tf.compile(program)(np.array([-1.0], np.float32))
    assert f"tf.assert_value: '{name}' is false" in str(caught.value)
