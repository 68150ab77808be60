"""Buffers for values that cross kernel boundaries; explicit loads and stores.

Guarantees afterwards:
- kernels touch memory (inputs and ``alloc`` buffers) only through ``load``, ``store`` and
  scatters; everything else they read is a local value or a host value (a uniform);
- a value used outside the kernel that computes it (by another kernel, by host control
  flow through a ``readback``, or as an output) is stored in a buffer right after it is
  computed; variables whose accesses all stay in one kernel at the thread's own element
  stay kernel-local;
- program outputs are buffers or inputs.
"""

from __future__ import annotations

from ..ir import dtypes as dt
from ..ir.node import Node, Program, Scope, walk
from ..ir.ops import INPUT, INPUT_DIM, KERNEL, LOAD, OPS, READBACK, SET
from .analysis import indexed_access, is_write, mutable_nodes


def _make(op: str, args=(), dtype=None, shape=(), attrs=None, name=None) -> Node:
    return Node(OPS[op], dtype, shape, args, attrs, name=name)


class _Memory:
    def __init__(self, program: Program):
        self.program = program
        self.mutable = mutable_nodes(program)
        self.kernel_of: dict[Node, Node] = {}
        for node in program.walk():
            if node.op is KERNEL:
                for inner in walk(node.body):
                    self.kernel_of[inner] = node
        self.buffers: dict[Node, Node] = {}  # value or variable -> its buffer
        self.before: dict[Node, list] = {}  # anchor node -> nodes to insert before it
        self.after: dict[Node, list] = {}  # anchor node -> nodes to insert after it
        self.grids: dict[Node, list] = {}  # kernel -> its dim_id nodes
        self.at_end: dict[Node, list] = {}  # kernel -> stores of final values

    # -- deciding -------------------------------------------------------------------------------

    def classify(self, node: Node, uses: list) -> str | None:
        """How a node is kept: None (kernel-local or host), "value" (stored once after it is
        computed), "final" (a variable updated only in its kernel: stored when the kernel
        ends) or "memory" (a variable that lives in a buffer)."""
        home = self.kernel_of.get(node)
        if home is None or node.op is INPUT:
            return None
        outside = node in self.program.outputs or any(self.kernel_of.get(u) is not home for u in uses)
        explicit = [u for u in uses if indexed_access(u) and u.args[0] is node]
        if node in self.mutable:
            # Read at other elements while its kernel updates it, or written by another
            # kernel: it lives in its buffer. Otherwise it stays local (in registers) and
            # other kernels read the value it ends with.
            foreign = any(is_write(u) and u.args[0] is node and self.kernel_of.get(u) is not home for u in uses)
            if foreign or any(self.kernel_of.get(u) is home for u in explicit):
                return "memory"
            return "final" if outside or explicit else None
        return "value" if outside or explicit else None

    # -- rewriting ------------------------------------------------------------------------------

    def grid(self, kernel: Node) -> list:
        if kernel not in self.grids:
            nodes = [_make("dim_id", dtype=dt.int32, shape=kernel.shape, attrs={"axis": a})
                     for a in range(kernel.rank)]
            for node in nodes:
                node.scope = kernel.body
            kernel.body.nodes[:0] = nodes
            self.grids[kernel] = nodes
        return self.grids[kernel]

    def own_index(self, kernel: Node, value: Node) -> list:
        """The index of a kernel thread's own element of ``value``."""
        return self.grid(kernel) if value.rank else []

    def run(self) -> Program:
        uses: dict[Node, list] = {}
        for node in self.program.walk():
            for arg in node.args:
                uses.setdefault(arg, []).append(node)
        self.memory_vars = set()
        for node in list(self.program.walk()):
            kind = self.classify(node, uses.get(node, []))
            if kind is not None:
                self.buffers[node] = self._allocate(node, kind)
                if kind == "memory":
                    self.memory_vars.add(node)
        for node in list(self.program.walk()):
            self._rewrite_operands(node)
        self._finish_outputs()
        self._insert(self.program.root)
        return self.program

    def _allocate(self, node: Node, kind: str) -> Node:
        """A buffer for ``node``, allocated before its kernel and written right after the
        node (or, for a "final" variable, at the end of the kernel)."""
        home = self.kernel_of[node]
        buffer = _make("alloc", dtype=node.dtype, shape=node.shape, name=node.name or "buf")
        self.before.setdefault(home, []).append(buffer)
        store = _make("store", [buffer, node, *self.own_index(home, node)], shape=node.shape)
        if kind == "final":  # at the end of the block that declares it (the kernel, or an if in it)
            self.at_end.setdefault(node.scope.owner, []).append(store)
        else:
            self.after.setdefault(node, []).append(store)
        return buffer

    def _rewrite_operands(self, node: Node) -> None:
        kernel = self.kernel_of.get(node)
        if node.op is SET and node.args[0] in self.memory_vars:
            buffer = self.buffers[node.args[0]]
            store = _make("store", [buffer, node.args[1], *self.own_index(kernel, buffer)], shape=node.shape)
            self._replace_node(node, store)
            node = store
        if node.op is INPUT_DIM:
            return
        if node.op is LOAD and kernel is None:  # a scalar the host reads itself
            node.op = OPS["readback"]
            if node.args[0] in self.buffers:
                node.args[0] = self.buffers[node.args[0]]
        for k, arg in enumerate(node.args):
            if k == 0 and node.op is READBACK:
                continue
            if k == 0 and (indexed_access(node) or node.op is SET):
                if indexed_access(node) and arg in self.buffers:
                    node.args[0] = self.buffers[arg]
                continue
            memory = self.buffers.get(arg) or (arg if arg.op is INPUT else None)
            if memory is None:
                continue
            if kernel is None:
                node.args[k] = self._readback(node, memory)
            elif arg.op is INPUT or arg in self.memory_vars or self.kernel_of.get(arg) is not kernel:
                node.args[k] = self._load(node, memory, kernel)

    def _load(self, user: Node, memory: Node, kernel: Node) -> Node:
        load = _make("load", [memory, *self.own_index(kernel, memory)], dtype=memory.dtype,
                     shape=kernel.shape if memory.rank else ())
        self.before.setdefault(user, []).append(load)
        return load

    def _readback(self, user: Node, memory: Node) -> Node:
        node = _make("readback", [memory], dtype=memory.dtype, shape=())
        self.before.setdefault(user, []).append(node)
        return node

    def _replace_node(self, old: Node, new: Node) -> None:
        scope = old.scope
        index = scope.nodes.index(old)
        scope.nodes[index] = new
        new.scope = scope
        self.kernel_of[new] = self.kernel_of.get(old)

    def _finish_outputs(self) -> None:
        outputs = []
        for out in self.program.outputs:
            if out.op is INPUT:
                outputs.append(out)
            elif out in self.buffers:
                outputs.append(self.buffers[out])
            else:  # a host value: store it from a one-thread kernel
                buffer = _make("alloc", dtype=out.dtype, shape=out.shape, name=out.name or "out")
                kernel = _make("kernel", shape=())
                kernel.body = Scope(kernel)
                kernel.body.append(_make("store", [buffer, out], shape=()))
                for node in (buffer, kernel):
                    self.program.root.append(node)
                self.buffers[out] = buffer
                outputs.append(buffer)
        self.program.outputs = outputs

    def _insert(self, scope: Scope) -> None:
        if scope.owner is not None and scope.owner in self.at_end:
            for store in self.at_end.pop(scope.owner):
                scope.append(store)
        new = []
        for node in scope.nodes:
            for extra in self.before.pop(node, []):
                extra.scope = scope
                new.append(extra)
            new.append(node)
            for extra in self.after.pop(node, []):
                extra.scope = scope
                new.append(extra)
            if node.body is not None:
                self._insert(node.body)
        scope.set_nodes(new)


def run(program: Program) -> Program:
    return _Memory(program).run()
