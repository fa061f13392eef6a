#!/usr/bin/env python3
"""Each FA3 schedule's burst time split into a cost per CTA and a cost per main-loop
iteration, on the H200 and in the model, by least squares over the non-causal shapes of the
split (seq 1024-16384 at b x seq = 16384, so every launch has the same waves and a CTA walks
seq / 128 key blocks): time = waves x (fixed + blocks x per_iteration). Times are in cycles
at 1.8 GHz, about the burst clock of every FA3 row on both (measured 1.79, predicted 1.81).

    python3 fa3_fixed_cost.py split.csv results.csv [results_before.csv]

`results.csv` is what `validate report --out` writes (measured and predicted burst times);
with a second one its predictions are shown beside (the model before a change).
"""

import csv
import math
import sys
from collections import defaultdict

SMS = 132
BM = BN = 128
GHZ = 1.8


def fit(points):
    """Least squares of y = a * x0 + b * x1 over (x0, x1, y)."""
    a = sum(x0 * x0 for x0, _, _ in points)
    b = sum(x0 * x1 for x0, x1, _ in points)
    c = sum(x1 * x1 for _, x1, _ in points)
    p = sum(x0 * y for x0, _, y in points)
    q = sum(x1 * y for _, x1, y in points)
    det = a * c - b * b
    return (c * p - b * q) / det, (a * q - b * p) / det


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: fa3_fixed_cost.py SPLIT RESULTS [RESULTS_BEFORE]")
    split = {r["id"]: r for r in csv.DictReader(open(sys.argv[1])) if r["family"] == "fa3"}
    files = [{r["id"]: r for r in csv.DictReader(open(f))} for f in sys.argv[2:]]
    series = defaultdict(list)
    for cid, c in split.items():
        if c["causal"] == "1" or any(cid not in f or not f[cid]["meas_burst_ms"] for f in files):
            continue
        b, h, s = int(c["batch"]), int(c["heads"]), int(c["seq"])
        waves = math.ceil(b * h * (s // BM) / SMS)
        blocks = s // BN
        cycles = lambda ms: float(ms) * 1e-3 * GHZ * 1e9
        times = [cycles(files[0][cid]["meas_burst_ms"])] + [cycles(f[cid]["pred_burst_ms"]) for f in files]
        series[(int(c["d"]), c["variant"])].append((waves, blocks, times))
    heads = ["H200", "model"] + (["model before"] if len(files) > 1 else [])
    print(f"{'d':>4} {'schedule':<17} " + " ".join(f"{h + ' per CTA':>18} {h + ' per it.':>18}" for h in heads))
    for (d, variant), rows in sorted(series.items()):
        cols = []
        for i in range(len(heads)):
            fixed, per_it = fit([(w, w * bl, t[i]) for w, bl, t in rows])
            cols.append(f"{fixed:18.0f} {per_it:18.0f}")
        print(f"{d:>4} {variant:<17} " + " ".join(cols) + f"   ({len(rows)} shapes)")


if __name__ == "__main__":
    main()
