"""The one rewriting mechanism the passes share.

``Rebuilder.run(visit)`` walks every scope in program order. Each node's operands are
first renamed through the substitution map; then ``visit(node)`` may emit new nodes with
``rebuilder.builder`` and return:

- ``None``: keep the node (and walk its body);
- another node: drop this one and use the returned node wherever it was used;
- ``DROP``: remove the node (it must be unused).
"""

from __future__ import annotations

from ..ir.builder import Builder
from ..ir.node import Node, Program, Scope
from ..ir.ops import INPUT

DROP = object()


class Rebuilder:
    def __init__(self, program: Program):
        self.program = program
        self.builder = Builder(program)
        self.subst: dict[Node, Node] = {}
        self.current: Node | None = None  # the original node being visited
        self.origin: dict[Node, Node] = {}  # emitted node -> original node it came from

    def get(self, node: Node) -> Node:
        seen = node
        while seen in self.subst:
            seen = self.subst[seen]
        return seen

    def rename(self, node: Node) -> None:
        node.args = [self.get(a) for a in node.args]
        node.shape = tuple(self.get(d) for d in node.shape)

    def run(self, visit) -> Program:
        self._scope(self.program.root, visit)
        self.program.outputs = [self.get(o) for o in self.program.outputs]
        return self.program

    def _scope(self, scope: Scope, visit) -> None:
        new_nodes: list[Node] = []
        with self.builder.inside(scope, new_nodes):
            for node in list(scope.nodes):
                self.rename(node)
                self.current = node
                start = len(new_nodes)
                result = visit(node)
                for emitted in new_nodes[start:]:
                    self.origin.setdefault(emitted, self.origin.get(node, node))
                if result is None:
                    self.builder.emit(node)
                    if node.body is not None:
                        self._scope(node.body, visit)
                elif result is not DROP:
                    if result.name is None and node.name is not None and result.op is not INPUT:
                        result.name = node.name
                    self.subst[node] = result
        scope.set_nodes(new_nodes)


def rebuild(program: Program, visit) -> Program:
    return Rebuilder(program).run(visit)


def replace_uses(program: Program, mapping: dict[Node, Node]) -> None:
    """Rename operands (args and dims) and outputs through ``mapping`` everywhere."""
    if not mapping:
        return

    def get(n):
        while n in mapping:
            n = mapping[n]
        return n

    for node in program.walk():
        node.args = [get(a) for a in node.args]
        node.shape = tuple(get(d) for d in node.shape)
    program.outputs = [get(o) for o in program.outputs]


def copy_node(builder: Builder, node: Node, args: list, shape=None) -> Node:
    """A copy of a bodiless node with new operands, emitted at the builder's position."""
    clone = Node(node.op, node.dtype, node.shape if shape is None else shape, args, node.attrs,
                 name=node.name, location=node.location)
    return builder.emit(clone)
