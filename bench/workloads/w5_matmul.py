"""W5: matrix product of two 2048 x 2048 float32 matrices; the metric is GFLOP/s (2 n^3 flops).

Rows named ``<impl> (<shape>)`` time other shapes of the same work (2 n^3 flops a run), each
against numpy on that shape: 1024^3 (eight products a run), 4096x4096x256 and 256x4096x4096
(m x k x n: tall and wide), ``X^T @ G`` and ``G @ W^T`` at 2048^3 (as in a backward pass),
and a batch of eight 1024^3 products. Each checks its own result against numpy in float64.

tensorfrost runs it twice: ``A @ B`` and the explicit ``tf.sum(A[i, k] * B[k, j], axis=2)``
(both should reach the target). numpy, jax and torch call a BLAS (OpenBLAS / Eigen / oneDNN);
numba and the C are plain loops in i-k-j order; taichi is the plain i-j-k loop. The
"c (tiled)" row is ``bench/c/matmul_tiled.h``: 80 lines of C tiled for registers and caches,
to show what a tiled lowering of matmul can reach (it is the "C" of no target).

The dtype rows (issue 29) multiply the same matrices in other dtypes, each checked against
its own exact product and counting the same 2 n^3 flops: ``(float64)`` against numpy's
dgemm (and ``(float64 1024^3)``, eight float64 1024^3 products a run, as the shape row);
``(bfloat16)`` (operands rounded to ml_dtypes.bfloat16, a bfloat16 product summed in float32)
against torch.matmul on bfloat16 tensors; ``(int8)`` (``rint(127 x)``, an int32 product summed
in int32) against ``torch._int_mm`` (int8 x int8 -> int32 on the CPU) and
numpy's int32 @ int32 of the same values (a plain loop, no BLAS: about 25 s a product at
2048^3 on two cores), checked for exact equality.

Taichi kernels need real annotation objects, so no ``from __future__ import annotations``.
"""

import numpy as np

from .. import cbuild
from ..harness import Prechecked, Target, Workload, own_inputs, repeated


def inputs(p, rng):
    n = p["n"]
    return {"a": rng.uniform(-1.0, 1.0, (n, n)).astype(np.float32),
            "b": rng.uniform(-1.0, 1.0, (n, n)).astype(np.float32)}


def reference(inp, p):
    return [inp["a"].astype(np.float64) @ inp["b"].astype(np.float64)]


def check(outputs, reference):
    """Error relative to the scale of a dot product of n terms (|a|,|b| <= 1)."""
    if isinstance(outputs[0], Prechecked):
        return float(outputs[0])
    got, want = np.asarray(outputs[0], np.float64), reference[0]
    if got.shape != want.shape:
        raise ValueError(f"shape {got.shape}, expected {want.shape}")
    return float(np.max(np.abs(got - want)) / np.sqrt(want.shape[0]))


def tensorfrost(inp, p, explicit=False):
    import tensorfrost as tf
    dtype = getattr(tf, inp["a"].dtype.name)  # float32, or the operands' dtype in a dtype row

    def matmul():
        a = tf.input([-1, -1], dtype)
        b = tf.input([a.shape[1], -1], dtype)
        return a @ b

    def matmul_sum():
        a = tf.input([-1, -1], tf.float32)
        b = tf.input([a.shape[1], -1], tf.float32)
        i, j, k = tf.indices([a.shape[0], b.shape[1], a.shape[1]])
        return tf.sum(a[i, k] * b[k, j], axis=2)

    prog = tf.compile(matmul_sum if explicit else matmul)
    a, b = tf.tensor(inp["a"]), tf.tensor(inp["b"])
    return (lambda: prog(a, b)), (lambda out: [out.numpy])


def _dtype_row(impl, key, cast, result_dtype, reference_fn=reference):
    """A row on the operands cast by ``cast`` (their dtype named ``key``), checked against
    ``reference_fn`` of those operands; its product must have dtype ``result_dtype``."""
    def with_dtype(inp, p):
        run, fetch = impl(inp, p)
        return run, (lambda out: [_expect(o, result_dtype) for o in fetch(out)])
    return own_inputs(with_dtype, key, lambda inp, p: {"a": cast(inp["a"]), "b": cast(inp["b"])},
                      reference_fn, check)


def _expect(array, dtype):
    if array.dtype != np.dtype(dtype):
        raise ValueError(f"result dtype {array.dtype}, expected {np.dtype(dtype)}")
    return array


def _int8(x):
    return np.rint(x * 127).astype(np.int8)  # x in [-1, 1]: values in [-127, 127]


def int_reference(inp, p):
    """The exact product in int64. Through float64 BLAS: every partial sum is an integer of
    magnitude at most k 127^2 < 2^53, so each is exact in float64, in any order."""
    a, b = inp["a"], inp["b"]
    assert a.shape[1] * 127 ** 2 < 2 ** 53
    return [(a.astype(np.float64) @ b.astype(np.float64)).astype(np.int64)]


def _bfloat16():
    import ml_dtypes
    return ml_dtypes.bfloat16


def _dtype_rows():
    """The dtype rows of issue 29 by name."""
    def bf16(x):
        return x.astype(_bfloat16())
    return {
        "tensorfrost (float64)": _dtype_row(tensorfrost, "float64", lambda x: x.astype(np.float64), np.float64),
        "numpy (float64)": _dtype_row(numpy_impl, "float64", lambda x: x.astype(np.float64), np.float64),
        "tensorfrost (float64 1024^3)": _shape_row("1024^3", _tensorfrost_form, np.float64),
        "numpy (float64 1024^3)": _shape_row("1024^3", _numpy_run, np.float64),
        "tensorfrost (bfloat16)": _dtype_row(tensorfrost, "bfloat16", bf16, _bfloat16()),
        "torch (bfloat16)": _dtype_row(torch_bfloat16, "bfloat16", bf16, _bfloat16()),
        "tensorfrost (int8)": _dtype_row(tensorfrost, "int8", _int8, np.int32, int_reference),
        "torch (int8)": _dtype_row(torch_int8, "int8", _int8, np.int32, int_reference),
        "numpy (int32)": _dtype_row(numpy_int32, "int8", _int8, np.int32, int_reference),
    }


def c(inp, p, tiled=False):
    lib = cbuild.library()
    fn = lib.w5_matmul_tiled if tiled else lib.w5_matmul
    a, b = inp["a"], inp["b"]
    out = np.empty((a.shape[0], b.shape[1]), np.float32)

    def run():
        fn(cbuild.ptr(a), cbuild.ptr(b), cbuild.ptr(out), a.shape[0], a.shape[1], b.shape[1])
        return out
    return run, (lambda o: [o.copy()])


# name: (m, k, n, form, batch) as fractions of n; form "ab" is A @ B, "tn" A^T @ B, "nt" A @ B^T.
SHAPES = {"1024^3": (0.5, 0.5, 0.5, "ab", 8), "4096x4096x256": (2, 2, 0.125, "ab", 1),
          "256x4096x4096": (0.125, 2, 2, "ab", 1), "X^T@G": (1, 1, 1, "tn", 1), "G@W^T": (1, 1, 1, "nt", 1),
          "8x1024^3 batched": (0.5, 0.5, 0.5, "ab", 0)}


def _shape_inputs(p, shape, dtype=np.float32):
    """Operands of a shape row, as stored (a transposed operand as its transpose)."""
    m, k, n, form, batch = SHAPES[shape]
    m, k, n = (int(f * p["n"]) for f in (m, k, n))
    rng = np.random.default_rng(5)
    lead = (8,) if batch == 0 else ()
    a = rng.uniform(-1, 1, lead + ((k, m) if form == "tn" else (m, k))).astype(dtype)
    b = rng.uniform(-1, 1, lead + ((n, k) if form == "nt" else (k, n))).astype(dtype)
    return a, b, form, batch


def _numpy_form(a, b, form):
    return (np.swapaxes(a, -1, -2) if form == "tn" else a) @ (np.swapaxes(b, -1, -2) if form == "nt" else b)


def _shape_row(shape, make_run, dtype=np.float32):
    """An implementation of a shape row: ``make_run(a, b, form) -> (run, to_numpy)`` on operands
    of ``dtype``, repeated to do the work of one n^3 product, checked once against numpy in
    float64 (and that the product keeps the operands' dtype)."""
    def impl(inp, p):
        a, b, form, batch = _shape_inputs(p, shape, dtype)
        run_once, to_numpy = make_run(a, b, form)
        repeats = max(batch, 1)
        want = _numpy_form(a.astype(np.float64), b.astype(np.float64), form)
        got = _expect(to_numpy(run_once()), dtype)
        error = Prechecked(np.max(np.abs(got - want)) / np.sqrt(a.shape[-1 if form != "tn" else -2]))
        return repeated(run_once, repeats), (lambda out: [error])
    return impl


def _tensorfrost_form(a, b, form):
    import tensorfrost as tf
    dtype = getattr(tf, a.dtype.name)

    def matmul():
        x = tf.input([-1] * a.ndim, dtype)
        y = tf.input([-1] * b.ndim, dtype)
        return (x.T if form == "tn" else x) @ (y.T if form == "nt" else y)

    def batched():
        x = tf.input([-1, -1, -1], dtype)
        y = tf.input([x.shape[0], x.shape[2], -1], dtype)
        return x @ y

    prog = tf.compile(batched if a.ndim == 3 else matmul)
    ta, tb = tf.tensor(a), tf.tensor(b)
    return (lambda: prog(ta, tb)), (lambda out: out.numpy)


def _numpy_run(a, b, form):
    return (lambda: _numpy_form(a, b, form)), (lambda out: out)


def numpy_impl(inp, p):
    return (lambda: inp["a"] @ inp["b"]), (lambda o: [o])


def numba_impl(inp, p):
    import numba

    @numba.njit(parallel=True, fastmath=True, cache=False)
    def matmul(a, b, out):
        n, k = a.shape
        m = b.shape[1]
        for i in numba.prange(n):
            for j in range(m):
                out[i, j] = 0
            for q in range(k):
                s = a[i, q]
                for j in range(m):
                    out[i, j] += s * b[q, j]

    def run():
        out = np.empty((inp["a"].shape[0], inp["b"].shape[1]), np.float32)
        matmul(inp["a"], inp["b"], out)
        return out
    return run, (lambda o: [o])


def jax_impl(inp, p):
    import jax

    matmul = jax.jit(lambda a, b: a @ b)
    a, b = jax.device_put(inp["a"]), jax.device_put(inp["b"])
    return (lambda: matmul(a, b).block_until_ready()), (lambda o: [np.asarray(o)])


def torch_impl(inp, p, compiled=False):
    import torch

    def matmul(a, b):
        return a @ b

    if compiled:
        matmul = torch.compile(matmul)
    a, b = torch.from_numpy(inp["a"]), torch.from_numpy(inp["b"])

    def run():
        with torch.no_grad():
            return matmul(a, b)
    return run, (lambda o: [o.numpy()])


def torch_bfloat16(inp, p):
    """torch.matmul on bfloat16 CPU tensors (the operands' bits, viewed as torch.bfloat16)."""
    import torch

    a, b = (torch.from_numpy(inp[k].view(np.int16)).view(torch.bfloat16) for k in ("a", "b"))

    def run():
        with torch.no_grad():
            return torch.matmul(a, b)
    return run, (lambda o: [o.contiguous().view(torch.int16).numpy().view(_bfloat16())])


def torch_int8(inp, p):
    """``torch._int_mm``: int8 x int8 -> int32, which torch 2.x also runs on the CPU
    (``torch.matmul`` of int8 tensors gives int8, wrapping)."""
    import torch

    a, b = torch.from_numpy(inp["a"]), torch.from_numpy(inp["b"])
    return (lambda: torch._int_mm(a, b)), (lambda o: [o.numpy()])


def numpy_int32(inp, p):
    a, b = inp["a"].astype(np.int32), inp["b"].astype(np.int32)
    return (lambda: a @ b), (lambda o: [o])


def taichi_impl(inp, p):
    import taichi as ti

    @ti.kernel
    def matmul(a: ti.types.ndarray(dtype=ti.f32, ndim=2), b: ti.types.ndarray(dtype=ti.f32, ndim=2),
               out: ti.types.ndarray(dtype=ti.f32, ndim=2)):
        for i, j in ti.ndrange(a.shape[0], b.shape[1]):
            s = 0.0
            for q in range(a.shape[1]):
                s += a[i, q] * b[q, j]
            out[i, j] = s

    a, b = ti.ndarray(ti.f32, inp["a"].shape), ti.ndarray(ti.f32, inp["b"].shape)
    a.from_numpy(inp["a"])
    b.from_numpy(inp["b"])
    out = ti.ndarray(ti.f32, (inp["a"].shape[0], inp["b"].shape[1]))

    def run():
        matmul(a, b, out)
        ti.sync()
        return out
    return run, (lambda o: [o.to_numpy()])


WORKLOAD = Workload(
    id="W5", title="matmul 2048^2 x 2048^2", metric="GFLOP/s",
    sizes={"quick": {"n": 256}, "full": {"n": 2048}},
    inputs=inputs, reference=reference, check=check, tolerance=1e-4,
    impls={"tensorfrost": tensorfrost, "tensorfrost (sum)": lambda i, p: tensorfrost(i, p, explicit=True),
           "c": c, "c (tiled)": lambda i, p: c(i, p, tiled=True), "numpy": numpy_impl, "numba": numba_impl,
           "jax": jax_impl, "torch": torch_impl,
           "torch.compile": lambda i, p: torch_impl(i, p, compiled=True), "taichi": taichi_impl,
           **{f"{impl} ({shape})": _shape_row(shape, make) for shape in SHAPES
              for impl, make in (("tensorfrost", _tensorfrost_form), ("numpy", _numpy_run))},
           **_dtype_rows()},
    work=lambda p: 2 * p["n"] ** 3 / 1e9,
    # Tolerances of the dtype rows, in the check's units (error / sqrt(k), |a|, |b| <= 1):
    # float64: products of float32 values are exact; a sum of k terms loses at most
    # k 2^-53 sum|a_i b_i| <= k^2 2^-53, so k^1.5 2^-53 = 1e-11 at k = 2048 (a float32
    # product, 1e-7, fails). bfloat16: products of bfloat16 values are exact in float32 and
    # their float32 sum loses under k 2^-24 of it; rounding the product to bfloat16 (8
    # significant bits) costs up to 2^-8 of |c| <= 2 sqrt(k) (6 standard deviations of
    # sqrt(k) / 3), so 8e-3 (measured: 4e-3 at 256^3, 5e-3 at 2048^3); 1.5e-2 leaves twice
    # that, and a product accumulated in bfloat16 fails. int8: exact.
    tolerances={"tensorfrost (float64)": 1e-10, "numpy (float64)": 1e-10, "tensorfrost (float64 1024^3)": 1e-10,
                "numpy (float64 1024^3)": 1e-10, "tensorfrost (bfloat16)": 1.5e-2,
                "torch (bfloat16)": 1.5e-2, "tensorfrost (int8)": 0.0, "torch (int8)": 0.0, "numpy (int32)": 0.0},
    groups={"tensorfrost (float64)": "float64", "numpy (float64)": "float64",
            "tensorfrost (float64 1024^3)": "float64", "numpy (float64 1024^3)": "float64",
            "tensorfrost (bfloat16)": "bfloat16",
            "torch (bfloat16)": "bfloat16", "tensorfrost (int8)": "int8", "torch (int8)": "int8",
            "numpy (int32)": "int8"},
    targets=[Target("peer", 0.9, peers=("numpy",), impl="tensorfrost", text="at least 90% of numpy (OpenBLAS)"),
             # the issue: 0.9x OpenBLAS at 2048^3 and the tall and wide shapes, OpenBLAS's speed up to 1024^3
             *(Target("peer", 1.0 if shape == "1024^3" else 0.9, peers=(f"numpy ({shape})",),
                      impl=f"tensorfrost ({shape})",
                      text=f"at least {'' if shape == '1024^3' else '90% of '}numpy at {shape}") for shape in SHAPES),
             *(Target("peer", 0.9, peers=("tensorfrost",), impl=f"tensorfrost ({shape})",
                      text="within 10% of the plain form") for shape in ("X^T@G", "G@W^T", "8x1024^3 batched")),
             Target("peer", 0.8, peers=("numpy (float64)",), impl="tensorfrost (float64)",
                    text="float64: at least 80% of numpy (OpenBLAS dgemm)"),
             Target("peer", 0.8, peers=("numpy (float64 1024^3)",), impl="tensorfrost (float64 1024^3)",
                    text="float64: at least 80% of numpy at 1024^3")],
)
