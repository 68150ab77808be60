"""L3: complex FFTs, 2^20 points in 1-D and 1024 x 1024 in 2-D, in one run; the metric is
GFLOP/s by the usual 5 N log2 N count of each transform.

Inputs are complex64 (tensorfrost: float32 [..., 2] pairs, sizes known only at run time);
the reference is numpy's float64 transform. numpy's pocketfft computes complex64 input in
complex128 and returns complex128; torch and jax compute in complex64.
"""

import math

import numpy as np

from ..harness import Target, Workload


def inputs(p, rng):
    def draw(shape):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)
    return {"line": draw(p["n"]), "image": draw((p["side"], p["side"]))}


def reference(inp, p):
    return [np.fft.fft(inp["line"].astype(np.complex128)), np.fft.fft2(inp["image"].astype(np.complex128))]


def check(outputs, reference):
    """Error relative to the largest output of each transform (float32 roundoff grows as
    log2 n, so a correct float32 FFT of these sizes stays near 1e-6)."""
    worst = 0.0
    for got, want in zip(outputs, reference):
        got = np.asarray(got)
        if got.dtype.kind != "c":
            got = got[..., 0].astype(np.float64) + 1j * got[..., 1]
        if got.shape != want.shape:
            raise ValueError(f"shape {got.shape}, expected {want.shape}")
        worst = max(worst, float(np.max(np.abs(got - want)) / np.max(np.abs(want))))
    return worst


def _pairs(z):
    return np.ascontiguousarray(np.stack([z.real, z.imag], -1).astype(np.float32))


def tensorfrost(inp, p):
    import tensorfrost as tf

    def transforms():
        line = tf.input([-1, 2], tf.float32)
        image = tf.input([-1, -1, 2], tf.float32)
        return tf.fft.fft(line), tf.fft.fft2(image)

    prog = tf.compile(transforms)
    line, image = tf.tensor(_pairs(inp["line"])), tf.tensor(_pairs(inp["image"]))
    return (lambda: prog(line, image)), (lambda out: [t.numpy for t in out])


def numpy_impl(inp, p):
    return (lambda: (np.fft.fft(inp["line"]), np.fft.fft2(inp["image"]))), list


def jax_impl(inp, p):
    import jax
    import jax.numpy as jnp

    line_fft, image_fft = jax.jit(jnp.fft.fft), jax.jit(jnp.fft.fft2)
    line, image = jax.device_put(inp["line"]), jax.device_put(inp["image"])

    def run():
        return line_fft(line).block_until_ready(), image_fft(image).block_until_ready()
    return run, (lambda o: [np.asarray(x) for x in o])


def torch_impl(inp, p):
    import torch

    line, image = torch.from_numpy(inp["line"]), torch.from_numpy(inp["image"])

    def run():
        with torch.no_grad():
            return torch.fft.fft(line), torch.fft.fft2(image)
    return run, (lambda o: [x.numpy() for x in o])


def _flops(p) -> float:
    n, side = p["n"], p["side"]
    return (5 * n * math.log2(n) + 5 * side * side * math.log2(side * side)) / 1e9


WORKLOAD = Workload(
    id="L3", title="FFT: 2^20 complex 1-D and 1024 x 1024 complex 2-D", metric="GFLOP/s",
    sizes={"quick": {"n": 1 << 14, "side": 128}, "full": {"n": 1 << 20, "side": 1024}},
    inputs=inputs, reference=reference, check=check, tolerance=1e-5,
    impls={"tensorfrost": tensorfrost, "numpy": numpy_impl, "jax": jax_impl, "torch": torch_impl},
    work=_flops,
    targets=[Target("peer", 1.0, peers=("numpy",), text="at least numpy's pocketfft")],
)
