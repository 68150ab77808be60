"""The parts every workload shares: its description, timing, and checking against numpy.

A workload (``bench/workloads/*.py``) is a ``Workload``: sizes for the quick and full runs,
inputs, a numpy reference, and a table of implementations. An implementation is a function
``impl(inputs, params) -> (run, fetch)``: all setup (compiling, converting inputs to the
library's own arrays, a first call) happens there and is not timed; ``run()`` does one timed
unit of work and returns its output, ``fetch(output)`` turns that into a list of numpy
arrays. The harness calls ``run`` once, checks that result against the reference, then
times further calls and keeps the median.

An implementation that cannot run for a reason other than a bug raises ``NotAvailableError``
(W6 does this for tensorfrost until ``tf.Module``/``tf.optimizers`` exist).
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from . import load, peers


class NotAvailableError(Exception):
    """The implementation cannot run here (a missing feature or library), not a failure."""


@dataclass
class Target:
    """A goal from the issue for the tensorfrost row: ``kind`` is ``c`` (fraction of the
    hand-written C), ``stream`` (fraction of the STREAM triad), ``peer`` (fraction of the best
    of ``peers``), or ``max`` (an upper bound on the metric, for times). It applies to the row
    named ``impl`` (exactly: ``tensorfrost (opengl)`` has goals of its own), measured at one of
    ``sizes`` and, where ``under_load`` is not None, only quiet (False) or under load (True)."""

    kind: str
    value: float
    peers: tuple = ()
    text: str = ""
    impl: str = "tensorfrost"
    sizes: tuple = ("quick", "full")
    under_load: bool | None = None

    def applies(self, row, workload) -> bool:
        if row.impl != self.impl or (self.under_load is not None and bool(row.load) != self.under_load):
            return False
        if not workload.sizes:  # a workload that sizes itself (C1)
            return True
        return any(all(_plain(row.params.get(k)) == _plain(v) for k, v in workload.sizes[size].items())
                   for size in self.sizes)


def _plain(value):
    """A parameter as JSON gives it back (a row from a child process has lists for tuples)."""
    return json.loads(json.dumps(value))


@dataclass
class Workload:
    """One benchmark. ``work(params)`` is the amount of the metric's numerator in one run
    (bytes/1e9 for GB/s, cells/1e9 for Gcell-steps/s ...); the metric is ``work / seconds``,
    or the median seconds times ``time_scale`` (a number or a function of the params) when
    ``time_metric``, where lower is better.
    ``bytes_moved(params)`` is set for bandwidth-bound workloads: bytes per run that must
    cross memory, compared with the STREAM rate.

    A row in another dtype (``tensorfrost (float16)``) checks its result against a
    reference of its own (``own_inputs``) with ``tolerances[name]`` in place of
    ``tolerance``, and keeps the float32 row's ``work`` (so its metric over the float32
    row's is its speed-up). ``groups[name]`` names the rows it is compared with in the
    ratio columns (its dtype): the best library and the C of its own group, and no
    bandwidth fraction, as its bytes are not the float32 row's."""

    id: str
    title: str
    metric: str
    sizes: dict
    inputs: Callable | None = None
    reference: Callable | None = None
    impls: dict = field(default_factory=dict)
    work: Callable | None = None
    bytes_moved: Callable | None = None
    check: Callable | None = None
    tolerance: float = 1e-4
    tolerances: dict = field(default_factory=dict)  # impl name -> its own tolerance (another dtype)
    groups: dict = field(default_factory=dict)  # impl name -> the rows it is compared with ("" by default)
    targets: list = field(default_factory=list)
    time_metric: bool = False
    time_scale: float | Callable = 1.0
    custom: Callable | None = None  # measures everything itself (C1): (quick, impls) -> [Result]
    note: str = ""

    @property
    def higher_is_better(self) -> bool:
        return not self.time_metric

    def tolerance_for(self, name: str) -> float:
        """The tolerance of implementation ``name``'s check."""
        return self.tolerances.get(name, self.tolerance)


@dataclass
class Result:
    """One row of the table."""

    workload: str
    impl: str
    status: str = "ok"  # ok | wrong | error | n/a
    median_s: float | None = None
    times_s: list = field(default_factory=list)
    metric: float | None = None
    unit: str = ""
    error: float | None = None
    message: str = ""
    size: str = ""
    params: dict = field(default_factory=dict)
    detail: str = ""
    bandwidth_fraction: float | None = None
    stream_gbs: float | None = None  # the STREAM rate measured beside this row
    vs_best_library: float | None = None
    vs_c: float | None = None
    load: str = ""  # what competed for the machine while this row was timed (--under-load)

    def as_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "detail" or v}


def relative_error(got: np.ndarray, want: np.ndarray) -> float:
    """max |got - want| / max(|want|), the error measure of most workloads."""
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    if got.shape != want.shape:
        raise ValueError(f"shape {got.shape}, expected {want.shape}")
    scale = max(float(np.max(np.abs(want))) if want.size else 0.0, 1e-30)
    return float(np.max(np.abs(got - want))) / scale if want.size else 0.0


class Prechecked(float):
    """The error a row measured against a reference of its own (a row at another size):
    the workload's check passes it on."""


def at_size(impl: Callable, params: Callable, repeats: Callable, inputs: Callable, reference: Callable,
            check: Callable | None = None) -> Callable:
    """``impl`` on inputs of the size ``params(p)``, run ``repeats(p)`` times per timed run so
    that a run does the full size's work (its metric stays comparable), and checked once."""
    def resized(inp, p):
        small = dict(p, **params(p))
        small_inputs = inputs(small, np.random.default_rng(0))
        run_once, to_numpy = impl(small_inputs, small)
        error = Prechecked((check or default_check)(to_numpy(run_once()), reference(small_inputs, small)))
        return repeated(run_once, repeats(p)), (lambda out: [error])
    return resized


def own_inputs(impl: Callable, key: str, inputs: Callable, reference: Callable,
               check: Callable | None = None) -> Callable:
    """``impl`` on inputs of its own, ``inputs(workload_inputs, p)`` (the workload's in
    another dtype), checked against ``reference(own, p)``. Both are made once per run and
    shared by the rows with the same ``key`` (``numpy (float16)`` and ``tensorfrost
    (float16)`` check against one reference); the row's metric stays the workload's."""
    def wrapped(inp, p):
        own = _shared(inp, key, lambda: inputs(inp, p))
        want = _shared(inp, key + " reference", lambda: reference(own, p))
        run, to_numpy = impl(own, p)
        return run, (lambda out: [Prechecked((check or default_check)(to_numpy(out), want))])
    return wrapped


def _shared(inp: dict, key: str, make: Callable):
    """``make()``, kept in the workload's input dict (one per run, shared by all its rows)."""
    cache = inp.setdefault("_own_inputs", {})
    if key not in cache:
        cache[key] = make()
    return cache[key]


def repeated(run_once: Callable, count: int) -> Callable:
    """A run that calls ``run_once`` ``count`` times and returns the last call's result."""
    def run():
        for _ in range(count - 1):
            run_once()
        return run_once()
    return run


def default_check(outputs: list, reference: list) -> float:
    """The largest relative error over all outputs."""
    if outputs and isinstance(outputs[0], Prechecked):
        return float(outputs[0])
    if len(outputs) != len(reference):
        raise ValueError(f"{len(outputs)} outputs, expected {len(reference)}")
    return max(relative_error(g, w) for g, w in zip(outputs, reference))


def measure_in_rounds(runs: dict[str, Callable], quick: bool) -> tuple[dict, dict]:
    """Time every implementation's ``run()`` in rounds, each round calling each once in turn,
    so that a slow phase of the machine (on this VM, whole seconds at 1.5x the time) lands on
    every row alike instead of on whichever ran then. Each runs at least 3 (quick) or 5 times
    (3 when a run takes over a second), more while its own time budget lasts (0.5 s quick,
    4 s full), at most 50 times. Returns every time in seconds by name, and the exception of
    each implementation that raised (it is timed no further)."""
    min_reps, budget = (3, 0.5) if quick else (5, 4.0)
    times: dict[str, list[float]] = {name: [] for name in runs}
    errors: dict[str, Exception] = {}
    active = list(runs)
    while active:
        for name in list(active):
            try:
                t0 = time.perf_counter()
                out = runs[name]()
                times[name].append(time.perf_counter() - t0)
                del out
            except Exception as e:  # noqa: BLE001 - a failing implementation is a row, not a crash
                errors[name] = e
                active.remove(name)
                continue
            done = times[name]
            reps = 3 if done[0] > 1.0 else min_reps  # a slow peer (numpy on W3/W4): three give a fair median
            if len(done) >= 50 or (len(done) >= reps and sum(done) > budget):
                active.remove(name)
    return times, errors


def size_label(params: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in params.items() if not k.startswith("_"))


def prepare_impl(workload: Workload, name: str, inputs: dict, params: dict, reference: list) -> tuple:
    """Set up one implementation of a workload and check its result against the reference.
    Returns its row and its ``run`` (None when it cannot be timed)."""
    result = Result(workload.id, name, unit=workload.metric, size=size_label(params), params=dict(params))
    run = None
    try:
        peers.limit_threads(name)
        run, fetch = workload.impls[name](inputs, params)
        outputs = fetch(run())
        check = workload.check or default_check
        result.error = float(check(outputs, reference))
        tolerance = workload.tolerance_for(name)
        if not (result.error <= tolerance):
            result.status = "wrong"
            result.message = f"error {result.error:.3g} > tolerance {tolerance:g}"
        del outputs
    except Exception as e:  # noqa: BLE001 - a failing implementation is a row, not a crash
        _record_failure(result, e)
        run = None
    finally:
        gc.collect()
    return result, run


def _record_failure(result: Result, e: Exception) -> None:
    """Make ``result`` the row of an implementation that raised ``e``."""
    if isinstance(e, NotAvailableError):
        result.status, result.message = "n/a", str(e)
        return
    result.status = "error"
    result.message = f"{type(e).__name__}: {e}".strip()[:400]
    result.detail = "".join(traceback.format_exception(e, limit=6))


def run_workload(workload: Workload, quick: bool, impls: list[str] | None = None, log=print) -> list[Result]:
    """Run the chosen implementations (all available ones by default) of one workload: set up
    and check each, then time them."""
    names = [n for n in workload.impls if impls is None or peers.base_impl(n) in impls or n in impls]
    if workload.custom is not None:
        return workload.custom(quick, names, log)
    params = dict(workload.sizes["quick" if quick else "full"])
    rng = np.random.default_rng(20261129)
    inputs = workload.inputs(params, rng)
    t0 = time.perf_counter()
    reference = workload.reference(inputs, params)
    log(f"  {workload.id}: numpy reference in {time.perf_counter() - t0:.2f} s")
    results, runs = {}, {}

    def prepare(name):
        if not peers.available(name):
            results[name] = Result(workload.id, name, status="n/a", message="not installed", unit=workload.metric,
                                   size=size_label(params), params=dict(params))
            return
        results[name], run = prepare_impl(workload, name, inputs, params, reference)
        if run is not None:
            runs[name] = run
    # tensorfrost and the C share one OpenMP runtime: timed in rounds, a slow phase of the
    # machine hits both. A library's idle threads spin after each call (OpenBLAS, XLA, torch)
    # and would slow whichever library ran next, so each library peer is set up and timed
    # alone, in turn (taichi's GL row starts a new taichi runtime, which broke its cpu row's
    # kernels when every row was set up first).
    own_names = [name for name in names if not peers.is_library_peer(name)]
    for name in own_names:
        prepare(name)
    stream_gbs = _stream_beside(workload, quick)
    with load.competing() as busy:
        times, errors = measure_in_rounds({name: runs[name] for name in own_names if name in runs}, quick)
        for name in names:
            if name not in own_names:
                prepare(name)
                if name in runs:
                    alone_times, alone_errors = measure_in_rounds({name: runs[name]}, quick)
                    times.update(alone_times)
                    errors.update(alone_errors)
        competition = f"{len(busy)} busy processes, load average {os.getloadavg()[0]:.1f}" if busy else ""
    results = [results[name] for name in names]
    for result in results:
        if result.impl in errors:
            _record_failure(result, errors[result.impl])
        elif result.impl in runs:
            _set_metric(workload, result, times[result.impl])
            result.stream_gbs = stream_gbs
            result.load = competition
        log(f"  {workload.id} {result.impl:<22} {describe(result)}")
    return results


def _stream_beside(workload: Workload, quick: bool) -> float | None:
    """The median STREAM triad rate just before the rows of a bandwidth-bound workload are
    timed: this VM's bandwidth drifts by 1.5x over minutes, so a fraction of a rate measured
    at the start of the run can exceed 1."""
    if quick or workload.bytes_moved is None or not peers.available("c"):
        return None
    from . import cbuild
    return cbuild.stream_triad(256, repeats=5)["median_gbs"]


def _set_metric(workload: Workload, result: Result, times: list[float]) -> None:
    result.times_s = times
    result.median_s = float(np.median(times))
    params = result.params
    if workload.time_metric:
        scale = workload.time_scale(params) if callable(workload.time_scale) else workload.time_scale
        result.metric = result.median_s * scale
    else:
        result.metric = workload.work(params) / result.median_s


def run_workload_in_child(workload: Workload, quick: bool, impls: list[str], threads: int) -> list[Result]:
    """``run_workload`` in a fresh ``python -m bench`` process, so that no library's leftover
    threads or heap from an earlier workload run beside this one. Its log goes to our stdout."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    fd, path = tempfile.mkstemp(prefix=f"bench-{workload.id}-", suffix=".json")
    os.close(fd)
    command = [sys.executable, "-m", "bench", "--only", workload.id, "--impls", ",".join(impls),
               "--threads", str(threads), "--no-stream", "--worker-json", path] + (["--quick"] if quick else []) \
        + (["--under-load"] if load.busy_count() else [])
    try:
        sys.stdout.flush()
        code = subprocess.call(command, cwd=root, env=env)
        with open(path) as f:
            text = f.read()
        if code == 0 and text:
            return [Result(**row) for row in json.loads(text)]
        return [Result(workload.id, "tensorfrost", status="error", unit=workload.metric,
                       message=f"the benchmark process for {workload.id} exited with status {code}")]
    finally:
        os.unlink(path)


def write_rows(path: str, results: list[Result]) -> None:
    """The rows of a child process (``--worker-json``), for ``run_workload_in_child``."""
    with open(path, "w") as f:
        json.dump([r.as_dict() for r in results], f, default=float)


def describe(result: Result) -> str:
    if result.status in ("error", "n/a"):
        return f"[{result.status}] {result.message}"
    text = f"{result.median_s * 1e3:9.3f} ms  {result.metric:9.4g} {result.unit}"
    if result.error is not None:
        text += f"  err {result.error:.2g}"
    text += f"  [under load: {result.load}]" if result.load else ""
    return text + ("  WRONG" if result.status == "wrong" else "")


def annotate(results: list[Result], workloads: dict, stream_gbs: float | None) -> None:
    """Fill in the ratio columns: against the best library peer, against the C row, and the
    fraction of STREAM bandwidth for bandwidth-bound workloads (of the rate measured beside
    the row when there is one, else of ``stream_gbs``)."""
    by_workload: dict[str, list[Result]] = {}
    for r in results:
        by_workload.setdefault(r.workload, []).append(r)
    for wid, rows in by_workload.items():
        workload = workloads.get(wid)
        if workload is None or workload.custom is not None:
            continue
        for group in {workload.groups.get(r.impl, "") for r in rows}:
            _annotate_group([r for r in rows if workload.groups.get(r.impl, "") == group], workload, stream_gbs)


def _annotate_group(rows: list[Result], workload: Workload, stream_gbs: float | None) -> None:
    """The ratio columns of the rows of one group (dtype) of a workload."""
    good = [r for r in rows if r.status == "ok" and r.metric]
    better = max if workload.higher_is_better else min
    libs = [r.metric for r in good if peers.is_library_peer(r.impl)]
    best_lib = better(libs) if libs else None
    c_rows = [r.metric for r in good if r.impl == "c"]
    c_metric = c_rows[0] if c_rows else None
    for r in good:
        r.vs_best_library = _ratio(r.metric, best_lib, workload.higher_is_better)
        r.vs_c = _ratio(r.metric, c_metric, workload.higher_is_better)
        stream = r.stream_gbs or stream_gbs
        if workload.bytes_moved is not None and stream and not workload.groups.get(r.impl):
            gbs = workload.bytes_moved(r.params) / r.median_s / 1e9
            r.bandwidth_fraction = gbs / stream


def _ratio(value: float, base: float | None, higher_is_better: bool) -> float | None:
    """How many times better ``value`` is than ``base`` (>1: better)."""
    if not base or not value:
        return None
    return value / base if higher_is_better else base / value

