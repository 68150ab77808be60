"""The compiler: named passes run in order, each timed, with IR dumps on request.

Set ``TENSORFROST_DUMP_IR=1`` to print the IR after every pass to stderr, or to a
directory path to write one file per pass there (a directory of yours that no one else can
write; files are replaced by rename, never written through a link found there: a warning
says what was not written). A pass that fails is named in the error.
``TENSORFROST_VALIDATE=1`` checks the IR's structure after each pass (the tests set it).
The passes that are optimizations (``OPTIONAL``) are skipped when switched off
(``TENSORFROST_DISABLE``, tensorfrost/optimizations.py); each counts when it changes a program.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import time
import warnings

from .. import optimizations
from ..ir.errors import InternalError, TensorFrostError, is_library_file
from ..ir.node import Node, Program
from ..ir.printer import format_program
from ..ir.validate import structure_problem
from ..private_files import UntrustedError, owned_directory, replace_file
from . import (
    autodiff,
    cse,
    dce,
    expand_scans,
    finalize,
    fission,
    fuse,
    grid,
    hoist,
    liveness,
    load_clamps,
    lower,
    memory,
    merge_loops,
    protect_inputs,
    recompute,
    simplify,
)

PASSES = [
    ("autodiff", autodiff.run),
    ("protect_inputs", protect_inputs.run),
    ("simplify", simplify.run),
    ("cse", cse.run),
    ("dce", dce.run),
    ("expand_scans", expand_scans.run),
    ("lower", lower.run),
    ("merge_loops", merge_loops.run),
    ("simplify_lowered", simplify.run),
    ("cse_lowered", cse.run),
    ("dce_lowered", dce.run),
    ("fuse", fuse.run),
    ("recompute", recompute.run),
    ("memory", memory.run),
    ("load_clamps", load_clamps.run),
    ("cse_kernels", cse.run),
    ("hoist", hoist.run),
    ("dce_kernels", dce.run),
    ("fission", fission.run),
    ("shrink_grids", grid.run),
    ("liveness", liveness.run),
    ("finalize", finalize.run),
]


# passes a program means the same without: skipped when their optimization is switched off
OPTIONAL = {"merge_loops": "merge_loops", "recompute": "recompute", "load_clamps": "load_clamps",
            "hoist": "hoist"}
NAME_LIMIT = 60  # characters of a program's name in an IR dump's file name
_REFUSED: set = set()  # IR dump directories already refused (one warning each)


def _dump(program: Program, stage: str, index: int) -> None:
    target = os.environ.get("TENSORFROST_DUMP_IR", "")
    if not target or target == "0":
        return
    text = f"# after {stage}\n{format_program(program)}\n"
    if target == "1":
        sys.stderr.write(text)
        return
    if target in _REFUSED:
        return
    # Written as the compile cache writes: into a directory of ours, never through a link
    try:
        directory = owned_directory(target)
    except UntrustedError as why:
        _REFUSED.add(target)
        warnings.warn(f"tensorfrost: TENSORFROST_DUMP_IR={target!r}: not writing IR dumps there: {why}. Set it to "
                      "a directory that only you own and can write (or to 1 for stderr)", stacklevel=_user_level())
        return
    try:
        replace_file(directory, f"{_file_name(program.name)}.{index:02d}.{stage}.txt",
                     text.encode("utf-8", "backslashreplace"))
    except UntrustedError as why:
        warnings.warn(f"tensorfrost: TENSORFROST_DUMP_IR: IR dump not written: {why}", stacklevel=_user_level())


def _user_level() -> int:
    """The ``stacklevel`` of the innermost caller outside tensorfrost (whose line a warning shows)."""
    level, frame = 2, sys._getframe(2)
    while frame is not None and is_library_file(frame.f_code.co_filename):
        level, frame = level + 1, frame.f_back
    return level


def _file_name(name: str) -> str:
    """``name`` as part of a file name: no path separator, under the file system's limit;
    a name that had to change keeps a hash of itself, so two programs stay two files."""
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", name)[:NAME_LIMIT] or "program"
    if safe != name:
        safe += "-" + hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return safe


def _culprit(exc: Exception):
    """The user's line of the IR node the failing pass was working on: the innermost frame
    of the traceback that holds a node with a location."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        for value in frame.f_locals.values():
            if isinstance(value, Node) and value.location is not None:
                return value.location
    return None


def compile_program(program: Program, stop_after: str | None = None) -> tuple[Program, dict]:
    """Run the passes on ``program`` (in place); returns it and the seconds each pass took."""
    times = {}
    validate = os.environ.get("TENSORFROST_VALIDATE", "") not in ("", "0")
    ordered = True
    _dump(program, "trace", 0)
    off = optimizations.disabled_set()
    for index, (name, run) in enumerate(PASSES, start=1):
        if OPTIONAL.get(name) in off:
            continue
        start = time.perf_counter()
        try:
            program = run(program)
        except TensorFrostError:
            raise
        except Exception as exc:
            raise InternalError(f"internal compiler error in pass '{name}' while compiling {program.name}: "
                                f"{type(exc).__name__}: {exc}. This is a bug in tensorfrost; please report it "
                                "with this message", _culprit(exc)) from exc
        times[name] = time.perf_counter() - start
        _dump(program, name, index)
        if name == "fuse":
            # from here kernels may use values of other kernels, placed in any order
            ordered = False
        if validate:
            problem = structure_problem(program, ordered)
            if problem is not None:
                raise InternalError(f"internal compiler error: pass '{name}' left a broken IR while compiling "
                                    f"{program.name}: {problem}")
        if name == stop_after:
            break
    return program, times
