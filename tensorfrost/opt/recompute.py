"""Recompute cheap values in the kernels that use them instead of storing them.

A value computed in one kernel and used in another must otherwise go through a buffer
(a store and a load per element, and the memory traffic). When the value is cheap,
pure, and every memory it reads is unchanged between its kernel and the consumer, the
consumer computes it again. Cost model as in the original: recompute when the
producer's cost times the number of consumer kernels stays under RECOMPUTE_BUDGET
(a load costs 128, arithmetic 1 to 12).

Guarantees afterwards: the results are unchanged; cross-kernel values that remain are
those too expensive or unsafe to recompute (the memory pass gives them buffers).
"""

from __future__ import annotations

from .. import optimizations
from ..ir.node import Node, Program, walk
from ..ir.ops import CONST, DIM_ID, KERNEL, LOAD
from ..ir.shapes import shapes_equal
from .analysis import INFINITE, MEMORY_READ, MutationInfo, is_memory, is_write
from .dce import run as remove_dead_code
from .rewrite import copy_node

RECOMPUTE_BUDGET = 3000.0


class _Recompute:
    def __init__(self, program: Program):
        self.program = program
        self.info = MutationInfo(program)
        self.mutable = self.info.mutable
        self.kernel_of: dict[Node, Node] = {}
        self.written_by: dict[Node, set] = {}
        self.kernels = [n for n in program.walk() if n.op is KERNEL]
        for kernel in self.kernels:
            self.written_by[kernel] = set()
            for node in walk(kernel.body):
                self.kernel_of[node] = kernel
                if is_write(node):
                    self.written_by[kernel].add(node.args[0])

    def consumers(self, producer: Node) -> set:
        return self._consumer_kernels.get(producer, set())

    def run(self) -> Program:
        self._consumer_kernels: dict[Node, set] = {}
        for kernel in self.kernels:
            for node in walk(kernel.body):
                for arg in _value_operands(node):
                    home = self.kernel_of.get(arg)
                    if home is not None and home is not kernel:
                        self._consumer_kernels.setdefault(arg, set()).add(kernel)
        for kernel in self.kernels:
            self._recompute_into(kernel)
        return remove_dead_code(self.program)

    def _recompute_into(self, kernel: Node) -> None:
        here = self.info.pos[kernel]
        self.target = kernel
        clones: dict[Node, Node] = {}
        prefix: list[Node] = []
        for node in walk(kernel.body):
            for arg in _value_operands(node):
                home = self.kernel_of.get(arg)
                if home is None or home is kernel or arg in clones:
                    continue
                if arg.rank != 0 and not shapes_equal(arg.shape, kernel.shape):
                    continue
                cost = self.cost(arg, here, {})
                if cost * len(self.consumers(arg)) <= RECOMPUTE_BUDGET:
                    self._clone(arg, clones, prefix)
        if not clones:
            return
        optimizations.fired("recompute")
        for node in walk(kernel.body):
            skip = 1 if node.op is LOAD else 0  # a load reads the stored value, not a copy
            node.args = node.args[:skip] + [clones.get(a, a) for a in node.args[skip:]]
        for node in prefix:
            node.scope = kernel.body
        kernel.body.nodes[:0] = prefix
        for node in prefix:
            self.kernel_of[node] = kernel
            self.info.pos[node] = here  # a clone runs where its kernel starts

    def readable(self, memory: Node, reader: Node, here: int) -> bool:
        """``memory`` read by ``reader`` may be read again at the start of the target kernel:
        nothing writes it in between, and the target kernel does not write it (its threads
        would race with the new read)."""
        return memory not in self.written_by[self.target] and self.info.unchanged(memory, self.info.pos[reader], here)

    def cost(self, node: Node, here: int, memo: dict) -> float:
        if node in memo:
            return memo[node]
        home = self.kernel_of.get(node)
        if home is None:
            result = 0.0  # a host value (uniform)
        elif node in self.mutable:
            result = INFINITE
        elif node.op in (DIM_ID, CONST):
            result = 0.0
        elif node.op.kind == "elementwise":
            result = node.op.cost
            for arg in node.args:
                if is_memory(arg, self.mutable) and home is not None:
                    result += MEMORY_READ if self.readable(arg, node, here) else INFINITE
                elif self.kernel_of.get(arg) is home:
                    result += self.cost(arg, here, memo)
                elif self.kernel_of.get(arg) is not None:
                    result += MEMORY_READ  # read from another kernel's buffer
        elif node.op is LOAD and is_memory(node.args[0], self.mutable):
            ok = self.readable(node.args[0], node, here)
            result = node.op.cost + sum(self.cost(i, here, memo) for i in node.args[1:]) if ok else INFINITE
        else:
            result = INFINITE
        if node.scope is not None and node.scope.owner is not home:
            result = INFINITE  # defined inside a loop or if of its kernel
        memo[node] = result
        return result

    def _clone(self, node: Node, clones: dict, prefix: list) -> Node:
        if node in clones:
            return clones[node]
        home = self.kernel_of.get(node)
        args = []
        for arg in node.args:
            same_kernel = home is not None and self.kernel_of.get(arg) is home and not is_memory(arg, self.mutable)
            args.append(self._clone(arg, clones, prefix) if same_kernel else arg)
        copy = copy_node(_ListBuilder(prefix), node, args)
        clones[node] = copy
        return copy


def _value_operands(node: Node) -> list:
    """Operands used as values (not a load's memory, which must be the stored tensor)."""
    return node.args[1:] if node.op is LOAD else node.args


class _ListBuilder:
    """The minimum of a Builder that copy_node needs: append to a list."""

    def __init__(self, target: list):
        self.target = target

    def emit(self, node: Node) -> Node:
        self.target.append(node)
        return node


def run(program: Program) -> Program:
    return _Recompute(program).run()
