"""Kernels with any number of tensors (issue 27): a shader binds a limited number of storage
buffers (16 on llvmpipe, 8 by default on WebGPU); fission and the kernel split keep most
kernels within it, and the rest reach the tensors over it through one arena buffer
(emit/binding.plan_bindings, backend_gl/runtime.py). Every program runs on cpu, on opengl
as the driver binds, and with the direct bindings lowered to 4 and to 1 (everything through
the arena); each is compared with numpy.
"""

import numpy as np
import pytest
from conftest import gl_unavailable_reason, webgpu_unavailable_reason
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle_programs import arrays, build, describe, recipes

import tensorfrost as tf
from tensorfrost.backend_gl import runtime as gl_runtime
from tensorfrost.backend_webgpu import runtime as webgpu_runtime
from tensorfrost.emit.binding import plan_bindings
from tensorfrost.ir.interpreter import run as interpret
from tensorfrost.tracing.trace import trace

TARGETS = [("cpu", None), ("opengl", None), ("opengl", 4), ("opengl", 1), ("webgpu", None), ("webgpu", 4),
           ("webgpu", 1)]
DTYPES = [(tf.float32, np.float32), (tf.int32, np.int32), (tf.uint32, np.uint32)]


@pytest.fixture(params=TARGETS, ids=["cpu", "opengl", "opengl-direct4", "opengl-direct1", "webgpu", "webgpu-direct4",
                                     "webgpu-direct1"])
def target(request, monkeypatch):
    """(device name, direct binding limit or None): the backend initialized, the limit set."""
    name, limit = request.param
    if name == "opengl" and gl_unavailable_reason() is not None:
        pytest.skip(f"no OpenGL 4.3 context: {gl_unavailable_reason()}")
    if name == "webgpu" and webgpu_unavailable_reason() is not None:
        pytest.skip(f"no WebGPU device: {webgpu_unavailable_reason()}")
    monkeypatch.setattr(gl_runtime, "MAX_DIRECT_BINDINGS", limit)
    monkeypatch.setattr(webgpu_runtime, "MAX_DIRECT_BINDINGS", limit)
    tf.initialize(getattr(tf, name))
    yield request.param
    tf.initialize(tf.cpu)


def _arena_dispatches() -> int:
    return gl_runtime.ArenaStats.dispatches


def _inputs(rng, count: int, size: int) -> list:
    """Small integers of each dtype in turn (float sums of them are exact)."""
    out = []
    for k in range(count):
        _, np_type = DTYPES[k % 3]
        low = 0 if np_type is np.uint32 else -20
        out.append(rng.integers(low, 20, size).astype(np_type))
    return out


# -- one kernel reading and writing many tensors of three dtypes --------------------------------

def _mixed_program(count: int):
    def program():
        xs = [tf.input([-1], DTYPES[k % 3][0]) for k in range(count)]
        total = tf.float(xs[0]) * 0.0
        for k, x in enumerate(xs):
            total = total + tf.float(x) * float(k % 7 + 1)
        outs = []
        for k, x in enumerate(xs):
            if DTYPES[k % 3][0] is tf.float32:
                outs.append(total - x)
            elif DTYPES[k % 3][0] is tf.int32:
                outs.append(tf.int(total) * 3 - x)
            else:
                outs.append((tf.uint(tf.int(total) + 1000) ^ x) * tf.uint(k + 1))
        return outs
    return program


def _mixed_numpy(xs: list) -> list:
    total = np.zeros(xs[0].shape, np.float32)
    for k, x in enumerate(xs):
        total = total + x.astype(np.float32) * np.float32(k % 7 + 1)
    outs = []
    for k, x in enumerate(xs):
        if x.dtype == np.float32:
            outs.append(total - x)
        elif x.dtype == np.int32:
            outs.append(total.astype(np.int32) * np.int32(3) - x)
        else:
            outs.append(((total.astype(np.int32) + 1000).astype(np.uint32) ^ x) * np.uint32(k + 1))
    return outs


@pytest.mark.parametrize("count", [20, 40, 70])
def test_a_kernel_reading_and_writing_many_tensors(target, count, rng):
    xs = _inputs(rng, count, 37)
    before = _arena_dispatches()
    outs = tf.compile(_mixed_program(count))(*xs)
    for got, want in zip(outs, _mixed_numpy(xs), strict=True):
        np.testing.assert_array_equal(got.numpy, want)
    if target[1] == 1:  # a kernel with more than one tensor binds only the arena
        assert _arena_dispatches() > before


# -- read-modify-write of many tensors in a loop inside the kernel ------------------------------

def _update_program(count: int, steps: int):
    """A loop inside the kernel that reads ``count // 2`` inputs at shifted places, then
    updates the other tensors in place: the loop needs every input at once, so neither
    fission nor the split can cut the kernel."""
    def program():
        first = tf.input([-1], tf.float32)
        n = first.shape[0]
        xs = [first] + [tf.input([n], tf.float32) for _ in range(count // 2 - 1)]
        accs = [x * 1.0 for x in xs[: count - count // 2 - 1]]
        hits = tf.zeros([n], tf.int32)
        with tf.kernel([n]) as i:
            sums = [tf.const(0.0) for _ in xs]
            with tf.loop(steps) as j:
                for k, x in enumerate(xs):
                    sums[k].val += x[(i + j) % n] * float(k % 3 + 1)
            for k, acc in enumerate(accs):
                acc[i] = acc[i] * 0.5 + sums[(k + 1) % len(xs)]
            hits[i] = hits[i] + tf.int(sums[0]) + 1
        return [*accs, hits]
    return program


def _update_numpy(xs: list, count: int, steps: int) -> list:
    n = xs[0].shape[0]
    i = np.arange(n)
    sums = [sum(x[(i + j) % n] * np.float32(k % 3 + 1) for j in range(steps)) for k, x in enumerate(xs)]
    accs = [x * np.float32(0.5) + sums[(k + 1) % len(xs)] for k, x in enumerate(xs[: count - count // 2 - 1])]
    return [*accs, sums[0].astype(np.int32) + 1]


@pytest.mark.parametrize("count", [20, 40, 70])
def test_read_modify_write_of_many_tensors_in_a_loop(target, count, rng):
    steps = 5
    xs = [rng.integers(-16, 16, 29).astype(np.float32) for _ in range(count // 2)]
    before = _arena_dispatches()
    outs = tf.compile(_update_program(count, steps))(*xs)
    # sums of small integers, halved: exact in float32
    for got, want in zip(outs, _update_numpy(xs, count, steps), strict=True):
        np.testing.assert_array_equal(got.numpy, want)
    if target[0] == "opengl":  # more tensors than any limit here, in one loop
        assert _arena_dispatches() > before


# -- scatters into tensors in the arena ----------------------------------------------------------

def _scatter_program(count: int):
    def program():
        slots = tf.input([-1], tf.int32)
        values = tf.input([slots.shape[0]], tf.int32)
        i, = slots.indices
        outs = []
        for k in range(count - 2):
            kind = k % 5
            if kind == 0:
                acc = tf.zeros([11], tf.float32)
                tf.scatterAdd(acc[slots[i]], tf.float(values[i]) * float(k + 1))
            elif kind == 1:
                acc = tf.zeros([11], tf.int32)
                tf.scatterAdd(acc[slots[i]], values[i] - k)
            elif kind == 2:
                acc = tf.zeros([11], tf.uint32)
                tf.scatterAdd(acc[slots[i]], tf.uint(values[i] + 20) * tf.uint(k))
            elif kind == 3:  # signed: a comparison of the raw words would put -1 above 5
                acc = tf.const(-1000, [11])
                tf.scatterMax(acc[slots[i]], values[i] - k)
            else:
                acc = tf.const(1e6, [11])
                tf.scatterMin(acc[slots[i]], tf.float(values[i] * k))
            outs.append(acc)
        return outs
    return program


def _scatter_numpy(slots, values, count: int) -> list:
    outs = []
    for k in range(count - 2):
        kind = k % 5
        if kind == 0:
            acc = np.zeros(11, np.float32)
            np.add.at(acc, slots, values.astype(np.float32) * np.float32(k + 1))
        elif kind == 1:
            acc = np.zeros(11, np.int32)
            np.add.at(acc, slots, values - k)
        elif kind == 2:
            acc = np.zeros(11, np.uint32)
            np.add.at(acc, slots, (values + 20).astype(np.uint32) * np.uint32(k))
        elif kind == 3:
            acc = np.full(11, -1000, np.int32)
            np.maximum.at(acc, slots, values - k)
        else:
            acc = np.full(11, 1e6, np.float32)
            np.minimum.at(acc, slots, (values * k).astype(np.float32))
        outs.append(acc)
    return outs


@pytest.mark.parametrize("count", [20, 40, 70])
def test_scatters_into_many_tensors(target, count, rng):
    slots = rng.integers(0, 11, 300).astype(np.int32)
    values = rng.integers(-20, 20, 300).astype(np.int32)
    outs = tf.compile(_scatter_program(count))(slots, values)
    # float sums of integers below 2^24: exact in any order
    for got, want in zip(outs, _scatter_numpy(slots, values, count), strict=True):
        np.testing.assert_array_equal(got.numpy, want)


# -- both front ends ------------------------------------------------------------------------------

@tf.kernel_program
def _smooth_kernel_program(a: tf.Arg([-1], tf.float32), b: tf.Arg([-1], tf.float32), c: tf.Arg([-1], tf.int32),
                           d: tf.Arg([-1], tf.uint32), e: tf.Arg([-1], tf.float32)):
    n = a.shape[0]
    out = tf.zeros([n], tf.float32)
    count = tf.zeros([n], tf.int32)
    for i in range(n):
        for j in range(3):
            out[i] = out[i] + a[(i + j) % n] * b[i] + e[(i + 2 * j) % n]
            count[i] = count[i] + c[(i + j) % n] + tf.int(d[i] & 7)
    return out, count


def test_a_kernel_program_through_the_arena(target, rng):
    n = 23
    a, b, e = (rng.integers(-9, 9, n).astype(np.float32) for _ in range(3))
    c = rng.integers(-9, 9, n).astype(np.int32)
    d = rng.integers(0, 1000, n).astype(np.uint32)
    out, count = _smooth_kernel_program(a, b, c, d, e)
    i = np.arange(n)
    want_out, want_count = np.zeros(n, np.float32), np.zeros(n, np.int32)
    for j in range(3):
        want_out = want_out + a[(i + j) % n] * b + e[(i + 2 * j) % n]
        want_count = want_count + c[(i + j) % n] + (d & 7).astype(np.int32)
    np.testing.assert_array_equal(out.numpy, want_out)
    np.testing.assert_array_equal(count.numpy, want_count)


# -- the arena's own edges --------------------------------------------------------------------------

@pytest.fixture
def gl(monkeypatch):
    if gl_unavailable_reason() is not None:
        pytest.skip(f"no OpenGL 4.3 context: {gl_unavailable_reason()}")
    tf.initialize(tf.opengl)
    yield tf.opengl
    tf.initialize(tf.cpu)


def _gl_backend():
    from tensorfrost import backend as devices
    return devices.backend_for(tf.opengl)


def test_one_tensor_bound_twice_is_one_copy_in_the_arena(gl, monkeypatch):
    monkeypatch.setattr(gl_runtime, "MAX_DIRECT_BINDINGS", 1)

    def program():
        a = tf.input([-1], tf.float32)
        b = tf.input([-1], tf.float32)
        return [a * 2.0 + b, a - b * 3.0]
    x = tf.tensor(np.arange(10, dtype=np.float32))
    before = gl_runtime.ArenaStats.copies_in
    first, second = tf.compile(program)(x, x)
    np.testing.assert_array_equal(first.numpy, np.arange(10) * 3.0)
    np.testing.assert_array_equal(second.numpy, np.arange(10) * -2.0)
    assert gl_runtime.ArenaStats.copies_in - before == 3  # x once, the two outputs


def test_booleans_in_the_arena(gl, monkeypatch, rng):
    monkeypatch.setattr(gl_runtime, "MAX_DIRECT_BINDINGS", 1)

    def program():
        a = tf.input([-1], tf.float32)
        keep = tf.input([a.shape[0]], tf.bool1)
        i, = a.indices
        any_kept = tf.zeros([3], tf.bool1)
        tf.scatterOr(any_kept[i % 3], keep[i])
        return [tf.select(keep, a, -a), (a > 0.0) != keep, any_kept]
    a = rng.integers(-5, 5, 20).astype(np.float32)
    keep = np.arange(20) % 4 == 1  # no element of slot 0 kept
    before = gl_runtime.ArenaStats.dispatches
    chosen, differs, any_kept = (t.numpy for t in tf.compile(program)(a, keep))
    assert gl_runtime.ArenaStats.dispatches > before
    np.testing.assert_array_equal(chosen, np.where(keep, a, -a))
    np.testing.assert_array_equal(differs, (a > 0) != keep)
    np.testing.assert_array_equal(any_kept, [np.any(keep[k::3]) for k in range(3)])


def test_an_arena_over_the_storage_block_limit_is_bound_in_parts(gl, monkeypatch, rng):
    """Six tensors of 150 words in one loop, 4 bindings of 256 words: five go to an arena of
    three parts, with tensors across the parts' edges; reads, writes and atomics there."""
    monkeypatch.setattr(gl_runtime, "MAX_DIRECT_BINDINGS", 4)
    monkeypatch.setattr(_gl_backend(), "elements_per_part", 256)
    slots = rng.integers(0, 150, 150).astype(np.int32)
    values = rng.integers(-50, 50, 150).astype(np.float32)

    def program():
        s = tf.input([-1], tf.int32)
        v = tf.input([s.shape[0]], tf.float32)
        n = s.shape[0]
        total, low, count = tf.zeros([150]), tf.const(1000, [150]), tf.zeros([150], tf.uint32)
        flipped = tf.zeros([n])
        with tf.kernel([n]) as i:
            with tf.loop(2) as j:  # one loop: neither fission nor the split can cut it
                tf.scatterAdd(total[s[i]], v[i])
                tf.scatterMin(low[s[i]], tf.int(v[i]) - j)
                tf.scatterAdd(count[s[i]], tf.uint(1))
                flipped[i] = flipped[i] + v[n - 1 - i] * 2.0
        return [total, low, count, flipped]
    before = gl_runtime.ArenaStats.dispatches
    total, low, count, flipped = (t.numpy for t in tf.compile(program)(slots, values))
    assert gl_runtime.ArenaStats.dispatches > before
    want_total, want_low, want_count = np.zeros(150, np.float32), np.full(150, 1000, np.int32), np.zeros(150, np.uint32)
    np.add.at(want_total, slots, 2 * values)
    np.minimum.at(want_low, slots, values.astype(np.int32) - 1)
    np.add.at(want_count, slots, 2)
    np.testing.assert_array_equal(total, want_total)  # sums of integers: exact in any order
    np.testing.assert_array_equal(low, want_low)
    np.testing.assert_array_equal(count, want_count)
    np.testing.assert_array_equal(flipped, values[::-1] * 4.0)


def test_an_arena_that_needs_more_ranges_than_the_driver_binds_is_a_clear_error(gl, monkeypatch):
    monkeypatch.setattr(gl_runtime, "MAX_DIRECT_BINDINGS", 1)
    monkeypatch.setattr(_gl_backend(), "elements_per_part", 256)

    def program():
        a = tf.input([-1], tf.float32)
        return a * 2.0
    compiled = tf.compile(program)
    with pytest.raises(tf.RuntimeCheckError, match="more storage buffer bindings than the 1"):
        compiled(np.ones(300, np.float32))  # 600 words: an arena of 3 ranges


def test_binding_plans():
    part = 100
    # fits: no arena
    assert plan_bindings([10, 10], [True, False], [1, 2], 2, part).offsets == {}
    # read-only ones first, then the smallest; the arena takes a binding
    plan = plan_bindings([50, 5, 7, 6], [True, True, False, False], [1, 2, 3, 4], 3, part)
    assert plan.offsets == {3: 0, 2: 6} and plan.arena_words == 13 and plan.arena_parts(part) == 1
    # one memory bound twice moves as one, at one offset (first: read-only); an empty buffer takes a word
    plan = plan_bindings([0, 8, 8, 9], [True, False, False, True], [1, 2, 2, 3], 2, part)
    assert plan.offsets == {1: 0, 2: 0, 0: 8} and plan.arena_words == 9
    # a buffer over a range takes several bindings, and so does the arena over one
    assert plan_bindings([250, 10, 10], [False] * 3, [1, 2, 3], 5, part).offsets == {}
    plan = plan_bindings([150, 60, 60], [False] * 3, [1, 2, 3], 3, part)
    assert plan.offsets == {1: 0, 2: 60, 0: 120} and plan.arena_parts(part) == 3
    # nothing fits
    assert plan_bindings([150, 160], [False] * 2, [1, 2], 2, part) is None


# -- upstream programs, with only the import changed -------------------------------------------------

def _upstream_matmul():
    # examples/Algorithms/matrix_mul.ipynb, as upstream wrote it
    A = tf.input([-1, -1], tf.float32)  # noqa: N806
    N, M = A.shape  # noqa: N806
    B = tf.input([M,  -1], tf.float32)  # noqa: N806
    K = B.shape[1]  # noqa: N806

    C = tf.buffer([N, K], tf.float32)  # noqa: N806
    BK = 64  # noqa: N806
    TBK = 4  # noqa: N806
    GK = BK // TBK  # noqa: N806

    #2d local + group tiled version
    with tf.kernel([N / TBK, K / TBK], group_size=[GK, GK]) as (i, j):
        A_group_tile = tf.group_buffer(BK*BK, tf.float32)  # noqa: N806
        B_group_tile = tf.group_buffer(BK*BK, tf.float32)  # noqa: N806
        tx = i.block_thread_index(1)
        ty = i.block_thread_index(0)
        gx = i - tx
        gy = j - ty

        #compute multiple results per thread
        results = [tf.const(0.0) for _ in range(TBK*TBK)]

        with tf.loop(0, K, BK) as blk:
            #load tiles into shared memory
            for blk_ty in range(TBK):
                for blk_tx in range(TBK):
                    ltx = blk_tx * GK + tx
                    lty = blk_ty * GK + ty
                    A_group_tile[ltx * BK + lty] = A[TBK * gx + ltx, blk + lty]

            for blk_tx in range(TBK):
                for blk_ty in range(TBK):
                    ltx = blk_tx * GK + tx
                    lty = blk_ty * GK + ty
                    B_group_tile[ltx * BK + lty] = B[blk + ltx, TBK * gy + lty]

            #wait for all threads to finish loading
            tf.group_barrier()

            with tf.loop(BK) as k:
                #perform outer product and accumulate
                B_row = [B_group_tile[k * BK + (tid * GK + ty)] for tid in range(TBK)]  # noqa: N806
                for tid in range(TBK):
                    A_value = A_group_tile[(tid * GK + tx) * BK + k]  # noqa: N806
                    for tid2 in range(TBK):
                        results[tid * TBK + tid2].val += A_value * B_row[tid2]

            tf.group_barrier()

        for tid in range(TBK):
            for tid2 in range(TBK):
                ltx = tid * GK + tx
                lty = tid2 * GK + ty
                C[TBK * gx + ltx, TBK * gy + lty] = results[tid * TBK + tid2]

    return C


def test_upstreams_matrix_mul(target):
    """18 buffers in one kernel that reads what it writes (16 accumulators, two tiles): it
    stopped on "more than the 16 this OpenGL driver binds"."""
    rng = np.random.default_rng(5)
    a = rng.random((128, 128)).astype(np.float32)
    b = rng.random((128, 128)).astype(np.float32)
    before = _arena_dispatches()
    mmul = tf.compile(_upstream_matmul)
    c = mmul(tf.tensor(a), tf.tensor(b)).numpy
    # float32 sums of 128 products in [0, 1): |error| <= 128 * 2^-24 * 128 / 2 ~ 5e-4, about
    # 2e-5 in practice
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=0, atol=1e-4)
    if target[0] == "opengl":
        assert _arena_dispatches() > before


# -- the random programs of the optimization oracle, through the arena ------------------------------

@pytest.mark.skipif(gl_unavailable_reason() is not None, reason=f"no OpenGL 4.3 context: {gl_unavailable_reason()}")
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(recipes(), st.integers(0, 1000), st.sampled_from([1, 2, 3]))
def test_random_programs_through_the_arena_agree_with_the_interpreter(recipe, seed, limit):
    """oracle_programs' random programs (exact in float32) on opengl with few direct bindings,
    bit for bit against the interpreter; every kernel over the limit went through the arena."""
    fn = build(recipe)
    inputs = arrays(recipe, seed)
    want = interpret(trace(fn), inputs)
    saved = gl_runtime.MAX_DIRECT_BINDINGS
    gl_runtime.MAX_DIRECT_BINDINGS = limit
    tf.initialize(tf.opengl)
    try:
        prog = tf.compile(fn)
        before = _arena_dispatches()
        out = prog(*inputs)
        got = [t.numpy for t in (out if isinstance(out, tuple) else [out])]
        over = any(piece.over_budget for kernel in prog.executable.kernels for piece in kernel.pieces)
    finally:
        gl_runtime.MAX_DIRECT_BINDINGS = saved
        tf.initialize(tf.cpu)
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        g = np.asarray(g)
        g = np.broadcast_to(g.reshape(()), w.shape) if g.size == 1 and w.size != 1 else g
        np.testing.assert_array_equal(g.reshape(w.shape), w, err_msg=f"output {k}, limit {limit}; {describe(recipe)}")
    assert not over or _arena_dispatches() > before


# examples/Rendering/neural_embed2.ipynb, as upstream wrote it (smaller sizes; image sizes odd
# so that no pixel sits exactly half-way between texels, where rounding would decide)
ImageW = 19  # noqa: N816
ImageH = 21  # noqa: N816
RN = 8


def mul_bias(X, W):  # noqa: N803
    ids = tf.indices(list(X.shape[:-1]) + [W.shape[-2]])
    return tf.select(ids[-1] == X.shape[-1], 0.01, X[ids]) @ W


def GELU(x):  # noqa: N802
    return 0.5*x*(1.0+tf.tanh(0.7978845608*(x+0.044715*x*x*x)))


class TextureEmbedder(tf.Module):
    def __init__(self, embedding_size = RN, embedding_channels = 16, channel_count = 3):
        super().__init__()
        self.embedding_size = embedding_size
        self.channel_count = channel_count
        self.embedding_channels = embedding_channels
        self.hidden_size = 20
        self.tex = tf.Parameter([embedding_size, embedding_size, embedding_channels], tf.float32, random_scale = 1.0)
        self.x_to_embed = tf.Parameter([embedding_channels, embedding_channels], tf.float32, random_scale = 2.0)
        self.fc1 = tf.Parameter([embedding_channels+1, self.hidden_size], tf.float32)
        self.fc2 = tf.Parameter([embedding_channels+1, self.hidden_size], tf.float32)
        self.phase_to_embed = tf.Parameter([embedding_channels, embedding_channels], tf.float32, random_scale = 2.00)
        self.fc3 = tf.Parameter([self.hidden_size+1, channel_count], tf.float32)
        self.y_to_embed = tf.Parameter([embedding_channels, embedding_channels], tf.float32, random_scale = 2.0)
        self.gate = tf.Parameter([embedding_channels, embedding_channels], tf.float32, random_scale = 0.2)

    def sample(self, i, j, k):
        res = self.tex[i, j, k]
        return res

    def neural_sample(self, i, j, x, y, ch):
        x = x - tf.float(i)
        y = y - tf.float(j)
        embed = self.sample(i, j, ch)
        embed = (embed @ self.gate) * tf.cos(x * (embed @ self.x_to_embed) + y * (embed @ self.y_to_embed) + (embed @ self.phase_to_embed))  # noqa: E501
        embed *= tf.smoothstep(1.5, 0.0, tf.abs(x)) * tf.smoothstep(1.5, 0.0, tf.abs(y))
        return embed

    def learned_interp(self, x, y):
        x = tf.repeat(tf.unsqueeze(x), 9)
        y = y[x.indices[:-1]]
        x = x.T
        y = y.T

        i, j = tf.round(x), tf.round(y)
        ii, jj = tf.int(i), tf.int(j)

        ids = x.indices
        ch = ids[-1]
        it = ids[-2]
        xi = it / 3 - 1
        yi = it % 3 - 1

        sample = self.neural_sample(ii+xi, jj+yi, x, y, ch)

        return tf.sum(sample, axis = -2)

    def forward(self, x, y):
        embed = self.learned_interp(x, y)
        embed = GELU(mul_bias(embed, self.fc1))*GELU(mul_bias(embed, self.fc2))
        return tf.clamp(mul_bias(embed, self.fc3), 0.0, 1.0)

    def loss(self, X, Y):  # noqa: N803
        i, j = tf.indices([X.shape[0], self.embedding_channels])
        Yhat = self.forward(X[i, 0], X[i, 1])  # noqa: N806
        diff = Yhat - Y
        return tf.mean(tf.mean(diff*diff))


def NeuralEmbed():  # noqa: N802
    pos = tf.input([-1, 2], tf.float32)
    N = pos.shape[0]  # noqa: N806
    val = tf.input([N, 3], tf.float32)

    info = tf.input([-1], tf.float32)
    learning_rate = info[0]

    model = TextureEmbedder()
    opt = tf.optimizers.adam(model, learning_rate = learning_rate)
    opt.initialize_input()

    loss = opt.step(pos, val)

    params = opt.parameters()
    params.append(loss)
    return params


def RenderImage():  # noqa: N802
    model = TextureEmbedder()
    model.initialize_input()

    i, j, e = tf.indices([ImageH, ImageW, model.embedding_channels])
    x, y = tf.float(i*(model.embedding_size-1))/float(ImageH), tf.float(j*(model.embedding_size-1))/float(ImageW)
    x = tf.float(model.embedding_size-1) - x

    return model.forward(x, y)


_PARAMETERS = ("tex", "x_to_embed", "fc1", "fc2", "phase_to_embed", "fc3", "y_to_embed", "gate")


def _embed_numpy(p: dict, x, y):
    """TextureEmbedder.forward in float64, for positions ``x``, ``y`` of any shape."""
    def bias(a, w):
        return np.concatenate([a, np.full(a.shape[:-1] + (1,), 0.01)], -1) @ w

    def gelu(a):
        return 0.5 * a * (1.0 + np.tanh(0.7978845608 * (a + 0.044715 * a ** 3)))

    def smooth(a):
        t = np.clip((a - 1.5) / -1.5, 0.0, 1.0)
        return t * t * (3.0 - 2.0 * t)
    it = np.arange(9)
    ii = np.rint(x)[..., None].astype(np.int64) + (it // 3 - 1)
    jj = np.rint(y)[..., None].astype(np.int64) + (it % 3 - 1)
    dx, dy = x[..., None] - ii, y[..., None] - jj
    texel = p["tex"][np.clip(ii, 0, RN - 1), np.clip(jj, 0, RN - 1)]
    wave = dx[..., None] * (texel @ p["x_to_embed"]) + dy[..., None] * (texel @ p["y_to_embed"])
    embed = (texel @ p["gate"]) * np.cos(wave + texel @ p["phase_to_embed"])
    embed = (embed * (smooth(np.abs(dx)) * smooth(np.abs(dy)))[..., None]).sum(-2)
    hidden = gelu(bias(embed, p["fc1"])) * gelu(bias(embed, p["fc2"]))
    return np.clip(bias(hidden, p["fc3"]), 0.0, 1.0)


def _loss_numpy(p: dict, pos, val) -> float:
    return float(np.mean((_embed_numpy(p, pos[:, 0], pos[:, 1]) - val) ** 2))


def test_upstreams_neural_embed2(target):
    """A training step (Adam) and the render of upstream's neural texture. Issue 27 saw a
    kernel of 29 buffers stop it; fission now keeps it within llvmpipe's 16, and the lowered
    limits send it through the arena."""
    rng = np.random.default_rng(3)
    pos = rng.random((48, 2)) * (RN - 1)
    vals = rng.random((48, 3))
    before = _arena_dispatches()
    reconstruct = tf.compile(NeuralEmbed)
    render = tf.compile(RenderImage)
    model = TextureEmbedder()
    opt = tf.optimizers.adam(model)
    opt.initialize_parameters()
    start = {name: getattr(model, name).numpy.astype(np.float64) for name in _PARAMETERS}

    i, j = np.meshgrid(np.arange(ImageH), np.arange(ImageW), indexing="ij")
    x = np.float32(RN - 1) - (i * (RN - 1)).astype(np.float32) / np.float32(ImageH)
    y = (j * (RN - 1)).astype(np.float32) / np.float32(ImageW)
    image = render(model).numpy
    # float32 through a few dozen operations on values of order 1-10 (cos of sums of 16
    # products): about 1e-6, bounded well below 1e-4
    np.testing.assert_allclose(image, _embed_numpy(start, x.astype(np.float64), y.astype(np.float64)), atol=1e-4)

    lr = 0.001
    output = reconstruct(tf.tensor(pos.astype(np.float32)), tf.tensor(vals.astype(np.float32)), [lr, lr], opt)
    pos32, vals32 = pos.astype(np.float32).astype(np.float64), vals.astype(np.float32).astype(np.float64)
    np.testing.assert_allclose(output[-1].numpy.reshape(()), _loss_numpy(start, pos32, vals32), rtol=1e-4)
    opt.update_parameters(output[:-1])
    # Adam's first step moves each parameter by lr * g / (|g| + 1e-8): by lr against the sign of
    # its gradient (here from central differences) where that is clearly nonzero
    checked = 0
    for name in _PARAMETERS:
        step = getattr(model, name).numpy.astype(np.float64) - start[name]
        assert np.abs(step).max() <= lr * 1.001, name
        for flat in rng.choice(step.size, 4, replace=False):
            k = np.unravel_index(flat, step.shape)
            moved = {n: v.copy() for n, v in start.items()}
            moved[name][k] += 1e-6
            up = _loss_numpy(moved, pos32, vals32)
            moved[name][k] -= 2e-6
            gradient = (up - _loss_numpy(moved, pos32, vals32)) / 2e-6
            if abs(gradient) > 1e-3:
                np.testing.assert_allclose(step[k], -lr * np.sign(gradient), rtol=1e-3, err_msg=f"{name}{k}")
                checked += 1
    assert checked >= 8
    if target[1] is not None:
        assert _arena_dispatches() > before
