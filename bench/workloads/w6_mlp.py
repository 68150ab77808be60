"""W6: one training step of a small MLP (SGD); the metric is steps/s.

    h1 = tanh(X W1 + b1); h2 = tanh(h1 W2 + b2); y = h2 W3 + b3
    loss = mean((y - Y)^2) over batch and outputs;  each parameter -= lr * grad
784 -> 256 -> 256 -> 10, batch 512, float32, lr 0.1. tanh rather than relu: at a relu kink
a rounding difference flips a whole gradient term, which would make the float32-vs-float64
check fail for no fault of the implementation. numpy differentiates by hand (the
reference); jax uses ``value_and_grad`` under ``jit``, torch autograd with ``optim.SGD``.
The check runs one step from the same parameters and compares the updated parameters.

tensorfrost needs ``tf.Module``, ``tf.Parameter`` and ``tf.optimizers`` (the modules issue);
until they exist its row says "not available". The code below follows the seed README's API.
"""

from __future__ import annotations

import numpy as np

from ..harness import NotAvailableError, Target, Workload

LR = 0.1


def inputs(p, rng):
    dims = p["dims"]
    out = {"x": rng.normal(0.0, 1.0, (p["batch"], dims[0])).astype(np.float32)}
    labels = rng.integers(0, dims[-1], p["batch"])
    out["y"] = np.eye(dims[-1], dtype=np.float32)[labels]
    for k in range(len(dims) - 1):
        scale = np.sqrt(2.0 / dims[k])
        out[f"W{k + 1}"] = rng.normal(0.0, scale, (dims[k], dims[k + 1])).astype(np.float32)
        out[f"b{k + 1}"] = np.full(dims[k + 1], 0.01, np.float32)
    return out


def _names(p) -> list[str]:
    return [f"{kind}{k + 1}" for k in range(len(p["dims"]) - 1) for kind in ("W", "b")]


def numpy_step(params: dict, x, y, dtype=np.float32) -> tuple[dict, float]:
    """One SGD step with a hand-written backward pass; returns new parameters and the loss."""
    layers = len(params) // 2
    acts = [x.astype(dtype)]
    for k in range(1, layers + 1):
        z = acts[-1] @ params[f"W{k}"].astype(dtype) + params[f"b{k}"].astype(dtype)
        acts.append(np.tanh(z) if k < layers else z)
    diff = acts[-1] - y
    loss = float(np.mean(diff * diff))
    grad = diff * dtype(2.0 / diff.size)
    new = {}
    for k in range(layers, 0, -1):
        new[f"W{k}"] = params[f"W{k}"] - dtype(LR) * (acts[k - 1].T @ grad)
        new[f"b{k}"] = params[f"b{k}"] - dtype(LR) * grad.sum(axis=0)
        if k > 1:
            grad = (grad @ params[f"W{k}"].astype(dtype).T) * (1 - acts[k - 1] * acts[k - 1])
    return new, loss


def reference(inp, p):
    params = {n: inp[n].astype(np.float64) for n in _names(p)}
    new, _ = numpy_step(params, inp["x"], inp["y"], np.float64)
    return [new[n] for n in _names(p)]


def check(outputs, reference):
    """Largest error of an updated parameter relative to the largest change of it."""
    return max(float(np.max(np.abs(np.asarray(g, np.float64) - w))) / max(float(np.max(np.abs(w))), 1e-30)
               for g, w in zip(outputs, reference))


def numpy_impl(inp, p):
    state = {"params": {n: inp[n].copy() for n in _names(p)}}

    def run():
        state["params"], _ = numpy_step(state["params"], inp["x"], inp["y"])
        return state["params"]
    return run, (lambda params: [params[n] for n in _names(p)])


def jax_impl(inp, p):
    import jax
    import jax.numpy as jnp

    names = _names(p)

    def loss_fn(params, x, y):
        h = x
        layers = len(params) // 2
        for k in range(layers):
            h = h @ params[2 * k] + params[2 * k + 1]
            if k < layers - 1:
                h = jnp.tanh(h)
        return jnp.mean((h - y) ** 2)

    @jax.jit
    def step(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return [w - LR * g for w, g in zip(params, grads)], loss

    x, y = jax.device_put(inp["x"]), jax.device_put(inp["y"])
    state = {"params": [jax.device_put(inp[n]) for n in names]}

    def run():
        state["params"], loss = step(state["params"], x, y)
        loss.block_until_ready()
        return state["params"]
    return run, (lambda params: [np.asarray(w) for w in params])


def torch_impl(inp, p, compiled=False):
    import torch

    names = _names(p)
    params = [torch.nn.Parameter(torch.from_numpy(inp[n].copy())) for n in names]

    def loss_fn(x, y):
        h = x
        layers = len(params) // 2
        for k in range(layers):
            h = h @ params[2 * k] + params[2 * k + 1]
            if k < layers - 1:
                h = torch.tanh(h)
        return torch.mean((h - y) ** 2)

    if compiled:
        loss_fn = torch.compile(loss_fn)
    opt = torch.optim.SGD(params, lr=LR)
    x, y = torch.from_numpy(inp["x"]), torch.from_numpy(inp["y"])

    def run():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(x, y)
        loss.backward()
        opt.step()
        return params
    return run, (lambda ps: [w.detach().numpy().copy() for w in ps])


def tensorfrost(inp, p):
    import tensorfrost as tf

    missing = [name for name in ("Module", "Parameter", "optimizers") if not hasattr(tf, name)]
    if missing:
        raise NotAvailableError(f"needs tf.{', tf.'.join(missing)} (the modules issue)")
    dims, names = p["dims"], _names(p)

    class MLP(tf.Module):
        def __init__(self):
            super().__init__()
            for k in range(len(dims) - 1):
                setattr(self, f"W{k + 1}", tf.Parameter([dims[k], dims[k + 1]], tf.float32))
                setattr(self, f"b{k + 1}", tf.Parameter([dims[k + 1]], tf.float32))

        def forward(self, x):
            layers = len(dims) - 1
            for k in range(1, layers + 1):
                x = x @ getattr(self, f"W{k}") + getattr(self, f"b{k}")
                if k < layers:
                    x = tf.tanh(x)
            return x

        def loss(self, x, y):
            d = self.forward(x) - y
            return tf.mean(tf.mean(d * d))

    def train_step():
        x = tf.input([-1, dims[0]], tf.float32)
        y = tf.input([-1, dims[-1]], tf.float32)
        opt = tf.optimizers.sgd(MLP(), learning_rate=LR)
        opt.initialize_input()
        loss = opt.step(x, y)
        params = opt.parameters()
        params.append(loss)
        return params

    prog = tf.compile(train_step)
    model = MLP()
    opt = tf.optimizers.sgd(model, learning_rate=LR)
    opt.initialize_parameters()
    for n in names:
        setattr(model, n, tf.tensor(inp[n]))
    x, y = tf.tensor(inp["x"]), tf.tensor(inp["y"])

    def run():
        out = prog(x, y, opt)
        opt.update_parameters(out[:-1])
        return model
    return run, (lambda m: [getattr(m, n).numpy for n in names])


WORKLOAD = Workload(
    id="W6", title="MLP training step (784-256-256-10, SGD)", metric="steps/s",
    sizes={"quick": {"batch": 64, "dims": (64, 32, 32, 10)}, "full": {"batch": 512, "dims": (784, 256, 256, 10)}},
    inputs=inputs, reference=reference, check=check, tolerance=1e-4,
    impls={"tensorfrost": tensorfrost, "numpy": numpy_impl, "jax": jax_impl, "torch": torch_impl,
           "torch.compile": lambda i, p: torch_impl(i, p, compiled=True)},
    work=lambda p: 1.0,
    targets=[Target("peer", 1.0, peers=("jax",), text="at least jax.jit")],
)
