"""Autodiff through control flow: loops, ifs, break and continue.

A loop is reversed by *taping* the variables it updates: before each iteration their
values are stored in a tape indexed by the iteration, so the reverse loop, running the
iterations backwards, restores them, recomputes the body (its intermediate values), and
reverses the recomputed body. An if is reversed the same way with one snapshot. Before
that, ``break``/``continue`` are turned into per-element flags that guard the rest of the
iteration, so each element's path through the loop is replayed exactly.

Reads of a variable that is updated later are snapshotted where they happen, so every
vector-Jacobian product sees the value its op saw.
"""

from __future__ import annotations

from ..ir import dtypes as dt
from ..ir.builder import Builder, current, using
from ..ir.errors import TraceError
from ..ir.node import Node, Program, Scope, positions, scope_end, walk
from ..ir.ops import BREAK, DETACH, IF, LOAD, LOOP, OPS, SET, SPLIT_DIM
from ..tracing import algorithms as alg
from ..tracing.api import indices, scatterAdd, uniform
from ..tracing.mathfn import clamp, copy
from ..tracing.mathfn import max as maximum
from ..tracing.mathfn import min as minimum
from ..tracing.tensor import Tensor
from .analysis import is_write, mutable_nodes


def depends_on(program: Program, wrts: list[Node]) -> set[Node]:
    """Nodes whose value depends on any of ``wrts`` (and writes carrying such values)."""
    deps = set(wrts)
    changed = True
    while changed:
        changed = False
        for node in program.walk():
            if node in deps or node.op is DETACH:
                continue
            if is_write(node):
                hit = node.args[1] in deps
                if hit and node.args[0] not in deps:
                    deps.add(node.args[0])
                    changed = True
            elif node.op is LOAD:
                hit = node.args[0] in deps
            else:
                hit = node.dtype is not None and node.dtype.is_float and any(a in deps for a in node.args)
            if hit:
                deps.add(node)
                changed = True
    return deps


def influences(program: Program, loss: Node) -> set[Node]:
    """Nodes whose value can change ``loss``: its operands, transitively, with the writes to
    memory it reads and the loops and ifs around them."""
    need = {loss}
    nodes = list(program.walk())
    changed = True
    while changed:
        changed = False
        for node in reversed(nodes):
            hit = node in need or (is_write(node) and node.args[0] in need) or (
                node.body is not None and any(n in need for n in walk(node.body)))
            if not hit:
                continue
            for operand in [node, *node.args, *node.owner_chain()]:
                if operand not in need:
                    need.add(operand)
                    changed = True
    return need


# -- preparation of the forward program ------------------------------------------------------------


def prepare(program: Program, region: list[Node], wrts: list[Node], loss: Node) -> None:
    """Linearize break/continue in loops on the gradient path; snapshot reads of variables
    that are updated afterwards."""
    deps = depends_on(program, wrts) & influences(program, loss)
    for node in [n for top in region for n in top.subtree()]:
        if node.op is LOOP and touches(node, deps):
            _uniform_bounds(program, node)
            _bound_by_trips(program, node)
            _linearize(program, node)
            if node.attrs.get("checkpoint"):
                outer = _strip_mine(program, node, node.attrs["checkpoint"])
                region[:] = [outer if top is node else top for top in region]
    _snapshot_reads(program, region, depends_on(program, wrts) & influences(program, loss))


def touches(block: Node, deps: set) -> bool:
    """True if ``block`` computes a value on the gradient path or overwrites one (whose
    gradient then stops there): the backward pass must reverse it."""
    return any(n in deps or (is_write(n) and n.args[0] in deps) for n in walk(block.body))




def _make(op: str, args, dtype=None, shape=(), attrs=None) -> Node:
    return Node(OPS[op], dtype, shape, args, attrs)




def _uniform_bounds(program: Program, loop: Node) -> None:
    """A loop whose bounds differ per element makes the most trips any element makes, each
    element leaving (break) after its own count, so that it can be taped and reversed."""
    if not loop.rank:
        return
    builder = Builder(program, loop.scope)
    staged: list[Node] = []
    begin, end, step = (Tensor(a) for a in loop.args)
    with builder.inside(loop.scope, staged), using(builder):
        trips = maximum(-((begin - end) // step), 0)
        most = trips * 1
        while most.node.rank > 1:
            most = alg.reduce_max(most, axis=0)
        most = Tensor(uniform(alg.reduce_max(most).node))
    loop.scope.insert_before(loop, staged)
    prologue: list[Node] = []
    with builder.inside(loop.body, prologue), using(builder):
        counter = begin + Tensor(loop) * step
        leave = _make("if", [(Tensor(loop) >= trips).node])
        builder.emit(leave)
        leave.body = Scope(leave)
        leave.body.append(_make("break", []))
    for node in walk(loop.body):
        node.args = [counter.node if a is loop else a for a in node.args]
    loop.body.set_nodes(prologue + loop.body.nodes)
    # made without the builder, which would also place them: each node sits in one scope once
    loop.args = [_make("const", [], dt.int32, (), {"value": v}) for v in (0, 1)]
    loop.args.insert(1, most.node)
    loop.shape = ()
    for bound in loop.args[::2]:
        loop.scope.insert_before(loop, [bound])


def _bound_by_trips(program: Program, loop: Node) -> None:
    """A loop that ``break`` leaves makes as many trips on the gradient path as it made:
    a first run without the tape counts them (per element, then the most), and the taped
    run makes that many. (A ``while`` is bounded only by 2**31 - 1, far more rows than a
    tape can hold.) The counting run updates copies of the variables and of the memory the
    loop updates in place (and its own memory), and writes no other memory."""
    jumps = [n for n in walk(loop.body) if n.op.jump and n.enclosing_loop() is loop]
    if not any(j.op is BREAK for j in jumps):
        return
    # Every per-element jump makes elements take their own paths to a break.
    conditions = [o.args[0] for j in jumps for o in j.owner_chain() if o.op is IF and o.is_inside(loop)]
    shape = max((c.shape for c in conditions), key=len, default=())
    variables, written, loaded = _outer_writes(loop)
    variables += [m for m in written if m in loaded]  # memory updated in place can decide the break
    builder = Builder(program, loop.scope)
    staged: list[Node] = []
    with builder.inside(loop.scope, staged), using(builder):
        mapping = {v: builder.make("copy", [v], dtype=v.dtype, shape=v.shape) for v in variables}
        copies = set(mapping.values())
        trips = builder.const(0, dt.int32, shape)
        counting = builder.make("loop", list(loop.args), dtype=loop.dtype, shape=loop.shape)
        counting.body = Scope(counting)
        mapping[loop] = counting
        with builder.inside(counting.body):
            builder.make("set", [trips, (Tensor(trips) + 1).node], shape=shape)
            _clone([n for n in loop.body.nodes], mapping, builder)
        inside = set(walk(counting.body))
        _drop(counting.body, {n for n in inside if is_write(n) and n.args[0] not in copies | inside | {trips}})
        most = Tensor(trips) * 1
        while most.node.rank > 1:
            most = alg.reduce_max(most, axis=0)
        if most.node.rank:
            most = Tensor(uniform(alg.reduce_max(most).node))
        begin, _, step = loop.args
        end = (Tensor(begin) + most * Tensor(step)).node
    loop.scope.insert_before(loop, staged)
    loop.args[1] = end


def _strip_mine(program: Program, loop: Node, every: int) -> Node:
    """``tf.loop(..., checkpoint=every)``: the loop becomes segments of ``every`` trips (an
    outer loop over segments, the loop itself inside it). Reversing the outer loop tapes
    one state per segment; reversing a segment's recomputation tapes its trips, so the tapes
    hold T / every + every states instead of T. (After _linearize: no jump leaves the loop.)"""
    begin, end, step = (Tensor(a) for a in loop.args)
    scope = loop.scope
    builder = Builder(program, scope)
    staged: list[Node] = []
    with builder.inside(scope, staged), using(builder):
        trips = maximum(-((begin - end) // step), 0)
        outer = builder.make("loop", [builder.const(0, dt.int32), ((trips + (every - 1)) // every).node,
                                      builder.const(1, dt.int32)], dtype=dt.int32, shape=())
        outer.body = Scope(outer)
        with builder.inside(outer.body):
            first = Tensor(outer) * every
            last = minimum(first + every, trips)
    scope.insert_before(loop, staged)
    scope.nodes.remove(loop)
    outer.body.append(loop)
    prologue: list[Node] = []
    with builder.inside(loop.body, prologue), using(builder):
        counter = begin + Tensor(loop) * step
    for node in walk(loop.body):
        node.args = [counter.node if a is loop else a for a in node.args]
    loop.body.set_nodes(prologue + loop.body.nodes)
    loop.args = [first.node, last.node, _make("const", [], dt.int32, (), {"value": 1})]
    outer.body.insert_before(loop, [loop.args[2]])
    loop.attrs = {k: v for k, v in loop.attrs.items() if k != "checkpoint"}
    return outer


def _linearize(program: Program, loop: Node) -> None:
    jumps = [n for n in walk(loop.body) if n.op.jump and n.enclosing_loop() is loop]
    if not jumps:
        return
    conditions = [o.args[0] for j in jumps for o in j.owner_chain() if o.op is IF and o.is_inside(loop)]
    shape = max((c.shape for c in conditions), key=len, default=())
    active = _make("const", [], dt.bool1, shape, {"value": True})
    going = _make("const", [], dt.bool1, shape, {"value": True})
    loop.scope.insert_before(loop, [active, going])
    flags = (active, going)

    def transform(nodes: list[Node], scope: Scope) -> list[Node]:
        out = []
        for k, node in enumerate(nodes):
            if node.op.jump and node.enclosing_loop() is loop:
                false = _const(False)
                out += [false, _make("set", [active if node.op is BREAK else going, false], shape=shape)]
            else:
                jumps_out = _has_jump(node, loop)  # (before its jumps become flag updates)
                if node.op is IF:
                    node.body.set_nodes(transform(node.body.nodes, node.body))
                out.append(node)
                if not jumps_out:
                    continue
            if k + 1 < len(nodes):
                out.extend(_guard(transform(nodes[k + 1:], scope), flags, shape))
                break
        for node in out:
            node.scope = scope
        return out

    body = transform(loop.body.nodes, loop.body)
    true = _const(True)
    loop.body.set_nodes([true, _make("set", [going, true], shape=shape)] + _guard(body, flags, shape))


def _const(value: bool) -> Node:
    return _make("const", [], dt.bool1, (), {"value": value})


def _guard(nodes: list[Node], flags, shape) -> list[Node]:
    both = _make("and", list(flags), dt.bool1, shape)
    guard = _make("if", [both])
    guard.body = Scope(guard)
    guard.body.set_nodes(nodes)
    return [both, guard]


def _has_jump(node: Node, loop: Node) -> bool:
    return any(n.op.jump and n.enclosing_loop() is loop for n in node.subtree())




def _snapshot_reads(program: Program, region: list[Node], deps: set[Node]) -> None:
    mutable = mutable_nodes(program)
    pos = positions(program)
    writes: dict[Node, list[int]] = {}
    for node in program.walk():
        if is_write(node):
            writes.setdefault(node.args[0], []).append(pos[node])
    loops = [(pos[n], scope_end(n, pos)) for top in region for n in top.subtree() if n.op is LOOP]
    plan = []
    for top in region:
        for node in top.subtree():
            if node not in deps or is_write(node) or node.op in (LOAD, LOOP, IF):
                continue
            for k, arg in enumerate(node.args):
                if arg in mutable and _written_after(writes.get(arg, []), pos[node], loops):
                    plan.append((node, k, arg))
    for node, k, arg in plan:
        snapshot = _make("copy", [arg], arg.dtype, arg.shape)
        node.scope.insert_before(node, [snapshot])
        node.args[k] = snapshot


def _written_after(write_positions: list[int], at: int, loops) -> bool:
    if any(w > at for w in write_positions):
        return True
    return any(start < at <= end and any(start < w <= end for w in write_positions) for start, end in loops)


# -- reversing loops and ifs -----------------------------------------------------------------------


def _outer_writes(block: Node):
    """(variables set, memory written, memory loaded) inside ``block`` but defined outside it."""
    inside = set(walk(block.body))
    variables, written, loaded = [], [], []
    for node in walk(block.body):
        target = node.args[0] if node.args else None
        if target is None or target in inside:
            continue
        if node.op is SET and target not in variables:
            variables.append(target)
        elif is_write(node) and target not in written:
            written.append(target)
        elif node.op is LOAD and target not in loaded:
            loaded.append(target)
    return variables, written, loaded


def _updated_in_place(sweep, written, loaded) -> list[Node]:
    """Memory a block both reads and writes by index whose values the gradient can need (its
    floats on the gradient path, or ints that index them): each trip must be recomputed
    from the contents it started with, so a loop tapes them like its variables."""
    return [m for m in written if m in loaded and sweep.resolve(m) in sweep.influence]


def _free_values(sweep, block: Node) -> list[Node]:
    inside = set(walk(block.body))
    free = []
    for node in walk(block.body):
        for arg in node.args:
            if arg not in inside and arg not in free and arg in sweep.depends and arg.dtype is not None \
                    and arg.dtype.is_float and arg.op is not LOOP:
                free.append(arg)
    return free


def _clone(nodes: list[Node], mapping: dict, builder) -> list[Node]:
    """Copies of ``nodes`` (with their bodies) emitted at the builder's position."""
    out = []
    for node in nodes:
        copy = Node(node.op, node.dtype, tuple(mapping.get(d, d) for d in node.shape),
                    [mapping.get(a, a) for a in node.args], node.attrs, name=node.name, location=node.location)
        builder.emit(copy)
        mapping[node] = copy
        out.append(copy)
        if node.body is not None:
            copy.body = Scope(copy)
            with builder.inside(copy.body):
                _clone(node.body.nodes, mapping, builder)
    return out


def _reverse_body(sweep, block: Node, mapping: dict, local_of: dict) -> None:
    """Recompute ``block``'s body (with ``mapping``), then reverse the recomputation."""
    builder = sweep.builder
    for variable, local in local_of.items():
        sweep.aliases[local] = variable
    known = dict(mapping)
    clones = _clone(block.body.nodes, mapping, builder)
    for original, clone in mapping.items():
        if original not in known:
            if original in sweep.depends:
                sweep.depends.add(clone)
            if original in sweep.influence:
                sweep.influence.add(clone)
    for variable, local in local_of.items():
        if variable in sweep.depends:
            sweep.depends.add(local)
    # The recomputation must not write memory again (taken before reversing it adds its
    # own writes: the tapes of loops inside).
    ghosts = {n for top in clones for n in top.subtree()
              if is_write(n) and n.op is not SET and n.args[0] not in set(mapping.values())}
    sweep.make_buffers(clones, builder.scope)
    sweep.reverse(clones)
    _drop(builder.scope, ghosts)


def _drop(scope: Scope, nodes: set) -> None:
    scope.set_nodes([n for n in scope.nodes if n not in nodes])
    for node in scope.nodes:
        if node.body is not None:
            _drop(node.body, nodes)


def reverse_loop(sweep, loop: Node) -> None:
    begin, end, step = loop.args
    if any(a.rank for a in loop.args):
        raise TraceError("gradients through a tf.loop with per-element bounds are not supported", loop.location)
    variables, written, loaded = _outer_writes(loop)
    variables += _updated_in_place(sweep, written, loaded)
    builder = sweep.builder
    # Forward: a tape of each updated variable (and memory updated in place), one row per iteration.
    staged: list[Node] = []
    with builder.inside(loop.scope, staged):
        count = maximum(-((Tensor(begin) - Tensor(end)) // Tensor(step)), 0)
        tapes = {v: Tensor(builder.const(0, v.dtype, (count.node,) + v.shape)) for v in variables}
        kept = {v: copy(Tensor(v)) for v in _read_variables(sweep, loop, variables)}
    loop.scope.insert_before(loop, staged)
    record: list[Node] = []
    with builder.inside(loop.body, record):
        row = (Tensor(loop) - Tensor(begin)) // Tensor(step)
        for variable, tape in tapes.items():
            tape[(row, *_grid(variable))] = Tensor(variable)
    loop.body.set_nodes(record + loop.body.nodes)
    # Reverse: iterations backwards, each restoring the tape, recomputing and reversing.
    for value in _free_values(sweep, loop):
        sweep.make_buffer(value)
    reverse = builder.make("loop", [builder.const(0, dt.int32), count.node, builder.const(1, dt.int32)],
                           dtype=dt.int32, shape=())
    reverse.body = Scope(reverse)
    with builder.inside(reverse.body):
        back = count - 1 - Tensor(reverse)
        counter = Tensor(begin) + back * Tensor(step)
        mapping = {loop: counter.node}
        local_of = {}
        for variable, snapshot in kept.items():
            mapping[variable] = local_of[variable] = copy(snapshot).node
        for variable, tape in tapes.items():
            local = copy(tape[(back, *_grid(variable))])
            mapping[variable] = local.node
            local_of[variable] = local.node
        skip = set(record)
        body = [n for n in loop.body.nodes if n not in skip]
        original = loop.body.nodes
        loop.body.nodes = body
        try:
            _reverse_body(sweep, loop, mapping, local_of)
        finally:
            loop.body.nodes = original


def reverse_if(sweep, block: Node) -> None:
    variables, _, _ = _outer_writes(block)  # (memory it reads is snapshotted with the variables it reads)
    builder = sweep.builder
    staged: list[Node] = []
    with builder.inside(block.scope, staged):
        snapshots = {v: copy(Tensor(v)) for v in [*variables, *_read_variables(sweep, block, variables)]}
    block.scope.insert_before(block, staged)
    for value in _free_values(sweep, block):
        sweep.make_buffer(value)
    condition = snapshots[block.args[0]].node if block.args[0] in snapshots else block.args[0]
    reverse = builder.make("if", [condition], shape=())
    reverse.body = Scope(reverse)
    with builder.inside(reverse.body):
        mapping, local_of = {}, {}
        for variable, snapshot in snapshots.items():
            local = copy(snapshot)
            mapping[variable] = local.node
            local_of[variable] = local.node
        _reverse_body(sweep, block, mapping, local_of)


def _read_variables(sweep, block: Node, variables: list) -> list[Node]:
    """Variables ``block`` reads (its condition included) but does not set. The backward
    pass recomputes the block after the code that follows it, which may have changed them,
    so it reads copies taken before the block."""
    inside = set(walk(block.body))
    found: list[Node] = []
    for node in [block, *walk(block.body)]:
        reads = node.args[1:] if is_write(node) else node.args  # (a load reads its memory too)
        for arg in reads:
            if arg not in inside and arg not in variables and arg not in found and arg.op is not LOOP \
                    and sweep.resolve(arg) in sweep.mutable:
                found.append(arg)
    return found


def _grid(node: Node) -> list:
    return list(indices([Tensor(d) for d in node.shape])) if node.rank else []


# -- gradients of index remaps -----------------------------------------------------------------------


def scatter_view(node: Node, g: Tensor) -> Tensor:
    """Gradient of split_dim / merge_dim: each output element's gradient goes to the input
    element it read (padding reads the last element, so those gradients add up there)."""
    source = node.args[0]
    out = list(indices([Tensor(d) for d in node.shape]))
    axis = node.attrs["axis"]
    if node.op is SPLIT_DIM:
        joined = out[axis] * Tensor(node.shape[axis + 1]) + out[axis + 1]
        index = out[:axis] + [_clamp_index(joined, source.shape[axis])] + out[axis + 2:]
    else:
        inner = Tensor(source.shape[axis])
        total = Tensor(source.shape[axis - 1]) * inner
        merged = _clamp_index(out[axis - 1], total.node)
        index = out[:axis - 1] + [merged // inner, merged % inner] + out[axis:]
    result = Tensor(current().const(0.0, g.dtype, source.shape))
    scatterAdd(result[tuple(index)], g)
    return result


def scatter_broadcast(g: Tensor, shape, into: Tensor | None = None) -> Tensor:
    """Sum ``g`` into a tensor of ``shape`` (``into``, or new zeros) that it was broadcast
    from, with atomic adds: its dims may be 1 at run time."""
    out = list(indices([Tensor(d) for d in g.node.shape])) if g.node.rank else []
    offset = len(out) - len(shape)
    index = [_clamp_index(out[k + offset], dim) for k, dim in enumerate(shape)]
    result = into if into is not None else Tensor(current().const(0.0, g.dtype, tuple(shape)))
    scatterAdd(result[tuple(index)], g)
    return result


def _clamp_index(index: Tensor, dim) -> Tensor:
    return clamp(index, 0, Tensor(dim) - 1)
