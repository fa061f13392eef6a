#!/usr/bin/env python3
"""Summarises item 23 (bench_sched.cu): how one sub-partition shares its issue slot.

Reads sched.csv (one row per warp and repetition: clock64 stamps after each chunk, relative
to the CTA's earliest start) and prints, per instruction kind and warps per sub-partition:
- alone: cycles per chunk of one warp alone on its sub-partition (4 warps in the CTA);
- first, last: when the first and the last warp of a sub-partition finish, in units of the
  time alone (two warps sharing strictly in turn: both near 2; one served first: 1 and 2);
- progress: how far (share of its chunks) each other warp of the sub-partition had come
  when the first finished (in turn: near 1; one served first: near 0);
- oldest first: share of sub-partitions whose first finisher was its lowest-numbered warp.
Medians over repetitions and sub-partitions.
Usage: sched_summary.py sched.csv
"""
import csv
import statistics
import sys
from collections import defaultdict


def progress_at(stamps, t):
    """Chunks completed by time t (linear within a chunk), as a share of all."""
    n = len(stamps) - 1
    if t <= stamps[0]:
        return 0.0
    for c in range(1, n + 1):
        if stamps[c] >= t:
            span = stamps[c] - stamps[c - 1]
            return (c - 1 + (t - stamps[c - 1]) / span if span else c) / n
    return 1.0


def main(path):
    runs = defaultdict(lambda: defaultdict(dict))  # (kind, warps) -> rep -> warp -> stamps
    with open(path) as f:
        for row in csv.DictReader(f):
            stamps = [int(row["start"])] + [int(row[k]) for k in row if k.startswith("c")]
            runs[(row["kind"], int(row["warps"]))][int(row["rep"])][int(row["warp"])] = stamps
    alone = {}
    for (kind, warps), reps in runs.items():
        if warps == 4:
            ends = [s[-1] - s[0] for r in reps.values() for s in r.values()]
            alone[kind] = statistics.median(ends)
    print("kind   warps/SMSP  alone(cyc/chunk)  first/alone  last/alone  progress  oldest-first")
    for (kind, warps) in sorted(runs, key=lambda k: (k[0], k[1])):
        reps = runs[(kind, warps)]
        t1 = alone[kind]
        chunks = len(next(iter(next(iter(reps.values())).values()))) - 1
        if warps == 4:
            print(f"{kind:6} {1:>10}  {t1 / chunks:16.1f}  {1.0:11.2f}  {1.0:10.2f}  {'-':>8}  {'-':>12}")
            continue
        firsts, lasts, progress, oldest = [], [], [], []
        for r in reps.values():
            for smsp in range(4):
                ws = sorted(w for w in r if w % 4 == smsp)
                ends = {w: r[w][-1] for w in ws}
                first = min(ws, key=lambda w: ends[w])
                firsts.append(ends[first] / t1)
                lasts.append(max(ends.values()) / t1)
                progress += [progress_at(r[w], ends[first]) for w in ws if w != first]
                oldest.append(1.0 if first == ws[0] else 0.0)
        print(
            f"{kind:6} {warps // 4:>10}  {t1 / chunks:16.1f}  {statistics.median(firsts):11.2f}"
            f"  {statistics.median(lasts):10.2f}  {statistics.median(progress):8.2f}"
            f"  {sum(oldest) / len(oldest):12.2f}"
        )


if __name__ == "__main__":
    main(sys.argv[1])
