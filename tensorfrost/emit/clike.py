"""Emitting kernel bodies and host statements in C-family languages (C++, GLSL, HLSL).

``BodyEmitter`` turns the nodes of a scope into statements. What differs between
languages (type names, literals, buffer indexing, atomics) comes from a ``Lang``; how each
op is spelled comes from the op table. Identity accesses index the thread's own element
directly; other indices are clamped to the buffer, except where the index is provably in
range (a grid index over an equal dim, a counter of a loop over that dim, a constant).
"""

from __future__ import annotations

import math
import re

import numpy as np

from ..ir import dtypes as dt
from ..ir.errors import InternalError
from ..ir.node import Node, walk
from ..ir.ops import ADD, BREAK, CONST, DIM_ID, INPUT_DIM, LOOP, SUB
from ..ir.shapes import describe_shape, dims_equal, shapes_equal, static_value


class Lang:
    """Spelling of a C-family language. Subclasses override what differs."""

    name = "c"
    # A statement at the top of each trip of a loop that ``break`` leaves (a ``while``, whose
    # trips have no bound a user chose): how a target lets such a loop be interrupted.
    interrupt_check = ""
    types = {dt.float32: "float", dt.int32: "int32_t", dt.uint32: "uint32_t", dt.bool1: "bool"}
    storage_types = {dt.float32: "float", dt.int32: "int32_t", dt.uint32: "uint32_t", dt.bool1: "uint32_t"}

    def type(self, dtype: dt.DType) -> str:
        return self.types[dtype]

    def literal(self, value, dtype: dt.DType) -> str:
        if dtype is dt.bool1:
            return "true" if value else "false"
        if dtype is dt.float32:
            if math.isnan(value):
                return "TF_NAN"
            if math.isinf(value):
                return "TF_INF" if value > 0 else "(-TF_INF)"
            text = str(np.float32(value))
            return (text if ("." in text or "e" in text) else text + ".0") + "f"
        if dtype is dt.uint32:
            return f"{int(value)}u"
        value = int(value)
        return "(-2147483647 - 1)" if value == -(2**31) else str(value)

    def declare(self, dtype: dt.DType, name: str, expr: str, mutable: bool = False) -> str:
        qualifier = "" if mutable else "const "
        return f"{qualifier}{self.type(dtype)} {name} = {expr};"

    def buffer_read(self, buffer: str, index: str, dtype: dt.DType) -> str:
        value = f"{buffer}[{index}]"
        return f"({value} != 0u)" if dtype is dt.bool1 else value

    def buffer_write(self, buffer: str, index: str, value: str, dtype: dt.DType) -> str:
        if dtype is dt.bool1:
            value = f"({value} ? 1u : 0u)"
        return f"{buffer}[{index}] = {value};"

    def atomic(self, combine: str, buffer: str, index: str, value: str, dtype: dt.DType) -> str:
        if dtype is dt.bool1:
            value = f"({value} ? 1u : 0u)"
        return f"tf_atomic_{combine}(&{buffer}[{index}], {value});"


_IDENT = re.compile(r"[^A-Za-z0-9_]")
_PLAIN = frozenset(" !#$%&'()*+,-./0123456789:;<=>@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~")


def c_string(text: str) -> str:
    """``text`` as a C, C++, GLSL or HLSL string literal, quotes included: the one way a
    user's string (a name, a message, a file name) enters generated code. Every byte that is
    not plain printable ASCII is an octal escape, and so are ``"``, ``\\`` and ``?`` (no
    trigraph can form), so nothing in ``text`` can end the literal or the line."""
    out = []
    for byte in str(text).encode("utf-8", "backslashreplace"):
        char = chr(byte)
        out.append(char if char in _PLAIN else f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def c_comment(text: str) -> str:
    """``text`` made safe inside a ``//`` comment: plain printable ASCII, one line."""
    return "".join(char if char in _PLAIN else "?" for char in str(text)).replace("*/", "*?")


def identifier(node: Node, names: dict) -> str:
    """The name of ``node`` in generated code: its user name (or ``v``) and a number counted
    within the program, so that tracing a program again gives the same source (and hits the
    compile cache). ``names`` holds the names given so far."""
    if node not in names:
        base = _IDENT.sub("_", node.name).strip("_") if node.name else "v"
        if not base or base[0].isdigit():
            base = "v" + base
        names[node] = f"{base}_{len(names)}"
    return names[node]


def index_arithmetic(nodes) -> set:
    """Integer nodes computed only from grid indices, loop counters, dims and constants:
    index arithmetic, whose values stay far from overflowing (tensors have < 2**31 elements)."""
    bounded: set = set()
    for node in nodes:
        if node.op in (DIM_ID, LOOP, INPUT_DIM) or (node.op is CONST and node.dtype is dt.int32):
            bounded.add(node)
        elif node.op.kind == "elementwise" and node.dtype is dt.int32 and all(a in bounded for a in node.args):
            bounded.add(node)
    return bounded


def shift_of(index: Node, grid, axis: int) -> int:
    """``c`` if ``index`` is ``i + c`` or ``i - c`` for the grid index ``i`` along ``axis``
    and a constant ``c``, else 0."""
    if index.op not in (ADD, SUB) or len(index.args) != 2:
        return 0
    base, amount = index.args
    if not (base.op is DIM_ID and base.attrs["axis"] == axis and shapes_equal(base.shape, grid)):
        return 0
    value = static_value(amount) if amount.dtype is dt.int32 else None
    if value is None:
        return 0
    return value if index.op is ADD else -value


class BodyEmitter:
    """Statements for the nodes of a kernel (or host) scope."""

    def __init__(self, lang: Lang, grid: tuple = (), grid_vars=(), flat_var: str | None = None,
                 names: dict | None = None):
        self.lang = lang
        self.grid = grid  # the kernel's shape (dims)
        self.grid_vars = list(grid_vars)  # loop variable of each grid axis
        self.flat_var = flat_var  # the thread's flat index, if the grid has one
        self.names = names if names is not None else {}
        self.lines: list[str] = []
        self.depth = 0
        self.mutable: set = set()
        self.interior = None  # (low, high): the last grid index is in [low, n - high)
        self.bounded: set = set()  # int nodes of index arithmetic, which cannot overflow
        self.loop_pragmas: dict = {}  # loop node -> a line emitted before it (#pragma ...)

    # -- names and values -----------------------------------------------------------------------

    def name(self, node: Node) -> str:
        return identifier(node, self.names)

    def value(self, node: Node) -> str:
        if node.op is CONST and node not in self.mutable:
            return self.lang.literal(node.attrs["value"], node.dtype)
        if node.op is DIM_ID and shapes_equal(node.shape, self.grid):
            return self.grid_vars[node.attrs["axis"]]
        return self.name(node)

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    # -- indexing -----------------------------------------------------------------------------

    def in_range(self, index: Node, dim: Node) -> bool:
        if index.op is DIM_ID and shapes_equal(index.shape, self.grid):
            return dims_equal(self.grid[index.attrs["axis"]], dim)
        if self.interior is not None and self.grid and dims_equal(self.grid[-1], dim):
            shift = shift_of(index, self.grid, len(self.grid) - 1)
            if shift and -self.interior[0] <= shift <= self.interior[1]:
                return True
        value, size = static_value(index), static_value(dim)
        if value is not None:
            return size is not None and 0 <= value < size
        if index.op is LOOP:
            begin, end, step = index.args
            b, s = static_value(begin), static_value(step)
            return b is not None and b >= 0 and s is not None and s > 0 and dims_equal(end, dim)
        return False

    def flat_index(self, memory: Node, index: list) -> str:
        if not index:
            return "0"
        identity = (self.flat_var is not None and shapes_equal(memory.shape, self.grid)
                    and all(i.op is DIM_ID and i.attrs["axis"] == k and shapes_equal(i.shape, self.grid)
                            for k, i in enumerate(index)))
        if identity:
            return self.flat_var
        parts = []
        for i, dim in zip(index, memory.shape):
            text = self.value(i)
            if not self.in_range(i, dim):
                text = f"tf_clamp_index({text}, {self.value(dim)})"
            parts.append(text)
        flat = parts[0]
        for part, dim in zip(parts[1:], memory.shape[1:]):
            flat = f"({flat}) * {self.value(dim)} + {part}"
        return flat

    # -- statements ----------------------------------------------------------------------------

    def scope(self, nodes) -> None:
        for node in nodes:
            self.statement(node)

    def statement(self, node: Node) -> None:
        name = node.op.name
        handler = getattr(self, "stmt_" + ("scatter" if name.startswith("scatter_") else name), None)
        if handler is not None:
            handler(node)
        elif node.op.kind == "elementwise":
            self.define(node, self.expression(node))
        else:
            raise InternalError(f"no {self.lang.name} emitter for op '{name}' (its op-table entry has no spelling)")

    def expression(self, node: Node) -> str:
        """The expression of an elementwise node, spelled as the op table says (int32 data
        values in C++ with their wrapping spelling)."""
        template = node.op.spelling(self.lang.name)
        if node.dtype is dt.int32 and self.lang.name == "cpp" and "cpp_int_wrap" in node.op.emit \
                and node not in self.bounded:
            template = node.op.emit["cpp_int_wrap"]
        return template.format(*[self.value(a) for a in node.args])

    def define(self, node: Node, expr: str) -> None:
        """Give ``node`` its value ``expr`` (a declaration; variables are not const)."""
        self.emit(self.lang.declare(node.dtype, self.name(node), expr, mutable=node in self.mutable))

    def target(self, node: Node) -> str:
        """How a variable is written to."""
        return self.name(node)

    def stmt_const(self, node: Node) -> None:
        if node in self.mutable:
            self.define(node, self.lang.literal(node.attrs["value"], node.dtype))

    def stmt_dim_id(self, node: Node) -> None:
        if not shapes_equal(node.shape, self.grid):
            raise InternalError(f"a kernel over {describe_shape(self.grid)} reads the index of another "
                                f"shape, {describe_shape(node.shape)}")

    def stmt_load(self, node: Node) -> None:
        memory = node.args[0]
        index = self.flat_index(memory, node.args[1:])
        self.define(node, self.lang.buffer_read(self.name(memory), index, memory.dtype))

    def stmt_store(self, node: Node) -> None:
        memory = node.args[0]
        index = self.flat_index(memory, node.args[2:])
        self.emit(self.lang.buffer_write(self.name(memory), index, self.value(node.args[1]), memory.dtype))

    def stmt_scatter(self, node: Node) -> None:
        memory = node.args[0]
        index = self.flat_index(memory, node.args[2:])
        self.emit(self.lang.atomic(node.op.combine, self.name(memory), index, self.value(node.args[1]),
                                   memory.dtype))

    def stmt_set(self, node: Node) -> None:
        self.emit(f"{self.target(node.args[0])} = {self.value(node.args[1])};")

    def stmt_loop(self, node: Node) -> None:
        begin, end, step = node.args
        counter = self.name(node)
        s = static_value(step)
        if s is not None and s > 0:
            cond = f"{counter} < {self.value(end)}"
        elif s is not None and s < 0:
            cond = f"{counter} > {self.value(end)}"
        else:
            st = self.value(step)
            cond = f"({st} > 0 ? {counter} < {self.value(end)} : ({st} < 0 && {counter} > {self.value(end)}))"
        int_type = self.lang.type(dt.int32)
        if node in self.loop_pragmas:
            self.emit(self.loop_pragmas[node])
        self.emit(f"for ({int_type} {counter} = {self.value(begin)}; {cond}; {counter} += {self.value(step)}) {{")
        self.block(node)

    def stmt_if(self, node: Node) -> None:
        self.emit(f"if ({self.value(node.args[0])}) {{")
        self.block(node)

    def block(self, node: Node) -> None:
        self.depth += 1
        if self.lang.interrupt_check and node.op is LOOP and any(
                n.op is BREAK and n.enclosing_loop() is node for n in walk(node.body)):
            self.emit(self.lang.interrupt_check)
        self.scope(node.body.nodes)
        self.depth -= 1
        self.emit("}")

    def stmt_break(self, node: Node) -> None:
        self.emit("break;")

    def stmt_continue(self, node: Node) -> None:
        self.emit("continue;")

    def stmt_copy(self, node: Node) -> None:
        self.define(node, self.value(node.args[0]))
