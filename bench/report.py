"""The outputs of a run: the text table, the targets check, JSON, Markdown and a PNG chart."""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import textwrap

from . import peers
from .harness import Result, Workload

COLUMNS = ["id", "implementation", "median ms", "metric", "unit", "x best lib", "x C", "BW frac", "check"]


def _fmt(value, spec: str) -> str:
    return "" if value is None else format(value, spec)


def rows(results: list[Result]) -> list[list[str]]:
    """The table as strings, one list per result."""
    out = []
    for r in results:
        if r.status in ("n/a", "error"):
            check = r.status + (": " + r.message if r.message else "")
        elif r.status == "wrong":
            check = f"WRONG ({r.error:.2g})"
        else:
            check = "ok" if r.error is None else f"ok ({r.error:.1g})"
        impl = r.impl + (" [under load]" if r.load else "")
        out.append([r.workload, impl, _fmt(r.median_s and r.median_s * 1e3, ".3f"), _fmt(r.metric, ".4g"),
                    r.unit, _fmt(r.vs_best_library, ".2f"), _fmt(r.vs_c, ".2f"),
                    _fmt(r.bandwidth_fraction, ".2f"), check[:70]])
    return out


def text_table(results: list[Result]) -> str:
    """A fixed-width table for the terminal."""
    table = [COLUMNS] + rows(results)
    widths = [max(len(row[k]) for row in table) for k in range(len(COLUMNS))]
    right = {2, 3, 5, 6, 7}
    lines = []
    for n, row in enumerate(table):
        cells = [cell.rjust(widths[k]) if k in right else cell.ljust(widths[k]) for k, cell in enumerate(row)]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def markdown_table(results: list[Result]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join("---:" if k in (2, 3, 5, 6, 7) else "---"
                                                             for k in range(len(COLUMNS))) + "|"]
    for row in rows(results):
        lines.append("| " + " | ".join(cell.replace("|", "/") for cell in row) + " |")
    return "\n".join(lines)


def evaluate_targets(results: list[Result], workloads: dict[str, Workload], stream_gbs: float | None) -> list[dict]:
    """Each target of the issue against the tensorfrost rows: measured ratio and met/missed."""
    out = []
    for wid, workload in workloads.items():
        rows_ = [r for r in results if r.workload == wid]
        if not rows_:
            continue
        for target in workload.targets:
            for r in rows_:
                if not (r.impl == target.impl if target.exact else r.impl.startswith(target.impl)):
                    continue
                value = _target_value(target, r, rows_) if r.status == "ok" else None
                met = None if value is None else (value <= target.value if target.kind == "max"
                                                  else value >= target.value)
                out.append({"workload": wid, "impl": r.impl, "target": target.text, "kind": target.kind,
                            "goal": target.value, "measured": value, "met": met,
                            "status": r.status})
    return out


def _target_value(target, row: Result, rows_: list[Result]) -> float | None:
    if target.kind == "c":
        return row.vs_c
    if target.kind == "stream":
        return row.bandwidth_fraction
    if target.kind == "max":
        return row.metric
    if target.kind == "peer":
        base = [r.metric for r in rows_ if r.status == "ok" and r.impl in target.peers and r.metric]
        if not base or not row.metric:
            return None
        return row.metric / max(base)
    raise ValueError(f"unknown target kind {target.kind!r}")


def targets_text(targets: list[dict]) -> str:
    lines = []
    for t in targets:
        mark = {True: "met", False: "MISSED", None: "not measured"}[t["met"]]
        measured = "-" if t["measured"] is None else f"{t['measured']:.3g}"
        lines.append(f"  {t['workload']:<3} {t['impl']:<28} {t['target']:<58} {measured:>8}  {mark}")
    return "\n".join(lines)


def machine() -> dict:
    """Where the run happened: CPU model, cores, memory, versions and the git commit."""
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = None
    try:
        with open("/proc/meminfo") as f:
            memory = round(int(f.readline().split()[1]) / 1024 / 1024, 1)
    except (OSError, ValueError, IndexError):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gib": memory, "threads": peers.threads(),
            "python": platform.python_version(), "platform": platform.platform(), "commit": git_commit(),
            "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"), "versions": peers.versions()}


def git_commit() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True, timeout=10)
        return head.stdout.strip() + (" (with uncommitted changes)" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "?"


def write_json(path: str, meta: dict, results: list[Result], targets: list[dict]) -> None:
    with open(path, "w") as f:
        json.dump({"meta": meta, "results": [r.as_dict() for r in results], "targets": targets}, f, indent=1,
                  default=str)


def write_markdown(path: str, meta: dict, results: list[Result], targets: list[dict]) -> None:
    lines = [f"Run of {meta['date']} on {meta['cpu']} ({meta['cores']} cores, {meta['memory_gib']} GiB), "
             f"{meta['threads']} threads, commit {meta['commit']}.", ""]
    if meta.get("under_load"):
        lines += ["Under load: rows marked [under load] were timed beside one busy process per core.", ""]
    if meta.get("stream"):
        s = meta["stream"]
        lines.append(f"STREAM triad ({s['array_mb']} MB arrays): best {s['best_gbs']:.1f} GB/s, "
                     f"median {s['median_gbs']:.1f} GB/s.")
        lines.append("")
    lines += [markdown_table(results), "", "Targets:", "", "| id | row | target | measured | |",
              "|---|---|---|---:|---|"]
    for t in targets:
        measured = "-" if t["measured"] is None else f"{t['measured']:.3g}"
        mark = {True: "met", False: "**missed**", None: "not measured"}[t["met"]]
        lines.append(f"| {t['workload']} | {t['impl']} | {t['target']} | {measured} | {mark} |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def write_png(path: str, results: list[Result], workloads: dict[str, Workload], subtitle: str = "",
              stream_gbs: float | None = None) -> None:
    """One horizontal bar chart per workload, tensorfrost rows highlighted (a log scale
    where the values span more than 30x); bandwidth-bound workloads get a dashed line where
    the STREAM rate would put them."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ids = [w for w in workloads if any(r.workload == w and r.metric for r in results)]
    if not ids:
        return
    cols = min(3, len(ids))
    nrows = (len(ids) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(5.2 * cols, 3.0 * nrows), squeeze=False)
    for ax in axes.flat[len(ids):]:
        ax.axis("off")
    for ax, wid in zip(axes.flat, ids):
        data = [r for r in results if r.workload == wid and r.metric]
        names = [r.impl for r in data]
        values = [r.metric for r in data]
        colors = ["tab:blue" if n.startswith("tensorfrost") else
                  ("tab:gray" if peers.base_impl(n) == "c" else "tab:orange") for n in names]
        ax.barh(range(len(data)), values, color=colors)
        ax.set_yticks(range(len(data)), names, fontsize=8)
        ax.invert_yaxis()
        workload = workloads[wid]
        better = "higher" if workload.higher_is_better else "lower"
        ax.set_title(textwrap.fill(f"{wid}: {workload.title}", 48), fontsize=8)
        if max(values) > 30 * min(values):
            ax.set_xscale("log")
        if stream_gbs and workload.bytes_moved is not None and workload.work is not None:
            params = data[0].params
            limit = stream_gbs * workload.work(params) / (workload.bytes_moved(params) / 1e9)
            ax.axvline(limit, color="black", linestyle="--", linewidth=0.8)
            ax.text(limit, len(data) - 0.5, " STREAM", fontsize=7, va="bottom")
        ax.set_xlabel(f"{data[0].unit} ({better} is better)", fontsize=8)
        ax.tick_params(axis="x", labelsize=8)
        if any(r.status == "wrong" for r in data):
            ax.text(0.99, 0.02, "some results wrong", transform=ax.transAxes, ha="right", fontsize=7, color="red")
    if subtitle:
        fig.suptitle(subtitle, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
