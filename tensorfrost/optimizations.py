"""Every optimization by name: a switch that turns it off, and a counter of how often it fired.

An optimization is anything the compiler or a backend does only to be faster: a program
means the same with it off. So each one can be turned off, for the whole process with
``TENSORFROST_DISABLE=tiling,chains`` (``all`` for every one) or within a block::

    with tf.optimizations.disabled("tiling"):
        prog = tf.compile(fn)         # compiled without lane tiles

and each one counts how often it fired (compile-time ones per kernel or program they change,
run-time ones per run that took them)::

    tf.optimizations.reset_counts()
    prog(x)
    tf.optimizations.counts()["gemm"]   # runs of a matmul through the packed GEMM

The differential tests compare programs with every optimization on, with each one off, and
with the IR interpreter, and check from the counters that their generated programs reach
every optimization. Switches are read when a program is compiled (and, for the run-time
ones, when it runs); a compiled program keeps what it was compiled with.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator

VARIABLE = "TENSORFROST_DISABLE"

# name -> what it does. The position of a name is its counter's index in generated C++.
NAMES: dict[str, str] = {
    "tiling": "cpu: kernels whose elements run a loop compute a tile of lanes at a time",
    "tile_rows": "cpu: tiles also span several rows, sharing the loads that ignore the last axis",
    "gemm": "cpu: a large float32 or float64 matmul runs as a packed, cache-blocked GEMM (chosen at run time)",
    "gemm_epilogue": "cpu: elementwise work after a GEMM runs fused on its rows of C",
    "chains": "cpu: consecutive stencil kernels run together over bands of rows (temporal blocking)",
    "column_blocks": "cpu: kernels that read a transposed operand run in blocks of columns",
    "stencil_interior": "cpu: a stencil row runs its interior without clamping its indices",
    "simd_reductions": "cpu: loops that only accumulate run in SIMD lanes (another summation order)",
    "load_clamps": "pass: clamps that repeat a load's own clamping are dropped",
    "merge_loops": "pass: sibling loops over the same range run as one loop",
    "recompute": "pass: cheap values are recomputed in the kernels that use them instead of stored",
    "hoist": "pass: what a loop inside a kernel computes the same way every iteration moves before it",
    "fast_call": "cpu: the steady-state call runs in a small C extension",
    "spare_outputs": "cpu: the storage of dropped small outputs is reused by the next call",
    "program_cache": "cpu: a program traced before loads its compiled library without the passes",
    "dead_sets": "pass: an update of a variable that no later read sees is dropped (reverse mode tapes less)",
    "apart_axes": "pass: accesses that hold every grid axis at the same positions share a kernel (a loop over "
                  "each element's own rows runs inside it)",
    "shared_kernels": "cpu: kernels whose code differs only in float constants compile once, taking them as arguments",
    "math_core": "cpu: float32 sin, cos and tan call the math core's vector functions (they skip the reduction "
                 "of large arguments where no lane has one)",
}

_lock = threading.Lock()
_local = threading.local()  # .recordings, .muted, .exactly: inside recording(), muted(), exactly_disabled()
_disabled_here: list[frozenset] = []  # the disabled(...) blocks in force, innermost last
_counts = dict.fromkeys(NAMES, 0)
_sources: list[tuple[Callable[[], dict], Callable[[], None]]] = []


def _check(names) -> frozenset:
    unknown = sorted(set(names) - set(NAMES) - {"all"})
    if unknown:
        raise ValueError(f"unknown optimization {', '.join(map(repr, unknown))}; the optimizations are "
                         f"{', '.join(NAMES)} (or 'all')")
    return frozenset(NAMES) if "all" in names else frozenset(names)


def disabled_set() -> frozenset:
    """The names switched off now: by ``TENSORFROST_DISABLE`` and by enclosing ``disabled`` blocks
    (or, inside ``exactly_disabled`` in this thread, the names it was given).

    >>> with tf.optimizations.disabled("tiling", "gemm"):
    ...     sorted(tf.optimizations.disabled_set() & {"tiling", "gemm", "hoist"})
    ['gemm', 'tiling']
    """
    exact = getattr(_local, "exactly", None)
    if exact is not None:
        return exact
    text = os.environ.get(VARIABLE, "")
    names = {part.strip() for part in text.split(",") if part.strip()}
    try:
        off = _check(names)
    except ValueError as error:
        raise ValueError(f"{VARIABLE}={text!r}: {error}") from None
    with _lock:
        for block in _disabled_here:
            off |= block
    return off


def enabled(name: str) -> bool:
    """Whether optimization ``name`` may fire now.

    >>> with tf.optimizations.disabled("hoist"):
    ...     tf.optimizations.enabled("hoist")
    False
    """
    if name not in NAMES:
        raise ValueError(f"unknown optimization {name!r}; the optimizations are {', '.join(NAMES)}")
    return name not in disabled_set()


@contextlib.contextmanager
def disabled(*names: str) -> Iterator[None]:
    """Turn the named optimizations (``"all"`` for every one) off inside the block, for
    programs compiled (and run-time choices made) in it, in every thread.

    >>> def scale(x: tf.Arg([-1], tf.float32)):
    ...     return x * 2.0
    >>> with tf.optimizations.disabled("all"):
    ...     plain = tf.compile(scale)            # compiled with every optimization off
    >>> plain(np.arange(3, dtype=np.float32)).tolist()   # means the same
    [0.0, 2.0, 4.0]
    """
    block = _check(names)
    with _lock:
        _disabled_here.append(block)
    try:
        yield
    finally:
        with _lock:
            _disabled_here.remove(block)


@contextlib.contextmanager
def exactly_disabled(names: frozenset) -> Iterator[None]:
    """In this thread, exactly ``names`` are off inside the block, whatever is switched off
    around it (a program compiled again later, as it was compiled first).

    >>> with tf.optimizations.disabled("tiling"):
    ...     with tf.optimizations.exactly_disabled(frozenset({"hoist"})):
    ...         sorted(tf.optimizations.disabled_set())
    ['hoist']
    """
    before = getattr(_local, "exactly", None)
    _local.exactly = _check(names)
    try:
        yield
    finally:
        _local.exactly = before


def fired(name: str, times: int = 1) -> None:
    """Count ``times`` firings of optimization ``name`` (and in this thread's ``recording`` blocks).

    >>> with tf.optimizations.recording() as record:
    ...     tf.optimizations.fired("hoist", 2)
    >>> record
    {'hoist': 2}
    """
    if getattr(_local, "muted", False):
        return
    with _lock:
        _counts[name] += times
    for record in getattr(_local, "recordings", ()):
        record[name] = record.get(name, 0) + times


@contextlib.contextmanager
def recording() -> Iterator[dict]:
    """{name: count} of what fires in this thread inside the block (one program's compile).

    >>> def blur(u: tf.Arg([-1], tf.float32)):
    ...     i, = u.indices
    ...     return u[i - 1] + u[i + 1]
    >>> with tf.optimizations.recording() as record:
    ...     _ = tf.compile(blur)
    >>> all(name in tf.optimizations.NAMES for name in record)
    True
    """
    record: dict = {}
    stack = _local.__dict__.setdefault("recordings", [])
    stack.append(record)
    try:
        yield record
    finally:
        stack.remove(record)


@contextlib.contextmanager
def muted() -> Iterator[None]:
    """Nothing fired in this thread inside the block counts (a compile repeated only to show its IR).

    >>> with tf.optimizations.recording() as record, tf.optimizations.muted():
    ...     tf.optimizations.fired("hoist")
    >>> record
    {}
    """
    before = getattr(_local, "muted", False)
    _local.muted = True
    try:
        yield
    finally:
        _local.muted = before


def counts() -> dict[str, int]:
    """How often each optimization fired since the process started (or ``reset_counts``).

    >>> tf.optimizations.reset_counts()
    >>> tf.optimizations.fired("merge_loops")
    >>> tf.optimizations.counts()["merge_loops"]
    1
    """
    with _lock:
        total = dict(_counts)
    for read, _ in _sources:
        for name, value in read().items():
            total[name] += value
    return total


def reset_counts() -> None:
    """Set every counter back to 0.

    >>> tf.optimizations.fired("hoist")
    >>> tf.optimizations.reset_counts()
    >>> set(tf.optimizations.counts().values())
    {0}
    """
    with _lock:
        for name in _counts:
            _counts[name] = 0
    for _, reset in _sources:
        reset()


def add_counter_source(read: Callable[[], dict], reset: Callable[[], None]) -> None:
    """Counters kept elsewhere (the cpu backend's, which generated code increments), summed
    into ``counts()``: ``read()`` gives {name: count}, ``reset()`` zeroes them.

    >>> external = {"chains": 0}
    >>> tf.optimizations.add_counter_source(lambda: dict(external), lambda: external.update(chains=0))
    >>> tf.optimizations.reset_counts()
    >>> external["chains"] = 3                  # counted elsewhere
    >>> tf.optimizations.counts()["chains"]
    3
    >>> tf.optimizations.reset_counts()
    """
    _sources.append((read, reset))


def index(name: str) -> int:
    """The counter of ``name`` in generated code (``TF_COUNT(index)``).

    >>> tf.optimizations.index("tiling"), tf.optimizations.index("tile_rows")
    (0, 1)
    """
    return list(NAMES).index(name)
