"""``python -m bench --under-load``: time every row while one busy process per core competes
for the machine, as a shared machine often is.

The busy processes are plain Python loops at nice 0, started just before a workload's rows
are timed and killed right after (also on an error or Ctrl-C, and by the kernel if the
bench process itself dies, through ``PR_SET_PDEATHSIG``). Rows timed so carry ``load``.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys

SPIN = "while True:\n    pass"
PR_SET_PDEATHSIG = 1
_busy = 0  # processes to start while timing (0: no load)


def configure(processes: int) -> None:
    """Compete with ``processes`` busy processes while timing (0 turns the load off)."""
    global _busy
    _busy = max(0, processes)


def busy_count() -> int:
    return _busy


def _child_setup() -> None:
    """In the busy child before it runs: nice 0 (whatever the bench's own niceness), and
    killed when its parent dies, so that no spinning process outlives a killed bench."""
    try:
        os.setpriority(os.PRIO_PROCESS, 0, 0)
    except OSError:
        pass  # a niced bench without the right to lower it: the load runs at its niceness
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the finally below still kills them


@contextlib.contextmanager
def competing():
    """While the block runs, ``busy_count()`` processes spin; yields them (none without load)."""
    processes: list[subprocess.Popen] = []
    try:
        for _ in range(_busy):
            processes.append(subprocess.Popen([sys.executable, "-c", SPIN], stdin=subprocess.DEVNULL,
                                              preexec_fn=_child_setup))
        yield processes
    finally:
        for process in processes:
            process.kill()
            process.wait()
