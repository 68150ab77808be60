"""Neural-network layers, as functions of traced tensors and as ``tf.Module`` layers, with
torch's names, arguments and layouts (NCHW images, weights [out, in, ...]); exported as
``tf.nn.<name>``.

- ``functional``: ``relu sigmoid silu gelu softmax log_softmax cross_entropy dropout
  embedding linear``
- ``conv``: ``conv2d max_pool2d avg_pool2d``
- ``norm``: ``layer_norm batch_norm``
- ``modules``: ``Linear Conv2d MaxPool2d AvgPool2d LayerNorm BatchNorm2d Embedding Dropout
  ReLU GELU SiLU Flatten Sequential``, ``flatten`` and ``set_training``
"""

from .conv import avg_pool2d, conv2d, max_pool2d
from .functional import cross_entropy, dropout, embedding, gelu, linear, log_softmax, relu, sigmoid, silu, softmax
from .modules import (
    GELU,
    AvgPool2d,
    BatchNorm2d,
    Conv2d,
    Dropout,
    Embedding,
    Flatten,
    Layer,
    LayerNorm,
    Linear,
    MaxPool2d,
    ReLU,
    Sequential,
    SiLU,
    flatten,
    set_training,
)
from .norm import batch_norm, layer_norm

__all__ = ["conv2d", "max_pool2d", "avg_pool2d", "relu", "sigmoid", "silu", "gelu", "softmax", "log_softmax",
           "cross_entropy", "dropout", "embedding", "linear", "layer_norm", "batch_norm", "flatten", "set_training",
           "Layer", "Linear", "Conv2d", "MaxPool2d", "AvgPool2d", "LayerNorm", "BatchNorm2d", "Embedding",
           "Dropout", "ReLU", "GELU", "SiLU", "Flatten", "Sequential"]
