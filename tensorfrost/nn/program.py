"""Programs bound to a module: compiled once, called with data only."""

from __future__ import annotations

import inspect
from collections.abc import Callable

from ..ir.errors import TensorFrostError
from ..program import TensorProgram
from ..runtime import TensorMemory
from ..tracing.api import input as tf_input
from ..tracing.trace import Arg


class ModuleProgram:
    """``fn(module, *inputs)`` compiled as a tensor program whose inputs are ``args`` (each a
    ``tf.Arg``) followed by the module's parameters. Calling it with the inputs passes the
    module's current parameters too. Made by ``Module.compile``; ``.program`` is the
    underlying ``tf.TensorProgram`` (for ``get_kernels()`` and the like).

    >>> m = tf.Module()
    >>> m.scale = tf.Parameter([1], tf.float32)
    >>> m.scale = tf.tensor(np.array([2], np.float32))
    >>> scaled = m.compile(lambda m, x: x * m.scale, tf.Arg([-1], tf.float32))
    >>> scaled(np.array([1, 2, 3], np.float32)).tolist()
    [2.0, 4.0, 6.0]
    >>> m.scale = tf.tensor(np.array([10], np.float32))   # the next call passes the new value
    >>> scaled(np.array([1, 2, 3], np.float32)).tolist()
    [10.0, 20.0, 30.0]
    >>> len(scaled.program.get_kernels())
    1
    """

    def __init__(self, module, fn: Callable, args: tuple[Arg, ...], name: str | None = None,
                 names: list | None = None):  # (module: a tf.Module, not imported: nn/module.py imports this)
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

    def __call__(self, *inputs: object) -> TensorMemory | tuple[TensorMemory, ...]:
        """Run the program on ``inputs`` and the module's current parameters.

        >>> m = tf.Module()
        >>> m.bias = tf.Parameter([2], tf.float32, random_scale=0.0, random_offset=0.5)
        >>> m.initialize_parameters()
        >>> m.compile(lambda m, x: x + m.bias, tf.Arg([2], tf.float32))(np.ones(2, np.float32)).tolist()
        [1.5, 1.5]
        """
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
