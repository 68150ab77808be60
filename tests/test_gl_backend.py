"""The OpenGL backend: dispatch folding, buffers bound in parts, kernel splitting, shader
errors and caching, debug regions, and random programs on the interpreter, CPU and GL."""

import numpy as np
import pytest
from conftest import gl_unavailable_reason
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_differential import _assert_close, _inputs, build, recipes

import tensorfrost as tf
from tensorfrost.ir.interpreter import run as interpret
from tensorfrost.tracing.trace import trace

REASON = gl_unavailable_reason()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"no OpenGL 4.3 context: {REASON}")


@pytest.fixture
def gl():
    """The OpenGL backend object, with tf.opengl selected for the test."""
    from tensorfrost.backend import backend_for
    tf.initialize(tf.opengl)
    yield backend_for(tf.opengl)
    tf.initialize(tf.cpu)


def _compile_on(device, fn):
    tf.initialize(device)
    try:
        return tf.compile(fn)
    finally:
        tf.initialize(tf.cpu)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(recipes, st.integers(1, 9), st.integers(0, 1000))
def test_random_programs_agree_on_interpreter_cpu_and_opengl(recipe, size, seed):
    arrays = _inputs(recipe, size, seed)
    program = build(recipe)
    want = interpret(trace(program), arrays)
    for device in (tf.cpu, tf.opengl):
        compiled = _compile_on(device, program)
        _assert_close([t.numpy for t in compiled(*arrays)], want)


def _shifted_sum():
    a = tf.input([-1, -1], tf.float32)
    i, j = a.indices
    return a[i, j + 1] * 2.0 + a[i - 1, j] - 1.0


def _shifted_sum_numpy(a):
    right = np.concatenate([a[:, 1:], a[:, -1:]], axis=1)
    up = np.concatenate([a[:1], a[:-1]], axis=0)
    return right * 2.0 + up - 1.0


def test_4096_squared_grid_folds_its_work_groups(gl):
    a = np.random.default_rng(0).standard_normal((4096, 4096)).astype(np.float32)
    out = tf.compile(_shifted_sum)(a).numpy
    np.testing.assert_allclose(out, _shifted_sum_numpy(a), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("max_groups_x", [1, 3])
def test_dispatches_fold_into_rows_of_groups(gl, monkeypatch, max_groups_x):
    monkeypatch.setattr(gl, "max_groups_x", max_groups_x)
    a = np.random.default_rng(1).standard_normal((37, 61)).astype(np.float32)
    out = tf.compile(_shifted_sum)(a).numpy
    np.testing.assert_allclose(out, _shifted_sum_numpy(a), rtol=1e-6, atol=1e-6)


def test_tensor_over_128_mib_is_bound_in_ranges(gl):
    n = 40_000_000  # 160 MB, more than the 128 MiB storage block limit of llvmpipe
    a = np.arange(n, dtype=np.float32) * np.float32(1e-3)

    def program():
        x = tf.input([-1], tf.float32)
        i, = x.indices
        return x[x.shape[0] - 1 - i] + x * 2.0

    out = tf.compile(program)(a).numpy
    for k in (0, 1, n // 3, 2**25 - 1, 2**25, 2**25 + 1, n - 1):
        assert out[k] == a[n - 1 - k] + a[k] * np.float32(2.0), k


def test_small_parts_cover_reads_writes_and_atomics(gl, monkeypatch, rng):
    monkeypatch.setattr(gl, "elements_per_part", 256)  # every buffer here spans 2 or 3 parts
    values = rng.integers(-20, 20, 700).astype(np.float32)
    slots = rng.integers(0, 300, 700).astype(np.int32)

    def program():
        v = tf.input([-1], tf.float32)
        s = tf.input([-1], tf.int32)
        i, = v.indices
        total = tf.zeros([300])
        low = tf.const(1e9, [300])
        tf.scatterAdd(total[s[i]], v[i])
        tf.scatterMin(low[s[i]], v[i])
        flipped = v[v.shape[0] - 1 - i] * 3.0
        return [total, low, flipped]

    total, low, flipped = (t.numpy for t in tf.compile(program)(values, slots))
    want_total, want_low = np.zeros(300, np.float32), np.full(300, 1e9, np.float32)
    np.add.at(want_total, slots, values)
    np.minimum.at(want_low, slots, values)
    np.testing.assert_array_equal(total, want_total)
    np.testing.assert_array_equal(low, want_low)
    np.testing.assert_array_equal(flipped, values[::-1] * 3.0)


def test_kernel_with_more_buffers_than_a_shader_binds_is_split(gl, rng):
    count = gl.limits.max_blocks + 4

    def program():
        a = tf.input([-1], tf.float32)
        return [a * float(k) + tf.sin(a) for k in range(count)]

    compiled = tf.compile(program)
    assert len(compiled.get_kernels()) == 1
    assert compiled.get_kernels()[0].count("#version 430") >= 2  # one kernel, several shaders
    a = rng.standard_normal(500).astype(np.float32)
    for k, out in enumerate(compiled(a)):
        np.testing.assert_allclose(out.numpy, a * k + np.sin(a), rtol=2e-6, atol=2e-6)


def test_shader_compile_error_names_the_source_and_the_process_goes_on(gl):
    from tensorfrost.backend_gl.programs import compile_program
    bad = "#version 430\nlayout(local_size_x = 1) in;\nvoid main() {\n    undefined_name = 1;\n}\n"
    with pytest.raises(tf.CompileError) as info:
        compile_program(bad, "broken_kernel")
    message = str(info.value)
    assert "broken_kernel" in message and ".comp" in message and "undefined_name" in message
    out = tf.compile(_shifted_sum)(np.ones((3, 3), np.float32)).numpy
    np.testing.assert_array_equal(out, np.full((3, 3), 2.0, np.float32))


def test_shaders_are_compiled_once_per_source(gl):
    from tensorfrost.backend_gl.programs import CacheStats
    tf.compile(_shifted_sum)
    compiles = CacheStats.compiles
    tf.compile(_shifted_sum)
    assert CacheStats.compiles == compiles


def test_generated_glsl_is_self_contained_and_minimal(gl):
    source = tf.compile(_shifted_sum).get_kernels()[0]
    assert source.startswith("#version 430")
    assert "layout(std430, binding = 0)" in source and "uniform uint tf_u[" in source
    assert "tf_pcg" not in source  # only the prelude helpers the kernel uses


def test_host_program_runs_in_python(gl):
    compiled = tf.compile(_shifted_sum)
    assert compiled.get_main_function().startswith("def tf_main(rt, inputs):")
    assert "rt.dispatch(0" in compiled.get_main_function()


def test_regions_become_debug_groups_and_renderdoc_is_optional(gl):
    def program():
        a = tf.input([-1], tf.float32)
        tf.region_begin("scale")
        b = a * 2.0
        tf.region_end("scale")
        return b

    tf.renderdoc_start_capture()  # no RenderDoc in the process: nothing happens
    compiled = tf.compile(program)
    assert "rt.region('scale', True)" in compiled.get_main_function()
    np.testing.assert_array_equal(compiled(np.arange(4, dtype=np.float32)).numpy, [0, 2, 4, 6])
    tf.renderdoc_end_capture()


def test_host_loop_with_readback_and_float_uniforms(gl):
    def program():
        a = tf.input([-1], tf.float32)
        steps = tf.int(tf.sum(a)[0]) + tf.int(a[2] * 2.0)  # read back by the host (an element of each)
        out = a * 1.0
        with tf.loop(steps) as k:
            out.val = out + tf.float(k) * 0.5
        return out

    a = np.array([1.0, 2.0, 0.5], np.float32)
    got = tf.compile(program)(a).numpy
    steps = int(a.sum()) + int(a[2] * 2.0)
    np.testing.assert_allclose(got, a + 0.5 * sum(range(steps)), rtol=1e-6)


def test_bool_int_and_empty_tensors_round_trip(gl):
    for array in (np.array([True, False, True]), np.arange(-3, 3, dtype=np.int32),
                  np.array([0, 2**32 - 1], dtype=np.uint32), np.zeros((0, 4), np.float32)):
        np.testing.assert_array_equal(tf.tensor(array).numpy, array)


def test_oversized_grid_fails_cleanly(gl):
    def program():
        n = tf.input([-1], tf.int32)
        i, j, k = tf.indices([n.shape[0], n.shape[0], n.shape[0]])
        total = tf.zeros([1])
        tf.scatterAdd(total[(i + j + k) % 1], 1.0)
        return total

    compiled = tf.compile(program)
    with pytest.raises(tf.TensorFrostError):
        compiled(np.zeros(2000, np.int32))  # 8e9 threads: more than one dispatch can index
    np.testing.assert_array_equal(compiled(np.zeros(2, np.int32)).numpy, [8.0])


def test_window_context_and_compute_context_take_turns(gl, x_display):
    import glfw
    assert glfw.init(), f"glfw cannot open display {x_display}"
    from tensorfrost.backend_gl import context
    window = context.open_window(64, 48, "tensorfrost test")
    try:
        out = tf.compile(_shifted_sum)(np.ones((2, 2), np.float32))  # switches back to the compute context
        np.testing.assert_array_equal(out.numpy, np.full((2, 2), 2.0, np.float32))
        window.make_current()
        window.swap()
    finally:
        window.close()


def test_an_output_whose_slice_needs_more_buffers_than_a_shader_binds_is_cut(gl):
    """The gradient of softmax, log-softmax and two cross-entropies: one output's slice read
    17 buffers, more than llvmpipe's 16; fission now cuts such kernels too (it was a
    CompileError). Compared with the cpu backend."""
    def program():
        logits = tf.input([-1, -1])
        labels = tf.input([-1], tf.int32)
        g = tf.input([-1, -1])
        sm, lsm0 = tf.nn.softmax(logits), tf.nn.log_softmax(logits, axis=0)
        ce, rows = tf.nn.cross_entropy(logits, labels), tf.nn.cross_entropy(logits, labels, "none")
        loss = tf.sum(tf.sum(sm * g)) + tf.sum(tf.sum(lsm0 * g)) + ce + tf.sum(rows * rows)
        return [tf.grad(loss, logits)]
    rng = np.random.default_rng(0)
    args = (rng.standard_normal((3, 4)).astype(np.float32), np.array([0, 2, 1], np.int32), np.ones((3, 4), np.float32))
    on_gl = _compile_on(tf.opengl, program)(*args).numpy
    on_cpu = _compile_on(tf.cpu, program)(*args).numpy
    # the same float32 arithmetic in another order (exp, log and sums): a few ulps of O(1) values
    np.testing.assert_allclose(on_gl, on_cpu, atol=2e-6)
