"""A flag that per-element control flow raises and the host checks after the block: how a
check inside a per-element ``if`` or loop (a kernel program's ``assert``, debug mode's index
checks) becomes one host ``assert`` after it."""

from __future__ import annotations

from ..ir import dtypes as dt
from ..ir.builder import current
from ..ir.ops import IF, LOOP
from ..ir.widen import loop_divergence
from . import algorithms
from . import api as tracing
from .mathfn import copy
from .tensor import apply


class BlockFlag:
    """An int32 flag that tensor control flow raises, checked by the host after the
    outermost block around it: a variable defined (0) before that block, so that it takes
    the shape of the per-element control flow it is raised under, as any variable does."""

    def __init__(self):
        builder = current()
        root = builder.program.root
        self.anchor = builder.scope.owner
        if self.anchor is None:
            self.flag = copy(tracing.const(0))
            return
        while self.anchor.scope is not root:
            self.anchor = self.anchor.scope.owner
        staged = []
        with builder.inside(root, staged):
            self.flag = copy(tracing.const(0))
        position = root.nodes.index(self.anchor)
        root.nodes[position:position] = staged

    def raise_to(self, value) -> None:
        """The flag becomes at least ``value`` (int32, 0 or more) where this runs."""
        tracing.assign(self.flag, apply("max", self.flag, value))

    def check(self, message: str, location, values=lambda flag: [flag]) -> None:
        """The error ``message`` if the flag was raised anywhere: right after this point at
        the top level, else after the outermost block around the flag's creation. The
        message's ``{0}``, ``{1}``... are ``values(largest flag)``, host scalars."""
        builder = current()
        root = builder.program.root
        staged = []
        with builder.inside(root, staged):
            flag = self.flag
            while flag.ndim > 1:
                flag = algorithms.reduce_max(flag, axis=-1)
            flag = tracing.uniform(algorithms.reduce_max(flag).node) if flag.ndim else flag.node
            builder.check(lambda: builder.elementwise("eq", [flag, builder.const(0, dt.int32)]), values(flag),
                          message, location)
        position = len(root.nodes) if self.anchor is None else root.nodes.index(self.anchor) + 1
        root.nodes[position:position] = staged


def per_element(owner) -> bool:
    """Whether elements may run the code being traced at different times: under an if or in
    a loop whose condition, bounds or (so far) break/continue differ per element."""
    while owner is not None:
        if owner.op is IF and owner.args[0].rank or owner.op is LOOP and any(len(s) for s in loop_divergence(owner)):
            return True
        owner = owner.scope.owner
    return False
