"""The op table: the one place that says what every operation is.

For each op: its kind, its type rule (``signature`` for elementwise ops), its cost (used by
fusion to choose between recomputing a value and storing it), its numpy reference (used by
the interpreter and by constant folding), its capability flags, and how each code emitter
spells it. The Op class and the type rules are in ``op_rules.py``, the elementwise entries
in ``ops_math.py``; this file holds the structural ops (memory, reductions, views, control
flow, host-side bookkeeping) and is where everyone looks ops up.

No emitter, pass or interpreter spells an op anywhere else: they look it up here.
"""

from __future__ import annotations

import numpy as np

from . import dtypes as dt
from .op_rules import (  # noqa: F401 (the table's API, re-exported)
    AUTODIFF,
    CONTROL,
    ELEMENTWISE,
    HOST,
    MATMUL,
    MEMORY,
    OPS,
    REDUCTION,
    SCAN,
    SIGNATURES,
    SOURCE,
    VIEW,
    Op,
    bitcast_to,
    cast_to,
    elementwise_types,
    op,
    register,
)

# Structural ops. Their shapes and dtypes are computed by the tracing functions that build
# them (tracing/api.py, tracing/algorithms.py, tracing/indexing.py); emitters handle their structure.


def _identity(which: str):
    """The neutral element of a combine, as a function of the dtype: "zero", "one", "lowest"
    (the smallest value: -inf for floats), "highest", "ones" (every bit set), "false", "true"."""
    def of(dtype: dt.DType):
        if dtype.is_bool:
            return which in ("one", "highest", "ones", "true")
        if which in ("zero", "false"):
            return 0.0 if dtype.is_float else 0
        if which in ("one", "true"):
            return 1.0 if dtype.is_float else 1
        if dtype.is_float:
            if which == "ones":
                return None
            return float("-inf") if which == "lowest" else float("inf")
        info = np.iinfo(dtype.numpy)
        ones = -1 if dtype.kind == "i" else int(info.max)
        return {"lowest": int(info.min), "highest": int(info.max), "ones": ones}[which]
    return of


register(Op("const", SOURCE, 0, cost=0.0, doc="a constant value broadcast to a shape; attrs: value"))
register(Op("dim_id", SOURCE, 0, cost=0.0, doc="the index along attrs['axis'] of each element of the shape"))
register(Op("input", SOURCE, 0, cost=0.0, doc="a tensor argument of the program; attrs: index"))
register(Op("input_dim", SOURCE, 1, cost=0.0, doc="the runtime size of axis attrs['axis'] of an input"))

register(Op("load", MEMORY, None, cost=128.0, reads_memory=True, doc="args: memory, *indices; indices are clamped"))
register(Op("store", MEMORY, None, cost=128.0, pure=False, writes=True, doc="args: memory, value, *indices"))
register(Op("set", MEMORY, 2, cost=1.0, pure=False, writes=True, doc="args: variable, value; replaces the whole value"))
register(Op("copy", ELEMENTWISE, 1, signature="identity", cost=1.0, ref=lambda a: np.array(a, copy=True),
            emit={"c": "{0}"}, doc="a fresh copy of a value (so that it can be mutated)"))

_SCATTERS = {
    "scatter_add": ("add", _identity("zero")),
    "scatter_min": ("min", _identity("highest")),
    "scatter_max": ("max", _identity("lowest")),
    "scatter_and": ("and", _identity("ones")),
    "scatter_or": ("or", _identity("zero")),
    "scatter_xor": ("xor", _identity("zero")),
}
for _name, (_combine, _ident) in _SCATTERS.items():
    register(Op(_name, MEMORY, None, cost=256.0, pure=False, combine=_combine, identity=_ident, writes=True,
                atomic=True, api_name="tf.scatter" + _combine.capitalize(),
                doc=f"args: memory, value, *indices; atomically combines with {_combine}"))

_REDUCTIONS = {
    "reduce_sum": ("add", _identity("zero"), np.sum),
    "reduce_prod": ("mul", _identity("one"), np.prod),
    "reduce_max": ("max", _identity("lowest"), np.max),
    "reduce_min": ("min", _identity("highest"),
                   np.min),
    "reduce_any": ("or", _identity("false"), np.any),
    "reduce_all": ("and", _identity("true"), np.all),
}
for _name, (_combine, _ident, _ref) in _REDUCTIONS.items():
    register(Op(_name, REDUCTION, 1, combine=_combine, identity=_ident, ref=_ref, cost=4.0,
                doc=f"combine axis attrs['axis'] with {_combine}; the axis is dropped"))
_SCANS = {
    "prefix_sum": ("add", np.add, _REDUCTIONS["reduce_sum"][1]),
    "prefix_prod": ("mul", np.multiply, _REDUCTIONS["reduce_prod"][1]),
    "prefix_max": ("max", np.maximum, _REDUCTIONS["reduce_max"][1]),
    "prefix_min": ("min", np.minimum, _REDUCTIONS["reduce_min"][1]),
}
for _name, (_combine, _ufunc, _ident) in _SCANS.items():
    register(Op(_name, SCAN, 1, combine=_combine, identity=_ident, cost=4.0, ref=_ufunc.accumulate,
                doc=f"running {_combine} along attrs['axis']; attrs 'exclusive' (each element gets the "
                    "elements before it, the first the identity) and 'reverse' (from the end)"))

# Views: the output element at index I is the input element at index f(I).
register(Op("transpose", VIEW, 1, doc="swap axes attrs['dim1'] and attrs['dim2']"))
register(Op("unsqueeze", VIEW, 1, doc="insert an axis of size 1 at attrs['axis']"))
register(Op("squeeze", VIEW, 1, doc="remove the axis attrs['axis'] (of size 1)"))
register(Op("reshape", VIEW, 1, doc="the same elements in row-major order, new shape"))
register(Op("split_dim", VIEW, 1, doc="split axis attrs['axis'] into [ceil(n/size), size]"))
register(Op("merge_dim", VIEW, 1, doc="merge axis attrs['axis'] with the axis before it"))
register(Op("repeat", VIEW, 1, doc="repeat every element attrs['repeats'] times along attrs['axis']"))
register(Op("reverse", VIEW, 1, doc="reverse the order along attrs['axis']"))
register(Op("matmul", MATMUL, 2, cost=4.0, ref=np.matmul, doc="matrix product over the last two axes"))

register(Op("loop", CONTROL, 3, pure=False, has_body=True,
            doc="args: begin, end, step; the body runs once per counter value, which is the loop node's value"))
register(Op("if", CONTROL, 1, pure=False, has_body=True, doc="args: condition; body runs where it holds"))
register(Op("break", CONTROL, 0, pure=False, jump=True, doc="leave the innermost loop"))
register(Op("continue", CONTROL, 0, pure=False, jump=True, doc="go to the next iteration of the innermost loop"))
register(Op("kernel", CONTROL, 0, pure=False, has_body=True, doc="body runs once per element of the kernel's shape"))

register(Op("grad", AUTODIFF, 2, doc="args: loss, wrt; the gradient of sum(loss) with respect to wrt"))
register(Op("jvp", AUTODIFF, None,
            doc="args: y, *xs, *vs (attrs['count'] of each); the directional derivative of y along the tangents "
                "vs of xs (each x as defined at its creation): forward mode, expanded by the autodiff pass"))
register(Op("detach", AUTODIFF, 1, doc="the value of its arg; gradients stop here"))
register(Op("pass_grad", AUTODIFF, 1,
            doc="the value of its arg; gradients pass to the arg's operands as if it were the identity"))

register(Op("custom_grad", AUTODIFF, None, calls_user_code=True,
            doc="args: value, *inputs; the value, whose gradient to the inputs is the vjp of the custom "
                "operation attrs['name'] (tf.register_custom_operation)"))
register(Op("library_grad", AUTODIFF, None,
            doc="args: value, *inputs; the value, whose gradient to the inputs is tensorfrost's rule "
                "attrs['rule'] (tracing/vjp.py), which reads this node as the result: tensor code that is "
                "itself differentiable, so gradients of gradients are right"))

register(Op("assert", HOST, None, pure=False, doc="args: condition, *values; fails with attrs['message']"))
register(Op("alloc", HOST, 0, pure=False, doc="a new buffer of the node's shape and dtype"))
register(Op("free", HOST, 1, pure=False, doc="release a buffer after its last use"))
register(Op("readback", HOST, None, cost=1000.0, reads_memory=True,
            doc="args: buffer, *indices (clamped; none: element 0); the element, read by the host"))
register(Op("region", HOST, 0, pure=False, doc="debug region marker; attrs: name, begin (bool)"))

# The elementwise entries complete the table.
from . import ops_math  # noqa: E402,F401 (registers them)

# The structural ops by name, for identity tests (``node.op is LOOP``): a typo fails at import.
(CONST, DIM_ID, INPUT, INPUT_DIM, LOAD, STORE, SET, COPY, LOOP, IF, BREAK, CONTINUE, KERNEL, GRAD, JVP, DETACH,
 PASS_GRAD, CUSTOM_GRAD, LIBRARY_GRAD, ASSERT, ALLOC, FREE, READBACK, REGION) = (OPS[n] for n in (
    "const", "dim_id", "input", "input_dim", "load", "store", "set", "copy", "loop", "if", "break", "continue",
    "kernel", "grad", "jvp", "detach", "pass_grad", "custom_grad", "library_grad", "assert", "alloc", "free",
    "readback", "region"))
# Ops whose algebra passes read (index arithmetic, reductions and views they special-case).
ADD, SUB, MUL, DIV, MOD, SELECT, CLAMP, REDUCE_MAX, REDUCE_MIN, SPLIT_DIM = (OPS[n] for n in (
    "add", "sub", "mul", "div", "mod", "select", "clamp", "reduce_max", "reduce_min", "split_dim"))
