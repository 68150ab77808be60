"""``tf.profile``: where a program's time goes, kernel by kernel; and the compile log.

Inside ``with tf.profile() as p:`` every call of a compiled program runs its profiling
build (``BuildOptions.profile``, built once per program on its first call in a profile):
the cpu backend's host code reads the clock around each kernel's launch, the OpenGL and
WebGPU backends wait for the device before and after each dispatch, so the kernels' times
add up to the call's. Outside a profile, programs run as they were compiled: nothing of
this is on their call path (``program.py`` swaps the call in while a profile is open).

``TENSORFROST_LOG=compile`` prints a line per compile on stderr; the records go to the
``"tensorfrost"`` logger at INFO either way (``logging.basicConfig(level=logging.INFO)``
shows them too, as does pytest's ``caplog``).
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass

logger = logging.getLogger("tensorfrost")

_active: list[Profile] = []  # the profiles open now, in any thread
_lock = threading.Lock()
_toggles: list = []  # called with True when the first profile opens, False when the last closes


@dataclass(frozen=True)
class KernelRecord:
    """One kernel's share of a profile: its launches, the seconds they took (summed), and
    the bytes they moved, an estimate from the kernel's contract: each buffer it reads
    counted whole once, each it writes once more (``opt.analysis.kernel_traffic``), however
    few of its elements the kernel touches."""

    kernel: str
    program: str
    launches: int
    seconds: float
    bytes: int
    lines: tuple[tuple[str, int], ...]  # (file, line) of the user's code the kernel computes

    @property
    def gb_per_second(self) -> float:
        return self.bytes / self.seconds / 1e9 if self.seconds > 0 else 0.0


@dataclass(frozen=True)
class ProgramRecord:
    """One program's calls in a profile: their wall time (from the converted arguments to the
    end of the last kernel), and whether its backend timed its kernels."""

    program: str
    calls: int
    seconds: float
    kernels_timed: bool


class Profile:
    """What the programs called in a ``with tf.profile() as p:`` block spent: ``print(p)``
    shows a table of kernels by time; ``p.kernels`` (KernelRecord, slowest first),
    ``p.programs`` (ProgramRecord) and ``p.total_seconds`` hold the numbers.

    >>> def blur(u: tf.Arg([-1], tf.float32)):
    ...     i, = u.indices
    ...     return (u[i - 1] + u + u[i + 1]) / 3.0
    >>> blur = tf.compile(blur)
    >>> with tf.profile() as p:
    ...     for _ in range(3):
    ...         _ = blur(np.ones(4096, np.float32))
    >>> [(k.kernel, k.program, k.launches) for k in p.kernels]
    [('blur_k0', 'blur', 3)]
    >>> [(r.program, r.calls, r.kernels_timed) for r in p.programs]
    [('blur', 3, True)]
    >>> print(p)
    kernel   program  launches  total ms  ...  user lines
    blur_k0  blur            3  ...
    program blur: 3 call(s), ... ms
    total: ... ms
    """

    def __init__(self):
        self._programs: dict = {}  # program object -> [name, calls, seconds, timed]
        self._kernels: dict = {}  # (program object, kernel index) -> [name, program name, lines, s, launches, bytes]

    def __enter__(self) -> Profile:
        with _lock:
            _active.append(self)
            if len(_active) == 1:
                for toggle in _toggles:
                    toggle(True)
        return self

    def __exit__(self, *exc) -> None:
        with _lock:
            _active.remove(self)
            if not _active:
                for toggle in _toggles:
                    toggle(False)

    def _add(self, program, name: str, kernels: list, rows: list | None, seconds: float) -> None:
        entry = self._programs.setdefault(program, [name, 0, 0.0, rows is not None])
        entry[1] += 1
        entry[2] += seconds
        for index, (kernel, lines) in enumerate(kernels):
            row = self._kernels.setdefault((program, index), [kernel, name, lines, 0.0, 0, 0])
            if rows is not None:
                row[3] += rows[index][0]
                row[4] += rows[index][1]
                row[5] += rows[index][2]

    @property
    def kernels(self) -> list[KernelRecord]:
        """Every kernel of the programs called, slowest first (with no times where the backend
        gives none: see ``programs``).

        >>> prog = tf.compile(lambda: tf.input([-1], tf.float32) * 3.0, name="triple")
        >>> with tf.profile() as p:
        ...     _ = prog(np.ones(100, np.float32))
        >>> record = p.kernels[0]
        >>> record.kernel, record.launches, record.bytes > 0, record.seconds >= 0
        ('triple_k0', 1, True, True)
        """
        records = [KernelRecord(kernel, program, launches, seconds, moved, lines)
                   for kernel, program, lines, seconds, launches, moved in self._kernels.values()]
        return sorted(records, key=lambda r: -r.seconds)

    @property
    def programs(self) -> list[ProgramRecord]:
        """Every program called in the profile, with its calls and their wall time.

        >>> prog = tf.compile(lambda: tf.input([-1], tf.float32) * 3.0, name="triple")
        >>> with tf.profile() as p:
        ...     _ = prog(np.ones(100, np.float32))
        ...     _ = prog(np.ones(100, np.float32))
        >>> p.programs[0].program, p.programs[0].calls
        ('triple', 2)
        """
        return [ProgramRecord(*entry) for entry in self._programs.values()]

    @property
    def total_seconds(self) -> float:
        """The wall time of every program call in the profile.

        >>> with tf.profile() as p:
        ...     pass                              # nothing called
        >>> p.total_seconds
        0
        """
        return sum(entry[2] for entry in self._programs.values())

    def __str__(self) -> str:
        total = self.total_seconds
        header = ("kernel", "program", "launches", "total ms", "%", "GB/s", "user lines")
        rows = [(r.kernel, r.program, str(r.launches), f"{r.seconds * 1e3:.3f}",
                 f"{100 * r.seconds / total:.1f}" if total > 0 else "-", f"{r.gb_per_second:.2f}",
                 format_lines(r.lines)) for r in self.kernels if r.launches]
        widths = [max(len(row[k]) for row in [header, *rows]) for k in range(len(header))]
        lines = ["  ".join(cell.ljust(w) if k in (0, 1, 6) else cell.rjust(w)
                           for k, (cell, w) in enumerate(zip(row, widths))).rstrip() for row in [header, *rows]]
        for program in self.programs:
            timed = "" if program.kernels_timed else " (its backend gives no kernel times: program time only)"
            lines.append(f"program {program.program}: {program.calls} call(s), {program.seconds * 1e3:.3f} ms{timed}")
        lines.append(f"total: {total * 1e3:.3f} ms")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<tf.Profile: {len(self._programs)} program(s), {self.total_seconds * 1e3:.3f} ms>"


def profile() -> Profile:
    """Profile the programs called in a block, kernel by kernel::

        with tf.profile() as p:
            step(x)
        print(p)  # kernels by time: launches, ms, % of the total, GB/s, the user's lines

    A program's first call in a profile builds it once more with its kernels timed (that
    build is not counted). ``prog.profile(*args)`` profiles one call.

    >>> step = tf.compile(lambda: tf.input([-1], tf.float32) + 1.0, name="step")
    >>> with tf.profile() as p:
    ...     x = step(np.zeros(8, np.float32))
    ...     x = step(x)
    >>> x.tolist()
    [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]
    >>> p.kernels[0].kernel, p.kernels[0].launches
    ('step_k0', 2)
    """
    return Profile()


def record(program, name: str, kernels: list, rows: list | None, seconds: float) -> None:
    """One call of ``program`` (called ``name``): per kernel, by index, its (name, lines) and
    its (seconds, launches, bytes) in ``rows`` (None where the backend gives no kernel times),
    and the call's wall ``seconds``, added to every open profile."""
    with _lock:
        for open_profile in _active:
            open_profile._add(program, name, kernels, rows, seconds)


def on_toggle(toggle) -> None:
    """Call ``toggle(True)`` when the first profile opens and ``toggle(False)`` when the last closes."""
    _toggles.append(toggle)


def format_lines(lines) -> str:
    """``file.py:3,5-7`` for (file, line) pairs, a file's lines in order, runs as ranges."""
    by_file: dict[str, list[int]] = {}
    for filename, lineno in sorted(set(lines)):
        by_file.setdefault(os.path.basename(filename), []).append(lineno)
    parts = []
    for filename, numbers in by_file.items():
        runs: list[list[int]] = []
        for lineno in numbers:
            if runs and lineno == runs[-1][1] + 1:
                runs[-1][1] = lineno
            else:
                runs.append([lineno, lineno])
        parts.append(f"{filename}:" + ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs))
    return " ".join(parts)


def log_compile(name: str, kernels: int, trace: float, passes: float, native: float, cache: str) -> None:
    """One compile, on the ``"tensorfrost"`` logger at INFO."""
    logger.info("compiled %s: %d kernel(s), trace %.3f s, passes %.3f s, C++ compile %.3f s, program cache %s",
                name, kernels, trace, passes, native, cache)


def _log_from_environment() -> None:
    """``TENSORFROST_LOG=compile`` (words separated by commas): the compile log printed on
    stderr with no logging set up by the program."""
    words = {w.strip().lower() for w in os.environ.get("TENSORFROST_LOG", "").split(",")}
    if "compile" in words:
        logger.setLevel(logging.INFO)
        if not logger.handlers:
            handler = logging.StreamHandler()
            handler.setFormatter(logging.Formatter("tensorfrost: %(message)s"))
            logger.addHandler(handler)


_log_from_environment()
