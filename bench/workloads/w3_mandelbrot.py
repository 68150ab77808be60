"""W3: Mandelbrot iteration counts on a 2048^2 grid, up to 256 iterations, leaving on escape.

    z = 0; n = 0; repeat 256 times: z = z^2 + c; n += 1; if |z|^2 > 4: break
The grid covers [-2, 0.75] x [-1.25, 1.25] (symmetric, so a static split of the rows is
balanced). The metric is Mpixel/s. Float rounding (FMA contraction, evaluation order) moves
the escape step of a few pixels on the set's boundary, so the check is the fraction of
pixels whose count differs from numpy's, with a small tolerance.

Taichi kernels need real annotation objects, so no ``from __future__ import annotations``.
"""

import numpy as np

from .. import cbuild, gl, webgpu
from ..harness import Target, Workload
from ..peers import GL_IMPLS, WEBGPU_IMPLS


def inputs(p, rng):
    n = p["n"]
    re = np.linspace(-2.0, 0.75, n, dtype=np.float32)
    im = np.linspace(-1.25, 1.25, n, dtype=np.float32)
    c_im, c_re = np.meshgrid(im, re, indexing="ij")
    return {"c_re": np.ascontiguousarray(c_re), "c_im": np.ascontiguousarray(c_im)}


def _numpy_mandelbrot(c_re, c_im, max_iter):
    """Escape counts with numpy, iterating only the pixels that have not escaped."""
    shape = c_re.shape
    cr, ci = c_re.ravel(), c_im.ravel()
    counts = np.zeros(cr.size, np.float32)
    active = np.arange(cr.size)
    zr = np.zeros(cr.size, np.float32)
    zi = np.zeros(cr.size, np.float32)
    acr, aci = cr, ci
    for _ in range(max_iter):
        zr, zi = zr * zr - zi * zi + acr, np.float32(2) * zr * zi + aci
        counts[active] += 1
        alive = zr * zr + zi * zi <= 4.0
        if not alive.all():
            active, zr, zi, acr, aci = active[alive], zr[alive], zi[alive], acr[alive], aci[alive]
        if active.size == 0:
            break
    return counts.reshape(shape)


def reference(inp, p):
    return [_numpy_mandelbrot(inp["c_re"], inp["c_im"], p["max_iter"])]


def mismatch(outputs, reference):
    """Fraction of pixels whose iteration count differs from the reference."""
    got, want = outputs[0], reference[0]
    if got.shape != want.shape:
        raise ValueError(f"shape {got.shape}, expected {want.shape}")
    return float(np.mean(got != want))


def tensorfrost(inp, p):
    import tensorfrost as tf

    def mandelbrot():
        c_re = tf.input([-1, -1], tf.float32)
        c_im = tf.input(c_re.shape, tf.float32)
        z_re = tf.const(0.0)
        z_im = tf.const(0.0)
        count = tf.const(0.0)
        with tf.loop(p["max_iter"]):
            z_re_new = z_re * z_re - z_im * z_im + c_re
            z_im_new = 2.0 * z_re * z_im + c_im
            z_re.val = z_re_new
            z_im.val = z_im_new
            count.val = count + 1.0
            with tf.if_cond(z_re * z_re + z_im * z_im > 4.0):
                tf.break_loop()
        return count

    prog = tf.compile(mandelbrot)
    c_re, c_im = tf.tensor(inp["c_re"]), tf.tensor(inp["c_im"])
    return (lambda: prog(c_re, c_im)), (lambda out: [out.numpy])


def c(inp, p):
    lib = cbuild.library()
    c_re, c_im = inp["c_re"], inp["c_im"]
    out = np.empty_like(c_re)

    def run():
        lib.w3_mandelbrot(cbuild.ptr(c_re), cbuild.ptr(c_im), cbuild.ptr(out), *c_re.shape, p["max_iter"])
        return out
    return run, (lambda o: [o.copy()])


def numpy_impl(inp, p):
    return (lambda: _numpy_mandelbrot(inp["c_re"], inp["c_im"], p["max_iter"])), (lambda o: [o])


def numba_impl(inp, p):
    import numba

    @numba.njit(parallel=True, fastmath=True, cache=False)
    def mandelbrot(c_re, c_im, out, max_iter):
        n, m = c_re.shape
        for i in numba.prange(n):
            for j in range(m):
                cr, ci = c_re[i, j], c_im[i, j]
                zr = zi = np.float32(0)
                count = np.float32(0)
                for _ in range(max_iter):
                    zr, zi = zr * zr - zi * zi + cr, np.float32(2) * zr * zi + ci
                    count += np.float32(1)
                    if zr * zr + zi * zi > np.float32(4):
                        break
                out[i, j] = count

    def run():
        out = np.empty_like(inp["c_re"])
        mandelbrot(inp["c_re"], inp["c_im"], out, p["max_iter"])
        return out
    return run, (lambda o: [o])


def jax_impl(inp, p):
    import jax
    import jax.numpy as jnp

    @jax.jit
    def mandelbrot(c_re, c_im):
        def body(_, state):
            zr, zi, count = state
            alive = zr * zr + zi * zi <= 4.0
            zr2 = jnp.where(alive, zr * zr - zi * zi + c_re, zr)
            zi2 = jnp.where(alive, 2.0 * zr * zi + c_im, zi)
            return zr2, zi2, count + alive.astype(jnp.float32)
        zero = jnp.zeros_like(c_re)
        return jax.lax.fori_loop(0, p["max_iter"], body, (zero, zero, zero))[2]

    c_re, c_im = jax.device_put(inp["c_re"]), jax.device_put(inp["c_im"])
    return (lambda: mandelbrot(c_re, c_im).block_until_ready()), (lambda o: [np.asarray(o)])


def torch_impl(inp, p, compiled=False):
    import torch

    block = 8  # iterations per (compiled) call: unrolling all 256 would make torch.compile crawl

    def iterate(zr, zi, count, c_re, c_im):
        for _ in range(block):
            alive = zr * zr + zi * zi <= 4.0
            zr, zi = (torch.where(alive, zr * zr - zi * zi + c_re, zr), torch.where(alive, 2.0 * zr * zi + c_im, zi))
            count = count + alive.float()
        return zr, zi, count

    if compiled:
        iterate = torch.compile(iterate)
    c_re, c_im = torch.from_numpy(inp["c_re"]), torch.from_numpy(inp["c_im"])
    assert p["max_iter"] % block == 0

    def run():
        with torch.no_grad():
            zr, zi, count = torch.zeros_like(c_re), torch.zeros_like(c_re), torch.zeros_like(c_re)
            for _ in range(p["max_iter"] // block):
                zr, zi, count = iterate(zr, zi, count, c_re, c_im)
            return count
    return run, (lambda o: [o.numpy()])


def taichi_impl(inp, p):
    import taichi as ti

    @ti.kernel
    def mandelbrot(c_re: ti.types.ndarray(dtype=ti.f32, ndim=2), c_im: ti.types.ndarray(dtype=ti.f32, ndim=2),
                   out: ti.types.ndarray(dtype=ti.f32, ndim=2), max_iter: ti.i32):
        for i, j in ti.ndrange(c_re.shape[0], c_re.shape[1]):
            cr, ci = c_re[i, j], c_im[i, j]
            zr, zi, count = 0.0, 0.0, 0.0
            for _ in range(max_iter):
                zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
                count += 1.0
                if zr * zr + zi * zi > 4.0:
                    break
            out[i, j] = count

    shape = inp["c_re"].shape
    c_re, c_im, out = (ti.ndarray(ti.f32, shape) for _ in range(3))
    c_re.from_numpy(inp["c_re"])
    c_im.from_numpy(inp["c_im"])

    def run():
        mandelbrot(c_re, c_im, out, p["max_iter"])
        ti.sync()
        return out
    return run, (lambda o: [o.to_numpy()])


_GLSL = """#version 430
layout(local_size_x = LX, local_size_y = LY) in;
layout(std430, binding = 0) writeonly buffer OUT { float counts[]; };
layout(std430, binding = 1) readonly buffer CR { float c_re[]; };
layout(std430, binding = 2) readonly buffer CI { float c_im[]; };
layout(location = 0) uniform int n;
layout(location = 1) uniform int m;
layout(location = 2) uniform int max_iter;
void main() {
#ifdef FLAT
    int k = int(gl_GlobalInvocationID.x);
    if (k >= n * m) return;
#else
    int i = int(gl_GlobalInvocationID.y), j = int(gl_GlobalInvocationID.x);
    if (i >= n || j >= m) return;
    int k = i * m + j;
#endif
    float cr = c_re[k], ci = c_im[k], zr = 0.0, zi = 0.0, count = 0.0;
    for (int it = 0; it < max_iter; it++) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0 * zr * zi + ci;
        zr = t;
        count += 1.0;
        if (zr * zr + zi * zi > 4.0) break;
    }
    counts[k] = count;
}
"""


def glsl_impl(inp, p):
    gl.context()
    n, m = inp["c_re"].shape
    c_re, c_im, out = gl.buffer(inp["c_re"]), gl.buffer(inp["c_im"]), gl.buffer(4 * n * m)

    def make_run(local):  # (x, y) groups in 2-D, (x, 0) in 1-D (faster on llvmpipe: no row to find)
        source = _GLSL.replace("LX", str(local[0])).replace("LY", str(max(local[1], 1)))
        prog = gl.program(source.replace("#version 430", "#version 430\n#define FLAT") if not local[1] else source)
        groups = (-(-m // local[0]), -(-n // local[1]), 1) if local[1] else gl.groups_1d(n * m, local[0])

        def run():
            gl.dispatch(prog, (out, c_re, c_im), groups, (n, m, p["max_iter"]))
            gl.finish()
            return out
        return run
    run = gl.best_local_size(make_run, ((64, 0), (128, 0), (256, 0), (256, 1), (64, 4), (16, 16)))
    return run, (lambda o: [gl.read(o, (n, m))])


WORKLOAD = Workload(
    id="W3", title="Mandelbrot, break on escape", metric="Mpixel/s",
    sizes={"quick": {"n": 256, "max_iter": 256}, "full": {"n": 2048, "max_iter": 256}},
    inputs=inputs, reference=reference, check=mismatch, tolerance=0.01,
    impls={"tensorfrost": tensorfrost, "c": c, "numpy": numpy_impl, "numba": numba_impl, "jax": jax_impl,
           "torch": torch_impl, "torch.compile": lambda i, p: torch_impl(i, p, compiled=True),
           "taichi": taichi_impl, GL_IMPLS[0]: gl.tensorfrost_gl(tensorfrost), GL_IMPLS[1]: glsl_impl,
           GL_IMPLS[2]: gl.taichi_gl(taichi_impl), WEBGPU_IMPLS[0]: webgpu.tensorfrost_webgpu(tensorfrost),
           WEBGPU_IMPLS[1]: webgpu.taichi_vulkan(taichi_impl)},
    work=lambda p: p["n"] * p["n"] / 1e6,
    targets=[Target("peer", 1.0, peers=("numba", "taichi"), text="at least the best of numba and taichi"), *gl.TARGETS,
             *webgpu.TARGETS],
    note="jax and torch have no early exit per pixel: they run all iterations with a mask.",
)
