"""W6 as issue 6 states it: one Adam training step of an MLP; the metric is steps/s.

    h1 = tanh(X W1 + b1); h2 = tanh(h1 W2 + b2); logits = h2 W3 + b3
    loss = mean over the batch of the softmax cross-entropy;  Adam (lr 1e-3, 0.9, 0.999, 1e-8)

784 -> 256 -> 256 -> 10, batch 1024, float32. tensorfrost runs ``opt.compile_step`` (forward,
backward and update in one program); torch runs eager autograd with ``torch.optim.Adam``;
numpy differentiates by hand (the reference, in float64). The check runs one step from the
same parameters and zero state and compares the updated parameters (see ``check``).

Not in ``workloads.MODULES`` (the table of issue 7 keeps its SGD/ReLU/MSE W6); run it alone::

    python -m bench.workloads.w6_adam            # full size, tensorfrost beside torch
    python -m bench.workloads.w6_adam --quick
"""

from __future__ import annotations

import argparse
import os

import numpy as np

from ..harness import Workload

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


def torch_impl(inp, p):
    import torch

    names = _names(p)
    params = [torch.nn.Parameter(torch.from_numpy(inp[n].copy())) for n in names]
    opt = torch.optim.Adam(params, lr=LR, betas=(BETA1, BETA2), eps=EPS)
    x, labels = torch.from_numpy(inp["x"]), torch.from_numpy(inp["labels"])

    def run():
        opt.zero_grad(set_to_none=True)
        h = x
        layers = len(params) // 2
        for k in range(layers):
            h = h @ params[2 * k] + params[2 * k + 1]
            if k < layers - 1:
                h = torch.tanh(h)
        torch.nn.functional.cross_entropy(h, labels).backward()
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
    return run, (lambda m: [getattr(m, n).numpy for n in names])


WORKLOAD = Workload(
    id="W6a", title="MLP training step (784-256-256-10, tanh, softmax cross-entropy, Adam)", metric="steps/s",
    sizes={"quick": {"batch": 64, "dims": (64, 32, 32, 10)}, "full": {"batch": 1024, "dims": (784, 256, 256, 10)}},
    inputs=inputs, reference=reference, check=check, tolerance=0.2,
    impls={"tensorfrost": tensorfrost, "numpy": numpy_impl, "torch": torch_impl},
    work=lambda p: 1.0,
)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.workloads.w6_adam", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes and few repeats")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="threads for every library")
    args = ap.parse_args(argv)
    from .. import peers
    peers.configure_threads(args.threads)  # before torch is imported
    from ..harness import annotate, run_workload

    results = run_workload(WORKLOAD, args.quick)
    annotate(results, {WORKLOAD.id: WORKLOAD}, None)
    rows = {r.impl: r for r in results if r.status == "ok"}
    if "tensorfrost" in rows and "torch" in rows:
        ratio = rows["tensorfrost"].metric / rows["torch"].metric
        print(f"tensorfrost / torch eager: {ratio:.2f}x the steps per second ({args.threads} threads)")
    return 0 if all(r.status in ("ok", "n/a") for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
