"""Common-subexpression elimination.

Guarantees afterwards: no two pure nodes that compute the same value from the same
operands remain where the first is visible from the second. Nodes that read mutable
memory, and mutable nodes themselves, are never merged (their values depend on time).
"""

from __future__ import annotations

from collections import ChainMap

from ..ir.node import Node, Program, Scope
from ..ir.ops import CONST, DIM_ID, ELEMENTWISE, INPUT_DIM, LOAD
from .analysis import mutable_nodes
from .rewrite import replace_uses

_MERGEABLE_SOURCES = (CONST, DIM_ID, INPUT_DIM)


def _key(node: Node):
    attrs = tuple(sorted((k, v if not isinstance(v, list) else tuple(v)) for k, v in node.attrs.items()))
    return (node.op.name, node.dtype, tuple(map(id, node.shape)), tuple(map(id, node.args)), attrs)


def run(program: Program) -> Program:
    mutable = mutable_nodes(program)
    mapping: dict[Node, Node] = {}

    def get(n: Node) -> Node:
        return mapping.get(n, n)

    def mergeable(node: Node) -> bool:
        if node in mutable or any(a in mutable for a in node.args):
            return False
        if node.op.kind == ELEMENTWISE:
            return True
        if node.op is LOAD:
            return node.args[0] not in mutable
        return node.op in _MERGEABLE_SOURCES

    def visit(scope: Scope, table: ChainMap) -> None:
        for node in scope.nodes:
            node.args = [get(a) for a in node.args]
            node.shape = tuple(get(d) for d in node.shape)
            if mergeable(node):
                key = _key(node)
                found = table.get(key)
                if found is not None:
                    mapping[node] = found
                    continue
                table[key] = node
            if node.body is not None:
                visit(node.body, table.new_child())

    visit(program.root, ChainMap())
    replace_uses(program, mapping)
    return program
