#!/usr/bin/env python3
"""Effective clocks and cycles from an `ncu_clock.sh` run, beside the timed sweep.

    python3 calibration/validate/ncu_clock.py [NCU_DIR [MORE_DIR..]] [--results CSV]
        [--cluster-ncu DIR] [--cluster-run CSV] > NCU_DIR/effective.txt

Reads NCU_DIR (default calibration/validate/h200/ncu) and any further directories of later
`ncu_clock.sh` runs (configurations the first did not profile): `validate_none.csv` (one
launch per configuration, clocks free) in the order of `validate_status.csv`'s `profiled`
rows. Joins them with the timed sweep (`--results`, default calibration/validate/results.csv:
burst and sustained times, NVML clocks); the cluster GEMM's launches
(`--cluster-ncu`, a directory with `cluster_{none,base}.csv`, default
calibration/validate/h200/ncu_cluster_run5, the kernel that overlaps its epilogue) with its
timed run (`--cluster-run`, default calibration/gpu/cluster_gemm/h200_run5/cluster_gemm_gpu.csv;
run 4 and the first directory's cluster files are the kernel before the overlap); and writes
NCU_DIR/effective.csv: per configuration the SM cycles of one launch, the clock ncu saw
(cycles over duration), the L2 and DRAM clocks, and the effective burst and sustained clocks
(those cycles over the measured burst and sustained times per launch). Prints the tables.
"""
import csv
import os
import statistics as st
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARGS = sys.argv[1:]
RESULTS = os.path.join(ROOT, "calibration/validate/results.csv")
if "--results" in ARGS:
    i = ARGS.index("--results")
    RESULTS = ARGS[i + 1]
    del ARGS[i:i + 2]
CLUSTER_RUN = os.path.join(ROOT, "calibration/gpu/cluster_gemm/h200_run5/cluster_gemm_gpu.csv")
CLUSTER_NCU = os.path.join(ROOT, "calibration/validate/h200/ncu_cluster_run5")
for flag in ("--cluster-run", "--cluster-ncu"):
    if flag in ARGS:
        i = ARGS.index(flag)
        if flag == "--cluster-run":
            CLUSTER_RUN = ARGS[i + 1]
        else:
            CLUSTER_NCU = ARGS[i + 1]
        del ARGS[i:i + 2]
DIRS = ARGS or [os.path.join(ROOT, "calibration/validate/h200/ncu")]
NCU = DIRS[0]
SPLIT = os.path.join(ROOT, "calibration/validate/split.csv")


def launches(path):
    """ncu --csv rows grouped per profiled launch, in launch order."""
    with open(path) as f:
        rows = list(csv.DictReader(line for line in f if line.startswith('"')))
    out = {}
    for r in rows:
        d = out.setdefault(int(r["ID"]), {"kernel": r["Kernel Name"]})
        d[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return [out[i] for i in sorted(out)]


def figures(launch):
    return {
        "cycles": launch["sm__cycles_elapsed.max"],
        "ncu_ms": launch["gpu__time_duration.sum"] / 1e6,
        "f_ncu": launch["sm__cycles_elapsed.avg.per_second"] / 1e9,
        "l2_ghz": launch["lts__cycles_elapsed.avg.per_second"] / 1e9,
        "dram_ghz": launch["dram__cycles_elapsed.avg.per_second"] / 1e9,
        "tensor_pct": launch["sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"],
        "l2_bytes": launch["lts__t_bytes.sum"],
        "dram_bytes": launch["dram__bytes.sum"],
    }


def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def main():
    split = {r["id"]: r for r in csv.DictReader(open(SPLIT))}
    results = {r["id"]: r for r in csv.DictReader(open(RESULTS))}
    rows = []
    profiled = []
    for d in DIRS:
        status = [r for r in csv.DictReader(open(os.path.join(d, "validate_status.csv"))) if r["status"] == "profiled"]
        ours = [s["id"] for s in status if not s["id"].startswith("cublas")]
        theirs = [s["id"] for s in status if s["id"].startswith("cublas")]
        ls = launches(os.path.join(d, "validate_none.csv"))
        mine = [x for x in ls if not x["kernel"].startswith("nvjet")]
        vendor = [x for x in ls if x["kernel"].startswith("nvjet")]
        if len(mine) != len(ours) or len(vendor) != len(theirs):
            sys.exit(f"{d}: {len(mine)} warpspec launches for {len(ours)} profiled configurations, "
                     f"{len(vendor)} cuBLAS launches for {len(theirs)}: cannot match them")
        seen = {cid for cid, _ in profiled}
        profiled += [(cid, launch) for cid, launch in zip(ours, mine) if cid not in seen]
    for cid, launch in profiled:
        r, s = results.get(cid, {}), split[cid]
        f = figures(launch)
        burst, sust = num(r.get("meas_burst_ms")), num(r.get("meas_sust_ms"))
        rows.append({
            "id": cid, "family": s["family"], "kernel": s["kernel"], "variant": s["variant"],
            "shape": r.get("shape", ""), "set": s["set"], **f,
            "burst_ms": burst, "sust_ms": sust,
            "f_burst": f["cycles"] / (burst * 1e6) if burst else None,
            "f_sust": f["cycles"] / (sust * 1e6) if sust else None,
            "nvml_burst": (num(r.get("meas_burst_mhz")) or 0) / 1e3 or None,
            "nvml_sust": (num(r.get("meas_sust_mhz")) or 0) / 1e3 or None,
        })
    # The cluster GEMM and cuBLAS at its four shapes, timed by examples/cluster_gemm_gpu.
    timed = {}
    for r in csv.DictReader(open(CLUSTER_RUN)):
        timed[(r["workload"].split(" (")[0], r["phase"])] = r
    cluster_ids = {s["m"] + "x" + s["n"] + "x" + s["k"]: s["id"] for s in split.values() if s["family"] == "cluster_gemm"}
    base = launches(os.path.join(CLUSTER_NCU, "cluster_base.csv"))
    for i, launch in enumerate(launches(os.path.join(CLUSTER_NCU, "cluster_none.csv"))):
        shape = ["8192x8192x8192", "4096x4096x4096", "16384x16384x4096", "8192x8192x1024"][i // 2]
        who = "cluster_gemm" if launch["kernel"] == "cluster_gemm" else "cublas"
        f = figures(launch)
        b, s = timed.get((f"{who} {shape}", "burst")), timed.get((f"{who} {shape}", "sustained"))
        burst, sust = num(b and b["steady_ms"]), num(s and s["steady_ms"])
        rows.append({
            "id": cluster_ids[shape] if who == "cluster_gemm" else f"cublas {shape}",
            "family": "cluster_gemm" if who == "cluster_gemm" else "cublas",
            "kernel": launch["kernel"], "variant": "persistent" if who == "cluster_gemm" else "",
            "shape": shape, "set": "heldout" if who == "cluster_gemm" else "reference", **f,
            "burst_ms": burst, "sust_ms": sust,
            "f_burst": f["cycles"] / (burst * 1e6) if burst else None,
            "f_sust": f["cycles"] / (sust * 1e6) if sust else None,
            "nvml_burst": num(b and b["sm_mhz_steady"]) and num(b["sm_mhz_steady"]) / 1e3,
            "nvml_sust": num(s and s["sm_mhz_steady"]) and num(s["sm_mhz_steady"]) / 1e3,
            "cycles_base": base[i]["sm__cycles_elapsed.max"],
            "f_base": base[i]["sm__cycles_elapsed.avg.per_second"] / 1e9,
            "l2_ghz_base": base[i]["lts__cycles_elapsed.avg.per_second"] / 1e9,
        })
    cols = ["id", "family", "kernel", "variant", "shape", "set", "cycles", "ncu_ms", "f_ncu", "l2_ghz", "dram_ghz",
            "tensor_pct", "burst_ms", "f_burst", "nvml_burst", "sust_ms", "f_sust", "nvml_sust"]
    with open(os.path.join(NCU, "effective.csv"), "w", newline="") as out:
        w = csv.writer(out)
        w.writerow(cols)
        for r in rows:
            w.writerow(["" if r.get(c) is None else (f"{r[c]:.4f}" if isinstance(r[c], float) and c != "cycles" else
                        (f"{r[c]:.0f}" if c == "cycles" else r[c])) for c in cols])

    def fmt(x, spec=".3f"):
        return "-" if x is None else format(x, spec)

    print("Per launch: SM cycles and the clock ncu saw (clocks free), L2 clock; effective burst and")
    print("sustained clocks = those cycles over the timed sweep's burst and sustained time per launch;")
    print("NVML's reading of the same phases. Clocks in GHz.\n")
    print(f"{'id':>5} {'family':<12} {'kernel':<22} {'variant':<16} {'shape':<17} {'set':<11} "
          f"{'cycles':>9} {'f_ncu':>6} {'L2':>6} {'tensor%':>7} {'f_burst':>7} {'NVML':>6} {'f_sust':>7} {'NVML':>6}")
    for r in rows:
        print(f"{r['id']:>5} {r['family']:<12} {r['kernel'][:22]:<22} {r['variant'][:16]:<16} {r['shape'][:17]:<17} "
              f"{r['set']:<11} {r['cycles']:>9.0f} {r['f_ncu']:>6.3f} {r['l2_ghz']:>6.3f} {r['tensor_pct']:>7.1f} "
              f"{fmt(r['f_burst']):>7} {fmt(r['nvml_burst']):>6} {fmt(r['f_sust']):>7} {fmt(r['nvml_sust']):>6}")
    print("\nSummary by family (median, min-max):")
    for fam in sorted({r["family"] for r in rows}):
        rs = [r for r in rows if r["family"] == fam]
        for key, label in [("f_ncu", "clock in one launch"), ("f_burst", "effective burst clock"),
                           ("f_sust", "effective sustained clock"), ("l2_ghz", "L2 clock")]:
            v = [r[key] for r in rs if r.get(key)]
            if v:
                print(f"  {fam:<12} {label:<26} {st.median(v):.3f} ({min(v):.3f}-{max(v):.3f}), {len(v)} rows")
        ratio = [r["f_sust"] / r["nvml_sust"] for r in rs if r.get("f_sust") and r.get("nvml_sust")]
        if ratio:
            print(f"  {fam:<12} {'effective / NVML, sust.':<26} {st.median(ratio):.3f} ({min(ratio):.3f}-{max(ratio):.3f})")
    print("\nClocks locked to base (ncu --clock-control base) against free, cluster shapes:")
    for r in rows:
        if "cycles_base" in r:
            print(f"  {r['kernel'][:30]:<30} {r['shape']:<17} cycles {r['cycles']:>9.0f} at {r['f_ncu']:.3f} GHz, "
                  f"{r['cycles_base']:>9.0f} at {r['f_base']:.3f} GHz ({100 * (r['cycles_base'] / r['cycles'] - 1):+.1f}%); "
                  f"L2 {r['l2_ghz']:.3f} / {r['l2_ghz_base']:.3f} GHz")


if __name__ == "__main__":
    main()
