#!/usr/bin/env python3
"""Each configuration as generated and without its TMA loads, on the H200 and in the model.

    python3 calibration/validate/copies_free.py [DIR] > DIR/copies_free.md

DIR (default calibration/validate/h200/copies_free) holds `ncu/{plain,free}/` (one launch per
configuration under Nsight Compute, clocks free: `copies_free_ncu.sh`), `model_plain.csv`
(`validate run --ids ID --clock-ghz GHZ`, GHZ the burst clock of model_clock.csv) and
`model_free.csv` (the same with `--copies-free`). Cycles, not times: the timed runs'
NVML clock is not the SM's, and a kernel without its loads runs at another clock
(`ncu/*/validate_none.csv`: 1.49-1.79 GHz as generated, 1.80 without loads).
"""
import csv
import io
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "calibration/validate/h200/copies_free")


def ncu(mode):
    """Per configuration id: SM cycles and clock of its one launch."""
    lines = open(os.path.join(DIR, "ncu", mode, "validate_none.csv")).read().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith('"ID"'))
    launches = {}
    for r in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        m = launches.setdefault(int(r["ID"]), {})
        m[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    status = open(os.path.join(DIR, "ncu", mode, "validate_status.csv")).read().splitlines()[1:]
    ids = [l.split(",")[0] for l in status if ",profiled" in l]
    return {i: (m["sm__cycles_elapsed.max"], m["sm__cycles_elapsed.avg.per_second"] / 1e9)
            for i, (_, m) in zip(ids, sorted(launches.items()))}


def model(name):
    return {r["id"]: int(r["model_burst_cycles"]) for r in csv.DictReader(open(os.path.join(DIR, name)))}


split = {r["id"]: r for r in csv.DictReader(open(os.path.join(ROOT, "calibration/validate/split.csv")))}
hp, hf = ncu("plain"), ncu("free")
mp, mf = model("model_plain.csv"), model("model_free.csv")
print("| # | configuration | H200 as generated | without loads | ratio | model as generated | without loads | ratio | model vs H200 | without loads |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for i in hp:
    if i.startswith("cublas"):
        continue
    s = split[i]
    shape = f"seq {s['seq']}" if s["seq"] else f"{s['m']}x{s['n']}x{s['k']}"
    (p, _), (f, _) = hp[i], hf[i]
    a, b = mp[i], mf[i]
    print(f"| {i} | {s['kernel']} {s['variant']}, {shape} | {p:,.0f} | {f:,.0f} | {f / p:.3f} | {a:,} | {b:,} "
          f"| {b / a:.3f} | {a / p - 1:+.1%} | {b / f - 1:+.1%} |")
print()
print("cuBLAS (not affected by the define; the launches' reproducibility):")
for i in hp:
    if i.startswith("cublas"):
        print(f"- {i}: {hp[i][0]:,.0f} and {hf[i][0]:,.0f} cycles ({hf[i][0] / hp[i][0] - 1:+.2%})")
