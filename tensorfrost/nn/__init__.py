"""Neural-network building blocks: ``tf.Module``, ``tf.Parameter``, ``tf.ParameterArray``
and ``tf.optimizers`` (SGD, Adam, RMSProp with gradient clipping and weight decay)."""

from . import clipping, optimizers, regularizers
from .module import Module, Parameter, ParameterArray
from .program import ModuleProgram

__all__ = ["Module", "Parameter", "ParameterArray", "ModuleProgram", "optimizers", "clipping", "regularizers"]
