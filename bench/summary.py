"""Every target of several runs side by side, as a Markdown table: the goal, the measured
value of each run, the spread between runs, and whether every run met it.

    python -m bench.summary bench/out/run1/results.json bench/out/run2/results.json

A target measured in some runs only (a row left out by ``--only``) shows "-" for the others;
runs made ``--under-load`` mark their rows so that a quiet and a loaded goal stay apart.
``--retarget`` evaluates the targets of today's workloads against each run's rows instead of
taking the targets the run wrote (for runs made before a target changed).
"""

from __future__ import annotations

import argparse
import json


def _key(target: dict, under_load: bool) -> tuple:
    return target["workload"], target["impl"] + (" [under load]" if under_load else ""), target["target"]


def table(runs: list[dict]) -> str:
    """The Markdown table of the targets of ``runs`` (each a loaded results.json)."""
    measured: dict[tuple, list] = {}
    goals: dict[tuple, dict] = {}
    for k, run in enumerate(runs):
        for target in run["targets"]:
            key = _key(target, bool(run["meta"].get("under_load")))
            goals[key] = target
            measured.setdefault(key, [None] * len(runs))[k] = target["measured"]
    header = ["id", "row", "target", "goal", *(f"run {k + 1}" for k in range(len(runs))), "spread", "met"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for key in sorted(measured, key=lambda key: (key[0], key[1])):
        target, values = goals[key], measured[key]
        seen = [v for v in values if v is not None]
        spread = f"{(max(seen) - min(seen)) / min(seen):.0%}" if len(seen) > 1 and min(seen) > 0 else "-"
        hits = [v <= target["goal"] if target["kind"] == "max" else v >= target["goal"] for v in seen]
        met = "not measured" if not seen else ("yes" if all(hits) else "no" if not any(hits) else "in some runs")
        cells = [key[0], key[1], key[2], f"{'<=' if target['kind'] == 'max' else '>='} {target['goal']:g}",
                 *("-" if v is None else f"{v:.3g}" for v in values), spread, met]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def retarget(run: dict) -> dict:
    """``run`` with its targets evaluated by today's workload definitions."""
    from . import report
    from .harness import Result
    from .workloads import all_workloads
    results = [Result(**row) for row in run["results"]]
    stream = (run["meta"].get("stream") or {}).get("median_gbs")
    return dict(run, targets=report.evaluate_targets(results, all_workloads(), stream))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", help="results.json files of python -m bench")
    parser.add_argument("--retarget", action="store_true", help="evaluate today's targets on the runs' rows")
    args = parser.parse_args()
    runs = []
    for path in args.results:
        with open(path) as f:
            runs.append(json.load(f))
    print(table([retarget(run) for run in runs] if args.retarget else runs))


if __name__ == "__main__":
    main()
