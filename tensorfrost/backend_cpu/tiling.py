"""Lane tiling: kernels whose elements each run a loop (a matmul's sum over k, an n-body
sum over all bodies) are computed a tile of elements at a time.

Per element, such a loop is scalar: ``for k: acc += A[i, k] * B[k, j]``. Interchanged, a
tile of ``LANES`` consecutive elements along the last grid axis (times ``ROWS`` along the
axis before it) steps through the loop together: ``for k: for each lane: acc[lane] += ...``,
so the lane loop vectorizes and values that do not depend on the lane (``A[i, k]``) are
loaded once per tile. Values are arrays only where they must survive from one lane loop
to another (variables, values used across loops); the rest stay scalars.

A lane loop steps along the tile axes (rows "r", lanes "l") that its statements vary
along, and every statement in it that writes memory varies along all of them: an array
(a variable, a value used in another loop) gets a slot per point of the loop, a store
that varies along fewer axes than the tile has a lane loop of its own. Otherwise a row's
accumulator (``acc += A[i, k]`` for every column j) would be added to once per lane; and
g++ 12 (-O3, AVX2) miscompiles a store that an inner loop does not move
(``for r: for l: v[r] = A[r * K]`` stores zeros).

Per-element control flow runs *masked*, as SIMD hardware runs it: an ``if`` computes its
body for every lane and keeps the results of the lanes whose condition holds; a ``break``
clears its lanes' live flags, and the tile leaves the loop when no lane is live (a
Mandelbrot or ray-marching loop: a tile of pixels iterates together until the last one
escapes). Masked tiles are one row of lanes, so that lanes that finish early wait for few
others. Kernels with ``continue``, scatters, or loops inside an ``if`` are not tiled, nor
kernels whose loops' bounds differ between the elements of a tile.
"""

from __future__ import annotations

from .. import optimizations
from ..emit.clike import BodyEmitter, Lang
from ..ir.node import Node, walk
from ..ir.ops import BREAK, CONTINUE, DIM_ID, IF, KERNEL, LOAD, LOOP, SET, STORE
from ..ir.shapes import shapes_equal, static_value
from ..opt.analysis import set_variables

LANES = 32  # elements along the last grid axis per tile (two AVX-512 vectors of floats)
ROWS = 8  # elements along the axis before it, sharing the loads that ignore the last axis
ROW_BLOCK = 64  # rows a thread runs for one tile of lanes: enough work items for every thread


class Tiling:
    """Which values vary with the tile's row ("r") and lane ("l") axes, which loops run
    masked (they hold a ``break``), the run (lane loop) of each element statement, the axes
    each run steps along, and the values kept in arrays."""

    def __init__(self, kernel: Node, variance: dict, masked_loops: set, rows: int, run_of: dict, arrays: set):
        self.kernel = kernel
        self.variance = variance
        self.masked_loops = masked_loops
        self.rows = rows
        self.run_of = run_of
        self.run_axes = _run_axes(kernel, run_of, variance)
        self.arrays = arrays
        # A narrow last axis (a matmul with 10 columns) is one whole tile of that width, so
        # its lane loops have constant bounds too.
        width = static_value(kernel.shape[-1]) if kernel.rank >= 2 else None
        self.lanes = width if width is not None and 0 < width < LANES else LANES


def plan(kernel: Node) -> Tiling | None:
    """A tiling for ``kernel``, or None where it would not pay, would not be valid, or
    optimization "tiling" is off."""
    nodes = list(walk(kernel.body))
    if kernel.rank == 0 or not any(n.op is LOOP for n in nodes) or not optimizations.enabled("tiling"):
        return None
    if any(n.op is CONTINUE or n.op.atomic for n in nodes):
        return None
    if static_value(kernel.shape[-1]) == 1:
        return None  # tiles one lane wide vectorize nothing; the loops vectorize themselves (simd_reductions)
    if any(inner.op is LOOP for n in nodes if n.op is IF for inner in walk(n.body)):
        return None
    masked_loops = {n.enclosing_loop() for n in nodes if n.op is BREAK}
    masked = bool(masked_loops) or any(n.op is IF for n in nodes)
    rows = ROWS if kernel.rank >= 2 and not masked and optimizations.enabled("tile_rows") else 1
    last = kernel.rank - 1
    # A tile of one row has no row axis: what varies only with the row is uniform in it.
    axes = {last: "l", last - 1: "r"} if rows > 1 else {last: "l"}
    variance: dict[Node, frozenset] = {}
    _propagate(kernel, nodes, axes, masked_loops, variance)
    if any(variance.get(a) for n in nodes if n.op is LOOP for a in n.args):
        return None  # per-element loop bounds: elements of a tile would run different loops
    if _gathers_across_lanes(kernel, variance):
        return None  # lanes would read far apart; vectorize the loops themselves instead
    for node in nodes:  # masked statements run in the lane loops
        if node.op in (IF, BREAK) or _under_mask(node, ()):
            variance[node] = variance.get(node, frozenset()) | {"l"}
    run_of = _runs(kernel, variance, frozenset(axes.values()))
    arrays = _arrays(kernel, run_of, set_variables(nodes))
    # What a lane loop writes to memory varies along every axis it steps along (arrays,
    # variables); growing one may grow the axes of the loops that use it.
    while True:
        run_axes = _run_axes(kernel, run_of, variance)
        short = {}
        for node, run in run_of.items():
            written = node.args[0] if node.op is SET else node if node in arrays else None
            if written is not None and not run_axes[run] <= variance[written]:
                short[written] = short.get(written, variance[written]) | run_axes[run]
        if not short:
            break
        variance.update(short)
        _propagate(kernel, nodes, axes, masked_loops, variance)
    return Tiling(kernel, variance, masked_loops, rows, run_of, arrays)


def _propagate(kernel: Node, nodes: list, axes: dict, masked_loops: set, variance: dict) -> None:
    """Grow ``variance`` to its fixed point: a value varies along the axes of the grid
    indices it depends on, and a variable along those of everything assigned to it."""
    changed = True
    while changed:
        changed = False
        for node in nodes:
            found = set(variance.get(node, ()))
            if node.op is DIM_ID and shapes_equal(node.shape, kernel.shape) and node.attrs["axis"] in axes:
                found.add(axes[node.attrs["axis"]])
            operands = node.args[1:] if node.op in (LOAD, STORE) else node.args
            for arg in operands:
                found |= variance.get(arg, frozenset())
            if node.op in (SET, STORE) and _under_mask(node, masked_loops):
                found.add("l")  # lanes leave the loop or take the branch at different times
            if found != variance.get(node, frozenset()):
                variance[node] = frozenset(found)
                changed = True
            if node.op is SET:
                target = node.args[0]
                merged = variance.get(target, frozenset()) | variance.get(node, frozenset())
                if merged != variance.get(target, frozenset()):
                    variance[target] = merged
                    changed = True


def _runs(kernel: Node, variance: dict, tile_axes: frozenset) -> dict[Node, int]:
    """{element statement: its run}: consecutive element statements of a scope, up to a
    loop or a uniform statement that orders memory, run in one lane loop (a masked ``if``
    and its body in its condition's); a store that varies along fewer than all the tile's
    axes runs alone."""
    run_of: dict[Node, int] = {}
    counter = 0

    def assign(nodes):
        nonlocal counter
        current = None
        for node in nodes:
            if node.op is LOOP:
                current = None
                counter += 1
                assign(node.body.nodes)
                counter += 1
            elif node.op is STORE and variance.get(node) and variance[node] != tile_axes:
                counter += 1
                run_of[node] = counter
                current = None
            elif variance.get(node):
                if current is None:
                    counter += 1
                    current = counter
                run_of[node] = current
                if node.op is IF:
                    run_of.update((inner, current) for inner in walk(node.body))
            elif _orders_memory(node, kernel):
                current = None
    assign(kernel.body.nodes)
    return run_of


def _orders_memory(node: Node, kernel: Node) -> bool:
    """True for a uniform statement that must stay between the lane loops around it, in
    program order: an assignment, a store, a load of a buffer the kernel writes."""
    return node.op in (SET, STORE) or (node.op is LOAD and node.args[0] in kernel.contract.written)


def _arrays(kernel: Node, run_of: dict, variables: set) -> set[Node]:
    """Element values that must outlive their lane loop: variables, and values used by
    a statement in another run (another loop body, or after a loop). The grid's indices
    are the lane loops' own counters."""
    arrays = {n for n in run_of if n in variables}
    for node in walk(kernel.body):
        for arg in node.args:
            if arg in run_of and run_of.get(node) != run_of[arg]:
                arrays.add(arg)
    return {n for n in arrays if not _grid_index(n, kernel)}


def _grid_index(node: Node, kernel: Node) -> bool:
    return node.op is DIM_ID and shapes_equal(node.shape, kernel.shape)


def _run_axes(kernel: Node, run_of: dict, variance: dict) -> dict[int, frozenset]:
    """The axes each run's lane loop steps along: those its statements vary along (a
    grid index alone is no statement: the loop defines it where it is used)."""
    axes: dict[int, frozenset] = {}
    for node, run in run_of.items():
        axes[run] = axes.get(run, frozenset()) | (frozenset() if _grid_index(node, kernel) else variance[node])
    return axes


def _under_mask(node: Node, masked_loops) -> bool:
    """True inside an ``if`` or a loop with a ``break``: some lanes may not run ``node``."""
    for owner in node.owner_chain():
        if owner.op is KERNEL:
            return False
        if owner.op is IF or owner in masked_loops:
            return True
    return False


def _gathers_across_lanes(kernel: Node, variance: dict) -> bool:
    """True if a load inside a loop, that changes with the loop's counter, reads elements
    of neighbouring lanes that are not neighbours in memory (a row sum's X[i, k], a
    transposed matrix): tiling would turn it into gathers."""
    for loop in (n for n in walk(kernel.body) if n.op is LOOP):
        for node in walk(loop.body):
            if node.op is not LOAD or "l" not in variance.get(node, ()):
                continue
            if not _depends_on(node, loop):
                continue
            index = node.args[1:]
            last_is_lane = index and index[-1].op is DIM_ID and \
                index[-1].attrs["axis"] == kernel.rank - 1 and shapes_equal(index[-1].shape, kernel.shape)
            if not last_is_lane or any("l" in variance.get(i, ()) for i in index[:-1]):
                return True
    return False


def _depends_on(node: Node, source: Node, _seen=None) -> bool:
    seen = _seen if _seen is not None else set()
    if node is source:
        return True
    if node in seen:
        return False
    seen.add(node)
    return any(_depends_on(a, source, seen) for a in node.args)


class TiledEmitter(BodyEmitter):
    """Emits a tiled kernel body: uniform statements as they are, element statements in
    lane loops, one per run of statements between loops."""

    def __init__(self, lang: Lang, kernel: Node, tiling: Tiling, names: dict, mutable: set, flat: str,
                 bounded: set):
        rank = kernel.rank
        super().__init__(lang, kernel.shape, [f"i{k}" for k in range(rank)], "tf_t", names)
        self.mutable = mutable
        self.bounded = bounded
        self.tiling = tiling
        self.flat = flat
        self.arrays = tiling.arrays
        self.pending: list[Node] = []
        self.full = False  # a whole tile: loop bounds are constants the compiler unrolls
        self.conditions: list[str] = []  # of the enclosing masked ifs
        self.live: list[str] = []  # live-flag arrays of the enclosing masked loops

    def subscript(self, node: Node) -> str:
        variance = self.tiling.variance.get(node, frozenset())
        rows = "[tf_r]" if "r" in variance and self.tiling.rows > 1 else ""
        return rows + ("[tf_l]" if "l" in variance else "")

    def declarations(self) -> list[str]:
        lines = []
        for node in sorted(self.arrays, key=lambda n: self.name(n)):
            variance = self.tiling.variance[node]
            dims = (f"[{ROWS}]" if "r" in variance and self.tiling.rows > 1 else "") + \
                (f"[{self.tiling.lanes}]" if "l" in variance else "")
            lines.append(f"alignas(64) {self.lang.type(node.dtype)} {self.name(node)}{dims};")
        return lines

    # -- values ----------------------------------------------------------------------------------

    def value(self, node: Node) -> str:
        if node in self.arrays:
            return self.name(node) + self.subscript(node)
        return super().value(node)

    def target(self, node: Node) -> str:
        return self.value(node)

    def define(self, node: Node, expr: str) -> None:
        if node in self.arrays:
            self.emit(f"{self.value(node)} = {expr};")
        else:
            super().define(node, expr)

    # -- statements ------------------------------------------------------------------------------

    def scope(self, nodes) -> None:
        run_of = self.tiling.run_of
        for node in nodes:
            if node.op is LOOP:
                self.flush()
                self.statement(node)
            elif node in run_of:
                if self.pending and run_of[self.pending[-1]] != run_of[node]:
                    self.flush()
                self.pending.append(node)
            else:
                if _orders_memory(node, self.tiling.kernel):
                    self.flush()
                self.statement(node)
        self.flush()

    def flush(self) -> None:
        """Emit the pending element statements (one run) in one lane loop over the tile's
        axes that they vary along."""
        if not self.pending:
            return
        nodes, self.pending = self.pending, []
        self.lane_loop(lambda: [self.statement(node) for node in nodes],
                       self.tiling.run_axes[self.tiling.run_of[nodes[0]]])

    def lane_loop(self, emit_body, axes=frozenset({"l"})) -> None:
        """A loop over the elements of the tile along ``axes`` ("r", "l") around what
        ``emit_body`` emits: its statements do not vary along the others."""
        rank = self.tiling.kernel.rank
        rows = self.tiling.rows > 1 and "r" in axes
        if rows:
            self.emit(f"for (int32_t tf_r = 0; tf_r < {ROWS if self.full else 'tf_rows'}; tf_r++) {{")
            self.depth += 1
            self.emit(f"const int32_t i{rank - 2} = tf_row0 + tf_r;")
        if "l" in axes:
            self.emit(f"for (int32_t tf_l = 0; tf_l < {self.tiling.lanes if self.full else 'tf_lanes'}; tf_l++) {{")
            self.depth += 1
            self.emit(f"const int32_t i{rank - 1} = tf_lane0 + tf_l;")
            if rows or self.tiling.rows == 1:  # the whole grid point is known
                self.emit(f"const int32_t tf_t = {self.flat};")
        emit_body()
        for _ in range(rows + ("l" in axes)):
            self.depth -= 1
            self.emit("}")

    # -- masked control flow (rows == 1, so a lane's flags are indexed by tf_l) -----------------

    def mask(self) -> str:
        """The lanes that run the current statement: live in every enclosing masked loop and
        taking every enclosing if ("" when all of them do). Bitwise ``&``: a branch-free
        expression, which the compiler vectorizes."""
        return " & ".join([f"{live}[tf_l]" for live in self.live] + self.conditions)

    def stmt_if(self, node: Node) -> None:
        self.conditions.append(self.value(node.args[0]))
        for inner in node.body.nodes:
            self.statement(inner)
        self.conditions.pop()

    def stmt_break(self, node: Node) -> None:
        live = _live_name(self, node.enclosing_loop())
        taken = " & ".join(self.conditions) or "true"
        self.emit(f"{live}[tf_l] = {live}[tf_l] & !({taken});")

    def stmt_set(self, node: Node) -> None:
        mask = self.mask()
        if not mask:
            return super().stmt_set(node)
        target = self.target(node.args[0])
        self.emit(f"{target} = ({mask}) ? {self.value(node.args[1])} : {target};")

    def stmt_store(self, node: Node) -> None:
        mask = self.mask()
        if not mask:
            return super().stmt_store(node)
        self.emit(f"if ({mask}) {{")
        self.depth += 1
        super().stmt_store(node)
        self.depth -= 1
        self.emit("}")

    def stmt_loop(self, node: Node) -> None:
        if node not in self.tiling.masked_loops:
            return super().stmt_loop(node)
        live, entering = _live_name(self, node), self.mask() or "true"
        # int32 flags, as wide as the data: the compiler does not vectorize bool arrays here
        self.emit(f"alignas(64) int32_t {live}[{self.tiling.lanes}];")
        self.lane_loop(lambda: self.emit(f"{live}[tf_l] = {entering};"))
        self.live.append(live)
        super().stmt_loop(node)
        self.live.pop()

    def block(self, node: Node) -> None:
        if node not in self.tiling.masked_loops:
            return super().block(node)
        self.depth += 1
        if self.lang.interrupt_check:
            self.emit(self.lang.interrupt_check)
        self.scope(node.body.nodes)
        live = _live_name(self, node)
        self.emit("int32_t tf_any = 0;")
        self.lane_loop(lambda: self.emit(f"tf_any |= {live}[tf_l];"))
        self.emit("if (!tf_any) break;")
        self.depth -= 1
        self.emit("}")


def _live_name(emitter: BodyEmitter, loop: Node) -> str:
    return f"tf_live_{emitter.name(loop)}"


def tiled_rows(emitter_factory, kernel: Node, tiling: Tiling, dims: list) -> list[str]:
    """The body of a tiled row function. With a row axis, it runs one tile of lanes
    (starting at ``tf_lane0``) down ``ROW_BLOCK`` rows from ``tf_block0``, so what the lanes
    read along the row axis (a matmul's panel of B) stays in cache; on a 1-D grid it runs the tiles of a
    chunk ``[tf_start, tf_stop)``. Whole tiles get a copy of the body with constant bounds
    (unrolled, accumulators in registers); the tiles at the edges run the general one."""
    variants = []
    for full in (True, False):
        emitter = emitter_factory()
        emitter.full = full
        emitter.depth = 3
        emitter.scope(kernel.body.nodes)
        variants.append(["            " + line for line in emitter.declarations()] + emitter.lines)
    lanes = tiling.lanes
    whole = f"tf_lanes == {lanes}" + (f" && tf_rows == {ROWS}" if tiling.rows > 1 else "")
    body = [f"        if ({whole}) {{", *variants[0], "        } else {", *variants[1], "        }"]
    if tiling.rows > 1:
        return [f"    const int32_t tf_lanes = tf_min_index({lanes}, {dims[-1]} - tf_lane0);",
                f"    const int32_t tf_block_end = tf_min_index({dims[-2]}, tf_block0 + {ROW_BLOCK});",
                f"    for (int32_t tf_row0 = tf_block0; tf_row0 < tf_block_end; tf_row0 += {ROWS}) {{",
                f"        const int32_t tf_rows = tf_min_index({ROWS}, tf_block_end - tf_row0);",
                *body, "    }"]
    start, stop = ("tf_start", "tf_stop") if kernel.rank == 1 else ("0", dims[-1])
    return [f"    for (int32_t tf_lane0 = {start}; tf_lane0 < {stop}; tf_lane0 += {lanes}) {{",
            f"        const int32_t tf_lanes = tf_min_index({lanes}, {stop} - tf_lane0);", *body, "    }"]
