"""The trade-off's calibration deltas against `ws` (burst) in a trial's model rows, beside the
committed prediction's and the H200's.

    python3 calibration/validate/h200/predict/fill_extra/tradeoff_deltas.py TRIAL.csv

Each delta is a schedule's burst time over `ws`'s at the same shape, minus one, in percent:
v1, v2 and their `bar.sync` forms at 8192^3 (#56-#59 against #55) and 4096^3 (#61-#64 against
#60). Reads `calibration/validate/results_clock.csv` (the H200's) and `model_clock.csv` (the
committed prediction) from the repository root.
"""
import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
VALIDATE = ROOT / "calibration" / "validate"
PAIRS = {"55": ["56", "57", "58", "59"], "60": ["61", "62", "63", "64"]}


def rows(path):
    with open(path) as f:
        return {r["id"]: r for r in csv.DictReader(f)}


def main():
    measured = rows(VALIDATE / "results_clock.csv")
    current = rows(VALIDATE / "model_clock.csv")
    trial = rows(sys.argv[1])

    def delta(table, key, v, ws):
        return float(table[v][key]) / float(table[ws][key]) * 100 - 100

    within = {"current": 0, "trial": 0}
    distance = {"current": 0.0, "trial": 0.0}
    count = 0
    for ws, variants in PAIRS.items():
        for v in variants:
            m = delta(measured, "meas_burst_ms", v, ws)
            got = {"current": delta(current, "model_burst_ms", v, ws), "trial": delta(trial, "model_burst_ms", v, ws)}
            for name, p in got.items():
                within[name] += abs(p - m) <= 3 and (p > 0) == (m > 0)
                distance[name] += abs(p - m)
            count += 1
            r = measured[v]
            print(
                f"#{v} vs #{ws} {r['variant']:12s} {r['shape']:16s} "
                f"current {got['current']:+6.1f}%  trial {got['trial']:+6.1f}%  H200 {m:+6.1f}%"
            )
    print(
        f"within 3 points with the measured sign: current {within['current']} of {count}, "
        f"trial {within['trial']} of {count}; mean distance "
        f"{distance['current'] / count:.1f} -> {distance['trial'] / count:.1f} points"
    )


if __name__ == "__main__":
    main()
