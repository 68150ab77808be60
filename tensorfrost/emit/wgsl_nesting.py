"""Blocks nested deeper than WGSL compilers parse, for the WGSL statement emitter.

wgpu's WGSL parser (naga) refuses more than 127 nested braces, where GLSL and C++ take
a program's 300 nested ``tf.if_cond`` blocks. From ``MAX_DEPTH`` on, an ``if`` opens no
block: its condition becomes a guard, ``let tf_ifK = <enclosing guard> && <condition>;``,
and each statement of its body runs under ``if (tf_ifK) { ... }`` at the same depth.
Declarations stay outside the guards: they compute values only (WGSL's reads never fault,
its integer division never traps), so running them whatever the guard is changes no result,
and the statements after them see them. A loop under a guard is one guarded block, with
guards of its own inside. Loops cannot be flattened so: a kernel nesting them deeper than
``MAX_LOOP_DEPTH`` is refused with an error that names the user's line.
"""

from __future__ import annotations

from ..ir.errors import TensorFrostError
from ..ir.node import Node

MAX_DEPTH = 48  # block depth from which ifs become guards (of naga's 127 braces: the rest for one-line helpers)
MAX_LOOP_DEPTH = 110


class FlatDeepIfs:
    """A mixin for the WGSL body emitter (before ``BodyEmitter`` in its bases), which spells
    a loop's own statement as ``loop_statement``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._guards: list = []  # (depth, name) of each guard in force, the innermost last
        self._guard_count = 0

    def _guard(self) -> str | None:
        guards = self._guards
        return guards[-1][1] if guards and guards[-1][0] == self.depth else None

    def emit(self, line: str) -> None:
        guard = self._guard()
        if guard is not None and not line.startswith(("let ", "var ")):
            line = f"if ({guard}) {{ {line} }}"
        super().emit(line)

    def stmt_if(self, node: Node) -> None:
        guard = self._guard()
        if guard is None and self.depth < MAX_DEPTH:
            super().stmt_if(node)
            return
        name = f"tf_if{self._guard_count}"
        self._guard_count += 1
        condition = self.value(node.args[0])
        self.emit(f"let {name}: bool = {f'{guard} && ' if guard else ''}{condition};")
        self._guards.append((self.depth, name))
        self.scope(node.body.nodes)
        self._guards.pop()

    def stmt_loop(self, node: Node) -> None:
        if self.depth >= MAX_LOOP_DEPTH:
            raise TensorFrostError(f"this kernel nests more than {MAX_LOOP_DEPTH} loops in one another, more than "
                                   "WGSL compilers take (a WebGPU limit; tf.cpu and tf.opengl take them)",
                                   node.location)
        guard = self._guard()
        if guard is None:
            self.loop_statement(node)
            return
        super().emit(f"if ({guard}) {{")
        self.depth += 1
        self.loop_statement(node)
        self.depth -= 1
        super().emit("}")
