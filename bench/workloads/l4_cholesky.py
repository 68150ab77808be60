"""L4: Cholesky factorisation of a 512 x 512 SPD float32 matrix and the solve of one
right-hand side (``L L^T x = b``); the metric is GFLOP/s of the factorisation and the two
triangular solves (n^3 / 3 + 2 n^2 flops).

tensorfrost runs ``tf.linalg.cholesky`` (blocked, right-looking: a host loop over panels
of 64 columns; the O(n^3) trailing update is one kernel a panel) and two
``tf.linalg.triangular_solve`` (one kernel each, whose elements run the rows in order). numpy calls LAPACK's
``potrf`` and two ``solve`` (there is no triangular solve in numpy), or scipy's
``cho_factor`` + ``cho_solve`` when scipy is installed; torch ``cholesky`` +
``cholesky_solve``; jax ``cho_factor`` + ``cho_solve``, jitted.
"""

import numpy as np

from ..harness import Prechecked, Target, Workload, at_size


def inputs(p, rng):
    n = p["n"]
    x = rng.standard_normal((n, n))
    a = x @ x.T / n + np.eye(n)  # eigenvalues in [1, 5]: well conditioned
    return {"a": a.astype(np.float32), "b": rng.standard_normal(n).astype(np.float32)}


def reference(inp, p):
    return [np.linalg.solve(inp["a"].astype(np.float64), inp["b"].astype(np.float64))]


def check(outputs, reference):
    """Largest error relative to the largest |x| (cond(a) <= 5, so float32 gives ~1e-6)."""
    if isinstance(outputs[0], Prechecked):  # (a row at another size, checked there)
        return float(outputs[0])
    got, want = np.asarray(outputs[0], np.float64).reshape(-1), reference[0]
    if got.shape != want.shape:
        raise ValueError(f"shape {got.shape}, expected {want.shape}")
    return float(np.max(np.abs(got - want)) / np.max(np.abs(want)))


def tensorfrost(inp, p):
    import tensorfrost as tf

    def cholesky_solve():
        a = tf.input([-1, -1], tf.float32)
        b = tf.input([-1], tf.float32)
        low = tf.linalg.cholesky(a)
        y = tf.linalg.triangular_solve(low, b)
        return tf.linalg.triangular_solve(tf.transpose(low), y, lower=False)

    prog = tf.compile(cholesky_solve)
    a, b = tf.tensor(inp["a"]), tf.tensor(inp["b"])
    return (lambda: prog(a, b)), (lambda out: [(out[0] if isinstance(out, tuple) else out).numpy])


def numpy_impl(inp, p):
    try:
        import scipy.linalg
    except ModuleNotFoundError:
        def run():
            low = np.linalg.cholesky(inp["a"])
            return np.linalg.solve(low.T, np.linalg.solve(low, inp["b"]))
        return run, (lambda o: [o])

    def run_scipy():
        return scipy.linalg.cho_solve(scipy.linalg.cho_factor(inp["a"], lower=True), inp["b"])
    return run_scipy, (lambda o: [o])


def jax_impl(inp, p):
    import jax
    import jax.scipy.linalg as jsl

    solve = jax.jit(lambda a, b: jsl.cho_solve(jsl.cho_factor(a, lower=True), b))
    a, b = jax.device_put(inp["a"]), jax.device_put(inp["b"])
    return (lambda: solve(a, b).block_until_ready()), (lambda o: [np.asarray(o)])


def torch_impl(inp, p):
    import torch

    a = torch.from_numpy(inp["a"])
    b = torch.from_numpy(inp["b"]).reshape(-1, 1)

    def run():
        with torch.no_grad():
            return torch.cholesky_solve(b, torch.linalg.cholesky(a))
    return run, (lambda o: [o.numpy()])


LARGE = 2048  # issue 33's second size


def _large(impl):
    """``impl`` at LARGE^2 (at the quick size, twice the quick side), once per timed run: its
    GFLOP/s column counts the workload's size's work, so only its ratio to the other large
    row means something."""
    return at_size(impl, lambda p: {"n": LARGE if p["n"] >= 512 else 2 * p["n"]}, lambda p: 1,
                   inputs, reference, check)


WORKLOAD = Workload(
    id="L4", title="Cholesky solve of 512 x 512", metric="GFLOP/s",
    sizes={"quick": {"n": 96}, "full": {"n": 512}},
    inputs=inputs, reference=reference, check=check, tolerance=1e-4,
    impls={"tensorfrost": tensorfrost, "numpy": numpy_impl, "jax": jax_impl, "torch": torch_impl,
           "tensorfrost (2048^2)": _large(tensorfrost), "numpy (2048^2)": _large(numpy_impl)},
    work=lambda p: (p["n"] ** 3 / 3 + 2 * p["n"] ** 2) / 1e9,
    targets=[Target("peer", 0.5, peers=("numpy",), text="at least 0.5x numpy/LAPACK"),
             Target("peer", 0.8, peers=("numpy (2048^2)",), impl="tensorfrost (2048^2)", sizes=("full",),
                    text="at least 0.8x numpy/LAPACK at 2048^2")],
)
