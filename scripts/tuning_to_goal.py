#!/usr/bin/env python3
"""Evaluations and wall time each search of a tuning-measurements.csv took to
reach issue 18's goal, so tuning.md's "to the goal" columns can be checked
from the published rows without a GPU:

    python3 scripts/tuning_to_goal.py results/published/nvidia-h100-80gb/tuning-measurements.csv

A search's rows are its evaluations in id order (a configuration measured
again by the verdict counts once); the goal is the hand-found reference of
that device and input (g16-pull at 128x128 and 256x256 within 3 %, g15-fast at
1024x1024 within 2 % on CUDA, g17-counted-ocl within 3 % on OpenCL), taken
from the reference rows of the same build when there are any, else of any
build. The time is from the search's first stored measurement to the one that
reached the goal."""
import csv
import sys
from datetime import datetime

GOALS = {  # (backend, input) -> (reference variant, goal)
    ("cuda", "128x128"): ("g16-pull", 0.03),
    ("cuda", "256x256"): ("g16-pull", 0.03),
    ("cuda", "1024x1024"): ("g15-fast", 0.02),
    ("opencl", "1024x1024"): ("g17-counted-ocl", 0.03),
}


def when(row):
    return datetime.strptime(row["created_at"].rstrip("Z"), "%Y-%m-%dT%H:%M:%S.%f")


def main(path):
    rows = list(csv.DictReader(open(path)))
    refs = [r for r in rows if r["strategy"] == "reference" and r["status"] == "ok"]
    searches = {}
    for r in rows:
        if r["strategy"] != "reference":
            searches.setdefault((r["strategy"], r["search"]), []).append(r)
    for (strategy, search), rs in sorted(searches.items()):
        rs.sort(key=lambda r: int(r["id"]))
        backend = rs[0]["device"].split(":")[0]
        variant, goal = GOALS[(backend, rs[0]["input"])]
        cands = [r for r in refs if r["device"] == rs[0]["device"] and r["input"] == rs[0]["input"]
                 and r["variant"] == variant]
        same = [r for r in cands if r["build_commit"] == rs[0]["build_commit"]]
        ref = float((same or cands)[0]["median_s"])
        seen, best, hit = set(), float("inf"), None
        for r in rs:
            key = (r["knobs"], r["wg_x"], r["wg_y"])
            if key in seen:
                continue
            seen.add(key)
            if r["status"] == "ok":
                best = min(best, float(r["median_s"]))
            if hit is None and best <= ref * (1 + goal):
                hit = (len(seen), (when(r) - when(rs[0])).total_seconds())
        to_goal = f"{hit[0]} evaluations, {hit[1]:.1f} s" if hit else "not reached"
        print(f"{strategy:7} {search:34} {rs[0]['device']:11} {rs[0]['input']:10} {variant} {ref * 1e3:.3f} ms "
              f"+{goal:.0%}: {to_goal}; {len(seen)} evaluations, best {best * 1e3:.3f} ms")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "results/published/nvidia-h100-80gb/tuning-measurements.csv")
