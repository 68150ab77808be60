"""Issue 27 (round three of "every program a user writes"): uint32 indices, non-ASCII names,
``tf.kernel`` group sizes as upstream's, ``tf.get_all_generated_kernels()`` in every mode,
gradients through ``tf.linalg.qr`` / ``svd`` and through tensors updated in place inside
differentiated loops (upstream's examples/ML/VMC/logdet_test). Each compared with numpy,
plain Python or float64 finite differences."""

import re
import shutil
import subprocess

import numpy as np
import pytest
from conftest import central_differences, gl_unavailable_reason, webgpu_unavailable_reason

import tensorfrost as tf
from tensorfrost.emit.names import ascii_name, is_reserved, numbered_name, unique_name

# Values past int32 (>= 2**31) must clamp to the last element, as numpy's take(mode="clip")
# of their value does, not wrap to negative and clamp to the first.
U = np.array([0, 2, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 1, 5, 3], np.uint32)


def clipped(u, n):
    return np.minimum(u.astype(np.int64), n - 1)


# -- C: uint32 indices ----------------------------------------------------------------------------


def test_uint_indices_of_loads_clamp_as_their_value(backend):
    def program():
        u = tf.input([8], tf.uint32)
        table = tf.input([16], tf.float32)
        m = tf.input([2, 8], tf.float32)
        by_top_bits = table[u >> 28]  # a radix digit as the index
        direct = table[u]
        computed = (table * 2.0)[u]  # a computed value read by index (recomputed at the index)
        two_d = m[u & 1, u]  # uint and int axes together
        return by_top_bits, direct, computed, two_d
    table = np.arange(16, dtype=np.float32) + 1
    m = np.arange(16, dtype=np.float32).reshape(2, 8)
    top, direct, computed, two_d = tf.compile(program)(U, table, m)
    np.testing.assert_array_equal(top.numpy, table[U >> 28])
    np.testing.assert_array_equal(direct.numpy, table[clipped(U, 16)])
    np.testing.assert_array_equal(computed.numpy, 2 * table[clipped(U, 16)])
    np.testing.assert_array_equal(two_d.numpy, m[U & 1, clipped(U, 8)])


def test_uint_indices_of_stores_and_scatters(backend):
    distinct = np.array([4, 0, 0xFFFFFFFF, 2], np.uint32)  # (the huge one lands on the last element, 5)

    def program():
        u = tf.input([8], tf.uint32)
        d = tf.input([4], tf.uint32)
        x = tf.input([8], tf.float32)
        out = tf.zeros([6], tf.float32)
        k, = d.indices
        out[d] = x[k]
        sums = tf.zeros([6], tf.float32)
        tf.scatterAdd(sums[u], x)
        counts = tf.zeros([6], tf.int32)
        tf.scatterAdd(counts[u], 1)
        largest = tf.zeros([6], tf.int32)
        tf.scatterMax(largest[u], tf.int(x))
        return out, sums, counts, largest
    x = np.arange(8, dtype=np.float32) + 1
    out, sums, counts, largest = tf.compile(program)(U, distinct, x)
    expected_out = np.zeros(6, np.float32)
    expected_out[clipped(distinct, 6)] = x[:4]
    np.testing.assert_array_equal(out.numpy, expected_out)
    expected = np.zeros(6, np.float32)
    np.add.at(expected, clipped(U, 6), x)  # small integers: float32 sums are exact
    np.testing.assert_array_equal(sums.numpy, expected)
    np.testing.assert_array_equal(counts.numpy, np.bincount(clipped(U, 6), minlength=6))
    most = np.zeros(6, np.int32)
    np.maximum.at(most, clipped(U, 6), x.astype(np.int32))
    np.testing.assert_array_equal(largest.numpy, most)


def test_uint_indices_in_an_explicit_kernel_loop_and_after_a_radix_sort(backend):
    def program():
        u = tf.input([8], tf.uint32)
        t = tf.input([8], tf.float32)
        out = tf.zeros([8], tf.float32)
        with tf.kernel([8]) as k:
            s = tf.const(0.0)
            with tf.loop(8) as j:
                s.val += t[u[j]]  # a gather by an index tensor's element
            out[k] = s + t[u[k]]
        keys, order = tf.sort.radix(u, tf.uint(tf.indices([8])[0]))
        return out, t[keys], t[order]
    t = np.arange(8, dtype=np.float32) * 0.5
    out, by_keys, by_order = tf.compile(program)(U, t)
    gathered = t[clipped(U, 8)]
    np.testing.assert_array_equal(out.numpy, gathered.sum() + gathered)
    np.testing.assert_array_equal(by_keys.numpy, t[clipped(np.sort(U), 8)])
    np.testing.assert_array_equal(by_order.numpy, t[np.argsort(U, kind="stable")])


def test_uint_indices_in_a_kernel_program(backend):
    @tf.kernel_program
    def program(u: tf.Arg([-1], tf.uint32), table: tf.Arg([16], tf.float32)):
        digit = table[u >> 28]
        out = tf.zeros([6], tf.float32)
        acc = tf.zeros([6], tf.float32)
        for k in range(u.shape[0]):
            out[u[k]] = table[k]  # later k overwrite earlier ones at the same place
        tf.scatterAdd(acc[u], table[u & 15])
        return digit, out, acc
    table = np.arange(16, dtype=np.float32) + 1
    digit, out, acc = (r.numpy for r in program(U, table))
    expected_out = np.zeros(6, np.float32)
    for k, v in enumerate(U):
        expected_out[min(int(v), 5)] = table[k]
    expected_acc = np.zeros(6, np.float32)
    np.add.at(expected_acc, clipped(U, 6), table[U & 15])
    np.testing.assert_array_equal(digit, table[U >> 28])
    np.testing.assert_array_equal(out, expected_out)
    np.testing.assert_array_equal(acc, expected_acc)


def _uint_gather():
    u = tf.input([-1], tf.uint32)
    t = tf.input([-1], tf.float32)
    acc = tf.zeros(t.shape, tf.float32)
    tf.scatterAdd(acc[u], t[u >> 1])
    return acc


def _codegen_sources(lang, program, name):
    tf.initialize(tf.codegen, kernel_lang=getattr(tf, f"{lang}_lang"))
    try:
        before = (len(tf.get_all_generated_main_functions()), len(tf.get_all_generated_kernels()))
        tf.compile(program, name=name)
        return (tf.get_all_generated_main_functions()[before[0]:], tf.get_all_generated_kernels()[before[1]:])
    finally:
        tf.initialize(tf.cpu)


@pytest.mark.skipif(gl_unavailable_reason() is not None, reason=f"no OpenGL 4.3 context: {gl_unavailable_reason()}")
def test_codegen_glsl_of_uint_indices_compiles_on_the_driver():
    from tensorfrost.backend_gl import context
    from tensorfrost.backend_gl.programs import compile_program
    _, kernels = _codegen_sources("glsl", _uint_gather, "uint_gather")
    context.ensure_context()
    for k, source in enumerate(kernels):
        compile_program(source, f"uint_gather_{k}")


def test_codegen_indices_are_int_in_every_language():
    """Indices reach every emitter as int32 (a uint one saturated first), so no language
    needs a uint overload of its clamp: tf_clamp_index only ever takes an int."""
    for lang in ("cpp", "glsl", "hlsl", "wgsl"):
        _, kernels = _codegen_sources(lang, _uint_gather, "uint_gather")
        declared = dict(_declarations(lang, "\n".join(kernels)))
        clamped = re.findall(r"tf_clamp_index\((\w+),", "\n".join(kernels))
        assert clamped, lang
        assert all(declared[name] in ("int", "int32_t", "i32") for name in clamped), (lang, clamped)


def _declarations(lang, code):
    """(name, type) of the integers that ``code`` declares (WGSL: ``let name: i32 = ...``)."""
    if lang == "wgsl":
        return re.findall(r"\b(?:let|var) (\w+): (\w+) =", code)
    return [(name, kind) for kind, name in re.findall(r"\b(u?int(?:32_t)?) (\w+) =", code)]


# -- D: names in generated code -------------------------------------------------------------------


def test_names_become_ascii_identifiers_of_every_language():
    assert ascii_name("Δt") == "u0394t" and ascii_name("θ") == "u03b8" and ascii_name("é") == "e"
    assert ascii_name("gl_Position") == "vgl_Position" and ascii_name("tf") == "vtf"
    assert ascii_name("__a__b__") == "a_b" and ascii_name("3d") == "v3d" and ascii_name("") == "v"
    for word in ("int", "float4", "vec3", "mat2x3", "texture2D", "main", "fn", "let", "cbuffer", "sampler",
                 "and", "not", "delete", "input", "filter", "asuint", "texture_2d", "TFTensor"):
        assert is_reserved(word), word
        assert unique_name(word, set()) != word
    # Numbered names are distinct whatever the texts ("é" and "e" share a stem)
    names = [numbered_name(text, k) for k, text in enumerate(["é", "e", "e_1", "e", "Δ", "u0394"])]
    assert len(set(names)) == len(names)
    assert all(re.fullmatch(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*", n) for n in names)
    taken: set = set()
    assert [unique_name(t, taken) for t in ("x", "x", "x_2", "é", "e")] == ["x", "x_x1", "x_2_x1", "e", "e_x1"]


def _named_program():
    x = tf.input([-1], tf.float32, name="é")
    step = tf.input([], tf.float32, name="Δt")
    e = tf.input(x.shape, tf.float32, name="e")  # the same ASCII stem as "é"
    scale = tf.input([], tf.float32, name="new")  # a C++ keyword
    y = (x * step).set_debug_name("Δt")
    z = tf.zeros(x.shape, tf.float32).set_debug_name("θ")
    tf.region_begin("région Δ")
    i, = x.indices
    z[i] = y + e
    tf.region_end("région Δ")
    w = (z * 2.0).set_debug_name("int")
    v = (w + 1.0).set_debug_name("gl_Position")
    return (v - y * scale).set_debug_name("__main__")


def test_non_ascii_and_reserved_names_run(backend):
    program = tf.compile(_named_program, name="prögram")
    x = np.array([1.0, -2.0, 3.5], np.float32)
    e = np.array([0.5, 0.25, -1.0], np.float32)
    out = program(x, np.float32(0.5), e, np.float32(2.0)).numpy
    np.testing.assert_array_equal(out, (x * 0.5 + e) * 2 + 1 - x * 0.5 * 2)
    assert all(kernel.isascii() for kernel in program.get_kernels())
    if backend is tf.cpu:  # (the OpenGL host is Python, whose strings may hold any text)
        assert program.compiled_code().isascii()


class Pendulum(tf.Module):
    def __init__(self):
        super().__init__()
        self.θ = tf.Parameter([3], tf.float32)
        self.ω = tf.Parameter([3], tf.float32)

    def step(self, Δt):
        return self.θ + self.ω * Δt


def test_module_parameters_with_greek_names(backend):
    model = Pendulum()
    model.initialize_parameters()
    θ, ω = np.array([0.1, 0.2, 0.3], np.float32), np.array([1.0, -1.0, 2.0], np.float32)
    model.update_parameters([θ, ω])
    step = model.compile(lambda m, Δt: m.step(Δt), tf.Arg([], tf.float32))
    np.testing.assert_allclose(step(np.float32(0.5)).numpy, θ + ω * np.float32(0.5), rtol=1e-7)


@pytest.mark.parametrize("lang", ["cpp", "glsl", "hlsl", "wgsl"])
def test_codegen_identifiers_are_ascii_and_never_reserved(lang):
    mains, kernels = _codegen_sources(lang, _named_program, "prögram")
    source = "\n".join(mains + kernels)
    assert source.isascii()
    code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', re.sub(r"//[^\n]*", "", source))  # identifiers only
    declared = re.findall(r"\b(?:float|int|uint|bool|int32_t|uint32_t|TFTensor)\s+(\w+)\s*(?:=|\[|,|\))", code)
    declared += re.findall(r"\b(?:let|var|var<storage, read_write>) (\w+):", code)  # (WGSL's declarations)
    users = [n for n in declared if not n.startswith("tf_")]  # (tf_: the emitters' own names)
    assert users and not any("__" in n or n.startswith("gl_") or is_reserved(n) for n in users), users
    function = re.match(r"\S+ (\w+)\(TFContext tf" + r", TFTensor (\w+)" * 4 + r"\)", mains[0])
    assert function.groups()[1:] == ("e", "u0394t", "e_x1", "new_x1")  # inputs keep their names, made unique
    assert re.fullmatch(r"program(_\d+)?", function.group(1))


@pytest.mark.skipif(shutil.which("g++") is None, reason="no g++ to compile the generated C++")
def test_codegen_cpp_of_non_ascii_names_compiles(tmp_path):
    mains, kernels = _codegen_sources("cpp", _named_program, "prögram")
    path = tmp_path / "named.cpp"
    path.write_text(tf.get_cpp_header() + "".join(kernels) + "".join(mains))
    check = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", str(path)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr


@pytest.mark.skipif(gl_unavailable_reason() is not None, reason=f"no OpenGL 4.3 context: {gl_unavailable_reason()}")
def test_codegen_glsl_of_non_ascii_names_compiles_on_the_driver():
    from tensorfrost.backend_gl import context
    from tensorfrost.backend_gl.programs import compile_program
    _, kernels = _codegen_sources("glsl", _named_program, "prögram")
    context.ensure_context()
    for k, source in enumerate(kernels):
        compile_program(source, f"named_{k}")


@pytest.mark.skipif(webgpu_unavailable_reason() is not None,
                    reason=f"no WebGPU device: {webgpu_unavailable_reason()}")
def test_codegen_wgsl_of_uint_indices_and_non_ascii_names_compiles_with_wgpu():
    from tensorfrost.backend_webgpu.context import context
    device = context().device
    for program, name in ((_uint_gather, "uint_gather"), (_named_program, "prögram")):
        _, kernels = _codegen_sources("wgsl", program, name)
        for k, source in enumerate(kernels):
            module = device.create_shader_module(label=f"{program.__name__}_{k}", code=str(source))
            device.create_compute_pipeline(layout="auto", compute={"module": module, "entry_point": "main"})


# -- tf.kernel group sizes, as upstream's (examples/Rendering/fft3d) -----------------------------


def _fft_along(tensor, axis):
    """Upstream's fft3d.py ``inplace_fft``: one group of BK threads per line along ``axis``,
    a radix-2 FFT in the group's buffer; ``group_size=[BK]`` for a kernel of 2 axes."""
    shape = tensor.shape[:-1]
    N = shape[axis].try_get_constant()
    BK = min(256, N // 2)
    RADIX2 = int(np.log2(N))

    def cmul(a, b):
        return a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]

    def radix2(temp, span, index):
        group_offset = index & (span - 1)
        k1 = ((index - group_offset) << 1) + group_offset
        k2 = k1 + span
        angle = 2 * np.pi * -1.0 * tf.float(group_offset) / tf.float(span << 1)
        v1 = temp[2 * k1], temp[2 * k1 + 1]
        v2 = cmul((tf.cos(angle), tf.sin(angle)), (temp[2 * k2], temp[2 * k2 + 1]))
        temp[2 * k1], temp[2 * k1 + 1] = v1[0] + v2[0], v1[1] + v2[1]
        temp[2 * k2], temp[2 * k2 + 1] = v1[0] - v2[0], v1[1] - v2[1]

    others = list(shape)
    others.pop(axis)
    with tf.kernel(others + [BK], group_size=[BK]) as indices:
        temp = tf.group_buffer(N * 2, tf.float32)
        tx = indices[0].block_thread_index(0)
        line = list(indices[:-1])
        for i in range(N // BK):
            row = i * BK + tx
            idx = tf.int(tf.reversebits(tf.uint(row)) >> (32 - RADIX2))
            at = tuple(line[:axis] + [row] + line[axis:])
            temp[2 * idx], temp[2 * idx + 1] = tensor[at + (0,)], tensor[at + (1,)]
        tf.group_barrier()
        span = 1
        while span < N:
            for j in range(N // BK // 2):
                radix2(temp, span, j * BK + tx)
            tf.group_barrier()
            span *= 2
        for i in range(N // BK):
            row = i * BK + tx
            at = tuple(line[:axis] + [row] + line[axis:])
            tensor[at + (0,)], tensor[at + (1,)] = temp[2 * row], temp[2 * row + 1]


def test_upstreams_fft3d_group_size_with_fewer_entries_than_axes(backend, rng):
    R = 16

    def fft():
        A = tf.input([R, R, 2], tf.float32)
        B = tf.copy(A)
        _fft_along(B, 0)
        _fft_along(B, 1)
        return B
    image = rng.random((R, R)).astype(np.float32)
    out = tf.compile(fft)(np.stack([image, np.zeros_like(image)], -1)).numpy
    reference = np.fft.fft2(image.astype(np.float64))
    # 8 butterfly levels of float32 sums of 256 values in [0, 1): errors ~1e-7 * 256 * 8
    np.testing.assert_allclose(out[..., 0] + 1j * out[..., 1], reference, atol=1e-3)


def test_group_size_entries_apply_from_the_last_axis(backend):
    def program():
        out = tf.zeros([4, 6, 3], tf.int32)
        with tf.kernel([4, 6], group_size=[3, 2]) as (i, j):  # 3 along j (the last axis), 2 along i
            out[i, j, 0] = i.block_thread_index(0)
            out[i, j, 1] = i.block_thread_index(1)
            out[i, j, 2] = i.block_index()
        rows = tf.zeros([3, 8], tf.int32)
        with tf.kernel([3, 8], group_size=[8]) as (a, b):  # one group per row
            rows[a, b] = a.block_index()
        return out, rows
    out, rows = (r.numpy for r in tf.compile(program)())
    i, j = np.indices((4, 6))
    np.testing.assert_array_equal(out[..., 0], j % 3)
    np.testing.assert_array_equal(out[..., 1], i % 2)
    np.testing.assert_array_equal(out[..., 2], (i // 2) * 2 + j // 3)  # groups row-major over [2, 2]
    np.testing.assert_array_equal(rows, np.repeat(np.arange(3)[:, None], 8, axis=1))


def test_default_group_sizes_are_upstreams():
    def program():
        flat = tf.zeros([600], tf.int32)
        with tf.kernel([600]) as i:
            flat[i] = i.block_index()  # groups of 256
        square = tf.zeros([20, 40], tf.int32)
        with tf.kernel([20, 40]) as (a, b):
            square[a, b] = a.block_index()  # 16 x 16
        small = tf.zeros([2, 5], tf.int32)
        with tf.kernel([2, 5]) as (c, d):
            small[c, d] = d.block_thread_index(0) + 10 * d.block_thread_index(1)  # 5 x 2: no larger than the dims
        return flat, square, small
    flat, square, small = (r.numpy for r in tf.compile(program)())
    np.testing.assert_array_equal(flat, np.arange(600) // 256)
    a, b = np.indices((20, 40))
    np.testing.assert_array_equal(square, (a // 16) * 3 + b // 16)
    c, d = np.indices((2, 5))
    np.testing.assert_array_equal(small, d + 10 * c)


def test_more_group_entries_than_axes_is_refused():
    def program():
        out = tf.zeros([4], tf.int32)
        with tf.kernel([4], group_size=[2, 2]) as i:
            out[i] = i
        return out
    with pytest.raises(tf.ShapeError, match=r"group_size needs one to 1 positive ints.*\[2, 2\]"):
        tf.compile(program)


# -- tf.get_all_generated_kernels() in every mode ---------------------------------------------------


def test_all_generated_kernels_in_every_mode(backend):
    def program():
        a = tf.input([-1], tf.float32)
        b = tf.zeros(a.shape, tf.float32)
        tf.scatterAdd(b[tf.int(a) % 4], a)
        return b * 2.0 + a
    before = len(tf.get_all_generated_kernels())
    compiled = tf.compile(program)
    kernels = tf.get_all_generated_kernels()[before:]
    assert kernels == compiled.get_kernels() and len(kernels) >= 2
    main = {tf.opengl: "void main(", tf.webgpu: "fn main("}.get(backend, "void program_k")
    for kernel in kernels:  # upstream's entries: ((header, bindings, main), buffers)
        header, bindings, body = kernel[0]
        assert main in body and kernel.endswith(body)
        assert set((header + bindings).splitlines()) <= set(kernel.splitlines())
        assert all(isinstance(name, str) and kind in ("float", "int", "uint", "int32_t", "uint32_t", "f32", "i32",
                                                      "u32") for name, kind in kernel[1])
        assert kernel[:10] == str(kernel)[:10]  # slices are the text's
    if backend is tf.opengl:
        assert "layout(std430, binding = 0)" in kernels[0][0][1] and kernels[0][0][0].startswith("#version 430")
    if backend is tf.webgpu:
        assert "@group(0) @binding(0) var<storage, read_write>" in kernels[0][0][1]
    # the scatter's target: WGSL's float scatterAdd is a compare-and-swap on the float's bits
    assert kernels[1][1][0][1] == ("u32" if backend is tf.webgpu else "float")


# -- gradients through tf.linalg.qr and svd ---------------------------------------------------------


def _signs_fixed_qr(a):
    q, r = np.linalg.qr(a)
    s = np.sign(np.diag(r))
    return q * s, r * s[:, None]  # R's diagonal positive, as Gram-Schmidt gives


def test_grad_through_qr(backend, rng):
    m, n = 5, 3
    wq, wr = rng.standard_normal((m, n)), rng.standard_normal((n, n))

    def program():
        A = tf.input([m, n], tf.float32)
        WQ, WR = tf.input([m, n], tf.float32), tf.input([n, n], tf.float32)
        Q, R = tf.linalg.qr(A)
        loss = tf.sum(tf.sum(Q * WQ)) + tf.sum(tf.sum(R * WR))
        return loss, tf.grad(loss, A)

    def reference(a):
        q, r = _signs_fixed_qr(a)
        return (q * wq).sum() + (r * wr).sum()
    a = rng.standard_normal((m, n)).astype(np.float32)
    loss, grad = tf.compile(program)(a, wq.astype(np.float32), wr.astype(np.float32))
    np.testing.assert_allclose(loss.numpy, reference(a.astype(np.float64)), rtol=1e-5)
    # float32 Gram-Schmidt of a well-conditioned 5 x 3: about 1e-6 relative
    np.testing.assert_allclose(grad.numpy, central_differences(reference, a), atol=2e-5)


def _total(x):
    """The sum of every element, as a [1] tensor (a sum over the last axis leaves one of size 1)."""
    for _ in range(x.ndim - 1):
        x = tf.sum(x)
    return tf.sum(x)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
def test_grad_through_svd(backend, rng, shape):
    *batch, m, n = shape
    k = min(m, n)
    wu, ws, wv = rng.standard_normal((m, k)), rng.standard_normal(k), rng.standard_normal((k, n))

    def program():
        A = tf.input(list(shape), tf.float32)
        WU, WS, WV = tf.input([m, k], tf.float32), tf.input([k], tf.float32), tf.input([k, n], tf.float32)
        U, S, Vh = tf.linalg.svd(A)
        # squares of U and Vh: the loss does not depend on the signs of singular vector pairs
        loss = _total(U * U * WU) + _total(S * WS) + _total(Vh * Vh * WV)
        return loss, tf.grad(loss, A)

    def reference(a):
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        return (u * u * wu).sum() + (s * ws).sum() + (vh * vh * wv).sum()
    a = rng.standard_normal(shape).astype(np.float32)
    f32 = np.float32
    loss, grad = tf.compile(program)(a, wu.astype(f32), ws.astype(f32), wv.astype(f32))
    np.testing.assert_allclose(loss.numpy, reference(a.astype(np.float64)), rtol=1e-5)
    # distinct singular values of random matrices: gaps of O(0.1) amplify float32 rounding ~10x
    np.testing.assert_allclose(grad.numpy, central_differences(reference, a), atol=5e-5)


def test_grad_through_lu_follows_its_elimination_loop(backend, rng):
    """lu has no closed form here: the gradient goes through its loops (the rows it swaps
    in place included), taped as any loop."""
    n = 4
    w1, w2 = rng.standard_normal((n, n)), rng.standard_normal((n, n))

    def program():
        A, W1, W2 = (tf.input([n, n], tf.float32) for _ in range(3))
        _, L, U = tf.linalg.lu(A)
        loss = tf.sum(tf.sum(L * W1)) + tf.sum(tf.sum(U * W2))
        return loss, tf.grad(loss, A)

    def reference(a):
        p = np.arange(n)
        u = a.copy()
        low = np.eye(n)
        for c in range(n - 1):  # partial pivoting, as scipy.linalg.lu (P A = L U)
            r = c + int(np.argmax(np.abs(u[c:, c])))
            u[[c, r]], p[[c, r]], low[[c, r], :c] = u[[r, c]], p[[r, c]], low[[r, c], :c]
            low[c + 1:, c] = u[c + 1:, c] / u[c, c]
            u[c + 1:] -= np.outer(low[c + 1:, c], u[c])
        return (low * w1).sum() + (np.triu(u) * w2).sum()
    a = rng.standard_normal((n, n)).astype(np.float32)
    loss, grad = tf.compile(program)(a, w1.astype(np.float32), w2.astype(np.float32))
    np.testing.assert_allclose(loss.numpy, reference(a.astype(np.float64)), rtol=1e-5)
    np.testing.assert_allclose(grad.numpy, central_differences(reference, a), atol=2e-5)


# -- in-place updates inside differentiated loops (upstream's examples/ML/VMC/logdet_test) ---------

EPS = 1e-8


def _safe_divide(a, b):
    return a / tf.select(tf.abs(b) < EPS, EPS * tf.sign(b), b)


def _qr_batched(A):
    """Upstream's qr_decomposition_batched_tensorfrost (examples/ML/VMC/logdet.py): Gram-
    Schmidt whose loop updates A, Q and R in place."""
    b, m, n = A.shape
    A = tf.copy(A)
    Q, R = tf.zeros([b, m, n]), tf.zeros([b, n, n])
    bj, j = tf.indices([b, m])
    bi, = tf.indices([b])
    with tf.loop(n - 1) as i:
        R[bi, i, i] = tf.norm(A[bj, j, i])
        Q[bj, j, i] = _safe_divide(A[bj, j, i], R[bj, i, i])
        bpk, p, k = tf.index_grid([0, 0, i + 1], [b, m, n])
        summed = tf.sum(Q[bpk, p, i] * A[bpk, p, k], axis=-2)
        bt, t = summed.indices
        R[bt, i, t + i + 1] = summed
        A[bpk, p, k] -= Q[bpk, p, i] * R[bpk, i, k]
    R[bi, n - 1, n - 1] = tf.norm(A[bj, j, n - 1])
    Q[bj, j, n - 1] = _safe_divide(A[bj, j, n - 1], R[bj, n - 1, n - 1])
    return Q, R


def _logdet(A):
    _, R = _qr_batched(A)
    bi, = tf.indices([R.shape[0]])
    total = tf.const(0.0)
    with tf.loop(R.shape[1]) as i:
        total.val += tf.log(tf.max(tf.abs(R[bi, i, i]), EPS))
    return total


def _inverse_transposed(A):
    """inv(A)^T as upstream's vjp computes it: R^-1 Q^T from the same QR, transposed."""
    Q, R = _qr_batched(A)
    b, n, _ = R.shape
    inverse = tf.zeros([b, n, n])
    lower = R.T
    bi, = tf.indices([b])
    inverse[bi, 0, 0] = _safe_divide(1.0, lower[bi, 0, 0])
    with tf.loop(1, n) as i:
        inverse[bi, i, i] = _safe_divide(1.0, lower[bi, i, i])
        bpk, p, k = tf.indices([b, i, i])
        bt, t = tf.indices([b, i])
        inverse[bt, i, t] = -tf.sum(lower[bpk, i, p] * inverse[bpk, p, k], axis=-2) / lower[bt, i, i]
    return (inverse.T @ Q.T).T


def _logdet_reference(a):
    return np.linalg.slogdet(a)[1]


def test_upstreams_logdet_test_with_a_custom_vjp(backend, rng):
    tf.register_custom_operation("logdet_round3", ["f_f"], lambda inputs, tensor, axes: [_logdet(inputs[0])],
                                 lambda inputs, g, tensor: [_inverse_transposed(inputs[0])
                                                            * tf.unsqueeze(tf.unsqueeze(g))])

    def program():
        A = tf.input([-1, -1, -1], tf.float32)
        A = tf.assert_tensor(A, [A.shape[0], A.shape[1], A.shape[1]], tf.float32)
        B = tf.custom("logdet_round3", [A], [A.shape[0]])
        loss = tf.sum(B * B)
        return B, tf.grad(loss, A), loss
    a = rng.standard_normal((4, 6, 6)).astype(np.float32)
    b, grad, loss = tf.compile(program)(a)
    a64 = a.astype(np.float64)
    np.testing.assert_allclose(b.numpy, _logdet_reference(a64), atol=1e-4)
    expected = 2 * _logdet_reference(a64)[:, None, None] * np.linalg.inv(a64).transpose(0, 2, 1)
    np.testing.assert_allclose(grad.numpy, expected, rtol=1e-3, atol=1e-3 * np.abs(expected).max())


def test_logdet_differentiated_through_its_in_place_loops(backend, rng):
    """The same logdet without a custom vjp: tf.grad goes through the Gram-Schmidt loop,
    which overwrites A, Q and R; each trip is recomputed from the contents it started with."""
    def program():
        A = tf.input([-1, -1, -1], tf.float32)
        B = _logdet(A)
        loss = tf.sum(B * B)
        return B, tf.grad(loss, A)
    a = rng.standard_normal((3, 5, 5)).astype(np.float32)
    b, grad = tf.compile(program)(a)
    np.testing.assert_allclose(b.numpy, _logdet_reference(a.astype(np.float64)), atol=1e-5)
    numeric = central_differences(lambda x: (_logdet_reference(x) ** 2).sum(), a)
    # float32 Gram-Schmidt of random 5 x 5 matrices: ~1e-6 relative, amplified by their conditioning
    np.testing.assert_allclose(grad.numpy, numeric, rtol=1e-3, atol=1e-4 * np.abs(numeric).max())


N = 6


# Each case: (tracing program body on a copy ``a`` of x, the same in float64 numpy, the scale
# of x), a loop that reads a tensor it overwrites by index.
def nested(a):
    with tf.loop(3):
        with tf.loop(N - 1) as j:
            a[j + 1] = a[j + 1] + 0.5 * tf.sin(a[j])
        a[0] = a[0] * 0.9 + a[N - 1] * 0.1


def nested_np(a):
    for _ in range(3):
        for j in range(N - 1):
            a[j + 1] = a[j + 1] + 0.5 * np.sin(a[j])
        a[0] = a[0] * 0.9 + a[N - 1] * 0.1


def rolled(a):  # each trip reads the neighbour's old value (the test that refused it before)
    i, = a.indices
    with tf.loop(3):
        a[i] = a[(i + 1) % N] * a[i]


def rolled_np(a):
    for _ in range(3):
        a[:] = np.roll(a, -1) * a


def stale_break(a):  # the break reads the tensor the loop overwrites (true at first, then not)
    with tf.loop(20):
        i, = a.indices
        a[i] = a[i] * 0.9 + 0.25
        with tf.if_cond(tf.max(tf.abs(a)) < 0.2):
            tf.break_loop()


def stale_break_np(a):
    for _ in range(20):
        a[:] = a * 0.9 + 0.25
        if np.abs(a).max() < 0.2:
            break


def local_buffer_decides(a):  # a buffer of the loop's own is what the break reads
    with tf.loop(30):
        step = tf.zeros([N], tf.float32)
        i, = step.indices
        step[i] = (1.0 - a[i]) * 0.3
        a[i] = a[i] + step[i]
        with tf.if_cond(tf.max(tf.abs(step)) < 0.05):
            tf.break_loop()


def local_buffer_decides_np(a):
    for _ in range(30):
        step = (1.0 - a) * 0.3
        a += step
        if np.abs(step).max() < 0.05:
            break


def permuted(a):  # an int permutation swapped in place picks what each trip reads
    perm = tf.indices([N])[0] * 1
    with tf.loop(N - 1) as k:
        first, second = perm[k], perm[k + 1]
        with tf.if_cond(a[first] < a[second]):
            perm[k], perm[k + 1] = second, first
        a[perm[k + 1]] = a[perm[k + 1]] * 0.5 + a[perm[k]] * a[perm[k]]


def permuted_np(a):
    perm = list(range(N))
    for k in range(N - 1):
        if a[perm[k]] < a[perm[k + 1]]:
            perm[k], perm[k + 1] = perm[k + 1], perm[k]
        a[perm[k + 1]] = a[perm[k + 1]] * 0.5 + a[perm[k]] ** 2


def in_if(a):
    with tf.loop(4):
        with tf.if_cond(a[0] > 0.0):
            i, = tf.index_grid([1], [N])
            a[i] = a[i] + a[i - 1] * 0.5
        with tf.if_cond(a[0] <= 0.0):
            i, = tf.index_grid([0], [N - 1])
            a[i] = a[i] * 1.5 - a[i + 1]


def in_if_np(a):
    for _ in range(4):
        if a[0] > 0:
            a[1:] = a[1:] + a[:-1] * 0.5
        else:
            a[:-1] = a[:-1] * 1.5 - a[1:]


_LOOP_CASES = {"nested": (nested, nested_np, 1.0), "rolled": (rolled, rolled_np, 1.0),
        "stale_break": (stale_break, stale_break_np, 0.05),
        "local_buffer_decides": (local_buffer_decides, local_buffer_decides_np, 1.0),
        "permuted": (permuted, permuted_np, 1.0), "in_if": (in_if, in_if_np, 1.0)}


@pytest.mark.parametrize("case", sorted(_LOOP_CASES))
def test_in_place_updates_inside_differentiated_loops(backend, case):
    body, body_np, scale = _LOOP_CASES[case]
    weights = np.arange(1, N + 1, dtype=np.float64)

    def program():
        x = tf.input([N], tf.float32)
        a = tf.copy(x)
        body(a)
        loss = tf.sum(a * tf.float(a.indices[0] + 1))
        return loss, tf.grad(loss, x)

    def reference(x):
        a = np.array(x, np.float64)
        body_np(a)
        return (a * weights).sum()
    x = (np.random.default_rng(7).standard_normal(N) * scale).astype(np.float32)
    loss, grad = tf.compile(program)(x)
    np.testing.assert_allclose(loss.numpy, reference(x), rtol=1e-5)
    numeric = central_differences(reference, x)
    np.testing.assert_allclose(grad.numpy, numeric, rtol=1e-4, atol=1e-5 * np.abs(numeric).max())
