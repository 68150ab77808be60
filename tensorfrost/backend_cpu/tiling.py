"""Lane tiling: kernels whose elements each run a loop (a matmul's sum over k, an n-body
sum over all bodies) are computed a tile of elements at a time.

Per element, such a loop is scalar: ``for k: acc += A[i, k] * B[k, j]``. Interchanged, a
tile of ``LANES`` consecutive elements along the last grid axis (times ``ROWS`` along the
axis before it) steps through the loop together: ``for k: for each lane: acc[lane] += ...``,
so the lane loop vectorizes and values that do not depend on the lane (``A[i, k]``) are
loaded once per tile. Values are arrays only where they must survive from one lane loop
to another (variables, values used across loops); the rest stay scalars.

Per-element control flow runs *masked*, as SIMD hardware runs it: an ``if`` computes its
body for every lane and keeps the results of the lanes whose condition holds; a ``break``
clears its lanes' live flags, and the tile leaves the loop when no lane is live (a
Mandelbrot or ray-marching loop: a tile of pixels iterates together until the last one
escapes). Masked tiles are one row of lanes, so that lanes that finish early wait for few
others. Kernels with ``continue``, scatters, or loops inside an ``if`` are not tiled, nor
kernels whose loops' bounds differ between the elements of a tile.
"""

from __future__ import annotations

from ..emit.clike import BodyEmitter, Lang
from ..ir.node import Node, walk
from ..ir.ops import BREAK, CONTINUE, DIM_ID, IF, KERNEL, LOAD, LOOP, SET, STORE
from ..ir.shapes import shapes_equal, static_value

LANES = 32  # elements along the last grid axis per tile (two AVX-512 vectors of floats)
ROWS = 8  # elements along the axis before it, sharing the loads that ignore the last axis
ROW_BLOCK = 64  # rows a thread runs for one tile of lanes: enough work items for every thread


class Tiling:
    """Which values vary with the tile's row ("r") and lane ("l") axes, and which loops
    run masked (they hold a ``break``)."""

    def __init__(self, kernel: Node, variance: dict, masked_loops: set):
        self.kernel = kernel
        self.variance = variance
        self.masked_loops = masked_loops
        self.masked = bool(masked_loops) or any(n.op is IF for n in walk(kernel.body))
        self.rows = ROWS if kernel.rank >= 2 and not self.masked else 1
        # A narrow last axis (a matmul with 10 columns) is one whole tile of that width, so
        # its lane loops have constant bounds too.
        width = static_value(kernel.shape[-1]) if kernel.rank >= 2 else None
        self.lanes = width if width is not None and 0 < width < LANES else LANES


def plan(kernel: Node) -> Tiling | None:
    """A tiling for ``kernel``, or None where it would not pay or not be valid."""
    nodes = list(walk(kernel.body))
    if kernel.rank == 0 or not any(n.op is LOOP for n in nodes):
        return None
    if any(n.op is CONTINUE or n.op.atomic for n in nodes):
        return None
    if any(inner.op is LOOP for n in nodes if n.op is IF for inner in walk(n.body)):
        return None
    masked_loops = {n.enclosing_loop() for n in nodes if n.op is BREAK}
    grid, last = kernel.shape, kernel.rank - 1
    axes = {last: "l", last - 1: "r"} if kernel.rank >= 2 else {last: "l"}
    variance: dict[Node, frozenset] = {}
    changed = True
    while changed:
        changed = False
        for node in nodes:
            found = set(variance.get(node, ()))
            if node.op is DIM_ID and shapes_equal(node.shape, grid) and node.attrs["axis"] in axes:
                found.add(axes[node.attrs["axis"]])
            operands = node.args[1:] if node.op in (LOAD, STORE) else node.args
            for arg in operands:
                found |= variance.get(arg, frozenset())
            if node.op is SET and _under_mask(node, masked_loops):
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
    if any(variance.get(a) for n in nodes if n.op is LOOP for a in n.args):
        return None  # per-element loop bounds: elements of a tile would run different loops
    if _gathers_across_lanes(kernel, variance):
        return None  # lanes would read far apart; vectorize the loops themselves instead
    for node in nodes:  # masked statements run in the lane loops
        if node.op in (IF, BREAK) or _under_mask(node, ()):
            variance[node] = variance.get(node, frozenset()) | {"l"}
    return Tiling(kernel, variance, masked_loops)


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
        self.arrays = self._arrays()
        self.pending: list[Node] = []
        self.full = False  # a whole tile: loop bounds are constants the compiler unrolls
        self.conditions: list[str] = []  # of the enclosing masked ifs
        self.live: list[str] = []  # live-flag arrays of the enclosing masked loops

    def _arrays(self) -> set[Node]:
        """Element values that must outlive their lane loop: variables, and values used by
        a statement in another run (another loop body, or after a loop)."""
        variance = self.tiling.variance
        run_of: dict[Node, int] = {}
        counter = [0]

        def assign(nodes):
            current = None
            for node in nodes:
                if node.op is LOOP:
                    current = None
                    counter[0] += 1
                    assign(node.body.nodes)
                    counter[0] += 1
                elif variance.get(node):
                    if current is None:
                        counter[0] += 1
                        current = counter[0]
                    run_of[node] = current
                    if node.op is IF:  # a masked if runs in its condition's lane loop
                        run_of.update((inner, current) for inner in walk(node.body))
                elif node.op in (SET, STORE):
                    current = None
        assign(self.tiling.kernel.body.nodes)
        arrays = {n for n in run_of if n in self.mutable}
        for node in walk(self.tiling.kernel.body):
            for arg in node.args:
                if arg in run_of and run_of.get(node) != run_of[arg]:
                    arrays.add(arg)
        grid = self.tiling.kernel.shape
        return {n for n in arrays if not (n.op is DIM_ID and shapes_equal(n.shape, grid))}

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
        for node in nodes:
            if node.op is LOOP:
                self.flush()
                self.statement(node)
            elif self.tiling.variance.get(node):
                self.pending.append(node)
            else:
                if node.op in (SET, STORE):
                    self.flush()
                self.statement(node)
        self.flush()

    def flush(self) -> None:
        """Emit the pending element statements in one lane loop over the tile."""
        if not self.pending:
            return
        nodes, self.pending = self.pending, []
        self.lane_loop(lambda: [self.statement(node) for node in nodes])

    def lane_loop(self, emit_body) -> None:
        """A loop over the elements of the tile around what ``emit_body`` emits."""
        rank = self.tiling.kernel.rank
        last = f"i{rank - 1}"
        if self.tiling.rows > 1:
            row = f"i{rank - 2}"
            self.emit(f"for (int32_t tf_r = 0; tf_r < {ROWS if self.full else 'tf_rows'}; tf_r++) {{")
            self.depth += 1
            self.emit(f"const int32_t {row} = tf_row0 + tf_r;")
        self.emit(f"for (int32_t tf_l = 0; tf_l < {self.tiling.lanes if self.full else 'tf_lanes'}; tf_l++) {{")
        self.depth += 1
        self.emit(f"const int32_t {last} = tf_lane0 + tf_l;")
        self.emit(f"const int32_t tf_t = {self.flat};")
        emit_body()
        self.depth -= 1
        self.emit("}")
        if self.tiling.rows > 1:
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
