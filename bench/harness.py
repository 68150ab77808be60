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
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from . import peers


class NotAvailableError(Exception):
    """The implementation cannot run here (a missing feature or library), not a failure."""


@dataclass
class Target:
    """A goal from the issue for the tensorfrost row: ``kind`` is ``c`` (fraction of the
    hand-written C), ``stream`` (fraction of the STREAM triad), ``peer`` (fraction of the best
    of ``peers``), or ``max`` (an upper bound on the metric, for times). It applies to every
    row whose implementation name starts with ``impl``."""

    kind: str
    value: float
    peers: tuple = ()
    text: str = ""
    impl: str = "tensorfrost"


@dataclass
class Workload:
    """One benchmark. ``work(params)`` is the amount of the metric's numerator in one run
    (bytes/1e9 for GB/s, cells/1e9 for Gcell-steps/s ...); the metric is ``work / seconds``,
    or the median seconds times ``time_scale`` (a number or a function of the params) when
    ``time_metric``, where lower is better.
    ``bytes_moved(params)`` is set for bandwidth-bound workloads: bytes per run that must
    cross memory, compared with the STREAM rate."""

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
    targets: list = field(default_factory=list)
    time_metric: bool = False
    time_scale: float | Callable = 1.0
    custom: Callable | None = None  # measures everything itself (C1): (quick, impls) -> [Result]
    note: str = ""

    @property
    def higher_is_better(self) -> bool:
        return not self.time_metric


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
    vs_best_library: float | None = None
    vs_c: float | None = None

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


def default_check(outputs: list, reference: list) -> float:
    """The largest relative error over all outputs."""
    if len(outputs) != len(reference):
        raise ValueError(f"{len(outputs)} outputs, expected {len(reference)}")
    return max(relative_error(g, w) for g, w in zip(outputs, reference))


def measure(run: Callable, quick: bool, budget_s: float | None = None) -> list[float]:
    """Time ``run()`` repeatedly: at least 3 (quick) or 5 times (3 when a run takes over a
    second), more while the time budget lasts (0.5 s quick, 4 s full), at most 50 times.
    Returns every time in seconds."""
    min_reps, budget = (3, 0.5) if quick else (5, 4.0)
    if budget_s is not None:
        budget = budget_s
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < 50:
        t0 = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - t0)
        del out
        if times[0] > 1.0:
            min_reps = 3  # a slow peer (numpy on W3/W4): three runs give a fair median
        if len(times) >= min_reps and time.perf_counter() - start > budget:
            break
    return times


def size_label(params: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in params.items() if not k.startswith("_"))


def run_impl(workload: Workload, name: str, inputs: dict, params: dict, reference: list, quick: bool) -> Result:
    """Set up, check and time one implementation of a workload."""
    result = Result(workload.id, name, unit=workload.metric, size=size_label(params), params=dict(params))
    try:
        peers.limit_threads(name)
        run, fetch = workload.impls[name](inputs, params)
        outputs = fetch(run())
        check = workload.check or default_check
        result.error = float(check(outputs, reference))
        if not (result.error <= workload.tolerance):
            result.status = "wrong"
            result.message = f"error {result.error:.3g} > tolerance {workload.tolerance:g}"
        del outputs
        result.times_s = measure(run, quick)
        result.median_s = float(np.median(result.times_s))
        if workload.time_metric:
            scale = workload.time_scale(params) if callable(workload.time_scale) else workload.time_scale
            result.metric = result.median_s * scale
        else:
            result.metric = workload.work(params) / result.median_s
    except NotAvailableError as e:
        result.status, result.message = "n/a", str(e)
    except Exception as e:  # noqa: BLE001 - a failing implementation is a row, not a crash
        result.status = "error"
        result.message = f"{type(e).__name__}: {e}".strip()[:400]
        result.detail = traceback.format_exc(limit=6)
    finally:
        gc.collect()
    return result


def run_workload(workload: Workload, quick: bool, impls: list[str] | None = None, log=print) -> list[Result]:
    """Run the chosen implementations (all available ones by default) of one workload."""
    names = [n for n in workload.impls if impls is None or peers.base_impl(n) in impls or n in impls]
    if workload.custom is not None:
        return workload.custom(quick, names, log)
    params = dict(workload.sizes["quick" if quick else "full"])
    rng = np.random.default_rng(20261129)
    inputs = workload.inputs(params, rng)
    t0 = time.perf_counter()
    reference = workload.reference(inputs, params)
    log(f"  {workload.id}: numpy reference in {time.perf_counter() - t0:.2f} s")
    results = []
    for name in names:
        if not peers.available(name):
            results.append(Result(workload.id, name, status="n/a", message="not installed", unit=workload.metric,
                                  size=size_label(params), params=dict(params)))
            continue
        result = run_impl(workload, name, inputs, params, reference, quick)
        log(f"  {workload.id} {name:<22} {describe(result)}")
        results.append(result)
    return results


def describe(result: Result) -> str:
    if result.status in ("error", "n/a"):
        return f"[{result.status}] {result.message}"
    text = f"{result.median_s * 1e3:9.3f} ms  {result.metric:9.4g} {result.unit}"
    if result.error is not None:
        text += f"  err {result.error:.2g}"
    return text + ("  WRONG" if result.status == "wrong" else "")


def annotate(results: list[Result], workloads: dict, stream_gbs: float | None) -> None:
    """Fill in the ratio columns: against the best library peer, against the C row, and the
    fraction of STREAM bandwidth for bandwidth-bound workloads."""
    by_workload: dict[str, list[Result]] = {}
    for r in results:
        by_workload.setdefault(r.workload, []).append(r)
    for wid, rows in by_workload.items():
        workload = workloads.get(wid)
        if workload is None or workload.custom is not None:
            continue
        good = [r for r in rows if r.status == "ok" and r.metric]
        better = max if workload.higher_is_better else min
        libs = [r.metric for r in good if peers.is_library_peer(r.impl)]
        best_lib = better(libs) if libs else None
        c_rows = [r.metric for r in good if r.impl == "c"]
        c_metric = c_rows[0] if c_rows else None
        for r in good:
            r.vs_best_library = _ratio(r.metric, best_lib, workload.higher_is_better)
            r.vs_c = _ratio(r.metric, c_metric, workload.higher_is_better)
            if workload.bytes_moved is not None and stream_gbs:
                gbs = workload.bytes_moved(r.params) / r.median_s / 1e9
                r.bandwidth_fraction = gbs / stream_gbs


def _ratio(value: float, base: float | None, higher_is_better: bool) -> float | None:
    """How many times better ``value`` is than ``base`` (>1: better)."""
    if not base or not value:
        return None
    return value / base if higher_is_better else base / value

