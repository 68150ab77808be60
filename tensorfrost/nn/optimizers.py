"""Optimizers (``tf.optimizers``): modules that hold a model, its training state and the
update rule, so that one compiled program does a whole training step.

The seed's way: build the model and optimizer inside a program, step, and return the new
parameters with the loss; outside, pass the optimizer and take the new values back::

    def train_step():
        X = tf.input([-1, 64], tf.float32)
        Y = tf.input([-1, 10], tf.float32)
        opt = tf.optimizers.adam(MLP(), learning_rate=0.001)
        opt.initialize_input()              # model parameters, then optimizer state
        loss = opt.step(X, Y)               # minimizes model.loss(X, Y)
        return opt.parameters() + [loss]

    step = tf.compile(train_step)
    opt = tf.optimizers.adam(MLP())
    opt.initialize_parameters(seed=0)
    out = step(X, Y, opt)                   # opt: model parameters + state, in order
    opt.update_parameters(out[:-1])
    loss = out[-1].numpy[0]

The short way, with the same optimizer object and no twin inside the program::

    opt = tf.optimizers.adam(MLP(), learning_rate=0.001)
    opt.initialize_parameters(seed=0)
    step = opt.compile_step(tf.Arg([-1, 64], tf.float32), tf.Arg([-1, 10], tf.float32))
    loss = step(X, Y)                       # updates the model and the state in place

Every optimizer takes ``grad_clip`` (0: off) with ``clip_mode`` (``"value"``, ``"norm"``
or ``"global_norm"``, see ``tensorfrost.nn.clipping``) and decoupled weight decay ``l1``
and ``l2`` (see ``tensorfrost.nn.regularizers``). Only float parameters with
``requires_grad`` are trained; the others are passed through unchanged. The state of a
16-bit float parameter (float16, bfloat16) is float32, and its update is computed in
float32 and rounded once, as mixed precision training does.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..ir import dtypes as dt
from ..ir.errors import TensorFrostError, TraceError, user_location
from ..ir.shapes import describe_shape, static_value
from ..runtime import TensorMemory, tensor
from ..tracing.api import assert_tensor, grad
from ..tracing.mathfn import sqrt
from ..tracing.tensor import Tensor
from ..tracing.trace import Arg
from .clipping import check_mode, clip_gradients
from .clipping import none as clipping_none
from .module import Module
from .parameter import Parameter, ParameterArray, fill_parameters, structure_version
from .program import ModuleProgram, parameter_names
from .regularizers import decay as weight_decay
from .regularizers import regularization

__all__ = ["sgd", "adam", "rmsprop", "Optimizer", "SGD", "Adam", "RMSProp", "TrainStep"]


class Optimizer(Module):
    """The shared part of the optimizers: the model (``self.net``), hyperparameters, per-
    parameter state arrays (named by ``STATE``), a step counter ``t`` when ``COUNTS_STEPS``,
    and ``step``. A subclass defines ``direction(k, grad, context)``: the update of trained
    parameter ``k`` before the learning rate, updating its state.

    A new optimizer is a subclass with its ``direction`` (here: the sign of the gradient):

    >>> class Fit(tf.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.w = tf.Parameter([2], tf.float32)
    ...     def loss(self, target):
    ...         return tf.sum((self.w - target) ** 2.0)
    >>> model = Fit()
    >>> model.w = tf.tensor(np.array([1, 2], np.float32))
    >>> class SignSGD(tf.optimizers.Optimizer):
    ...     def direction(self, k, g, context):
    ...         return tf.sign(g)
    >>> opt = SignSGD(model, learning_rate=0.5)
    >>> step = opt.compile_step(tf.Arg([2], tf.float32))
    >>> _ = step(np.zeros(2, np.float32))
    >>> model.w.tolist()
    [0.5, 1.5]
    """

    STATE: tuple = ()
    COUNTS_STEPS = False

    def __init__(self, net: Module, learning_rate: float | Tensor = 0.001, grad_clip: float | Tensor = 0.0,
                 clip_mode: str = "value", l1: float = 0.0, l2: float = 0.0, epsilon: float = 1e-8,
                 clip: float | None = None, reg_type: str | None = None, reg: float = 0.0):
        super().__init__()
        if not isinstance(net, Module):
            raise TensorFrostError(f"{type(self).__name__}: expected a tf.Module to optimize, got {type(net).__name__}")
        self.net = net
        self.learning_rate = learning_rate
        self.grad_clip = grad_clip if clip is None else clip  # clip: upstream's name
        self.clip_mode = check_mode(clip_mode)
        self.l1, self.l2 = regularization(reg_type, reg, float(l1), float(l2))
        self.epsilon = float(epsilon)
        self.trained = [(name, p) for (name, p), trained in zip(net._walk(), net._trained_flags()) if trained]
        for state in self.STATE:
            array = ParameterArray()
            for k, (_, p) in enumerate(self.trained):
                array[k] = Parameter(p.shape, p.dtype.compute, random_scale=0.0, requires_grad=False)
            setattr(self, state, array)
        if self.COUNTS_STEPS:
            self.t = Parameter([1], dt.float32, random_scale=0.0, requires_grad=False)

    def set_clipping_type(self, kind: str) -> None:
        """Upstream's switch of the clipping mode: ``tf.clipping.clamp`` (per element),
        ``tf.clipping.norm`` (per tensor) or ``tf.clipping.none`` (off).

        >>> opt = tf.optimizers.sgd(tf.Module(), learning_rate=0.1, grad_clip=1.0)
        >>> opt.set_clipping_type(tf.clipping.norm)
        >>> opt.clip_mode, opt.grad_clip
        ('norm', 1.0)
        >>> opt.set_clipping_type(tf.clipping.none)
        >>> opt.grad_clip
        0.0
        """
        if kind == clipping_none:
            self.grad_clip = 0.0
        else:
            self.clip_mode = check_mode(kind)

    # -- state ------------------------------------------------------------------------------------

    def assert_parameters(self) -> None:
        """Each state tensor has the shape of the parameter it belongs to.

        >>> def adam_state_shapes():
        ...     net = tf.Module()
        ...     net.w = tf.Parameter([-1], tf.float32)
        ...     opt = tf.optimizers.adam(net)
        ...     opt.initialize_input()                # runs assert_parameters()
        ...     return opt.m[0] + opt.net.w           # m[0] has w's shape
        >>> tf.compile(adam_state_shapes)(np.ones(3, np.float32), np.ones(3, np.float32),
        ...                               np.zeros(3, np.float32), np.zeros(1, np.float32)).tolist()
        [2.0, 2.0, 2.0]
        """
        for state in self.STATE:
            array = getattr(self, state)
            for k, (_, p) in enumerate(self.trained):
                array[k] = assert_tensor(array[k], p.value.shape, p.dtype.compute)

    def initialize_parameters(self, seed: int | None = None) -> None:
        """Outside a program: initialize the model's parameters that have no value yet (a
        trained or loaded model keeps its values), and start the state from zero.

        >>> net = tf.Module()
        >>> net.w = tf.Parameter([2], tf.float32)
        >>> opt = tf.optimizers.rmsprop(net)
        >>> opt.initialize_parameters(seed=0)
        >>> net.w.shape, opt.v[0].tolist()
        ((2,), [0.0, 0.0])
        """
        fill_parameters(self.net._walk(), seed, overwrite=False)
        self.reset_state()

    def reset_state(self) -> None:
        """Zero the optimizer state (moments, step count) for the model's current values.

        >>> net = tf.Module()
        >>> net.w = tf.Parameter([2], tf.float32)
        >>> net.w = tf.tensor(np.ones(2, np.float32))
        >>> opt = tf.optimizers.adam(net)
        >>> opt.reset_state()
        >>> opt.m[0].tolist(), opt.t.tolist()
        ([0.0, 0.0], [0.0])
        """
        for state in self.STATE:
            for k, (_, p) in enumerate(self.trained):
                value = None if p.value is None else tensor(np.zeros(p.value.shape, p.dtype.compute.numpy))
                getattr(self, state)._items[k].value = value
        if self.COUNTS_STEPS:
            self.t = tensor(np.zeros(1, np.float32))

    def named_parameters(self) -> list:
        """As for modules; outside a program, state that is still missing (the model's
        value was assigned after ``initialize_parameters``) starts at zero first.

        >>> net = tf.Module()
        >>> net.w = tf.Parameter([2], tf.float32)
        >>> net.w = tf.tensor(np.ones(2, np.float32))
        >>> [name for name, _ in tf.optimizers.adam(net).named_parameters()]
        ['net.w', 'm[0]', 'v[0]', 't']
        """
        held = [(k, name, p.value) for k, (name, p) in enumerate(self.trained) if isinstance(p.value, TensorMemory)]
        for state in self.STATE:
            for k, name, value in held:
                slot = getattr(self, state)._items[k]
                if slot.value is None:
                    slot.value = tensor(np.zeros(value.shape, value.dtype.compute.numpy))
                elif isinstance(slot.value, TensorMemory) and slot.value.shape != value.shape:
                    raise TensorFrostError(f"{type(self).__name__}: the state '{state}' of '{name}' has shape "
                                           f"{list(slot.value.shape)}, the parameter now {list(value.shape)}; "
                                           "call reset_state()")
        if held and self.COUNTS_STEPS and self._members["t"].value is None:
            self.t = tensor(np.zeros(1, np.float32))
        return super().named_parameters()

    # -- the step ----------------------------------------------------------------------------------

    def step(self, *args: object) -> Tensor:
        """Inside a program: one update of every trained parameter. ``step(X, Y, ...)``
        minimizes ``net.loss(X, Y, ...)``; ``step(loss)`` a loss you computed. Returns the
        loss. Afterwards ``parameters()`` are the new values to return.

        The seed's way, with a twin of the optimizer inside the program:

        >>> class Fit(tf.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.w = tf.Parameter([2], tf.float32)
        ...     def loss(self, target):
        ...         return tf.sum((self.w - target) ** 2.0)
        >>> def train_step():
        ...     target = tf.input([2], tf.float32)
        ...     opt = tf.optimizers.sgd(Fit(), learning_rate=0.25)
        ...     opt.initialize_input()
        ...     loss = opt.step(opt.net.loss(target))
        ...     return opt.parameters() + [loss]
        >>> train_step = tf.compile(train_step)
        >>> opt = tf.optimizers.sgd(Fit(), learning_rate=0.25)
        >>> opt.net.w = tf.tensor(np.array([1, 2], np.float32))
        >>> out = train_step(np.zeros(2, np.float32), opt)
        >>> opt.update_parameters(out[:-1])
        >>> opt.net.w.tolist(), out[-1].tolist()
        ([0.5, 1.0], [5.0])
        """
        if not args:
            raise TensorFrostError(f"{type(self).__name__}.step: pass the loss, or the inputs of net.loss")
        loss = args[0] if len(args) == 1 else self.net.loss(*args)
        if isinstance(loss, Tensor) and any(static_value(d) != 1 for d in loss.node.shape):
            raise TraceError(f"{type(self).__name__}.step(x): one argument is the loss, a scalar, but this "
                             f"tensor has shape {describe_shape(loss.node.shape)}; for a net.loss of one "
                             "input, compute it first: opt.step(net.loss(x))", user_location())
        for name, p in self.trained:
            if not isinstance(p.value, Tensor):
                raise TensorFrostError(f"{type(self).__name__}.step runs inside a tensor program, after "
                                       f"initialize_input() (parameter '{name}' is not a program input)")
        if not self.trained:
            return loss
        grads = [grad(loss, p.value) for _, p in self.trained]
        if isinstance(self.grad_clip, Tensor) or self.grad_clip > 0:
            grads = clip_gradients(grads, self.grad_clip, self.clip_mode)
        if self.COUNTS_STEPS:
            self.t = self.t + 1.0
        context = self.begin_step()
        lr = self.learning_rate
        for k, ((name, p), g) in enumerate(zip(self.trained, grads)):
            value = p.value
            new = value - self.direction(k, g, context) * lr
            decay = weight_decay(value, lr, self.l1, self.l2)
            new = new if decay is None else new - decay
            p.assign(new.astype(p.dtype) if new.dtype is not p.dtype else new, name)
        return loss

    def begin_step(self) -> object:
        """Per-step values a subclass needs, computed once before the parameters' updates
        and passed to ``direction``.

        >>> tf.optimizers.sgd(tf.Module()).begin_step() is None   # SGD needs none; Adam's bias corrections
        True
        """
        return None

    def direction(self, k: int, g: Tensor, context: object) -> Tensor:
        """The update of trained parameter ``k`` from its gradient ``g`` (before the
        learning rate); updates the parameter's state. Each optimizer defines it.

        >>> tf.compile(lambda: tf.optimizers.sgd(tf.Module()).direction(0, tf.input([2], tf.float32), None))(
        ...     np.array([1, -2], np.float32)).tolist()             # SGD's is the gradient itself
        [1.0, -2.0]
        """
        raise NotImplementedError(f"{type(self).__name__} does not define direction(k, g, context), the update "
                                  "of a parameter from its gradient")

    def compile_step(self, *args: Arg, loss: Callable | None = None, name: str | None = None) -> TrainStep:
        """Compile a training step that keeps the state in this optimizer. ``args`` are the
        data inputs' ``tf.Arg``; without ``loss`` the step minimizes ``net.loss(*inputs)``,
        else ``loss(net, *inputs)``. See ``TrainStep``.

        >>> net = tf.Module()
        >>> net.w = tf.Parameter([2], tf.float32)
        >>> net.w = tf.tensor(np.array([1, 2], np.float32))
        >>> opt = tf.optimizers.sgd(net, learning_rate=0.25)
        >>> step = opt.compile_step(tf.Arg([2], tf.float32), loss=lambda n, t: tf.sum((n.w - t) ** 2.0))
        >>> [step(np.zeros(2, np.float32)).item() for _ in range(3)]    # w halves each step
        [5.0, 1.25, 0.3125]
        """
        return TrainStep(self, args, loss=loss, name=name)


class SGD(Optimizer):
    """Stochastic gradient descent: ``p -= learning_rate * grad``.

    >>> class Fit(tf.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.w = tf.Parameter([2], tf.float32)
    ...     def loss(self, target):
    ...         return tf.sum((self.w - target) ** 2.0)
    >>> model = Fit()
    >>> model.w = tf.tensor(np.array([1, 2], np.float32))
    >>> step = tf.optimizers.SGD(model, learning_rate=0.25).compile_step(tf.Arg([2], tf.float32))
    >>> _ = step(np.zeros(2, np.float32))
    >>> model.w.tolist()                        # w - 0.25 * 2w
    [0.5, 1.0]
    """

    def direction(self, k, g, context):
        return g


class Adam(Optimizer):
    """Adam (Kingma and Ba), with bias correction, as ``torch.optim.Adam``::

        t += 1;  m = beta1 m + (1 - beta1) g;  v = beta2 v + (1 - beta2) g^2
        p -= lr * (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + epsilon)

    >>> class Fit(tf.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.w = tf.Parameter([2], tf.float32)
    ...     def loss(self, target):
    ...         return tf.sum((self.w - target) ** 2.0)
    >>> model = Fit()
    >>> model.w = tf.tensor(np.array([1, 2], np.float32))
    >>> opt = tf.optimizers.Adam(model, learning_rate=0.25)
    >>> step = opt.compile_step(tf.Arg([2], tf.float32))
    >>> _ = step(np.zeros(2, np.float32))
    >>> np.round(model.w.numpy, 4)              # the first step is lr * sign(grad)
    array([0.75, 1.75], dtype=float32)
    >>> opt.m[0].tolist(), opt.t.tolist()       # (1 - beta1) * grad, one step
    ([0.2..., 0.4...], [1.0])
    """

    STATE = ("m", "v")
    COUNTS_STEPS = True

    def __init__(self, net: Module, learning_rate: float | Tensor = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 grad_clip: float | Tensor = 0.0, **options: object):
        super().__init__(net, learning_rate, grad_clip, **options)
        self.beta1, self.beta2 = float(beta1), float(beta2)

    def begin_step(self):
        t = self.t[0]
        return 1.0 / (1.0 - self.beta1 ** t), 1.0 / (1.0 - self.beta2 ** t)

    def direction(self, k, g, context):
        m = self.m[k] * self.beta1 + g * (1.0 - self.beta1)
        v = self.v[k] * self.beta2 + g * g * (1.0 - self.beta2)
        self.m[k], self.v[k] = m, v
        first, second = context
        return m * first / (sqrt(v * second) + self.epsilon)


class RMSProp(Optimizer):
    """RMSProp: ``v = decay v + (1 - decay) g^2;  p -= lr * g / (sqrt(v) + epsilon)``.

    >>> class Fit(tf.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.w = tf.Parameter([2], tf.float32)
    ...     def loss(self, target):
    ...         return tf.sum((self.w - target) ** 2.0)
    >>> model = Fit()
    >>> model.w = tf.tensor(np.array([1, 2], np.float32))
    >>> opt = tf.optimizers.RMSProp(model, learning_rate=0.25)
    >>> _ = opt.compile_step(tf.Arg([2], tf.float32))(np.zeros(2, np.float32))
    >>> grad = np.array([2, 4], np.float32)    # 2 w
    >>> v = 0.1 * grad ** 2
    >>> np.allclose(model.w.numpy, [1, 2] - 0.25 * grad / np.sqrt(v), rtol=1e-6)
    True
    """

    STATE = ("v",)

    def __init__(self, net: Module, learning_rate: float | Tensor = 0.001, decay: float = 0.9,
                 grad_clip: float | Tensor = 0.0, **options: object):
        super().__init__(net, learning_rate, grad_clip, **options)
        self.decay = float(decay)

    def direction(self, k, g, context):
        v = self.v[k] * self.decay + g * g * (1.0 - self.decay)
        self.v[k] = v
        return g / (sqrt(v) + self.epsilon)


def _keywords(args: tuple, options: dict, ours: tuple, upstreams: tuple) -> dict:
    """Positional hyperparameters as keywords: in our order, or in upstream 0.7's, where the
    regularizer type comes second (``adam(net, tf.regularizers.l2, 0.001, ...)``)."""
    names = ours
    if args and isinstance(args[0], str):
        options["reg_type"], args, names = args[0], args[1:], upstreams
    if len(args) > len(names):
        raise TensorFrostError(f"too many positional arguments ({len(args)}); the hyperparameters are "
                               f"{', '.join(names)}")
    for name, value in zip(names, args):
        if name in options:
            raise TensorFrostError(f"{name} given twice (by position and by keyword)")
        options[name] = value
    return options


def sgd(net: Module, *args: float, **options: object) -> SGD:
    """Stochastic gradient descent on ``net``'s parameters (the seed's defaults)::

        opt = tf.optimizers.sgd(model, learning_rate=0.1, grad_clip=1.0)

    Positional hyperparameters: ``learning_rate=0.001, grad_clip=0.0``. ``options``:
    ``clip_mode`` ("value", "norm", "global_norm"), ``l1``, ``l2`` (decoupled weight decay),
    ``epsilon``; upstream 0.7's ``reg_type`` (``tf.regularizers.l1/l2``), ``reg`` and ``clip``
    also work. ``learning_rate`` may be a tensor inside a program.

    >>> class Fit(tf.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.w = tf.Parameter([2], tf.float32)
    ...     def loss(self, target):
    ...         return tf.sum((self.w - target) ** 2.0)
    >>> model = Fit()
    >>> model.w = tf.tensor(np.array([1, 2], np.float32))
    >>> opt = tf.optimizers.sgd(model, 0.25)   # learning_rate, positionally as upstream
    >>> step = opt.compile_step(tf.Arg([2], tf.float32))
    >>> [step(np.zeros(2, np.float32)).item() for _ in range(2)]
    [5.0, 1.25]
    >>> model.w.tolist()
    [0.25, 0.5]
    """
    return SGD(net, **_keywords(args, options, ("learning_rate", "grad_clip"), ("learning_rate", "clip", "reg")))


def adam(net: Module, *args: float, **options: object) -> Adam:
    """Adam on ``net``'s parameters (the seed's defaults; state ``m``, ``v`` and step ``t``)::

        opt = tf.optimizers.adam(model, learning_rate=0.001, beta1=0.9, beta2=0.999)

    Positional: ``learning_rate=0.001, beta1=0.9, beta2=0.999, grad_clip=0.0``; ``options``
    as for ``sgd`` (``epsilon`` defaults to 1e-8).

    >>> class Fit(tf.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.w = tf.Parameter([2], tf.float32)
    ...     def loss(self, target):
    ...         return tf.sum((self.w - target) ** 2.0)
    >>> model = Fit()
    >>> model.w = tf.tensor(np.array([1, 2], np.float32))
    >>> opt = tf.optimizers.adam(model, learning_rate=0.5, l2=0.1)   # with weight decay
    >>> _ = opt.compile_step(tf.Arg([2], tf.float32))(np.zeros(2, np.float32))
    >>> np.round(model.w.numpy, 4)            # w - lr * sign(grad) - lr * l2 * w
    array([0.45, 1.4 ], dtype=float32)
    """
    return Adam(net, **_keywords(args, options, ("learning_rate", "beta1", "beta2", "grad_clip"),
                                 ("learning_rate", "beta1", "beta2", "clip", "reg")))


def rmsprop(net: Module, *args: float, **options: object) -> RMSProp:
    """RMSProp on ``net``'s parameters (the seed's defaults; state ``v``)::

        opt = tf.optimizers.rmsprop(model, learning_rate=0.001, decay=0.9)

    Positional: ``learning_rate=0.001, decay=0.9, grad_clip=0.0``; ``options`` as for ``sgd``.

    >>> class Fit(tf.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.w = tf.Parameter([2], tf.float32)
    ...     def loss(self, target):
    ...         return tf.sum((self.w - target) ** 2.0)
    >>> model = Fit()
    >>> model.w = tf.tensor(np.array([1, 2], np.float32))
    >>> opt = tf.optimizers.rmsprop(model, learning_rate=0.01, decay=0.5)
    >>> step = opt.compile_step(tf.Arg([2], tf.float32))
    >>> losses = [step(np.zeros(2, np.float32)).item() for _ in range(50)]
    >>> losses[-1] < losses[0]
    True
    """
    return RMSProp(net, **_keywords(args, options, ("learning_rate", "decay", "grad_clip"),
                                    ("learning_rate", "decay", "clip", "reg")))


class TrainStep(ModuleProgram):
    """A compiled training step bound to its optimizer (``opt.compile_step(...)``). Each
    call passes the data, the optimizer's current ``learning_rate`` (so it can change
    between calls without recompiling; the other hyperparameters are compiled in) and its
    model and state; it stores the new values in the optimizer and returns the loss.
    Parameters of static shape that have no value yet get their random initial values on
    the first call (as ``opt.initialize_parameters()`` would give them)::

        step = opt.compile_step(tf.Arg([-1, 64], tf.float32), tf.Arg([-1, 10], tf.float32))
        for epoch in range(10):
            opt.learning_rate = 0.001 * 0.9 ** epoch
            loss = step(X, Y)                # a tf.TensorMemory: loss.numpy[0]

    >>> class Fit(tf.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.w = tf.Parameter([2], tf.float32)
    ...     def loss(self, target):
    ...         return tf.sum((self.w - target) ** 2.0)
    >>> model = Fit()
    >>> model.w = tf.tensor(np.array([1, 2], np.float32))
    >>> opt = tf.optimizers.sgd(model, learning_rate=0.25)
    >>> step = opt.compile_step(tf.Arg([2], tf.float32))
    >>> step(np.zeros(2, np.float32)).item()
    5.0
    >>> opt.learning_rate = 0.5                 # no recompile: passed on each call
    >>> step(np.zeros(2, np.float32)).item(), model.w.tolist()
    (1.25, [0.0, 0.0])
    """

    def __init__(self, opt: Optimizer, args, loss=None, name: str | None = None):
        def train_step(o, learning_rate, *inputs):
            saved = o.learning_rate
            o.learning_rate = learning_rate[0]
            try:
                value = o.step(loss(o.net, *inputs) if loss is not None else o.net.loss(*inputs))
            finally:
                o.learning_rate = saved
            return [*o.parameters(), value]

        names = ["learning_rate", *parameter_names(loss or opt.net.loss, len(args), skip=1 if loss else 0)]
        label = name or f"{type(opt.net).__name__}_{type(opt).__name__}_step"
        super().__init__(opt, train_step, (Arg([1], dt.float32), *args), name=label, names=names)
        self._rate = (None, None)
        self._params, self._version, self._last = [], None, []

    def __call__(self, *inputs: object) -> TensorMemory:
        """One training step on ``inputs``: the model and state are updated in the optimizer;
        returns the loss before the update.

        >>> net = tf.Module()
        >>> net.w = tf.Parameter([1], tf.float32)
        >>> net.w = tf.tensor(np.array([3], np.float32))
        >>> opt = tf.optimizers.sgd(net, learning_rate=0.5)
        >>> step = opt.compile_step(loss=lambda n: n.w * n.w)
        >>> step().tolist(), net.w.tolist()         # grad 2w: w - 0.5 * 2w = 0
        ([9.0], [0.0])
        """
        opt = self.module
        if self._rate[0] != opt.learning_rate:
            self._rate = (opt.learning_rate, tensor(np.array([opt.learning_rate], np.float32)))
        if self._version == structure_version():
            # The fast path: the parameters still hold what the last call stored (nothing to
            # check again), so pass them as they are and store the new values directly.
            values = [p.value for p in self._params]
            if len(values) == len(self._last) and all(a is b for a, b in zip(values, self._last)):
                out = self.program(self._rate[1], *inputs, *values)
                return self._store(out)
        fill_parameters(opt._walk(), None, overwrite=False)
        out = self.program(self._rate[1], *inputs, opt)
        opt.update_parameters(out[:-1])
        self._params, self._version = [p for _, p in opt._walk()], structure_version()
        return self._store(out)

    def _store(self, out):
        values = out[:-1]
        for param, value in zip(self._params, values):
            param.value = value
        self._last = values
        return out[-1]
