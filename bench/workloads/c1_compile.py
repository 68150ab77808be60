"""C1: compile time of the wave and QR programs, of W6's MLP training step (31 kernels) and
of a chain of 100 diffusion kernels, cold (empty cache) and warm (cache hit: the traced
program's entry skips the passes, C++ generation and g++).

Each measurement is a new Python process (``python -m bench.workloads.c1_compile PROGRAM``)
that imports tensorfrost, times ``tf.compile`` (tracing, passes, C++ generation, g++ or
the cache lookup, loading the library) and checks the program on a small input. Cold runs
get a fresh ``TENSORFROST_CACHE_DIR``; the warm run is a second process on the same
directory. Import time (tensorfrost and its CPU backend, which it imports on first use) is
reported apart, not counted in the metric.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from ..harness import Result, Target, Workload

PROGRAMS = ("wave", "qr", "mlp_step", "kernels100")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _child(program: str) -> dict:
    """Runs in the measured process: compile one program, check it, report as JSON."""
    t0 = time.perf_counter()
    import tensorfrost as tf
    import tensorfrost.backend_cpu.runtime  # noqa: F401 (imported on first use: cffi, 30-40 ms, is import time)
    from tensorfrost.backend_cpu.compiler import CompileStats

    from . import programs
    import_s = time.perf_counter() - t0
    tf.initialize(tf.cpu)
    rng = np.random.default_rng(7)
    if program == "mlp_step":
        return _timed_mlp_step(rng, import_s)
    fn = {"wave": programs.wave_step, "qr": programs.qr_decomposition, "kernels100": programs.diffusion_chain}[program]
    t0 = time.perf_counter()
    prog = tf.compile(fn)
    compile_s = time.perf_counter() - t0
    if program == "kernels100":
        u = rng.normal(size=(40, 52)).astype(np.float32)
        error = float(np.max(np.abs(prog(u).numpy - programs.diffusion_chain_reference(u))))
    elif program == "wave":
        u, v = rng.normal(size=(33, 47)).astype(np.float32), rng.normal(size=(33, 47)).astype(np.float32)
        p = np.pad(u, 1, mode="edge")
        v_ref = v + programs.WAVE_C * (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * u)
        u2, v2 = prog(u, v)
        error = max(float(np.max(np.abs(v2.numpy - v_ref))), float(np.max(np.abs(u2.numpy - (u + 0.1 * v_ref)))))
    else:
        a = rng.uniform(0.0, 1.0, (24, 16)).astype(np.float32)
        q, r = (t.numpy for t in prog(a))
        error = max(float(np.max(np.abs(q @ r - a))), float(np.max(np.abs(q.T @ q - np.eye(16)))))
    return {"import_s": import_s, "compile_s": compile_s, "gxx_s": CompileStats.compile_seconds,
            "compiles": CompileStats.compiles, "cache_hits": CompileStats.cache_hits,
            "program_hits": CompileStats.program_hits, "error": error}


def _timed_mlp_step(rng, import_s: float) -> dict:
    """W6's training step (its sizes, a batch of 64): module, optimizer and compile_step
    timed together; the check is one step against numpy (the largest parameter error)."""
    from tensorfrost.backend_cpu.compiler import CompileStats

    from . import w6_mlp
    params = {"batch": 64, "dims": w6_mlp.WORKLOAD.sizes["full"]["dims"]}
    inputs = w6_mlp.inputs(params, rng)
    t0 = time.perf_counter()
    run, fetch = w6_mlp.tensorfrost(inputs, params)
    compile_s = time.perf_counter() - t0
    error = w6_mlp.check(fetch(run()), w6_mlp.reference(inputs, params)) * w6_mlp.LR
    return {"import_s": import_s, "compile_s": compile_s, "gxx_s": CompileStats.compile_seconds,
            "compiles": CompileStats.compiles, "cache_hits": CompileStats.cache_hits,
            "program_hits": CompileStats.program_hits, "error": error}


def _spawn(program: str, cache_dir: str) -> dict:
    env = dict(os.environ, TENSORFROST_CACHE_DIR=cache_dir)
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-m", __name__, program], cwd=REPO, env=env, capture_output=True,
                         text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip()[-1500:] or f"exit status {out.returncode}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(quick: bool, impls: list[str], log=print) -> list[Result]:
    """The C1 rows: for each program, the median of cold and of warm compiles."""
    if not any(name.startswith("tensorfrost") for name in impls):
        return []
    repeats = 1 if quick else 3
    results = []
    for program in PROGRAMS:
        runs: dict[str, list[dict]] = {"cold": [], "warm": []}
        failure = None
        try:
            for _ in range(repeats):
                with tempfile.TemporaryDirectory(prefix="tf-bench-cache-") as cache:
                    runs["cold"].append(_spawn(program, cache))
                    runs["warm"].append(_spawn(program, cache))
        except (RuntimeError, subprocess.SubprocessError, ValueError) as e:
            failure = f"{type(e).__name__}: {e}"
        for kind in ("cold", "warm"):
            result = Result("C1", f"tensorfrost: {program} {kind}", unit="s", size=f"{program} {kind}")
            if failure is not None:
                result.status, result.message = "error", failure[:400]
            else:
                data = runs[kind]
                result.times_s = [d["compile_s"] for d in data]
                result.median_s = result.metric = float(np.median(result.times_s))
                result.error = max(d["error"] for d in data)
                compiles = sum(d["compiles"] for d in data)
                hits = sum(d["cache_hits"] for d in data)
                result.message = (f"g++ {np.median([d['gxx_s'] for d in data]):.2f} s, import "
                                  f"{np.median([d['import_s'] for d in data]):.2f} s, {compiles} compiles, "
                                  f"{hits} cache hits ({sum(d['program_hits'] for d in data)} of programs)")
                if result.error > 1e-3:
                    result.status = "wrong"
                elif kind == "warm" and compiles:
                    result.status, result.message = "wrong", "warm run compiled again: " + result.message
            log(f"  C1 {result.impl:<24} {result.metric or 0:.3f} s  {result.message}")
            results.append(result)
    return results


WORKLOAD = Workload(
    id="C1", title="compile time: cold (empty cache) and warm (cache hit)", metric="s", sizes={},
    impls={"tensorfrost": None}, custom=measure, time_metric=True,
    targets=[Target("max", 1.0, impl="tensorfrost: wave cold", text="cold compile of wave under 1 s"),
             Target("max", 0.1, impl="tensorfrost: wave warm", text="warm compile of wave under 0.1 s"),
             *(Target("max", goal, impl=f"tensorfrost: {program} {kind}", text=f"{kind} compile of {program} under "
                      f"{goal:g} s") for program in ("mlp_step", "kernels100")
               for kind, goal in (("cold", 1.0), ("warm", 0.05)))],
)

if __name__ == "__main__":
    print(json.dumps(_child(sys.argv[1])))
