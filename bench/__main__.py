"""``python -m bench``: run the workloads of issue 7 beside the peers and report.

    python -m bench                      # full sizes, every installed peer (several minutes)
    python -m bench --quick              # CI sizes (under 2 minutes)
    python -m bench --only W1,W3 --impls tensorfrost,c,numpy
    python -m bench --only W6 --under-load   # timed beside one busy process per core

Writes ``bench/out/results.json``, ``results.png`` and ``results.md`` (``--out`` to change).
The exit status is 1 when any result disagrees with numpy or a tensorfrost row fails.

A full run measures each workload in a fresh child process: the thread pools, allocators and
JIT caches that one library leaves behind slowed the libraries measured after it by up to
2.5x in one long-lived process, and a crash in one peer only loses that workload's rows.
``--quick`` (whose timings only show that everything runs) keeps them in this process, as
``--in-process`` does for a full run; ``--isolated`` forces child processes.
"""

from __future__ import annotations

import argparse
import os
import sys
import time


def parse(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes and few repeats (CI)")
    ap.add_argument("--only", default="", help="comma-separated workload ids, e.g. W1,W3,C2")
    ap.add_argument("--impls", default="", help="comma-separated implementations (default: all installed): "
                    "tensorfrost,c,numpy,numba,jax,torch,torch.compile,taichi")
    ap.add_argument("--skip", default="", help="comma-separated implementations to leave out")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="threads for every library")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "out"),
                    help="directory for results.json / .png / .md")
    ap.add_argument("--no-stream", action="store_true", help="skip the STREAM triad")
    ap.add_argument("--stream-mb", type=int, default=None, help="STREAM array size in MB (default 256, quick 64)")
    ap.add_argument("--under-load", action="store_true",
                    help="time every row while one busy process per core competes (rows say so)")
    ap.add_argument("--list", action="store_true", help="list the workloads and implementations, then exit")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--in-process", dest="isolated", action="store_false", default=None,
                       help="run every workload in this process (the default with --quick)")
    where.add_argument("--isolated", dest="isolated", action="store_true",
                       help="run each workload in a fresh process (the default without --quick)")
    ap.add_argument("--worker-json", default=None, help=argparse.SUPPRESS)  # child mode: rows to this file
    return ap.parse_args(argv)


def main(argv=None) -> int:
    args = parse(argv)
    from . import peers
    peers.configure_threads(args.threads)  # before numpy, jax, torch... are imported

    from . import cbuild, load, report
    from .harness import annotate, run_workload, run_workload_in_child, write_rows
    from .workloads import all_workloads

    workloads = all_workloads()
    load.configure((os.cpu_count() or 1) if args.under_load else 0)
    if args.list:
        for wid, w in workloads.items():
            names = ", ".join(n + ("" if peers.available(n) else " (not installed)") for n in w.impls)
            print(f"{wid:<3} {w.title} [{w.metric}]: {names}")
        return 0
    only = [w.strip().upper() for w in args.only.split(",") if w.strip()]
    unknown = [w for w in only if w not in workloads]
    if unknown:
        print(f"unknown workload(s) {', '.join(unknown)}; known: {', '.join(workloads)}", file=sys.stderr)
        return 2
    chosen = {wid: w for wid, w in workloads.items() if not only or wid in only}
    impls = [i.strip() for i in args.impls.split(",") if i.strip()] or list(peers.IMPLS)
    skip = {i.strip() for i in args.skip.split(",") if i.strip()}
    impls = [i for i in impls if i not in skip]

    if args.worker_json:
        write_rows(args.worker_json, [r for w in chosen.values() for r in run_workload(w, args.quick, impls)])
        return 0

    meta = report.machine()
    meta.update({"quick": args.quick, "impls": impls, "under_load": args.under_load})
    print(f"bench: {meta['cpu']}, {meta['cores']} cores, {meta['threads']} threads, commit {meta['commit']}")
    if args.under_load:
        print(f"under load: {load.busy_count()} busy processes compete while each workload is timed")
    print(f"peers installed: {', '.join(n for n in peers.IMPLS if peers.available(n))}")
    start = time.perf_counter()
    stream_gbs = None
    if not args.no_stream and peers.available("c"):
        megabytes = args.stream_mb or (64 if args.quick else 256)
        meta["stream"] = cbuild.stream_triad(megabytes, repeats=5 if args.quick else 10)
        # Rows are medians, so they are compared with the median STREAM rate, not its best rep.
        stream_gbs = meta["stream"]["median_gbs"]
        print(f"STREAM triad ({megabytes} MB arrays): best {stream_gbs:.1f} GB/s, "
              f"median {meta['stream']['median_gbs']:.1f} GB/s")

    results = []
    for wid, workload in chosen.items():
        print(f"{wid}: {workload.title}")
        if args.isolated or (args.isolated is None and not args.quick):
            results += run_workload_in_child(workload, args.quick, impls, args.threads)
        else:
            results += run_workload(workload, args.quick, impls)
    # Quick sizes fit in the caches: a fraction of the DRAM bandwidth would mean nothing.
    annotate(results, workloads, None if args.quick else stream_gbs)
    targets = report.evaluate_targets(results, chosen, stream_gbs)
    meta["seconds"] = round(time.perf_counter() - start, 1)

    print()
    print(report.text_table(results))
    if targets:
        print("\ntargets (tensorfrost rows):")
        print(report.targets_text(targets))
    os.makedirs(args.out, exist_ok=True)
    paths = {ext: os.path.join(args.out, f"results.{ext}") for ext in ("json", "md", "png")}
    report.write_json(paths["json"], meta, results, targets)
    report.write_markdown(paths["md"], meta, results, targets)
    try:
        subtitle = f"{meta['cpu']}, {meta['threads']} threads, {meta['date']}"
        subtitle += " (quick sizes)" if args.quick else ""
        report.write_png(paths["png"], results, chosen, subtitle, None if args.quick else stream_gbs)
    except ImportError:
        paths.pop("png")
        print("(no PNG: matplotlib is not installed; pip install -e '.[bench]')")
    print(f"\nwrote {', '.join(paths.values())} in {meta['seconds']} s")
    failed = [r for r in results if r.status == "wrong" or (r.status == "error" and r.impl.startswith("tensorfrost"))]
    for r in failed:
        print(f"FAILED: {r.workload} {r.impl}: {r.status} {r.message}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
