"""The IR: nodes in a tree of scopes.

A ``Node`` is one operation. Its ``shape`` is a tuple of dims, each dim a scalar int32
node, so shapes are symbolic and compiled programs work for any input size. ``args`` are
the operands (their meaning per op is fixed by the op table), ``attrs`` hold compile-time
constants, and ``loop``/``if``/``kernel`` nodes own a child ``Scope``. A kernel node's
``contract`` (a ``KernelContract``, set by opt/finalize.py) says what it needs from the host.

Semantics are imperative: nodes run in scope order, and a node that is the target of
``set``, ``store`` or a scatter is mutable memory whose reads see earlier writes.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, replace

from .ops import LOOP

_ids = itertools.count(1)


class Node:
    __slots__ = ("op", "dtype", "shape", "args", "attrs", "body", "scope", "name", "location", "id", "contract")

    def __init__(self, op, dtype, shape, args=(), attrs=None, name=None, location=None):
        self.op = op  # an ops.Op
        self.dtype = dtype  # a DType, or None for nodes without a value
        self.shape = tuple(shape)  # tuple of scalar int32 Nodes
        self.args = list(args)
        self.attrs = dict(attrs) if attrs else {}
        self.body = None  # a Scope, for loop / if / kernel
        self.scope = None  # the Scope holding this node
        self.name = name
        self.location = location
        self.id = next(_ids)
        self.contract: KernelContract | None = None  # a kernel's, once finalized

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def label(self) -> str:
        return f"{self.name}_{self.id}" if self.name else f"v{self.id}"

    def __repr__(self) -> str:
        return f"<{self.op.name} {self.label}>"

    def owner_chain(self) -> Iterator[Node]:
        """The loop / if / kernel nodes enclosing this node, innermost first."""
        scope = self.scope
        while scope is not None and scope.owner is not None:
            yield scope.owner
            scope = scope.owner.scope

    def enclosing_loop(self) -> Node | None:
        """The innermost loop around this node (the one its break/continue would leave)."""
        return next((n for n in self.owner_chain() if n.op is LOOP), None)

    def is_inside(self, block: Node) -> bool:
        """True if this node is in ``block``'s body, directly or nested."""
        return any(owner is block for owner in self.owner_chain())

    def subtree(self) -> Iterator[Node]:
        """This node, then every node of its body (nested ones too), in program order."""
        yield self
        if self.body is not None:
            yield from walk(self.body)

    def uses(self, value: Node) -> bool:
        """True if this node or anything in its body takes ``value`` as an argument."""
        return any(value in node.args for node in self.subtree())


@dataclass(frozen=True)
class KernelContract:
    """What a kernel needs from the host, so that emitters need no analysis: ``index`` (its
    dispatch order), ``name`` (its identifier in the generated code), ``buffers`` (memory it
    reads or writes, in first-use order), ``written`` (those of them it writes) and
    ``uniforms`` (host scalars it reads). Iterate ``buffers``, not ``written``, for an order."""

    index: int
    name: str
    buffers: tuple[Node, ...]
    written: frozenset[Node]
    uniforms: tuple[Node, ...]

    def remapped(self, mapping: dict[Node, Node]) -> KernelContract:
        """The same contract over the nodes ``mapping`` replaces (a copied program's)."""
        return replace(self, buffers=tuple(mapping.get(b, b) for b in self.buffers),
                       written=frozenset(mapping.get(b, b) for b in self.written),
                       uniforms=tuple(mapping.get(u, u) for u in self.uniforms))


class Scope:
    """An ordered list of nodes; ``owner`` is the loop / if / kernel node it belongs to."""

    __slots__ = ("nodes", "owner")

    def __init__(self, owner: Node | None = None):
        self.nodes: list[Node] = []
        self.owner = owner

    def append(self, node: Node) -> Node:
        node.scope = self
        self.nodes.append(node)
        return node

    def set_nodes(self, nodes: list[Node]) -> None:
        for node in nodes:
            node.scope = self
        self.nodes = nodes

    def insert_before(self, anchor: Node, nodes: list[Node]) -> None:
        """Place ``nodes`` in this scope just before ``anchor`` (a node of it)."""
        for node in nodes:
            node.scope = self
        index = self.nodes.index(anchor)
        self.nodes[index:index] = nodes

    def contains(self, node: Node) -> bool:
        """True if ``node`` is in this scope or in a scope nested inside it."""
        scope = node.scope
        while scope is not None:
            if scope is self:
                return True
            scope = scope.owner.scope if scope.owner is not None else None
        return False


class Program:
    """A traced tensor program: the root scope, its inputs and its outputs."""

    def __init__(self, name: str = "program"):
        self.name = name
        self.root = Scope()
        self.inputs: list[Node] = []
        self.outputs: list[Node] = []
        self.returns_tuple = True
        self.returns_one_list = False  # the function returned [x]: callers get x (upstream's convention)
        self.printed: list = []  # (name, node) of tf.print_value calls, output after the user's outputs
        self.input_names: list[str] = []
        self.max_buffers: int | None = None  # the target's limit of buffers per kernel, if any
        self.debug: bool | str = False  # debug mode (tf.initialize): indices checked; "nan": kernels' outputs too

    def walk(self) -> Iterator[Node]:
        return walk(self.root)


def walk(scope: Scope) -> Iterator[Node]:
    """All nodes of a scope and of its nested scopes, in program (pre-)order."""
    stack = [iter(scope.nodes)]
    while stack:
        node = next(stack[-1], None)
        if node is None:
            stack.pop()
            continue
        yield node
        if node.body is not None:
            stack.append(iter(node.body.nodes))


def operands(node: Node) -> Iterator[Node]:
    """Every node that ``node`` reads: its args and the dims of its shape."""
    yield from node.args
    yield from node.shape


def users_map(program: Program) -> dict[Node, list[Node]]:
    """For every node, the nodes that read it (through args or shapes), in program order."""
    users: dict[Node, list[Node]] = {}
    for node in program.walk():
        for arg in operands(node):
            users.setdefault(arg, []).append(node)
    for out in program.outputs:
        users.setdefault(out, [])
    return users


def positions(program: Program) -> dict[Node, int]:
    """Pre-order index of every node; a scope's nodes follow its owner."""
    return {node: i for i, node in enumerate(program.walk())}


def scope_end(node: Node, pos: dict[Node, int]) -> int:
    """The position of the last node inside ``node``'s body (its own position if none)."""
    last = node
    while last.body is not None and last.body.nodes:
        last = last.body.nodes[-1]
    return pos[last]


def clone_program(program: Program) -> Program:
    """A deep copy of a program (new nodes, same ops), e.g. to keep the traced IR."""
    mapping: dict[Node, Node] = {}

    def copy_scope(scope: Scope, owner: Node | None) -> Scope:
        new = Scope(owner)
        for node in scope.nodes:
            clone = Node(node.op, node.dtype, (), [], node.attrs, name=node.name, location=node.location)
            mapping[node] = clone
            new.append(clone)
            if node.body is not None:
                clone.body = copy_scope(node.body, clone)
        return new

    out = Program(program.name)
    out.root = copy_scope(program.root, None)
    for old, new in mapping.items():
        new.args = [mapping.get(a, a) for a in old.args]
        new.shape = tuple(mapping.get(d, d) for d in old.shape)
        if old.contract is not None:
            new.contract = old.contract.remapped(mapping)
    out.inputs = [mapping[n] for n in program.inputs]
    out.outputs = [mapping[n] for n in program.outputs]
    out.returns_tuple = program.returns_tuple
    out.returns_one_list = program.returns_one_list
    out.printed = [(name, mapping[n]) for name, n in program.printed]
    out.input_names = list(program.input_names)
    out.max_buffers = program.max_buffers
    out.debug = program.debug
    return out
