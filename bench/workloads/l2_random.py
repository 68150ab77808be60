"""L2: 16M float32 standard normal random numbers; the metric is G numbers/s.

Each implementation draws fresh numbers every call (tensorfrost takes its seed as a program
input, so a call does not recompile). The check compares moments, not values: mean 0,
variance 1 and fourth moment 3, each within five standard errors of its estimate.

Taichi kernels need real annotation objects, so no ``from __future__ import annotations``.
"""

import numpy as np

from ..harness import Target, Workload


def inputs(p, rng):
    return {"n": p["n"]}


def reference(inp, p):
    return [np.array([0.0, 1.0, 3.0])]  # E[x], E[x^2], E[x^4] of a standard normal


def check(outputs, reference):
    """The largest deviation of a moment from its expected value, in standard errors / 5
    (so 1.0 is five standard errors): the standard errors of the mean, the second and
    the fourth moment of n normals are sqrt(1/n), sqrt(2/n) and sqrt(96/n)."""
    x = np.asarray(outputs[0])
    if x.dtype != np.float32 or x.ndim != 1:
        raise ValueError(f"expected a 1-D float32 array, got {x.dtype} of shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("non-finite values among the normals")
    n = x.size
    x64 = x.astype(np.float64)
    squares = x64 * x64
    moments = np.array([x64.mean(), squares.mean(), (squares * squares).mean()])
    errors = np.sqrt(np.array([1.0, 2.0, 96.0]) / n)
    return float(np.max(np.abs(moments - reference[0]) / errors) / 5.0)


def tensorfrost(inp, p):
    import tensorfrost as tf

    n = inp["n"]

    def normals():
        seed = tf.input([1], tf.uint32)
        return tf.random.randn([n], seed)

    prog = tf.compile(normals)
    calls = iter(range(1, 2**31))

    def run():
        return prog(np.array([next(calls)], np.uint32))
    return run, (lambda out: [out.numpy])


def numpy_impl(inp, p):
    generator = np.random.default_rng()
    return (lambda: generator.standard_normal(inp["n"], dtype=np.float32)), (lambda o: [o])


def jax_impl(inp, p):
    import jax
    import jax.numpy as jnp

    normals = jax.jit(lambda key: jax.random.normal(key, (inp["n"],), dtype=jnp.float32))
    keys = iter(range(1, 2**31))

    def run():
        return normals(jax.random.PRNGKey(next(keys))).block_until_ready()
    return run, (lambda o: [np.asarray(o)])


def torch_impl(inp, p, compiled=False):
    import torch

    def normals():
        return torch.randn(inp["n"], dtype=torch.float32)

    if compiled:
        normals = torch.compile(normals)
    return normals, (lambda o: [o.numpy()])


WORKLOAD = Workload(
    id="L2", title="16M float32 random normals", metric="G numbers/s",
    sizes={"quick": {"n": 1 << 20}, "full": {"n": 1 << 24}},
    inputs=inputs, reference=reference, check=check, tolerance=1.0,
    impls={"tensorfrost": tensorfrost, "numpy": numpy_impl, "jax": jax_impl, "torch": torch_impl},
    work=lambda p: p["n"] / 1e9, bytes_moved=lambda p: p["n"] * 4,
    targets=[Target("peer", 2.0, peers=("numpy",), text="at least 2x numpy's Generator")],
)
