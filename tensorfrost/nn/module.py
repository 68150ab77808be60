"""Modules: containers of parameters that tensor programs take as arguments.

A ``Module`` registers every attribute that is a ``Parameter``, a ``ParameterArray`` or
another ``Module``, in the order the attributes were first assigned. The same module
class serves in two roles (the seed's design):

- inside a tensor program, ``initialize_input()`` turns every parameter into a
  ``tf.input`` (in registration order) and then runs ``assert_parameters()`` of every
  child module and of the module itself;
- outside, ``initialize_parameters()`` fills every parameter with a ``tf.tensor``
  (Xavier normal by default), and the module is passed to a compiled program in place of
  those tensors.

Reading a parameter attribute gives its value (a traced ``tf.Tensor`` inside a program,
a ``tf.TensorMemory`` outside); assigning a tensor to it replaces the value.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import BinaryIO

from ..ir.errors import ArgumentError, CheckpointError, TensorFrostError
from ..runtime import TensorMemory, as_array, tensor
from ..tracing.api import input as tf_input
from ..tracing.trace import Arg
from . import parameter
from .checkpoint import atomic_write, read_npz, write_npz
from .parameter import Parameter, ParameterArray, fill_parameters
from .program import ModuleProgram


def _member_flags(member, trained: bool):
    """``Module._trained_flags`` of one member (a Parameter, ParameterArray or Module)."""
    if isinstance(member, Parameter):
        yield trained and member.trainable
    elif isinstance(member, ParameterArray):
        yield from (trained and param.trainable for _, param in member.items())
    else:
        yield from member._trained_flags(trained)


class Module:
    """A model: parameters, child modules, and the functions that use them:

    >>> class Linear(tf.Module):
    ...     def __init__(self, n_in, n_out):
    ...         super().__init__()                       # optional
    ...         self.W = tf.Parameter([n_in, n_out], tf.float32)
    ...         self.b = tf.Parameter([n_out], tf.float32, random_scale=0.0)
    ...     def forward(self, x):
    ...         return x @ self.W + self.b
    >>> def forward():                                   # a tensor program
    ...     model = Linear(2, 2)
    ...     model.initialize_input()                     # W and b become tf.input
    ...     x = tf.input([-1, 2], tf.float32)
    ...     return model.forward(x)
    >>> prog = tf.compile(forward)
    >>> model = Linear(2, 2)
    >>> model.initialize_parameters(seed=0)              # tf.tensor values
    >>> model.W = tf.tensor(np.array([[1, 2], [3, 4]], np.float32))
    >>> prog(model, np.array([[1, 1]], np.float32)).numpy   # model: its parameters, in order
    array([[4., 6.]], dtype=float32)
    >>> model
    Linear(
      W: float32[2, 2]
      b: float32[2]
    )

    Override ``assert_parameters()`` to tell the compiler how free (-1) dims relate, with
    ``tf.assert_tensor``; ``loss(x, y)`` is what ``opt.step(x, y)`` minimizes.
    ``parameters()``, ``named_parameters()`` and ``update_parameters(values)`` list and set
    the values in order; ``save(path)`` / ``load(path)`` store them in a numpy ``.npz``;
    ``compile(fn, *args)`` compiles ``fn(module, *inputs)`` without a twin module.
    """

    def __init__(self, requires_grad: bool = True):
        if "_members" not in self.__dict__:
            object.__setattr__(self, "_members", {})
        object.__setattr__(self, "_requires_grad", bool(requires_grad))

    # -- registration ------------------------------------------------------------------------

    def __setattr__(self, name: str, value) -> None:
        members = self.__dict__.get("_members")
        if members is None:
            members = {}
            object.__setattr__(self, "_members", members)
        if isinstance(value, (Parameter, ParameterArray, Module)):
            self.__dict__.pop(name, None)
            members[name] = value
            parameter.STRUCTURE[0] += 1
            if isinstance(value, ParameterArray):
                value._name = name
        elif isinstance(members.get(name), Parameter):
            members[name].assign(value, name)
        elif name in members:
            raise TensorFrostError(f"{type(self).__name__}.{name} is a {type(members[name]).__name__}; it can "
                                   "only be replaced by another one")
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str):
        members = self.__dict__.get("_members")
        if members is not None and name in members:
            member = members[name]
            return member.value if isinstance(member, Parameter) and member.value is not None else member
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        members = self.__dict__.get("_members")
        if members is not None and name in members:
            del members[name]
            parameter.STRUCTURE[0] += 1
        else:
            object.__delattr__(self, name)

    def _walk(self, prefix: str = ""):
        """``(qualified name, Parameter)`` for every parameter, in registration order."""
        for name, member in self.__dict__.get("_members", {}).items():
            if isinstance(member, Parameter):
                yield prefix + name, member
            elif isinstance(member, ParameterArray):
                for index, param in member.items():
                    yield f"{prefix}{name}[{index}]", param
            else:
                yield from member._walk(f"{prefix}{name}.")

    def _trained_flags(self, trained: bool = True):
        """Whether optimizers train each parameter of ``_walk()``, in its order: the
        parameter's own flag, and every module above it created with ``requires_grad``."""
        trained = trained and self.__dict__.get("_requires_grad", True)
        for member in self.__dict__.get("_members", {}).values():
            yield from _member_flags(member, trained)

    def _modules(self):
        """Every module below this one, children before parents, ending with this one."""
        for member in self.__dict__.get("_members", {}).values():
            if isinstance(member, Module):
                yield from member._modules()
        yield self

    # -- the two roles --------------------------------------------------------------------------

    def assert_parameters(self) -> None:
        """Override to relate the parameters' free dims, e.g.
        ``self.b = tf.assert_tensor(self.b, [self.W.shape[1]], tf.float32)``.

        >>> class Dense(tf.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.W = tf.Parameter([-1, -1], tf.float32)
        ...         self.b = tf.Parameter([-1], tf.float32)
        ...     def assert_parameters(self):
        ...         self.b = tf.assert_tensor(self.b, [self.W.shape[1]], tf.float32)
        >>> def forward():
        ...     m = Dense()
        ...     m.initialize_input()
        ...     return m.W + m.b                  # b's length is W's columns
        >>> prog = tf.compile(forward)
        >>> prog(np.zeros((2, 3), np.float32), np.arange(3, dtype=np.float32)).tolist()
        [[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]]
        """

    def initialize_input(self) -> None:
        """Inside a tensor program: make every parameter a ``tf.input`` (in order), then run
        ``assert_parameters()`` of every child module and of this one.

        >>> def double_weights():
        ...     m = tf.Module()
        ...     m.w = tf.Parameter([-1], tf.float32)
        ...     m.initialize_input()                 # m.w is now the program's first input
        ...     return m.w * 2.0
        >>> tf.compile(double_weights)(np.array([1, 2], np.float32)).tolist()
        [2.0, 4.0]
        """
        held = [name for name, p in self._walk() if isinstance(p.value, TensorMemory)]
        if held:
            raise TensorFrostError(f"{type(self).__name__}.initialize_input(): this module already holds "
                                   f"tensors ({', '.join(held[:3])}...) from initialize_parameters(); create a "
                                   "new module inside the program, or use module.compile(fn, ...)")
        for name, param in self._walk():
            param.value = tf_input(param.shape, param.dtype, name=name)
        for module in self._modules():
            module.assert_parameters()

    def initialize_parameters(self, seed: int | None = None) -> None:
        """Outside a program: give every parameter whose shape is fully known a new
        ``tf.tensor`` of random values (see ``tf.Parameter``). ``seed`` (an int or a numpy
        Generator) makes them reproducible; without it numpy's global generator is used.
        Parameters with free (-1) dims keep their value: assign one yourself.

        >>> m = tf.Module()
        >>> m.W = tf.Parameter([2, 3], tf.float32)
        >>> m.b = tf.Parameter([3], tf.float32, random_scale=0.0)
        >>> m.initialize_parameters(seed=0)
        >>> m.W.shape, m.b.tolist()
        ((2, 3), [0.0, 0.0, 0.0])
        """
        fill_parameters(self._walk(), seed, overwrite=True)

    def forward(self, *inputs: object) -> object:
        """Override: the module's output for ``inputs``.

        >>> class Scale(tf.Module):
        ...     def forward(self, x):
        ...         return x * 3.0
        >>> tf.compile(lambda: Scale().forward(tf.input([-1], tf.float32)))(np.ones(2, np.float32)).tolist()
        [3.0, 3.0]
        """
        raise TensorFrostError(f"{type(self).__name__} does not define forward()")

    def loss(self, *inputs: object) -> object:
        """Override: the scalar loss that ``opt.step(*inputs)`` minimizes.

        >>> class Fit(tf.Module):
        ...     def loss(self, target):
        ...         return tf.sum((self.w - target) ** 2.0)
        >>> model = Fit()
        >>> model.w = tf.Parameter([2], tf.float32)
        >>> model.w = tf.tensor(np.array([1, 2], np.float32))
        >>> step = tf.optimizers.sgd(model, learning_rate=0.25).compile_step(tf.Arg([2], tf.float32))
        >>> step(np.zeros(2, np.float32)).tolist()   # the loss before the step: 1 + 4
        [5.0]
        >>> model.w.tolist()                         # w - 0.25 * 2w
        [0.5, 1.0]
        """
        raise TensorFrostError(f"{type(self).__name__} does not define loss(); define it, or pass the loss to "
                               "opt.step(loss)")

    # -- values ---------------------------------------------------------------------------------

    def parameters(self) -> list:
        """The parameters' values in order (a list you may append to and return); before
        they have values, the ``tf.Parameter`` declarations (upstream's convention).

        >>> m = tf.Module()
        >>> m.W = tf.Parameter([2, 3], tf.float32)
        >>> m.b = tf.Parameter([3], tf.float32, random_scale=0.0)
        >>> m.parameters()
        [tf.Parameter([2, 3], tf.float32), tf.Parameter([3], tf.float32)]
        >>> m.initialize_parameters(seed=0)
        >>> [p.shape for p in m.parameters()]
        [(2, 3), (3,)]
        """
        return [value for _, value in self.named_parameters()]

    def named_parameters(self) -> list:
        """``(name, value)`` pairs in order; names look like ``fc1.W`` or ``layers[2]``. A
        parameter without a value yet is listed as its ``tf.Parameter``.

        >>> m = tf.Module()
        >>> m.fc1 = tf.Module()
        >>> m.fc1.W = tf.Parameter([2, 2], tf.float32)
        >>> m.scale = tf.Parameter([1], tf.float32)
        >>> m.named_parameters()
        [('fc1.W', tf.Parameter([2, 2], tf.float32)), ('scale', tf.Parameter([1], tf.float32))]
        """
        return [(name, param if param.value is None else param.value) for name, param in self._walk()]

    def requires_grads_list(self) -> list:
        """For each of ``parameters()``: whether optimizers train it (upstream's name).

        >>> m = tf.Module()
        >>> m.W = tf.Parameter([2, 2], tf.float32)
        >>> m.steps = tf.Parameter([1], tf.int32)
        >>> m.requires_grads_list()
        [True, False]
        """
        return list(self._trained_flags())

    def param_requires_grad(self, name: str) -> bool:
        """Whether optimizers train the member ``name`` (a parameter, or any of an array's or
        a module's parameters).

        >>> m = tf.Module()
        >>> m.frozen = tf.Module(requires_grad=False)
        >>> m.frozen.W = tf.Parameter([2], tf.float32)
        >>> m.param_requires_grad("frozen")
        False
        """
        members = self.__dict__.get("_members", {})
        if name not in members:
            raise AttributeError(f"'{type(self).__name__}' has no parameter, array or module '{name}'")
        return any(_member_flags(members[name], self.__dict__.get("_requires_grad", True)))

    def hasattr(self, name: str) -> bool:  # noqa: A003 (upstream's method)
        """Whether the module has a member or attribute ``name``.

        >>> m = tf.Module()
        >>> m.W = tf.Parameter([2], tf.float32)
        >>> m.hasattr("W"), m.hasattr("b")
        (True, False)
        """
        return name in self.__dict__.get("_members", {}) or name in self.__dict__

    def create_input(self, *inputs: object) -> list:
        """``parameters()`` followed by ``inputs``: the argument list of a program that takes
        this module and then its data (upstream's name).

        >>> m = tf.Module()
        >>> m.w = tf.Parameter([2], tf.float32, random_scale=0.0, random_offset=1.0)
        >>> m.initialize_parameters()
        >>> [np.asarray(a).tolist() for a in m.create_input(np.array([5.0, 6.0]))]
        [[1.0, 1.0], [5.0, 6.0]]
        """
        return self.parameters() + list(inputs)

    def update_parameters(self, values: list) -> None:
        """Set every parameter's value from ``values``, in the order of ``parameters()``;
        e.g. ``opt.update_parameters(outputs[:-1])`` after a training step.

        >>> m = tf.Module()
        >>> m.a = tf.Parameter([2], tf.float32)
        >>> m.b = tf.Parameter([1], tf.float32)
        >>> m.update_parameters([np.array([1, 2], np.float32), np.array([3], np.float32)])
        >>> m.a.tolist(), m.b.tolist()
        ([1.0, 2.0], [3.0])
        """
        params = list(self._walk())
        values = list(values)
        if len(values) != len(params):
            raise ArgumentError(f"{type(self).__name__}.update_parameters: expected {len(params)} values "
                                f"(one per parameter), got {len(values)}")
        for (name, param), value in zip(params, values):
            param.assign(value, name)

    def _program_arguments(self) -> list:
        """What a compiled program receives in place of this module."""
        named = self.named_parameters()  # (an optimizer fills missing state here)
        for name, value in named:
            if isinstance(value, Parameter):
                raise TensorFrostError(f"parameter '{name}' of {type(self).__name__} has no value: call "
                                       "initialize_input() inside a program or initialize_parameters() outside "
                                       "(a parameter with free dims needs a tensor assigned)")
        return [value for _, value in named]

    def _detach_values(self) -> list:
        """Clear every parameter's value; returns ``(Parameter, value)`` pairs to restore."""
        saved = [(param, param.value) for _, param in self._walk()]
        for param, _ in saved:
            param.value = None
        return saved

    def compile(self, fn: Callable, *args: Arg, name: str | None = None) -> ModuleProgram:
        """Compile ``fn(module, *inputs)``, where ``args`` are the inputs' ``tf.Arg(shape,
        dtype)``; the result is called with the inputs only and passes this module's
        current parameters itself::

            predict = model.compile(lambda m, x: m.forward(x), tf.Arg([-1, 64], tf.float32))
            logits = predict(x_array)

        >>> m = tf.Module()
        >>> m.W = tf.Parameter([2, 3], tf.float32)
        >>> m.b = tf.Parameter([3], tf.float32, random_scale=0.0)
        >>> m.initialize_parameters(seed=0)
        >>> m.b = tf.tensor(np.array([1, 2, 3], np.float32))
        >>> predict = m.compile(lambda m, x: x @ m.W + m.b, tf.Arg([-1, 2], tf.float32))
        >>> y = predict(np.zeros((4, 2), np.float32))     # m's current values are passed
        >>> y.numpy[0]
        array([1., 2., 3.], dtype=float32)
        """
        return ModuleProgram(self, fn, args, name=name)

    # -- files ----------------------------------------------------------------------------------

    def save(self, path: str | os.PathLike | BinaryIO) -> None:
        """Write every parameter's value to a numpy ``.npz`` file, by name (``.npz`` is added
        to a name without it, as ``np.savez`` does), in its dtype (bfloat16 as its uint16 bits
        with a dtype record: tensorfrost/nn/checkpoint.py). The file is replaced atomically: a
        crash at any moment leaves the old complete file or the new one, never a partial one.

        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "model")
        >>> m = tf.Module()
        >>> m.w = tf.Parameter([3], tf.float32)
        >>> m.w = tf.tensor(np.array([1, 2, 3], np.float32))
        >>> m.save(path)                               # writes model.npz
        >>> restored = tf.Module()
        >>> restored.w = tf.Parameter([3], tf.float32)
        >>> restored.load(path).w.tolist()
        [1.0, 2.0, 3.0]
        """
        arrays = {}
        for name, value in self.named_parameters():
            if isinstance(value, Parameter):
                raise TensorFrostError(f"{type(self).__name__}.save: parameter '{name}' has no value yet (call "
                                       "initialize_parameters() or assign a tensor)")
            if not isinstance(value, TensorMemory):
                raise TensorFrostError(f"{type(self).__name__}.save: parameter '{name}' is not a tensor in memory "
                                       "(save modules outside tensor programs)")
            arrays[name] = value.numpy
        if hasattr(path, "write"):  # an open file: the caller owns its atomicity
            write_npz(path, arrays)
            return
        path = os.fspath(path)
        atomic_write(path if path.endswith(".npz") else path + ".npz", lambda f: write_npz(f, arrays))

    def load(self, path: str | os.PathLike | BinaryIO) -> Module:
        """Read the values written by ``save`` (same parameter names), as new tensors; a value
        of another dtype than its parameter's converts only if every value stays the same
        (float16 into float32 does; float32 into float16 must fit exactly). A file
        that is not such an archive (damaged, cut short, another format) or does not match the
        module raises a ``CheckpointError`` that names it, and leaves the module unchanged; what
        does not match is found from the members' headers, before any values are read
        (tensorfrost/nn/checkpoint.py).

        >>> import io
        >>> saved = tf.Module()
        >>> saved.w = tf.Parameter([2], tf.float32)
        >>> saved.w = tf.tensor(np.array([4, 5], np.float32))
        >>> f = io.BytesIO()
        >>> saved.save(f)
        >>> _ = f.seek(0)
        >>> m = tf.Module()
        >>> m.w = tf.Parameter([2], tf.float32)
        >>> m.load(f).w.tolist()
        [4.0, 5.0]
        """
        if not hasattr(path, "read"):
            path = os.fspath(path)
            if not os.path.exists(path) and os.path.exists(path + ".npz"):  # save("m") wrote m.npz
                path += ".npz"
        where = f"{type(self).__name__}.load({path!s})"
        params = dict(self._walk())
        arrays = read_npz(path, params, where)
        previous = [(param, param.value) for param in params.values()]
        try:
            for name, param in params.items():
                param.assign(tensor(as_array(arrays[name], param.dtype, f"parameter '{name}'"), param.dtype), name)
        except TensorFrostError as exc:
            for param, value in previous:  # all parameters or none
                param.value = value
            raise CheckpointError(f"{where}: {exc.message}") from exc
        return self

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__}("]
        for name, param in self._walk():
            value = param.value
            shape = list(value.shape) if isinstance(value, TensorMemory) else param.shape
            frozen = "" if param.trainable else " (not trained)"
            lines.append(f"  {name}: {param.dtype.name}{shape}{frozen}")
        return "\n".join(lines + [")"])
