"""Emitting kernel bodies and host statements in C-family languages (C++, GLSL, HLSL).

``BodyEmitter`` turns the nodes of a scope into statements. What differs between
languages (type names, literals, buffer indexing, atomics) comes from a ``Lang``; how each
op is spelled comes from the op table. Identity accesses index the thread's own element
directly; other indices are clamped to the buffer, except where the index is provably in
range (a grid index over an equal dim, a counter of a loop over that dim, a constant).
int32 arithmetic wraps as numpy's does: C++ spells it plainly only where ``value_ranges``
proves that it cannot overflow (signed overflow is undefined there), and a loop's counter
stops at its end rather than wrap past INT32_MAX.
"""

from __future__ import annotations

import math

import numpy as np

from ..ir import dtypes as dt
from ..ir.errors import InternalError
from ..ir.node import Node, walk
from ..ir.ops import ADD, BREAK, CONST, DIM_ID, INPUT_DIM, LOOP, SELECT, SUB
from ..ir.ops_math import value_code
from ..ir.shapes import describe_shape, dims_equal, shapes_equal, static_value
from ..opt.analysis import set_variables
from .names import numbered_name

SHORT_LOOP = 4096  # trips (nested ones counted) that run without looking for Ctrl-C
INTERRUPT_TRIPS = 1024  # trips of a flat loop between two looks at the Ctrl-C flag (a power of 2)


class Lang:
    """Spelling of a C-family language. Subclasses override what differs."""

    name = "c"
    # A statement at the top of each trip of a loop that ``break`` leaves (a ``while``, whose
    # trips have no bound a user chose) or whose body runs loops: how a target lets such a
    # loop be interrupted. ``interrupt_poll`` does so every ``INTERRUPT_TRIPS`` trips of any
    # other loop that may run long, counted in ``{trips}`` (an unsigned int the loop declares).
    interrupt_check = ""
    interrupt_poll = ""
    # Whether signed integer arithmetic wraps (GLSL, HLSL); where its overflow is undefined
    # (C++), ops spell data values with their ``cpp_int_wrap`` form.
    signed_overflow_wraps = True
    types = {dt.float32: "float", dt.int32: "int32_t", dt.uint32: "uint32_t", dt.bool1: "bool",
             dt.float64: "double", dt.int64: "int64_t", dt.uint64: "uint64_t", dt.int8: "int8_t",
             dt.int16: "int16_t", dt.uint8: "uint8_t", dt.uint16: "uint16_t", dt.float16: "float",
             dt.bfloat16: "float"}  # (16-bit floats compute in float32)
    storage_types = {**types, dt.bool1: "uint32_t", dt.float16: "uint16_t", dt.bfloat16: "uint16_t"}
    # 16-bit floats: their bits from a float (rounded to nearest even) and back
    packs = {dt.float16: ("tf_f32_to_f16", "tf_f16_to_f32"), dt.bfloat16: ("tf_f32_to_bf16", "tf_bf16_to_f32")}

    def type(self, dtype: dt.DType) -> str:
        return self.types[dtype]

    def literal(self, value, dtype: dt.DType) -> str:
        if dtype is dt.bool1:
            return "true" if value else "false"
        if dtype.is_float:
            if math.isnan(value):
                return "TF_NAN" if dtype is not dt.float64 else "__builtin_nan(\"\")"
            if math.isinf(value):
                infinity = "TF_INF" if dtype is not dt.float64 else "__builtin_inf()"
                return infinity if value > 0 else f"(-{infinity})"
            if dtype is dt.float64:
                text = repr(float(value))
                return text if ("." in text or "e" in text) else text + ".0"
            text = str(np.float32(np.asarray(value).astype(dtype.numpy)))
            return (text if ("." in text or "e" in text) else text + ".0") + "f"
        value = int(value)
        if dtype.kind == "u":
            return f"{value}u" if dtype.bits <= 32 else f"{value}ull"
        if dtype.bits == 64:
            return "(-9223372036854775807ll - 1)" if value == -(2**63) else f"{value}ll"
        return "(-2147483647 - 1)" if value == -(2**31) else str(value)

    def rounded(self, dtype: dt.DType, expr: str) -> str:
        """``expr`` (a float32 value) rounded to the 16-bit float ``dtype``."""
        pack, unpack = self.packs[dtype]
        return f"{unpack}({pack}({expr}))"

    def declare(self, dtype: dt.DType, name: str, expr: str, mutable: bool = False) -> str:
        qualifier = "" if mutable else "const "
        return f"{qualifier}{self.type(dtype)} {name} = {expr};"

    def buffer_read(self, buffer: str, index: str, dtype: dt.DType) -> str:
        value = f"{buffer}[{index}]"
        if dtype in self.packs:
            return f"{self.packs[dtype][1]}({value})"
        return f"({value} != 0u)" if dtype is dt.bool1 else value

    def buffer_write(self, buffer: str, index: str, value: str, dtype: dt.DType) -> str:
        if dtype is dt.bool1:
            value = f"({value} ? 1u : 0u)"
        elif dtype in self.packs:
            value = f"{self.packs[dtype][0]}({value})"
        return f"{buffer}[{index}] = {value};"

    def atomic(self, combine: str, buffer: str, index: str, value: str, dtype: dt.DType) -> str:
        if dtype is dt.bool1:
            value = f"({value} ? 1u : 0u)"
        if dtype in self.packs:  # a compare-and-swap loop on the 16 bits, combining in float32
            pack, unpack = self.packs[dtype]
            return f"tf_atomic_{combine}_packed(&{buffer}[{index}], {value}, {pack}, {unpack});"
        # (a float add is a CAS loop per float type; the others are one template each)
        typed = f"_{value_code(dtype)}" if combine == "add" and dtype.is_float else ""
        return f"tf_atomic_{combine}{typed}(&{buffer}[{index}], {value});"


_PLAIN = frozenset(" !#$%&'()*+,-./0123456789:;<=>@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~")


def c_string(text: str) -> str:
    """``text`` as a C, C++, GLSL or HLSL string literal, quotes included: the one way a
    user's string (a name, a message, a file name) enters generated code. Every byte that is
    not plain printable ASCII is an octal escape, and so are ``"``, ``\\`` and ``?`` (no
    trigraph can form), so nothing in ``text`` can end the literal or the line. A C string
    cannot hold a NUL (it would end the message there): one is written as the text ``\\x00``."""
    out = []
    for byte in str(text).replace("\0", "\\x00").encode("utf-8", "backslashreplace"):
        char = chr(byte)
        out.append(char if char in _PLAIN else f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def c_comment(text: str) -> str:
    """``text`` made safe inside a ``//`` comment: plain printable ASCII, one line."""
    return "".join(char if char in _PLAIN else "?" for char in str(text)).replace("*/", "*?")


def identifier(node: Node, names: dict) -> str:
    """The name of ``node`` in generated code: its user name in ASCII (or ``v``) and a number
    counted within the program, so that tracing a program again gives the same source (and
    hits the compile cache), and two names never meet (``emit/names.py``). ``names`` holds
    the names given so far."""
    if node not in names:
        names[node] = numbered_name(node.name, len(names))
    return names[node]


INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
_ELEMENTS = 2**31 - 1  # the most elements a tensor holds (runtime.MAX_ELEMENTS), so the largest dim


def _corners(fn, a, b):
    values = [fn(x, y) for x in a for y in b]
    return min(values), max(values)


def _quotient(a, b):
    # b >= 0 (x / 0 is 0): |a / b| <= |a|, with a's sign; floor division too
    return (min(0, a[0]), max(0, a[1])) if b[0] >= 0 else None


def _remainder(a, b):
    # b >= 0 (x % 0 is 0): |a % b| < b, with a's sign
    return (min(0, max(a[0], 1 - b[1])), max(0, min(a[1], b[1] - 1))) if b[0] >= 0 else None


def _abs(a):
    low = 0 if a[0] <= 0 <= a[1] else min(abs(a[0]), abs(a[1]))
    return low, max(abs(a[0]), abs(a[1]))


# The exact (unwrapped) range of an int32 op's result from its operands' ranges.
_RANGE_RULES = {
    "add": lambda a, b: (a[0] + b[0], a[1] + b[1]),
    "sub": lambda a, b: (a[0] - b[1], a[1] - b[0]),
    "mul": lambda a, b: _corners(lambda x, y: x * y, a, b),
    "neg": lambda a: (-a[1], -a[0]),
    "fma": lambda a, b, c: (lambda p: (p[0] + c[0], p[1] + c[1]))(_corners(lambda x, y: x * y, a, b)),
    "min": lambda a, b: (min(a[0], b[0]), min(a[1], b[1])),
    "max": lambda a, b: (max(a[0], b[0]), max(a[1], b[1])),
    "clamp": lambda x, lo, hi: (min(max(x[0], lo[0]), hi[0]), min(max(x[1], lo[1]), hi[1])),
    "abs": _abs,
    "div": _quotient,
    "floordiv": _quotient,
    "mod": _remainder,
    "copy": lambda a: a,
}


def value_ranges(nodes) -> dict:
    """{int32 node: (low, high)}: the values each node can take, where that is known and
    fits in int32: grid indices, loop counters and dims are bounded by sizes (< 2**31), and
    arithmetic on bounded values is bounded where its exact result fits. A node whose exact
    result may not fit wraps, so its range is unknown (it is left out), as is every
    variable's."""
    nodes = list(nodes)
    variables = set_variables(nodes)
    ranges: dict = {}

    def dim_high(dim: Node) -> int:
        return min(ranges.get(dim, (0, _ELEMENTS))[1], _ELEMENTS)

    for node in nodes:
        if node.dtype is not dt.int32 or node in variables:
            continue
        found = None
        if node.op is CONST:
            found = (int(node.attrs["value"]),) * 2
        elif node.op is INPUT_DIM:
            found = (0, _ELEMENTS)
        elif node.op is DIM_ID:
            found = (0, max(dim_high(node.shape[node.attrs["axis"]]) - 1, 0))
        elif node.op is LOOP:
            found = _counter_range(node, ranges)
        elif node.op is ADD and _offset_index(node, ranges) is not None:
            found = _offset_index(node, ranges)
        elif node.op is SELECT and node.args[1] in ranges and node.args[2] in ranges:
            a, b = ranges[node.args[1]], ranges[node.args[2]]
            found = (min(a[0], b[0]), max(a[1], b[1]))
        elif node.op.name in _RANGE_RULES and all(a in ranges for a in node.args):
            found = _RANGE_RULES[node.op.name](*[ranges[a] for a in node.args])
        if found is not None and INT32_MIN <= found[0] and found[1] <= INT32_MAX:
            ranges[node] = found
    return ranges


def _offset_index(node: Node, ranges: dict):
    """The range of ``i + b`` for a grid index ``i`` along a dim ``a - b`` or ``max(a - b, 0)``
    (``tf.index_grid`` from ``b`` to ``a``): from ``b`` to ``a - 1``; else None."""
    for index, offset in (node.args, node.args[::-1]):
        if index.op is DIM_ID and offset in ranges:
            dim = index.shape[index.attrs["axis"]]
            if dim.op.name == "max" and ranges.get(dim.args[1]) == (0, 0):
                dim = dim.args[0]
            if dim.op is SUB and dim.args[1] is offset and dim.args[0] in ranges:
                return ranges[offset][0], ranges[dim.args[0]][1] - 1
    return None


def _counter_range(loop: Node, ranges: dict):
    """The values a loop's counter takes while its body runs: from its begin towards its end."""
    begin, end, step = (ranges.get(a, (INT32_MIN, INT32_MAX)) for a in loop.args)
    if step[0] > 0:
        return begin[0], max(begin[0], end[1] - 1)
    if step[1] < 0:
        return min(begin[1], end[0] + 1), begin[1]
    return min(begin[0], end[0]), max(begin[1], end[1])


def _increment_fits(loop: Node, ranges: dict) -> bool:
    """Whether ``counter += step`` stays in int32 while the loop runs (the counter is before
    its end when it steps, so the step lands at most one step past the end)."""
    step = ranges.get(loop.args[2])
    if step is None or step[0] != step[1] or step[0] == 0:
        return False
    end = ranges.get(loop.args[1], (INT32_MIN, INT32_MAX))
    return end[1] - 1 + step[0] <= INT32_MAX if step[0] > 0 else end[0] + 1 + step[0] >= INT32_MIN


def index_arithmetic(nodes) -> set:
    """The int32 nodes whose arithmetic cannot overflow (``value_ranges``), which C++ may
    spell plainly, so that the compiler can analyze addresses; and the loops whose counter's
    increment cannot overflow. The rest wraps as numpy's int32 does (signed overflow is
    undefined in C++)."""
    nodes = list(nodes)
    ranges = value_ranges(nodes)
    return {n for n in ranges if n.op is not LOOP or _increment_fits(n, ranges)}


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
        self.arguments: frozenset = frozenset()  # constants the function takes as parameters, by name

    # -- names and values -----------------------------------------------------------------------

    def name(self, node: Node) -> str:
        return identifier(node, self.names)

    def value(self, node: Node) -> str:
        if node.op is CONST and node not in self.mutable and node not in self.arguments:
            return self.lang.literal(node.attrs["value"], node.dtype)
        if node.op is DIM_ID and shapes_equal(node.shape, self.grid):
            return self.grid_vars[node.attrs["axis"]]
        return self.name(node)

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    # -- indexing -----------------------------------------------------------------------------

    def constant(self, node: Node):
        """The Python int of a constant that no ``set`` changes, else None."""
        return None if node in self.mutable else static_value(node)

    def in_range(self, index: Node, dim: Node) -> bool:
        if index.op is DIM_ID and shapes_equal(index.shape, self.grid):
            return dims_equal(self.grid[index.attrs["axis"]], dim)
        if self.interior is not None and self.grid and dims_equal(self.grid[-1], dim) \
                and index.args and index.args[-1] not in self.mutable:
            shift = shift_of(index, self.grid, len(self.grid) - 1)
            if shift and -self.interior[0] <= shift <= self.interior[1]:
                return True
        value, size = self.constant(index), static_value(dim)
        if value is not None:
            return size is not None and 0 <= value < size
        if index.op is LOOP:
            begin, end, step = index.args
            b, s = self.constant(begin), self.constant(step)
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
        wraps = node.dtype.kind == "i" and not self.lang.signed_overflow_wraps and "cpp_int_wrap" in node.op.emit \
            and node not in self.bounded
        template = node.op.spelling("cpp_int_wrap" if wraps else self.lang.name, [a.dtype for a in node.args])
        expr = template.format(*[self.value(a) for a in node.args])
        if node.dtype.compute is not node.dtype and node.op.converts_to is not node.dtype:
            expr = self.lang.rounded(node.dtype, expr)  # (a 16-bit float computes in float32, rounded per op)
        return expr

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
        counter, e, st = self.name(node), self.value(end), self.value(step)
        s = self.constant(step)
        if s is not None and s > 0:
            cond = f"{counter} < {e}"
        elif s is not None and s < 0:
            cond = f"{counter} > {e}"
        else:
            cond = f"({st} > 0 ? {counter} < {e} : ({st} < 0 && {counter} > {e}))"
        plain = node in self.bounded or s in (1, -1)
        if plain:
            increment = f"{counter} += {st}"
        else:  # the last step may pass INT32_MAX: the counter stops at the end instead of wrapping
            u = self.lang.type(dt.uint32)
            up = f"({u}({e}) - {u}({counter}) > {u}({st}) ? {counter} + {st} : {e})"
            down = f"({u}({counter}) - {u}({e}) > {u}(0) - {u}({st}) ? {counter} + {st} : {e})"
            increment = f"{counter} = " + (up if s is not None and s > 0 else down if s is not None and s < 0
                                           else f"({st} > 0 ? {up} : {down})")
        if self.interrupt_kind(node) == "poll":
            self.emit(f"{self.lang.type(dt.uint32)} {_trips(counter)} = 0;")
        if node in self.loop_pragmas and plain:  # (OpenMP takes only ``counter += step``)
            self.emit(self.loop_pragmas[node])
        self.emit(f"for ({self.lang.type(dt.int32)} {counter} = {self.value(begin)}; {cond}; {increment}) {{")
        self.block(node)

    def interrupt_kind(self, loop: Node) -> str | None:
        """How a loop looks for Ctrl-C: "trip" (each trip: a ``while``, or a body that runs
        loops), "poll" (every INTERRUPT_TRIPS trips: a flat body that may run long), or None
        (a loop that is short for certain, or one OpenMP vectorizes, which no jump may leave)."""
        if not self.lang.interrupt_check or loop in self.loop_pragmas:
            return None
        inside = list(walk(loop.body))
        if any(n.op is BREAK and n.enclosing_loop() is loop for n in inside):
            return "trip"
        if _trips_of(self, loop) <= SHORT_LOOP:
            return None
        return "trip" if any(n.op is LOOP for n in inside) else "poll"

    def stmt_if(self, node: Node) -> None:
        self.emit(f"if ({self.value(node.args[0])}) {{")
        self.block(node)

    def block(self, node: Node) -> None:
        self.depth += 1
        kind = self.interrupt_kind(node) if node.op is LOOP else None
        if kind == "trip":
            self.emit(self.lang.interrupt_check)
        elif kind == "poll":
            self.emit(self.lang.interrupt_poll.format(trips=_trips(self.name(node))))
        self.scope(node.body.nodes)
        self.depth -= 1
        self.emit("}")

    def stmt_break(self, node: Node) -> None:
        self.emit("break;")

    def stmt_continue(self, node: Node) -> None:
        self.emit("continue;")

    def stmt_copy(self, node: Node) -> None:
        self.define(node, self.value(node.args[0]))


def _trips(counter: str) -> str:
    return f"tf_trips_{counter}"


def _trips_of(emitter: BodyEmitter, loop: Node) -> float:
    """Trips of ``loop`` and of the loops in it, counted together (inf where not constant)."""
    begin, end, step = (emitter.constant(a) for a in loop.args)
    if begin is None or end is None or not step:
        return math.inf
    inner = sum(_trips_of(emitter, n) for n in walk(loop.body) if n.op is LOOP and n.enclosing_loop() is loop)
    return max(0, -(-(end - begin) // step)) * (1 + inner)
