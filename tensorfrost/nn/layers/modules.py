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
from collections.abc import Callable

import numpy as np

from ...ir import dtypes as dt
from ...ir.errors import ArgumentError, ShapeError, user_location
from ...tracing.algorithms import reshape
from ...tracing.tensor import Tensor
from ..module import Module
from ..parameter import Parameter
from . import conv, functional, norm
from ._args import positive_int, probability
from .conv import IntPair

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
    mode of Dropout and BatchNorm2d (``train()``/``eval()`` set it here and below).

    >>> class Doubler(tf.nn.Layer):
    ...     def forward(self, x):
    ...         return x * 2.0
    >>> tf.compile(lambda: Doubler()(tf.input([-1], tf.float32)))(np.array([1, 2], np.float32)).tolist()
    [2.0, 4.0]
    """

    def __init__(self):
        super().__init__()
        self.training = True

    def __call__(self, *inputs: object) -> object:
        """``forward(*inputs)``.

        >>> tf.compile(lambda: tf.nn.ReLU()(tf.input([-1], tf.float32)))(np.array([-1, 1], np.float32)).tolist()
        [0.0, 1.0]
        """
        return self.forward(*inputs)

    def train(self, mode: bool = True) -> Layer:
        """Training mode (or evaluation with ``mode=False``) for this layer and its children.

        >>> block = tf.nn.Sequential(tf.nn.Linear(2, 2), tf.nn.Dropout(0.5))
        >>> block.train(False).layers[1].training, block.train().layers[1].training
        (False, True)
        """
        return set_training(self, mode)

    def eval(self) -> Layer:
        """Evaluation mode for this layer and its children.

        >>> drop = tf.nn.Dropout(0.5).eval()
        >>> tf.compile(lambda: drop(tf.input([-1], tf.float32)))(np.ones(3, np.float32)).tolist()  # passes x
        [1.0, 1.0, 1.0]
        """
        return set_training(self, False)


def set_training(module: Module, training: bool = True) -> Module:
    """Set ``training`` on every layer in ``module`` (any ``tf.Module``) and return it::

        tf.nn.set_training(model, False)
        predict = model.compile(lambda m, x: m.forward(x), tf.Arg([-1, 64], tf.float32))

    >>> model = tf.nn.Sequential(tf.nn.Linear(2, 2), tf.nn.Dropout(0.5))
    >>> [layer.training for layer in tf.nn.set_training(model, False).layers]
    [False, False]
    """
    for child in module._modules():
        if isinstance(child, Layer):
            child.training = bool(training)
    return module


class Linear(Layer):
    """``y = x @ weight.T + bias``: ``weight`` [out_features, in_features], ``bias``
    [out_features] (``bias=False``: none), as ``torch.nn.Linear``.

    >>> fc = tf.nn.Linear(2, 3)
    >>> fc.initialize_parameters(seed=0)          # uniform in +-1 / sqrt(2), as torch
    >>> predict = fc.compile(lambda m, x: m(x), tf.Arg([-1, 2], tf.float32))
    >>> x = np.array([[1, 2], [3, 4]], np.float32)
    >>> y = predict(x).numpy                      # [B, 2] -> [B, 3]
    >>> y.shape, np.allclose(y, x @ fc.weight.numpy.T + fc.bias.numpy, atol=1e-6)
    ((2, 3), True)
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True):
        super().__init__()
        bound = 1.0 / math.sqrt(positive_int(in_features, "tf.nn.Linear", "in_features"))
        self.weight = UniformParameter([positive_int(out_features, "tf.nn.Linear", "out_features"), in_features],
                                       bound)
        self.bias = UniformParameter([out_features], bound) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        """``tf.nn.linear(x, weight, bias)``.

        >>> fc = tf.nn.Linear(2, 1, bias=False)
        >>> fc.weight = tf.tensor(np.array([[1, 10]], np.float32))
        >>> fc.compile(lambda m, x: m.forward(x), tf.Arg([-1, 2], tf.float32))(np.array([[1, 2]], np.float32)).tolist()
        [[21.0]]
        """
        return functional.linear(x, self.weight, self.bias)


class Conv2d(Layer):
    """A 2-D convolution layer, as ``torch.nn.Conv2d``: ``weight`` [out, in / groups, kh,
    kw] and ``bias`` [out]; ``forward(x)`` is ``tf.nn.conv2d`` on NCHW ``x``.

    >>> conv = tf.nn.Conv2d(1, 4, 3, padding=1)
    >>> conv.initialize_parameters(seed=0)
    >>> apply = conv.compile(lambda m, x: m(x), tf.Arg([-1, 1, -1, -1], tf.float32))
    >>> y = apply(np.ones((2, 1, 8, 8), np.float32)).numpy      # [N, 1, 8, 8] -> [N, 4, 8, 8]
    >>> w, b = conv.weight.numpy, conv.bias.numpy
    >>> y.shape, np.allclose(y[:, :, 3, 3], w.sum(axis=(1, 2, 3)) + b, atol=1e-6)   # inside: every tap
    ((2, 4, 8, 8), True)
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntPair, stride: IntPair = 1,
                 padding: IntPair = 0, dilation: IntPair = 1, groups: int = 1, bias: bool = True):
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

    def forward(self, x: Tensor) -> Tensor:
        """``tf.nn.conv2d`` with this layer's weights and settings.

        >>> conv = tf.nn.Conv2d(1, 1, 2, bias=False)
        >>> conv.weight = tf.tensor(np.ones((1, 1, 2, 2), np.float32))
        >>> apply = conv.compile(lambda m, x: m.forward(x), tf.Arg([-1, 1, -1, -1], tf.float32))
        >>> apply(np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)).numpy[0, 0]   # sums of 2x2 windows
        array([[ 8., 12.],
               [20., 24.]], dtype=float32)
        """
        return conv.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class MaxPool2d(Layer):
    """``tf.nn.max_pool2d`` as a layer (no parameters), as ``torch.nn.MaxPool2d``.

    >>> pool = tf.compile(lambda: tf.nn.MaxPool2d(2)(tf.input([-1, -1, -1, -1], tf.float32)))
    >>> pool(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)).numpy[0, 0]
    array([[ 5.,  7.],
           [13., 15.]], dtype=float32)
    """

    def __init__(self, kernel_size: IntPair, stride: IntPair | None = None, padding: IntPair = 0,
                 dilation: IntPair = 1):
        super().__init__()
        self.kernel_size, self.stride, self.padding, self.dilation = kernel_size, stride, padding, dilation

    def forward(self, x: Tensor) -> Tensor:
        """The pooled ``x``.

        >>> pool = tf.compile(lambda: tf.nn.MaxPool2d(2).forward(tf.input([-1, -1, -1, -1], tf.float32)))
        >>> pool(np.array([[[[1, 5], [3, 2]]]], np.float32)).tolist()
        [[[[5.0]]]]
        """
        return conv.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation)


class AvgPool2d(Layer):
    """``tf.nn.avg_pool2d`` as a layer (no parameters), as ``torch.nn.AvgPool2d``.

    >>> pool = tf.compile(lambda: tf.nn.AvgPool2d(2)(tf.input([-1, -1, -1, -1], tf.float32)))
    >>> pool(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)).numpy[0, 0]
    array([[ 2.5,  4.5],
           [10.5, 12.5]], dtype=float32)
    """

    def __init__(self, kernel_size: IntPair, stride: IntPair | None = None, padding: IntPair = 0,
                 count_include_pad: bool = True):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.count_include_pad = count_include_pad

    def forward(self, x: Tensor) -> Tensor:
        """The pooled ``x``.

        >>> pool = tf.compile(lambda: tf.nn.AvgPool2d(2).forward(tf.input([-1, -1, -1, -1], tf.float32)))
        >>> pool(np.array([[[[1, 5], [3, 2]]]], np.float32)).tolist()
        [[[[2.75]]]]
        """
        return conv.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.count_include_pad)


class LayerNorm(Layer):
    """``tf.nn.layer_norm`` over the trailing ``normalized_shape`` (an int or a list of
    ints, which here must be known sizes), with ``weight`` (ones) and ``bias`` (zeros) of
    that shape unless ``elementwise_affine=False``; as ``torch.nn.LayerNorm``.

    >>> norm = tf.nn.LayerNorm(3)
    >>> norm.initialize_parameters()
    >>> norm.bias = tf.tensor(np.array([0, 0, 100], np.float32))
    >>> apply = norm.compile(lambda m, x: m(x), tf.Arg([-1, 3], tf.float32))
    >>> np.round(apply(np.array([[1, 2, 3]], np.float32)).numpy, 4)
    array([[ -1.2247,   0.    , 101.2247]], dtype=float32)
    """

    def __init__(self, normalized_shape: int | list[int], eps: float = 1e-5, elementwise_affine: bool = True):
        super().__init__()
        shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
        for size in shape:
            positive_int(size, "tf.nn.LayerNorm", "normalized_shape")
        self.normalized_shape, self.eps = shape, float(eps)
        self.weight = _constant(shape, 1.0) if elementwise_affine else None
        self.bias = _constant(shape, 0.0) if elementwise_affine else None

    def forward(self, x: Tensor) -> Tensor:
        """The normalized ``x``.

        >>> norm = tf.nn.LayerNorm(2, elementwise_affine=False)
        >>> apply = norm.compile(lambda m, x: m.forward(x), tf.Arg([-1, 2], tf.float32))
        >>> np.round(apply(np.array([[1, 3]], np.float32)).numpy, 4)
        array([[-1.,  1.]], dtype=float32)
        """
        return norm.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)


class BatchNorm2d(Layer):
    """Batch normalization per channel of NCHW input, as ``torch.nn.BatchNorm2d``: ``weight``
    (ones) and ``bias`` (zeros) [C] are trained; ``running_mean`` (zeros) and
    ``running_var`` (ones) [C] are state (``requires_grad=False``). In training mode
    ``forward`` normalizes with the batch statistics and assigns the moved running
    statistics (see the module docstring); in evaluation mode it uses the running ones.
    ``track_running_stats=False``: batch statistics always, no state.

    >>> bn = tf.nn.BatchNorm2d(1)
    >>> bn.initialize_parameters()
    >>> bn.running_mean = tf.tensor(np.array([1], np.float32))
    >>> bn.running_var = tf.tensor(np.array([4], np.float32))
    >>> bn.eval()                                   # the running statistics: (x - 1) / 2
    BatchNorm2d(...)
    >>> apply = bn.compile(lambda m, x: m(x), tf.Arg([-1, 1, -1, -1], tf.float32))
    >>> np.round(apply(np.array([[[[1, 3], [5, 7]]]], np.float32)).numpy, 4)
    array([[[[0., 1.],
             [2., 3.]]]], dtype=float32)
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = True,
                 track_running_stats: bool = True):
        super().__init__()
        channels = positive_int(num_features, "tf.nn.BatchNorm2d", "num_features")
        self.eps, self.momentum = float(eps), probability(momentum, "tf.nn.BatchNorm2d", "momentum")
        self.weight = _constant([channels], 1.0) if affine else None
        self.bias = _constant([channels], 0.0) if affine else None
        self.running_mean = _constant([channels], 0.0, trained=False) if track_running_stats else None
        self.running_var = _constant([channels], 1.0, trained=False) if track_running_stats else None

    def forward(self, x: Tensor) -> Tensor:
        """The normalized ``x`` (updating the running statistics in training mode).

        >>> bn = tf.nn.BatchNorm2d(1, track_running_stats=False)      # batch statistics
        >>> bn.initialize_parameters()
        >>> apply = bn.compile(lambda m, x: m.forward(x), tf.Arg([-1, 1, -1, -1], tf.float32))
        >>> np.round(apply(np.array([[[[1, 3]]]], np.float32)).numpy, 4)
        array([[[[-1.,  1.]]]], dtype=float32)
        """
        stats = (self.running_mean, self.running_var)
        if stats[0] is None or not self.training:
            return norm.batch_norm(x, *stats, self.weight, self.bias, stats[0] is None or self.training,
                                   self.momentum, self.eps)
        y, self.running_mean, self.running_var = norm.batch_norm(x, *stats, self.weight, self.bias, True,
                                                                 self.momentum, self.eps)
        return y


class Embedding(Layer):
    """A table ``weight`` [num_embeddings, embedding_dim] (standard normal at first) whose
    rows ``forward(ids)`` picks, as ``torch.nn.Embedding`` (see ``tf.nn.embedding``).

    >>> table = tf.nn.Embedding(3, 2)
    >>> table.weight = tf.tensor(np.array([[0, 0], [1, 10], [2, 20]], np.float32))
    >>> lookup = table.compile(lambda m, ids: m(ids), tf.Arg([-1], tf.int32))
    >>> lookup(np.array([2, 1], np.int32)).tolist()
    [[2.0, 20.0], [1.0, 10.0]]
    """

    def __init__(self, num_embeddings: int, embedding_dim: int):
        super().__init__()
        shape = [positive_int(num_embeddings, "tf.nn.Embedding", "num_embeddings"),
                 positive_int(embedding_dim, "tf.nn.Embedding", "embedding_dim")]
        self.weight = Parameter(shape, dt.float32, random_scale=1.0)

    def forward(self, ids: Tensor) -> Tensor:
        """The rows of ``ids`` (int32, any shape S): [*S, embedding_dim].

        >>> table = tf.nn.Embedding(2, 1)
        >>> table.weight = tf.tensor(np.array([[5], [7]], np.float32))
        >>> lookup = table.compile(lambda m, ids: m.forward(ids), tf.Arg([-1, -1], tf.int32))
        >>> lookup(np.array([[1, 0]], np.int32)).tolist()              # [1, 2] ids -> [1, 2, 1]
        [[[7.0], [5.0]]]
        """
        return functional.embedding(ids, self.weight)


class Dropout(Layer):
    """``tf.nn.dropout`` as a layer: in training mode each element is zeroed with
    probability ``p`` and the rest scaled by ``1 / (1 - p)``; in evaluation mode it passes
    ``x`` through. Its state is a uint32 [1] ``seed`` (``requires_grad=False``) that each
    training ``forward`` advances by one, so every step of a compiled training program
    draws a new mask (see the module docstring).

    >>> drop = tf.nn.Dropout(0.5)
    >>> drop.initialize_parameters()
    >>> apply = drop.compile(lambda m, x: m(x), tf.Arg([-1], tf.float32))
    >>> sorted(set(apply(np.ones(100, np.float32)).tolist()))   # zeros and 1 / (1 - p)
    [0.0, 2.0]
    """

    def __init__(self, p: float = 0.5, seed: int = 0):
        super().__init__()
        self.p = probability(p, "tf.nn.Dropout", "p")
        self.seed = Parameter([1], dt.uint32, random_offset=seed % 2**32, requires_grad=False)

    def forward(self, x: Tensor) -> Tensor:
        """``x`` with dropout applied (training mode) or unchanged.

        >>> drop = tf.nn.Dropout(p=0.0)                                # p = 0: nothing dropped
        >>> tf.compile(lambda: drop.forward(tf.input([-1], tf.float32)))(np.ones(2, np.float32)).tolist()
        [1.0, 1.0]
        """
        if not self.training or self.p == 0.0:
            return x
        seed = self.seed
        self.seed = seed + 1
        return functional.dropout(x, self.p, seed)


class ReLU(Layer):
    """``tf.nn.relu`` as a layer.

    >>> tf.compile(lambda: tf.nn.ReLU()(tf.input([-1], tf.float32)))(np.array([-1, 1], np.float32)).tolist()
    [0.0, 1.0]
    """

    def forward(self, x: Tensor) -> Tensor:
        """``relu(x)``.

        >>> relu = tf.compile(lambda: tf.nn.ReLU().forward(tf.input([-1], tf.float32)))
        >>> relu(np.array([-2, 2], np.float32)).tolist()
        [0.0, 2.0]
        """
        return functional.relu(x)


class GELU(Layer):
    """``tf.nn.gelu`` as a layer (``approximate``: ``"none"`` or ``"tanh"``).

    >>> gelu = tf.compile(lambda: tf.nn.GELU("tanh")(tf.input([-1], tf.float32)))
    >>> np.round(gelu(np.array([-1, 0, 1], np.float32)).numpy, 4)
    array([-0.1588,  0.    ,  0.8412], dtype=float32)
    """

    def __init__(self, approximate: str = "none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, x: Tensor) -> Tensor:
        """``gelu(x)``.

        >>> gelu = tf.compile(lambda: tf.nn.GELU().forward(tf.input([-1], tf.float32)))
        >>> np.round(gelu(np.array([-1, 0, 1], np.float32)).numpy, 4)
        array([-0.1587,  0.    ,  0.8413], dtype=float32)
        """
        return functional.gelu(x, self.approximate)


class SiLU(Layer):
    """``tf.nn.silu`` as a layer.

    >>> silu = tf.compile(lambda: tf.nn.SiLU()(tf.input([-1], tf.float32)))
    >>> np.round(silu(np.array([-1, 0, 1], np.float32)).numpy, 4)
    array([-0.2689,  0.    ,  0.7311], dtype=float32)
    """

    def forward(self, x: Tensor) -> Tensor:
        """``silu(x)``.

        >>> silu = tf.compile(lambda: tf.nn.SiLU().forward(tf.input([-1], tf.float32)))
        >>> np.round(silu(np.array([1], np.float32)).numpy, 4)
        array([0.7311], dtype=float32)
        """
        return functional.silu(x)


def flatten(x: Tensor) -> Tensor:
    """``x`` [N, ...] viewed as [N, product of the other sizes] (a view: no copy).

    >>> flat = tf.compile(lambda: tf.nn.flatten(tf.input([-1, -1, -1], tf.float32)))
    >>> flat(np.arange(8, dtype=np.float32).reshape(2, 2, 2)).numpy    # [N, 2, 2] -> [N, 4]
    array([[0., 1., 2., 3.],
           [4., 5., 6., 7.]], dtype=float32)
    """
    size = x.shape[1] if x.ndim > 1 else 1
    for dim in x.shape[2:]:
        size = size * dim
    return reshape(x, [x.shape[0], size])


class Flatten(Layer):
    """``tf.nn.flatten`` as a layer: [N, ...] to [N, -1].

    >>> flat = tf.compile(lambda: tf.nn.Flatten()(tf.input([-1, -1, -1], tf.float32)))
    >>> flat(np.zeros((5, 3, 2), np.float32)).shape
    (5, 6)
    """

    def forward(self, x: Tensor) -> Tensor:
        """``flatten(x)``.

        >>> flat = tf.compile(lambda: tf.nn.Flatten().forward(tf.input([-1, -1, -1, -1], tf.float32)))
        >>> flat(np.zeros((2, 3, 4, 5), np.float32)).shape
        (2, 60)
        """
        return flatten(x)


class Sequential(Layer):
    """Layers (or plain functions of one tensor) applied in order, as ``torch.nn.Sequential``;
    the layers' parameters are named ``0.weight``, ``1.bias``..., by position.

    >>> block = tf.nn.Sequential(tf.nn.Linear(2, 2), tf.nn.ReLU())
    >>> [name for name, _ in block.named_parameters()]
    ['0.weight', '0.bias']
    >>> block.update_parameters([np.array([[1, 0], [0, -1]], np.float32), np.zeros(2, np.float32)])
    >>> apply = block.compile(lambda m, x: m(x), tf.Arg([-1, 2], tf.float32))
    >>> apply(np.array([[3, 4]], np.float32)).tolist()       # relu([3, -4])
    [[3.0, 0.0]]
    """

    def __init__(self, *layers: Callable):
        super().__init__()
        for position, layer in enumerate(layers):
            if not callable(layer):
                raise ArgumentError(f"tf.nn.Sequential: item {position} is not a layer or function, got "
                                         f"{type(layer).__name__}", user_location())
            if isinstance(layer, Module):
                setattr(self, str(position), layer)
        self.layers = list(layers)

    def forward(self, x: Tensor) -> Tensor:
        """Every layer in turn.

        >>> block = tf.nn.Sequential(tf.nn.ReLU(), lambda x: x * 10.0)   # a layer, then a function
        >>> tf.compile(lambda: block.forward(tf.input([-1], tf.float32)))(np.array([-1, 2], np.float32)).tolist()
        [0.0, 20.0]
        """
        for layer in self.layers:
            x = layer(x)
        return x
