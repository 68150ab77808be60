"""What a backend can do, described once: the passes and emitters read a ``Target``
instead of asking which backend they compile for.

A program is checked against its target before any pass runs: a dtype the target cannot
compute in is a DTypeError naming the dtype, the backend, why, and the user's line that
made the first value of it (never a silent narrowing to a dtype it has). Its atomics are
checked after the passes (gradients add scatters), before any code is emitted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import dtypes as dt
from .errors import DTypeError
from .node import Program


@dataclass(frozen=True)
class Target:
    """A backend's capabilities.

    ``languages``: what its kernels are written in. ``dtypes``: the dtypes it computes in;
    ``missing``: for a dtype it lacks, why (shown to the user). ``max_buffers``: the storage
    buffers one kernel may bind (None: no limit); fission splits kernels to fit it.
    ``atomic_bits``: its widest atomic compare-and-swap; a scatter that needs a wider one (a
    min or max of 64-bit values, any 64-bit float atomic: 64-bit integer add and bitwise ones
    combine 32-bit halves) is refused, ``atomic_why`` saying why."""

    name: str
    languages: tuple = ()
    dtypes: frozenset = frozenset(dt.ALL)
    missing: dict = field(default_factory=dict)
    max_buffers: int | None = None
    atomic_bits: int = 64
    atomic_why: str = ""

    def check(self, program: Program) -> None:
        """A DTypeError for the first value of a dtype this target cannot compute in."""
        if self.dtypes >= frozenset(dt.ALL):
            return
        for node in program.walk():
            if node.dtype is not None and node.dtype not in self.dtypes:
                where = f" (the value made at {node.location})" if node.location is not None else ""
                reason = self.missing.get(node.dtype, f"{self.name} computes in "
                                          f"{', '.join(sorted(d.name for d in self.dtypes))} only")
                raise DTypeError(f"{node.dtype!r} values{where} cannot be computed on {self.name}: {reason}; "
                                 f"convert them (x.astype(tf.float32)) or use tf.cpu, which has every dtype")

    def check_atomics(self, program: Program) -> None:
        """A DTypeError for the first scatter whose combine needs a compare-and-swap wider than
        this target's."""
        if self.atomic_bits >= 64:
            return
        for node in program.walk():
            if not node.op.atomic:
                continue
            dtype, combine = node.args[0].dtype, node.op.combine
            if dtype.bits > self.atomic_bits and not (dtype.is_integer and combine in ("add", "and", "or", "xor")):
                raise DTypeError(f"{node.op.api_name} into a {dtype!r} tensor is not available on {self.name}: it "
                                 f"needs a {dtype.bits}-bit atomic compare-and-swap{self.atomic_why} (64-bit atomic "
                                 "add, and, or and xor of integers work); scatter into a 32-bit tensor or use the cpu "
                                 "backend", node.location)
