"""The small runtime that rewritten kernel programs call, on top of the tracer.

Each control statement becomes a region: a context manager that decides at trace time
whether its condition is a tensor (then it opens ``tf.loop`` / ``tf.if_cond`` scopes) or
a Python value (then the code runs as plain Python). The rewrite of::

    for k in range(n):
        x = x * 2

is::

    with _tf_f.loop(carry=('x',), values=(x,)) as (_tf_l1, x):
        for k in _tf_l1.range(n):
            x = _tf_f.assign('x', x * 2)

Carried names become *variables*: nodes mutated by ``set`` (what ``x.val = ...`` builds),
made from the name's value when the region opens (a constant for a Python number, the
tensor itself for a fresh constant, else a copy). While a region is open, assigning to a
carried name sets its variable. Python semantics are kept when another Python reference
holds a variable's handle (``old = x`` before ``x = x * 2``): the other reference is moved
to a copy of the old value first (references are counted, see ``_ONE``).
"""

from __future__ import annotations

import builtins
import operator
import sys
import weakref

from ..ir import dtypes as dt
from ..ir.builder import current
from ..ir.errors import user_location
from ..ir.node import operands
from ..ir.ops import CONST
from ..tracing import api as tracing
from ..tracing.mathfn import select as tf_select
from ..tracing.tensor import INTEGER_QUOTIENT, Tensor, apply, is_scalar
from .errors import KernelProgramError
from .semantics import BlockFlag, assert_, augmented, builtin_for, formatted, join_text, mod, print_, truediv  # noqa: F401 (called by rewritten code)

# The trips a `while` loop in the IR may make (the end of the counted loop that runs it):
# one whose condition still holds after them raises an error naming its line when the
# program runs (a flag its last trip sets, which the host checks after the loop). Tests lower it.
_FOREVER = 2 ** 31 - 1


# -- counting the Python references to a value ---------------------------------------------------


def _refs(obj) -> int:
    return sys.getrefcount(obj)


# One outside reference (the list slot), passed the same way as every value we measure: so
# _refs(handle) - known holders - _ONE is the number of references nobody accounted for.
_PROBE = [object()]
_ONE = _refs(_PROBE[0])


def _count(values: tuple, obj) -> int:
    return sum(1 for v in values if v is obj)


# -- variables ------------------------------------------------------------------------------------


class _Var:
    """A carried name's variable node, and a weak reference to the handle its name holds."""

    __slots__ = ("node", "ref", "pending")

    def __init__(self, node, handle, pending=False):
        self.node = node
        self.ref = weakref.ref(handle) if handle is not None else lambda: None
        self.pending = pending  # created before an if whose branches give it its type

    def handle(self) -> Tensor:
        found = self.ref()
        if found is None:
            found = Tensor(self.node)
            self.ref = weakref.ref(found)
        return found


class Undefined:
    """The value of a carried name before its first assignment (Python would raise
    UnboundLocalError when reading it)."""

    __slots__ = ("name",)
    is_unassigned = True  # how the tracer recognises one among a tensor op's operands

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<unassigned variable {self.name}>"

    def fail(self, *args, **kwargs):
        raise KernelProgramError(f"variable '{self.name}' is used before it is assigned (on some path "
                                 "that reaches here it has no value)", user_location())


for _name in ("bool", "add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv", "floordiv",
              "rfloordiv", "mod", "rmod", "pow", "rpow", "neg", "pos", "abs", "invert", "and", "rand", "or",
              "ror", "xor", "rxor", "lt", "le", "gt", "ge", "getitem", "setitem", "iter", "len", "call",
              "index", "int", "float", "getattr", "matmul", "rmatmul"):
    setattr(Undefined, f"__{_name}__", Undefined.fail)


class Frame:
    """The state of one call of a rewritten function: its names that are variables now."""

    def __init__(self):
        self.builder = current()
        self.active: dict[str, _Var] = {}

    # regions

    def loop(self, carry=(), keep=(), values=()):
        """An IR loop (``for ... in range(...)``); its ``range`` opens the tf.loop."""
        return _Loop(self, carry, keep, values)

    def while_(self, test, carry=(), keep=(), values=(), has_else=False):
        """A ``while``: an IR loop if ``test()`` gives a tensor (or ``test`` is None, for
        ``while True``), else a Python loop."""
        return _While(self, test, carry, keep, values, has_else)

    def if_(self, condition, carry=(), keep=(), values=(), both=()):
        """An ``if``: if scopes in the IR for a tensor condition, else Python."""
        return _If(self, condition, carry, keep, values, both)

    # assignments

    def assign(self, name: str, value):
        """``name = value``: sets the variable while ``name`` is carried, else plain Python."""
        var = self.active.get(name)
        if var is None:
            return value
        if var.ref() is not None and _refs(var.ref()) - (value is var.ref()) - _ONE > 0:
            self._snapshot(name, var)
        self._set(name, var, value)
        return var.handle()

    def assign_many(self, names: tuple, values) -> tuple:
        """``a, b = values``, assigned left to right as Python does; a value that is the
        handle of a variable set earlier in the statement keeps its old value (swaps)."""
        values = tuple(values)
        if len(values) != len(names):
            raise ValueError(f"cannot unpack {len(values)} values into {len(names)} names")
        for i, name in enumerate(names):
            var = self.active.get(name)
            if var is None:
                continue
            if var.ref() is not None and (any(v is var.ref() for v in values[i + 1:])
                                          or _refs(var.ref()) - _count(values, var.ref()) - _ONE > 0):
                self._snapshot(name, var)
            self._set(name, var, values[i])
        return tuple(values[i] if self.active.get(n) is None else self.active[n].handle()
                     for i, n in enumerate(names))

    # jumps

    def break_(self) -> None:
        """``break`` of a loop that is in the IR."""
        tracing.break_loop()

    def continue_(self) -> None:
        """``continue`` of a loop that is in the IR."""
        tracing.continue_loop()

    def python_jump(self, what: str, *ifs) -> None:
        """Check a ``break``/``continue`` of a Python loop: no tensor ``if`` may lie between."""
        if any(region.tensor for region in ifs):
            raise KernelProgramError(f"'{what}' under a tensor condition cannot leave a Python loop (one over a "
                                     "list, tuple, enumerate, zip or tf.static_range, or a while with a Python "
                                     "condition), which is unrolled while tracing; loop with range(...) to get a "
                                     "loop in the program", user_location())

    def ret(self, value, *regions):
        """``return`` inside ifs and whiles: only allowed where all of them are Python."""
        if any(region.tensor for region in regions):
            raise KernelProgramError("'return' inside a tensor if or while is not supported: assign the "
                                     "result to a variable and return it at the end", user_location())
        return value

    # variables

    def _bind(self, region, carry: tuple, keep: tuple, values: tuple) -> list:
        """Variables for ``carry`` (created or reused) and fresh handles for variables
        in ``keep`` that other Python references also hold, in the order of the names."""
        out = []
        for i, name in enumerate(carry + keep):
            var = self.active.get(name)
            if var is not None and var.pending and isinstance(values[i], Undefined):
                out.append(values[i])  # still waiting for its first value
            elif var is not None:
                if values[i] is not var.ref():
                    self._set(name, var, values[i])
                elif _refs(values[i]) - _count(values, values[i]) - _ONE > 0:
                    self._snapshot(name, var)
                out.append(var.handle())
            elif i < len(carry):
                out.append(self._activate(region, name, values, i))
            else:
                out.append(values[i])
        return out

    def _activate(self, region, name: str, values: tuple, i: int):
        # Counted before `value` below holds one more reference.
        shared = _refs(values[i]) - _count(values, values[i]) - _ONE > 0
        value = values[i]
        if isinstance(value, Undefined):
            if not region.may_start_unbound(name):
                raise KernelProgramError(region.undefined_message(name), user_location())
            node = tracing.const(0.0).node
            node.name, handle, pending = name, None, True
        elif is_scalar(value):
            handle = tracing.const(value)
            node, pending = handle.node, False
            if _python_int(value):
                self.builder.variables.weak_int(node)
        elif isinstance(value, Tensor):
            handle = value if not shared and self._fresh_constant(value.node) else _variable_copy(value)
            node, pending = handle.node, False
        else:
            raise KernelProgramError(f"'{name}' is assigned under tensor control flow, so it must hold a tensor "
                                     f"or a number, but it holds a {type(value).__name__}", user_location())
        node.name = node.name or name
        self.active[name] = _Var(node, handle, pending)
        region.activated.append(name)
        return handle if handle is not None else value

    def _fresh_constant(self, node) -> bool:
        """True for a constant nothing in the program reads yet (so it can be mutated)."""
        if node.op is not CONST or node in self.builder.program.outputs:
            return False
        return not any(node is arg for other in self.builder.program.walk() for arg in operands(other))

    def _snapshot(self, name: str, var: _Var) -> None:
        """Move the handle's other holders to a copy of the current value."""
        old = var.ref()
        copy = apply("copy", Tensor(var.node))
        copy.node.name = f"{name}_prev"
        old.node = copy.node
        var.ref = lambda: None

    def _set(self, name: str, var: _Var, value) -> None:
        if isinstance(value, Undefined):
            raise KernelProgramError(f"variable '{value.name}' is used before it is assigned", user_location())
        new_dtype = value.dtype if isinstance(value, Tensor) else (dt.scalar_dtype(value) if is_scalar(value) else None)
        if new_dtype is None:
            raise KernelProgramError(f"'{name}' is carried through tensor control flow, so it must stay a tensor "
                                     f"or a number, but it is assigned a {type(value).__name__}", user_location())
        if var.pending:
            var.node.dtype, var.node.attrs["value"], var.pending = new_dtype, dt.cast_scalar(0, new_dtype), False
            if _python_int(value):
                self.builder.variables.weak_int(var.node)
        # A variable made from a Python int takes the dtype of a uint32 or float value
        # assigned to it, from its creation (as Numba and Taichi type it).
        self.builder.variables.assigned(var.node, new_dtype)
        have = var.node.dtype
        if (new_dtype.is_float and not have.is_float) or (new_dtype.is_integer and have.is_bool):
            convert = f"(...).astype(tf.{new_dtype.name})"
            raise KernelProgramError(f"'{name}' is a {have!r} variable here (from its value before this loop "
                                     f"or if), but is assigned a {new_dtype!r} value; convert its value before "
                                     f"the loop or if with {convert}", user_location())
        tracing.assign(Tensor(var.node), value)


def _python_int(value) -> bool:
    """A Python int (weakly typed), not a bool or a numpy scalar."""
    return type(value) is int


def _variable_copy(value: Tensor) -> Tensor:
    copy = apply("copy", value)
    current().variables.declare(copy.node)
    return copy


class _Region:
    """A control statement: binds the carried names on entry, closes its scopes on exit."""

    kind = "region"

    def __init__(self, frame: Frame, carry: tuple, keep: tuple, values: tuple):
        self.frame, self.carry, self.keep, self.values = frame, carry, keep, values
        self.tensor = False
        self.activated: list[str] = []
        self._guards = []

    def _enter(self):
        values, self.values = self.values, None  # hold no reference to the user's values
        handles = self.frame._bind(self, self.carry, self.keep, values) if self.tensor else list(values)
        return (self, *handles) if handles else self

    def _open(self, guard):
        value = guard.__enter__()
        self._guards.append(guard)
        return value

    def _close(self) -> None:
        self._guards.pop().__exit__(None, None, None)

    def __exit__(self, *exc):
        while self._guards:
            self._guards.pop().__exit__(*exc)
        for name in self.activated:
            self.frame.active.pop(name, None)
        return False

    def may_start_unbound(self, name: str) -> bool:
        """Whether ``name`` may enter without a value. A loop's may: it gets the zero of the
        dtype of its first assignment, which is its value after the loop if the loop makes
        no trip (where Python would raise UnboundLocalError)."""
        return True


class _Loop(_Region):
    kind = "loop"

    def __enter__(self):
        self.tensor = True
        return self._enter()

    def range(self, *bounds, checkpoint=None):
        """Open the IR loop over ``range(*bounds)`` and give its counter, once."""
        if not 1 <= len(bounds) <= 3:
            raise TypeError(f"range expected 1 to 3 arguments, got {len(bounds)}")
        for bound in bounds:
            if isinstance(bound, float) or (isinstance(bound, Tensor) and bound.dtype.is_float):
                got = f"a {bound.dtype!r} tensor" if isinstance(bound, Tensor) else repr(bound)
                raise KernelProgramError(f"range(...) needs integer bounds, got {got}; {INTEGER_QUOTIENT}",
                                         user_location())
        counter = self._open(tracing.loop(*bounds, checkpoint=checkpoint))
        yield counter
        self._close()


class _While(_Region):
    kind = "while loop"

    def __init__(self, frame, test, carry, keep, values, has_else):
        super().__init__(frame, carry, keep, values)
        self.test_fn, self.has_else, self.first, self.calls = test, has_else, None, 0

    def __enter__(self):
        # A loop whose condition became a tensor in an earlier trace is a tensor loop
        # from the start, its Python-number variables carried as tensors.
        self.location = user_location()
        self.key = self.frame.builder.variables.site(self.location, "while")
        if self.test_fn is None or self.key in self.frame.builder.variables.plan.tensor_loops:
            self.tensor = True
        else:
            self.first = self.test_fn()
            self.tensor = isinstance(self.first, Tensor)
        if self.tensor and self.has_else:
            raise KernelProgramError("'while ... else' is not supported when the loop is in the program "
                                     "(a tensor condition or while True)", user_location())
        if self.tensor:
            self.first = None
        return self._enter()

    def test(self) -> bool:
        """The loop condition: in the IR, True once (the body is traced once) after opening
        the loop and leaving it where the condition fails; in Python, the condition."""
        self.calls += 1
        if not self.tensor:
            value, self.first = (self.first, None) if self.calls == 1 else (self.test_fn(), None)
            if isinstance(value, Tensor):  # a loop in the program: traced again as one
                self.frame.builder.variables.plan.tensor_loops.add(self.key)
                self.frame.builder.variables.plan.learned()
                return False
            return bool(value)
        if self.calls > 1:
            self._close()
            self.exhausted.check(f"this while loop's condition still held after {_FOREVER - 1} trips: the loop "
                                 "does not end", self.location)
            return False
        self.exhausted = BlockFlag()  # "an element reached the last trip"
        trip = self._open(tracing.loop(0, _FOREVER))
        holds = tracing.const(True)
        if self.test_fn is not None:
            holds = _as_bool(self.test_fn())
            with tracing.if_cond(apply("not", holds)):
                tracing.break_loop()
        # 1 where the last trip starts with the condition holding (a value per element, so
        # the loop stays in its kernel; no break: the last trip ends the loop anyway).
        reached = tf_select(trip == _FOREVER - 1, apply("int", holds), 0)
        self.exhausted.raise_to(reached)
        return True

    def break_(self, *ifs) -> bool:
        """``break``: True if Python must break (a Python loop), after emitting it in the IR otherwise."""
        return self._jump("break", tracing.break_loop, ifs)

    def continue_(self, *ifs) -> bool:
        """``continue``: like ``break_``."""
        return self._jump("continue", tracing.continue_loop, ifs)

    def _jump(self, kind: str, emit, ifs) -> bool:
        if self.tensor:
            emit()
            return False
        if any(region.tensor for region in ifs):
            # Elements leave at different times: the loop has to be a loop in the program
            # (traced again as one).
            self.frame.builder.variables.plan.tensor_loops.add(self.key)
            self.frame.builder.variables.plan.learned()
        return True


class _If(_Region):
    kind = "if"

    def __init__(self, frame, condition, carry, keep, values, both):
        super().__init__(frame, carry, keep, values)
        self.condition, self.both, self.then = condition, both, None

    def __enter__(self):
        self.tensor = isinstance(self.condition, Tensor)
        if not self.tensor:
            self.then = bool(self.condition)
            self.condition = None
            return self._enter()
        self.condition = _as_bool(self.condition)
        bound = self._enter()
        self._open(tracing.if_cond(self.condition))
        self.then = True
        return bound

    def orelse(self) -> bool:
        """Whether to run the else branch: in the IR, always, inside ``if(not condition)``."""
        if not self.tensor:
            return not self.then
        self._close()
        self._open(tracing.if_cond(apply("not", self.condition)))
        return True

    def may_start_unbound(self, name: str) -> bool:
        """Only names that every branch assigns (an if without else, or with a branch
        that does not assign, would leave some elements without a value)."""
        return name in self.both

    def undefined_message(self, name: str) -> str:
        return (f"'{name}' is assigned in only one branch of this tensor if (or not on every path through "
                "it) and used after it; assign it before the if, or in every branch")


# -- expressions ----------------------------------------------------------------------------------


def _as_bool(value):
    return value if value.dtype is dt.bool1 else apply("ne", value, 0)


def _short_circuit(op: str, decides, first, rest):
    """Python's ``and``/``or`` over ``first`` and the thunks ``rest``: a Python value for
    which ``decides`` holds ends the chain, as in Python; once a tensor appears the rest
    combine with the elementwise ``op`` (a tensor has no truth value at trace time)."""
    value = first
    for k, thunk in enumerate(rest):
        if isinstance(value, Tensor):
            result = _as_bool(value)
            for later in rest[k:]:
                result = apply(op, result, _bool_of(later()))
            return result
        if decides(value):
            return value
        value = thunk()
    return value


def and_(first, *rest):
    """``a and b and ...`` (the rest as thunks): elementwise and once a tensor appears."""
    return _short_circuit("and", lambda value: not value, first, rest)


def or_(first, *rest):
    """``a or b or ...`` (the rest as thunks): elementwise or once a tensor appears."""
    return _short_circuit("or", bool, first, rest)


def _bool_of(value):
    return _as_bool(value) if isinstance(value, Tensor) else builtins.bool(value)


def not_(value):
    """``not value``: elementwise for a tensor."""
    return apply("not", _as_bool(value)) if isinstance(value, Tensor) else not value


def select(condition, if_true, if_false):
    """``a if c else b`` (branches as thunks): ``tf.select`` for a tensor condition."""
    if isinstance(condition, Tensor):
        return tf_select(condition, if_true(), if_false())
    return if_true() if condition else if_false()


_COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq,
            "!=": operator.ne, "is": operator.is_, "is not": operator.is_not,
            "in": lambda a, b: a in b, "not in": lambda a, b: a not in b}


def compare(left, ops: tuple, *thunks):
    """A chained comparison ``a < b < c``: each middle operand evaluated once, the parts
    and-ed (elementwise for tensors), stopping at the first false Python result."""
    result = None
    for op, thunk in zip(ops, thunks):
        right = thunk()
        part = _COMPARE[op](left, right)
        if result is None:
            result = part
        elif isinstance(result, Tensor) or isinstance(part, Tensor):
            result = apply("and", _bool_of(result), _bool_of(part))
        else:
            result = part
        if not isinstance(result, Tensor) and not result:
            return result
        left = right
    return result


def aug(value, op: str, operand):
    """``value op= operand`` as Python computes it (in place for mutable Python objects;
    ``/`` and ``%`` of tensors with Python's meaning, see semantics.py)."""
    return augmented(op)(value, operand)


def aug_item(obj, index, op: str, operand) -> None:
    """``obj[index] op= operand()`` in Python's order (the index once, the load, then the
    operand): a load, the op and a store, not an atomic (tf.scatterAdd is one)."""
    obj[index] = augmented(op)(obj[index], operand())


def aug_attr(obj, attr: str, op: str, operand) -> None:
    """``obj.attr op= operand()`` in Python's order, for the operators that semantics.py
    gives Python's meaning on tensors."""
    setattr(obj, attr, augmented(op)(getattr(obj, attr), operand()))


def call(fn, *args, **kwargs):
    """Call ``fn``: a builtin with Python's meaning on tensors (semantics.py), a plain Python
    function of the user's rewritten first, anything else as it is."""
    builtin = builtin_for(fn)
    if builtin is not None:
        return builtin(*args, **kwargs)
    from .function import rewritten_callable
    return rewritten_callable(fn)(*args, **kwargs)
