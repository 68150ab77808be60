"""What a backend can do, described once: the passes and emitters read a ``Target``
instead of asking which backend they compile for.

A program is checked against its target before any pass runs: a dtype the target cannot
compute in is a DTypeError naming the dtype, the backend, why, and the user's line that
made the first value of it (never a silent narrowing to a dtype it has).
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
    buffers one kernel may bind (None: no limit); fission splits kernels to fit it."""

    name: str
    languages: tuple = ()
    dtypes: frozenset = frozenset(dt.ALL)
    missing: dict = field(default_factory=dict)
    max_buffers: int | None = None

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
