"""C2: per-call overhead: a one-kernel program (y = x + 1) on a 1-element tensor, in µs.

A timed run makes ``calls`` calls in a row (each on the same input, each returning a new
output); the metric is the run's time divided by ``calls``. For tensorfrost that is the
Python wrapper, the argument checks, the native call and the output tensor, with a
``tf.tensor`` input and with a numpy array (read in place); the C row is the floor of
calling native code through ctypes.

Taichi kernels need real annotation objects, so no ``from __future__ import annotations``.
"""

import numpy as np

from .. import cbuild
from ..harness import Target, Workload


def inputs(p, rng):
    return {"x": np.array([1.5], np.float32)}


def reference(inp, p):
    return [inp["x"] + np.float32(1)]


def _repeat(call, calls):
    def run():
        out = None
        for _ in range(calls):
            out = call()
        return out
    return run


def tensorfrost(inp, p, numpy_input=False):
    import tensorfrost as tf

    from .programs import add_one

    prog = tf.compile(add_one)
    x = inp["x"] if numpy_input else tf.tensor(inp["x"])
    return _repeat(lambda: prog(x), p["calls"]), (lambda out: [out.numpy])


def c(inp, p):
    fn = cbuild.library().c2_add_one
    x = inp["x"]
    y = np.empty_like(x)
    px, py = cbuild.ptr(x), cbuild.ptr(y)

    def call():
        fn(px, py)
        return y
    return _repeat(call, p["calls"]), (lambda out: [out.copy()])


def numpy_impl(inp, p):
    x = inp["x"]
    return _repeat(lambda: x + np.float32(1), p["calls"]), (lambda out: [out])


def numba_impl(inp, p):
    import numba

    @numba.njit(cache=False)
    def add_one(x):
        return x + np.float32(1)

    x = inp["x"]
    return _repeat(lambda: add_one(x), p["calls"]), (lambda out: [out])


def jax_impl(inp, p):
    import jax

    add_one = jax.jit(lambda x: x + 1.0)
    x = jax.device_put(inp["x"])
    return _repeat(lambda: add_one(x).block_until_ready(), p["calls"]), (lambda out: [np.asarray(out)])


def torch_impl(inp, p, compiled=False):
    import torch

    def add_one(x):
        return x + 1.0

    if compiled:
        add_one = torch.compile(add_one)
    x = torch.from_numpy(inp["x"])

    def call():
        with torch.no_grad():
            return add_one(x)
    return _repeat(call, p["calls"]), (lambda out: [out.numpy()])


def taichi_impl(inp, p):
    import taichi as ti

    @ti.kernel
    def add_one(x: ti.types.ndarray(dtype=ti.f32, ndim=1), y: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        for i in x:
            y[i] = x[i] + 1.0

    x, y = ti.ndarray(ti.f32, 1), ti.ndarray(ti.f32, 1)
    x.from_numpy(inp["x"])

    def call():
        add_one(x, y)
        ti.sync()
        return y
    return _repeat(call, p["calls"]), (lambda out: [out.to_numpy()])


WORKLOAD = Workload(
    id="C2", title="per-call overhead, one kernel on 1 element", metric="µs",
    sizes={"quick": {"calls": 200}, "full": {"calls": 2000}},
    inputs=inputs, reference=reference, tolerance=1e-6, time_metric=True, time_scale=lambda p: 1e6 / p["calls"],
    impls={"tensorfrost (tensor input)": tensorfrost,
           "tensorfrost (numpy input)": lambda i, p: tensorfrost(i, p, numpy_input=True),
           "c": c, "numpy": numpy_impl, "numba": numba_impl, "jax": jax_impl,
           "torch": torch_impl, "torch.compile": lambda i, p: torch_impl(i, p, compiled=True),
           "taichi": taichi_impl},
    targets=[Target("max", 1.0, impl="tensorfrost (tensor input)", text="under 1 µs per call with a tf.tensor input"),
             Target("max", 2.0, impl="tensorfrost (numpy input)", text="under 2 µs per call with a numpy input")],
)
