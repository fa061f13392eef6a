#!/usr/bin/env python3
"""Calibration item 30's table: the trade-off schedules alone on one SM and in one wave, the
H200 against the model, in SM cycles a k-step.

    python3 calibration/validate/one_sm.py [DIR]   (default calibration/results/one_sm)

The H200's cycles: one launch of each row under Nsight Compute, clocks free
(DIR/clock/validate_none.csv, `ncu_clock.sh` on `one_sm.csv`; launch order in
validate_status.csv), and for the one-SM rows also the burst (DIR/plain/phases.csv, median
of 10 warm launches) at the clock Nsight Compute counted (one CTA runs at the boost clock,
1.958 GHz; the single launch is up to 3% longer). The error is against the burst where there
is one. Without loads: DIR/free/phases.csv's burst at the same clock (one-SM rows only). The model's: DIR/model.csv and DIR/model_free.csv (`validate run --split
calibration/validate/one_sm.csv [--copies-free]`), DIR/model_before*.csv (the model before
`Instr::TryWait`; one-SM rows, whose cycles do not depend on the clock). Per k-step of a CTA,
epilogues included."""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ncu_clock import launches  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "calibration/results/one_sm")


def rows(path):
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return {r["id"]: r for r in csv.DictReader(f)}


def bursts(path):
    with open(path) as f:
        return {r["workload"].split()[0].lstrip("#"): float(r["median_ms"]) for r in csv.DictReader(f) if r["phase"] == "burst"}


split = rows(os.path.join(ROOT, "calibration/validate/one_sm.csv"))
order = [r["id"] for r in csv.DictReader(open(os.path.join(DIR, "clock/validate_status.csv")))
         if r["status"] == "profiled" and not r["id"].startswith("cublas")]
counted = {i: x for i, x in zip(order, [x for x in launches(os.path.join(DIR, "clock/validate_none.csv"))
                                         if not x["kernel"].startswith("nvjet")])}
free = bursts(os.path.join(DIR, "free/phases.csv"))
plain = bursts(os.path.join(DIR, "plain/phases.csv"))
now, now_free = rows(os.path.join(DIR, "model.csv")), rows(os.path.join(DIR, "model_free.csv"))
before, before_free = rows(os.path.join(DIR, "model_before.csv")), rows(os.path.join(DIR, "model_before_free.csv"))

print("| # | schedule | CTAs x k-steps | H200 one launch (GHz) | H200 burst | model before | model now | error now | "
      "without loads: H200 | model before | model now |")
print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for i in order:
    s = split[i]
    ctas = (int(s["m"]) // 128) * (int(s["n"]) // 256)
    k = int(s["k"]) // 32
    c = counted[i]
    ghz = c["sm__cycles_elapsed.avg.per_second"] / 1e9
    h = c["sm__cycles_elapsed.max"] / k
    one = ctas == 1
    m = lambda r: float(r[i]["model_burst_cycles"]) / k if i in r else None
    f = lambda x: f"{x:.0f}" if x else "-"
    hf = free[i] * 1e-3 * ghz * 1e9 / k if i in free else None
    hb = plain[i] * 1e-3 * ghz * 1e9 / k if one else None
    ref = hb or h
    print(f"| #{i} | {s['variant']} | {ctas} x {k} | {h:.0f} ({ghz:.2f}) | {f(hb)} | {f(m(before)) if one else '-'} | "
          f"{f(m(now))} | {100 * (m(now) / ref - 1):+.1f}% | {f(hf)} | {f(m(before_free))} | {f(m(now_free))} |")
