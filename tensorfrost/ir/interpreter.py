"""The numpy reference interpreter: runs any program, before or after any compiler pass.

It is the oracle of the differential tests. Values are numpy arrays broadcastable to their
node's shape. Control flow inside kernels is per element, so scopes run under a *mask* of
the elements that are active (as a GPU runs divergent threads): ``if`` narrows it, ``break``
and ``continue`` remove elements from the innermost loop, and side effects (``set``,
``store``, scatters) only touch active elements.

Running every element of a kernel at once hides races: a compiled kernel in which one
element reads a place that another element of it writes gives here what numpy would, while
a device, running the elements in any order, gives something else. ``check_races=True``
records, per kernel run, the places each element reads and writes (through loads, stores,
scatters, and memory used as a value) and raises an ``InternalError`` naming the kernel,
the buffer, the place and the two accesses where one element reads (or updates atomically)
a place that another element of the run changes, or where elements store to one place and
one element's last store there comes before another's (a later statement or trip: which
value is left then depends on their order). Stores of one statement to one place, as in
numpy, leave one of its values; atomic updates of one kind combine in any order.
"""

from __future__ import annotations

import numpy as np

from .errors import InternalError, RuntimeCheckError, runtime_check_error
from .node import Node, Program, Scope
from .ops import ELEMENTWISE, LOAD, MATMUL, OPS, REDUCE_MAX, REDUCE_MIN, REDUCTION, SCAN, SET, STORE, VIEW

_SCATTER_UFUNCS = {"add": np.add, "min": np.minimum, "max": np.maximum,
                   "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}


MAX_ELEMENTS = 2**31 - 1  # as runtime.MAX_ELEMENTS: kernels index with 32-bit integers


class _LoopFrame:
    __slots__ = ("alive", "active")

    def __init__(self):
        self.alive = True  # elements that have not left the loop by break
        self.active = True  # elements still running the current iteration


class Interpreter:
    def __init__(self, program: Program, check_races: bool = False):
        self.program = program
        self.env: dict[Node, object] = {}
        self.frames: list = []  # _LoopFrame objects and if-condition masks
        self.mutable = {n.args[0] for n in program.walk()
                        if n.op in (SET, STORE) or n.op.atomic}
        self.check_races = check_races
        self.races: _RaceLog | None = None  # the accesses of the kernel running, when checked
        self.sizes_checked: set = set()  # (dims, their values) known to be sizes a tensor can have

    # -- helpers ---------------------------------------------------------------------------

    def shape(self, node: Node) -> tuple:
        values = tuple(int(self.env[d]) for d in node.shape)
        if (node.shape, values) not in self.sizes_checked:
            self._check_size(node, values)
            self.sizes_checked.add((node.shape, values))
        return values

    def _check_size(self, node: Node, values: tuple) -> None:
        """Sizes as the backends check them before they allocate: computed without wrapping,
        not negative, at most MAX_ELEMENTS elements together (messages as theirs)."""
        exact = [self._exact(dim, node, axis) for axis, dim in enumerate(node.shape)]
        for axis, size in enumerate(exact):
            if size < 0:
                raise RuntimeCheckError(f"shape[{axis}] is {size}, a negative size", node.location)
        count = 1
        for size in exact:
            count *= size
        if count > MAX_ELEMENTS:
            raise RuntimeCheckError(f"shape {exact} has more elements than the {MAX_ELEMENTS} a tensor can hold",
                                    node.location)

    def _exact(self, dim: Node, node: Node, axis: int, depth: int = 0) -> int:
        """The value of a size's host arithmetic in Python's unbounded integers; a step that
        wrapped on the way into another operation (``(N * N) // N``) is an error."""
        value = int(self.env[dim])
        if dim.rank or depth > 64 or dim.dtype is None or not dim.dtype.is_integer or dim.op.kind != ELEMENTWISE:
            return value
        args = [self._exact(a, node, axis, depth + 1) for a in dim.args]
        if "exact" in dim.op.emit:  # arithmetic that wraps on the way to a size: in Python's integers
            return int(dim.op.ref(*[np.array(a, dtype=object) for a in args]))
        for arg, size in zip(dim.args, args):
            if size != int(self.env[arg]):
                raise RuntimeCheckError(f"shape[{axis}] is computed through {size}, which does not fit in the 32-bit "
                                        f"integers sizes are computed in (it wraps to {int(self.env[arg])})",
                                        node.location)
        return value

    def full(self, node: Node) -> np.ndarray:
        """The value of ``node`` as a full array of its shape."""
        return np.broadcast_to(self.env[node], self.shape(node))

    def mask(self):
        out = True
        for frame in self.frames:
            part = (frame.alive & frame.active) if isinstance(frame, _LoopFrame) else frame
            out = out & part
        return out

    def define(self, node: Node, value) -> None:
        value = np.asarray(value)
        if node.dtype is not None and value.dtype != node.dtype.numpy:
            value = value.astype(node.dtype.numpy)
        if node in self.mutable:
            value = np.array(np.broadcast_to(value, self.shape(node)))
        self.env[node] = value

    # -- execution -------------------------------------------------------------------------

    def run(self, arrays: list) -> list:
        for node, array in zip(self.program.inputs, arrays):
            self.env[node] = np.asarray(array, dtype=node.dtype.numpy)
        with np.errstate(all="ignore"):
            self.exec_scope(self.program.root)
        results = []
        for out in self.program.outputs:
            results.append(np.array(np.broadcast_to(self.env[out], self.shape(out)), dtype=out.dtype.numpy))
        return results

    def exec_scope(self, scope: Scope) -> None:
        for node in scope.nodes:
            if self.races is not None:
                self._record_value_reads(node)
            kind = node.op.kind
            if kind == ELEMENTWISE:
                self.define(node, node.op.ref(*[self.env[a] for a in node.args]))
            elif kind in (REDUCTION, SCAN, VIEW, MATMUL):
                self.define(node, _ALGORITHMS[kind](self, node))
            else:
                getattr(self, "op_scatter" if node.op.atomic else "op_" + node.op.name)(node)

    # sources

    def op_const(self, node):
        self.define(node, np.asarray(node.attrs["value"], dtype=node.dtype.numpy))

    def op_dim_id(self, node):
        shape = self.shape(node)
        axis = node.attrs["axis"]
        view = [1] * len(shape)
        view[axis] = shape[axis]
        self.define(node, np.arange(shape[axis], dtype=np.int32).reshape(view))

    def op_input(self, node):
        if node in self.mutable:
            self.env[node] = np.array(self.env[node])

    def op_input_dim(self, node):
        self.env[node] = np.int32(np.shape(self.env[node.args[0]])[node.attrs["axis"]])

    # memory

    def _index(self, memory: Node, index_nodes) -> tuple:
        dims = self.shape(memory)
        return tuple(np.clip(np.asarray(self.env[i]).astype(np.int64), 0, max(d - 1, 0))
                     for i, d in zip(index_nodes, dims))

    def op_load(self, node):
        memory = self.full(node.args[0])
        if memory.size == 0:
            self.define(node, np.zeros(self.shape(node), dtype=node.dtype.numpy))
            return
        index = self._index(node.args[0], node.args[1:])
        if self.races is not None:
            self.races.record(node, node.args[0], "read", self.shape(node.args[0]),
                              self._places(node.args[0], index), self.mask())
        self.define(node, memory[index] if index else memory)

    def _masked_access(self, node):
        """(index arrays, values) of the active elements of a store or scatter."""
        memory = node.args[0]
        index = self._index(memory, node.args[2:])
        parts = np.broadcast_arrays(self.mask(), self.env[node.args[1]], *index,
                                    np.empty(self.shape(node), dtype=np.int8))
        active = parts[0].astype(bool)
        if self.races is not None:
            kind = "write" if node.op is STORE else "atomic " + node.op.combine
            self.races.record(node, memory, kind, self.shape(memory), self._places(memory, index), self.mask())
        return tuple(p[active] for p in parts[2:2 + len(index)]), parts[1][active]

    def _places(self, memory: Node, index: tuple):
        """The flat places in ``memory`` that the (clamped) ``index`` arrays reach."""
        dims = self.shape(memory)
        return np.ravel_multi_index(np.broadcast_arrays(*index), dims) if index else np.zeros((), np.int64)

    def _record_value_reads(self, node: Node) -> None:
        """A memory that a node of a checked kernel uses as a value is read at each
        element's own place (broadcast: the places numpy's broadcasting reads)."""
        skip = 1 if node.op in (LOAD, SET, STORE) or node.op.atomic else 0
        for arg in node.args[skip:]:
            if arg in self.mutable and arg.rank and arg in self.env:
                dims = self.shape(arg)
                self.races.record(node, arg, "read", dims, np.arange(int(np.prod(dims))).reshape(dims), self.mask())

    def op_store(self, node):
        target = self.env[node.args[0]]
        index, values = self._masked_access(node)
        if target.ndim == 0:
            if values.size:
                target[()] = values.reshape(-1)[-1]
        elif target.size:
            target[index] = values

    def op_scatter(self, node):
        target = self.env[node.args[0]]
        index, values = self._masked_access(node)
        ufunc = _SCATTER_UFUNCS[node.op.combine]
        if target.ndim == 0:
            for value in values.reshape(-1):
                target[()] = ufunc(target[()], value)
        elif target.size:
            ufunc.at(target, index, values)

    def op_set(self, node):
        target = self.env[node.args[0]]
        value = np.broadcast_to(np.asarray(self.env[node.args[1]], dtype=target.dtype), target.shape)
        mask = self.mask()
        try:
            np.copyto(target, value, where=np.broadcast_to(mask, target.shape))
        except ValueError:  # a per-element condition on a variable with fewer elements
            if np.any(mask):
                np.copyto(target, value)

    # control flow

    def op_loop(self, node):
        begin, end, step = (self.env[a] for a in node.args)
        frame = _LoopFrame()
        self.frames.append(frame)
        try:  # (begin, end and step may differ per element: a loop in a kernel over them)
            counter, step = np.asarray(begin, dtype=np.int64), np.asarray(step, dtype=np.int64)
            while np.any(step != 0):
                running = np.where(step > 0, end > counter, np.where(step < 0, end < counter, False))
                frame.active = True
                lanes = self.mask() & running
                if not np.any(lanes):
                    break
                frame.active = running
                self.env[node] = np.int32(counter) if counter.ndim == 0 else counter.astype(np.int32)
                self.exec_scope(node.body)
                counter = counter + step
        finally:
            self.frames.pop()

    def op_if(self, node):
        # the condition as it is now: the body may change a mask it is read from
        self.frames.append(np.array(self.env[node.args[0]], dtype=bool))
        try:
            if np.any(self.mask()):
                self.exec_scope(node.body)
        finally:
            self.frames.pop()

    def _innermost_loop(self) -> _LoopFrame:
        return next(f for f in reversed(self.frames) if isinstance(f, _LoopFrame))

    def op_break(self, node):
        mask = self.mask()
        frame = self._innermost_loop()
        frame.alive = frame.alive & ~mask
        frame.active = frame.active & ~mask

    def op_continue(self, node):
        frame = self._innermost_loop()
        frame.active = frame.active & ~self.mask()

    def op_kernel(self, node):
        if not self.check_races:
            self.exec_scope(node.body)
            return
        self.races = _RaceLog(node, self.shape(node))
        try:
            self.exec_scope(node.body)
            self.races.check()
        finally:
            self.races = None

    # host bookkeeping

    def op_assert(self, node):
        ok = np.asarray(self.env[node.args[0]])
        mask = self.mask()
        if not np.all(ok | ~np.asarray(mask, dtype=bool)):
            values = [np.asarray(self.env[a]).flat[0] for a in node.args[1:]]
            raise runtime_check_error(node.attrs["message"].format(*values), node.location)

    def op_alloc(self, node):
        self.env[node] = np.zeros(self.shape(node), dtype=node.dtype.numpy)

    def op_free(self, node):
        pass

    def op_readback(self, node):
        memory = self.full(node.args[0])
        if len(node.args) == 1 or memory.ndim == 0:
            self.define(node, memory.reshape(-1)[0] if memory.size else 0)
        else:
            self.define(node, memory[self._index(node.args[0], node.args[1:])] if memory.size else 0)

    def op_region(self, node):
        pass

    def op_detach(self, node):
        self.define(node, self.env[node.args[0]])

    op_pass_grad = op_custom_grad = op_library_grad = op_detach

    def op_grad(self, node):
        raise InternalError(f"tf.{node.op.name} reached the reference interpreter: the autodiff pass expands it, "
                            "so interpret the program after that pass")

    op_jvp = op_grad


class _RaceLog:
    """The places each element of one kernel run reads and writes, per memory, and the
    check that no two elements meet at a place where one of them writes."""

    READ, WRITE = 0, 1  # access kinds; an atomic update's kind is 2 + the index of its combine

    def __init__(self, kernel: Node, grid: tuple):
        self.kernel, self.grid = kernel, grid
        self.elements = np.arange(int(np.prod(grid)), dtype=np.int64).reshape(grid)
        self.accesses: dict[Node, list] = {}  # memory -> [(places, elements, run, kind, node)]
        self.dims: dict[Node, tuple] = {}
        self.combines: list[str] = []
        self.runs = 0  # each execution of an access is a run of it (a loop's trips are several)

    def record(self, node: Node, memory: Node, kind: str, dims: tuple, places, mask) -> None:
        if 0 in dims:
            return  # an empty memory has no place to meet at: its loads give zeros, its stores do nothing
        try:
            places, elements, mask = np.broadcast_arrays(places, self.elements, mask)
        except ValueError:
            raise InternalError(f"{node.op.name} {node.label} does not broadcast to the grid {self.grid} of its "
                                "kernel", node.location) from None
        if kind.startswith("atomic") and kind not in self.combines:
            self.combines.append(kind)
        code = 2 + self.combines.index(kind) if kind.startswith("atomic") else \
            self.READ if kind == "read" else self.WRITE
        active = np.asarray(mask, dtype=bool)
        self.runs += 1
        self.dims[memory] = dims
        self.accesses.setdefault(memory, []).append((places[active], elements[active], self.runs, code, node))

    def check(self) -> None:
        for memory, records in self.accesses.items():
            if all(record[3] == self.READ for record in records):
                continue
            which = np.concatenate([np.full(r[0].size, k) for k, r in enumerate(records)]).astype(np.int64)
            places = np.concatenate([r[0] for r in records]).astype(np.int64)
            elements = np.concatenate([r[1] for r in records]).astype(np.int64)
            runs = np.array([r[2] for r in records], np.int64)[which]
            codes = np.array([r[3] for r in records], np.int64)[which]
            reads, writes, atomics = codes == self.READ, codes == self.WRITE, codes >= 2
            columns = (memory, records, places, elements, which)
            # an element reads, or updates atomically, a place that another element changes
            self._meet(*columns, reads, writes | atomics)
            self._meet(*columns, atomics, writes)
            self._meet(*columns, atomics, atomics, apart=codes)  # updates of two kinds
            self._last_stores(memory, records, places[writes], elements[writes], runs[writes], which[writes])

    def _last_stores(self, memory, records, places, elements, runs, which) -> None:
        """Raise if, at a place several elements store to, an element's last store comes
        before the last store there in the program (another statement, or a later trip):
        in any order of the elements that store can be the one left, where numpy leaves one
        of the last statement's values."""
        if places.size == 0:
            return
        order = np.lexsort((runs, elements, places))
        p, e, r, w = places[order], elements[order], runs[order], which[order]
        ends = np.flatnonzero(np.r_[(p[1:] != p[:-1]) | (e[1:] != e[:-1]), True])  # last run of each element
        p, e, r, w = p[ends], e[ends], r[ends], w[ends]
        starts = np.flatnonzero(np.r_[True, p[1:] != p[:-1]])
        late = np.maximum.reduceat(r, starts)[np.searchsorted(starts, np.arange(len(p)), side="right") - 1]
        early = np.flatnonzero(r < late)
        if early.size:
            one = early[0]
            other = next(k for k in range(len(p)) if p[k] == p[one] and r[k] == late[one])
            self._raise(memory, records, int(p[one]), one, other, e, w)

    def _meet(self, memory, records, places, elements, which, first, second, apart=None) -> None:
        """Raise if a ``first`` access of one element and a ``second`` access of another
        element reach one place (and, given ``apart``, differ in it: another run or kind)."""
        shared = np.intersect1d(places[first], places[second])
        if shared.size == 0:
            return
        pick = np.flatnonzero((first | second) & np.isin(places, shared))
        pick = pick[np.argsort(places[pick], kind="stable")]
        p, e = places[pick], elements[pick]
        starts = np.flatnonzero(np.r_[True, p[1:] != p[:-1]])
        bad = np.minimum.reduceat(e, starts) != np.maximum.reduceat(e, starts)
        if apart is not None:
            a = apart[pick]
            bad &= np.minimum.reduceat(a, starts) != np.maximum.reduceat(a, starts)
        for group in np.flatnonzero(bad):
            end = starts[group + 1] if group + 1 < len(starts) else len(pick)
            members = pick[starts[group]:end]
            for x in members[first[members]]:
                other = members[second[members] & (elements[members] != elements[x])]
                if apart is not None:
                    other = other[apart[other] != apart[x]]
                if other.size:
                    self._raise(memory, records, int(places[x]), x, int(other[0]), elements, which)

    def _raise(self, memory, records, place, one, other, elements, which) -> None:
        (*_, code_a, a), (*_, code_b, b) = records[which[one]], records[which[other]]
        index = [int(k) for k in np.unravel_index(place, self.dims[memory])] if self.dims[memory] else []
        name = self.kernel.contract.name if self.kernel.contract is not None else self.kernel.label
        raise InternalError(
            f"race in kernel '{name}': element {self._element(elements[one])} {self._verb(code_a)} "
            f"{memory.label}{index} ({_describe(a)}), a place that element {self._element(elements[other])} "
            f"of the same kernel run {self._verb(code_b)} ({_describe(b)}); a kernel runs its elements in any "
            "order, so its result is not the program's", a.location or b.location)

    def _verb(self, code: int) -> str:
        if code == self.READ:
            return "reads"
        return "writes" if code == self.WRITE else f"updates ({self.combines[code - 2]})"

    def _element(self, flat) -> list:
        return [int(k) for k in np.unravel_index(int(flat), self.grid)] if self.grid else []


def _describe(node: Node) -> str:
    where = f" at {node.location}" if node.location is not None else ""
    return f"{node.op.name} {node.label}{where}"


# -- algorithmic ops ------------------------------------------------------------------------


def _reduce(interp: Interpreter, node: Node):
    x = interp.full(node.args[0]).astype(node.dtype.compute.numpy)  # (16-bit floats accumulate in float32)
    axis = node.attrs["axis"]
    ident = node.op.identity(node.dtype)
    kwargs = {"initial": ident} if node.op in (REDUCE_MAX, REDUCE_MIN) else {}
    out = node.op.ref(x, axis=axis, **kwargs)
    return np.asarray(out).astype(node.dtype.numpy).reshape(interp.shape(node))


def _scan(interp: Interpreter, node: Node):
    x = interp.full(node.args[0])
    axis = node.attrs["axis"]
    if node.attrs.get("reverse"):
        x = np.flip(x, axis)
    out = node.op.ref(x, axis=axis, dtype=x.dtype)
    if node.attrs.get("exclusive"):
        first = np.full_like(np.take(out, [0], axis=axis), node.op.identity(node.dtype))
        out = np.concatenate([first, np.take(out, np.arange(out.shape[axis] - 1), axis=axis)], axis=axis)
    return np.flip(out, axis) if node.attrs.get("reverse") else out


def _take_clamped(x, count: int, axis: int):
    return np.take(x, np.minimum(np.arange(count), max(x.shape[axis] - 1, 0)), axis=axis)


def _split_dim(interp: Interpreter, node: Node, x):
    axis, size = node.attrs["axis"], node.attrs["size"]
    count = interp.shape(node)[axis]
    return _take_clamped(x, count * size, axis).reshape(interp.shape(node)) if x.size else \
        np.zeros(interp.shape(node), x.dtype)


def _merge_dim(interp: Interpreter, node: Node, x):
    axis = node.attrs["axis"]
    shape = x.shape[:axis - 1] + (x.shape[axis - 1] * x.shape[axis],) + x.shape[axis + 1:]
    return _take_clamped(x.reshape(shape), interp.shape(node)[axis - 1], axis - 1)


# Each view op's numpy rule, keyed by the op-table entry (a misspelt name fails at import).
_VIEWS = {
    OPS["transpose"]: lambda interp, node, x: np.swapaxes(x, node.attrs["dim1"], node.attrs["dim2"]),
    OPS["unsqueeze"]: lambda interp, node, x: np.expand_dims(x, node.attrs["axis"]),
    OPS["squeeze"]: lambda interp, node, x: np.squeeze(x, node.attrs["axis"]),
    OPS["reshape"]: lambda interp, node, x: x.reshape(interp.shape(node)),
    OPS["split_dim"]: _split_dim,
    OPS["merge_dim"]: _merge_dim,
    OPS["repeat"]: lambda interp, node, x: np.repeat(x, node.attrs["repeats"], axis=node.attrs["axis"]),
    OPS["reverse"]: lambda interp, node, x: np.flip(x, node.attrs["axis"]),
}


def _view(interp: Interpreter, node: Node):
    if node.op not in _VIEWS:
        raise InternalError(f"the reference interpreter has no rule for the view op '{node.op.name}'")
    return _VIEWS[node.op](interp, node, interp.full(node.args[0]))


def _matmul(interp: Interpreter, node: Node):
    return np.matmul(interp.full(node.args[0]), interp.full(node.args[1]))


_ALGORITHMS = {REDUCTION: _reduce, SCAN: _scan, VIEW: _view, MATMUL: _matmul}


def run(program: Program, arrays: list, check_races: bool = False) -> list:
    """Run ``program`` on numpy arrays; returns the list of output arrays. With
    ``check_races``, a kernel in which different elements meet at a place of memory that one
    of them writes raises an InternalError naming the kernel (see the module docstring)."""
    return Interpreter(program, check_races).run(arrays)
