"""Random tensor programs shaped like users' programs and built to reach every optimization,
for the differential test of optimizations (test_optimizations_oracle.py).

A recipe is data (hypothesis draws it); ``build(recipe)`` replays it as a tracing-style
program. Its inputs are matrices ``a`` [N, K], ``b`` [K, M], ``s`` [N, M], and ``at`` [K, N],
``bt`` [M, K] for transposed operands (all of one size n x n when the recipe is square).
Each step appends a value of shape [N, M] to a pool that later steps read:

- ``acc``: a per-element loop over k accumulating a term that may ignore the row, the
  column, or both (``a[i, k]``, ``b[k, j]``, ``k``): what lane and row tiling keys on;
- ``matmul``: ``@`` with input, constant, computed or transposed operands and an epilogue
  (GEMM dispatch, epilogue rows, transposing copies);
- ``stencil``: a chain of stencil steps, plain, with a constant that varies from step to
  step, through ``select``, or as conditional stores that read different neighbours (band
  kernels, interior/border split, load_clamps, kernels that share their code);
- ``reduce``: a sum, max or min over an axis (or two of them: merged loops), broadcast back
  (SIMD reductions);
- ``escape``: a loop each element leaves at its own trip (masked tiles);
- ``scatter``: a histogram by atomic adds; ``hash``: int32/uint32 arithmetic that wraps;
- ``dtype``: the value in another dtype (float16, bfloat16, float64, 8/16/64-bit ints):
  arithmetic that rounds or wraps there, a reduction or a matmul in it, stored between
  kernels in that dtype where fusion splits them;
- ``permute``: a store to another element, then a copy of that tensor;
- ``shift`` and ``transpose``: shifted and transposed reads of computed values;
- ``rows``: a loop along each row (or column) that updates each element from the one
  before it, inside one kernel (apart_axes).

Every value stays exact in float32 whatever the order of operations: inputs are quarters in
[-2, 2], and each step's result is brought back to quarters in [-64, 64] (``_quarters``), so
sums of products of quarters never round. So every backend and every optimization must agree
with the interpreter bit for bit, and a wrong result cannot hide in a tolerance.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import tensorfrost as tf

# sizes around the tiles' edges (32 lanes, 8 rows, 64-row bands) and the GEMM's thresholds
SIZES = [1, 2, 3, 5, 7, 8, 9, 16, 31, 32, 33, 40, 47, 48, 49, 63, 64, 65, 72, 96, 100, 127, 128, 129, 130]
TERMS = ["a_ik", "b_kj", "a_ik*b_kj", "k", "a_ik+b_kj", "const", "s_ij*a_ik"]
# operands: buffers (which the GEMM takes, so listed twice), transposed, constant, computed
LEFT = ["a", "a", "a", "a", "at.T", "ones", "a*2", "a[::-1]", "pool"]
RIGHT = ["b", "b", "b", "b", "bt.T", "ones", "b-0.5", "pool"]
EPILOGUES = ["none", "relu", "add_s", "relu_add_s", "scale"]
STENCILS = ["plain", "plain", "select", "if_store", "if_else_store", "varying"]
DTYPES = ["float16", "bfloat16", "float64", "int8", "int16", "int64", "uint8"]

_pick = st.integers(0, 99)
_accumulation = st.tuples(st.just("acc"), st.sampled_from(TERMS), st.sampled_from(["zeros", "pool"]), _pick,
                          st.integers(0, 2), st.integers(1, 2), st.sampled_from(["add", "max"]))
_product = st.tuples(st.just("matmul"), st.sampled_from(LEFT), st.sampled_from(RIGHT), st.sampled_from(EPILOGUES),
                     _pick)
_stencil_chain = st.tuples(st.just("stencil"), _pick, st.integers(1, 5), st.sampled_from(STENCILS))
_STEPS = {
    "acc": _accumulation, "matmul": _product, "stencil": _stencil_chain,
    "reduce": st.tuples(st.just("reduce"), _pick,
                        st.sampled_from(["sum", "max", "min", "sum_and_max", "sum_and_max", "sum_and_max"]),
                        st.integers(0, 1)),
    "escape": st.tuples(st.just("escape"), _pick, _pick, st.integers(1, 6)),
    "scatter": st.tuples(st.just("scatter"), _pick, _pick),
    "hash": st.tuples(st.just("hash"), _pick, st.sampled_from(["int32", "uint32"])),
    "dtype": st.tuples(st.just("dtype"), _pick, st.sampled_from(DTYPES), st.sampled_from(["arith", "sum", "matmul"]),
                       st.integers(0, 1)),
    "permute": st.tuples(st.just("permute"), _pick),
    "shift": st.tuples(st.just("shift"), _pick, st.integers(-2, 2), st.integers(-2, 2)),
    "transpose": st.tuples(st.just("transpose"), _pick),
    "rows": st.tuples(st.just("rows"), _pick, st.integers(0, 1)),
}
# How often each kind of step is drawn: the ones that reach the rarer optimizations (the GEMM
# and its epilogue, band chains, merged loops) more often. (st.one_of would not weigh: it
# draws each distinct strategy alike, however often it is listed.)
WEIGHTS = {"acc": 3, "matmul": 4, "stencil": 3, "reduce": 2, "escape": 2, "scatter": 1, "hash": 1, "permute": 1,
           "shift": 1, "transpose": 4, "dtype": 2, "rows": 2}
step = st.sampled_from([kind for kind, weight in WEIGHTS.items() for _ in range(weight)]).flatmap(_STEPS.__getitem__)


@st.composite
def recipes(draw):
    """(square, sizes (N, K, M), steps, outputs)."""
    square = draw(st.sampled_from([True, True, False]))  # (a transpose of a computed value needs one)
    sizes = draw(st.tuples(*[st.one_of(st.sampled_from(SIZES), st.integers(1, 130))] * (1 if square else 3)))
    steps = draw(st.lists(step, min_size=1, max_size=4))  # (longer ones fuse the rarer paths away)
    outputs = draw(st.lists(_pick, min_size=1, max_size=3))
    return square, sizes * 3 if square else sizes, steps, outputs


def _quarters(x):
    """x rounded down to quarters and clamped to [-64, 64]: exact in float32 from here on."""
    return tf.clamp(tf.floor(x * 4.0) * 0.25, -64.0, 64.0)


def _operand(kind: str, ins: dict, shape: list, computed, square: bool, plain: str):
    if kind == "pool":  # a value computed before: [N, M], so an operand of a square recipe only
        return computed if square else ins[plain]
    if kind == "ones":
        return tf.ones(shape, tf.float32)
    if kind == "at.T":
        return tf.transpose(ins["at"])
    if kind == "bt.T":
        return tf.transpose(ins["bt"])
    if kind == "a*2":
        return ins["a"] * 2.0
    if kind == "b-0.5":
        return ins["b"] - 0.5
    if kind == "a[::-1]":
        i, k = ins["a"].indices
        return ins["a"][shape[0] - 1 - i, k]
    return ins[kind]


def _accumulate(s, ins, pool, N, K, M):
    _, term, init, source, start, stride, reducer = s
    acc = tf.zeros([N, M], tf.float32) if init == "zeros" else pool[source % len(pool)] * 1.0
    i, j = acc.indices
    a, b, grid = ins["a"], ins["b"], ins["s"]
    with tf.loop(start, K, stride) as k:
        value = {"a_ik": lambda: a[i, k], "b_kj": lambda: b[k, j], "a_ik*b_kj": lambda: a[i, k] * b[k, j],
                 "k": lambda: tf.float(k) * 0.25, "a_ik+b_kj": lambda: a[i, k] + b[k, j],
                 "const": lambda: tf.const(0.25), "s_ij*a_ik": lambda: grid[i, j] * a[i, k]}[term]()
        acc.val = acc + value if reducer == "add" else tf.max(acc, value)
    return acc


def _matmul(s, ins, pool, N, K, M, square):
    _, left, right, epilogue, source = s
    other = pool[source % len(pool)]
    product = _operand(left, ins, [N, K], other, square, "a") @ _operand(right, ins, [K, M], other, square, "b")
    return {"none": lambda: product, "relu": lambda: tf.max(product, 0.0), "add_s": lambda: product + other,
            "relu_add_s": lambda: tf.max(product + other, 0.0), "scale": lambda: product * 0.5 - 1.0}[epilogue]()


def _stencil(s, pool):
    _, source, steps, kind = s
    u = pool[source % len(pool)]
    for step in range(steps):
        i, j = u.indices
        around = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]
        # "varying": steps that differ only in a constant (their kernels share their code)
        new = _quarters(u + (around - u * 4.0) * ((0.5, 0.125, 0.375)[step % 3] if kind == "varying" else 0.25))
        if kind in ("plain", "varying"):
            u = new
        elif kind == "select":
            u = tf.select(u > 0.0, new, u * 0.5)
        elif kind == "if_store":  # only some elements are stored
            t = u * 1.0
            with tf.if_cond(u > 0.25):
                t[i, j] = new
            u = t
        else:  # both branches store into one tensor, reading different neighbours (issue 26, item 2)
            t = u * 1.0
            with tf.if_cond(u > 0.0):
                t[i, j] = t[i, j - 1] + 0.25
            with tf.if_cond(u <= 0.0):
                t[i, j] = t[i - 1, j] - 0.5
            u = _quarters(t)
    return u


def _rows(x, N, M, along_columns: int):
    """Each row (or column) updated in order, each element from the one before it: a loop per
    row that reads and writes only its own row, at two indices."""
    i, j = x.indices
    rows = tf.zeros([N, M], tf.float32)
    rows[i, j] = x
    if along_columns:
        c, = tf.indices([M])
        with tf.loop(1, N) as k:
            rows[k, c] = _quarters(rows[k, c] - rows[k - 1, c] * 0.5)
    else:
        r, = tf.indices([N])
        with tf.loop(1, M) as k:
            rows[r, k] = _quarters(rows[r, k] + rows[r, k - 1] * 0.5)
    return rows


def _hash(s, pool):
    _, source, kind = s
    x = pool[source % len(pool)]
    h = tf.int(x * 4.0)
    if kind == "uint32":
        u = tf.uint(h) * tf.uint(2654435761) + tf.uint(12345)
        u = u ^ (u >> 13)
        return tf.float(u >> 28) * 0.25 + tf.float(u & tf.uint(7))
    h = h * 1103515245 + 12345  # wraps, as numpy's int32 does
    h = h ^ (h >> 13)
    return tf.float((h * 4) // 4 & 255) * 0.25


def _in_dtype(s, pool, square):
    """A value computed in another dtype and brought back to float32 quarters. Floats round
    per op there (bfloat16 holds 8 bits: quarters up to 64 round), ints wrap at their bits."""
    _, source, name, form, axis = s
    dtype = getattr(tf, name)
    x = pool[source % len(pool)]
    y = x.astype(dtype) if dtype.is_float else tf.int(x * 4.0).astype(dtype)
    if form == "sum":  # (16-bit floats accumulate in float32)
        value = tf.unsqueeze(tf.sum(y, axis=axis), axis) + y
    elif form == "matmul" and square:  # (int8 @ int8 is int32)
        value = (y @ y).astype(dtype) if dtype.is_float else (y @ y)
    else:
        value = y * y + y * 3 - 7 if dtype.is_integer else y * y * 0.5 + y - 1.5
    back = value.astype(tf.float32)
    return back if dtype.is_float else back * 0.25


def build(recipe):
    """The tracing-style program that replays ``recipe``."""
    square, _, steps, outputs = recipe  # a square recipe's inputs are n x n: its transposes combine

    def program():
        a = tf.input([-1, -1], tf.float32)
        N, K = a.shape
        b = tf.input([K, -1], tf.float32)
        M = b.shape[1]
        ins = {"a": a, "b": b, "s": tf.input([N, M], tf.float32), "at": tf.input([K, N], tf.float32),
               "bt": tf.input([M, K], tf.float32)}
        pool = [ins["s"]]
        for s in steps:
            kind = s[0]
            x = pool[s[1] % len(pool)] if kind in ("stencil", "reduce", "escape", "scatter", "hash", "permute",
                                                   "shift", "transpose", "rows") else None
            if kind == "acc":
                value = _accumulate(s, ins, pool, N, K, M)
            elif kind == "matmul":
                value = _matmul(s, ins, pool, N, K, M, square)
            elif kind == "stencil":
                value = _stencil(s, pool)
            elif kind == "reduce":
                reduced = {"sum": tf.sum, "max": tf.max, "min": tf.min,  # two loops over one axis: merge_loops
                           "sum_and_max": lambda v, axis: tf.sum(v, axis=axis) - tf.max(v, axis=axis)}[s[2]](
                    x, axis=s[3])
                value = x * 0.5 + tf.unsqueeze(reduced, s[3]) * 0.25
            elif kind == "escape":
                y, v = pool[s[2] % len(pool)], x * 1.0
                with tf.loop(s[3]):
                    v.val = _quarters(v * 0.5 + y)
                    with tf.if_cond(v > 1.0):
                        tf.break_loop()
                value = v
            elif kind == "scatter":
                y = pool[s[2] % len(pool)]
                histogram = tf.zeros([M], tf.float32)
                tf.scatterAdd(histogram[tf.int(tf.abs(y) * 4.0) % M], x)
                value = x * 0.5 + tf.unsqueeze(histogram, 0) * 0.25
            elif kind == "hash":
                value = _hash(s, pool)
            elif kind == "dtype":
                value = _in_dtype(s, pool, square)
            elif kind == "permute":  # issue 26, item 11
                i, j = x.indices
                flipped = tf.zeros([N, M], tf.float32)
                flipped[N - 1 - i, j] = x
                copy = tf.zeros([N, M], tf.float32)
                copy[i, j] = flipped
                value = copy
            elif kind == "rows":  # a loop along each row (or column), reading the elements before (apart_axes)
                value = _rows(x, N, M, s[2])
            elif kind == "shift":
                i, j = x.indices
                value = x[i + s[2], j + s[3]]
            else:  # transpose: a square grid only; else a shifted read along the other axis
                value = tf.transpose(x) if square else x[N - 1 - x.indices[0], x.indices[1]]
            pool.append(_quarters(value))
        return [pool[-1]] + [pool[k % len(pool)] for k in outputs]  # the last step always reaches an output

    return program


def arrays(recipe, seed: int) -> list:
    """The inputs: quarters in [-2, 2]."""
    _, (n, k, m), _, _ = recipe
    rng = np.random.default_rng(seed)
    shapes = [(n, k), (k, m), (n, m), (k, n), (m, k)]
    return [(rng.integers(-8, 9, shape) / 4).astype(np.float32) for shape in shapes]


def describe(recipe) -> str:
    square, sizes, steps, outputs = recipe
    return f"square={square} sizes={sizes} steps={steps} outputs={outputs}"
