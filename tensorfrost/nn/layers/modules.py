"""Layers as ``tf.Module`` subclasses (``tf.nn.Conv2d``, ``tf.nn.Linear``...), with torch's
constructor arguments, parameter names and layouts, and torch's default initialization
(weights and biases uniform in ``+-1 / sqrt(fan_in)``, which is kaiming-uniform with
``a = sqrt(5)``; norms start at weight 1, bias 0; embeddings standard normal)::

    class Net(tf.Module):
        def __init__(self):
            super().__init__()
            self.features = tf.nn.Sequential(
                tf.nn.Conv2d(1, 16, 3, padding=1), tf.nn.ReLU(), tf.nn.MaxPool2d(2))
            self.classifier = tf.nn.Linear(16 * 14 * 14, 10)

        def forward(self, x):
            return self.classifier(tf.nn.flatten(self.features(x)))

        def loss(self, x, labels):
            return tf.nn.cross_entropy(self.forward(x), labels)

A layer is called like a function (``layer(x)`` is ``layer.forward(x)``).

**Modes and state.** Every layer has ``training`` (True at first); ``layer.eval()``,
``layer.train()`` or ``tf.nn.set_training(model, False)`` for any module switch it, for
the programs compiled afterwards (the mode is read while a program is traced, so compile
the training step and the prediction program with the mode each needs). State that is
not trained -- ``BatchNorm2d``'s running statistics, ``Dropout``'s seed -- is held in
parameters with ``requires_grad=False``: optimizers leave them alone, and ``forward``
assigns their new values in training mode, so ``opt.compile_step`` (which returns every
parameter) carries them from one step to the next; in a program of your own, return
``model.parameters()`` and pass them back in.
"""

from __future__ import annotations

import math

import numpy as np

from ...ir import dtypes as dt
from ...ir.errors import ArgumentError, ShapeError, user_location
from ...tracing.algorithms import reshape
from ..module import Module, Parameter
from . import conv, functional, norm
from ._args import positive_int, probability

__all__ = ["Layer", "Linear", "Conv2d", "MaxPool2d", "AvgPool2d", "LayerNorm", "BatchNorm2d", "Embedding",
           "Dropout", "ReLU", "GELU", "SiLU", "Flatten", "Sequential", "flatten", "set_training"]


class UniformParameter(Parameter):
    """A float32 parameter that starts uniform in ``[-bound, bound]`` (torch's default for
    dense and convolution layers, with ``bound = 1 / sqrt(fan_in)``)."""

    __slots__ = ("bound",)

    def __init__(self, shape, bound: float):
        super().__init__(shape, dt.float32)
        self.bound = float(bound)

    def initial_value(self, rng) -> np.ndarray:
        """Uniform values of the declared shape from ``rng`` (numpy's global one if None)."""
        source = rng if rng is not None else np.random
        return source.uniform(-self.bound, self.bound, self.static_shape).astype(np.float32)


def _constant(shape, value: float, trained: bool = True) -> Parameter:
    return Parameter(shape, dt.float32, random_scale=0.0, random_offset=value, requires_grad=trained)


class Layer(Module):
    """The base of the layers: ``layer(x)`` calls ``forward``; ``training`` selects the
    mode of Dropout and BatchNorm2d (``train()``/``eval()`` set it here and below)."""

    def __init__(self):
        super().__init__()
        self.training = True

    def __call__(self, *inputs):
        return self.forward(*inputs)

    def train(self, mode: bool = True) -> Layer:
        """Training mode (or evaluation with ``mode=False``) for this layer and its children."""
        return set_training(self, mode)

    def eval(self) -> Layer:
        """Evaluation mode for this layer and its children."""
        return set_training(self, False)


def set_training(module: Module, training: bool = True) -> Module:
    """Set ``training`` on every layer in ``module`` (any ``tf.Module``) and return it::

        tf.nn.set_training(model, False)
        predict = model.compile(lambda m, x: m.forward(x), tf.Arg([-1, 64], tf.float32))
    """
    for child in module._modules():
        if isinstance(child, Layer):
            child.training = bool(training)
    return module


class Linear(Layer):
    """``y = x @ weight.T + bias``: ``weight`` [out_features, in_features], ``bias``
    [out_features] (``bias=False``: none), as ``torch.nn.Linear``.

    >>> fc = tf.nn.Linear(64, 10)
    >>> logits = fc(x)                 # x [B, 64] -> [B, 10]
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True):
        super().__init__()
        bound = 1.0 / math.sqrt(positive_int(in_features, "tf.nn.Linear", "in_features"))
        self.weight = UniformParameter([positive_int(out_features, "tf.nn.Linear", "out_features"), in_features],
                                       bound)
        self.bias = UniformParameter([out_features], bound) if bias else None

    def forward(self, x):
        """``tf.nn.linear(x, weight, bias)``."""
        return functional.linear(x, self.weight, self.bias)


class Conv2d(Layer):
    """A 2-D convolution layer, as ``torch.nn.Conv2d``: ``weight`` [out, in / groups, kh,
    kw] and ``bias`` [out]; ``forward(x)`` is ``tf.nn.conv2d`` on NCHW ``x``.

    >>> conv = tf.nn.Conv2d(1, 16, 3, padding=1)
    >>> y = conv(images)               # [N, 1, 28, 28] -> [N, 16, 28, 28]
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True):
        super().__init__()
        fn = "tf.nn.Conv2d"
        groups = positive_int(groups, fn, "groups")
        for name, value in (("in_channels", in_channels), ("out_channels", out_channels)):
            if positive_int(value, fn, name) % groups:
                raise ShapeError(f"{fn}: {name} {value} is not divisible by groups={groups}",
                                 user_location())
        kernel = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
        fan_in = in_channels // groups * kernel[0] * kernel[1]
        bound = 1.0 / math.sqrt(fan_in)
        self.weight = UniformParameter([out_channels, in_channels // groups, *kernel], bound)
        self.bias = UniformParameter([out_channels], bound) if bias else None
        self.stride, self.padding, self.dilation, self.groups = stride, padding, dilation, groups

    def forward(self, x):
        """``tf.nn.conv2d`` with this layer's weights and settings."""
        return conv.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class MaxPool2d(Layer):
    """``tf.nn.max_pool2d`` as a layer (no parameters), as ``torch.nn.MaxPool2d``."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1):
        super().__init__()
        self.kernel_size, self.stride, self.padding, self.dilation = kernel_size, stride, padding, dilation

    def forward(self, x):
        """The pooled ``x``."""
        return conv.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation)


class AvgPool2d(Layer):
    """``tf.nn.avg_pool2d`` as a layer (no parameters), as ``torch.nn.AvgPool2d``."""

    def __init__(self, kernel_size, stride=None, padding=0, count_include_pad: bool = True):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.count_include_pad = count_include_pad

    def forward(self, x):
        """The pooled ``x``."""
        return conv.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.count_include_pad)


class LayerNorm(Layer):
    """``tf.nn.layer_norm`` over the trailing ``normalized_shape`` (an int or a list of
    ints, which here must be known sizes), with ``weight`` (ones) and ``bias`` (zeros) of
    that shape unless ``elementwise_affine=False``; as ``torch.nn.LayerNorm``."""

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True):
        super().__init__()
        shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
        for size in shape:
            positive_int(size, "tf.nn.LayerNorm", "normalized_shape")
        self.normalized_shape, self.eps = shape, float(eps)
        self.weight = _constant(shape, 1.0) if elementwise_affine else None
        self.bias = _constant(shape, 0.0) if elementwise_affine else None

    def forward(self, x):
        """The normalized ``x``."""
        return norm.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)


class BatchNorm2d(Layer):
    """Batch normalization per channel of NCHW input, as ``torch.nn.BatchNorm2d``: ``weight``
    (ones) and ``bias`` (zeros) [C] are trained; ``running_mean`` (zeros) and
    ``running_var`` (ones) [C] are state (``requires_grad=False``). In training mode
    ``forward`` normalizes with the batch statistics and assigns the moved running
    statistics (see the module docstring); in evaluation mode it uses the running ones.
    ``track_running_stats=False``: batch statistics always, no state."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = True,
                 track_running_stats: bool = True):
        super().__init__()
        channels = positive_int(num_features, "tf.nn.BatchNorm2d", "num_features")
        self.eps, self.momentum = float(eps), probability(momentum, "tf.nn.BatchNorm2d", "momentum")
        self.weight = _constant([channels], 1.0) if affine else None
        self.bias = _constant([channels], 0.0) if affine else None
        self.running_mean = _constant([channels], 0.0, trained=False) if track_running_stats else None
        self.running_var = _constant([channels], 1.0, trained=False) if track_running_stats else None

    def forward(self, x):
        """The normalized ``x`` (updating the running statistics in training mode)."""
        stats = (self.running_mean, self.running_var)
        if stats[0] is None or not self.training:
            return norm.batch_norm(x, *stats, self.weight, self.bias, stats[0] is None or self.training,
                                   self.momentum, self.eps)
        y, self.running_mean, self.running_var = norm.batch_norm(x, *stats, self.weight, self.bias, True,
                                                                 self.momentum, self.eps)
        return y


class Embedding(Layer):
    """A table ``weight`` [num_embeddings, embedding_dim] (standard normal at first) whose
    rows ``forward(ids)`` picks, as ``torch.nn.Embedding`` (see ``tf.nn.embedding``)."""

    def __init__(self, num_embeddings: int, embedding_dim: int):
        super().__init__()
        shape = [positive_int(num_embeddings, "tf.nn.Embedding", "num_embeddings"),
                 positive_int(embedding_dim, "tf.nn.Embedding", "embedding_dim")]
        self.weight = Parameter(shape, dt.float32, random_scale=1.0)

    def forward(self, ids):
        """The rows of ``ids`` (int32, any shape S): [*S, embedding_dim]."""
        return functional.embedding(ids, self.weight)


class Dropout(Layer):
    """``tf.nn.dropout`` as a layer: in training mode each element is zeroed with
    probability ``p`` and the rest scaled by ``1 / (1 - p)``; in evaluation mode it passes
    ``x`` through. Its state is a uint32 [1] ``seed`` (``requires_grad=False``) that each
    training ``forward`` advances by one, so every step of a compiled training program
    draws a new mask (see the module docstring)."""

    def __init__(self, p: float = 0.5, seed: int = 0):
        super().__init__()
        self.p = probability(p, "tf.nn.Dropout", "p")
        self.seed = Parameter([1], dt.uint32, random_offset=seed % 2**32, requires_grad=False)

    def forward(self, x):
        """``x`` with dropout applied (training mode) or unchanged."""
        if not self.training or self.p == 0.0:
            return x
        seed = self.seed
        self.seed = seed + 1
        return functional.dropout(x, self.p, seed)


class ReLU(Layer):
    """``tf.nn.relu`` as a layer."""

    def forward(self, x):
        """``relu(x)``."""
        return functional.relu(x)


class GELU(Layer):
    """``tf.nn.gelu`` as a layer (``approximate``: ``"none"`` or ``"tanh"``)."""

    def __init__(self, approximate: str = "none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, x):
        """``gelu(x)``."""
        return functional.gelu(x, self.approximate)


class SiLU(Layer):
    """``tf.nn.silu`` as a layer."""

    def forward(self, x):
        """``silu(x)``."""
        return functional.silu(x)


def flatten(x):
    """``x`` [N, ...] viewed as [N, product of the other sizes] (a view: no copy).

    >>> features = tf.nn.flatten(pooled)        # [N, 32, 7, 7] -> [N, 1568]
    """
    size = x.shape[1] if x.ndim > 1 else 1
    for dim in x.shape[2:]:
        size = size * dim
    return reshape(x, [x.shape[0], size])


class Flatten(Layer):
    """``tf.nn.flatten`` as a layer: [N, ...] to [N, -1]."""

    def forward(self, x):
        """``flatten(x)``."""
        return flatten(x)


class Sequential(Layer):
    """Layers (or plain functions of one tensor) applied in order, as ``torch.nn.Sequential``;
    the layers' parameters are named ``0.weight``, ``1.bias``..., by position.

    >>> block = tf.nn.Sequential(tf.nn.Conv2d(1, 8, 3), tf.nn.ReLU(), tf.nn.MaxPool2d(2))
    >>> y = block(x)
    """

    def __init__(self, *layers):
        super().__init__()
        for position, layer in enumerate(layers):
            if not callable(layer):
                raise ArgumentError(f"tf.nn.Sequential: item {position} is not a layer or function, got "
                                         f"{type(layer).__name__}", user_location())
            if isinstance(layer, Module):
                setattr(self, str(position), layer)
        self.layers = list(layers)

    def forward(self, x):
        """Every layer in turn."""
        for layer in self.layers:
            x = layer(x)
        return x
