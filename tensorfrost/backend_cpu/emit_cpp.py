"""C++ for a compiled program: its kernels and host function, as one translation unit or,
for a large program, as several that g++ compiles in parallel (``units``).

Each kernel is a function over its grid: its outer axes are numbered as tasks that the
process's worker threads claim in pieces (``tf_parallel``, pool.c), and the innermost axis
is a plain loop the compiler vectorizes. The host function
``tf_main`` checks the inputs, allocates buffers (freed by RAII, so an error frees them
too), dispatches kernels in host loops and ifs, and hands the outputs to the caller.
"""

from __future__ import annotations

import os

from .. import optimizations
from ..emit.clike import (
    INTERRUPT_TRIPS,
    BodyEmitter,
    Lang,
    c_comment,
    c_string,
    identifier,
    index_arithmetic,
    shift_of,
)
from ..emit.host import HostEmitter
from ..ir import dtypes as dt
from ..ir.node import Node, Program, walk
from ..ir.ops import ADD, BREAK, CONTINUE, DIM_ID, IF, INPUT, KERNEL, LOAD, LOOP, MUL, SET, STORE
from ..ir.shapes import dims_equal, shapes_equal
from ..opt.analysis import kernel_traffic, set_variables
from . import gemm, math_core, shared_kernels, temporal, tiling, toolchain

PRELUDE_PATH = os.path.join(os.path.dirname(__file__), "prelude.hpp")
FLOAT_MATH_PATH = os.path.join(os.path.dirname(__file__), "float_math.hpp")  # float32's sin, exp...
PARALLEL_THRESHOLD = 8192  # grid elements below which a kernel runs on one thread
PARALLEL_THRESHOLD_LOOPS = 64  # ... when each element runs a loop
ROW_CHUNK = 4096  # elements of a 1-D grid a thread runs as one vectorizable row
ROW_CHUNK_LOOPS = 32  # ... when each element runs a loop (one lane tile): a few thousand such elements
# (a blocked scan's blocks) must still spread over every core
# columns a transposing task runs down its rows (1 thread, against 32: 1024^2 2.0 -> 1.2 ms, 2048^2 9.0 -> 5.8)
COLUMN_BLOCK = 16
TILED_COST = 3  # g++ spends about 3x the time per character on a tiled kernel (unrolled tiles)
HOST_COST = 0.25  # ... and about a quarter of a plain kernel's on the host function (at -O1)


_OMP_REDUCTIONS = {"add": "+", "mul": "*", "and": "&", "or": "|", "xor": "^"}


def _reduction_vars(loop: Node, mutable: set) -> dict:
    """{OpenMP operator: [variables]} if ``loop`` does nothing but accumulate variables
    defined outside it (``acc = acc + x``); else {}."""
    body = list(walk(loop.body))
    if any(n.op in (LOOP, IF, BREAK, CONTINUE, STORE) or n.op.atomic
           for n in body):
        return {}
    inside = set(body)
    found: dict = {}
    for node in body:
        if node.op is not SET:
            continue
        variable, value = node.args
        if variable in inside or value.op.name not in _OMP_REDUCTIONS or variable not in value.args:
            return {}
        if value.op not in (ADD, MUL) and variable.dtype.is_float:
            return {}
        if variable.dtype.compute is not variable.dtype:  # (a 16-bit float rounds every step: in order)
            return {}
        uses = [n for n in body if variable in n.args]
        if any(n is not value and n is not node for n in uses):
            return {}
        found.setdefault(_OMP_REDUCTIONS[value.op.name], []).append(variable)
    if any(n in mutable and n in inside for n in body):
        return {}
    return found


def _flat(dims: list) -> str:
    """The row-major flat index of the grid point (i0, i1, ...) in C."""
    flat = "i0"
    for k in range(1, len(dims)):
        flat = f"({flat}) * {dims[k]} + i{k}" if k > 1 else f"i0 * {dims[1]} + i1"
    return flat


def _inner_offsets(kernel: Node) -> set[int]:
    """Constant shifts ``c`` of accesses ``memory[..., i + c]`` along the grid's last axis."""
    last = kernel.rank - 1
    found = set()
    for node in walk(kernel.body):
        if node.op not in (LOAD, STORE) and not node.op.atomic:
            continue
        memory = node.args[0]
        index = node.args[1:] if node.op is LOAD else node.args[2:]
        if not index or not dims_equal(memory.shape[-1], kernel.shape[-1]):
            continue
        shift = shift_of(index[-1], kernel.shape, last)
        if shift:
            found.add(shift)
    return found


def _reads_transposed(kernel: Node) -> bool:
    """True if a load of a 2-D kernel steps along its memory's rows as the grid's row index
    steps (``W.T`` copied, as lowering does for a matmul's transposed operand)."""
    return any(n.op is LOAD and n.args[0].rank >= 2 and n.args[-1].op is DIM_ID and n.args[-1].attrs["axis"] == 0
               and shapes_equal(n.args[-1].shape, kernel.shape) for n in walk(kernel.body))


def _column_blocked(kernel: Node) -> bool:
    """True if ``kernel`` (untiled) runs in blocks of columns: optimization "column_blocks"."""
    return kernel.rank == 2 and _reads_transposed(kernel) and optimizations.enabled("column_blocks")


def _column_blocks(dims: list, call: str) -> tuple[list, list]:
    """A transposing kernel's tasks: blocks of COLUMN_BLOCK columns by ROW_BLOCK rows, each
    run down its rows, so the lines (and pages) of the rows it reads across are reused while
    in cache, instead of one line per element and row (a 2048^2 transposed copy took a TLB
    miss per element: 73 -> 23 ms under load)."""
    counts = [f"(({dims[1]}) + {COLUMN_BLOCK - 1}) / {COLUMN_BLOCK}",
              f"(({dims[0]}) + {tiling.ROW_BLOCK - 1}) / {tiling.ROW_BLOCK}"]
    return counts, ["const int32_t tf_chunk = (int32_t)(tf_task / tf_count1);",
                    "const int32_t tf_block = (int32_t)(tf_task % tf_count1);",
                    f"for (int32_t i0 = tf_block * {tiling.ROW_BLOCK}; "
                    f"i0 < tf_min_index({dims[0]}, (tf_block + 1) * {tiling.ROW_BLOCK}); i0++)",
                    f"    {call}, i0, tf_chunk * {COLUMN_BLOCK}, "
                    f"tf_min_index({dims[1]}, (tf_chunk + 1) * {COLUMN_BLOCK}));"]


def _tasks(kernel: Node, dims: list, tiles, outer: list, chunk: int, call: str) -> tuple[list, list]:
    """The kernel's rows as tasks numbered from 0: the count along each outer loop, and
    the lines that run task ``tf_task`` (its loop variables from its number, last fastest);
    ``call`` opens the call of the row function."""
    if kernel.rank == 1:
        return [f"(({dims[0]}) + {chunk - 1}) / {chunk}"], [
            f"const int32_t tf_first = (int32_t)(tf_task * {chunk});",
            f"{call}, tf_first, tf_first + tf_min_index({dims[0]} - tf_first, {chunk}));"]
    steps = {"tf_lane0": (tiles.lanes, dims[-1]), "tf_block0": (tiling.ROW_BLOCK, dims[-2])} if tiles else {}
    counts, task, rest = [], [], "tf_task"
    for k, variable in enumerate(outer):
        step, bound = steps.get(variable, (1, dims[k]))
        counts.append(f"(({bound}) + {step - 1}) / {step}" if step > 1 else f"({bound})")
    for k in reversed(range(len(outer))):
        index = rest if k == 0 else f"{rest} % tf_count{k}"
        step = steps.get(outer[k], (1, None))[0]
        task.insert(0, f"const int32_t {outer[k]} = (int32_t)({index})" + (f" * {step};" if step > 1 else ";"))
        rest = f"({rest} / tf_count{k})"
    return counts, task + [f"{call}, {', '.join(outer)});"]


class CppLang(Lang):
    name = "cpp"
    signed_overflow_wraps = False

    def literal(self, value, dtype: dt.DType) -> str:
        text = super().literal(value, dtype)
        # (an 8- or 16-bit constant keeps its type, so that a template helper sees one dtype)
        return f"(({self.type(dtype)}){text})" if dtype.is_integer and dtype.bits < 32 else text
    interrupt_check = "if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) break;  // Ctrl-C"
    interrupt_poll = (f"if (({{trips}}++ & {INTERRUPT_TRIPS - 1}u) == 0 && tf_allocator_in_use.interrupted && "
                      "*tf_allocator_in_use.interrupted) break;  // Ctrl-C")


def prelude(with_gemm: bool = True) -> str:
    """The helpers generated code uses; ``tf_gemm`` only where asked (it costs g++ time)."""
    with open(PRELUDE_PATH) as f, open(FLOAT_MATH_PATH) as math:
        text = f.read() + math.read()
    return text + gemm.header() if with_gemm else text


class CppProgram:
    """The generated source of one program, split as the API exposes it."""

    def __init__(self, program: Program, profile: bool = False, share: bool = True):
        self.program = program
        self.profile = profile  # each kernel's launch timed into tf_profile (BuildOptions.profile)
        self.lang = CppLang()
        self.names: dict[Node, str] = {}
        self.mutable = set_variables(program.walk())
        self.bounded = index_arithmetic(program.walk())
        self.declarations: list[str] = []  # of the kernels' entry functions, for other units
        self.tiled: set[Node] = set()  # the lane-tiled kernels
        self.uses_gemm = False
        kernels = [n for n in program.walk() if n.op is KERNEL]
        # kernel -> the float constants it takes as arguments, and the kernel whose functions it runs
        # (``share=False``: each kernel keeps functions of its own, with the contract's parameters)
        self.arguments = shared_kernels.sharable(kernels, self.mutable) if share else {}
        self.runs: dict[Node, Node] = {}
        self._shared: dict[str, Node] = {}  # canonical text of a kernel's functions -> the kernel
        self.blocking = temporal.Blocking(program, lambda k: not _column_blocked(k), self)
        self.pragmas: dict[Node, dict] = {}  # kernel -> its simd_pragmas
        self.interiors: set[Node] = set()  # kernels whose rows run a stencil interior
        self.kernel_sources = [self.kernel(k) for k in kernels]
        self.main_source = self.host()
        pieces = [*self.kernel_sources, self.main_source]
        # what each function costs g++ to compile, in characters of plain code
        self.costs = [len(piece) * (TILED_COST if k < len(kernels) and kernels[k] in self.tiled else 1)
                      for k, piece in enumerate(pieces)]
        self.costs[-1] = int(self.costs[-1] * HOST_COST)
        self.cost = sum(self.costs)
        self.full_source = "\n".join([prelude(self.uses_gemm), "// ---- kernels", *self.kernel_sources, "// ---- host",
                                      self.main_source])
        # (the units call the math core's sin, cos and tan; the code shown inlines them)
        self.uses_math_core = optimizations.enabled("math_core") and math_core.called_by(self.kernel_sources)
        if self.uses_math_core:
            optimizations.fired("math_core")

    def units(self, count: int) -> list[str]:
        """The program as ``count`` translation units (fewer if it has fewer kernels), each the
        prelude, the kernels' declarations and a share of the functions of about equal cost
        (costliest first, each to the cheapest unit): g++ compiles them in parallel. The
        kernels' entry functions have external linkage, hidden outside the library."""
        pieces = [*self.kernel_sources, self.main_source]
        count = max(1, min(count, len(pieces)))
        head = prelude(False) + (gemm.declaration() if self.uses_gemm else "")  # the GEMM is a library of its own
        if self.uses_math_core:
            head = math_core.MARKER + "\n" + head
        if count == 1:
            return ["\n".join([head, "// ---- kernels", *self.kernel_sources, "// ---- host", self.main_source])]
        shares: list[list[int]] = [[] for _ in range(count)]
        sizes = [0] * count
        for k in sorted(range(len(pieces)), key=lambda k: -self.costs[k]):
            smallest = sizes.index(min(sizes))
            shares[smallest].append(k)
            sizes[smallest] += self.costs[k]
        head = "\n".join([head, "// ---- kernels of other units", *self.declarations])
        return ["\n".join([head, "// ---- this unit", *(pieces[k] for k in sorted(share))]) for share in shares]

    def name(self, node: Node) -> str:
        return identifier(node, self.names)

    def uniforms(self, kernel: Node) -> tuple:
        """The scalars ``kernel``'s functions take: the contract's, then its constants."""
        return kernel.contract.uniforms + tuple(self.arguments.get(kernel, ()))

    def function(self, kernel: Node) -> str:
        """The stem of the functions that run ``kernel`` (another kernel's, if it shares them)."""
        return self.runs.get(kernel, kernel).contract.name

    # -- kernels --------------------------------------------------------------------------------

    def kernel(self, kernel: Node) -> str:
        """A kernel as two functions: ``<name>_rows`` runs the last grid axis (for one
        point of the outer axes, or a chunk of a 1-D grid) and takes its buffers as restrict
        parameters, which GCC needs to vectorize it (inside OpenMP's outlined function it
        loses them); ``<name>`` spreads the rows over the threads."""
        contract = kernel.contract
        params, args = [], []
        for buffer in contract.buffers:
            qualifier = "" if buffer in contract.written else "const "
            params.append(f"{qualifier}{self.lang.storage_types[buffer.dtype]}* __restrict {self.name(buffer)}")
            args.append(self.name(buffer))
        for uniform in self.uniforms(kernel):
            params.append(f"const {self.lang.type(uniform.dtype)} {self.name(uniform)}")
            args.append(self.name(uniform))
        name, rank = contract.name, kernel.rank
        declared = len(self.declarations)
        self.declarations.append(f"void {name}({', '.join(params)});")
        if rank == 0:
            body = self._body(kernel, 1)
            body.scope(kernel.body.nodes)
            return "\n".join([f"void {name}({', '.join(params)}) {{", *body.lines, "}"])
        dims = [self._body(kernel, 0).value(d) for d in kernel.shape]
        tiles = tiling.plan(kernel)
        if tiles is not None:
            self.tiled.add(kernel)
            optimizations.fired("tiling")
            if tiles.rows > 1:
                optimizations.fired("tile_rows")
        columns = tiles is None and _column_blocked(kernel)
        if columns:
            optimizations.fired("column_blocks")
        if rank == 1:
            outer = ["tf_start", "tf_stop"]
        elif columns:
            outer = ["i0", "tf_start", "tf_stop"]
        elif tiles is not None and tiles.rows > 1:
            outer = [f"i{k}" for k in range(rank - 2)] + ["tf_lane0", "tf_block0"]
        else:
            outer = [f"i{k}" for k in range(rank - 1)]
        row_params = params + [f"const int32_t {v}" for v in outer]
        body = self._row_loops(kernel, dims, ranged=columns) if tiles is None else tiling.tiled_rows(
            lambda: tiling.TiledEmitter(self.lang, kernel, tiles, self.names, self.mutable, _flat(dims),
                                        self.bounded),
            kernel, tiles, dims)
        # a chain's function in another unit may call the rows of a chained kernel
        linkage = "" if kernel in self.blocking.chained else "static "
        if kernel in self.blocking.chained:
            self.declarations.append(f"void {name}_rows({', '.join(row_params)});")
        rows = [f"{linkage}__attribute__((noinline)) void {name}_rows({', '.join(row_params)}) {{",
                "    if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) return;  // Ctrl-C",
                *body, "}"]
        has_loops = any(n.op is LOOP for n in walk(kernel.body))
        threshold = PARALLEL_THRESHOLD_LOOPS if has_loops else PARALLEL_THRESHOLD
        total = " * ".join(f"(long long)({d})" for d in dims)
        call = f"{name}_rows({', '.join(args)}"
        counts, task = _column_blocks(dims, call) if columns else _tasks(
            kernel, dims, tiles, outer, ROW_CHUNK_LOOPS if has_loops else ROW_CHUNK, call)
        plan = gemm.plan(kernel)
        fast = [] if plan is None else self._gemm_path(kernel, plan, params, args, dims, rows)
        # Tasks in pieces that threads claim (tf_parallel): no thread waits for one that a busy
        # process keeps off its core. Small grids run on the calling thread.
        # at -O1: it only spreads the rows over the threads (12-16% of g++'s time on W6's step)
        lines = [*toolchain.QUICK_BEGIN, f"void {name}({', '.join(params)}) {{", *["    " + line for line in fast],
                 *[f"    const long long tf_count{k} = {count};" for k, count in enumerate(counts)],
                 "    auto tf_tasks = [&](long long tf_begin, long long tf_end) {",
                 "        for (long long tf_task = tf_begin; tf_task < tf_end; tf_task++) {",
                 *["            " + line for line in task], "        }", "    };",
                 f"    const long long tf_count = {' * '.join(f'tf_count{k}' for k in range(len(counts)))};",
                 f"    if ({total} >= {threshold}) tf_parallel(tf_count, tf_tasks);",
                 "    else tf_tasks(0, tf_count);", "}", toolchain.QUICK_END]
        code = "\n".join(rows + lines)
        if kernel in self.arguments and self._share(kernel, code):
            del self.declarations[declared:]
            code = f"// {name} runs {self.function(kernel)}'s functions, with its own buffers and constants"
        declaration, chain = self.blocking.source(kernel, self.name, self.lang, dims, PARALLEL_THRESHOLD)
        if chain:
            self.declarations.append(declaration)
            code += "\n" + chain
        return code

    def _share(self, kernel: Node, code: str) -> bool:
        """Whether ``kernel``'s functions (``code``) are an earlier kernel's up to their own
        names: it then runs that kernel's (optimization "shared_kernels")."""
        own = {self.names[n] for n in (*kernel.contract.buffers, *self.uniforms(kernel), *walk(kernel.body))
               if n in self.names}
        first = self._shared.setdefault(shared_kernels.canonical(code, own, kernel.contract.name), kernel)
        if first is kernel:
            return False
        self.runs[kernel] = first
        optimizations.fired("shared_kernels")
        return True

    def _gemm_path(self, kernel: Node, plan: gemm.Gemm, params: list, args: list, dims: list, rows: list) -> list:
        """The kernel through ``tf_gemm`` when large; ``rows`` gets the function that runs
        the rest of its body (the epilogue) on one row of C, if it has one."""
        self.uses_gemm = True
        body = self._body(kernel, 0)
        outer = [f"i{k}" for k in range(kernel.rank - 1)]
        name = kernel.contract.name
        if not plan.direct:
            row_params = params + [f"const {plan.ctype}* __restrict tf_gemm_c"] + [f"const int32_t {v}" for v in outer]
            rows += [f"static __attribute__((noinline)) void {name}_epilogue({', '.join(row_params)}) {{",
                     *self._row_loops(kernel, dims, plan), "}"]
        # The rows of C as tasks on the worker threads, each row's index split back into axes.
        rows_total = " * ".join(["1LL"] + [f"(long long)({dims[k]})" for k in range(len(outer))])
        split = ["long long tf_rest = tf_row;"]
        for k in reversed(range(len(outer))):
            split.append(f"const int32_t i{k} = (int32_t)(tf_rest % ({dims[k]}));")
            split += [f"tf_rest /= ({dims[k]});"] if k else []
        loops = ["tf_parallel(" + rows_total + ", [&](long long tf_begin, long long tf_end) {",
                 "    for (long long tf_row = tf_begin; tf_row < tf_end; tf_row++) {",
                 *["        " + line for line in split],
                 f"        {name}_epilogue({', '.join(args + ['tf_gemm_c'] + outer)});", "    }", "});"]
        return gemm.fast_path(plan, body.value, self.name, loops)

    def _body(self, kernel: Node, depth: int, interior=None, plan=None) -> BodyEmitter:
        body = (BodyEmitter if plan is None else gemm.EpilogueEmitter)(
            self.lang, kernel.shape, [f"i{k}" for k in range(kernel.rank)], "tf_t" if kernel.rank else None,
            self.names)
        if plan is not None:
            body.gemm = plan
        body.mutable = self.mutable
        body.bounded = self.bounded
        body.interior = interior
        body.loop_pragmas = self.simd_pragmas(kernel)
        body.arguments = frozenset(self.arguments.get(kernel, ()))
        body.depth = depth
        return body

    def simd_pragmas(self, kernel: Node) -> dict:
        """``#pragma omp simd reduction`` for loops that only accumulate (a row sum, a dot
        product): their iterations then run in SIMD lanes, summed in a different order.
        Optimization "simd_reductions", counted once per kernel that gets one."""
        if kernel in self.pragmas:
            return self.pragmas[kernel]
        pragmas = self.pragmas[kernel] = {}
        if not optimizations.enabled("simd_reductions"):
            return pragmas
        for loop in (n for n in walk(kernel.body) if n.op is LOOP):
            reductions = _reduction_vars(loop, self.mutable)
            if reductions:
                clauses = " ".join(f"reduction({op}:{', '.join(self.name(v) for v in vs)})"
                                   for op, vs in sorted(reductions.items()))
                pragmas[loop] = f"#pragma omp simd {clauses}"
        if pragmas:
            optimizations.fired("simd_reductions")
        return pragmas

    def _row_loops(self, kernel: Node, dims: list, plan=None, ranged=False) -> list[str]:
        """The loop over the last grid axis. When loads are shifted along it (stencils), it is
        split into borders, where indices are clamped, and an interior, where they cannot
        leave the buffer, so the interior needs no clamping and vectorizes: optimization
        "stencil_interior", counted once per kernel."""
        rank = kernel.rank
        offsets = _inner_offsets(kernel) if optimizations.enabled("stencil_interior") else set()
        if offsets and kernel not in self.interiors:
            self.interiors.add(kernel)
            optimizations.fired("stencil_interior")
        n, last = dims[-1], f"i{rank - 1}"
        start, stop = ("tf_start", "tf_stop") if rank == 1 or ranged else ("0", n)
        if offsets:
            low, high = max(0, -min(offsets)), max(0, max(offsets))
            ranges = [(start, f"tf_min_index({low}, {stop})", None),
                      (f"tf_max_index({low}, {start})", f"tf_min_index({n} - {high}, {stop})", (low, high)),
                      (f"tf_max_index(tf_max_index({low}, {n} - {high}), {start})", stop, None)]
        else:
            ranges = [(start, stop, None)]
        flat = _flat(dims)
        lines = []
        for begin, end, interior in ranges:
            lines.append(f"    for (int32_t {last} = {begin}; {last} < {end}; {last}++) {{")
            lines.append(f"        const int32_t tf_t = {flat};")
            body = self._body(kernel, 2, interior, plan)
            body.scope(kernel.body.nodes)
            lines += body.lines
            lines.append("    }")
        return lines

    # -- host ------------------------------------------------------------------------------------

    def host(self) -> str:
        emitter = _HostEmitter(self)
        emitter.depth = 1
        emitter.scope(self.program.root.nodes)
        emitter.outputs()
        # -O1: the host code only checks sizes and calls kernels (g++ took 0.3-0.6 s on it at -O3)
        lines = ['extern "C" __attribute__((visibility("default"), optimize("O1"))) int tf_main(const tf_arg* in,',
                 "                                                       tf_arg* out, char* error, int error_size, "
                 "const tf_allocator* allocator) {",
                 "    if (allocator) tf_allocator_in_use = *allocator;",
                 "    if (tf_allocator_in_use.interrupted) *tf_allocator_in_use.interrupted = 0;  // an earlier Ctrl-C",
                 "    tf_error_out = error;",
                 "    tf_error_size = error_size;",
                 *emitter.lines, "    return 0;", "}"]
        return "\n".join(self.profile_counters() + lines)

    def profile_counters(self) -> list[str]:
        """A profiling build's per-kernel (nanoseconds, launches, bytes), which the runtime
        reads and clears through ``tf_profile_counters``; nothing otherwise."""
        if not self.profile:
            return []
        count = sum(1 for n in self.program.walk() if n.op is KERNEL)
        return ["#include <time.h>",
                f"static long long tf_profile[{3 * max(count, 1)}];",
                'extern "C" __attribute__((visibility("default"))) long long* tf_profile_counters() '
                "{ return tf_profile; }",
                "static inline long long tf_profile_now() {",
                "    struct timespec t;",
                "    clock_gettime(CLOCK_MONOTONIC, &t);",
                "    return t.tv_sec * 1000000000LL + t.tv_nsec;",
                "}"]


class _HostEmitter(HostEmitter, BodyEmitter):
    def __init__(self, cpp: CppProgram):
        super().__init__(cpp.lang, names=cpp.names)
        self.cpp = cpp
        self.program = cpp.program
        self.mutable = cpp.mutable

    def stmt_input(self, node: Node) -> None:
        k = node.attrs["index"]
        ctype = self.lang.storage_types[node.dtype]
        self.emit(f"const {ctype}* {self.name(node)} = (const {ctype}*)in[{k}].data;")

    def stmt_input_dim(self, node: Node) -> None:
        self.emit(f"const int32_t {self.name(node)} = in[{node.args[0].attrs['index']}].shape[{node.attrs['axis']}];")

    def stmt_assert(self, node: Node) -> None:
        message = node.attrs["message"] + (f" (at {node.location})" if node.location is not None else "")
        values = ", ".join(f"(long long)({self.value(a)})" for a in node.args[1:]) or "0"
        self.emit(f"if (!({self.value(node.args[0])})) {{")
        self.emit(f"    const long long tf_values[] = {{{values}}};")
        self.emit(f"    return tf_fail({c_string(message)}, tf_values, {len(node.args) - 1});")
        self.emit("}")

    def stmt_alloc(self, node: Node) -> None:
        if node in self.cpp.blocking.scratch:  # lives in a chain's scratch rows
            return
        count = " * ".join(f"(long long)({self.value(d)})" for d in node.shape) or "1"
        name = self.name(node)
        ctype = self.lang.storage_types[node.dtype]
        self.check_sizes(node)
        size = f", {node.dtype.itemsize}" if node.dtype.itemsize != 4 else ""
        self.emit(f"tf_buffer {name}_memory({count}, {c_string(node.name or name)}{size});")
        self.emit(f"if (!{name}_memory.data) return 1;")
        self.emit(f"{ctype}* {name} = ({ctype}*){name}_memory.data;")

    def check_sizes(self, node: Node) -> None:
        """The size checks of an allocation or a kernel's grid (``HostEmitter.size_checks``)."""
        for check in self.size_checks(node):
            failed, values = self.c_size_check(node, check)
            self.emit(f"if ({failed}) {{")
            self.emit(f"    const long long tf_sizes[] = {{{', '.join(values)}}};")
            self.emit(f"    return tf_fail({c_string(check.message)}, tf_sizes, {len(values)});")
            self.emit("}")

    def stmt_free(self, node: Node) -> None:
        if node.args[0] in self.cpp.blocking.scratch or node in self.cpp.blocking.deferred:
            return  # a chain's scratch, or freed after the chain
        self.emit(f"{self.name(node.args[0])}_memory.reset();")

    def stmt_readback(self, node: Node) -> None:
        memory = node.args[0]
        index = self.flat_index(memory, node.args[1:]) if len(node.args) > 1 else "0"
        self.emit(self.lang.declare(node.dtype, self.name(node),
                                    self.lang.buffer_read(self.name(memory), index, memory.dtype)))

    def stmt_region(self, node: Node) -> None:
        self.emit(f"// region {'begin' if node.attrs['begin'] else 'end'}: {c_comment(node.attrs['name'])}")

    def stmt_kernel(self, node: Node) -> None:
        self.check_sizes(node)
        if self.cpp.profile:
            self.emit(f"const long long tf_profile_start{node.contract.index} = tf_profile_now();")
        chained = self.cpp.blocking.host_call(node, self.name, self.value)
        if chained is not None:
            for line in chained:
                self.emit(line)
            if chained:
                self.emit("TF_STOP_IF_INTERRUPTED();")
        else:
            args = [self.name(b) for b in node.contract.buffers] + [self.value(u) for u in self.cpp.uniforms(node)]
            self.emit(f"{self.cpp.function(node)}({', '.join(args)});")
            self.emit("TF_STOP_IF_INTERRUPTED();")
        if self.cpp.profile:
            self.profile_launch(node)
        for buffer, message in self.finite_checks(node):
            if buffer in self.cpp.blocking.scratch:  # (a chain's rows, never whole)
                continue
            count = " * ".join(f"(long long)({self.value(d)})" for d in buffer.shape) or "1"
            element = self.lang.buffer_read(self.name(buffer), "tf_k", buffer.dtype)
            self.emit(f"for (long long tf_k = 0; tf_k < {count}; ++tf_k) {{")
            self.emit(f"    if (!__builtin_isfinite((double)({element}))) "
                      f"return tf_fail({c_string(message.replace('{', '{{').replace('}', '}}'))}, nullptr, 0);")
            self.emit("}")

    def profile_launch(self, node: Node) -> None:
        """Add the launch's time, its count and the bytes of its buffers (kernel_traffic) to
        the kernel's row of tf_profile (a chain's time goes to its last kernel)."""
        k = node.contract.index
        moved = " + ".join(f"{passes * b.dtype.itemsize}LL * "
                           + " * ".join(["1LL"] + [f"(long long)({self.value(d)})" for d in b.shape])
                           for b, passes in kernel_traffic(node) if passes) or "0"
        self.emit(f"tf_profile[{3 * k}] += tf_profile_now() - tf_profile_start{k};")
        self.emit(f"tf_profile[{3 * k + 1}] += 1;")
        self.emit(f"tf_profile[{3 * k + 2}] += {moved};")

    def block(self, node: Node) -> None:
        if node.op is LOOP:  # a host loop may run long without kernels
            self.depth += 1
            self.emit("TF_STOP_IF_INTERRUPTED();")
            self.depth -= 1
        super().block(node)

    def interrupt_kind(self, loop: Node) -> str | None:
        return None  # (every trip of a host loop looks already, above)

    def outputs(self) -> None:
        released = {}
        for k, out in enumerate(self.cpp.program.outputs):
            name = self.name(out)
            if out.op is INPUT:
                self.emit(f"out[{k}].data = in[{out.attrs['index']}].data;")
            elif out in released:
                self.emit(f"out[{k}].data = out[{released[out]}].data;")
            else:
                self.emit(f"out[{k}].data = {name}_memory.release();")
                released[out] = k
            self.emit(f"out[{k}].rank = {out.rank};")
            for axis, dim in enumerate(out.shape):
                self.emit(f"out[{k}].shape[{axis}] = {self.value(dim)};")
