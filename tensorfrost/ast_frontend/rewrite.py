"""The gast transformer: native Python control flow into calls of the runtime.

One handler per statement type (``Rewriter.STATEMENTS``), one visitor for expressions
(``_Expressions``). ``for k in range(...)`` becomes an IR loop; ``while`` and ``if`` become
regions that pick the IR or Python when their condition is known (see runtime.py)::

    if z_re*z_re + z_im*z_im > 256.0:        with _tf_f.if_(z_re*z_re + z_im*z_im > 256.0) as _tf_i1:
        break                        ->          if _tf_i1.then:
                                                     _tf_f.break_()
"""

from __future__ import annotations

import ast
import builtins
import itertools

import gast

from ..tracing import api as tracing
from ..tracing.kernel import kernel as explicit_kernel
from . import semantics
from .analysis import Analysis, must_assign, reads, targets, walrus, writes
from .errors import error_at

FRAME, RUNTIME = "_tf_f", "_tf_rt"

_OPERATORS = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.FloorDiv: "//", gast.Mod: "%",
              gast.Pow: "**", gast.LShift: "<<", gast.RShift: ">>", gast.BitAnd: "&", gast.BitOr: "|",
              gast.BitXor: "^", gast.MatMult: "@"}
_COMPARISONS = {gast.Lt: "<", gast.LtE: "<=", gast.Gt: ">", gast.GtE: ">=", gast.Eq: "==", gast.NotEq: "!=",
                gast.Is: "is", gast.IsNot: "is not", gast.In: "in", gast.NotIn: "not in"}
# Operators whose meaning on tensors the runtime gives as Python's (semantics.py).
_PYTHON_MEANING = {gast.Div: "truediv", gast.Mod: "mod"}
_UNSUPPORTED = {name: text for name, text in (
    ("Try", "try"), ("TryStar", "try"), ("AsyncWith", "async with"), ("AsyncFor", "async for"),
    ("AsyncFunctionDef", "async def"), ("Global", "global"), ("Nonlocal", "nonlocal"), ("Delete", "del"),
    ("Match", "match"), ("Yield", "yield"), ("YieldFrom", "yield from"), ("Await", "await"))}


# -- building nodes -------------------------------------------------------------------------------


def name(ident: str, store: bool = False) -> gast.Name:
    return gast.Name(id=ident, ctx=gast.Store() if store else gast.Load(), annotation=None, type_comment=None)


def const(value) -> gast.Constant:
    return gast.Constant(value=value, kind=None)


def call(owner: str, method: str, args=(), keywords=()) -> gast.Call:
    func = gast.Attribute(value=name(owner), attr=method, ctx=gast.Load())
    return gast.Call(func=func, args=list(args), keywords=[gast.keyword(arg=k, value=v) for k, v in keywords])


def tuple_of(elts, store: bool = False) -> gast.Tuple:
    return gast.Tuple(elts=list(elts), ctx=gast.Store() if store else gast.Load())


def strings(names) -> gast.Tuple:
    return tuple_of(const(n) for n in names)


def source(node) -> str:
    """The Python text of an expression."""
    return ast.unparse(gast.gast_to_ast(node))


def thunk(body) -> gast.Lambda:
    args = gast.arguments(args=[], posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                          defaults=[])
    return gast.Lambda(args=args, body=body)


def assign(target, value) -> gast.Assign:
    return gast.Assign(targets=[target], value=value, type_comment=None)


def located(nodes: list, original) -> list:
    """Give every new node without a location the location of ``original``."""
    for node in nodes:
        for sub in gast.walk(node):
            if hasattr(sub, "_attributes") and "lineno" in sub._attributes and getattr(sub, "lineno", None) is None:
                gast.copy_location(sub, original)
    return nodes


# -- expressions ----------------------------------------------------------------------------------


class _Expressions(gast.NodeTransformer):
    """``and``/``or``/``not``, chained comparisons and ``a if c else b`` become runtime
    calls that also work on tensors; calls of user functions go through ``_tf_rt.call``."""

    def __init__(self, rewriter: Rewriter):
        self.rw = rewriter

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        method = "and_" if isinstance(node.op, gast.And) else "or_"
        return call(RUNTIME, method, [node.values[0], *(thunk(v) for v in node.values[1:])])

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        return call(RUNTIME, "not_", [node.operand]) if isinstance(node.op, gast.Not) else node

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1:
            return node
        ops = strings(_COMPARISONS[type(op)] for op in node.ops)
        return call(RUNTIME, "compare", [node.left, ops, *(thunk(c) for c in node.comparators)])

    def visit_IfExp(self, node):
        self.generic_visit(node)
        return call(RUNTIME, "select", [node.test, thunk(node.body), thunk(node.orelse)])

    def visit_BinOp(self, node):
        self.generic_visit(node)
        method = _PYTHON_MEANING.get(type(node.op))
        return node if method is None else call(RUNTIME, method, [node.left, node.right])

    def visit_Call(self, node):
        if self.rw.calls_builtin(node.func, builtins.print):
            return self._print(node)
        self.generic_visit(node)
        if not self.rw.wraps_call(node.func):
            return node
        return gast.Call(func=gast.Attribute(value=name(RUNTIME), attr="call", ctx=gast.Load()),
                         args=[node.func, *node.args], keywords=node.keywords)

    def _print(self, node):
        """``print(...)``: the runtime's, given the source of each argument (the label of a
        tensor printed when the program runs); f-strings keep their tensors apart."""
        starred = any(isinstance(a, gast.Starred) for a in node.args)
        labels = const(None) if starred else strings(source(a) for a in node.args)
        args = [self._text(a) if isinstance(a, gast.JoinedStr) else self.visit(a) for a in node.args]
        keywords = [gast.keyword(arg=k.arg, value=self.visit(k.value)) for k in node.keywords]
        return gast.Call(func=gast.Attribute(value=name(RUNTIME), attr="print_", ctx=gast.Load()),
                         args=[labels, *args], keywords=keywords)

    def _text(self, node):
        parts = []
        for part in node.values:
            if isinstance(part, gast.FormattedValue):
                spec = self.visit(part.format_spec) if part.format_spec is not None else const(None)
                parts.append(call(RUNTIME, "formatted", [self.visit(part.value), const(part.conversion), spec,
                                                         const(source(part.value))]))
            else:
                parts.append(part)
        return call(RUNTIME, "join_text", parts)

    def visit_NamedExpr(self, node):
        self.generic_visit(node)
        if targets(node.target) & set(self.rw._active()):
            raise self.rw.error(node, "':=' cannot assign a variable that tensor control flow carries; "
                                      "use a separate assignment")
        return node

    def visit_FunctionDef(self, node):
        return node  # a nested function is rewritten when it is called

    def visit_ClassDef(self, node):
        return node

    def generic_visit(self, node):
        construct = _UNSUPPORTED.get(type(node).__name__)
        if construct is not None:
            raise self.rw.error(node, f"'{construct}' is not supported in a kernel program")
        return super().generic_visit(node)


# -- statements -----------------------------------------------------------------------------------


class Rewriter:
    """Rewrites one function body. ``resolve(expr)`` gives the compile-time value of a
    global or closure name (or a module attribute), or raises LookupError."""

    def __init__(self, analysis: Analysis, filename: str, resolve, is_user_function):
        self.analysis = analysis
        self.filename = filename
        self.resolve = resolve
        self.is_user_function = is_user_function
        self.context = []  # ("if", obj) / ("loop", "tensor" | "dynamic" | "python", obj), outermost first
        self.carried = []  # the names carried by each enclosing region
        self.ids = itertools.count(1)
        self.assigned = set(analysis.params)  # names surely bound at the statement being rewritten
        self.unassigned = set()  # names a region may read before they are bound: start as Undefined
        self.expressions = _Expressions(self)
        self.STATEMENTS = {
            gast.Assign: self._assign, gast.AugAssign: self._augassign, gast.AnnAssign: self._annassign,
            gast.For: self._for, gast.While: self._while, gast.If: self._if, gast.With: self._with,
            gast.Break: self._jump, gast.Continue: self._jump, gast.Return: self._return,
            gast.Expr: self._plain, gast.Assert: self._assert, gast.Raise: self._plain, gast.Pass: self._plain,
            gast.Import: self._plain, gast.ImportFrom: self._plain,
            gast.FunctionDef: self._verbatim, gast.ClassDef: self._verbatim,
        }

    def error(self, node, message: str):
        return error_at(node, self.filename, message)

    # entry points

    def function(self, fn: gast.FunctionDef) -> gast.FunctionDef:
        """``fn`` with its body rewritten, starting with the runtime frame and the carried
        names that have no value yet."""
        body = self.block(fn.body)
        uses_frame = any(isinstance(n, gast.Name) and n.id == FRAME for s in body for n in gast.walk(s))
        prologue = [assign(name(FRAME, True), call(RUNTIME, "Frame"))] if uses_frame else []
        for ident in sorted(self.unassigned):
            prologue.append(assign(name(ident, True), call(RUNTIME, "Undefined", [const(ident)])))
        fn.body = located(prologue, fn) + body
        fn.decorator_list = []
        return fn

    def block(self, stmts: list, assigned=()) -> list:
        """Rewrite statements; ``assigned``: names bound when the block starts (loop targets)."""
        saved = set(self.assigned)
        self.assigned |= set(assigned)
        out = []
        for stmt in stmts:
            handler = self.STATEMENTS.get(type(stmt))
            if handler is None:
                construct = _UNSUPPORTED.get(type(stmt).__name__, type(stmt).__name__)
                raise self.error(stmt, f"'{construct}' is not supported in a kernel program")
            bound = must_assign([stmt]) or set()  # before the handler changes the statement
            out.extend(located(handler(stmt), stmt))
            self.assigned |= bound
        self.assigned = saved
        return out

    def expr(self, node):
        return None if node is None else self.expressions.visit(node)

    # simple statements

    def _plain(self, s):
        return [self.expressions.visit(s)]

    def _verbatim(self, s):
        return [s]

    def _assert(self, s):
        """``assert test, msg``: the runtime's (checked when the program runs for a tensor
        test), under ``if __debug__`` so that ``python -O`` drops it as it drops asserts."""
        message = thunk(self.expr(s.msg)) if s.msg is not None else const(None)
        check = call(RUNTIME, "assert_", [self.expr(s.test), message, const(source(s.test))])
        return [gast.If(test=name("__debug__"), body=[gast.Expr(value=check)], orelse=[])]

    def _assign(self, s):
        value = self.expr(s.value)
        bound = set().union(*(targets(t) for t in s.targets))
        if not bound & set(self._active()):
            s.targets = [self.expr(t) for t in s.targets]
            s.value = value
            return [s]
        if len(s.targets) == 1:
            return self._assign_to(s.targets[0], value)
        temp = self._temp()
        out = [assign(name(temp, True), value)]
        for target in s.targets:
            out += self._assign_to(target, name(temp))
        return out + [gast.Delete(targets=[name(temp, True)])]

    def _assign_to(self, target, value) -> list:
        active = set(self._active())
        if isinstance(target, gast.Name):
            if target.id not in active:
                return [assign(target, value)]
            return [assign(target, call(FRAME, "assign", [const(target.id), value]))]
        if isinstance(target, (gast.Tuple, gast.List)) and all(isinstance(e, gast.Name) for e in target.elts):
            names = [e.id for e in target.elts]
            return [assign(target, call(FRAME, "assign_many", [strings(names), value]))]
        # Nested or starred targets: unpack into temporaries, then assign the carried names.
        renamed, temps = self._rename_carried(target)
        out = [assign(self.expr(renamed), value)]
        names = [n for n, _ in temps]
        out.append(assign(tuple_of((name(n, True) for n in names), True),
                          call(FRAME, "assign_many", [strings(names), tuple_of(name(t) for _, t in temps)])))
        return out + [gast.Delete(targets=[name(t, True) for _, t in temps])]

    def _rename_carried(self, target):
        temps = []
        active = set(self._active())

        class Rename(gast.NodeTransformer):
            def visit_Name(inner, node):  # noqa: N805 (the transformer is `inner`)
                if isinstance(node.ctx, gast.Store) and node.id in active:
                    temp = self._temp()
                    temps.append((node.id, temp))
                    return gast.copy_location(name(temp, True), node)
                return node

        return Rename().visit(target), temps

    def _annassign(self, s):
        if s.value is None or not isinstance(s.target, gast.Name) or s.target.id not in self._active():
            s.value = self.expr(s.value)
            return [s]
        return self._assign_to(s.target, self.expr(s.value))

    def _augassign(self, s):
        op = _OPERATORS[type(s.op)]
        value = self.expr(s.value)
        target = s.target
        python_meaning = type(s.op) in _PYTHON_MEANING  # of / and % on tensors: through the runtime
        if isinstance(target, gast.Name):
            updated = call(RUNTIME, "aug", [name(target.id), const(op), value])
            if target.id in self._active():
                return [assign(name(target.id, True), call(FRAME, "assign", [const(target.id), updated]))]
            if python_meaning:
                return [assign(name(target.id, True), updated)]
            s.value = value
            return [s]
        if isinstance(target, gast.Subscript):
            index = self._index(self.expr(target.slice))
            update = call(RUNTIME, "aug_item", [self.expr(target.value), index, const(op), thunk(value)])
            return [gast.Expr(value=update)]
        if isinstance(target, gast.Attribute) and python_meaning:
            update = call(RUNTIME, "aug_attr", [self.expr(target.value), const(target.attr), const(op), thunk(value)])
            return [gast.Expr(value=update)]
        s.target, s.value = self.expr(target), value
        return [s]

    @staticmethod
    def _index(node):
        """An index expression as a value: ``a:b`` becomes ``slice(a, b, None)``."""
        def value(item):
            if isinstance(item, gast.Slice):
                parts = [item.lower or const(None), item.upper or const(None), item.step or const(None)]
                return gast.Call(func=name("slice"), args=parts, keywords=[])
            return item
        if isinstance(node, gast.Tuple):
            return tuple_of(value(e) for e in node.elts)
        return value(node)

    def _with(self, s):
        for item in s.items:
            if not self._is_tf_scope(item.context_expr):
                raise self.error(s, "'with' is not supported in a kernel program (only tf.loop, tf.if_cond "
                                    "and tf.kernel scopes are)")
        s.items = [gast.withitem(context_expr=self.expr(i.context_expr), optional_vars=i.optional_vars)
                   for i in s.items]
        s.body = self.block(s.body)
        return [s]

    # control flow

    def _region_call(self, method: str, first_args: list, stmt, region, extra=()):
        """``_tf_f.<method>(..., carry=..., keep=..., values=...)`` and its ``as`` target.
        ``keep`` lists the variables of enclosing regions that this one assigns: on entry
        they get handles of their own if other Python references share theirs."""
        carry = list(region.carried)
        written = writes(stmt)
        keep = [n for n in self._active() if n not in carry and n in written]
        every = carry + keep
        self.unassigned |= set(every) - self.assigned
        keywords = [("carry", strings(carry)), ("keep", strings(keep)), ("values", tuple_of(map(name, every)))]
        keywords = [k for k in keywords if k[1].elts] + list(extra)
        obj = f"_tf_{method[0]}{next(self.ids)}"
        target = tuple_of([name(obj, True), *(name(n, True) for n in every)], True) if every else name(obj, True)
        return obj, call(FRAME, method, first_args, keywords), target

    def _active(self) -> list:
        """Names that may be variables here: those the enclosing regions carry."""
        return list(dict.fromkeys(n for names in self.carried for n in names))

    def _nested(self, entry, carried, stmts, assigned=()):
        self.context.append(entry)
        self.carried.append(carried)
        try:
            return self.block(stmts, assigned)
        finally:
            self.context.pop()
            self.carried.pop()

    def _for(self, s):
        region = self.analysis.region(s)
        iterable, every = self._checkpointed(s.iter)
        if not self._is_range(iterable):
            return self._python_for(s)
        if s.orelse:
            raise self.error(s, "'for ... else' over range(...) is not supported (the loop is in the program)")
        counters = targets(s.target)
        if counters & region.live_after:
            used = sorted(counters & region.live_after)[0]
            raise self.error(s.target, f"the loop counter '{used}' is used after the loop; in the program it "
                                       "only exists inside the loop (copy it to a variable there)")
        obj, enter, target = self._region_call("loop", [], s, region)
        body = self._nested(("loop", "tensor", obj), region.carried, s.body, counters)
        keywords = [("checkpoint", self.expr(every))] if every is not None else []
        loop = gast.For(target=s.target, iter=call(obj, "range", [self.expr(a) for a in iterable.args], keywords),
                        body=body, orelse=[], type_comment=None)
        return [gast.With(items=[gast.withitem(context_expr=enter, optional_vars=target)], body=[loop],
                          type_comment=None)]

    def _python_for(self, s):
        prologue, bound = [], targets(s.target)
        if bound & set(self._active()):
            temp = self._temp()
            prologue = self._assign_to(s.target, name(temp))
            s.target = name(temp, True)
        s.iter = self.expr(s.iter)
        s.body = located(prologue, s) + self._nested(("loop", "python", None), (), s.body, bound)
        s.orelse = self.block(s.orelse)
        return [s]

    def _while(self, s):
        region = self.analysis.region(s)
        if walrus(s.test) & (set(region.carried) | set(self._active())):
            raise self.error(s.test, "':=' in a while condition cannot assign a carried variable")
        forever = isinstance(s.test, gast.Constant) and type(s.test.value) in (bool, int) and s.test.value == 1
        if forever and s.orelse:
            raise self.error(s, "'while True: ... else' is not supported (the loop is in the program)")
        test = const(None) if forever else thunk(self.expr(s.test))
        extra = [("has_else", const(True))] if s.orelse else []
        obj, enter, target = self._region_call("while_", [test], s, region, extra)
        body = self._nested(("loop", "tensor" if forever else "dynamic", obj), region.carried, s.body)
        loop = gast.While(test=call(obj, "test"), body=body, orelse=self.block(s.orelse))
        return [gast.With(items=[gast.withitem(context_expr=enter, optional_vars=target)], body=[loop],
                          type_comment=None)]

    def _if(self, s):
        region = self.analysis.region(s)
        both = [n for n in region.carried if n in region.both]
        extra = [("both", strings(both))] if both and s.orelse else []
        obj, enter, target = self._region_call("if_", [self.expr(s.test)], s, region, extra)
        branches = [gast.If(test=gast.Attribute(value=name(obj), attr="then", ctx=gast.Load()),
                            body=self._nested(("if", obj), region.carried, s.body), orelse=[])]
        if s.orelse:
            branches.append(gast.If(test=call(obj, "orelse"), orelse=[],
                                    body=self._nested(("if", obj), region.carried, s.orelse)))
        return [gast.With(items=[gast.withitem(context_expr=enter, optional_vars=target)], body=branches,
                          type_comment=None)]

    def _jump(self, s):
        what = "break" if isinstance(s, gast.Break) else "continue"
        ifs = []
        for entry in reversed(self.context):
            if entry[0] == "if":
                ifs.append(name(entry[1]))
                continue
            kind, obj = entry[1], entry[2]
            if kind == "tensor":
                return [gast.Expr(value=call(FRAME, what + "_"))]
            if kind == "dynamic":
                return [gast.If(test=call(obj, what + "_", ifs), body=[s], orelse=[])]
            if ifs:
                return [gast.Expr(value=call(FRAME, "python_jump", [const(what), *ifs])), s]
            return [s]
        raise self.error(s, f"'{what}' outside a loop")

    def _return(self, s):
        if any(e[0] == "loop" and e[1] == "tensor" for e in self.context):
            raise self.error(s, "'return' inside a loop that is in the program (range(...) or while True) is not "
                                "supported: assign the result to a variable and return it after the loop")
        regions = [name(e[-1]) for e in self.context if e[0] == "if" or e[1] == "dynamic"]
        value = self.expr(s.value)
        if not regions:
            s.value = value
            return [s]
        return [gast.Return(value=call(FRAME, "ret", [value if value is not None else const(None), *regions]))]

    # compile-time knowledge

    def _temp(self) -> str:
        return f"_tf_t{next(self.ids)}"

    def _static(self, node):
        """The compile-time value of a global / closure / builtin name or module attribute."""
        if isinstance(node, gast.Name) and node.id in self.analysis.locals:
            raise LookupError(node.id)
        return self.resolve(node)

    def _checkpointed(self, node):
        """(the iterable, the ``every`` expression) of ``tf.checkpointed(iterable, every=k)``,
        else (node, None)."""
        if not isinstance(node, gast.Call) or not node.args or any(isinstance(a, gast.Starred) for a in node.args):
            return node, None
        try:
            if self._static(node.func) is not tracing.checkpointed:
                return node, None
        except LookupError:
            return node, None
        every = node.args[1] if len(node.args) == 2 else next((k.value for k in node.keywords if k.arg == "every"),
                                                               None)
        if every is None or len(node.args) > 2 or any(k.arg != "every" for k in node.keywords):
            raise self.error(node, "tf.checkpointed takes (range(...), every=k)")
        return node.args[0], every

    def _is_range(self, node) -> bool:
        if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == "range"):
            return False
        if node.keywords or not 1 <= len(node.args) <= 3 or any(isinstance(a, gast.Starred) for a in node.args):
            return False
        try:
            return self._static(node.func) is builtins.range
        except LookupError:
            return False

    def _is_tf_scope(self, node) -> bool:
        if not isinstance(node, gast.Call):
            return False
        try:
            return self._static(node.func) in (tracing.loop, tracing.if_cond, explicit_kernel)
        except LookupError:
            return False

    def wraps_call(self, func) -> bool:
        """Whether a call must go through the runtime (it may call a user function, or a
        builtin that the runtime gives Python's meaning on tensors)."""
        if reads(func) & {FRAME, RUNTIME}:
            return False
        try:
            value = self._static(func)
        except LookupError:
            return isinstance(func, gast.Name)
        return self.is_user_function(value) or semantics.builtin_for(value) is not None

    def calls_builtin(self, func, builtin) -> bool:
        """Whether ``func`` is the name of ``builtin`` (not shadowed in the function)."""
        try:
            return isinstance(func, gast.Name) and self._static(func) is builtin
        except LookupError:
            return False
