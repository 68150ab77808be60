"""Programs bound to a module: compiled once, called with data only."""

from __future__ import annotations

import inspect

from ..ir.errors import TensorFrostError
from ..program import TensorProgram
from ..tracing.api import input as tf_input
from ..tracing.trace import Arg


class ModuleProgram:
    """``fn(module, *inputs)`` compiled as a tensor program whose inputs are ``args`` (each a
    ``tf.Arg``) followed by the module's parameters. Calling it with the inputs passes the
    module's current parameters too. Made by ``Module.compile``; ``.program`` is the
    underlying ``tf.TensorProgram`` (for ``get_kernels()`` and the like)."""

    def __init__(self, module, fn, args, name: str | None = None, names: list | None = None):
        for k, arg in enumerate(args):
            if not isinstance(arg, Arg):
                raise TensorFrostError(f"input {k} of {type(module).__name__}.compile: expected a "
                                       f"tf.Arg(shape, dtype), got {type(arg).__name__}")
        self.module = module
        names = names or parameter_names(fn, len(args), skip=1)

        def program():
            inputs = [tf_input(arg.shape, arg.dtype, name=n) for arg, n in zip(args, names)]
            saved = module._detach_values()
            try:
                module.initialize_input()
                return fn(module, *inputs)
            finally:
                for param, value in saved:
                    param.value = value

        label = name or f"{type(module).__name__}_{getattr(fn, '__name__', 'program')}"
        self.program = TensorProgram(program, name=label)

    def __call__(self, *inputs):
        return self.program(*inputs, self.module)

    def __repr__(self) -> str:
        return f"<ModuleProgram {self.program.name} of {type(self.module).__name__}>"


def parameter_names(fn, count: int, skip: int = 0) -> list[str]:
    """Names for ``count`` program inputs: ``fn``'s parameter names after the first ``skip``,
    or ``input0``, ``input1``... where it has none."""
    try:
        params = [p.name for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][skip:]
    except (TypeError, ValueError):
        params = []
    return [params[k] if k < len(params) else f"input{k}" for k in range(count)]
