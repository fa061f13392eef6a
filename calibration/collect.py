#!/usr/bin/env python3
"""Collects the RESULT lines of bench.log (plus env.txt and smi.csv) in OUTDIR into one JSON
document on stdout; with --table prints a short text table instead."""
import json
import re
import statistics
import sys

outdir = sys.argv[1]
table = "--table" in sys.argv


def read(name):
    try:
        with open(f"{outdir}/{name}", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


params, bench = [], None
for line in read("bench.log").splitlines():
    m = re.match(r"===== (bench_\w+)", line)
    if m:
        bench = m.group(1)
    if line.startswith("RESULT "):
        try:
            r = json.loads(line[7:])
        except json.JSONDecodeError:
            continue
        r["benchmark"] = bench
        params.append(r)
failures, cur = [], None
for l in read("bench.log").splitlines():
    m = re.match(r"===== (bench_\w+)", l)
    if m:
        cur = m.group(1)
    elif not l.startswith("RESULT ") and (re.match(r"rc=[1-9]", l) or "error" in l.lower() or "warning" in l.lower() or "NOT BUILT" in l):
        failures.append(f"{cur}: {l}")

env = read("env.txt")
def grab(pat):
    m = re.search(pat, env)
    return m.group(1).strip() if m else None

smi = read("smi.csv").splitlines()
clock = {}
if smi:
    hdr = [h.strip() for h in smi[0].split(",")]
    rows = [[c.strip() for c in l.split(",")] for l in smi[1:] if l.count(",") == len(hdr) - 1]
    def col(name, busy_only=True):
        i, u = hdr.index(name), hdr.index("utilization.gpu")
        out = []
        for r in rows:
            try:
                if busy_only and float(r[u]) <= 0:
                    continue
                out.append(float(r[i]))
            except ValueError:
                pass
        return out
    try:
        sm = col("clocks.sm")
        mx = col("clocks.max.sm", False)
        pw = col("power.draw")
        clock = {
            "samples_busy": len(sm),
            "sm_clock_mhz_median_busy": statistics.median(sm) if sm else None,
            "sm_clock_mhz_min_busy": min(sm) if sm else None,
            "sm_clock_mhz_max_busy": max(sm) if sm else None,
            "max_sm_clock_mhz": max(mx) if mx else None,
            "power_w_median_busy": statistics.median(pw) if pw else None,
            "power_w_max": max(pw) if pw else None,
        }
    except (ValueError, statistics.StatisticsError):
        pass
if clock.get("sm_clock_mhz_median_busy"):
    params.insert(0, {"name": "sm_clock_nvidia_smi_busy", "value": clock["sm_clock_mhz_median_busy"] / 1000.0,
                      "unit": "GHz", "n": clock["samples_busy"],
                      "spread": {"min": clock["sm_clock_mhz_min_busy"] / 1000.0, "max": clock["sm_clock_mhz_max_busy"] / 1000.0},
                      "method": "nvidia-smi --query-gpu clocks.sm every 100 ms during the whole run, samples with utilization.gpu > 0",
                      "note": f"clocks.max.sm = {clock['max_sm_clock_mhz']} MHz", "benchmark": "nvidia-smi"})

doc = {
    "device": grab(r"\|\s+\d+\s+(NVIDIA [^|]*?)\s{2,}") or "NVIDIA H200",
    "driver": grab(r"Driver Version:\s*([\d.]+)"),
    "cuda_driver_api": grab(r"CUDA Version:\s*([\d.]+)"),
    "nvcc": grab(r"release ([\d.]+, V[\d.]+)"),
    "date_utc": grab(r"date: (\S+)"),
    "build": "nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a",
    "value_is": "median of the samples; spread gives min/max/p10/p90 of the same samples",
    "clock_log": clock,
    "failures": failures,
    "parameters": params,
}
if table:
    print(f"{'name':58s} {'median':>12s}  {'p10':>10s} {'p90':>10s}  unit  (n)")
    for p in params:
        s = p.get("spread", {})
        print(f"{p['name']:58s} {p['value']:12.4g}  {s.get('p10', float('nan')):10.4g} {s.get('p90', float('nan')):10.4g}  {p['unit']} ({p['n']})")
    if failures:
        print("FAILURES:", *failures, sep="\n  ")
else:
    print(json.dumps(doc, indent=1))
