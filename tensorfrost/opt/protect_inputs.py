"""Inputs are never modified: a program that writes into an input writes into a copy.

Guarantees afterwards: no ``input`` node is the target of a set, store or scatter; the
caller's tensors keep their values (as numpy functions leave their arguments alone).
"""

from __future__ import annotations

from ..ir.node import Node, Program
from ..ir.ops import INPUT_DIM, OPS
from .analysis import mutable_nodes


def run(program: Program) -> Program:
    written = [n for n in program.inputs if n in mutable_nodes(program)]
    for inp in written:
        _copy_before_first_use(program, inp)
    return program


def _copy_before_first_use(program: Program, inp: Node) -> None:
    root = program.root.nodes
    first = None
    for k, top in enumerate(root):
        if top is inp or top.op is INPUT_DIM and top.args[0] is inp:
            continue
        if any(_reads(n, inp) for n in top.subtree()):
            first = k
            break
    copy = Node(OPS["copy"], inp.dtype, inp.shape, [inp], name=f"{inp.name}_copy")
    copy.scope = program.root
    root.insert(first if first is not None else len(root), copy)
    for node in program.walk():
        if node is copy or node.op is INPUT_DIM:
            continue
        node.args = [copy if a is inp else a for a in node.args]
    program.outputs = [copy if o is inp else o for o in program.outputs]


def _reads(node: Node, inp: Node) -> bool:
    return node.op is not INPUT_DIM and inp in node.args
