"""L1: sort of 16M uint32 keys; the metric is millions of keys sorted per second.

The goal (issue 16) is to be faster than every peer: numpy's ``np.sort``, ``torch.sort`` and
``jax.numpy.sort``. tensorfrost runs ``tf.sort.radix``: four stable 8-bit counting passes,
each block of the keys counted and scattered by one thread.
"""

import numpy as np

from ..harness import Target, Workload


def inputs(p, rng):
    return {"keys": rng.integers(0, 2**32, p["n"], dtype=np.uint32)}


def reference(inp, p):
    return [np.sort(inp["keys"])]


def check(outputs, reference):
    """The fraction of places whose key differs from numpy's sorted keys (0 when sorted)."""
    got, want = np.asarray(outputs[0]), reference[0]
    if got.shape != want.shape:
        raise ValueError(f"shape {got.shape}, expected {want.shape}")
    return float(np.mean(got.astype(np.uint32) != want))


def tensorfrost(inp, p):
    import tensorfrost as tf

    def sort_keys():
        keys = tf.input([-1], tf.uint32)
        return tf.sort.radix(keys)

    prog = tf.compile(sort_keys)
    keys = tf.tensor(inp["keys"])
    return (lambda: prog(keys)), (lambda out: [out.numpy])


def numpy_impl(inp, p):
    return (lambda: np.sort(inp["keys"])), (lambda o: [o])


def jax_impl(inp, p):
    import jax
    import jax.numpy as jnp

    sort = jax.jit(jnp.sort)
    keys = jax.device_put(inp["keys"])
    return (lambda: sort(keys).block_until_ready()), (lambda o: [np.asarray(o)])


def torch_impl(inp, p, compiled=False):
    import torch

    # torch has no uint32 sort on the CPU; int64 holds every uint32 in the same order.
    keys = torch.from_numpy(inp["keys"].astype(np.int64))

    def sort(k):
        return torch.sort(k).values

    if compiled:
        sort = torch.compile(sort)

    def run():
        with torch.no_grad():
            return sort(keys)
    return run, (lambda o: [o.numpy().astype(np.uint32)])


WORKLOAD = Workload(
    id="L1", title="sort of 16M uint32 keys", metric="Mkeys/s",
    sizes={"quick": {"n": 1 << 20}, "full": {"n": 1 << 24}},
    inputs=inputs, reference=reference, check=check, tolerance=0.0,
    impls={"tensorfrost": tensorfrost, "numpy": numpy_impl, "jax": jax_impl, "torch": torch_impl},
    work=lambda p: p["n"] / 1e6,
    targets=[Target("peer", 1.0, peers=("numpy", "torch", "jax"), text="faster than numpy, torch and jax")],
)
