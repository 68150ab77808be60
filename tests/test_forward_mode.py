"""Forward-mode derivatives (tf.jvp, tf.hvp, tf.jacfwd, tf.jacrev) against central
differences of float64 numpy references and against jax in float64.

A directional derivative is compared with ``(f(x + e v) - f(x - e v)) / 2e`` at e = 1e-4 in
float64: its error (~1e-8 relative) is far below the float32 rounding of the compiled
tangent, so the tolerances are those of float32 chains of a few ops (rtol 2e-3, atol 2e-4
scaled by the size of the values, as in test_autodiff.py).
"""

import jax
import numpy as np
import pytest
from test_autodiff import BINARY, REDUCTIONS, TERNARY, UNARY, VIEWS

import tensorfrost as tf
from tensorfrost.ir.op_rules import AUTODIFF, OPS

EPS = 1e-4


def directional(f, xs, vs):
    """d f(xs) along vs, by central differences in float64."""
    xs = [np.asarray(a, np.float64) for a in xs]
    vs = [np.asarray(a, np.float64) for a in vs]
    up = f(*[x + EPS * v for x, v in zip(xs, vs)])
    down = f(*[x - EPS * v for x, v in zip(xs, vs)])
    return (np.asarray(up) - np.asarray(down)) / (2 * EPS)


def check(got, want, what, rtol=2e-3, atol=2e-4):
    want = np.asarray(want)
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(np.asarray(got.numpy if hasattr(got, "numpy") else got), want, rtol=rtol,
                               atol=atol * scale, err_msg=what)


def tangents_like(arrays, seed=11):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1, 1, np.shape(a)).astype(np.float32) for a in arrays]


def check_family(table, make_inputs, backend):
    """One program with the jvp of every op of ``table`` (each along its own tangents)."""
    names = sorted(table)
    inputs = {name: make_inputs(name) for name in names}
    tangents = {name: tangents_like(inputs[name], k) for k, name in enumerate(names)}

    def program():
        out = []
        for name in names:
            xs = [tf.input(list(np.shape(a)), tf.float32) for a in inputs[name]]
            vs = [tf.input(list(np.shape(a)), tf.float32) for a in inputs[name]]
            out.append(tf.jvp(table[name][0](*xs), xs, vs))
        return out
    args = [a for name in names for a in (*inputs[name], *tangents[name])]
    results = tf.compile(program)(*args)
    for name, got in zip(names, results):
        check(got, directional(table[name][1], inputs[name], tangents[name]), f"jvp of {name} on {backend}")


def test_unary_ops(backend):
    def inputs(name):
        lo, hi = UNARY[name][2]
        return [np.random.default_rng(1).uniform(lo, hi, 9).astype(np.float32)]
    check_family({k: v[:2] for k, v in UNARY.items()}, inputs, backend)


def test_binary_ops(backend):
    rng = np.random.default_rng(2)
    a = rng.uniform(0.5, 2.0, (3, 4)).astype(np.float32)
    b = rng.uniform(0.6, 2.1, (3, 4)).astype(np.float32)
    check_family(BINARY, lambda name: [a, b], backend)


def test_ternary_ops(backend):
    def inputs(name):
        rng = np.random.default_rng(3)
        a, b, c = (rng.uniform(-1, 1, 8).astype(np.float32) for _ in range(3))
        if name == "smoothstep":
            a, b = a - 2.0, b + 2.0
        if name == "clamp":
            b, c = b - 1.5, c + 1.5
        return [a, b, c]
    check_family(TERNARY, inputs, backend)


def test_reductions_and_scans(backend):
    from tensorfrost.lib import scan
    table = dict(REDUCTIONS)
    table["cumprod"] = (lambda x: scan.cumprod(x, axis=1), lambda x: np.cumprod(x, axis=1))
    table["cummax"] = (lambda x: scan.cummax(x, axis=1), lambda x: np.maximum.accumulate(x, axis=1))
    table["cummin_reverse"] = (lambda x: scan.cummin(x, axis=0, reverse=True),
                               lambda x: np.minimum.accumulate(x[::-1], axis=0)[::-1])
    table["exclusive_cumsum"] = (lambda x: tf.prefix_sum(x, axis=1, exclusive=True),
                                 lambda x: np.cumsum(x, axis=1) - x)
    x = np.random.default_rng(5).uniform(0.5, 2.0, (3, 4)).astype(np.float32)
    check_family(table, lambda name: [x], backend)


def test_views_indexing_and_matmul(backend):
    table = dict(VIEWS)
    table["matmul"] = (lambda x: tf.reshape(x, [6, 4]) @ tf.transpose(tf.reshape(x, [6, 4])),
                       lambda x: x.reshape(6, 4) @ x.reshape(6, 4).T)
    x = np.random.default_rng(6).uniform(-2, 2, (2, 3, 4)).astype(np.float32)
    check_family(table, lambda name: [x], backend)


def test_memory_stores_gathers_and_scatters(backend):
    """Tangents are written beside the values: a store of a constant zeroes the tangent
    there, a gather with repeated indices reads one tangent twice, scatterAdd adds them."""
    rng = np.random.default_rng(10)
    x = rng.standard_normal(6).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)

    def body(a, w):
        c = a * 1.0
        i, = w.indices
        c[i + 1] = w * 2.0
        tf.scatterAdd(c[i % 2], w * w)
        c[5] = 3.0
        j, = tf.indices([10])
        return c[(j * 7) % 6] * c[j % 3]

    def reference(a, w):
        c = a.copy()
        c[1:5] = w * 2
        np.add.at(c, np.arange(4) % 2, w * w)
        c[5] = 3.0
        j = np.arange(10)
        return c[(j * 7) % 6] * c[j % 3]
    vs = tangents_like([x, b])

    def program():
        a, w = tf.input([6], tf.float32), tf.input([4], tf.float32)
        ta, tw = tf.input([6], tf.float32), tf.input([4], tf.float32)
        return tf.jvp(body(a, w), [a, w], [ta, tw])
    check(tf.compile(program)(x, b, *vs), directional(reference, [x, b], vs), "jvp through memory")


def simulate_reference(x0, k, steps=20, dt=0.05):
    """A chain of springs (symplectic Euler), stiffness ``k`` per spring, in float64."""
    x, v = x0.copy(), np.zeros_like(x0)
    for _ in range(steps):
        left = np.concatenate([x[:1], x[:-1]])
        right = np.concatenate([x[1:], x[-1:]])
        v = v + dt * k * (left + right - 2 * x) - dt * 0.1 * np.sin(x)
        x = x + dt * v
    return x


def simulate_traced(x0, k, steps=20, dt=0.05):
    n = x0.shape[0]
    x, v = x0 * 1.0, x0 * 0.0
    i, = x0.indices
    with tf.loop(steps):
        left = x[tf.max(i - 1, 0)]
        right = x[tf.min(i + 1, n - 1)]
        v.val = v + dt * k * (left + right - 2.0 * x) - dt * 0.1 * tf.sin(x)
        x.val = x + dt * v
    return x


def test_simulation_in_a_loop_forward_and_both_compositions(backend):
    """A tf.loop simulation: its jvp, its Hessian-vector product (forward over reverse) and
    the gradient of a jvp (reverse over forward), against central differences."""
    rng = np.random.default_rng(12)
    x0 = rng.uniform(-1, 1, 16).astype(np.float32)
    k = rng.uniform(0.5, 2.0, 16).astype(np.float32)
    tx, tk = tangents_like([x0, k], 3)
    w = rng.uniform(0.5, 1.5, 16).astype(np.float32)

    def program():
        x, kk = tf.input([16], tf.float32), tf.input([16], tf.float32)
        vx, vk, ww = (tf.input([16], tf.float32) for _ in range(3))
        end = simulate_traced(x, kk)
        loss = tf.sum(end * end * ww)
        dx = tf.jvp(end, [x, kk], [vx, vk])
        return dx, tf.hvp(loss, kk, vk), tf.grad(tf.sum(dx * ww), kk)
    dx, hvp, reverse_over_forward = tf.compile(program)(x0, k, tx, tk, w)
    check(dx, directional(simulate_reference, [x0, k], [tx, tk]), "jvp of the simulation")

    def gradient_k(kk):  # d loss / dk by central differences of the loss, per element
        return np.array([directional(lambda q: np.sum(simulate_reference(x0, q) ** 2 * w), [kk],
                                     [np.eye(16)[j]]) for j in range(16)])
    check(hvp, directional(gradient_k, [k], [tk]), "hvp of the simulation", rtol=5e-3)
    weighted_jvp = lambda kk: np.sum(directional(simulate_reference, [x0, kk], [tx, tk]) * w)  # noqa: E731
    want = np.array([directional(weighted_jvp, [k], [np.eye(16)[j]]) for j in range(16)])
    check(reverse_over_forward, want, "grad of the jvp", rtol=5e-3, atol=2e-3)


def test_kernel_program_loops_while_break_continue_and_if(backend):
    """Kernel programs as users write them: a counter from 0, a while on data with an early
    exit, a continue, a per-element if, nested loops."""
    @tf.kernel_program
    def program(c: tf.Arg([-1], tf.float32), v: tf.Arg([-1], tf.float32)):
        z = c * 0.0 + 0.1
        n = 0
        while z < 100.0:
            z = z * (1.0 + c * 0.3) + c
            n += 1
            if n > 50:
                break
        s = c * 0.0
        for k in range(6):
            if c * k > 3.0:
                continue
            for j in range(2):
                s = s * 0.9 + tf.sin(c * k + j)
        return tf.jvp([z, s], c, v)

    def grow(c):
        out = []
        for ci in c:
            z, n = 0.1, 0
            while z < 100.0:
                z, n = z * (1 + ci * 0.3) + ci, n + 1
                if n > 50:
                    break
            out.append(z)
        return np.array(out)

    def skip(c):
        s = np.zeros_like(c)
        for k in range(6):
            for j in range(2):
                s = np.where(c * k > 3.0, s, s * 0.9 + np.sin(c * k + j))
        return s
    c = np.array([0.3, 1.1, 2.0, 7.0, 12.0, 9.5], np.float32)  # away from c * k == 3
    v = tangents_like([c])[0]
    z, s = program(c, v)
    check(z, directional(grow, [c], [v]), "jvp through a while with break")
    check(s, directional(skip, [c], [v]), "jvp through continue and nested loops")


def test_traced_per_element_if_and_break(backend):
    def program():
        x, t = tf.input([-1], tf.float32), tf.input([-1], tf.float32)
        s = x * 1.0
        with tf.loop(10):
            with tf.if_cond(s > 3.0):
                tf.break_loop()
            s.val = s * 1.3 + 0.1 * tf.exp(x)
        return tf.jvp(s, x, t)

    def reference(x):
        out = []
        for xi in x:
            s = xi
            for _ in range(10):
                if s > 3.0:
                    break
                s = s * 1.3 + 0.1 * np.exp(xi)
            out.append(s)
        return np.array(out)
    x = np.random.default_rng(13).uniform(0.1, 2.0, 7).astype(np.float32)
    t = tangents_like([x])[0]
    check(tf.compile(program)(x, t), directional(reference, [x], [t]), "jvp through a per-element break")


def test_tf_kernel_and_custom_operations(backend):
    def forward(inputs, tensor, axes):
        return [tf.tanh(inputs[0])]

    tf.register_custom_operation("fm_tanh_with_jvp", ["f_f"], forward,
                                 lambda inputs, g, y: [g * (1.0 - y * y)],
                                 lambda inputs, tangents, y: tangents[0] * (1.0 - y * y))
    tf.register_custom_operation("fm_tanh_vjp_only", ["f_f"], forward, lambda inputs, g, y: [g * (1.0 - y * y)])

    def program():
        x, t = tf.input([-1], tf.float32), tf.input([-1], tf.float32)
        n = x.shape[0]
        out = tf.buffer([n], tf.float32)
        with tf.kernel([n]) as i:
            acc = tf.const(0.0)
            with tf.loop(3) as k:
                acc.val += tf.sin(x[(i + k) % n]) * x[i]
            out[i] = acc
        return tf.jvp([out, tf.custom("fm_tanh_with_jvp", [x * 2.0]), tf.custom("fm_tanh_vjp_only", [x * 2.0])],
                      x, t)
    x = np.random.default_rng(14).standard_normal(5).astype(np.float32)
    t = tangents_like([x])[0]
    kernel, with_jvp, transposed = tf.compile(program)(x, t)
    n = len(x)
    check(kernel, directional(lambda a: sum(np.sin(a[(np.arange(n) + k) % n]) * a for k in range(3)), [x], [t]),
          "jvp through tf.kernel")
    check(with_jvp, directional(lambda a: np.tanh(2 * a), [x], [t]), "a custom operation's jvp")
    check(transposed, directional(lambda a: np.tanh(2 * a), [x], [t]), "a custom operation's transposed vjp")


def test_library_sort_fft_linalg(backend):
    rng = np.random.default_rng(15)
    a = rng.standard_normal((2, 8)).astype(np.float32)
    m = (rng.standard_normal((3, 3)) + 3 * np.eye(3)).astype(np.float32)
    spd = (m @ m.T).astype(np.float32)
    b = rng.standard_normal((3, 2)).astype(np.float32)
    ta, tm, tb = tangents_like([a, m, b], 4)
    ts = (tm + tm.T).astype(np.float32)

    def program():
        x, mm, s, rhs = (tf.input(list(np.shape(q)), tf.float32) for q in (a, m, spd, b))
        vx, vm, vs, vb = (tf.input(list(np.shape(q)), tf.float32) for q in (a, m, spd, b))
        z = tf.fft.rfft(x)
        power = tf.fft.real(z) ** 2 + tf.fft.imag(z) ** 2
        return [tf.jvp(tf.sort.sort(x) ** 2, x, vx), tf.jvp(power, x, vx), tf.jvp(tf.linalg.inv(mm), mm, vm),
                tf.jvp(tf.linalg.det(mm), mm, vm), tf.jvp(tf.linalg.solve(mm, rhs), [mm, rhs], [vm, vb]),
                tf.jvp(tf.linalg.cholesky(s), s, vs)]
    got = tf.compile(program)(a, m, spd, b, ta, tm, ts, tb)
    wants = [directional(lambda q: np.sort(q, axis=-1) ** 2, [a], [ta]),
             directional(lambda q: np.abs(np.fft.rfft(q)) ** 2, [a], [ta]),
             directional(np.linalg.inv, [m], [tm]), directional(np.linalg.det, [m], [tm]),
             directional(np.linalg.solve, [m, b], [tm, tb]), directional(np.linalg.cholesky, [spd], [ts])]
    names = ["sort", "rfft", "inv", "det", "solve", "cholesky"]
    for name, g, w in zip(names, got, wants):
        check(np.reshape(g.numpy, np.shape(w)), w, f"jvp of {name}")


def test_hessian_vector_products_through_linalg_against_jax(backend):
    """Second derivatives of inv, solve, det and cholesky: forward over their reverse rules.
    cholesky reads only the lower triangle of its symmetric input where jax symmetrizes, so
    its H v is compared contracted with a symmetric matrix (what both conventions agree on)."""
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    rng = np.random.default_rng(17)
    m = (rng.standard_normal((4, 4)) + 4 * np.eye(4)).astype(np.float32)
    spd = (m @ m.T).astype(np.float32)
    b = rng.standard_normal((4, 1)).astype(np.float32)
    v = rng.standard_normal((4, 4)).astype(np.float32)
    vs = (v + v.T).astype(np.float32)

    def program():
        a, s, rhs, t, ts = (tf.input(list(np.shape(q)), tf.float32) for q in (m, spd, b, v, vs))
        inverse = tf.linalg.inv(a)
        solved = tf.linalg.solve(a, rhs)
        return (tf.hvp(tf.sum(tf.sum(inverse * inverse)), a, t), tf.hvp(tf.sum(tf.sum(solved * solved)), a, t),
                tf.hvp(tf.linalg.det(a), a, t), tf.hvp(tf.sum(tf.sum(tf.linalg.cholesky(s))), s, ts))
    got = tf.compile(program)(m, spd, b, v, vs)
    m64, b64 = np.float64(m), np.float64(b)
    losses = [lambda a: jnp.sum(jnp.linalg.inv(a) ** 2), lambda a: jnp.sum(jnp.linalg.solve(a, b64) ** 2),
              jnp.linalg.det]
    for name, g, loss in zip(["inv", "solve", "det"], got, losses):
        check(g, np.asarray(jax.jvp(jax.grad(loss), (m64,), (np.float64(v),))[1]), f"H v through {name}")
    want = np.asarray(jax.jvp(jax.grad(lambda s: jnp.sum(jnp.linalg.cholesky(s))), (np.float64(spd),),
                              (np.float64(vs),))[1])
    w = rng.standard_normal((4, 4))
    w = w + w.T
    check(np.sum(got[3].numpy * w), np.sum(want * w), "H v through cholesky, contracted with a symmetric w")


def test_nn_layers_against_torch(backend):
    """tf.jvp through the nn library: each layer's directional derivative against central
    differences of torch.nn.functional in float64."""
    import torch
    import torch.nn.functional as nnf
    rng = np.random.default_rng(18)
    x = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    bias = rng.standard_normal(4).astype(np.float32)
    gamma, beta = rng.standard_normal(6).astype(np.float32), rng.standard_normal(6).astype(np.float32)
    tx, tw, tbias, tgamma, tbeta = tangents_like([x, w, bias, gamma, beta], 5)

    def program():
        xx, ww, bb, g, be = (tf.input(list(np.shape(q)), tf.float32) for q in (x, w, bias, gamma, beta))
        vx, vw, vb, vg, vbe = (tf.input(list(np.shape(q)), tf.float32) for q in (x, w, bias, gamma, beta))
        return (tf.jvp(tf.nn.conv2d(xx, ww, bb, stride=2, padding=1), [xx, ww, bb], [vx, vw, vb]),
                tf.jvp(tf.nn.max_pool2d(xx, 2), xx, vx), tf.jvp(tf.nn.avg_pool2d(xx, 3, stride=1, padding=1), xx, vx),
                tf.jvp(tf.nn.layer_norm(xx, [6], g, be), [xx, g, be], [vx, vg, vbe]),
                tf.jvp(tf.nn.log_softmax(xx, axis=1), xx, vx), tf.jvp(tf.nn.gelu(xx), xx, vx),
                tf.jvp(tf.nn.batch_norm(xx, training=True), xx, vx))
    got = tf.compile(program)(x, w, bias, gamma, beta, tx, tw, tbias, tgamma, tbeta)
    t = torch.from_numpy
    layers = [(lambda a, k, c: nnf.conv2d(t(a), t(k), t(c), stride=2, padding=1), [x, w, bias], [tx, tw, tbias]),
              (lambda a: nnf.max_pool2d(t(a), 2), [x], [tx]),
              (lambda a: nnf.avg_pool2d(t(a), 3, stride=1, padding=1), [x], [tx]),
              (lambda a, g, be: nnf.layer_norm(t(a), [6], t(g), t(be)), [x, gamma, beta], [tx, tgamma, tbeta]),
              (lambda a: nnf.log_softmax(t(a), dim=1), [x], [tx]), (lambda a: nnf.gelu(t(a)), [x], [tx]),
              (lambda a: nnf.batch_norm(t(a), None, None, training=True), [x], [tx])]
    names = ["conv2d", "max_pool2d", "avg_pool2d", "layer_norm", "log_softmax", "gelu", "batch_norm"]
    for name, g, (f, xs, vs) in zip(names, got, layers):
        check(g, directional(lambda *a, f=f: f(*a).numpy(), xs, vs), f"jvp of {name} on {backend}")


def test_jacfwd_equals_jacrev_and_jax_on_random_maps(backend):
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    rng = np.random.default_rng(16)
    w1 = rng.standard_normal((5, 3)).astype(np.float32)
    w2 = rng.standard_normal((4, 5)).astype(np.float32)
    x = rng.standard_normal(3).astype(np.float32)

    def program():
        xx, a, b = tf.input([3], tf.float32), tf.input([5, 3], tf.float32), tf.input([4, 5], tf.float32)
        hidden = tf.tanh(a @ tf.unsqueeze(xx, 1))
        y = tf.squeeze(b @ (hidden * hidden), 1) + tf.sin(xx[0]) * xx[2]
        return tf.jacfwd(y, xx), tf.jacrev(y, xx), tf.jacfwd(y, b)

    def f(xx, b=w2):
        hidden = jnp.tanh(w1 @ xx[:, None])
        return (b @ (hidden * hidden))[:, 0] + jnp.sin(xx[0]) * xx[2]
    forward, reverse, wrt_matrix = tf.compile(program)(x, w1, w2)
    want = np.asarray(jax.jacfwd(f)(np.float64(x)))
    assert forward.numpy.shape == (4, 3) and wrt_matrix.numpy.shape == (4, 4, 5)
    check(forward, want, "jacfwd against jax")
    check(reverse, forward.numpy, "jacrev against jacfwd")
    check(wrt_matrix, np.asarray(jax.jacfwd(lambda b: f(np.float64(x), b))(np.float64(w2))), "jacfwd of a matrix")


def test_hvp_of_a_small_mlp_against_jax(backend):
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    rng = np.random.default_rng(17)
    data = rng.standard_normal((8, 4)).astype(np.float32)
    target = rng.standard_normal((8, 2)).astype(np.float32)
    w1 = (rng.standard_normal((4, 6)) * 0.5).astype(np.float32)
    w2 = (rng.standard_normal((6, 2)) * 0.5).astype(np.float32)
    v1, v2 = tangents_like([w1, w2], 5)

    def program():
        xs, ys = tf.input([8, 4], tf.float32), tf.input([8, 2], tf.float32)
        a, b = tf.input([4, 6], tf.float32), tf.input([6, 2], tf.float32)
        ta, tb = tf.input([4, 6], tf.float32), tf.input([6, 2], tf.float32)
        loss = tf.mean(tf.mean((tf.tanh(xs @ a) @ b - ys) ** 2))  # (tf.mean reduces the last axis)
        return tf.jvp([tf.grad(loss, a), tf.grad(loss, b)], [a, b], [ta, tb])

    def loss(params):
        a, b = params
        return jnp.mean((jnp.tanh(data @ a) @ b - target) ** 2)
    params = (np.float64(w1), np.float64(w2))
    _, (h1, h2) = jax.jvp(jax.grad(loss), (params,), ((np.float64(v1), np.float64(v2)),))
    got1, got2 = tf.compile(program)(data, target, w1, w2, v1, v2)
    check(got1, np.asarray(h1), "hvp of the MLP, first layer")
    check(got2, np.asarray(h2), "hvp of the MLP, second layer")


def test_the_readme_example_against_closed_forms(backend):
    """README's derivatives(): y = x sin x elementwise, so J = diag(y'), H of sum(y^2) =
    diag(2 (y'^2 + y y'')), with y' = sin x + x cos x and y'' = 2 cos x - x sin x."""
    def derivatives():
        x, v = tf.input([3], tf.float32), tf.input([3], tf.float32)
        y = tf.sin(x) * x
        loss = tf.sum(y * y)
        return tf.jvp(y, x, v), tf.hvp(loss, x, v), tf.jacfwd(y, x), tf.jacrev(y, x)
    x, v = np.float32([0.3, -1.2, 2.0]), np.float32([1.0, 0.5, -2.0])
    jv, hv, jf, jr = tf.compile(derivatives)(x, v)
    x64, v64 = x.astype(np.float64), v.astype(np.float64)
    y, dy, ddy = x64 * np.sin(x64), np.sin(x64) + x64 * np.cos(x64), 2 * np.cos(x64) - x64 * np.sin(x64)
    check(jv, dy * v64, "J v")
    check(hv, 2 * (dy * dy + y * ddy) * v64, "H v")
    check(jf, np.diag(dy), "jacfwd")
    check(jr, np.diag(dy), "jacrev")


def test_every_differentiable_op_has_a_forward_rule():
    """A new op with a reverse rule and no forward rule fails here (the autodiff markers
    are the pass's own: detach, pass_grad, custom_grad, library_grad, grad, jvp)."""
    import tensorfrost.tracing.jvp  # noqa: F401 (registers the rules)
    missing = [name for name, op in OPS.items() if op.vjp is not None and op.jvp is None]
    assert not missing, f"ops without a jvp rule: {missing}"
    assert {name for name, op in OPS.items() if op.kind == AUTODIFF} == {
        "grad", "jvp", "detach", "pass_grad", "custom_grad", "library_grad"}


def test_the_tangent_may_be_computed_after_x_and_stop_gradients_hold():
    def program():
        x = tf.input([-1], tf.float32)
        y = tf.exp(x) + tf.sin(x).detach_grad()
        v = tf.ones(x.shape, tf.float32) * 2.0  # after x: moved before it
        return tf.jvp(y, x, v)
    x = np.linspace(-1, 1, 5).astype(np.float32)
    check(tf.compile(program)(x), 2.0 * np.exp(x.astype(np.float64)), "jvp with v after x")


def test_clear_errors():
    def wrong_dtype():
        x = tf.input([4], tf.int32)
        return tf.jvp(x * 2, x, x)

    def wrong_count():
        x = tf.input([4], tf.float32)
        return tf.jvp(x * 2.0, [x, x], [x])

    def wrong_shape():
        x, v = tf.input([4], tf.float32), tf.input([3], tf.float32)
        return tf.jvp(x * 2.0, x, v)

    def dynamic_jacobian():
        x = tf.input([-1], tf.float32)
        return tf.jacfwd(x * 2.0, x)

    def v_from_a_variable():
        x = tf.input([4], tf.float32)
        s = tf.zeros([4], tf.float32)
        y = x * x
        s.val = s + 1.0
        return tf.jvp(y, x, s * 1.0)
    cases = [(wrong_dtype, tf.DTypeError, "x must be a float tensor"), (wrong_count, tf.TraceError, "one tangent"),
             (wrong_shape, tf.ShapeError, "tf.jvp: v against x"), (dynamic_jacobian, tf.ShapeError, "known when"),
             (v_from_a_variable, tf.TraceError, "compute v before x")]
    for program, error, text in cases:
        with pytest.raises(error, match=text) as info:
            tf.compile(program)
        assert "test_forward_mode.py" in str(info.value), str(info.value)
