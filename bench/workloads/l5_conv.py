"""L5: one SGD training step of a small CNN on 64 x 1 x 28 x 28 images; the metric is steps/s.

    conv 1->16 3x3 (padding 1), relu, maxpool 2, conv 16->32 3x3 (padding 1), relu, maxpool 2,
    linear 32 * 7 * 7 -> 10, mean softmax cross-entropy against int labels;  SGD, lr 0.01

tensorfrost builds it from ``tf.nn`` layers and runs ``opt.compile_step`` (forward, backward
and update in one program); torch eager runs the same layers with autograd and
``torch.optim.SGD``; jax ``value_and_grad`` under ``jit``; numpy differentiates by hand (im2col
convolutions; the reference, in float64). The check runs one step from the same parameters
and compares the updated parameters (see ``check``). The issue's goal: at least torch eager.
"""

from __future__ import annotations

import numpy as np

from ..harness import Target, Workload

LR = 0.01
CHANNELS = (1, 16, 32)
CLASSES = 10
NAMES = ["conv1.weight", "conv1.bias", "conv2.weight", "conv2.bias", "fc.weight", "fc.bias"]


def _features(p) -> int:
    return CHANNELS[-1] * (p["size"] // 4) ** 2


def inputs(p, rng):
    out = {"x": rng.normal(0.0, 1.0, (p["batch"], 1, p["size"], p["size"])).astype(np.float32),
           "labels": rng.integers(0, CLASSES, p["batch"]).astype(np.int32)}
    shapes = [(CHANNELS[1], CHANNELS[0], 3, 3), (CHANNELS[1],), (CHANNELS[2], CHANNELS[1], 3, 3), (CHANNELS[2],),
              (CLASSES, _features(p)), (CLASSES,)]
    fans = [9 * CHANNELS[0], 9 * CHANNELS[0], 9 * CHANNELS[1], 9 * CHANNELS[1], _features(p), _features(p)]
    for name, shape, fan in zip(NAMES, shapes, fans):  # torch's default: uniform in +-1/sqrt(fan_in)
        out[name] = rng.uniform(-1.0, 1.0, shape).astype(np.float32) / np.float32(np.sqrt(fan))
    return out


# -- numpy, by hand ------------------------------------------------------------------------------

def _columns(x):
    """im2col of a 3x3, padding-1 convolution: [N, C * 9, H * W]."""
    n, c, h, w = x.shape
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    cols = np.stack([padded[:, :, dy:dy + h, dx:dx + w] for dy in range(3) for dx in range(3)], axis=2)
    return cols.reshape(n, c * 9, h * w)


def _columns_back(dcols, shape):
    """The gradient of ``_columns``: each tap's gradient added back where it was read."""
    n, c, h, w = shape
    dcols = dcols.reshape(n, c, 9, h, w)
    padded = np.zeros((n, c, h + 2, w + 2), dcols.dtype)
    for k in range(9):
        padded[:, :, k // 3:k // 3 + h, k % 3:k % 3 + w] += dcols[:, :, k]
    return padded[:, :, 1:-1, 1:-1]


def _pool(x):
    """2x2 max-pool and the one-hot of each window's first largest element."""
    n, c, h, w = x.shape
    windows = x.reshape(n, c, h // 2, 2, w // 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(n, c, h // 2, w // 2, 4)
    first = windows.argmax(axis=-1)
    return np.take_along_axis(windows, first[..., None], -1)[..., 0], first


def _pool_back(dout, first, shape):
    n, c, h, w = shape
    onehot = (np.arange(4) == first[..., None]) * dout[..., None]
    return onehot.reshape(n, c, h // 2, w // 2, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(shape)


def numpy_grads(params: dict, x, labels, dtype=np.float32) -> dict:
    """Gradients of the mean cross-entropy with respect to every parameter."""
    grads, h, tape = {}, x.astype(dtype), []
    for layer in ("conv1", "conv2"):
        w, b = params[f"{layer}.weight"], params[f"{layer}.bias"]
        cols = _columns(h)
        z = np.einsum("ok,nkp->nop", w.reshape(w.shape[0], -1), cols).reshape(h.shape[0], w.shape[0], *h.shape[2:])
        z = z + b[None, :, None, None]
        a = np.maximum(z, 0)
        pooled, first = _pool(a)
        tape.append((h.shape, cols, z, first, a.shape))
        h = pooled
    features = h.reshape(h.shape[0], -1)
    logits = features @ params["fc.weight"].T + params["fc.bias"]
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    dlogits = (probs - np.eye(CLASSES, dtype=dtype)[labels]) / dtype(len(labels))
    grads["fc.weight"], grads["fc.bias"] = dlogits.T @ features, dlogits.sum(axis=0)
    dh = (dlogits @ params["fc.weight"]).reshape(h.shape)
    for layer, (in_shape, cols, z, first, a_shape) in zip(("conv2", "conv1"), reversed(tape)):
        w = params[f"{layer}.weight"]
        dz = _pool_back(dh, first, a_shape) * (z > 0)
        dz = dz.reshape(dz.shape[0], dz.shape[1], -1)
        grads[f"{layer}.weight"] = np.einsum("nop,nkp->ok", dz, cols).reshape(w.shape)
        grads[f"{layer}.bias"] = dz.sum(axis=(0, 2))
        if layer == "conv2":
            dh = _columns_back(np.einsum("ok,nop->nkp", w.reshape(w.shape[0], -1), dz), in_shape)
    return grads


def reference(inp, p):
    """The parameters after one step (float64), then the largest step any weight takes."""
    params = {n: inp[n].astype(np.float64) for n in NAMES}
    grads = numpy_grads(params, inp["x"], inp["labels"], np.float64)
    largest = max(float(np.max(np.abs(g))) for g in grads.values()) * LR
    return [params[n] - LR * grads[n] for n in NAMES] + [largest]


def check(outputs, reference):
    """Largest error of an updated parameter, relative to the largest step of any weight
    (float32 gradients agree to about 1e-5 of it; a ReLU whose input is within rounding of
    0 can flip one pixel's gradient, hence the tolerance of 1e-3)."""
    *wants, largest = reference
    return max(float(np.max(np.abs(np.asarray(g, np.float64) - w))) for g, w in zip(outputs, wants)) / largest


def numpy_impl(inp, p):
    params = {n: inp[n].copy() for n in NAMES}

    def run():
        grads = numpy_grads(params, inp["x"], inp["labels"])
        for n in NAMES:
            params[n] -= np.float32(LR) * grads[n]
        return params
    return run, (lambda ps: [ps[n] for n in NAMES])


# -- peers -----------------------------------------------------------------------------------------

def torch_impl(inp, p):
    import torch

    net = torch.nn.Sequential(
        torch.nn.Conv2d(CHANNELS[0], CHANNELS[1], 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(CHANNELS[1], CHANNELS[2], 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(_features(p), CLASSES))
    layers = {"conv1": net[0], "conv2": net[3], "fc": net[7]}
    with torch.no_grad():
        for n in NAMES:
            layer, kind = n.split(".")
            getattr(layers[layer], kind).copy_(torch.from_numpy(inp[n]))
    opt = torch.optim.SGD(net.parameters(), lr=LR)
    x, labels = torch.from_numpy(inp["x"]), torch.from_numpy(inp["labels"]).long()

    def run():
        opt.zero_grad(set_to_none=True)
        torch.nn.functional.cross_entropy(net(x), labels).backward()
        opt.step()
        return layers
    return run, (lambda ls: [getattr(ls[n.split(".")[0]], n.split(".")[1]).detach().numpy().copy() for n in NAMES])


def jax_impl(inp, p):
    import jax
    import jax.numpy as jnp

    def conv(h, w, b):
        out = jax.lax.conv_general_dilated(h, w, (1, 1), ((1, 1), (1, 1)), dimension_numbers=("NCHW", "OIHW", "NCHW"))
        return out + b[None, :, None, None]

    def pool(h):
        return jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    def loss_fn(params, x, labels):
        h = pool(jax.nn.relu(conv(x, params[0], params[1])))
        h = pool(jax.nn.relu(conv(h, params[2], params[3])))
        logits = h.reshape(h.shape[0], -1) @ params[4].T + params[5]
        log_probs = jax.nn.log_softmax(logits, axis=1)
        return -jnp.mean(jnp.take_along_axis(log_probs, labels[:, None], axis=1))

    @jax.jit
    def step(params, x, labels):
        grads = jax.grad(loss_fn)(params, x, labels)
        return [w - LR * g for w, g in zip(params, grads)]

    state = {"params": [jax.device_put(inp[n]) for n in NAMES]}
    x, labels = jax.device_put(inp["x"]), jax.device_put(inp["labels"])

    def run():
        state["params"] = step(state["params"], x, labels)
        jax.block_until_ready(state["params"])
        return state["params"]
    return run, (lambda ps: [np.asarray(w) for w in ps])


def tensorfrost(inp, p):
    import tensorfrost as tf

    class Net(tf.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = tf.nn.Conv2d(CHANNELS[0], CHANNELS[1], 3, padding=1)
            self.conv2 = tf.nn.Conv2d(CHANNELS[1], CHANNELS[2], 3, padding=1)
            self.fc = tf.nn.Linear(_features(p), CLASSES)

        def loss(self, x, labels):
            h = tf.nn.max_pool2d(tf.nn.relu(self.conv1(x)), 2)
            h = tf.nn.max_pool2d(tf.nn.relu(self.conv2(h)), 2)
            return tf.nn.cross_entropy(self.fc(tf.nn.flatten(h)), labels)

    model = Net()
    for n in NAMES:
        layer, kind = n.split(".")
        setattr(getattr(model, layer), kind, inp[n])
    opt = tf.optimizers.sgd(model, learning_rate=LR)
    step = opt.compile_step(tf.Arg([-1, 1, p["size"], p["size"]], tf.float32), tf.Arg([-1], tf.int32))
    x, labels = tf.tensor(inp["x"]), tf.tensor(inp["labels"])

    def run():
        step(x, labels)
        return model
    return run, (lambda m: [getattr(getattr(m, n.split(".")[0]), n.split(".")[1]).numpy for n in NAMES])


WORKLOAD = Workload(
    id="L5", title="CNN training step on 64x1x28x28 (2 conv + relu + maxpool, linear, cross-entropy, SGD)",
    metric="steps/s",
    sizes={"quick": {"batch": 8, "size": 12}, "full": {"batch": 64, "size": 28}},
    inputs=inputs, reference=reference, check=check, tolerance=1e-3,
    impls={"tensorfrost": tensorfrost, "numpy": numpy_impl, "jax": jax_impl, "torch": torch_impl},
    work=lambda p: 1.0,
    targets=[Target("peer", 1.0, peers=("torch",), text="at least torch eager")],
)
