#!/usr/bin/env python3
"""How far apart the FA3 kernel's two consumer warpgroups run, from op timestamps of CTA 0
(`validate op-times --gpu`, ID_gpu_cta0.csv): per main-loop iteration, when each warpgroup's
first warp passes the `S = Q K^T` wgmma's line (`--s-line`, 271 in the FA3 kernel of
examples/attention/hopper.rs as rendered), warpgroup 1's lead or lag on warpgroup 0 as a
share of the iteration, and the median iteration.

    python3 calibration/validate/fa3_turns.py DIR ID [ID ...] [--s-line N]

The marks slow the loop by 30-45%: read the offsets and their order across schedules, not
the cycles."""
import argparse
import csv
import os
import statistics


def turns(path, s_line):
    marks = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["role"] == "consumer" and int(r["line"]) == s_line:
                marks.setdefault(int(r["warp"]), []).append(int(r["cycle"]))
    warps = sorted(marks)
    if len(warps) < 8:
        raise SystemExit(f"{path}: {len(warps)} consumer warps with marks on line {s_line}, expected 8")
    wg0, wg1 = marks[warps[0]], marks[warps[4]]
    n = min(len(wg0), len(wg1))
    core = range(n // 4, n - n // 4)  # steady state: the middle half
    period = statistics.median(wg0[i + 1] - wg0[i] for i in core if i + 1 < n)
    lag = statistics.median(wg1[i] - wg0[i] for i in core)
    return n, period, lag


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", help="directory of ID_gpu_cta0.csv files")
    ap.add_argument("ids", nargs="+", help="configurations")
    ap.add_argument("--s-line", type=int, default=271, help="source line of the S = Q K^T group")
    a = ap.parse_args()
    root, ids, s_line = a.root, a.ids, a.s_line
    print("id   iterations  median iteration  WG1's S after WG0's (median)  share")
    for cid in ids:
        n, period, lag = turns(os.path.join(root, f"{cid}_gpu_cta0.csv"), s_line)
        print(f"{cid:>3} {n:>11} {period:>17.0f} {lag:>29.0f} {lag / period:>6.0%}")


if __name__ == "__main__":
    main()
