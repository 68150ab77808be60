"""Codegen mode: C++ main functions and kernels in C++, GLSL, HLSL and WGSL for the seed's
wave and QR programs; the C++ compiles, runs, the GLSL compiles on the GL driver, and the
WGSL compiles with wgpu and runs there bound as the main functions' dispatches bind it."""

import os
import re
import shutil
import subprocess

import numpy as np
import pytest
from conftest import gl_unavailable_reason, webgpu_unavailable_reason
from test_seed_examples import qr_decomposition, wave_eq

import tensorfrost as tf


def WaveEq():  # the seed's programs, under the names of the seed's generated code
    return wave_eq()


def QRDecomposition():
    return qr_decomposition()


def _generate(lang):
    """(main functions, kernels) that compiling wave and QR in codegen mode adds."""
    tf.initialize(tf.codegen, kernel_lang=lang)
    try:
        mains, kernels = len(tf.get_all_generated_main_functions()), len(tf.get_all_generated_kernels())
        wave, qr = tf.compile(WaveEq), tf.compile(QRDecomposition)
    finally:
        tf.initialize(tf.cpu)
    return (tf.get_all_generated_main_functions()[mains:], tf.get_all_generated_kernels()[kernels:], wave, qr)


@pytest.mark.parametrize("lang", ["cpp", "glsl", "hlsl", "wgsl"])
def test_wave_and_qr_generate_main_functions_and_kernels(lang):
    mains, kernels, wave, qr = _generate(getattr(tf, f"{lang}_lang"))
    assert len(mains) == 2 and len(kernels) == len(wave.get_kernels()) + len(qr.get_kernels())
    # a program compiled again in the same process gets a numbered name
    assert re.match(r"std::tuple<TFTensor, TFTensor> WaveEq(_\d+)?\(TFContext tf, TFTensor u, TFTensor v\)", mains[0])
    assert re.match(r"std::tuple<TFTensor, TFTensor> QRDecomposition(_\d+)?\(TFContext tf, TFTensor A\)", mains[1])
    assert "for (int " in mains[1] and "tf.dispatch(" in mains[1]
    with pytest.raises(tf.TensorFrostError, match="codegen mode"):
        wave(np.zeros((2, 2), np.float32), np.zeros((2, 2), np.float32))


def test_kernel_numbers_in_main_functions_index_the_kernel_list():
    mains, kernels, wave, qr = _generate(tf.glsl_lang)
    first = len(tf.get_all_generated_kernels()) - len(kernels)
    assert f"tf.dispatch({first}, " in mains[0]
    assert f"tf.dispatch({first + len(kernels) - 1}, " in mains[1]


def test_hlsl_declares_buffers_uniforms_and_numthreads():
    _, kernels, _, _ = _generate(tf.hlsl_lang)
    wave = kernels[0]
    assert "RWStructuredBuffer<float> v_new_0 : register(u0);" in wave
    assert "RWStructuredBuffer<float> u_new_1 : register(u1);" in wave
    assert "StructuredBuffer<float> u_2 : register(t0);" in wave
    assert "cbuffer tf_uniforms : register(b0)" in wave
    for kernel in kernels:
        assert "[numthreads(" in kernel and "void main(uint3 tf_group : SV_GroupID" in kernel


@pytest.mark.parametrize("lang", ["glsl", "hlsl", "wgsl"])
def test_every_helper_a_shader_calls_is_defined_in_it(lang):
    """Shaders are self-contained: each tf_ helper a kernel calls comes with it from the
    prelude (HLSL, which cannot be compiled here, is checked this way; WGSL's ``fn tf_x(``
    too, and it compiles with wgpu where a WebGPU device exists)."""
    def every_op():
        x = tf.input([-1], tf.float32)
        k = tf.input(x.shape, tf.int32)
        values = [tf.fma(x, x, 1.0), tf.fma(k, k, 1), tf.pow(x, 2.5), tf.atan2(x, x + 1.0), x % 3.0, k % 3,
                  k // 2, tf.tanh(x), tf.sinh(x), tf.asin(x), tf.acos(x), tf.smoothstep(0.0, 1.0, x),
                  tf.float(tf.pcg(tf.uint(k))), tf.float(tf.reversebits(tf.uint(k))), tf.round(x)]
        out = tf.zeros([4], tf.float32)
        tf.scatterAdd(out[k % 4], x)
        tf.scatterMin(out[k % 4], x)
        return values + [out]
    tf.initialize(tf.codegen, kernel_lang=getattr(tf, f"{lang}_lang"))
    try:
        before = len(tf.get_all_generated_kernels())
        tf.compile(every_op)
        kernels = tf.get_all_generated_kernels()[before:]
    finally:
        tf.initialize(tf.cpu)
    for kernel in kernels:
        called = set(re.findall(r"\b(tf_\w+)\(", kernel))
        defined = set(re.findall(r"^\w+ (tf_\w+)\(", kernel, re.M))
        macros = set(re.findall(r"#define (\w+)", kernel))
        assert called <= defined | macros, f"{lang}: {sorted(called - defined - macros)} not defined"
    if lang == "wgsl" and webgpu_unavailable_reason() is None:
        for k, kernel in enumerate(kernels):
            _wgsl_pipeline(kernel, f"every_op_{k}")


@pytest.mark.skipif(gl_unavailable_reason() is not None, reason=f"no OpenGL 4.3 context: {gl_unavailable_reason()}")
def test_every_generated_glsl_kernel_compiles_on_the_driver():
    from tensorfrost.backend_gl import context
    from tensorfrost.backend_gl.programs import compile_program
    _, kernels, _, _ = _generate(tf.glsl_lang)
    context.ensure_context()
    for k, source in enumerate(kernels):
        assert source.startswith("#version 430")
        compile_program(source, f"codegen_kernel_{k}")


# A TFRuntime on the CPU for codegen's C++: buffers from calloc, kernels called through
# their entries (@KERNELS@: the table of entry names). Harnesses append their main().
CPU_RUNTIME = r"""
#include <cstdio>
#include <cstdlib>
typedef void (*tf_kernel)(void* const*, const uint32_t*);
static const tf_kernel kernels[] = {@KERNELS@};

struct CpuRuntime : TFRuntime {
    void* allocate(size_t words, TFType, const char*) override { return std::calloc(words ? words : 1, 4); }
    void deallocate(void* buffer) override { std::free(buffer); }
    uint read_word(void* buffer, size_t index) override { return ((uint*)buffer)[index]; }
    void dispatch(const TFDispatch& d) override {
        std::vector<void*> buffers;
        for (const TFTensor& t : d.read_write) buffers.push_back(t.buffer.get());
        for (const TFTensor& t : d.read_only) buffers.push_back(t.buffer.get());
        kernels[d.kernel](buffers.data(), d.uniforms.data());
    }
};
"""

_HARNESS = CPU_RUNTIME + r"""
int main() {
    CpuRuntime runtime;
    TFContext tf{&runtime};
    const uint n = 6, m = 5;
    TFTensor u = tf.allocate("u", {n, m}, TFType::Float), v = tf.allocate("v", {n, m}, TFType::Float);
    TFTensor a = tf.allocate("A", {n, m}, TFType::Float);
    for (uint k = 0; k < n * m; k++) {
        ((float*)u.buffer.get())[k] = (float)(k % 7) * 0.25f;
        ((float*)v.buffer.get())[k] = (float)(k % 3) - 1.0f;
        ((float*)a.buffer.get())[k] = (float)((k * 7) % 11) + (k % m == k / m ? 5.0f : 0.0f);
    }
    auto [v_new, u_new] = @WAVE@(tf, u, v);
    auto [q, r] = @QR@(tf, a);
    for (const TFTensor* t : {&v_new, &u_new, &q, &r})
        for (size_t k = 0; k < t->size(); k++) std::printf("%.9g\n", ((float*)t->buffer.get())[k]);
    return 0;
}
"""


def _run_inputs(n=6, m=5):
    k = np.arange(n * m)
    u = ((k % 7) * 0.25).astype(np.float32).reshape(n, m)
    v = ((k % 3) - 1.0).astype(np.float32).reshape(n, m)
    a = (((k * 7) % 11) + np.where(k % m == k // m, 5.0, 0.0)).astype(np.float32).reshape(n, m)
    return u, v, a


@pytest.mark.skipif(shutil.which("g++") is None, reason="no g++ to compile the generated C++")
def test_cpp_codegen_compiles_and_runs_against_a_cpu_runtime(tmp_path):
    mains, kernels, _, _ = _generate(tf.cpp_lang)
    header = tf.get_cpp_header()
    main_file = tmp_path / "tensorfrost_main.cpp"
    main_file.write_text(header + "".join(mains))
    check = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-Wall", str(main_file)], capture_output=True,
                           text=True)
    assert check.returncode == 0, check.stderr

    names = [source.split('extern "C" void ')[1].split("(")[0] for source in kernels]
    first = len(tf.get_all_generated_kernels()) - len(kernels)
    table = ", ".join(["nullptr"] * first + names)  # kernels of earlier programs are not linked here
    program = tmp_path / "run.cpp"
    wave_name, qr_name = (re.search(r"(\w+)\(TFContext", main).group(1) for main in mains)
    harness = _HARNESS.replace("@KERNELS@", table).replace("@WAVE@", wave_name).replace("@QR@", qr_name)
    program.write_text(header + "".join(kernels) + "".join(mains) + harness)
    binary = tmp_path / "run"
    build = subprocess.run(["g++", "-std=c++17", "-O1", "-fopenmp", "-o", str(binary), str(program)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    values = np.array(subprocess.run([str(binary)], capture_output=True, text=True, check=True,
                                     env=dict(os.environ, OMP_NUM_THREADS="1")).stdout.split(), np.float32)
    u, v, a = _run_inputs()
    tf.initialize(tf.cpu)
    want = [t.numpy.ravel() for t in (*tf.compile(WaveEq)(u, v), *tf.compile(QRDecomposition)(a))]
    np.testing.assert_allclose(values, np.concatenate(want), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("lang", ["glsl", "hlsl", "wgsl"])
def test_the_kernel_language_may_come_second(lang):
    """``tf.initialize(tf.codegen, tf.glsl_lang)`` (as the README once wrote it) gave C++ kernels."""
    tf.initialize(tf.codegen, getattr(tf, f"{lang}_lang"))
    try:
        kernels = tf.compile(WaveEq).get_kernels()
    finally:
        tf.initialize(tf.cpu)
    assert kernels and all(("#version" in k) == (lang == "glsl") and ("RWStructuredBuffer" in k) == (lang == "hlsl")
                           and ("@compute" in k) == (lang == "wgsl") for k in kernels), kernels[0][:300]


def test_initialize_names_every_kernel_language_it_accepts():
    with pytest.raises(tf.TensorFrostError, match=r"kernel_lang must be tf\.cpp_lang, tf\.glsl_lang, tf\.hlsl_lang "
                                                  r"or tf\.wgsl_lang, got 'wgsl'"):
        tf.initialize(tf.codegen, kernel_lang="wgsl")
    assert tf.CodeGenLang.wgsl is tf.wgsl_lang and repr(tf.wgsl_lang) == "tf.wgsl_lang"


def test_initialize_refuses_flags_that_are_not_a_string():
    with pytest.raises(tf.TensorFrostError, match="flags must be a string of C\\+\\+ compiler options, got 3"):
        tf.initialize(tf.cpu, 3)


# -- WGSL: compiled by wgpu, and run bound the way the main functions' dispatches bind it --------

_NO_WEBGPU = pytest.mark.skipif(webgpu_unavailable_reason() is not None,
                                reason=f"no WebGPU device: {webgpu_unavailable_reason()}")


def _wgsl_pipeline(source, label):
    from tensorfrost.backend_webgpu.context import context
    device = context().device
    module = device.create_shader_module(label=label, code=str(source))
    return device.create_compute_pipeline(layout="auto", compute={"module": module, "entry_point": "main"})


@_NO_WEBGPU
def test_every_generated_wgsl_kernel_compiles_with_wgpu():
    _, kernels, _, _ = _generate(tf.wgsl_lang)
    for k, source in enumerate(kernels):
        assert source.lang == "wgsl" and "@compute @workgroup_size(" in source
        _wgsl_pipeline(source, f"codegen_kernel_{k}")


def ShapeCode():  # five shape uniforms: two 16-byte rows of tf_u
    x = tf.input([-1, -1, -1, -1, -1], tf.float32)
    i0, i1, i2, i3, i4 = x.indices
    return x * 2.0 + tf.float(i0 * 10000 + i1 * 1000 + i2 * 100 + i3 * 10 + i4)


@_NO_WEBGPU
def test_wgsl_kernel_runs_with_the_buffers_and_uniform_words_its_dispatch_passes():
    """A host following mode.py's docstring: the dispatch's buffers (written, then read-only)
    at @binding(0..), its uniform words packed four to a 16-byte row in the uniform buffer
    bound after them, ceil(threads / group) groups."""
    from tensorfrost.backend_webgpu.context import context
    tf.initialize(tf.codegen, kernel_lang=tf.wgsl_lang)
    try:
        first = len(tf.get_all_generated_kernels())
        tf.compile(ShapeCode)
        main, kernel = tf.get_all_generated_main_functions()[-1], tf.get_all_generated_kernels()[first]
    finally:
        tf.initialize(tf.cpu)
    call = re.search(r"tf\.dispatch\((\d+), \{(\w+)\}, \{(\w+)\}, \{([^}]*)\}, \{[^}]*\}, \{(\d+)\}\);", main)
    assert call and int(call.group(1)) == first, main
    shape = (2, 3, 4, 5, 7)
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    # the host's names of the uniforms are x's dims (const int x_shape<d>_<n> = x.shape[d])
    dims = [int(d) for d in re.findall(r"asuint\(x_shape(\d)_\d+\)", call.group(4))]
    assert len(dims) == 5 == len(call.group(4).split(","))
    words = np.zeros(-(-len(dims) // 4) * 4, np.uint32)
    words[:len(dims)] = [shape[d] for d in dims]

    wgpu, device = context().wgpu, context().device
    usage = wgpu.BufferUsage
    out = device.create_buffer(size=x.nbytes, usage=usage.STORAGE | usage.COPY_SRC)
    data = device.create_buffer_with_data(data=x.tobytes(), usage=usage.STORAGE)
    uniforms = device.create_buffer_with_data(data=words.tobytes(), usage=usage.UNIFORM)
    pipeline = _wgsl_pipeline(kernel, "shape_code")
    entries = [{"binding": k, "resource": {"buffer": b, "offset": 0, "size": b.size}}
               for k, b in enumerate([out, data, uniforms])]  # (call.group(2): written; group(3): read-only)
    group = device.create_bind_group(layout=pipeline.get_bind_group_layout(0), entries=entries)
    encoder = device.create_command_encoder()
    compute = encoder.begin_compute_pass()
    compute.set_pipeline(pipeline)
    compute.set_bind_group(0, group)
    compute.dispatch_workgroups(-(-x.size // int(call.group(5))), 1, 1)
    compute.end()
    device.queue.submit([encoder.finish()])
    got = np.frombuffer(device.queue.read_buffer(out), np.float32).reshape(shape)
    code = np.tensordot([10000, 1000, 100, 10, 1], np.indices(shape), axes=1).astype(np.float32)
    np.testing.assert_array_equal(got, x * 2 + code)  # (x * 2 exact, code below 2**24: one rounding)
