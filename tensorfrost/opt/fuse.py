"""Fusion: cluster nodes into kernels, bottom-up, as the seed describes.

The program means what numpy would do: every operation acts on all elements before the
next one starts. A kernel runs its elements in any order, each element its nodes in order,
so nodes may share a kernel only where no element can reach a place in memory that another
element of the kernel writes. Walking each scope in order, nodes of the same shape join one
cluster until that rule forbids it: a read of memory that the cluster writes, or a write of
memory the cluster reads or writes, except where both go through the same index and that
index separates the elements (``analysis.place``: the element's own place, or an index that
keeps every grid axis apart inside the memory, like ``T[i, k]`` in a loop of the elements
of ``i``, or ``T[1:-1] += 1``), or both hold every grid axis at the same positions
(``W[b, i, k]`` and ``W[b, k, i]`` over the elements of ``b``: each reaches its own
``W[b]``); or a value that must be complete before it is used. A memory
used as a value (``c[i, j] = b``) is read at the element's own place. Stores through one
index may meet at a place (one statement's duplicates, or a loop's trips): one of the
values is left. A loop or if whose body is one cluster (plus host scalar arithmetic), and
where no element's condition, bounds or later trip reads what another element's body
writes, joins the cluster of its body's shape and runs inside the kernel; otherwise it
stays on the host and its body's clusters become kernels it dispatches.

Scalar (shape ``[]``) values that depend only on dims, constants and host loop counters
are *host* values: computed by the host program and passed to kernels as uniforms. Every
scalar that a size or a check needs is one: the host reads what it cannot compute (a
rank-0 input, a sum a kernel computes) before it needs it (``host_values.read_for_host``).

Guarantees afterwards: every node that is not a host value, host bookkeeping, or a host
loop/if is inside exactly one ``kernel`` node whose shape is the thread grid.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import optimizations
from ..ir.errors import TraceError
from ..ir.node import Node, Program, Scope, walk
from ..ir.ops import (
    BREAK,
    CONST,
    CONTINUE,
    IF,
    INPUT,
    INPUT_DIM,
    KERNEL,
    LOAD,
    LOOP,
    OPS,
    READBACK,
    REGION,
    SET,
    STORE,
)
from ..ir.shapes import shapes_equal
from .analysis import OWN, apart, is_memory, is_write, mutable_nodes, place, value_place
from .host_values import dim_cones, read_for_host
from .masking import guard_block, mask_loop, per_element_conditions, uniform_bounds


@dataclass
class _Item:
    """A node of a scope's plan: ``host`` work (scalars, allocations, jumps), ``device`` work
    for a kernel of ``shape``, or a loop/if that stays on the host (``control``)."""

    kind: str
    node: Node
    shape: tuple | None = None


class _Cluster:
    """Nodes that will run in one kernel, and how they touch memory."""

    def __init__(self, shape):
        self.shape = shape
        self.nodes: list[Node] = []
        self.reads: dict[Node, set] = {}
        self.writes: dict[Node, set] = {}
        self.defined: set[Node] = set()
        self.has_effects = False


class _Fusion:
    def __init__(self, program: Program):
        self.program = program
        self.mutable = mutable_nodes(program)
        self.host_needed = dim_cones(program)
        self.host = self._host_values()
        if read_for_host(program, self.host, self.mutable):
            self.mutable = mutable_nodes(program)
            self.host_needed = dim_cones(program)
            self.host = self._host_values()
        self.deferred: set[Node] = set()  # declarations that join the cluster of their first use
        self.plans: dict[Node, list] = {}  # host loops and ifs: the plan of their body, made once
        self.by_axes = optimizations.enabled("apart_axes")
        self.apart_by_axes = False  # whether an access pair was found apart by its axes alone

    def _apart(self, write, other) -> bool:
        if apart(write, other, by_axes=False):
            return True
        if self.by_axes and apart(write, other):
            self.apart_by_axes = True
            return True
        return False

    # -- classification ---------------------------------------------------------------------

    def _host_values(self) -> set[Node]:
        """Scalar values the host can compute, found by a fixpoint: a scalar variable stays
        a host value only while every value assigned to it is one."""
        host_vars = {n for n in self.mutable if n.rank == 0 and (n.op is CONST or n.op.kind == "elementwise")}
        while True:
            host = set()
            for node in self.program.walk():
                if self._is_host(node, host, host_vars):
                    host.add(node)
            bad = {n.args[0] for n in self.program.walk()
                   if is_write(n) and n.args[0] in host_vars
                   and (n.op is not SET or n.args[1] not in host)}
            if not bad:
                return host
            host_vars -= bad

    def _is_host(self, node: Node, host: set, host_vars: set) -> bool:
        if node.rank != 0 or node.dtype is None:
            return False
        op = node.op
        if op is CONST:
            return node not in self.mutable or node in host_vars
        if op in (INPUT_DIM, READBACK):
            return True
        if op is LOOP:
            return all(a in host for a in node.args)
        if op is LOAD:  # a scalar read by the host, where a shape needs it
            return node in self.host_needed and all(a in host for a in node.args[1:])
        if node.op.kind == "elementwise":
            return (node not in self.mutable or node in host_vars) and all(a in host for a in node.args)
        return False

    def is_host_item(self, node: Node) -> bool:
        if node in self.host or _bookkeeping(node) or node.op.jump:
            return True
        return node.op is SET and node.args[0] in self.host

    # -- planning ---------------------------------------------------------------------------

    def plan(self, scope: Scope) -> list:
        """The plan of a scope: an item per node, in order."""
        items = []
        for node in list(scope.nodes):  # masking places nodes before a loop as it goes
            if node.op in (LOOP, IF):
                body = self.plan(node.body)
                shape = self._fused_shape(node, body)
                if shape is None and node.op is LOOP and node.rank:
                    # Never a host loop with per-element bounds: the most trips, elements leaving.
                    items += self._added(uniform_bounds(self.program, node))
                    body = self.plan(node.body)
                if shape is None and self._needs_masks(node):
                    items += self._added(mask_loop(self.program, node, self.is_host_item))
                    body = self.plan(node.body)
                if shape is None:
                    self.plans[node] = self._jumps_on_host(body, node) if node.op is LOOP else body
                    items.append(_Item("control", node))
                else:
                    items.append(_Item("device", node, shape))
            elif self.is_host_item(node):
                items.append(_Item("host", node))
            else:
                items.append(_Item("device", node, node.shape))
        return self._sink_declarations(items)

    def _added(self, nodes: list) -> list:
        """Plan items for nodes a rewrite placed before a loop (and what they make mutable)."""
        self.mutable = mutable_nodes(self.program) | {n.args[0] for n in nodes if is_write(n)}
        items = []
        for node in nodes:
            if self._is_host(node, self.host, set()):
                self.host.add(node)
                items.append(_Item("host", node))
            else:
                items.append(_Item("device", node, node.shape))
        return items

    def _needs_masks(self, node: Node) -> bool:
        """A host loop that elements leave at different times: it runs them under masks."""
        return (node.op is LOOP and not any(a.rank for a in node.args)
                and bool(per_element_conditions(node, self.host.__contains__)))

    def _jumps_on_host(self, items: list, loop: Node) -> list:
        """In a loop that stays on the host, an ``if`` that leaves it (break/continue) is a
        host ``if`` too: its condition is computed by a kernel and read back."""
        out = []
        for item in items:
            node = item.node
            if node.op is IF and _leaves(node, loop):
                body = self.plans.get(node) if item.kind == "control" else self.plan(node.body)
                self.plans[node] = self._jumps_on_host(body, loop)
                item = _Item("control", node)
            out.append(item)
        return out

    def _sink_declarations(self, items: list) -> list:
        """Move each device variable's declaration (a mutable constant: an accumulator's
        zero) to just before its first use when that use has the variable's shape, so that
        it joins the kernel that uses it rather than the kernel before, which would leave
        the variable in memory between the two."""
        declarations = [item for item in items if item.kind == "device" and self._is_declaration(item.node)]
        for declaration in declarations:
            variable = declaration.node
            start = items.index(declaration)
            user = next((k for k in range(start + 1, len(items)) if items[k].node.uses(variable)), None)
            if user is None or items[user].kind != "device" or not shapes_equal(items[user].shape, variable.shape) \
                    or not self._own_place_only(items[user], variable):
                continue
            self.deferred.add(variable)
            items.insert(user - 1, items.pop(start))
        return items

    def _own_place_only(self, item, variable: Node) -> bool:
        """True if ``item`` touches ``variable`` only at each element's own place. A scatter
        (or a store or load at other indices) must not share a kernel with the zeroing of
        its target: an element would zero a place another element already added to."""
        reads, writes, _, _ = self._accesses(item.node, item.shape)
        return reads.get(variable, set()) | writes.get(variable, set()) <= {OWN}

    def _fused_shape(self, node: Node, body: list):
        """The kernel shape a loop/if can run inside, or None if it must stay on the host.
        Host work in the body (scalar arithmetic, loops over variables defined in the body)
        runs per element inside the kernel; checks, writes to host variables defined
        outside, and sizes (a kernel's grid is known before it runs) keep it on the host."""
        shapes = []
        for item in body:
            if item.kind == "control" and not self._runs_per_element(item.node, node):
                return None
            if item.kind == "host" and (_bookkeeping(item.node) or self._computes_size(item.node) or
                                        (is_write(item.node) and not item.node.args[0].is_inside(node))):
                return None
            if item.kind == "device":
                shapes.append(item.shape)
        device_args = [a for a in node.args if a not in self.host]
        shapes += [a.shape for a in device_args]
        if not shapes or (node.op is LOOP and not any(i.kind == "device" for i in body)):
            return None
        grid = max(shapes, key=len)
        for shape in shapes:
            if shape and not shapes_equal(shape, grid):
                return None
        clusters = self.cluster([i for i in body if i.kind != "control"])
        if len(clusters) > 1 or not self._apart_per_element(node, grid):
            return None
        for item in body:
            if item.kind == "control":
                self.plans.pop(item.node, None)
        return grid

    def _computes_size(self, node: Node) -> bool:
        """A host value that a size or a check needs (a constant is written into the code)."""
        return node in self.host_needed and (node.op is not CONST or node in self.mutable)

    def _apart_per_element(self, node: Node, grid) -> bool:
        """True if a loop or if can run each element's copy of it in one kernel: no element
        reads, in its condition or bounds or (a loop) in any trip, a place that another
        element's body writes. (Stores of one index in several trips may meet at a place,
        as several elements' stores of one statement may: one of their values is left.)"""
        reads, writes, _, _ = self._accesses(node, grid)
        if node.op is IF:
            reads, _, _, _ = self._accesses(node, grid, body=False)
        for memory, written in writes.items():
            if any(not self._apart(w, k) for w in written for k in reads.get(memory, set())):
                return False
        return True

    def _runs_per_element(self, control: Node, outer: Node) -> bool:
        """A host loop/if inside ``outer`` that only does scalar work on variables of
        ``outer``'s body, so each element can run it."""
        for inner in walk(control.body):
            if _bookkeeping(inner) or inner.op is KERNEL or self._computes_size(inner):
                return False
            if is_write(inner) and not inner.args[0].is_inside(outer):
                return False
            if inner.dtype is not None and inner not in self.host and inner.rank:
                return False
        return True

    # -- clustering ---------------------------------------------------------------------------

    def cluster(self, items: list) -> list[_Cluster]:
        clusters: list[_Cluster] = []
        current = None
        waiting = []  # declarations of variables, which join the cluster of their first use

        def place(node, shape):
            nonlocal current
            if current is None or not self._joins(current, node, shape):
                current = _Cluster(shape)
                clusters.append(current)
            for declaration in waiting:
                self._add(current, declaration.node, declaration.shape)
            waiting.clear()
            self._add(current, node, shape)

        for item in items:
            if item.kind == "device" and item.node in self.deferred:
                waiting.append(item)
                continue
            if item.kind != "device":
                while waiting:
                    declaration = waiting.pop(0)
                    place(declaration.node, declaration.shape)
            if item.kind == "control":
                current = None
            elif item.kind == "host":
                if _orders_host(item.node):
                    current = None
            else:
                place(item.node, item.shape)
        while waiting:
            declaration = waiting.pop(0)
            place(declaration.node, declaration.shape)
        return clusters

    def _is_declaration(self, node: Node) -> bool:
        return node.op is CONST and node in self.mutable and node.rank > 0

    def _accesses(self, node: Node, grid, body: bool = True):
        """(reads, writes, defined, has_effects) of a node and (if ``body``) everything in
        its body; reads and writes map each memory to the places (``analysis.Place``) reached."""
        reads, writes, defined, effects = {}, {}, set(), False
        stack = [node]
        while stack:
            n = stack.pop()
            defined.add(n)
            op = n.op
            if op is LOAD:
                reads.setdefault(n.args[0], set()).add(place(n.args[1:], n.args[0], grid, self.host.__contains__))
            elif op is STORE:
                writes.setdefault(n.args[0], set()).add(place(n.args[2:], n.args[0], grid, self.host.__contains__))
            elif op.atomic:
                writes.setdefault(n.args[0], set()).add("atomic:" + n.op.combine)
            elif op is SET:
                writes.setdefault(n.args[0], set()).add(OWN)
            if not n.op.pure:
                effects = True
            if n in self.mutable:
                writes.setdefault(n, set()).add(OWN)
                effects = True
            # Every other operand that is memory is read as a value: at the element's own place.
            for a in n.args[1:] if op is SET or _indexed(n) else n.args:
                if is_memory(a, self.mutable) and a not in self.host:
                    reads.setdefault(a, set()).add(value_place(a, grid))
            if n.body is not None and (body or n is not node):
                stack.extend(n.body.nodes)
        return reads, writes, defined, effects

    def _joins(self, cluster: _Cluster, node: Node, shape) -> bool:
        grid = cluster.shape or shape
        reads, writes, _, effects = self._accesses(node, grid)
        if not shapes_equal(shape, cluster.shape):
            scalar_ok = (shape == () and not effects) or (cluster.shape == () and not cluster.has_effects)
            if not scalar_ok:
                return False
        for memory, keys in reads.items():
            held = cluster.writes.get(memory, set())
            if any(not self._apart(k, key) for key in keys for k in held):
                return False
            if memory in cluster.defined and memory not in self.mutable and keys != {OWN}:
                return False
        for memory, keys in writes.items():
            if any(not self._apart(key, k) for key in keys for k in cluster.reads.get(memory, set())):
                return False
            held = cluster.writes.get(memory, set())
            atomic = {k for k in keys if _is_atomic(k)}
            if atomic and held == atomic and len(atomic) == 1:
                continue  # atomic updates of one kind commute
            # Writes through one index leave, at a place several elements reach, one of the
            # values stored there last, as numpy's buffered assignment does; writes through
            # indices that keep the elements apart never meet.
            if any(k != key and not self._apart(key, k) for key in keys for k in held):
                return False
        return True

    def _add(self, cluster: _Cluster, node: Node, shape) -> None:
        if cluster.shape == () and shape != ():
            cluster.shape = shape
        reads, writes, defined, effects = self._accesses(node, cluster.shape)
        for memory, keys in reads.items():
            cluster.reads.setdefault(memory, set()).update(keys)
        for memory, keys in writes.items():
            cluster.writes.setdefault(memory, set()).update(keys)
        cluster.defined |= defined
        cluster.has_effects |= effects
        cluster.nodes.append(node)

    # -- building kernels ------------------------------------------------------------------------

    def build(self, scope: Scope) -> None:
        items = self.plans.pop(scope.owner, None) if scope.owner is not None else None
        items = items if items is not None else self.plan(scope)
        scope.set_nodes(self._assemble(items, _kernel, lambda node: self._control(node, [])))

    def _assemble(self, items: list, make_kernel, control) -> list:
        """The nodes of a scope from its plan: a kernel per cluster (``make_kernel``), host
        values just before the kernel that reads them, control nodes built by ``control``."""
        cluster_of = {node: cluster for cluster in self.cluster(items) for node in cluster.nodes}
        out, pending, current = [], [], None

        def close():
            nonlocal current, pending
            out.extend(pending)
            pending = []
            if current is not None:
                out.append(make_kernel(current))
            current = None

        for item in items:
            node = item.node
            if item.kind == "control":
                close()
                out.extend(control(node))
            elif item.kind == "host":
                if _orders_host(node):
                    close()
                    out.append(node)
                elif current is not None:
                    pending.append(node)
                else:
                    out.append(node)
            else:
                cluster = cluster_of[node]
                if cluster is not current:
                    close()
                    current = cluster
        close()
        return out

    def _control(self, node: Node, conditions: list) -> list:
        """A loop or if that stays on the host, inside per-element ``conditions`` (pairs of
        condition and location, outermost first): its built nodes."""
        if self._per_element_if(node):
            return self._split_if(node, conditions)
        if conditions:
            if any(a.rank for a in node.args):
                raise TraceError("a per-element if holds a loop with per-element bounds next to operations that "
                                 "need several kernels; move the loop out of the if", node.location)
            guard_block(node, conditions, self.is_host_item)
            body = self.plan(node.body)
            self.plans[node] = self._jumps_on_host(body, node) if node.op is LOOP else body
        self._check_control(node)
        self.build(node.body)
        return [node]

    def _per_element_if(self, node: Node) -> bool:
        return node.op is IF and node.args[0].rank > 0 and node.args[0] not in self.host

    def _split_if(self, node: Node, outer: list) -> list:
        """A per-element ``if`` whose body needs several kernels becomes one kernel per piece
        of the body, each running its piece under the same conditions: every statement of
        the block applies to the selected elements in turn, as in numpy. Pieces that only
        compute values run for every element; host loops and ifs inside take the conditions
        into their bodies. A condition the body changes is copied first."""
        out = []
        condition = node.args[0]
        if condition in self.mutable and any(is_write(n) and n.args[0] is condition for n in walk(node.body)):
            snapshot = Node(OPS["copy"], condition.dtype, condition.shape, [condition], location=node.location)
            out.append(_guarded_kernel(_Cluster(condition.shape), [*outer], [snapshot]))
            condition = snapshot
        conditions = [*outer, (condition, node.location)]
        items = self.plans.pop(node, None) or self.plan(node.body)
        for item in items:
            inner = item.node
            if item.kind == "host" and (is_write(inner) or inner.op.kind == "control"):
                raise TraceError("a per-element if holds host work that cannot run per element (a write of a "
                                 "value shared by all elements) next to operations that need several kernels; "
                                 "move that part out of the if", inner.location or node.location)

        local = set(walk(node.body))

        def make_kernel(cluster):
            # Values, and writes of each element's own place in memory declared in the if (only
            # read under it), run for all; other writes (a count of the elements) only under it.
            if all(memory in cluster.defined or (memory in local and keys == {"id"})
                   for memory, keys in cluster.writes.items()):
                return _kernel(cluster)
            return _guarded_kernel(cluster, conditions)
        return out + self._assemble(items, make_kernel, lambda inner: self._control(inner, conditions))

    def _check_control(self, node: Node) -> None:
        if node.op is not LOOP:
            return
        for inner in walk(node.body):
            if inner.op is KERNEL:
                continue
            if inner.op.jump and inner.enclosing_loop() is node:
                owner = next(inner.owner_chain(), None)
                if owner is not None and owner.op is IF and owner.args[0] not in self.host \
                        and owner.args[0].rank > 0:
                    raise TraceError("tf.break_loop()/tf.continue_loop() under a per-element condition "
                                     "cannot leave a loop that runs several kernels; restructure the loop so "
                                     "its body fuses into one kernel", inner.location)


def _leaves(block: Node, loop: Node) -> bool:
    """True if a break/continue inside ``block`` jumps out of ``loop``."""
    return any(n.op.jump and n.enclosing_loop() is loop for n in walk(block.body))


def _bookkeeping(node: Node) -> bool:
    """Host work that is not a value: checks, buffers, readbacks, regions, the inputs."""
    return node.op.host_only or node.op is INPUT


def _orders_host(node: Node) -> bool:
    """Host items that must stay between the kernels around them: writes of host variables,
    reads of memory, debug regions, and break/continue (what follows them must not run)."""
    return is_write(node) or node.op in (LOAD, REGION, BREAK, CONTINUE)


def _is_atomic(key) -> bool:
    return isinstance(key, str) and key.startswith("atomic:")


def _indexed(node: Node) -> bool:
    """Loads, stores and scatters: their first operand is the memory they index."""
    return node.op is LOAD or node.op is STORE or node.op.atomic


def _guarded_kernel(cluster: _Cluster, conditions: list, nodes: list | None = None) -> Node:
    """A kernel running ``cluster`` (or ``nodes``) inside ifs on ``conditions``, pairs of
    (condition, location), outermost first."""
    shape = cluster.shape or (conditions[-1][0].shape if conditions else nodes[0].shape)
    if any(c.rank and not shapes_equal(c.shape, shape) for c, _ in conditions):
        raise TraceError("a per-element if holds operations of another shape than its condition that need "
                         "several kernels; split it into several ifs, one per shape", conditions[-1][1])
    body = nodes if nodes is not None else cluster.nodes
    for condition, location in reversed(conditions):
        guard = Node(OPS["if"], None, (), [condition], location=location)
        guard.body = Scope(guard)
        guard.body.set_nodes(body)
        body = [guard]
    kernel = Node(OPS["kernel"], None, shape)
    kernel.body = Scope(kernel)
    kernel.body.set_nodes(body)
    return kernel


def _kernel(cluster: _Cluster) -> Node:
    kernel = Node(OPS["kernel"], None, cluster.shape)
    kernel.body = Scope(kernel)
    kernel.body.set_nodes(cluster.nodes)
    return kernel


def _copy_own_operands(program: Program) -> None:
    """A store or scatter that takes its own target as a value or an index (``b[p] = b``)
    reads it whole before it writes, as numpy does: that read becomes a copy, a node of its
    own, so that fusion orders the two."""
    for node in list(program.walk()):
        if is_write(node) and node.op is not SET and node.args[0] in node.args[1:]:
            memory = node.args[0]
            copy = Node(OPS["copy"], memory.dtype, memory.shape, [memory], location=node.location)
            node.scope.insert_before(node, [copy])
            node.args[1:] = [copy if a is memory else a for a in node.args[1:]]


def run(program: Program) -> Program:
    _copy_own_operands(program)
    fusion = _Fusion(program)
    fusion.build(program.root)
    if fusion.apart_by_axes:
        optimizations.fired("apart_axes")
    return program
