"""W4: one step of an all-pairs n-body simulation, N = 8192, unit masses.

    a_i = sum_j (p_j - p_i) / (|p_j - p_i|^2 + 0.01)^(3/2);  v' = v + dt a;  p' = p + dt v'
with dt = 0.01 (0.01 is the softening added to r^2). Positions and velocities are [N, 3]
float32. The metric is G interactions/s (N^2 pairs per step). The check is the largest
error of the new velocities relative to the largest velocity change, and of the positions.

Taichi kernels need real annotation objects, so no ``from __future__ import annotations``.
"""

import numpy as np

from .. import cbuild, gl, webgpu
from ..harness import Target, Workload
from ..peers import GL_IMPLS, WEBGPU_IMPLS

DT = 0.01
EPS2 = 0.01


def inputs(p, rng):
    n = p["n"]
    return {"pos": rng.uniform(-1.0, 1.0, (n, 3)).astype(np.float32),
            "vel": rng.normal(0.0, 0.1, (n, 3)).astype(np.float32)}


def _numpy_accel(pos, dtype=np.float32, chunk=512):
    """Accelerations, computed over blocks of rows to bound the N x N temporaries."""
    pos = pos.astype(dtype)
    acc = np.empty_like(pos)
    for s in range(0, pos.shape[0], chunk):
        d = pos[None, :, :] - pos[s:s + chunk, None, :]
        r2 = np.einsum("ijk,ijk->ij", d, d) + dtype(EPS2)
        inv = 1.0 / (r2 * np.sqrt(r2))
        acc[s:s + chunk] = np.einsum("ijk,ij->ik", d, inv.astype(dtype))
    return acc


def _step(pos, vel, acc, dtype=np.float32):
    vel2 = vel.astype(dtype) + dtype(DT) * acc
    return pos.astype(dtype) + dtype(DT) * vel2, vel2


def reference(inp, p):
    pos, vel = _step(inp["pos"], inp["vel"], _numpy_accel(inp["pos"], np.float64), np.float64)
    return [pos, vel, inp["vel"].astype(np.float64)]


def check(outputs, reference):
    """max error of v' relative to max |v' - v|, and of p' relative to max |p' - p| (the step)."""
    pos, vel = (np.asarray(o, np.float64) for o in outputs)
    ref_pos, ref_vel, vel0 = reference
    if pos.shape != ref_pos.shape or vel.shape != ref_vel.shape:
        raise ValueError(f"shapes {pos.shape}, {vel.shape}; expected {ref_pos.shape}")
    dv = np.max(np.abs(vel - ref_vel)) / np.max(np.abs(ref_vel - vel0))
    dp = np.max(np.abs(pos - ref_pos)) / (DT * np.max(np.abs(ref_vel)))
    return float(max(dv, dp))


def tensorfrost(inp, p):
    import tensorfrost as tf

    def nbody_step():
        pos = tf.input([-1, 3], tf.float32)
        vel = tf.input(pos.shape, tf.float32)
        n = pos.shape[0]
        i, j = tf.indices([n, n])
        dx = pos[j, 0] - pos[i, 0]
        dy = pos[j, 1] - pos[i, 1]
        dz = pos[j, 2] - pos[i, 2]
        r2 = dx * dx + dy * dy + dz * dz + EPS2
        inv = 1.0 / (r2 * tf.sqrt(r2))
        ax, ay, az = tf.sum(dx * inv, axis=1), tf.sum(dy * inv, axis=1), tf.sum(dz * inv, axis=1)
        k, c = vel.indices
        acc = tf.select(c == 0, ax[k], tf.select(c == 1, ay[k], az[k]))
        vel_new = vel + DT * acc
        return [pos + DT * vel_new, vel_new]

    prog = tf.compile(nbody_step)
    pos, vel = tf.tensor(inp["pos"]), tf.tensor(inp["vel"])
    return (lambda: prog(pos, vel)), (lambda out: [out[0].numpy, out[1].numpy])


def c(inp, p):
    lib = cbuild.library()
    pos, vel = inp["pos"], inp["vel"]
    pos_out, vel_out = np.empty_like(pos), np.empty_like(vel)

    def run():
        lib.w4_nbody_step(cbuild.ptr(pos), cbuild.ptr(vel), cbuild.ptr(pos_out), cbuild.ptr(vel_out),
                          pos.shape[0], DT, EPS2)
        return pos_out, vel_out
    return run, (lambda out: [out[0].copy(), out[1].copy()])


def numpy_impl(inp, p):
    return (lambda: _step(inp["pos"], inp["vel"], _numpy_accel(inp["pos"]))), list


def numba_impl(inp, p):
    import numba

    @numba.njit(parallel=True, fastmath=True, cache=False)
    def step(pos, vel, pos_out, vel_out, dt, eps2):
        n = pos.shape[0]
        x, y, z = pos[:, 0].copy(), pos[:, 1].copy(), pos[:, 2].copy()
        for i in numba.prange(n):
            ax = ay = az = np.float32(0)
            for j in range(n):
                dx, dy, dz = x[j] - x[i], y[j] - y[i], z[j] - z[i]
                r2 = dx * dx + dy * dy + dz * dz + eps2
                inv = np.float32(1) / (r2 * np.sqrt(r2))
                ax += dx * inv
                ay += dy * inv
                az += dz * inv
            vel_out[i, 0] = vel[i, 0] + dt * ax
            vel_out[i, 1] = vel[i, 1] + dt * ay
            vel_out[i, 2] = vel[i, 2] + dt * az
            for k in range(3):
                pos_out[i, k] = pos[i, k] + dt * vel_out[i, k]

    def run():
        pos_out, vel_out = np.empty_like(inp["pos"]), np.empty_like(inp["vel"])
        step(inp["pos"], inp["vel"], pos_out, vel_out, np.float32(DT), np.float32(EPS2))
        return pos_out, vel_out
    return run, list


def jax_impl(inp, p):
    import jax
    import jax.numpy as jnp

    @jax.jit
    def step(pos, vel):
        d = pos[None, :, :] - pos[:, None, :]
        r2 = jnp.sum(d * d, axis=2) + EPS2
        inv = 1.0 / (r2 * jnp.sqrt(r2))
        acc = jnp.einsum("ijk,ij->ik", d, inv)
        vel2 = vel + DT * acc
        return pos + DT * vel2, vel2

    pos, vel = jax.device_put(inp["pos"]), jax.device_put(inp["vel"])

    def run():
        out = step(pos, vel)
        out[0].block_until_ready()
        return out
    return run, (lambda out: [np.asarray(out[0]), np.asarray(out[1])])


def torch_impl(inp, p, compiled=False):
    import torch

    def step(pos, vel):
        d = pos[None, :, :] - pos[:, None, :]
        r2 = (d * d).sum(2) + EPS2
        inv = 1.0 / (r2 * torch.sqrt(r2))
        acc = (d * inv[:, :, None]).sum(1)
        vel2 = vel + DT * acc
        return pos + DT * vel2, vel2

    if compiled:
        step = torch.compile(step)
    pos, vel = torch.from_numpy(inp["pos"]), torch.from_numpy(inp["vel"])

    def run():
        with torch.no_grad():
            return step(pos, vel)
    return run, (lambda out: [out[0].numpy(), out[1].numpy()])


def taichi_impl(inp, p):
    import taichi as ti

    @ti.kernel
    def step(pos: ti.types.ndarray(dtype=ti.f32, ndim=2), vel: ti.types.ndarray(dtype=ti.f32, ndim=2),
             pos_out: ti.types.ndarray(dtype=ti.f32, ndim=2), vel_out: ti.types.ndarray(dtype=ti.f32, ndim=2)):
        n = pos.shape[0]
        for i in range(n):
            ax, ay, az = 0.0, 0.0, 0.0
            for j in range(n):
                dx, dy, dz = pos[j, 0] - pos[i, 0], pos[j, 1] - pos[i, 1], pos[j, 2] - pos[i, 2]
                r2 = dx * dx + dy * dy + dz * dz + EPS2
                inv = 1.0 / (r2 * ti.sqrt(r2))
                ax += dx * inv
                ay += dy * inv
                az += dz * inv
            vel_out[i, 0] = vel[i, 0] + DT * ax
            vel_out[i, 1] = vel[i, 1] + DT * ay
            vel_out[i, 2] = vel[i, 2] + DT * az
            for k in ti.static(range(3)):
                pos_out[i, k] = pos[i, k] + DT * vel_out[i, k]

    shape = inp["pos"].shape
    pos, vel, pos_out, vel_out = (ti.ndarray(ti.f32, shape) for _ in range(4))
    pos.from_numpy(inp["pos"])
    vel.from_numpy(inp["vel"])

    def run():
        step(pos, vel, pos_out, vel_out)
        ti.sync()
        return pos_out, vel_out
    return run, (lambda out: [out[0].to_numpy(), out[1].to_numpy()])


WORKLOAD = Workload(
    id="W4", title="n-body step (all pairs, softened)", metric="G interactions/s",
    sizes={"quick": {"n": 1024}, "full": {"n": 8192}},
    inputs=inputs, reference=reference, check=check, tolerance=1e-3,
    impls={"tensorfrost": tensorfrost, "c": c, "numpy": numpy_impl, "numba": numba_impl, "jax": jax_impl,
           "torch": torch_impl, "torch.compile": lambda i, p: torch_impl(i, p, compiled=True),
           "taichi": taichi_impl, GL_IMPLS[0]: gl.tensorfrost_gl(tensorfrost),
           WEBGPU_IMPLS[0]: webgpu.tensorfrost_webgpu(tensorfrost), WEBGPU_IMPLS[1]: webgpu.taichi_vulkan(taichi_impl)},
    work=lambda p: p["n"] * p["n"] / 1e9,
    targets=[Target("c", 0.9, text="at least 90% of the hand-written C"), *webgpu.TARGETS],
)
