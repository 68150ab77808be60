"""Debug mode's index checks (``tf.initialize(tf.cpu, debug=True)``): every index a user's
program gives a load or store is checked against its tensor's shape when the program runs.

The checks are tensor code traced beside the access, so that every backend and the
interpreter run them as they run an ``assert``: per access and axis, a code that is 0 for
an index in range and encodes it otherwise (``2 * (i - n) + 2`` at or past the end, even;
``-2 * i - 1`` below 0, odd). The largest code over the elements (and over the trips of a
per-element loop, through a ``BlockFlag``) goes to a host ``assert``, whose message decodes
it back into the index. Slices are in range by construction and are not checked; nor are
the loads and stores the passes write (autodiff's, lowering's), whose builders do not trace.
With debug mode off nothing here adds a node, so the program is the one traced without it.
"""

from __future__ import annotations

from ..ir import dtypes as dt
from ..ir.builder import current
from ..ir.errors import DebugIndexError, user_location
from ..ir.node import Node, Program
from ..ir.ops import ASSERT, INPUT
from ..ir.shapes import static_value
from . import algorithms
from . import api as tracing
from .block_flag import BlockFlag, per_element
from .mathfn import select
from .tensor import Tensor, apply

_TENSOR_MARK = "\x01"  # around a tensor's id in a message, until tracing has named the tensors


def check_index(memory: Node, axis: int, index: Node) -> None:
    """In debug mode, fail when the program runs if ``index`` leaves axis ``axis`` of ``memory``."""
    builder = current()
    if not (builder.trace and builder.program.debug):
        return
    dim = memory.shape[axis]
    known, size = static_value(index), static_value(dim)
    if known is not None and size is not None and 0 <= known < size:
        return
    i, n = Tensor(builder.cast(index, dt.int32)), Tensor(dim)
    code = select(i < 0, -2 * i - 1, select(i >= n, 2 * (i - n) + 2, 0))
    dynamic = [d for d in memory.shape if static_value(d) is None]
    shape = ", ".join(str(static_value(d)) if static_value(d) is not None else f"{{{1 + dynamic.index(d)}}}"
                      for d in memory.shape)
    message = (f"{DebugIndexError.PREFIX} index {{0}} on axis {axis} of {_TENSOR_MARK}{memory.id}{_TENSOR_MARK} "
               f"with shape [{shape}]")

    def values(worst: Node) -> list:
        w = Tensor(worst)
        below = -apply("floordiv", w + 1, 2)
        above = apply("floordiv", w - 2, 2) + n
        return [select(apply("mod", w, 2) == 1, below, above).node, *dynamic]

    location = user_location()
    if per_element(builder.scope.owner):
        flag = BlockFlag()
        flag.raise_to(code)
        flag.check(message, location, values)
        return
    while code.ndim > 1:
        code = algorithms.reduce_max(code, axis=-1)
    worst = tracing.uniform(algorithms.reduce_max(code).node) if code.ndim else code.node
    builder.check(lambda: builder.elementwise("eq", [worst, builder.const(0, dt.int32)]), values(worst),
                  message, location)


def name_checked_tensors(program: Program) -> None:
    """Name the tensor in each index check's message, once tracing has named the nodes."""
    if not program.debug:
        return
    described = {}
    for node in program.walk():
        if node.op is ASSERT and _TENSOR_MARK in node.attrs["message"]:
            head, key, tail = node.attrs["message"].split(_TENSOR_MARK)
            if not described:
                described = {str(n.id): _describe(n) for n in program.walk()}
            node.attrs["message"] = head + described.get(key, "a tensor").replace("{", "{{").replace("}", "}}") + tail


def _describe(node: Node) -> str:
    if node.name:
        return f"tensor '{node.name}'"
    if node.op is INPUT:
        return f"input {node.attrs['index']}"
    return f"the tensor made at {node.location}" if node.location is not None else "a tensor"
