"""Temporal blocking: a chain of stencil kernels run several steps per pass over bands of rows.

A time-stepping program (ten wave steps in one call) lowers to consecutive kernels on one
grid, each reading the last ones' outputs at constant row offsets (``u[i - 1, j]``). Run one
after another, each kernel streams its inputs and outputs through memory, so the chain is
bandwidth bound. Here the grid's rows are cut into bands: a task computes, for its band plus
a halo of rows that shrinks by each read's reach (overlapped tiling), every kernel of the
chain into per-thread scratch rows that stay in cache, and only the values used after the
chain reach memory. Rows outside the grid are never computed: the halo stops at the grid's
edges, where the kernels' clamped indices read what they read unblocked.

The kernels' row functions run unchanged: a scratch buffer is passed as a pointer offset by
its first computed row, so ``buffer[i0 * width + j]`` lands in the scratch for the rows the
task computed. Only rows matter: bands span whole rows, so a read may go anywhere along the
other axes. Scratch rows start as garbage, so a chained kernel must store every element of
what it writes: a kernel whose only store to a buffer is under an ``if`` (which keeps the
buffer's other elements as they were) ends a chain.

Optimization "chains" (tensorfrost/optimizations.py): off, no chain is planned; each call of
a chain that runs in bands counts once (rows too wide for the scratch run unblocked).
"""

from __future__ import annotations

from .. import optimizations
from ..ir import dtypes as dt
from ..ir.node import Node, Program, walk
from ..ir.ops import ADD, ALLOC, CLAMP, CONST, DIM_ID, FREE, INPUT_DIM, KERNEL, LOAD, LOOP, STORE, SUB
from ..ir.shapes import dims_equal, shapes_equal, static_value
from . import toolchain

# Measured on W2 (4096^2, 10 steps, 2 cores): bands of 32-128 rows gave 1.5-1.8x the C, within
# the noise of a loaded machine. The halo costs about halo / BAND more work (14% at 64 rows
# and 9 rows of halo); a slot of 64 + 2 * 9 rows of 4096 floats (1.3 MB) stays in L3, not L2.
BAND = 64  # rows a task writes
MAX_HALO = 10  # rows of halo on each side of a band: longer chains are cut into segments
SCRATCH_LIMIT = 24 << 20  # bytes of scratch per thread above which a chain runs unblocked


class Chain:
    """Consecutive kernels run together: ``halos[k]`` rows computed beyond the band on each
    side by kernel ``k``; ``scratch`` the buffers that live only inside the chain (never
    allocated), each with a scratch slot ``slots[buffer]``; ``copied`` the buffers also used
    after the chain but computed with a halo (copied from scratch for the band's rows);
    ``deferred`` the frees between its kernels of buffers it reads, done after it (it runs
    where its last kernel was)."""

    def __init__(self, kernels: list, halos: list, scratch: set, copied: set, deferred: list):
        self.kernels = kernels
        self.deferred = deferred
        self.halos = halos
        self.scratch = scratch
        self.copied = copied
        self.slots = _slots(kernels, scratch | copied)
        self.name = kernels[-1].contract.name + "_chain"


def plan(program: Program, plain_rows) -> list[Chain]:
    """The chains of ``program`` worth blocking; ``plain_rows(kernel)`` says whether the
    emitter runs the kernel's rows as ``<name>_rows(buffers, uniforms, i0, ..)``."""
    if not optimizations.enabled("chains"):
        return []
    outside = _uses_outside_kernels(program)
    chains = []
    for run in _runs(program, plain_rows):
        for segment in _segments(run):
            chain = _chain(segment, outside, program)
            chains += [chain] if chain else []
    return chains


def _host_scopes(program: Program):
    yield program.root
    for node in program.walk():
        if node.op is KERNEL:
            continue
        if node.body is not None and not any(o.op is KERNEL for o in node.owner_chain()):
            yield node.body


def _candidate(kernel: Node, plain_rows) -> bool:
    """A kernel on a grid of rank >= 2 whose row function is plain, storing its own element
    and nothing else, and every element of each buffer it writes (its rows in scratch are
    then whole), with no loops (whose bounds could read rows anywhere), no scatters, and no
    reads of what it writes."""
    if kernel.rank < 2 or not plain_rows(kernel):
        return False
    point = [f"dim{k}" for k in range(kernel.rank)]
    for node in walk(kernel.body):
        if node.op is LOOP or node.op.atomic or (node.op is LOAD and node.args[0] in kernel.contract.written):
            return False
        if node.op is STORE:
            index = node.args[2:]
            if not shapes_equal(node.args[0].shape, kernel.shape) or [
                    f"dim{a.attrs['axis']}" if a.op is DIM_ID and shapes_equal(a.shape, kernel.shape) else None
                    for a in index] != point:
                return False
    # a store under an if keeps the buffer's other elements as they were: another store must
    # write every element
    unconditional = {n.args[0] for n in kernel.body.nodes if n.op is STORE}
    # (scratch rows are laid out in 32-bit words)
    return kernel.contract.written <= unconditional and all(b.dtype.itemsize == 4 for b in kernel.contract.written)


def _runs(program: Program, plain_rows):
    """Maximal runs of candidate kernels on one grid, separated in their host scope only by
    allocations, frees and scalar arithmetic."""
    for scope in _host_scopes(program):
        run: list = []
        for node in scope.nodes:
            if node.op is KERNEL and _candidate(node, plain_rows) and (
                    not run or shapes_equal(node.shape, run[0].shape)):
                run.append(node)
            elif node.op is KERNEL and _candidate(node, plain_rows):
                yield run
                run = [node]
            elif node.op not in (ALLOC, FREE) and not (node.rank == 0 and node.op.kind in (
                    "elementwise", "const") or node.op in (CONST, INPUT_DIM)):
                yield run
                run = []
        yield run


def _row_reach(index: Node, grid) -> tuple[int, int] | None:
    """(below, above): ``index`` stays within rows [i0 - below, i0 + above] of the grid's row
    ``i0`` (as clamped to the grid), or None if it is not a constant offset."""
    if index.op is DIM_ID and index.attrs["axis"] == 0 and shapes_equal(index.shape, grid):
        return 0, 0
    if index.op in (ADD, SUB) and len(index.args) == 2:
        base, amount = index.args
        if index.op is ADD and static_value(base) is not None:
            base, amount = amount, base
        shift = static_value(amount) if amount.dtype is dt.int32 else None
        reach = _row_reach(base, grid) if shift is not None else None
        if reach is None:
            return None
        shift = shift if index.op is ADD else -shift
        return reach[0] + max(0, -shift), reach[1] + max(0, shift)
    if index.op is CLAMP and static_value(index.args[1]) == 0 and _is_last_row(index.args[2], grid[0]):
        return _row_reach(index.args[0], grid)
    return None


def _is_last_row(bound: Node, rows: Node) -> bool:
    if static_value(bound) is not None and static_value(rows) is not None:
        return static_value(bound) == static_value(rows) - 1
    return bound.op is SUB and static_value(bound.args[1]) == 1 and dims_equal(bound.args[0], rows)


def _reads(kernel: Node, written: dict) -> dict | None:
    """{buffer written earlier in the chain: rows of reach} for ``kernel``, or None if it
    reads one of them other than at a constant row offset."""
    reach: dict = {}
    for node in walk(kernel.body):
        if node.op is LOAD and node.args[0] in written:
            memory = node.args[0]
            rows = _row_reach(node.args[1], kernel.shape) if (
                len(node.args) == 1 + kernel.rank and shapes_equal(memory.shape, kernel.shape)) else None
            if rows is None:
                return None
            reach[memory] = max(reach.get(memory, 0), *rows)
    return reach


def _segments(run: list):
    """Pieces of a run whose halo stays within MAX_HALO, each a list of (kernel, reads)."""
    segment: list = []
    for kernel in run:
        written = {b for other, _ in segment for b in other.contract.written}
        used = {b for other, _ in segment for b in other.contract.buffers}
        reads = _reads(kernel, written)
        # a buffer that an earlier kernel uses is written (in place): other bands still read it
        if reads is None or used & kernel.contract.written or (
                max(_halos(segment + [(kernel, reads)])) > MAX_HALO):
            yield segment
            segment, reads = [], {}
        segment.append((kernel, reads))
    yield segment


def _halos(segment: list) -> list[int]:
    """Rows each kernel computes beyond the band: enough for every later read of its outputs."""
    halos = [0] * len(segment)
    for k in reversed(range(len(segment))):
        kernel = segment[k][0]
        for later in range(k + 1, len(segment)):
            for buffer, rows in segment[later][1].items():
                if buffer in kernel.contract.written:
                    halos[k] = max(halos[k], halos[later] + rows)
    return halos


def _uses_outside_kernels(program: Program) -> dict:
    """{buffer: nodes that use it, other than allocating or freeing it}, kernels counted as
    a whole (their loads and stores are inside them)."""
    uses: dict = {}
    skip: set = set()
    for node in program.walk():
        if node in skip:
            continue
        if node.op is KERNEL:
            skip.update(walk(node.body))
            for buffer in node.contract.buffers:
                uses.setdefault(buffer, []).append(node)
        elif node.op is not FREE:
            for arg in node.args:
                uses.setdefault(arg, []).append(node)
    return uses


def _chain(segment: list, uses: dict, program: Program) -> Chain | None:
    kernels = [k for k, _ in segment]
    halos = _halos(segment)
    if len(kernels) < 2 or not any(halos):
        return None
    inside = set(kernels)
    written = {b for k in kernels for b in k.contract.written}
    scratch = {b for b in written if b.op is ALLOC and b not in program.outputs
               and all(u in inside for u in uses.get(b, ()))}
    copied = {b for k, kernel in enumerate(kernels) if halos[k] for b in kernel.contract.written} - scratch
    nodes = kernels[0].scope.nodes
    between = nodes[nodes.index(kernels[0]):nodes.index(kernels[-1])]
    deferred = [n for n in between if n.op is FREE and n.args[0] not in scratch]
    return Chain(kernels, halos, scratch, copied, deferred)


def _slots(kernels: list, buffers: set) -> dict:
    """A scratch slot per buffer, reused once the buffer's last reader in the chain has run."""
    last_read = {}
    for k, kernel in enumerate(kernels):
        for buffer in kernel.contract.buffers:
            if buffer in buffers:
                last_read[buffer] = k
    slots, free, busy = {}, [], []
    for k, kernel in enumerate(kernels):
        for buffer, slot in list(busy):
            if last_read[buffer] < k:
                free.append(slot)
                busy.remove((buffer, slot))
        for buffer in sorted((b for b in kernel.contract.written if b in buffers), key=lambda b: b.id):
            slot = free.pop() if free else len(set(slots.values()))
            slots[buffer] = slot
            busy.append((buffer, slot))
    return slots


_SCRATCH_HELPER = """#ifndef TF_CHAIN_SCRATCH
#define TF_CHAIN_SCRATCH
// A thread's scratch rows for chain bands, kept from call to call (freed when the thread ends).
struct tf_chain_scratch_t {
    char* data = nullptr;
    long long bytes = 0;
    ~tf_chain_scratch_t() { free(data); }
};
static char* tf_chain_scratch(long long bytes) {
    static thread_local tf_chain_scratch_t held;
    if (held.bytes < bytes) {
        free(held.data);
        held.data = (char*)aligned_alloc(64, (size_t)((bytes + 63) / 64 * 64));
        held.bytes = held.data ? bytes : 0;
    }
    return held.data;
}
#endif"""


class Blocking:
    """The chains of a program as the C++ emitter needs them: which kernels run inside a
    chain function (their row functions are then called from it), which buffers are never
    allocated, and the source and host call of each chain."""

    def __init__(self, program: Program, plain_rows, calls):
        self.chains = plan(program, plain_rows)
        self.calls = calls  # .uniforms(kernel): the scalars its functions take; .function(kernel): their stem
        self.chained = {k: chain for chain in self.chains for k in chain.kernels}
        self.scratch = {b for chain in self.chains for b in chain.scratch}
        self.deferred = {free for chain in self.chains for free in chain.deferred}

    def host_call(self, kernel: Node, name, value) -> list[str] | None:
        """The host's lines for a chained kernel: none until the chain's last kernel, then
        the chain's call and its deferred frees; None for a kernel outside chains."""
        chain = self.chained.get(kernel)
        if chain is None:
            return None
        if kernel is not chain.kernels[-1]:
            return []
        buffers, uniforms = _params(chain, self.calls)
        args = [name(b) for b in buffers] + [value(u) for u in uniforms]
        return [f"if ({chain.name}({', '.join(args)})) return 1;",
                *(f"{name(free.args[0])}_memory.reset();" for free in chain.deferred)]

    def source(self, kernel: Node, name, lang, dims: list, parallel_threshold: int) -> tuple[str, str]:
        """The declaration and the source of the chain function that ends with ``kernel``,
        or empty strings if no chain ends with it."""
        chain = self.chained.get(kernel)
        if chain is None or kernel is not chain.kernels[-1]:
            return "", ""
        return _chain_source(chain, self.calls, name, lang, dims, parallel_threshold)


def _params(chain: Chain, calls) -> tuple[list, list]:
    """The chain function's buffers (all its kernels', less the scratch) and uniforms."""
    buffers, uniforms = [], []
    for kernel in chain.kernels:
        buffers += [b for b in kernel.contract.buffers if b not in chain.scratch and b not in buffers]
        uniforms += [u for u in calls.uniforms(kernel) if u not in uniforms]
    return buffers, uniforms


def _chain_source(chain: Chain, calls, name, lang, dims: list, parallel_threshold: int) -> tuple[str, str]:
    buffers, uniforms = _params(chain, calls)
    written = {b for k in chain.kernels for b in k.contract.written}
    storage_types = lang.storage_types
    params = [f"{'' if b in written else 'const '}{storage_types[b.dtype]}* __restrict {name(b)}" for b in buffers]
    params += [f"const {lang.type(u.dtype)} {name(u)}" for u in uniforms]
    halo = max(chain.halos)
    slot_count = len(set(chain.slots.values()))
    width = " * ".join(f"(long long)({d})" for d in dims[1:])
    lines = [_SCRATCH_HELPER,
             f"// chain of {len(chain.kernels)} kernels in bands of {BAND} rows, with up to {halo} rows of halo",
             # -O1, as the host: it only calls the kernels' rows band by band, and g++ took
             # about 0.25 s on each chain of 22 kernels at -O3 (0.1 s at -O1)
             *toolchain.QUICK_BEGIN,
             f"int {chain.name}({', '.join(params)}) {{",
             f"    const int32_t tf_rows = {dims[0]};",
             f"    const long long tf_width = {width};",
             f"    const long long tf_slot = {BAND + 2 * halo}LL * tf_width;",
             f"    if ({slot_count}LL * tf_slot * 4 > {SCRATCH_LIMIT}LL) {{  // rows too wide: unblocked",
             *["        " + line for line in _unblocked(chain, calls, name, storage_types, dims)],
             "        return 0;", "    }",
             f"    TF_COUNT({optimizations.index('chains')});  // in bands",
             "    int tf_failed = 0;",
             "    auto tf_tasks = [&](long long tf_begin, long long tf_end) {",
             f"        char* tf_scratch = tf_chain_scratch({slot_count}LL * tf_slot * 4);",
             "        if (!tf_scratch) { __atomic_store_n(&tf_failed, 1, __ATOMIC_RELAXED); return; }",
             "        for (long long tf_task = tf_begin; tf_task < tf_end; tf_task++) {",
             f"            const int32_t tf_first = (int32_t)(tf_task * {BAND});",
             f"            const int32_t tf_last = tf_min_index(tf_rows, tf_first + {BAND});",
             *["            " + line for line in _band(chain, calls, name, storage_types, dims)],
             "        }", "    };",
             f"    const long long tf_count = ((long long)tf_rows + {BAND - 1}) / {BAND};",
             f"    if ((long long)tf_rows * tf_width >= {parallel_threshold}) tf_parallel(tf_count, tf_tasks);",
             "    else tf_tasks(0, tf_count);",
             "    if (tf_failed) return tf_fail(\"out of memory for a thread's scratch rows\", nullptr, 0);",
             "    return 0;", "}", toolchain.QUICK_END]
    return f"int {chain.name}({', '.join(params)});", "\n".join(lines)


def _band(chain: Chain, calls, name, storage_types, dims: list) -> list[str]:
    """One task's lines: each kernel's rows over the band and its halo, outputs in scratch."""
    lines = []
    banded = {}  # buffer -> the name of its scratch pointer
    for kernel, halo in zip(chain.kernels, chain.halos):
        k = kernel.contract.name
        lines.append(f"{{  // {k}: rows of the band and {halo} more on each side")
        lines.append(f"    const int32_t tf_low = tf_max_index(0, tf_first - {halo});")
        lines.append(f"    const int32_t tf_high = tf_min_index(tf_rows, tf_last + {halo});")
        for buffer in sorted((b for b in kernel.contract.written if b in chain.slots), key=lambda b: b.id):
            ctype = storage_types[buffer.dtype]
            banded[buffer] = f"{name(buffer)}_band"
            # offset by the first computed row, so that row i0 of the grid is scratch row i0 - tf_low
            lines.insert(0, f"{ctype}* {banded[buffer]};")
            lines.append(f"    {banded[buffer]} = ({ctype}*)(tf_scratch + {chain.slots[buffer]}LL * tf_slot * 4)"
                         " - (long long)tf_low * tf_width;")
        args = [banded.get(b, name(b)) for b in kernel.contract.buffers] + [name(u) for u in calls.uniforms(kernel)]
        loops, indices = [], ["i0"]
        for axis in range(1, kernel.rank - 1):
            loops.append(f"for (int32_t i{axis} = 0; i{axis} < {dims[axis]}; i{axis}++)")
            indices.append(f"i{axis}")
        lines.append("    for (int32_t i0 = tf_low; i0 < tf_high; i0++)")
        lines += [f"    {'    ' * (n + 1)}{loop}" for n, loop in enumerate(loops)]
        lines.append(f"    {'    ' * (len(loops) + 1)}{calls.function(kernel)}_rows({', '.join(args + indices)});")
        for buffer in sorted((b for b in kernel.contract.written if b in chain.copied), key=lambda b: b.id):
            lines.append(f"    memcpy({name(buffer)} + (long long)tf_first * tf_width, {banded[buffer]} + "
                         f"(long long)tf_first * tf_width, (size_t)((long long)(tf_last - tf_first) * tf_width * 4));")
        lines.append("}")
    return lines


def _unblocked(chain: Chain, calls, name, storage_types, dims: list) -> list[str]:
    """The kernels one after another, the scratch buffers allocated whole."""
    count = " * ".join(f"(long long)({d})" for d in dims)
    lines = []
    for buffer in sorted(chain.scratch, key=lambda b: b.id):
        ctype = storage_types[buffer.dtype]
        lines += [f"tf_buffer {name(buffer)}_memory({count}, \"scratch\");",
                  f"if (!{name(buffer)}_memory.data) return 1;",
                  f"{ctype}* {name(buffer)} = ({ctype}*){name(buffer)}_memory.data;"]
    for kernel in chain.kernels:
        args = [name(b) for b in kernel.contract.buffers] + [name(u) for u in calls.uniforms(kernel)]
        lines.append(f"{calls.function(kernel)}({', '.join(args)});")
    return lines
