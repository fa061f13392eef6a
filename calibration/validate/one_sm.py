#!/usr/bin/env python3
"""Calibration item 30's table: the trade-off schedules on one SM and in one wave, H200
against the model.

    python3 calibration/validate/one_sm.py [DIR]   (default calibration/results/one_sm)

Reads DIR/plain/phases.csv and DIR/free/phases.csv (`one_sm.sh`: burst medians of 10
launches, CUDA events), DIR/stalls/ID.txt (Nsight Compute, clocks free: SM cycles and
frequency of one launch of the one-SM rows) and the model's rows (DIR/model.csv,
DIR/model_free.csv; DIR/model_before*.csv: the model before `Instr::TryWait`, one-SM rows).
A one-SM row's H200 cycles are its burst time at the SM frequency Nsight Compute measured
for it (one CTA runs at the boost clock); a one-wave row's clock under load is not measured,
so those rows compare times (the model's at the burst clock it predicts)."""
import csv
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "calibration/results/one_sm")


def bursts(path):
    out = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["phase"] == "burst":
                out[r["workload"].split()[0].lstrip("#")] = (r["workload"], float(r["median_ms"]))
    return out


def model(name):
    path = os.path.join(DIR, name)
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return {r["id"]: r for r in csv.DictReader(f)}


def ncu_ghz(i):
    path = os.path.join(DIR, "stalls", f"{i}.txt")
    if not os.path.exists(path):
        return None
    text = open(path).read()
    m = re.search(r"SM Frequency\s+Ghz\s+([\d.]+)", text)
    return float(m.group(1)) if m else None


plain, free = bursts(os.path.join(DIR, "plain/phases.csv")), bursts(os.path.join(DIR, "free/phases.csv"))
now, now_free = model("model.csv"), model("model_free.csv")
before, before_free = model("model_before.csv"), model("model_before_free.csv")
print("| # | configuration | k-steps a CTA | H200 burst ms | model burst ms | H200 cycles a k-step | model (before) | model now | without loads: H200 | model (before) | model now |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for i, (name, ms) in sorted(plain.items()):
    k = int(name.split()[-1].split("x")[2]) // 32
    one_sm = name.split()[-1].startswith("128x256x")
    ghz = ncu_ghz(i) or (1.98 if one_sm else None)
    m_ms = float(now[i]["model_burst_ms"])
    cyc = lambda r: f"{float(r[i]['model_burst_cycles']) / k:.0f}" if i in r else "-"
    h = f"{ms * ghz * 1e6 / k:.0f}" if one_sm else "-"
    hf = f"{free[i][1] * ghz * 1e6 / k:.0f}" if i in free else "-"
    row = [f"#{i}", " ".join(name.split()[1:]), str(k), f"{ms:.3f}", f"{m_ms:.3f}", h,
           cyc(before) if one_sm else "-", cyc(now), hf, cyc(before_free), cyc(now_free)]
    print("| " + " | ".join(row) + " |")
