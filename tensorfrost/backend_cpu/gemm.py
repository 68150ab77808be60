"""Large matmuls as calls of a packed, cache-blocked GEMM (``gemm.hpp``).

A lowered matmul is a kernel whose elements each run ``acc = 0; for k: acc += A[.., i, k] *
B[.., k, j]`` (opt/lower.py) and then use ``acc`` (store it, or add a bias and apply an
activation first). Lane tiling (tiling.py) runs that loop well while the operands fit in
cache; past about 512^3 it waits on memory, since it neither blocks over k nor packs the
operands. So a kernel of this form whose operands are buffers, read at (batch, row or
column, k) indices, gets a second path, chosen at run time for large products: ``tf_gemm``
computes every ``acc`` into C (the output buffer itself when the kernel only stores
``acc``, else a scratch buffer), then the rest of the body runs per element with ``acc``
read from C. Strides describe the operands, so transposed and batched ones need no copy.

The GEMM is a C++ template instantiated for float32 and float64 (``tf_gemm`` is overloaded
on the element type; the core library exports one entry point for each); a matmul whose
accumulator and operands are of one of these dtypes takes it, any other the generated loop.

Optimizations (tensorfrost/optimizations.py), counted per run that takes the GEMM path:
"gemm" (off: no GEMM path is emitted) and "gemm_epilogue" (the rest of the body run on
the GEMM's rows of C; off: a kernel with more than the store of ``acc`` takes no GEMM path).
"""

from __future__ import annotations

import os

from .. import optimizations
from ..emit.clike import BodyEmitter
from ..ir import dtypes as dt
from ..ir.node import Node, walk
from ..ir.ops import ADD, CONST, DIM_ID, LOAD, LOOP, MUL, SET, STORE
from ..ir.shapes import dims_equal, shapes_equal, static_value
from .tiling import LANES

HEADER_PATH = os.path.join(os.path.dirname(__file__), "gemm.hpp")
MIN_WORK = 160 ** 3  # m * n * k below which the tiled loop is as fast (level at 160-256^3, GEMM 1.7-2.4x from 384^3)
MIN_SIDE = 16  # rows or columns below which the tiled loop is (a matrix-vector product)
# When n is not a multiple of the tiled loop's lanes, its edge tiles run with variable bounds
# and keep their sums in memory: a 1024x256 @ 256x10 product (a classifier's last layer) took
# 780 us there and 245 us in the GEMM, which pads n to its strips (1 thread; 2-2.5x at
# 128x128x40 and 200^2x100, 5-20% slower than the tiled loop at multiples of 32).
RAGGED_MIN_WORK = 48 ** 3
RAGGED_MIN_SIDE = 8
C_TYPES = {dt.float32: "float", dt.float64: "double"}  # the dtypes the GEMM is instantiated for


class Gemm:
    """The matmul loop of a kernel: its accumulator, operand loads and what stores ``acc``."""

    def __init__(self, kernel: Node, loop: Node, acc: Node, a: Node, b: Node):
        self.kernel, self.loop, self.acc, self.a, self.b = kernel, loop, acc, a, b
        rank = kernel.rank
        stores = [n for n in kernel.body.nodes if n.op is STORE]
        rest = [n for n in kernel.body.nodes if n.op is not DIM_ID and n not in (acc, loop)]
        # The kernel only stores acc at its own grid point: the GEMM writes that buffer.
        self.direct = (len(rest) == 1 and stores == rest and stores[0].args[1] is acc
                       and shapes_equal(stores[0].args[0].shape, kernel.shape)
                       and _positions(stores[0].args[2:], kernel, None) == {a: a for a in range(rank)})
        self.out = stores[0].args[0] if self.direct else None
        self.ctype = C_TYPES[acc.dtype]  # the element type of A, B and C


def _positions(index: list, kernel: Node, loop: Node | None) -> dict | None:
    """{grid axis, or "k" for the loop counter: index position} of a load's indices, if each
    index is one of those or the constant 0, and none repeats; else None."""
    found = {}
    for position, i in enumerate(index):
        if i is loop:
            key = "k"
        elif i.op is DIM_ID and shapes_equal(i.shape, kernel.shape):
            key = i.attrs["axis"]
        elif i.op is CONST and i.attrs["value"] == 0:
            continue
        else:
            return None
        if key in found:
            return None
        found[key] = position
    return found


def _operand(load: Node, kernel: Node, loop: Node, own: int, other: int, dtype: dt.DType) -> bool:
    if load.op is not LOAD or load.args[0].dtype is not dtype:
        return False
    found = _positions(load.args[1:], kernel, loop)
    return found is not None and "k" in found and own in found and other not in found


def plan(kernel: Node) -> Gemm | None:
    """The GEMM form of ``kernel``, or None if it is not a float32 or float64 matmul of buffers
    (accumulator and both operands of the one dtype), or the optimizations it needs are off."""
    if kernel.rank < 2 or not optimizations.enabled("gemm"):
        return None
    loops = [n for n in walk(kernel.body) if n.op is LOOP]
    if len(loops) != 1 or loops[0] not in kernel.body.nodes:
        return None
    loop = loops[0]
    begin, _, step = loop.args
    if static_value(begin) != 0 or static_value(step) != 1 or len(loop.body.nodes) != 5:
        return None
    *loads, mul, add, update = loop.body.nodes
    acc = update.args[0] if update.op is SET else None
    if acc is None or acc.op is not CONST or acc.attrs["value"] != 0 or acc.dtype not in C_TYPES \
            or acc not in kernel.body.nodes or update.args[1] is not add:
        return None
    if add.op is not ADD or set(add.args) != {acc, mul} or mul.op is not MUL or set(mul.args) != set(loads):
        return None
    if sum(1 for n in walk(kernel.body) if n.op is SET and n.args[0] is acc) != 1:
        return None
    row, col = kernel.rank - 2, kernel.rank - 1
    for a, b in (loads, loads[::-1]):
        if _operand(a, kernel, loop, row, col, acc.dtype) and _operand(b, kernel, loop, col, row, acc.dtype):
            found = Gemm(kernel, loop, acc, a, b)
            return found if found.direct or optimizations.enabled("gemm_epilogue") else None
    return None


class EpilogueEmitter(BodyEmitter):
    """A kernel's body with its matmul loop replaced by reading ``acc`` from the GEMM's C."""

    gemm: Gemm

    def stmt_loop(self, node: Node) -> None:
        if node is self.gemm.loop:
            self.emit(f"{self.target(self.gemm.acc)} = tf_gemm_c[{self.flat_var}];")
        else:
            super().stmt_loop(node)


def _signature(ctype: str) -> str:
    return (f"(int m, int n, int k, const {ctype}* a, long long a_rs, long long a_cs, const {ctype}* b, "
            f"long long b_rs, long long b_cs, {ctype}* c, long long ldc")


_ARGUMENTS = "(m, n, k, a, a_rs, a_cs, b, b_rs, b_cs, c, ldc"
CORE_MARKER = "// tensorfrost: calls the GEMM core"  # in a unit that compiler.py links to the core library
CORE_SYMBOL = "TF_GEMM_CORE"  # the core's entry point: a macro the compiler defines (its name holds its key)
# The core's entry point of each element type: CORE_SYMBOL itself for float, with a suffix pasted on
# for double (extern "C" names do not overload).
_ENTRY_MACROS = ("#define TF_GEMM_PASTE2(a, b) a##b\n#define TF_GEMM_PASTE(a, b) TF_GEMM_PASTE2(a, b)\n"
                 f"#define TF_GEMM_CORE_float {CORE_SYMBOL}\n"
                 f"#define TF_GEMM_CORE_double TF_GEMM_PASTE({CORE_SYMBOL}, _f64)\n")


def _entry(ctype: str) -> str:
    return f"TF_GEMM_CORE_{ctype}"


def header() -> str:
    """The whole GEMM as static functions of the unit (for code shown or written out)."""
    with open(HEADER_PATH) as f:
        text = f.read()
    return text + "".join(f"\nstatic void tf_gemm{_signature(ctype)}) {{\n"
                          f"    tf_gemm_run{_ARGUMENTS}, tf_allocator_in_use.parallel);\n}}\n"
                          for ctype in C_TYPES.values())


def declaration() -> str:
    """What a compiled unit needs to call the GEMM core library (compiled once, not per program)."""
    return CORE_MARKER + "\n" + _ENTRY_MACROS + "".join(
        f'extern "C" void {_entry(ctype)}{_signature(ctype)}, tf_parallel_fn parallel);\n'
        f"static inline void tf_gemm{_signature(ctype)}) {{\n"
        f"    {_entry(ctype)}{_ARGUMENTS}, tf_allocator_in_use.parallel);\n}}\n" for ctype in C_TYPES.values())


def core_source() -> str:
    """The GEMM core library: the GEMM and its exported entry points, ``CORE_SYMBOL`` for float32
    and ``CORE_SYMBOL`` + ``_f64`` for float64."""
    with open(HEADER_PATH) as f:
        text = f.read()
    entries = [f'extern "C" __attribute__((visibility("default"))) void {_entry(ctype)}{_signature(ctype)}, '
               f"tf_parallel_fn parallel) {{\n    tf_gemm_run{_ARGUMENTS}, parallel);\n}}"
               for ctype in C_TYPES.values()]
    return "\n".join(["#include <stdint.h>", "#include <stdlib.h>", "#include <string.h>",
                      "typedef void (*tf_task_fn)(void* context, long long begin, long long end);",
                      "typedef void (*tf_parallel_fn)(long long count, tf_task_fn fn, void* context);", text,
                      _ENTRY_MACROS, *entries, ""])


def fast_path(gemm: Gemm, value, name, epilogue: list[str]) -> list[str]:
    """The lines at the top of the kernel's function that run it through ``tf_gemm`` when the
    product is large (``value`` spells a node in C; ``epilogue`` runs the rest of the body)."""
    kernel, rank = gemm.kernel, gemm.kernel.rank
    dims = [value(d) for d in kernel.shape]
    m, n, k = dims[-2], dims[-1], value(gemm.loop.args[1])
    work = f"(long long){m} * {n} * {k}"
    checks = [f"(({work} >= {MIN_WORK}LL && {m} >= {MIN_SIDE} && {n} >= {MIN_SIDE}) || ({n} % {LANES} != 0 && "
              f"{work} >= {RAGGED_MIN_WORK}LL && {m} >= {RAGGED_MIN_SIDE} && {n} >= {RAGGED_MIN_SIDE}))"]
    strides = {}
    for load in (gemm.a, gemm.b):
        memory = load.args[0]
        for key, position in _positions(load.args[1:], kernel, gemm.loop).items():
            extent = gemm.loop.args[1] if key == "k" else kernel.shape[key]
            if not dims_equal(memory.shape[position], extent):  # else the index would be clamped
                checks.append(f"{value(memory.shape[position])} == {value(extent)}")
            strides[load, key] = " * ".join(["1LL"] + [f"(long long){value(d)}" for d in memory.shape[position + 1:]])
    c = name(gemm.out) if gemm.direct else "tf_gemm_c"
    lines = [f"if ({' && '.join(checks)}) {{"]
    if not gemm.direct:
        total = " * ".join(f"(long long){d}" for d in dims)
        size = total if gemm.ctype == "float" else f"{total}, (int)sizeof({gemm.ctype})"
        lines += [f"    {gemm.ctype}* tf_gemm_c = ({gemm.ctype}*)tf_allocator_in_use.alloc(tf_buffer_bytes({size}));",
                  "    if (tf_gemm_c) {",
                  f"        TF_COUNT({optimizations.index('gemm')});",
                  f"        TF_COUNT({optimizations.index('gemm_epilogue')});"]
    else:
        lines.append(f"    TF_COUNT({optimizations.index('gemm')});")
    pad = "    " * (1 if gemm.direct else 2)
    for axis in range(rank - 2):
        lines.append(pad + "    " * axis + f"for (int32_t i{axis} = 0; i{axis} < {dims[axis]}; i{axis}++)")
    flat = "0LL"
    for axis in range(rank - 2):
        flat = f"({flat}) * {dims[axis]} + i{axis}"
    operands = []
    for load, own in ((gemm.a, rank - 2), (gemm.b, rank - 1)):
        offset = " + ".join(["0LL"] + [f"i{axis} * {strides[load, axis]}" for axis in range(rank - 2)
                                       if (load, axis) in strides])
        rows, cols = (strides[load, own], strides[load, "k"]) if load is gemm.a else \
            (strides[load, "k"], strides[load, own])
        operands.append(f"{name(load.args[0])} + {offset}, {rows}, {cols}")
    lines.append(pad + "    " * (rank - 2) + f"tf_gemm({m}, {n}, {k}, {operands[0]}, {operands[1]}, "
                 f"{c} + ({flat}) * {m} * {n}, {n});")
    if not gemm.direct:
        lines += [pad + line for line in epilogue]
        lines += ["        tf_allocator_in_use.release(tf_gemm_c);", "        return;", "    }"]
    else:
        lines.append("    return;")
    lines.append("}")
    return lines
