"""Neural-network building blocks: ``tf.Module``, ``tf.Parameter``, ``tf.ParameterArray``
and ``tf.optimizers`` (SGD, Adam, RMSProp with gradient clipping and weight decay), and the
layers of ``tensorfrost.nn.layers`` as ``tf.nn.conv2d``, ``tf.nn.Conv2d``, ... (see there)."""

from . import clipping, optimizers, regularizers
from .layers import *  # noqa: F403 (the layers' __all__ is the list of tf.nn names)
from .layers import __all__ as _layer_names
from .module import Module
from .parameter import Parameter, ParameterArray
from .program import ModuleProgram

__all__ = ["Module", "Parameter", "ParameterArray", "ModuleProgram", "optimizers", "clipping", "regularizers",
           *_layer_names]
