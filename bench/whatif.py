"""What-if experiments: tensorfrost's own generated C++, edited the way a proposed change to
the code generator would edit it, timed against the unedited program.

    python -m bench.whatif                   # every experiment, full sizes
    python -m bench.whatif --only W1,W7 --quick --threads 1

Each experiment compiles a benchmark program through tensorfrost with a hook on the C++
build (``backend_cpu.runtime.build_library``) that rewrites the source and/or adds g++
flags, checks the result against numpy like ``python -m bench`` does, and times it. The
rewrites are regular expressions over today's generated code: when the code generator
changes they may stop matching, and the row then says "not applied" instead of timing the
unchanged program twice. Runs of a variant alternate with runs of the baseline (and of the
hand-written C, when the workload has one) so that load from other processes hits them
alike; "speedup" is the ratio of the medians, "x C" the variant's speed over the C's.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# libmvec has SIMD variants of these (glibc >= 2.35 for tanh); ``tf_<name>`` maps to them.
MVEC = ("sin", "cos", "exp", "log", "tanh", "tan", "exp2", "log2", "sinh", "cosh", "asin", "acos", "atan")


def mvec(source: str) -> str:
    """Route the prelude's scalar math through aliases of sinf/cosf/... that carry
    ``__attribute__((simd))``, so the vectorizer calls libmvec (link with -lmvec). Unlike
    -ffast-math this keeps IEEE semantics elsewhere, and the aliases are not builtins, so
    gcc cannot merge sin+cos into sincosf (which has no SIMD variant)."""
    decls = "\n".join(f'__attribute__((simd("notinbranch"), const, nothrow)) float tf_mvec_{f}f(float) '
                      f'__asm__("{f}f");' for f in MVEC)
    block = f'extern "C" {{\n{decls}\n}}\n'
    out, count = re.subn(r"(static inline float tf_(\w+)\(float a\) \{ return )std::(\w+)\(a\); \}",
                         lambda m: (f"{m.group(1)}tf_mvec_{m.group(3)}f(a); }}" if m.group(3) in MVEC
                                    else m.group(0)), source)
    if count == 0:
        return source
    last_include = max(m.end() for m in re.finditer(r"#include <[^>]+>\n", out))
    return out[:last_include] + block + out[last_include:]


def register_accumulators(source: str) -> str:
    """A reduction that accumulates in its output buffer (``out[tf_t] = 0.0f; for (...) {
    x = out[tf_t]; out[tf_t] = x + ...; }``) accumulates in a local float instead, stored
    once after the loop."""
    pattern = re.compile(r"(?m)^(?P<ind>\s*)(?P<buf>\w+)\[tf_t\] = 0\.0f;\n(?P=ind)(?P<head>for \(.*\{\n)"
                         r"(?P<body>(?:(?P=ind)    .*\n)+?)(?P=ind)\}\n")

    def rewrite(m: re.Match) -> str:
        ind, buf, body = m.group("ind"), m.group("buf"), m.group("body")
        acc = f"{buf}_acc"
        load = re.search(rf"[ \t]*const float (\w+) = {buf}\[tf_t\];\n", body)
        if not load:
            return m.group(0)
        body = body.replace(load.group(0), "")
        body = re.sub(rf"\b{load.group(1)}\b", acc, body)
        body = body.replace(f"{buf}[tf_t] = ", f"{acc} = ")
        return f"{ind}float {acc} = 0.0f;\n{ind}{m.group('head')}{body}{ind}}}\n{ind}{buf}[tf_t] = {acc};\n"
    return pattern.sub(rewrite, source)


_REDUCTION = re.compile(r"(?m)^(?P<ind>\s*)float (?P<acc>\w+) = 0\.0f;\n(?P=ind)for \(int32_t (?P<v>\w+) = 0; "
                        r"(?P=v) < (?P<n>\w+); (?P=v) \+= 1\) \{\n(?P<body>(?:(?P=ind)    .*\n)+?)(?P=ind)\}\n"
                        r"(?P=ind)(?P<store>\w+\[tf_t\] = (?P=acc);)\n")


def _adjacent_runs(matches, same: tuple):
    """Runs of two or more matches that follow each other in the source with no gap and
    agree on the groups ``same``."""
    run: list = []
    for m in matches:
        if run and m.start() == run[-1].end() and all(m.group(g) == run[0].group(g) for g in same):
            run.append(m)
            continue
        if len(run) > 1:
            yield run
        run = [m]
    if len(run) > 1:
        yield run


def fuse_reductions(source: str) -> str:
    """Merge adjacent reduction loops over the same range into one loop with several
    accumulators (after ``register_accumulators``), so values they share (the n-body's
    r^2, sqrt and division) are computed once per pair instead of once per reduction."""
    source = register_accumulators(source)
    out, pos = [], 0
    for group in _adjacent_runs(_REDUCTION.finditer(source), ("n", "ind")):
        first = group[0]
        ind, v = first.group("ind"), first.group("v")
        accs = [b.group("acc") for b in group]
        bodies = "".join(re.sub(rf"\b{b.group('v')}\b", v, b.group("body")) for b in group)
        merged = "".join(f"{ind}float {a} = 0.0f;\n" for a in accs)
        merged += f"{ind}for (int32_t {v} = 0; {v} < {first.group('n')}; {v} += 1) {{\n{bodies}{ind}}}\n"
        merged += "".join(f"{ind}{b.group('store')}\n" for b in group)
        out.append(source[pos:first.start()] + merged)
        pos = group[-1].end()
    return "".join(out) + source[pos:]


def fuse_lane_reductions(source: str) -> str:
    """The same for lane-tiled kernels (a8e9459): adjacent pairs of (zero the lanes' outputs,
    loop over the reduced axis with an inner loop over the lanes) over the same range become
    one zeroing loop and one reduction loop whose lane loop does every reduction."""
    pair = re.compile(
        r"(?m)(?P<init>^(?P<ind>[ \t]*)for \(int32_t tf_l = 0; tf_l < (?P<w>\w+); tf_l\+\+\) \{\n"
        r"(?:(?P=ind)    .*\n)*?(?P=ind)    \w+\[tf_t\] = 0\.0f;\n(?P=ind)\}\n)"
        r"(?P=ind)for \(int32_t (?P<v>\w+) = 0; (?P=v) < (?P<n>\w+); (?P=v) \+= 1\) \{\n"
        r"(?P<pre>(?:(?P=ind)    (?!for ).*\n)*)"
        r"(?P=ind)    for \(int32_t tf_l = 0; tf_l < (?P=w); tf_l\+\+\) \{\n"
        r"(?P<lane>(?:(?P=ind)        .*\n)*?)(?P=ind)    \}\n(?P=ind)\}\n")
    out, pos = [], 0
    for group in _adjacent_runs(pair.finditer(source), ("ind", "w", "n")):
        first = group[0]
        ind, v, w = first.group("ind"), first.group("v"), first.group("w")
        pre, lane = "", ""
        for n, m in enumerate(group):
            old = re.compile(rf"\b{m.group('v')}\b")
            pre += old.sub(v, m.group("pre"))
            body = old.sub(v, m.group("lane"))
            if n:
                body = re.sub(r"(?m)^\s*const int32_t (i\d+|tf_t) = .*\n", "", body)
            lane += body
        merged = "".join(m.group("init") for m in group)
        merged += (f"{ind}for (int32_t {v} = 0; {v} < {first.group('n')}; {v} += 1) {{\n{pre}"
                   f"{ind}    for (int32_t tf_l = 0; tf_l < {w}; tf_l++) {{\n{lane}{ind}    }}\n{ind}}}\n")
        out.append(source[pos:first.start()] + merged)
        pos = group[-1].end()
    return "".join(out) + source[pos:]


def simd_reduce(source: str) -> str:
    """``#pragma omp simd reduction(+:acc)`` on every loop that starts right after a float
    accumulator is zeroed (the lowered tf.sum): vectorizes the reduction without -ffast-math.
    Reductions that accumulate in memory are first given a register accumulator."""
    source = register_accumulators(source)
    pattern = r"(?m)^(?P<ind>\s*)(?P<decls>(?:(?P=ind)?float \w+ = 0\.0f;\n)+)(?P=ind)for \("

    def rewrite(m: re.Match) -> str:
        accs = ",".join(re.findall(r"float (\w+) = 0\.0f;", m.group("decls")))
        ind = m.group("ind")
        return f"{ind}{m.group('decls')}{ind}#pragma omp simd reduction(+:{accs})\n{ind}for ("
    return re.sub(pattern, rewrite, source)


def split_inner(source: str) -> str:
    """Peel the first and last iteration of each kernel's innermost grid loop; in the interior
    copy drop ``tf_clamp_index(x, N)`` on that loop's axis (valid for offsets of -1..+1, which
    is what the wave stencil uses; a real pass would take the range from the offsets)."""
    pattern = re.compile(r"(?m)^(?P<ind>\s*)for \(int32_t (?P<v>i\d+) = 0; (?P=v) < (?P<n>\w+); (?P=v)\+\+\) \{\n"
                         r"(?P<body>(?:(?P=ind)    .*\n)+?)(?P=ind)\}\n")

    def rewrite(m: re.Match) -> str:
        ind, v, n, body = m.group("ind"), m.group("v"), m.group("n"), m.group("body")
        if "for (" in body:  # not the innermost loop: look inside
            head = m.group(0)[:m.start("body") - m.start()]
            return f"{head}{pattern.sub(rewrite, body)}{ind}}}\n"
        if "tf_t = " not in body or "tf_clamp_index" not in body:
            return m.group(0)
        interior = re.sub(rf"tf_clamp_index\((\w+), {n}\)", r"(\1)", body)
        head = f"{ind}for (int32_t {v} = 0; {v} < ({n} < 1 ? {n} : 1); {v}++) {{\n{body}{ind}}}\n"
        mid = f"{ind}for (int32_t {v} = 1; {v} < {n} - 1; {v}++) {{\n{interior}{ind}}}\n"
        tail = f"{ind}for (int32_t {v} = ({n} - 1 > 1 ? {n} - 1 : 1); {v} < {n}; {v}++) {{\n{body}{ind}}}\n"
        return head + mid + tail
    return pattern.sub(rewrite, source)


_FUNCTION = re.compile(r"static (?:__attribute__\(\(noinline\)\) )?void (?P<name>\w+)\((?P<params>[^)]*)\) \{\n"
                       r"(?P<body>(?:    .*\n|\n)*?)\}\n")


def _matmul_parts(text: str) -> dict | None:
    """A, B, C, n, k, m of a lowered ``sum(A[i,k] * B[k,j], axis=2)`` kernel (its dispatch
    function and, when the code generator splits one off, its rows function), or None."""
    a = re.search(r"= (\w+)\[\(i0\) \* (\w+) \+ (v_\d+)\];", text)
    if not a:
        return None
    b = re.search(rf"= (\w+)\[\({a.group(3)}\) \* (\w+) \+ i1\];", text)
    c = re.search(r"(\w+)\[tf_t\] = ", text)
    n = re.search(r"(?:\bi0|tf_row0) < (\w+)[;)]", text)
    if not (b and c and n):
        return None
    return {"a": a.group(1), "k": a.group(2), "b": b.group(1), "m": b.group(2), "c": c.group(1), "n": n.group(1)}


def _replace_matmul(source: str, make_body) -> str:
    """Give every matmul kernel's dispatch function a new body (its rows function, if any,
    is left unused)."""
    functions = {m.group("name"): m for m in _FUNCTION.finditer(source)}

    def rewrite(m: re.Match) -> str:
        name = m.group("name")
        if name.endswith("_rows") or "_k" not in name:
            return m.group(0)
        rows = functions.get(name + "_rows")
        parts = _matmul_parts((rows.group("body") if rows else "") + m.group("body"))
        if parts is None:
            return m.group(0)
        return f"static void {name}({m.group('params')}) {{\n{make_body(parts)}}}\n"
    return _FUNCTION.sub(rewrite, source)


def matmul_ikj(source: str) -> str:
    """Lower the matmul kernel in i-k-j order: the inner loop runs along rows of B and C
    (contiguous, vectorized), instead of a dot product down a column of B."""
    def body(p):
        return (f"    #pragma omp parallel for schedule(static)\n"
                f"    for (int32_t i0 = 0; i0 < {p['n']}; i0++) {{\n"
                f"        float* __restrict row = {p['c']} + (long long)i0 * {p['m']};\n"
                f"        for (int32_t j = 0; j < {p['m']}; j++) row[j] = 0.0f;\n"
                f"        for (int32_t q = 0; q < {p['k']}; q++) {{\n"
                f"            const float s = {p['a']}[(long long)i0 * {p['k']} + q];\n"
                f"            const float* __restrict brow = {p['b']} + (long long)q * {p['m']};\n"
                f"            for (int32_t j = 0; j < {p['m']}; j++) row[j] += s * brow[j];\n"
                f"        }}\n    }}\n")
    return _replace_matmul(source, body)


def matmul_tiled(source: str) -> str:
    """Replace the matmul kernel's body by a call of bench/c/matmul_tiled.h (packed B strips,
    6x32 register blocks): the code a tiled lowering of matmul would emit."""
    with open(os.path.join(HERE, "c", "matmul_tiled.h")) as f:
        helper = f.read()
    out = _replace_matmul(source, lambda p: f"    bench_matmul_tiled({p['a']}, {p['b']}, {p['c']}, {p['n']}, "
                                            f"{p['k']}, {p['m']});\n")
    if out == source:
        return source
    at = out.index("// ---- kernels") if "// ---- kernels" in out else out.index("static void")
    return out[:at] + helper + "\n" + out[at:]


def index64(source: str) -> str:
    """Flat indices in 64-bit arithmetic (``[(long long)(i0) * n + j]``, ``long long tf_t``):
    with -fwrapv, int32 index math may wrap, so gcc cannot treat the address as affine in
    the loop counter and falls back to gathers or scalar code; in 64 bits it can."""
    source = re.sub(r"\[\((tf_clamp_index\([^()]*\)|\w+)\) \* ", r"[(long long)(\1) * ", source)
    source = source.replace("const int32_t tf_t = i0 * ", "const long long tf_t = (long long)i0 * ")
    return source.replace("const int32_t tf_t = i0;", "const long long tf_t = i0;")


def row_reduce_simd(source: str) -> str:
    """A kernel that only sums rows (one load ``A[(i0) * m + k]``, one store) becomes a loop
    over rows whose reduction runs along the contiguous axis with ``omp simd reduction``:
    vectorized along k, instead of lanes across rows (stride m, a gather per step)."""
    functions = {m.group("name"): m for m in _FUNCTION.finditer(source)}

    def rewrite(m: re.Match) -> str:
        name = m.group("name")
        rows = functions.get(name + "_rows")
        text = (rows.group("body") if rows else "") + m.group("body")
        loads = set(re.findall(r"= (\w+)\[\(i0\) \* (\w+) \+ (v_\d+)\];", text))
        stores = set(re.findall(r"(\w+)\[tf_t\] = v_\d+(?:\[tf_l\])?;", text))
        n = re.search(r"\((\w+) \+ \d+\) / \d+|\bi0 < (\w+)[;)]", text)
        if name.endswith("_rows") or len(loads) != 1 or len(stores) != 1 or not n:
            return m.group(0)
        (a, cols, _), c = loads.pop(), stores.pop()
        count = n.group(1) or n.group(2)
        return (f"static void {name}({m.group('params')}) {{\n"
                f"    #pragma omp parallel for schedule(static)\n"
                f"    for (int32_t i0 = 0; i0 < {count}; i0++) {{\n"
                f"        const float* __restrict row = {a} + (long long)i0 * {cols};\n"
                f"        float acc = 0.0f;\n"
                f"        #pragma omp simd reduction(+:acc)\n"
                f"        for (int32_t k = 0; k < {cols}; k++) acc += row[k];\n"
                f"        {c}[i0] = acc;\n    }}\n}}\n")
    return _FUNCTION.sub(rewrite, source)


def schedule_dynamic(source: str) -> str:
    """``schedule(dynamic, 1)`` instead of ``schedule(static)`` (rows of unequal cost)."""
    return source.replace("schedule(static)", "schedule(dynamic, 1)")


def both(*transforms):
    def run(source: str) -> str:
        for t in transforms:
            source = t(source)
        return source
    return run


# (workload, variant, transform or None, extra g++ flags, what it stands for). "not applied"
# rows are changes the code generator has made already (or whose pattern it no longer emits).
EXPERIMENTS = [
    ("W1", "-ffast-math", None, "-ffast-math", "the issue's C flags on tensorfrost's code"),
    ("W1", "libmvec aliases", mvec, "-lmvec", "vector math without -ffast-math"),
    ("W2", "-fno-wrapv", None, "-fno-wrapv", "index arithmetic the compiler may assume not to wrap"),
    ("W2", "64-bit indices", index64, "", "keeps -fwrapv"),
    ("W2", "split border/interior + 64-bit", both(split_inner, index64), "", "for code without the split"),
    ("W3", "schedule(dynamic,1)", schedule_dynamic, "", "load balance of rows"),
    ("W4", "-fno-wrapv", None, "-fno-wrapv", ""),
    ("W4", "omp simd reduction", simd_reduce, "", "vectorized j loops"),
    ("W4", "fused reductions", fuse_reductions, "", "one j loop, three accumulators"),
    ("W4", "fused lane-tiled reductions", fuse_lane_reductions, "", "the same for lane-tiled kernels"),
    ("W4", "fused + simd + fast + no-wrapv", both(fuse_reductions, simd_reduce), "-ffast-math -fno-wrapv", ""),
    ("W4", "fused + simd + fast + 64-bit idx", both(fuse_reductions, simd_reduce, index64), "-ffast-math", ""),
    ("W5", "-fno-wrapv", None, "-fno-wrapv", ""),
    ("W5", "i-k-j loop order", matmul_ikj, "", "contiguous inner loop"),
    ("W5", "tiled (matmul_tiled.h)", matmul_tiled, "-ffast-math", "register + cache tiling"),
    ("W7", "-fno-wrapv", None, "-fno-wrapv", ""),
    ("W7", "omp simd reduction", simd_reduce, "", "vectorized row sums"),
    ("W7", "simd reduction + no-wrapv", simd_reduce, "-fno-wrapv", ""),
    ("W7", "simd reduction + 64-bit indices", both(simd_reduce, index64), "", "keeps -fwrapv"),
    ("W7", "reduce along the row (omp simd)", row_reduce_simd, "", "instead of lanes across rows"),
]


@contextlib.contextmanager
def patched_build(transform, flags: str):
    """While active, every program tensorfrost builds goes through ``transform`` and gets
    ``flags``; yields a list that records whether the transform changed each source (a large
    program is a list of translation units: the transform edits each)."""
    from tensorfrost import optimizations
    from tensorfrost.backend_cpu import runtime
    original = runtime.build_library
    changed: list[bool] = []

    def build(source, name, extra_flags="", **options):
        if name == "tf_pool":  # the C buffer pool, not a program
            return original(source, name, extra_flags, **options)
        if transform is None:
            new = source
        else:
            new = transform(source) if isinstance(source, str) else [transform(unit) for unit in source]
        changed.append(new != source)
        return original(new, name, " ".join(f for f in (extra_flags, flags) if f), **options)
    # No program cache meanwhile: a hit would skip the edit, and an edited program stored
    # under its traced key would stand in for the unedited one afterwards.
    runtime.build_library = build
    try:
        with optimizations.disabled("program_cache"):
            yield changed
    finally:
        runtime.build_library = original


def run_experiment(workload, variant: str, transform, flags: str, quick: bool, inputs, params, reference):
    """Time the baseline and the variant alternately; returns a dict for the table."""
    import numpy as np

    from .harness import default_check
    impl = workload.impls["tensorfrost"]
    base_run, base_fetch = impl(inputs, params)
    with patched_build(transform, flags) as changed:
        try:
            var_run, var_fetch = impl(inputs, params)
        except Exception as e:  # noqa: BLE001 - a failed variant is a row of the table
            return {"variant": variant, "status": f"error: {type(e).__name__}: {str(e)[:200]}"}
    if transform is not None and not any(changed):
        return {"variant": variant, "status": "not applied (pattern not found in today's code)"}
    error = (workload.check or default_check)(var_fetch(var_run()), reference)
    base_fetch(base_run())
    runs = [(base_run, []), (var_run, [])]
    if "c" in workload.impls:
        c_run, _ = workload.impls["c"](inputs, params)
        c_run()
        runs.append((c_run, []))
    start, budget = time.perf_counter(), (1.0 if quick else 6.0)
    while len(runs[0][1]) < 3 or (time.perf_counter() - start < budget and len(runs[0][1]) < 30):
        for run, times in runs:
            t0 = time.perf_counter()
            run()
            times.append(time.perf_counter() - t0)
    base, var = (float(np.median(times)) for _, times in runs[:2])
    status = "ok" if error <= workload.tolerance else f"WRONG (error {error:.2g})"
    return {"variant": variant, "status": status, "base_ms": base * 1e3, "variant_ms": var * 1e3,
            "speedup": base / var, "metric": workload.work(params) / var if workload.work else None,
            "vs_c": float(np.median(runs[2][1])) / var if len(runs) > 2 else None}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.whatif", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args(argv)
    from . import peers
    peers.configure_threads(args.threads)
    import numpy as np

    from .workloads import all_workloads
    peers.limit_threads("tensorfrost")
    workloads = all_workloads()
    only = {w.strip().upper() for w in args.only.split(",") if w.strip()}
    print(f"what-if on {args.threads} thread(s), {'quick' if args.quick else 'full'} sizes")
    print(f"{'id':<3} {'variant':<30} {'base ms':>9} {'variant ms':>10} {'speedup':>8}  {'metric':>10}  "
          f"{'x C':>5}  status")
    for wid in dict.fromkeys(e[0] for e in EXPERIMENTS):
        if only and wid not in only:
            continue
        workload = workloads[wid]
        params = dict(workload.sizes["quick" if args.quick else "full"])
        inputs = workload.inputs(params, np.random.default_rng(20261129))
        reference = workload.reference(inputs, params)
        for _, variant, transform, flags, _why in (e for e in EXPERIMENTS if e[0] == wid):
            row = run_experiment(workload, variant, transform, flags, args.quick, inputs, params, reference)
            if "speedup" in row:
                vs_c = "" if row["vs_c"] is None else f"{row['vs_c']:.2f}"
                print(f"{wid:<3} {variant:<30} {row['base_ms']:9.2f} {row['variant_ms']:10.2f} "
                      f"{row['speedup']:7.2f}x  {row['metric'] or 0:10.4g}  {vs_c:>5}  {row['status']}", flush=True)
            else:
                print(f"{wid:<3} {variant:<30} {'':>9} {'':>10} {'':>8}  {'':>10}  {'':>5}  {row['status']}",
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
