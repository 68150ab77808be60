"""W2: 10 steps of the 2-D wave equation on a 4096^2 grid with clamped borders.

One step (the seed README's example, edge values repeated at the borders):
    lap = u[i-1,j] + u[i+1,j] + u[i,j-1] + u[i,j+1] - 4u;  v' = v + 0.1 lap;  u' = u + 0.1 v'
The metric is Gcell-steps/s; a step has to read u and v and write u' and v' (16 bytes per
cell), which is what the bandwidth fraction counts. Every run starts from the same (u, v).

Taichi kernels need real annotation objects, so no ``from __future__ import annotations``.
"""

import numpy as np

from .. import cbuild, gl, webgpu
from ..harness import Target, Workload, at_size
from ..peers import GL_IMPLS, WEBGPU_IMPLS

C = 0.1


def inputs(p, rng):
    n = p["n"]
    y, x = np.mgrid[0:n, 0:n].astype(np.float32) / np.float32(n)
    u = np.exp(-((x - 0.4) ** 2 + (y - 0.55) ** 2) * 60.0).astype(np.float32)
    u += rng.normal(0.0, 0.01, (n, n)).astype(np.float32)
    return {"u": u, "v": np.zeros((n, n), np.float32)}


def _numpy_step(u, v, dtype=np.float32):
    c = dtype(C)
    p = np.pad(u, 1, mode="edge")
    lap = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - u * dtype(4)
    v = v + c * lap
    return u + c * v, v


def reference(inp, p):
    u, v = inp["u"].astype(np.float64), inp["v"].astype(np.float64)
    for _ in range(p["steps"]):
        u, v = _numpy_step(u, v, np.float64)
    return [u.astype(np.float32), v.astype(np.float32)]


def tensorfrost(inp, p):
    import tensorfrost as tf

    from .programs import wave_step

    step = tf.compile(wave_step)
    u0, v0 = tf.tensor(inp["u"]), tf.tensor(inp["v"])

    def run():
        u, v = u0, v0
        for _ in range(p["steps"]):
            u, v = step(u, v)
        return u, v
    return run, (lambda out: [out[0].numpy, out[1].numpy])


def tensorfrost_one_program(inp, p):
    """All the steps in one call: the program traces ``steps`` steps (a Python loop)."""
    import tensorfrost as tf

    from .programs import wave_steps

    steps = tf.compile(lambda: wave_steps(p["steps"]), name="wave_steps")
    u0, v0 = tf.tensor(inp["u"]), tf.tensor(inp["v"])
    return (lambda: steps(u0, v0)), (lambda out: [out[0].numpy, out[1].numpy])


def c(inp, p):
    lib = cbuild.library()
    n = p["n"]
    bufs = [np.empty((n, n), np.float32) for _ in range(4)]

    def run():
        u, v = inp["u"], inp["v"]
        for k in range(p["steps"]):
            uo, vo = bufs[2 * (k % 2)], bufs[2 * (k % 2) + 1]
            lib.w2_wave_step(cbuild.ptr(u), cbuild.ptr(v), cbuild.ptr(uo), cbuild.ptr(vo), n, n, C)
            u, v = uo, vo
        return u, v
    return run, (lambda out: [out[0].copy(), out[1].copy()])


SMALL_SIDE = 512  # 4 MB of u, v and their next step: the cache-resident size of the issue


def _small_grid(impl):
    """``impl`` on a SMALL_SIDE^2 grid, as often as one full run's work takes."""
    def side(p):
        return min(SMALL_SIDE, p["n"])
    return at_size(impl, lambda p: {"n": side(p)}, lambda p: (p["n"] // side(p)) ** 2, inputs, reference)


def numpy_impl(inp, p):
    def run():
        u, v = inp["u"], inp["v"]
        for _ in range(p["steps"]):
            u, v = _numpy_step(u, v)
        return u, v
    return run, list


def numba_impl(inp, p):
    import numba

    @numba.njit(parallel=True, fastmath=True, cache=False)
    def step(u, v, uo, vo):
        n, m = u.shape
        c = np.float32(C)
        for i in numba.prange(n):
            up, down = max(i - 1, 0), min(i + 1, n - 1)
            for j in range(m):
                left, right = max(j - 1, 0), min(j + 1, m - 1)
                lap = u[up, j] + u[down, j] + u[i, left] + u[i, right] - np.float32(4) * u[i, j]
                vn = v[i, j] + c * lap
                vo[i, j] = vn
                uo[i, j] = u[i, j] + c * vn

    def run():
        u, v = inp["u"], inp["v"]
        for _ in range(p["steps"]):
            uo, vo = np.empty_like(u), np.empty_like(v)
            step(u, v, uo, vo)
            u, v = uo, vo
        return u, v
    return run, list


def jax_impl(inp, p):
    import jax
    import jax.numpy as jnp

    def one(state, _):
        u, v = state
        q = jnp.pad(u, 1, mode="edge")
        lap = q[:-2, 1:-1] + q[2:, 1:-1] + q[1:-1, :-2] + q[1:-1, 2:] - 4.0 * u
        v = v + C * lap
        return (u + C * v, v), None

    @jax.jit
    def steps(u, v):
        return jax.lax.scan(one, (u, v), None, length=p["steps"])[0]

    u, v = jax.device_put(inp["u"]), jax.device_put(inp["v"])

    def run():
        out = steps(u, v)
        out[0].block_until_ready()
        return out
    return run, (lambda out: [np.asarray(out[0]), np.asarray(out[1])])


def torch_impl(inp, p, compiled=False):
    import torch

    def step(u, v):
        up = torch.cat([u[:1], u[:-1]], 0)
        down = torch.cat([u[1:], u[-1:]], 0)
        left = torch.cat([u[:, :1], u[:, :-1]], 1)
        right = torch.cat([u[:, 1:], u[:, -1:]], 1)
        v = v + C * (up + down + left + right - 4.0 * u)
        return u + C * v, v

    if compiled:
        step = torch.compile(step)
    u0, v0 = torch.from_numpy(inp["u"]), torch.from_numpy(inp["v"])

    def run():
        u, v = u0, v0
        with torch.no_grad():
            for _ in range(p["steps"]):
                u, v = step(u, v)
        return u, v
    return run, (lambda out: [out[0].numpy(), out[1].numpy()])


def taichi_impl(inp, p):
    import taichi as ti

    @ti.kernel
    def step(u: ti.types.ndarray(dtype=ti.f32, ndim=2), v: ti.types.ndarray(dtype=ti.f32, ndim=2),
             uo: ti.types.ndarray(dtype=ti.f32, ndim=2), vo: ti.types.ndarray(dtype=ti.f32, ndim=2)):
        n, m = u.shape[0], u.shape[1]
        for i, j in ti.ndrange(n, m):
            lap = (u[ti.max(i - 1, 0), j] + u[ti.min(i + 1, n - 1), j] + u[i, ti.max(j - 1, 0)]
                   + u[i, ti.min(j + 1, m - 1)] - 4.0 * u[i, j])
            vn = v[i, j] + C * lap
            vo[i, j] = vn
            uo[i, j] = u[i, j] + C * vn

    shape = inp["u"].shape
    u0, v0 = ti.ndarray(ti.f32, shape), ti.ndarray(ti.f32, shape)
    u0.from_numpy(inp["u"])
    v0.from_numpy(inp["v"])
    bufs = [ti.ndarray(ti.f32, shape) for _ in range(4)]

    def run():
        u, v = u0, v0
        for k in range(p["steps"]):
            uo, vo = bufs[2 * (k % 2)], bufs[2 * (k % 2) + 1]
            step(u, v, uo, vo)
            u, v = uo, vo
        ti.sync()
        return u, v
    return run, (lambda out: [out[0].to_numpy(), out[1].to_numpy()])


_GLSL = """#version 430
layout(local_size_x = LX, local_size_y = LY) in;
layout(std430, binding = 0) writeonly buffer UO { float uo[]; };
layout(std430, binding = 1) writeonly buffer VO { float vo[]; };
layout(std430, binding = 2) readonly buffer U { float u[]; };
layout(std430, binding = 3) readonly buffer V { float v[]; };
layout(location = 0) uniform int n;
layout(location = 1) uniform int m;
void main() {
    int i = int(gl_GlobalInvocationID.y), j = int(gl_GlobalInvocationID.x);
    if (i >= n || j >= m) return;
    int k = i * m + j;
    float c = u[k];
    float lap = u[max(i - 1, 0) * m + j] + u[min(i + 1, n - 1) * m + j] + u[k - min(j, 1)]
              + u[k + min(m - 1 - j, 1)] - 4.0 * c;
    float vn = v[k] + C * lap;
    vo[k] = vn;
    uo[k] = c + C * vn;
}
""".replace("C *", f"{C} *")


def glsl_impl(inp, p):
    gl.context()
    n, m = inp["u"].shape
    u0, v0 = gl.buffer(inp["u"]), gl.buffer(inp["v"])
    bufs = [gl.buffer(4 * n * m) for _ in range(4)]

    def make_run(local):
        prog = gl.program(_GLSL.replace("LX", str(local[0])).replace("LY", str(local[1])))
        groups = (-(-m // local[0]), -(-n // local[1]), 1)

        def run():
            u, v = u0, v0
            for k in range(p["steps"]):
                uo, vo = bufs[2 * (k % 2)], bufs[2 * (k % 2) + 1]
                gl.dispatch(prog, (uo, vo, u, v), groups, (n, m))
                u, v = uo, vo
            gl.finish()
            return u, v
        return run
    run = gl.best_local_size(make_run, ((256, 1), (64, 4), (32, 8)))
    return run, (lambda out: [gl.read(out[0], (n, m)), gl.read(out[1], (n, m))])


WORKLOAD = Workload(
    id="W2", title="2-D wave equation, clamped borders, 10 steps", metric="Gcell-steps/s",
    sizes={"quick": {"n": 512, "steps": 10}, "full": {"n": 4096, "steps": 10}},
    inputs=inputs, reference=reference,
    impls={"tensorfrost": tensorfrost, "tensorfrost (10 steps in one program)": tensorfrost_one_program,
           "c": c, "numpy": numpy_impl, "numba": numba_impl, "jax": jax_impl,
           "torch": torch_impl, "torch.compile": lambda i, p: torch_impl(i, p, compiled=True),
           "taichi": taichi_impl, GL_IMPLS[0]: gl.tensorfrost_gl(tensorfrost), GL_IMPLS[1]: glsl_impl,
           GL_IMPLS[2]: gl.taichi_gl(taichi_impl), WEBGPU_IMPLS[0]: webgpu.tensorfrost_webgpu(tensorfrost),
           WEBGPU_IMPLS[1]: webgpu.taichi_vulkan(taichi_impl),
           "tensorfrost (512^2)": _small_grid(tensorfrost), "c (512^2)": _small_grid(c)},
    work=lambda p: p["n"] * p["n"] * p["steps"] / 1e9, bytes_moved=lambda p: 16 * p["n"] * p["n"] * p["steps"],
    tolerance=1e-4,
    targets=[Target("c", 1.0, text="a call per step: at least the hand-written C"),
             Target("c", 1.5, impl="tensorfrost (10 steps in one program)",
                    text="10 steps in one program: at least 1.5x the hand-written C"),
             Target("peer", 0.9, peers=("c (512^2)",), impl="tensorfrost (512^2)", sizes=("full",),
                    text="a call per step at 512^2 (in L3): 90% of the C there"), *gl.TARGETS, *webgpu.TARGETS],
)
