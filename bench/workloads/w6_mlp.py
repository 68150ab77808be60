"""W6: one Adam training step of an MLP, as the modules issue states it; the metric is steps/s.

    h1 = tanh(X W1 + b1); h2 = tanh(h1 W2 + b2); logits = h2 W3 + b3
    loss = mean over the batch of the softmax cross-entropy;  Adam (lr 1e-3, 0.9, 0.999, 1e-8)

784 -> 256 -> 256 -> 10, batch 1024, float32; the quick size is issue 18's small program, a
32 -> 64 -> 10 MLP at batch 64 (17-23 kernels of a few thousand elements), where fixed costs per
call and per kernel decide. tensorfrost runs ``opt.compile_step`` (forward,
backward and update in one program); jax ``value_and_grad`` and the same Adam under ``jit``;
torch autograd with ``torch.optim.Adam`` (eager, and with the loss under ``torch.compile``);
numpy differentiates by hand (the reference, in float64). The check runs one step from the
same parameters and zero state and compares the updated parameters (see ``check``).
"""

from __future__ import annotations

import numpy as np

from .. import gl, webgpu
from ..harness import Target, Workload
from ..peers import GL_IMPLS, WEBGPU_IMPLS

LR, BETA1, BETA2, EPS = 1e-3, 0.9, 0.999, 1e-8


def inputs(p, rng):
    dims = p["dims"]
    out = {"x": rng.normal(0.0, 1.0, (p["batch"], dims[0])).astype(np.float32)}
    out["labels"] = rng.integers(0, dims[-1], p["batch"])
    out["y"] = np.eye(dims[-1], dtype=np.float32)[out["labels"]]
    for k in range(len(dims) - 1):
        scale = np.sqrt(2.0 / (dims[k] + dims[k + 1]))
        out[f"W{k + 1}"] = rng.normal(0.0, scale, (dims[k], dims[k + 1])).astype(np.float32)
        out[f"b{k + 1}"] = np.zeros(dims[k + 1], np.float32)
    return out


def _names(p) -> list[str]:
    return [f"{kind}{k + 1}" for k in range(len(p["dims"]) - 1) for kind in ("W", "b")]


def numpy_grads(params: dict, x, y, dtype=np.float32) -> dict:
    """Gradients of the mean softmax cross-entropy, by hand."""
    layers = len(params) // 2
    acts = [x.astype(dtype)]
    for k in range(1, layers + 1):
        z = acts[-1] @ params[f"W{k}"] + params[f"b{k}"]
        acts.append(np.tanh(z) if k < layers else z)
    logits = acts[-1] - acts[-1].max(axis=1, keepdims=True)
    probs = np.exp(logits)
    probs /= probs.sum(axis=1, keepdims=True)
    grad = (probs - y) / dtype(len(x))
    grads = {}
    for k in range(layers, 0, -1):
        grads[f"W{k}"] = acts[k - 1].T @ grad
        grads[f"b{k}"] = grad.sum(axis=0)
        if k > 1:
            grad = (grad @ params[f"W{k}"].T) * (1 - acts[k - 1] * acts[k - 1])
    return grads


def adam_update(params: dict, state: dict, grads: dict, dtype=np.float32) -> None:
    state["t"] += 1
    t = state["t"]
    for n, g in grads.items():
        state["m"][n] = BETA1 * state["m"][n] + (1 - BETA1) * g
        state["v"][n] = BETA2 * state["v"][n] + (1 - BETA2) * g * g
        m_hat = state["m"][n] / dtype(1 - BETA1 ** t)
        v_hat = state["v"][n] / dtype(1 - BETA2 ** t)
        params[n] = params[n] - dtype(LR) * m_hat / (np.sqrt(v_hat) + dtype(EPS))


def _fresh_state(params: dict) -> dict:
    return {"t": 0, "m": {n: np.zeros_like(w) for n, w in params.items()},
            "v": {n: np.zeros_like(w) for n, w in params.items()}}


def reference(inp, p):
    params = {n: inp[n].astype(np.float64) for n in _names(p)}
    adam_update(params, _fresh_state(params), numpy_grads(params, inp["x"], inp["y"], np.float64), np.float64)
    return [params[n] for n in _names(p)]


def check(outputs, reference):
    """Largest error of an updated parameter in units of Adam's step (the learning rate).

    Adam's first step moves each weight by ``lr * g / (|g| + eps)``: where a gradient is
    near ``eps`` (1e-8) its float32 rounding changes the step by a visible fraction
    (numpy and torch in float32 are 0.03 steps off at full size), so the error is measured
    against the step rather than the weights."""
    return max(float(np.max(np.abs(np.asarray(g, np.float64) - w))) / LR for g, w in zip(outputs, reference))


def numpy_impl(inp, p):
    params = {n: inp[n].copy() for n in _names(p)}
    state = _fresh_state(params)

    def run():
        adam_update(params, state, numpy_grads(params, inp["x"], inp["y"]))
        return params
    return run, (lambda ps: [ps[n] for n in _names(p)])


def jax_impl(inp, p):
    import jax
    import jax.numpy as jnp

    names = _names(p)

    def loss_fn(params, x, labels):
        h = x
        layers = len(params) // 2
        for k in range(layers):
            h = h @ params[2 * k] + params[2 * k + 1]
            if k < layers - 1:
                h = jnp.tanh(h)
        log_probs = jax.nn.log_softmax(h, axis=1)
        return -jnp.mean(jnp.take_along_axis(log_probs, labels[:, None], axis=1))

    @jax.jit
    def step(params, m, v, t, x, labels):
        grads = jax.grad(loss_fn)(params, x, labels)
        t = t + 1
        m = [BETA1 * mi + (1 - BETA1) * g for mi, g in zip(m, grads)]
        v = [BETA2 * vi + (1 - BETA2) * g * g for vi, g in zip(v, grads)]
        scale_m, scale_v = 1 / (1 - BETA1 ** t), 1 / (1 - BETA2 ** t)
        params = [w - LR * (mi * scale_m) / (jnp.sqrt(vi * scale_v) + EPS) for w, mi, vi in zip(params, m, v)]
        return params, m, v, t

    params = [jax.device_put(inp[n]) for n in names]
    zeros = [jnp.zeros_like(w) for w in params]
    state = {"params": params, "m": zeros, "v": list(zeros), "t": jnp.float32(0)}
    x, labels = jax.device_put(inp["x"]), jax.device_put(inp["labels"].astype(np.int32))

    def run():
        state["params"], state["m"], state["v"], state["t"] = step(
            state["params"], state["m"], state["v"], state["t"], x, labels)
        jax.block_until_ready(state["params"])
        return state["params"]
    return run, (lambda ps: [np.asarray(w) for w in ps])


def torch_impl(inp, p, compiled=False):
    import torch

    names = _names(p)
    params = [torch.nn.Parameter(torch.from_numpy(inp[n].copy())) for n in names]
    opt = torch.optim.Adam(params, lr=LR, betas=(BETA1, BETA2), eps=EPS)
    x, labels = torch.from_numpy(inp["x"]), torch.from_numpy(inp["labels"])

    def loss_fn(x, labels):
        h = x
        layers = len(params) // 2
        for k in range(layers):
            h = h @ params[2 * k] + params[2 * k + 1]
            if k < layers - 1:
                h = torch.tanh(h)
        return torch.nn.functional.cross_entropy(h, labels)

    if compiled:
        loss_fn = torch.compile(loss_fn)

    def run():
        opt.zero_grad(set_to_none=True)
        loss_fn(x, labels).backward()
        opt.step()
        return params
    return run, (lambda ps: [w.detach().numpy().copy() for w in ps])


def tensorfrost(inp, p):
    import tensorfrost as tf

    dims, names = p["dims"], _names(p)

    class MLP(tf.Module):
        def __init__(self):
            super().__init__()
            for k in range(len(dims) - 1):
                setattr(self, f"W{k + 1}", tf.Parameter([dims[k], dims[k + 1]], tf.float32))
                setattr(self, f"b{k + 1}", tf.Parameter([dims[k + 1]], tf.float32, random_scale=0.0))

        def loss(self, x, y):
            layers = len(dims) - 1
            for k in range(1, layers + 1):
                x = x @ getattr(self, f"W{k}") + getattr(self, f"b{k}")
                if k < layers:
                    x = tf.tanh(x)
            y = tf.assert_tensor(y, [x.shape[0], dims[-1]])
            shifted = x - tf.unsqueeze(tf.max(x, axis=1), 1)
            log_softmax = shifted - tf.unsqueeze(tf.log(tf.sum(tf.exp(shifted), axis=1)), 1)
            return -tf.mean(tf.sum(y * log_softmax, axis=1))

    model = MLP()
    for n in names:
        setattr(model, n, inp[n])
    opt = tf.optimizers.adam(model, learning_rate=LR, beta1=BETA1, beta2=BETA2, epsilon=EPS)
    step = opt.compile_step(tf.Arg([-1, dims[0]], tf.float32), tf.Arg([-1, dims[-1]], tf.float32))
    x, y = tf.tensor(inp["x"]), tf.tensor(inp["y"])

    def run():
        step(x, y)
        return model
    # A first step puts the learning rate, parameters and Adam's state on the selected device
    # (opengl, webgpu: only while the row is set up); undone, so the checked run is step one.
    run()
    for n in names:
        setattr(model, n, tf.tensor(inp[n]))
    opt.reset_state()
    return run, (lambda m: [getattr(m, n).numpy for n in names])


WORKLOAD = Workload(
    id="W6", title="MLP training step (784-256-256-10, tanh, softmax cross-entropy, Adam)", metric="steps/s",
    sizes={"quick": {"batch": 64, "dims": (32, 64, 10)}, "full": {"batch": 1024, "dims": (784, 256, 256, 10)}},
    inputs=inputs, reference=reference, check=check, tolerance=0.2,
    impls={"tensorfrost": tensorfrost, "numpy": numpy_impl, "jax": jax_impl, "torch": torch_impl,
           "torch.compile": lambda i, p: torch_impl(i, p, compiled=True),
           GL_IMPLS[0]: gl.tensorfrost_gl(tensorfrost, warm_up=False),
           WEBGPU_IMPLS[0]: webgpu.tensorfrost_webgpu(tensorfrost, warm_up=False)},
    work=lambda p: 1.0,
    targets=[Target("peer", 1.3, peers=("jax",), sizes=("full",), under_load=False, text="1.3x jax.jit, quiet"),
             Target("peer", 0.8, peers=("jax",), sizes=("full",), under_load=True, text="0.8x jax.jit under load"),
             Target("peer", 1.0, peers=("jax",), sizes=("quick",), text="at least jax.jit (32-64-10, batch 64)"),
             webgpu.TARGETS[0]],  # (no taichi row: W6 has no taichi implementation)
)
