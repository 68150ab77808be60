"""Variables take the shape of what is assigned to them and of the control flow they are
assigned under, whatever order the tracer finds that out in. A variable made from a Python
int (weakly typed) takes uint32 or float32, the same way, if such a value is assigned to it.

``z = tf.const(0.0)`` followed by ``z.val = c * 2`` (``c`` of shape [N, M]) makes ``z`` a
[N, M] variable, as ``np.where(mask, new, z)`` would. The same holds for a variable set
under a per-element ``if``, or inside a loop that per-element ``break``/``continue`` (or
per-element bounds) can leave: its elements evolve separately, so it gets their shape.

A variable is a node made to be updated: ``tf.const``/``zeros``/``ones``/``buffer``,
``tf.copy``, or a name that kernel-program control flow carries. Each gets a key from where
it is created (file, line, and how many variables that line made before), so that another
trace of the same program finds it again. When a variable must widen and nothing has used
it yet, it widens in place. When something already used it at its old shape (a condition,
an index, a reduction, a host decision of the user's Python code), the plan records the
shape it needs and the trace is done again, creating it at that shape. The stale trace goes
on to its end first, with the variable wide from there, so that one trace learns every
variable that needs widening (a loop unrolled in Python makes one per trip); whatever the
stale trace raises is ignored. Shapes only grow, so this ends after a few traces.
"""

from __future__ import annotations

from collections import Counter

from . import dtypes as dt
from .errors import ShapeError, TraceError
from .node import Node, Program, walk
from .ops import CONST, COPY, IF, INPUT, LOOP, SET
from .shapes import describe_shape, shapes_equal

MAX_TRACES = 16
_RECIPE_DEPTH = 24


class ShapePlan:
    """What earlier traces of one program learned: the shape each variable needs (as
    recipes of dims that a new trace finds again) and which ``while`` statements loop on a
    tensor condition."""

    def __init__(self):
        self.shapes: dict[tuple, tuple] = {}
        self.dtypes: dict[tuple, dt.DType] = {}  # weak int variables that become uint32
        self.tensor_loops: set[tuple] = set()
        # This trace learned something and will be traced again: it goes on only to learn the
        # rest (a loop unrolled in Python creates a variable per trip, each of which may need
        # widening), and whatever it raises means only that its IR is stale.
        self.dirty = False

    def learned(self) -> None:
        self.dirty = True


class Variables:
    """One trace's variables: their keys, and the dims of the trace found by recipe."""

    def __init__(self, builder, plan: ShapePlan):
        self.builder = builder
        self.program = builder.program
        self.plan = plan
        self.keys: dict[Node, tuple] = {}
        self._ordinals: Counter = Counter()
        self._dims: dict[tuple, Node] = {}
        self._recipes: dict[Node, tuple | None] = {}
        self._scanned = 0
        self.weak: set[Node] = set()  # variables made from a Python int (see ``weak_int``)

    def site(self, location, what: str) -> tuple:
        """A key for the next ``what`` created at ``location``, stable across traces."""
        place = (what, location.filename, location.lineno) if location is not None else (what, "", 0)
        count = self._ordinals[place]
        self._ordinals[place] += 1
        return (*place, count)

    def declare(self, node: Node) -> Node:
        """Register a new variable; give it the shape an earlier trace found it needs."""
        key = self.site(node.location, "variable")
        self.keys[node] = key
        wanted = self.plan.shapes.get(key)
        shape = self.resolve(wanted) if wanted is not None else None
        if shape is not None:
            node.shape = shape
        return node

    def weak_int(self, node: Node) -> None:
        """Make the int32 variable ``node``, made from a Python int, weak: a Python int takes
        the dtype of what it meets, so the variable is uint32 (or float32) from its creation
        if a uint32 (float32) value is ever assigned to it (``assigned``), as Numba and
        Taichi type such a variable."""
        if node.dtype is not dt.int32:
            return
        self.weak.add(node)
        wanted = self.plan.dtypes.get(self.keys.get(node))
        if wanted is not None:
            self._set_dtype(node, wanted)

    def assigned(self, node: Node, dtype: dt.DType) -> None:
        """A value of ``dtype`` is assigned to the variable ``node``: a weak int variable
        takes that dtype (as a Python int meeting it would: ``total = 0; total += x`` sums in
        ``x``'s dtype), in place if nothing used it yet, else by tracing again with it created
        so (a value computed from its old dtype would be stale)."""
        if node not in self.weak or dtype.is_bool or dtype is node.dtype:
            return
        key = self.keys.get(node)
        used = any(other.op is SET and other.args[0] is node for other in self.program.walk())
        if used or _first_reader(self.program, node) is not None:
            if key is None:
                return
            self.plan.dtypes[key] = dtype
            self.plan.learned()
        self._set_dtype(node, dtype)  # (the rest of a stale trace sees it so too)

    def _set_dtype(self, node: Node, dtype: dt.DType) -> None:
        node.dtype = dtype
        if node.op is CONST:
            node.attrs["value"] = dt.cast_scalar(node.attrs["value"], dtype)
        for other in self.program.walk():
            if other.op is SET and other.args[0] is node:
                other.dtype = dtype

    def widen(self, node: Node, shape: tuple, location=None) -> None:
        """Give the variable ``node`` the broadcast ``shape``: in place if nothing read it
        yet, else by tracing again with it created at that shape."""
        if node.op not in (CONST, COPY):
            raise ShapeError(f"cannot assign a value of shape {describe_shape(shape)} to a tensor of shape "
                             f"{describe_shape(node.shape)}; only variables made with tf.const, tf.zeros or "
                             "tf.copy widen", location)
        reader = _first_reader(self.program, node)
        if reader is None:
            self._set_shape(node, shape)
            return
        key = self.keys.get(node)
        wanted = self.recipe(shape)
        if key is None or wanted is None or self.plan.shapes.get(key) == wanted:
            raise ShapeError(f"cannot widen '{node.name or node.label}' to shape {describe_shape(shape)}: it was "
                             f"already used by {reader.op.name}; give it its full shape when you create it "
                             "(tf.zeros(shape))", location or reader.location)
        self.plan.shapes[key] = wanted
        self.plan.learned()
        self._set_shape(node, shape)  # the rest of this trace sees it wide (and is traced again)

    def _set_shape(self, node: Node, shape: tuple) -> None:
        node.shape = shape
        for other in self.program.walk():
            if other.op is SET and other.args[0] is node:
                other.shape = shape

    # -- dims that another trace can find again -----------------------------------------------

    def recipe(self, shape: tuple) -> tuple | None:
        recipes = tuple(self._recipe(d, 0) for d in shape)
        return None if any(r is None for r in recipes) else recipes

    def _recipe(self, node: Node, depth: int) -> tuple | None:
        if node in self._recipes:
            return self._recipes[node]
        result = None
        if node.op is CONST:
            result = ("const", node.dtype.name, node.attrs["value"])
        elif node.op is INPUT:
            result = ("input", node.attrs["index"])
        elif depth < _RECIPE_DEPTH and node.op.pure and node.scope is self.program.root:
            attrs = tuple(sorted((k, v) for k, v in node.attrs.items() if isinstance(v, (int, float, str, bool))))
            parts = [self._recipe(a, depth + 1) for a in node.args]
            if all(p is not None for p in parts):
                result = (node.op.name, node.dtype.name, attrs, tuple(parts))
        self._recipes[node] = result
        return result

    def resolve(self, recipes: tuple) -> tuple | None:
        """The dims of this trace with these recipes, or None while one does not exist."""
        dims = []
        for recipe in recipes:
            if recipe[0] == "const":
                dims.append(self.builder.const(recipe[2], dt.int32))
                continue
            root = self.program.root.nodes
            for node in root[self._scanned:]:
                if node.rank == 0 and node.dtype is not None and node.dtype.is_integer:
                    found = self._recipe(node, 0)
                    if found is not None:
                        self._dims.setdefault(found, node)
            self._scanned = len(root)
            if recipe not in self._dims:
                return None
            dims.append(self._dims[recipe])
        return tuple(dims)


def _first_reader(program: Program, node: Node) -> Node | None:
    """The first node that reads ``node`` (as an operand or a dim), ignoring writes to it."""
    for other in program.walk():
        if other.op is SET and other.args[0] is node and other.args[1] is not node:
            continue
        if any(a is node for a in other.args) or any(d is node for d in other.shape):
            return other
    return None


# -- control flow -------------------------------------------------------------------------------


def loop_divergence(loop: Node) -> list:
    """Shapes of the per-element ways out of ``loop``: its bounds and the conditions under
    which ``break``/``continue`` leave it."""
    shapes = [loop.shape] if loop.rank else []
    stack = list(loop.body.nodes)
    while stack:
        node = stack.pop()
        if node.op.jump and node.enclosing_loop() is loop:
            shapes += [o.args[0].shape for o in node.owner_chain() if o.op is IF and o.args[0].rank]
        if node.body is not None and node.op is not LOOP:
            stack.extend(node.body.nodes)
    return shapes


def widen_for_conditions(builder, sets) -> None:
    """Widen the variable of each ``set`` to the shape of the per-element control flow it
    runs under (ifs, and loops that elements leave at different times)."""
    divergence = {}
    for node in sets:
        var, value = node.args
        shapes = [var.shape, value.shape]
        for owner in node.owner_chain():
            if var.scope is not None and owner.scope is not None and not var.scope.contains(owner):
                break
            if owner.op is IF:
                shapes.append(owner.args[0].shape)
            elif owner.op is LOOP:
                if owner not in divergence:
                    divergence[owner] = loop_divergence(owner)
                shapes += divergence[owner]
        target = builder.broadcast(shapes, "variable assigned under a condition")
        if not shapes_equal(target, var.shape):
            builder.variables.widen(var, target, node.location)


def sets_in(scope_owner: Node | None, program: Program) -> list:
    """The ``set`` nodes inside ``scope_owner``'s body (the whole program for None)."""
    nodes = walk(scope_owner.body) if scope_owner is not None else program.walk()
    return [n for n in nodes if n.op is SET]


def retrace_limit_error(name: str) -> TraceError:
    return TraceError(f"the shapes of the variables of {name} did not settle after {MAX_TRACES} traces; give "
                      "each variable its full shape when you create it (tf.zeros(shape))")
