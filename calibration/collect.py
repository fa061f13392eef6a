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

# ---- derived values (computed from the measured ones above; each says how)
P = {p["name"]: p["value"] for p in params}
derived = []
def d(name, value, unit, how):
    derived.append({"name": name, "value": round(value, 4), "unit": unit, "derived_from": how})
try:
    ns = [64, 128, 256]
    ys = [P[f"wgmma_m64n{n}k16_ss_latency"] for n in ns]
    mx, my = sum(ns) / 3, sum(ys) / 3
    b = sum((x - mx) * (y - my) for x, y in zip(ns, ys)) / sum((x - mx) ** 2 for x in ns)
    d("wgmma_ss_latency_fit_intercept", my - b * mx, "cycles", "least-squares fit latency(N) = a + b*N over wgmma_m64n{64,128,256}k16_ss_latency")
    d("wgmma_ss_latency_fit_slope", b, "cycles per N", "same fit (0.5 = N/2, the tensor-core occupancy of one m64nNk16 at 2048 FMA/clk/SM)")
except (KeyError, ZeroDivisionError):
    pass
ghz = P.get("sm_clock_clock64_vs_globaltimer")
for k in ("l1_hit_latency", "l2_hit_latency", "hbm_latency", "hbm_latency_2GB_random", "smem_load_latency",
          "tma_2d_64x64_bf16_l2hit_latency", "tma_2d_64x64_bf16_hbm_latency", "mbarrier_arrive_to_wake_trywait"):
    if ghz and k in P:
        d(k + "_ns", P[k] / ghz, "ns", f"{k} / sm_clock_clock64_vs_globaltimer ({ghz:.4g} GHz; latency kernels ran at that clock)")
for tma, ld in (("tma_2d_64x64_bf16_l2hit_latency", "ld_global_cg_16B_l2hit_latency_same_harness"),
                ("tma_2d_64x64_bf16_hbm_latency", "ld_global_cg_16B_hbm_latency_same_harness"),
                ("bulk_1d_16KB_l2hit_latency", "ld_global_cg_16B_l2hit_latency_same_harness")):
    if tma in P and ld in P:
        d(tma.replace("_latency", "_over_plain_load"), P[tma] - P[ld], "cycles", f"{tma} - {ld}")
for k in ("bar_arrive_to_wake", "bar_sync_last_arriver_to_wake"):
    if k in P and "smem_load_latency" in P:
        d(k + "_minus_flag_load", P[k] - P["smem_load_latency"], "cycles",
          f"{k} - smem_load_latency (removes the dependent flag ld.shared that the stamp waits on)")
if "hbm_read_bandwidth_8ctas_per_sm" in P:
    d("hbm_read_bandwidth_TBps", P["hbm_read_bandwidth_8ctas_per_sm"] / 1000.0, "TB/s", "hbm_read_bandwidth_8ctas_per_sm / 1000")

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
    "derived": derived,
}
if table:
    print(f"{'name':58s} {'median':>12s}  {'p10':>10s} {'p90':>10s}  unit  (n)")
    for p in params:
        s = p.get("spread", {})
        print(f"{p['name']:58s} {p['value']:12.4g}  {s.get('p10', float('nan')):10.4g} {s.get('p90', float('nan')):10.4g}  {p['unit']} ({p['n']})")
    for p in derived:
        print(f"{p['name']:58s} {p['value']:12.4g}  (derived)  {p['unit']}")
    if failures:
        print("FAILURES:", *failures, sep="\n  ")
else:
    print(json.dumps(doc, indent=1))
