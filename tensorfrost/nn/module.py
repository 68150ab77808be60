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

import math
import os

import numpy as np

from ..ir import dtypes as dt
from ..ir.errors import ArgumentError, CheckpointError, ShapeError, TensorFrostError
from ..runtime import TensorMemory, as_array, dlpack_array, is_dlpack_producer, tensor
from ..tracing.api import input as tf_input
from ..tracing.tensor import Tensor
from .checkpoint import atomic_write, read_npz, write_npz
from .program import ModuleProgram

_STRUCTURE = [0]  # counts changes of any module's members (not of their values)


def structure_version() -> int:
    """A number that changes whenever a parameter, array or module is added to or removed
    from any module: programs that cache a module's parameter list check it."""
    return _STRUCTURE[0]


class Parameter:
    """A tensor of a module: its declared shape and dtype, how to initialize it, and
    whether optimizers train it::

        self.W = tf.Parameter([64, -1], tf.float32)                  # -1: any size
        self.b = tf.Parameter([-1], tf.float32, random_scale=0.0)     # starts at zero
        self.s = tf.Parameter([1], tf.float32, requires_grad=False)   # not trained

    ``random_scale`` is the standard deviation of the normal values it starts with
    (``None`` or negative: Xavier, ``sqrt(2 / (fan_in + fan_out))`` where ``fan_in +
    fan_out`` is ``(shape[0] + shape[1]) * prod(shape[2:])``, or ``shape[0]`` for a 1-D
    parameter); ``random_offset`` is added. Integer and bool parameters start at
    ``random_offset`` and are never trained. ``requires_grad=False`` only keeps optimizers
    from updating it; ``tf.grad`` still works.
    """

    __slots__ = ("shape", "dtype", "random_scale", "random_offset", "requires_grad", "value")

    def __init__(self, shape, dtype=dt.float32, random_scale: float | None = None, random_offset: float = 0.0,
                 requires_grad: bool = True, optimize: bool | None = None):
        if isinstance(shape, (Tensor, TensorMemory)) or not hasattr(shape, "__iter__"):
            raise ShapeError(f"tf.Parameter: expected a list of dims, got {type(shape).__name__}")
        self.shape = list(shape)
        self.dtype = dt.dtype_of(dtype)
        self.random_scale = random_scale
        self.random_offset = float(random_offset)
        self.requires_grad = bool(requires_grad if optimize is None else optimize)  # optimize: upstream's name
        self.value = None

    @property
    def trainable(self) -> bool:
        """Whether optimizers update it: ``requires_grad`` and a float dtype."""
        return self.requires_grad and self.dtype.is_float

    @property
    def static_shape(self) -> tuple | None:
        """The declared shape when every dim is a known int, else None."""
        if all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in self.shape):
            return tuple(self.shape)
        return None

    def initial_value(self, rng) -> np.ndarray:
        """Random starting values (see the class docstring); needs a static shape."""
        shape = self.static_shape
        if not self.dtype.is_float:
            return np.full(shape, self.random_offset, self.dtype.numpy)
        scale = self.random_scale
        if scale is None or scale < 0:
            fans = (shape[0] + shape[1]) * math.prod(shape[2:]) if len(shape) >= 2 else (shape[0] if shape else 2)
            scale = math.sqrt(2.0 / max(fans, 1))
        values = rng.standard_normal(shape) if rng is not None else np.random.randn(*shape)
        return (values * scale + self.random_offset).astype(np.float32)

    def assign(self, value, name: str) -> None:
        """Set the value, checking it against the declaration (numpy arrays and other DLPack
        producers, a torch or jax tensor, are uploaded as a program's input is: converted only
        where every value stays the same)."""
        if is_dlpack_producer(value):
            value = dlpack_array(value, f"parameter '{name}'")
        if isinstance(value, np.ndarray):
            value = tensor(as_array(value, self.dtype, f"parameter '{name}'"), self.dtype)
        if value is None:
            self.value = None
            return
        if not isinstance(value, (Tensor, TensorMemory)):
            raise TensorFrostError(f"parameter '{name}': expected a tensor (tf.Tensor inside a program, "
                                   f"tf.tensor or a numpy array outside), got {type(value).__name__}")
        if value.dtype is not self.dtype:
            raise TensorFrostError(f"parameter '{name}': declared dtype {self.dtype.name}, got {value.dtype.name}")
        if value.ndim != len(self.shape):
            raise ShapeError(f"parameter '{name}': declared shape {self.shape} (rank {len(self.shape)}), got "
                             f"a tensor of rank {value.ndim}")
        problem = self.shape_problem(value.shape, name) if isinstance(value, TensorMemory) else None
        if problem is not None:
            raise ShapeError(problem)
        self.value = value

    def shape_problem(self, shape, name: str) -> str | None:
        """Why a tensor of ``shape`` cannot be the value of this parameter (called ``name``), or None."""
        if len(shape) != len(self.shape):
            return (f"parameter '{name}': declared shape {self.shape} (rank {len(self.shape)}), got a tensor of "
                    f"rank {len(shape)}")
        for axis, (want, have) in enumerate(zip(self.shape, shape)):
            if isinstance(want, int) and want >= 0 and want != have:
                return (f"parameter '{name}': declared shape {self.shape}, got a tensor of shape {list(shape)} "
                        f"(shape[{axis}] differs)")
        return None

    def __repr__(self) -> str:
        grad = "" if self.requires_grad else ", requires_grad=False"
        return f"tf.Parameter({self.shape}, {self.dtype!r}{grad})"


class ParameterArray:
    """A list of parameters indexed by int, all passed to programs (in index order)::

        self.layers = tf.ParameterArray()
        for k in range(3):
            self.layers[k] = tf.Parameter([-1, -1], tf.float32)
        ...
        x = x @ self.layers[0]          # the value, as for a Parameter attribute
        self.layers[0] = new_tensor      # replace the value

    ``append(parameter)`` adds at the next index; ``len`` and iteration (over values) work.
    """

    def __init__(self):
        self._items: dict[int, Parameter] = {}
        self._name = ""  # the attribute it is registered under, for messages

    def __setitem__(self, index: int, value) -> None:
        index = _array_index(index)
        if isinstance(value, Parameter):
            self._items[index] = value
            self._items = dict(sorted(self._items.items()))
            _STRUCTURE[0] += 1
        elif index in self._items:
            self._items[index].assign(value, f"{self._name}[{index}]")
        else:
            raise TensorFrostError(f"ParameterArray has no parameter at index {index}; assign a tf.Parameter "
                                   "there first")

    def __getitem__(self, index: int):
        index = _array_index(index)
        if index not in self._items:
            raise IndexError(f"ParameterArray has no parameter at index {index}")
        param = self._items[index]
        return param if param.value is None else param.value

    def append(self, parameter: Parameter) -> None:
        """Add ``parameter`` after the highest index."""
        self[max(self._items, default=-1) + 1] = parameter

    def items(self) -> list:
        """``(index, Parameter)`` pairs in index order."""
        return list(self._items.items())

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self):
        return iter([self[i] for i in self._items])

    def __repr__(self) -> str:
        return f"tf.ParameterArray({dict(self._items)})"


def fill_parameters(named, seed, overwrite: bool) -> None:
    """Give each parameter of ``named`` (``(name, Parameter)`` pairs) with a static shape
    new random values (all of them, or with ``overwrite=False`` those without a value)."""
    rng = seed if isinstance(seed, np.random.Generator) else (
        np.random.default_rng(seed) if seed is not None else None)
    for _, param in named:
        if param.static_shape is not None and (overwrite or param.value is None):
            param.value = tensor(param.initial_value(rng), param.dtype)


def _member_flags(member, trained: bool):
    """``Module._trained_flags`` of one member (a Parameter, ParameterArray or Module)."""
    if isinstance(member, Parameter):
        yield trained and member.trainable
    elif isinstance(member, ParameterArray):
        yield from (trained and param.trainable for _, param in member.items())
    else:
        yield from member._trained_flags(trained)


def _array_index(index) -> int:
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or index < 0:
        raise TensorFrostError(f"ParameterArray indices are non-negative Python ints, got {index!r}")
    return int(index)


class Module:
    """A model: parameters, child modules, and the functions that use them::

        class Linear(tf.Module):
            def __init__(self, n_in, n_out):
                super().__init__()                       # optional
                self.W = tf.Parameter([n_in, n_out], tf.float32)
                self.b = tf.Parameter([n_out], tf.float32, random_scale=0.0)

            def forward(self, x):
                return x @ self.W + self.b

        def forward():                                   # a tensor program
            model = Linear(64, 10)
            model.initialize_input()                     # W and b become tf.input
            x = tf.input([-1, 64], tf.float32)
            return model.forward(x)

        prog = tf.compile(forward)
        model = Linear(64, 10)
        model.initialize_parameters(seed=0)              # tf.tensor values
        y = prog(model, x_array)                         # model: its parameters, in order

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
            _STRUCTURE[0] += 1
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
            _STRUCTURE[0] += 1
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
        ``self.b = tf.assert_tensor(self.b, [self.W.shape[1]], tf.float32)``."""

    def initialize_input(self) -> None:
        """Inside a tensor program: make every parameter a ``tf.input`` (in order), then run
        ``assert_parameters()`` of every child module and of this one."""
        held = [name for name, p in self._walk() if isinstance(p.value, TensorMemory)]
        if held:
            raise TensorFrostError(f"{type(self).__name__}.initialize_input(): this module already holds "
                                   f"tensors ({', '.join(held[:3])}...) from initialize_parameters(); create a "
                                   "new module inside the program, or use module.compile(fn, ...)")
        for name, param in self._walk():
            param.value = tf_input(param.shape, param.dtype, name=name)
        for module in self._modules():
            module.assert_parameters()

    def initialize_parameters(self, seed=None) -> None:
        """Outside a program: give every parameter whose shape is fully known a new
        ``tf.tensor`` of random values (see ``tf.Parameter``). ``seed`` (an int or a numpy
        Generator) makes them reproducible; without it numpy's global generator is used.
        Parameters with free (-1) dims keep their value: assign one yourself."""
        fill_parameters(self._walk(), seed, overwrite=True)

    def forward(self, *inputs):
        """Override: the module's output for ``inputs``."""
        raise TensorFrostError(f"{type(self).__name__} does not define forward()")

    def loss(self, *inputs):
        """Override: the scalar loss that ``opt.step(*inputs)`` minimizes."""
        raise TensorFrostError(f"{type(self).__name__} does not define loss(); define it, or pass the loss to "
                               "opt.step(loss)")

    # -- values ---------------------------------------------------------------------------------

    def parameters(self) -> list:
        """The parameters' values in order (a list you may append to and return); before
        they have values, the ``tf.Parameter`` declarations (upstream's convention)."""
        return [value for _, value in self.named_parameters()]

    def named_parameters(self) -> list:
        """``(name, value)`` pairs in order; names look like ``fc1.W`` or ``layers[2]``. A
        parameter without a value yet is listed as its ``tf.Parameter``."""
        return [(name, param if param.value is None else param.value) for name, param in self._walk()]

    def requires_grads_list(self) -> list:
        """For each of ``parameters()``: whether optimizers train it (upstream's name)."""
        return list(self._trained_flags())

    def param_requires_grad(self, name: str) -> bool:
        """Whether optimizers train the member ``name`` (a parameter, or any of an array's or
        a module's parameters)."""
        members = self.__dict__.get("_members", {})
        if name not in members:
            raise AttributeError(f"'{type(self).__name__}' has no parameter, array or module '{name}'")
        return any(_member_flags(members[name], self.__dict__.get("_requires_grad", True)))

    def hasattr(self, name: str) -> bool:  # noqa: A003 (upstream's method)
        """Whether the module has a member or attribute ``name``."""
        return name in self.__dict__.get("_members", {}) or name in self.__dict__

    def create_input(self, *inputs) -> list:
        """``parameters()`` followed by ``inputs``: the argument list of a program that takes
        this module and then its data (upstream's name)."""
        return self.parameters() + list(inputs)

    def update_parameters(self, values) -> None:
        """Set every parameter's value from ``values``, in the order of ``parameters()``;
        e.g. ``opt.update_parameters(outputs[:-1])`` after a training step."""
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

    def compile(self, fn, *args, name: str | None = None):
        """Compile ``fn(module, *inputs)``, where ``args`` are the inputs' ``tf.Arg(shape,
        dtype)``; the result is called with the inputs only and passes this module's
        current parameters itself::

            predict = model.compile(lambda m, x: m.forward(x), tf.Arg([-1, 64], tf.float32))
            logits = predict(x_array)
        """
        return ModuleProgram(self, fn, args, name=name)

    # -- files ----------------------------------------------------------------------------------

    def save(self, path) -> None:
        """Write every parameter's value to a numpy ``.npz`` file, by name (``.npz`` is added
        to a name without it, as ``np.savez`` does), in its dtype (bfloat16 as its uint16 bits
        with a dtype record: tensorfrost/nn/checkpoint.py). The file is replaced atomically: a
        crash at any moment leaves the old complete file or the new one, never a partial one."""
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

    def load(self, path) -> Module:
        """Read the values written by ``save`` (same parameter names), as new tensors; a value
        of another dtype than its parameter's converts only if every value stays the same
        (float16 into float32 does; float32 into float16 must fit exactly). A file
        that is not such an archive (damaged, cut short, another format) or does not match the
        module raises a ``CheckpointError`` that names it, and leaves the module unchanged; what
        does not match is found from the members' headers, before any values are read
        (tensorfrost/nn/checkpoint.py)."""
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
