"""Turning a Python function into a Program by running it under the tracer."""

from __future__ import annotations

import inspect
import re
from collections import defaultdict
from collections.abc import Sequence

from ..ir import dtypes as dt
from ..ir.builder import current, tracing
from ..ir.errors import TraceError, user_location
from ..ir.node import Program
from ..ir.validate import check_scoping
from ..ir.widen import MAX_TRACES, ShapePlan, retrace_limit_error, sets_in, widen_for_conditions
from .api import input as tf_input
from .bounds import name_checked_tensors
from .tensor import Tensor, is_scalar

_SIMPLE_ASSIGN = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?::[^=]*)?=[^=]")
_TUPLE_ASSIGN = re.compile(r"^\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)+)\s*,?\s*=[^=]")


class Arg:
    """Annotation of a program parameter: ``def f(A: tf.Arg([-1, -1], tf.float32))``; ``-1``
    leaves a dim free, an int fixes it (checked when the program is called).

    >>> @tf.compile
    ... def scaled(x: tf.Arg([-1, 2], tf.float32), k: tf.Arg([], tf.float32)):
    ...     return x * k
    >>> scaled(np.array([[1.0, 2.0]], np.float32), 3.0).numpy
    array([[3., 6.]], dtype=float32)
    """

    def __init__(self, shape: Sequence[int], dtype: dt.DType = dt.float32):
        self.shape = list(shape)
        self.dtype = dt.dtype_of(dtype)

    def __repr__(self) -> str:
        return f"tf.Arg({self.shape}, {self.dtype!r})"


def _annotation(fn, param: inspect.Parameter):
    ann = param.annotation
    if isinstance(ann, str):  # from __future__ import annotations
        try:
            ann = eval(ann, fn.__globals__)  # noqa: S307 (the user's own annotation)
        except Exception as exc:
            raise TraceError(f"cannot evaluate the annotation of parameter '{param.name}': {exc}") from None
    return ann


def trace(fn, name: str | None = None, call=None, debug: bool | str = False) -> Program:
    """Run ``fn`` under the tracer. Parameters annotated ``tf.Arg`` become inputs; ``call``
    (default: ``fn``) is what actually runs, with those inputs as arguments. ``debug``
    (debug mode) checks every index when the program runs (``bounds.py``).

    A variable that turns out to need a wider shape after something used it makes the
    program be traced again with that variable created wide (see ``widen.py``)."""
    plan = ShapePlan()
    for _ in range(MAX_TRACES):
        plan.dirty = False
        try:
            program = _trace_once(fn, name, call, plan, debug)
        except Exception:
            if plan.dirty:  # raised by a trace already known to be stale: trace again
                continue
            raise
        if not plan.dirty:
            return program
    raise retrace_limit_error(_identifier(name or getattr(fn, "__name__", "program")))


def _trace_once(fn, name, call, plan: ShapePlan, debug) -> Program:
    program = Program(_identifier(name or getattr(fn, "__name__", "program")))
    program.debug = debug
    with tracing(program, plan) as builder:
        args = []
        for param in inspect.signature(fn).parameters.values():
            ann = _annotation(fn, param)
            if isinstance(ann, Arg):
                args.append(tf_input(ann.shape, ann.dtype, name=param.name))
            elif param.default is inspect.Parameter.empty and param.kind in (
                    param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
                raise TraceError(f"parameter '{param.name}' of {program.name} needs a tf.Arg(shape, dtype) "
                                 "annotation (or create the input inside with tf.input)")
        result = (call or fn)(*args)
        _set_outputs(program, result)
        widen_for_conditions(builder, sets_in(None, program))
    check_scoping(program)
    _name_from_source(program)
    name_checked_tensors(program)
    return program


def _identifier(name: str) -> str:
    """A program name usable in generated code: ``<lambda>`` becomes ``lambda``."""
    cleaned = re.sub(r"\W+", "_", name).strip("_") or "program"
    return "p_" + cleaned if cleaned[0].isdigit() else cleaned


def _set_outputs(program: Program, result) -> None:
    if isinstance(result, (list, tuple)):
        values, program.returns_tuple = list(result), True
        program.returns_one_list = type(result) is list and len(result) == 1
    elif result is None:
        raise TraceError(f"the tensor program {program.name} returned nothing; return a tensor or a "
                         "list of tensors", user_location())
    else:
        values, program.returns_tuple = [result], False
    outputs = []
    for k, value in enumerate(values):
        if isinstance(value, Tensor):
            outputs.append(value.node)
        elif is_scalar(value):
            outputs.append(current().const(value))
        else:
            raise TraceError(f"output {k} of {program.name} is a {type(value).__name__}, expected a tensor",
                             user_location())
    program.outputs = outputs + [node for _, node in program.printed]


def _name_from_source(program: Program) -> None:
    """Name nodes after the variables the user assigned them to, for readable IR and code:
    the last node built on a line ``x = ...`` is ``x``."""
    by_line = defaultdict(list)
    for node in program.walk():
        if node.location is not None and node.dtype is not None:
            by_line[(node.location.filename, node.location.lineno)].append(node)
    for nodes in by_line.values():
        line = nodes[0].location.line
        match = _SIMPLE_ASSIGN.match(line)
        if match:
            if nodes[-1].name is None:
                nodes[-1].name = match.group(1)
            continue
        match = _TUPLE_ASSIGN.match(line)
        if match:
            names = [n.strip() for n in match.group(1).split(",")]
            if len(names) == len(nodes):
                for node, name in zip(nodes, names):
                    node.name = node.name or name
