"""Read and write sets and liveness of a kernel function, for the rewrite.

For each ``if``, ``for`` and ``while`` the rewrite must know which names to *carry*: the
names the statement writes that are still needed afterwards (live after it) and, for a
loop, those the next iteration reads before writing them (live at the loop head). This is
the classic backward liveness of a structured program, with ``break`` and ``continue``
jumping to the exit and to the head of the innermost loop::

    info = analyse(function_def)
    info.regions[for_stmt].carried   # ('z_re', 'z_im'), in order of first appearance
"""

from __future__ import annotations

import gast

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda,
           gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


class Region:
    """What the rewrite needs to know about one if / for / while statement."""

    __slots__ = ("carried", "both", "live_after")

    def __init__(self, carried=(), both=frozenset(), live_after=frozenset()):
        self.carried = carried  # names to carry, in order of first appearance
        self.both = both  # (if) names every branch assigns before falling through
        self.live_after = live_after  # names read after the statement


class Analysis:
    """Liveness results for one function: a Region per control statement."""

    def __init__(self, params: set, locals_: set):
        self.params = params
        self.locals = locals_  # every name the function binds (parameters included)
        self.regions: dict[int, Region] = {}  # id(statement) -> Region

    def region(self, stmt) -> Region:
        return self.regions[id(stmt)]

    @property
    def candidates(self) -> set:
        """Names carried by some region: their assignments may have to become sets."""
        return {name for region in self.regions.values() for name in region.carried}


# -- names read and written --------------------------------------------------------------------


def reads(node) -> set:
    """Names an expression (or any node) reads, including free names of nested lambdas and
    comprehensions (they may run later, so they count as read here)."""
    if node is None:
        return set()
    if isinstance(node, list):
        return set().union(*(reads(n) for n in node)) if node else set()
    if isinstance(node, gast.Name):
        return {node.id} if isinstance(node.ctx, gast.Load) else set()
    if isinstance(node, gast.Lambda):
        return (reads(node.body) - _arg_names(node.args)) | reads(node.args.defaults)
    if isinstance(node, (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)):
        bound = set().union(*(targets(g.target) for g in node.generators))
        inner = set().union(*(reads(g.iter) | reads(g.ifs) for g in node.generators))
        inner |= reads(getattr(node, "elt", None)) | reads(getattr(node, "key", None)) | \
            reads(getattr(node, "value", None))
        return inner - bound
    if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
        inside = set().union(*(reads(s) for s in node.body))
        own = _arg_names(node.args) | set().union(*(writes(s) for s in node.body))
        return (inside - own) | reads(node.decorator_list) | reads(node.args.defaults)
    if isinstance(node, gast.ClassDef):
        return set().union(*(reads(s) for s in node.body)) | reads(node.bases) | reads(node.decorator_list)
    return set().union(*(reads(child) for child in gast.iter_child_nodes(node)))


def targets(node) -> set:
    """Names bound by an assignment target (a name, tuple, list or starred)."""
    if isinstance(node, gast.Name):
        return {node.id}
    if isinstance(node, (gast.Tuple, gast.List)):
        return set().union(*(targets(e) for e in node.elts)) if node.elts else set()
    if isinstance(node, gast.Starred):
        return targets(node.value)
    return set()


def walrus(node) -> set:
    """Names bound by ``:=`` inside an expression (outside nested lambdas)."""
    if node is None or isinstance(node, gast.Lambda):
        return set()
    found = targets(node.target) if isinstance(node, gast.NamedExpr) else set()
    for child in gast.iter_child_nodes(node):
        found |= walrus(child)
    return found


def writes(stmt) -> set:
    """Names a statement binds, looking inside compound statements but not nested scopes."""
    if isinstance(stmt, list):
        return set().union(*(writes(s) for s in stmt)) if stmt else set()
    if isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
        return {stmt.name}
    if isinstance(stmt, (gast.Import, gast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names}
    found = set()
    stack = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            found.add(node.id)
        elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            found.add(node.name)
            continue
        elif isinstance(node, _SCOPES):
            continue
        stack.extend(gast.iter_child_nodes(node))
    return found


def _arg_names(args) -> set:
    names = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return {a.id for a in names if a is not None}


def first_appearance(node, names: set) -> tuple:
    """``names`` ordered by where they first appear in ``node``'s source."""
    seen = {}
    for sub in gast.walk(node):
        if isinstance(sub, gast.Name) and sub.id in names:
            key = (getattr(sub, "lineno", 0), getattr(sub, "col_offset", 0))
            if sub.id not in seen or key < seen[sub.id]:
                seen[sub.id] = key
    return tuple(sorted(names, key=lambda n: (seen.get(n, (1 << 30, 0)), n)))


# -- names assigned on every path ------------------------------------------------------------

_EVERYTHING = None  # must_assign of a block that never falls through


def _meet(a, b):
    if a is _EVERYTHING:
        return b
    if b is _EVERYTHING:
        return a
    return a & b


def must_assign(stmts):
    """Names assigned on every path through ``stmts`` that falls through to what follows."""
    found = set()
    for stmt in stmts:
        if isinstance(stmt, (gast.Break, gast.Continue, gast.Return, gast.Raise)):
            return _EVERYTHING
        if isinstance(stmt, gast.If):
            branch = _meet(must_assign(stmt.body), must_assign(stmt.orelse))
            if branch is _EVERYTHING:
                return _EVERYTHING
            found |= branch
        elif isinstance(stmt, gast.With):
            inner = must_assign(stmt.body)
            if inner is _EVERYTHING:
                return _EVERYTHING
            found |= inner | set().union(*(targets(i.optional_vars) for i in stmt.items))
        elif isinstance(stmt, (gast.For, gast.While)):
            found |= walrus(getattr(stmt, "test", None)) | walrus(getattr(stmt, "iter", None))
        else:
            found |= writes(stmt)
    return found


# -- liveness ------------------------------------------------------------------------------------


class _Liveness:
    def __init__(self, analysis: Analysis):
        self.analysis = analysis

    def block(self, stmts, live: set, loop) -> set:
        """Names live before ``stmts`` given those live after; ``loop`` = (at break, at continue)."""
        for stmt in reversed(stmts):
            live = self.stmt(stmt, live, loop)
        return live

    def stmt(self, s, live: set, loop) -> set:
        if isinstance(s, gast.Assign):
            bound = set().union(*(targets(t) for t in s.targets))
            return (live - bound) | reads(s.value) | reads(s.targets)
        if isinstance(s, gast.AnnAssign):
            if s.value is None:
                return live
            return (live - targets(s.target)) | reads(s.value) | reads(s.target)
        if isinstance(s, gast.AugAssign):
            name = {s.target.id} if isinstance(s.target, gast.Name) else set()
            return live | name | reads(s.target) | reads(s.value)
        if isinstance(s, gast.If):
            body = self.block(s.body, live, loop)
            orelse = self.block(s.orelse, live, loop)
            written = writes(s.body) | writes(s.orelse)
            both = _meet(must_assign(s.body), must_assign(s.orelse))
            # A tensor if traces both branches in turn: what the else branch reads of the
            # names the body writes must be carried too, so it sees the values before the if.
            carried = (written & live) | (writes(s.body) & orelse)
            self._record(s, carried, both if both is not _EVERYTHING else written, live)
            return reads(s.test) | body | orelse
        if isinstance(s, gast.For):
            return self._for(s, live, loop)
        if isinstance(s, gast.While):
            return self._while(s, live, loop)
        if isinstance(s, gast.Break):
            return set(loop[0]) if loop else set()
        if isinstance(s, gast.Continue):
            return set(loop[1]) if loop else set()
        if isinstance(s, gast.Return):
            return reads(s.value)
        if isinstance(s, gast.Raise):
            return reads(s.exc) | reads(s.cause)
        if isinstance(s, gast.With):
            inner = self.block(s.body, live, loop)
            bound = set().union(*(targets(i.optional_vars) for i in s.items))
            return (inner - bound) | reads([i.context_expr for i in s.items])
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Import, gast.ImportFrom)):
            return (live - writes(s)) | reads(s)
        if isinstance(s, (gast.Expr, gast.Assert)):
            return live | reads(s)
        # Anything else (pass, and constructs the rewrite rejects): reads only.
        return live | reads(s)

    def _for(self, s, after: set, loop) -> set:
        exit_live = self.block(s.orelse, after, loop)
        head = set(exit_live)
        while True:
            body = self.block(s.body, head, (after, head))
            new_head = (body - targets(s.target)) | reads(s.target) | exit_live
            if new_head == head:
                break
            head = new_head
        written = writes(s.body) | writes(s.target)
        carried = (written & (head | after)) - targets(s.target)
        self._record(s, carried, frozenset(), after)
        return reads(s.iter) | head

    def _while(self, s, after: set, loop) -> set:
        exit_live = self.block(s.orelse, after, loop)
        head = reads(s.test) | exit_live
        while True:
            body = self.block(s.body, head, (after, head))
            new_head = reads(s.test) | body | exit_live
            if new_head == head:
                break
            head = new_head
        written = writes(s.body) | walrus(s.test)
        self._record(s, written & (head | after), frozenset(), after)
        return head

    def _record(self, stmt, carried: set, both, live_after: set) -> None:
        self.analysis.regions[id(stmt)] = Region(first_appearance(stmt, carried), frozenset(both),
                                                 frozenset(live_after))


def analyse(fn: gast.FunctionDef) -> Analysis:
    """Liveness of ``fn``'s body: a Region for each if / for / while in it."""
    params = _arg_names(fn.args)
    analysis = Analysis(params, params | writes(fn.body))
    _Liveness(analysis).block(fn.body, set(), None)
    return analysis
