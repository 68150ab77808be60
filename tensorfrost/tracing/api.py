"""Tracing functions of the public API: inputs, constants, indices, control flow, scatters.

Each function builds nodes in the program being traced (see ``builder.current``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from ..ir import dtypes as dt
from ..ir.builder import current
from ..ir.dtypes import DType
from ..ir.errors import DTypeError, ShapeError, TraceError, user_location
from ..ir.node import Node, Scope
from ..ir.ops import DIM_ID, INPUT, INPUT_DIM, LOAD
from ..ir.shapes import describe_dim, describe_shape, dims_equal, static_value
from ..ir.widen import sets_in, widen_for_conditions
from .tensor import INTEGER_QUOTIENT, Tensor, apply, check_index_dtype, check_shape_list, node_of, provide

_INPUT_NAME = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?::[^=]*)?=\s*[\w.]*input\(")


def _dims(shape, what: str) -> tuple:
    builder = current()
    dims = check_shape_list(shape, what)
    for d in dims:
        if isinstance(d, float) or (isinstance(d, Tensor) and d.dtype.is_float):
            got = f"a {d.dtype!r} tensor" if isinstance(d, Tensor) else repr(d)
            raise ShapeError(f"{what}: a size must be an integer, got {got}; {INTEGER_QUOTIENT}", user_location())
    return tuple(builder.dim(d.node if isinstance(d, Tensor) else d) for d in dims)


def _require_top_level(what: str) -> None:
    builder = current()
    if builder.scope is not builder.program.root:
        raise TraceError(f"{what} must be called at the top level of the program, not inside "
                         "tf.loop or tf.if_cond", user_location())


# -- inputs ---------------------------------------------------------------------------------


def input(shape: Sequence[int | Tensor], dtype: DType = dt.float32, name: str | None = None) -> Tensor:  # noqa: A001
    """A tensor argument of the program. Arguments are passed in the order of these calls.

    ``-1`` leaves a dim free; an int or another tensor's dim constrains it, and the call
    checks it::

        A = tf.input([-1, -1], tf.float32)
        N, M = A.shape
        B = tf.input([M, -1], tf.float32)   # B.shape[0] must equal A.shape[1]

    >>> def double():
    ...     x = tf.input([-1], tf.float32)
    ...     return x * 2.0
    >>> tf.compile(double)(np.array([1.0, 2.5], np.float32)).numpy
    array([2., 5.], dtype=float32)
    """
    builder = current()
    _require_top_level("tf.input")
    dtype = dt.dtype_of(dtype)
    program = builder.program
    index = len(program.inputs)
    location = user_location()
    if name is None:
        match = _INPUT_NAME.match(location.line) if location else None
        name = match.group(1) if match else f"input{index}"
    declared = check_shape_list(shape, f"tf.input({name}) shape")
    node = builder.make("input", attrs={"index": index}, dtype=dtype, shape=(), name=name, location=location)
    program.inputs.append(node)
    program.input_names.append(name)
    dims = []
    for axis, want in enumerate(declared):
        actual = builder.make("input_dim", [node], attrs={"axis": axis}, dtype=dt.int32,
                              name=f"{name}_shape{axis}")
        if isinstance(want, int) and not isinstance(want, bool) and want == -1:
            dims.append(actual)
            continue
        expected = builder.dim(want.node if isinstance(want, Tensor) else want)
        message = (f"argument {index} ('{name}'): shape[{axis}] must be {{0}} "
                   f"({describe_dim(expected)}), got {{1}}")
        builder.require_equal(expected, actual, message, location)
        dims.append(expected)
    node.shape = tuple(dims)
    return Tensor(node)


# -- constants and indices -------------------------------------------------------------------


def const(value: float | bool, shape: Sequence[int | Tensor] = (), dtype: DType | None = None) -> Tensor:
    """A constant, broadcast to ``shape`` (default: a scalar). It is also a variable:
    ``x.val = ...`` may give it a new value, and a wider shape (see ``assign``).

    >>> tf.compile(lambda: tf.const(2.5, [3]))().numpy
    array([2.5, 2.5, 2.5], dtype=float32)
    """
    if not isinstance(value, (int, float, bool)) and not hasattr(value, "dtype"):
        raise DTypeError(f"tf.const: expected a Python number, got {type(value).__name__}", user_location())
    dtype = dt.dtype_of(dtype) if dtype is not None else dt.scalar_dtype(value)
    builder = current()
    return Tensor(builder.variables.declare(builder.const(value, dtype, _dims(shape, "tf.const shape"))))


def zeros(shape: Sequence[int | Tensor], dtype: DType = dt.float32) -> Tensor:
    """A tensor of zeros of the given shape.

    >>> tf.compile(lambda: tf.zeros([2, 3], tf.int32))().numpy
    array([[0, 0, 0],
           [0, 0, 0]], dtype=int32)
    """
    return const(0, shape, dtype)


def ones(shape: Sequence[int | Tensor], dtype: DType = dt.float32) -> Tensor:
    """A tensor of ones of the given shape.

    >>> tf.compile(lambda: tf.ones([3]))().numpy
    array([1., 1., 1.], dtype=float32)
    """
    return const(1, shape, dtype)


def buffer(shape: Sequence[int | Tensor], dtype: DType = dt.float32) -> Tensor:
    """A tensor to be written by index (``B[i, j] = ...``). It starts as zeros.

    >>> def squares():
    ...     b = tf.buffer([4], tf.int32)
    ...     i, = tf.indices([4])
    ...     b[i] = i * i
    ...     return b
    >>> tf.compile(squares)().numpy
    array([0, 1, 4, 9], dtype=int32)
    """
    return const(0, shape, dtype)


def indices(shape: Sequence[int | Tensor]) -> tuple[Tensor, ...]:
    """For each axis of ``shape``, the index of every element along it::

        i, j = tf.indices([N, M])   # i[a, b] == a, j[a, b] == b

    >>> def grid():
    ...     i, j = tf.indices([2, 3])
    ...     return i * 10 + j
    >>> tf.compile(grid)().numpy
    array([[ 0,  1,  2],
           [10, 11, 12]], dtype=int32)
    """
    dims = _dims(shape, "tf.indices shape")
    builder = current()
    return tuple(Tensor(builder.make("dim_id", attrs={"axis": a}, dtype=dt.int32, shape=dims))
                 for a in range(len(dims)))


def index(axis: int, shape: Sequence[int | Tensor]) -> Tensor:
    """The index along one axis of ``shape`` (one entry of ``tf.indices``).

    >>> tf.compile(lambda: tf.index(1, [2, 3]))().numpy
    array([[0, 1, 2],
           [0, 1, 2]], dtype=int32)
    """
    dims = _dims(shape, "tf.index shape")
    if not isinstance(axis, int) or not 0 <= axis < len(dims):
        raise ShapeError(f"tf.index: axis {axis!r} is out of range for a shape of rank {len(dims)}",
                         user_location())
    return Tensor(current().make("dim_id", attrs={"axis": axis}, dtype=dt.int32, shape=dims))


def index_grid(begin: Sequence[int | Tensor], end: Sequence[int | Tensor],
               step: Sequence[int | Tensor] | None = None) -> tuple[Tensor, ...]:
    """Index tensors over the box ``begin <= index < end`` (with ``step``), one per axis::

        p, k = tf.index_grid([0, i + 1], [m, n])   # like np.meshgrid(..., indexing='ij')

    >>> def box():
    ...     p, k = tf.index_grid([0, 1], [2, 7], [1, 2])
    ...     return p * 10 + k
    >>> tf.compile(box)().numpy
    array([[ 1,  3,  5],
           [11, 13, 15]], dtype=int32)
    """
    begin, end = check_shape_list(begin, "index_grid begin"), check_shape_list(end, "index_grid end")
    step = [1] * len(begin) if step is None else check_shape_list(step, "index_grid step")
    if not len(begin) == len(end) == len(step):
        raise ShapeError(f"tf.index_grid: begin, end and step must have the same length, got "
                         f"{len(begin)}, {len(end)} and {len(step)}", user_location())
    sizes = []
    for b, e, s in zip(begin, end, step):
        count = (Tensor(node_of(e)) - b + (s - 1)) // s if not _is_one(s) else Tensor(node_of(e)) - b
        sizes.append(_max0(count))
    grid = indices(sizes)
    return tuple(g * s + b if not _is_one(s) else g + b for g, b, s in zip(grid, begin, step))


def _is_one(value) -> bool:
    return isinstance(value, int) and value == 1


def _max0(t):
    return apply("max", t, 0) if isinstance(t, Tensor) else max(t, 0)


# -- variables --------------------------------------------------------------------------------


def assign(target: Tensor, value) -> None:
    """``target.val = value``: replace the whole value of ``target`` from here on.

    A variable made with ``tf.const``/``tf.zeros``/``tf.copy`` takes the broadcast shape of
    the values assigned to it and of the per-element conditions it is assigned under::

        count = tf.const(0)        # becomes per-element: set under a per-element if
        with tf.if_cond(x > 0.0):
            count.val = count + 1
    """
    builder = current()
    node = target.node
    if node.op in (INPUT_DIM, DIM_ID):
        raise TraceError(f"cannot assign to {node.op.name} (a shape or index value)", user_location())
    value_node = builder.cast(node_of(value, node.dtype), node.dtype)
    shape = builder.broadcast([node.shape, value_node.shape], "assignment (.val / .set)")
    if len(shape) != node.rank or not all(dims_equal(a, b) for a, b in zip(shape, node.shape)):
        builder.variables.widen(node, shape, user_location())
    update = builder.make("set", [node, value_node], shape=node.shape)
    widen_for_conditions(builder, [update])


# -- control flow -----------------------------------------------------------------------------


class _ScopeGuard:
    """Context manager that makes a control node's body the insertion point."""

    def __init__(self, node: Node, stack_name: str, result=None):
        self.node = node
        self.stack_name = stack_name
        self.result = result
        self.builder = current()
        self._inside = None

    def __enter__(self):
        self._inside = self.builder.inside(self.node.body)
        self._inside.__enter__()
        getattr(self.builder, self.stack_name).append(self.node)
        return self.result

    def __exit__(self, *exc):
        getattr(self.builder, self.stack_name).pop()
        self._inside.__exit__(*exc)
        return False


def uniform(node: Node) -> Node:
    """A value of shape [1] (or [1, 1], ...) as the one scalar it holds: ``tf.max(x)`` of a
    1-D ``x`` or a [1] input used as a condition or loop bound is the same for every
    element, so it is host control flow, not per-element control flow."""
    if node.rank == 0 or any(static_value(d) != 1 for d in node.shape):
        return node
    zero = current().const(0, dt.int32)
    return current().make("load", [node] + [zero] * node.rank, dtype=node.dtype, shape=())


def _scalar_int(value, what: str) -> Node:
    node = uniform(node_of(value, dt.int32))
    if not node.dtype.is_integer:
        raise DTypeError(f"{what}: expected an integer, got {node.dtype!r}; {INTEGER_QUOTIENT}", user_location())
    return current().cast(node, dt.int32)


def loop(*args: int | Tensor | Callable[[Tensor], None], checkpoint: int | None = None) -> _ScopeGuard | None:
    """A loop in the program: ``loop(end)``, ``loop(begin, end)``, ``loop(begin, end, step)``.

    Use it as a context manager whose value is the loop counter, or pass a function of the
    counter (first or last argument)::

        with tf.loop(10) as k:
            x.val = x + k

        tf.loop(0, 128, 1, body)

    ``checkpoint=k`` bounds the memory of gradients through the loop: reverse mode keeps the
    state of every k-th trip and recomputes the trips between them in the backward pass
    (O(T / k + k) states instead of T; k near sqrt(T) is least). It changes nothing else.

    >>> def triangle():
    ...     total = tf.const(0)
    ...     with tf.loop(1, 5) as k:
    ...         total.val = total + k
    ...     return total
    >>> tf.compile(triangle)().numpy
    array(10, dtype=int32)
    """
    body_fn = None
    if args and callable(args[0]) and not isinstance(args[0], Tensor):
        body_fn, args = args[0], args[1:]
    elif args and callable(args[-1]) and not isinstance(args[-1], Tensor):
        body_fn, args = args[-1], args[:-1]
    if not 1 <= len(args) <= 3:
        raise TraceError(f"tf.loop takes (end), (begin, end) or (begin, end, step), got {len(args)} "
                         "bounds", user_location())
    if checkpoint is not None and (type(checkpoint) is not int or checkpoint < 1):
        raise TraceError(f"tf.loop: checkpoint must be a positive int (the trips between kept states), got "
                         f"{checkpoint!r}", user_location())
    begin, end, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) == 3 else 1)
    if isinstance(step, int) and step == 0:
        raise TraceError("tf.loop: step must not be 0", user_location())
    builder = current()
    bounds = [_scalar_int(b, f"tf.loop {w}") for b, w in zip((begin, end, step), ("begin", "end", "step"))]
    # Bounds that differ per element make the counter per element.
    shape = builder.broadcast([b.shape for b in bounds], "tf.loop bounds")
    node = builder.make("loop", bounds, dtype=dt.int32, shape=shape,
                        attrs={"checkpoint": checkpoint} if checkpoint and checkpoint > 1 else None)
    node.body = Scope(node)
    guard = _ScopeGuard(node, "open_loops", Tensor(node))
    if body_fn is None:
        return guard
    with guard as counter:
        body_fn(counter)
    return None


def checkpointed(iterable: Iterable, every: int) -> Iterable:
    """``for t in tf.checkpointed(range(T), every=k):`` in a kernel program is the loop
    ``tf.loop(..., checkpoint=k)``: reverse mode keeps every k-th state and recomputes the
    rest. Elsewhere (a loop Python runs, unrolled into the program) it gives ``iterable``
    back: there is no loop to checkpoint.

    >>> @tf.kernel_program
    ... def slope(x: tf.Arg([-1], tf.float32)):
    ...     y = x
    ...     for t in tf.checkpointed(range(8), every=3):
    ...         y = y * 0.5 + x
    ...     return tf.grad(tf.sum(y), x)
    >>> slope(np.array([1.0, 2.0], np.float32)).numpy
    array([1.9961, 1.9961], dtype=float32)
    """
    if type(every) is not int or every < 1:
        raise TraceError(f"tf.checkpointed: every must be a positive int (the trips between kept states), got "
                         f"{every!r}", user_location())
    return iterable


def if_cond(condition: Tensor | bool, true_body: Callable[[], None] | None = None,
            false_body: Callable[[], None] | None = None) -> _ScopeGuard | None:
    """A conditional block: the body runs where ``condition`` holds::

        with tf.if_cond(z > 256.0):
            tf.break_loop()

    or, as upstream's function form, ``tf.if_cond(cond, true_body)`` and
    ``tf.if_cond(cond, true_body, false_body)`` call the functions (no arguments) in the
    branches; the condition is evaluated once, before either runs.

    >>> def relu():
    ...     x = tf.input([-1], tf.float32)
    ...     y = tf.zeros(x.shape)
    ...     with tf.if_cond(x > 0.0):
    ...         y.val = x
    ...     return y
    >>> tf.compile(relu)(np.array([-1.0, 2.0], np.float32)).numpy
    array([0., 2.], dtype=float32)
    """
    builder = current()
    cond = uniform(node_of(condition))
    if not cond.dtype.is_bool:
        cond = builder.elementwise("ne", [cond, builder.const(0, cond.dtype)])
    for body, what in ((true_body, "true_body"), (false_body, "false_body")):
        if body is not None and not callable(body):
            raise TraceError(f"tf.if_cond: {what} must be a function of no arguments, got "
                             f"{type(body).__name__}", user_location())
    if true_body is None:
        if false_body is not None:
            raise TraceError("tf.if_cond: false_body needs a true_body", user_location())
        return _conditional(cond)
    otherwise = builder.elementwise("not", [cond]) if false_body is not None else None
    with _conditional(cond):
        true_body()
    if otherwise is not None:
        with _conditional(otherwise):
            false_body()
    return None


def _conditional(cond: Node) -> _ScopeGuard:
    node = current().make("if", [cond], shape=())
    node.body = Scope(node)
    return _ScopeGuard(node, "open_conditions")


def _jump(op_name: str, api: str) -> None:
    builder = current()
    if not builder.open_loops:
        raise TraceError(f"{api}() must be called inside a tf.loop", user_location())
    builder.make(op_name, shape=())
    # Elements may now leave the loop at different times: what it sets is per element.
    widen_for_conditions(builder, sets_in(builder.open_loops[-1], builder.program))


def break_loop() -> None:
    """Leave the innermost tf.loop (for the elements where this is reached).

    >>> def first_power_over_100():
    ...     x = tf.input([-1], tf.float32)
    ...     y = tf.copy(x)
    ...     with tf.loop(20):
    ...         with tf.if_cond(y > 100.0):
    ...             tf.break_loop()
    ...         y.val = y * x
    ...     return y
    >>> tf.compile(first_power_over_100)(np.array([2.0, 3.0, 10.0], np.float32)).numpy
    array([ 128.,  243., 1000.], dtype=float32)
    """
    _jump("break", "tf.break_loop")


def continue_loop() -> None:
    """Skip to the next iteration of the innermost tf.loop.

    >>> def odd_sum():
    ...     total = tf.const(0)
    ...     with tf.loop(10) as k:
    ...         with tf.if_cond(k % 2 == 0):
    ...             tf.continue_loop()
    ...         total.val = total + k
    ...     return total
    >>> tf.compile(odd_sum)().numpy
    array(25, dtype=int32)
    """
    _jump("continue", "tf.continue_loop")


# -- scatters and assertions -------------------------------------------------------------------


def _scatter(op_name: str, target, value) -> None:
    builder = current()
    if not isinstance(target, Tensor) or target.node.op is not LOAD:
        raise TraceError(f"{op_name}: the first argument must be an indexed tensor such as "
                         "C[i, j]", user_location())
    load = target.node
    memory, idx = load.args[0], load.args[1:]
    if op_name in ("scatter_and", "scatter_or", "scatter_xor") and memory.dtype.is_float:
        raise DTypeError(f"{op_name}: needs an int, uint or bool tensor, got {memory.dtype!r}", user_location())
    value_node = builder.cast(node_of(value, memory.dtype), memory.dtype)
    shape = builder.broadcast([load.shape, value_node.shape], op_name)
    builder.make(op_name, [memory, value_node, *idx], shape=shape)


_SCATTER_EXAMPLE = """

    >>> def combine():
    ...     key = tf.input([-1], tf.int32)
    ...     value = tf.input(key.shape, tf.int32)
    ...     out = tf.const({start}, [2])
    ...     tf.{name}(out[key], value)
    ...     return out
    >>> tf.compile(combine)(np.array([0, 0, 1, 1], np.int32), np.array({values}, np.int32)).numpy
    array({expected}, dtype=int32)
"""


def _scatter_function(name: str, op_name: str, summary: str, example: tuple[int, str, str]):
    """A public scatter; its docstring's example starts from ``example[0]`` in both places
    and scatters ``example[1]`` (keys 0, 0, 1, 1), which gives ``example[2]``."""
    def fn(target: Tensor, value: Tensor | float) -> None:
        _scatter(op_name, target, value)
    fn.__name__ = fn.__qualname__ = name
    start, values, expected = example
    fn.__doc__ = summary + _SCATTER_EXAMPLE.format(name=name, start=start, values=values, expected=expected)
    return fn


scatterAdd = _scatter_function(  # noqa: N816 (the seed's names)
    "scatterAdd", "scatter_add", "Atomically add ``value`` into ``target``, an indexed tensor: "
    "``tf.scatterAdd(C[i], x)``.", (0, "[1, 2, 3, 4]", "[3, 7]"))
scatterMin = _scatter_function(  # noqa: N816
    "scatterMin", "scatter_min", "Atomically take the minimum of ``target[...]`` and ``value``.",
    (100, "[5, 3, 7, 9]", "[3, 7]"))
scatterMax = _scatter_function(  # noqa: N816
    "scatterMax", "scatter_max", "Atomically take the maximum of ``target[...]`` and ``value``.",
    (0, "[5, 3, 7, 9]", "[5, 9]"))
scatterAnd = _scatter_function(  # noqa: N816
    "scatterAnd", "scatter_and", "Atomically bitwise-and ``value`` into ``target[...]``.",
    (15, "[14, 7, 13, 11]", "[6, 9]"))
scatterOr = _scatter_function(  # noqa: N816
    "scatterOr", "scatter_or", "Atomically bitwise-or ``value`` into ``target[...]``.",
    (0, "[1, 2, 4, 8]", "[ 3, 12]"))
scatterXor = _scatter_function(  # noqa: N816
    "scatterXor", "scatter_xor", "Atomically bitwise-xor ``value`` into ``target[...]``.",
    (0, "[3, 5, 6, 6]", "[6, 0]"))


def assert_tensor(tensor: Tensor, shape: Sequence[int | Tensor], dtype: DType | None = None) -> Tensor:
    """Declare that ``tensor`` has ``shape`` (and ``dtype``); checked when the program runs.

    For an input this also binds its free dims to ``shape``, so later operations know the
    shapes agree (a Module's ``assert_parameters`` uses it).

    >>> def add():
    ...     a = tf.input([-1], tf.float32)
    ...     b = tf.input([-1], tf.float32)
    ...     tf.assert_tensor(b, a.shape)
    ...     return a + b
    >>> f = tf.compile(add)
    >>> f(np.ones(2, np.float32), np.ones(2, np.float32)).numpy
    array([2., 2.], dtype=float32)
    >>> f(np.ones(2, np.float32), np.ones(3, np.float32))
    Traceback (most recent call last):
    tensorfrost.ir.errors.RuntimeCheckError: 'b': shape[0] must be 2 (a.shape[0]), got 3 ...
    """
    builder = current()
    node = tensor.node
    if dtype is not None and dt.dtype_of(dtype) is not node.dtype:
        raise DTypeError(f"tf.assert_tensor: expected {dt.dtype_of(dtype)!r}, got {node.dtype!r}", user_location())
    dims = _dims(shape, "tf.assert_tensor shape")
    if len(dims) != node.rank:
        raise ShapeError(f"tf.assert_tensor: expected rank {len(dims)}, got rank {node.rank} "
                         f"(shape {describe_shape(node.shape)})", user_location())
    new_shape = list(node.shape)
    for axis, (have, want) in enumerate(zip(node.shape, dims)):
        if dims_equal(have, want):
            continue
        if static_value(have) is not None and static_value(want) is not None:
            raise ShapeError(f"tf.assert_tensor: shape[{axis}] is {static_value(have)}, expected "
                             f"{static_value(want)}", user_location())
        label = node.name or node.label
        message = f"'{label}': shape[{axis}] must be {{0}} ({describe_dim(want)}), got {{1}}"
        builder.require_equal(want, have, message)
        if node.op is INPUT and have.op is INPUT_DIM and have.args[0] is node:
            new_shape[axis] = want
    node.shape = tuple(new_shape)
    return tensor


def grad(loss: Tensor, wrt: Tensor) -> Tensor:
    """The gradient of ``sum(loss)`` with respect to ``wrt``, a tensor of the program::

        loss = tf.mean((y - x @ W) ** 2)
        dW = tf.grad(loss, W)

    A loss that is not a scalar is seeded with ones (the gradient of its sum). Several
    ``tf.grad`` calls on one loss share one backward pass. Gradients flow through loops,
    conditions, indexing and scatters; ``x.detach_grad()`` stops them.

    >>> def slope():
    ...     x = tf.input([-1], tf.float32)
    ...     return tf.grad(tf.sum(x * x * x), x)   # 3 x^2
    >>> tf.compile(slope)(np.array([1.0, 2.0, -3.0], np.float32)).numpy
    array([ 3., 12., 27.], dtype=float32)
    """
    builder = current()
    loss_node, wrt_node = node_of(loss), node_of(wrt)
    for node, what in ((loss_node, "loss"), (wrt_node, "wrt")):
        if not node.dtype.is_float:
            raise DTypeError(f"tf.grad: {what} must be a float tensor, got {node.dtype!r}", user_location())
    return Tensor(builder.make("grad", [loss_node, wrt_node], dtype=wrt_node.dtype, shape=wrt_node.shape))


def region_begin(name: str) -> None:
    """Open a named debug region (a GL debug group on OpenGL; nothing on the CPU).

    >>> def scaled():
    ...     x = tf.input([-1], tf.float32)
    ...     tf.region_begin("scale")
    ...     y = x * 3.0
    ...     tf.region_end("scale")
    ...     return y
    >>> tf.compile(scaled)(np.array([1.0, 2.0], np.float32)).numpy
    array([3., 6.], dtype=float32)
    """
    current().make("region", attrs={"name": str(name), "begin": True})


def region_end(name: str) -> None:
    """Close the debug region opened by ``region_begin(name)``; see its example.

    >>> def scaled():
    ...     x = tf.input([-1], tf.float32)
    ...     tf.region_begin("scale")
    ...     y = x * 3.0
    ...     tf.region_end("scale")
    ...     return y
    >>> tf.compile(scaled)(np.array([1.0, 2.0], np.float32)).numpy
    array([3., 6.], dtype=float32)
    """
    current().make("region", attrs={"name": str(name), "begin": False})


def scalar_index(value, what: str) -> Node:
    """An index operand: a Python int or an integer tensor."""
    node = node_of(value, dt.int32)
    check_index_dtype(node, what)
    return node


provide(indices=indices, assign=assign)
