#!/usr/bin/env python3
"""Each configuration as generated and without its TMA loads, on the H200 and in the model.

    python3 calibration/validate/copies_free.py [DIR] > DIR/copies_free.md

DIR (default calibration/validate/h200/copies_free) holds `ncu/{plain,free}/` (one launch per
configuration under Nsight Compute, clocks free: `copies_free_ncu.sh`), `model_plain.csv`
(`validate run --ids ID --clock-ghz GHZ`, GHZ the burst clock of model_clock.csv) and
`model_free.csv` (the same with `--copies-free`). Cycles, not times: the timed runs'
NVML clock is not the SM's, and a kernel without its loads runs at another clock
(`ncu/*/validate_none.csv`: 1.49-1.79 GHz as generated, 1.80 without loads).

Then, from `stalls/` (`IDS="80 83 130 133" VALIDATE_ARGS=--copies-free ncu_stalls.sh`: the
H200's stall sampling per SASS instruction, `ID_sass.csv.gz`; the model's report of the same
configuration without loads, `ID_model.txt`, `validate run --ids ID --clock-ghz GHZ
--copies-free --reports DIR`), the warp states of the consumers' main loop (the
instructions executed as often as the most-executed `HGMMA`s) beside the model's consumer
stall reasons. And from `ncu_fa3/` (`copies_free_ncu.sh` on all 100 FA3 configurations), the
loads' share of the cycles by kind of kernel, head dimension and mask.
"""
import gzip
import csv
import io
import os
import sys

from ncu_clock import launches

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "calibration/validate/h200/copies_free")


def ncu(mode, sub="ncu"):
    """Per configuration id: SM cycles and clock of its one launch, matched to the profiled
    configurations in order as `ncu_clock.py` matches them."""
    d = os.path.join(DIR, sub, mode)
    status = [r["id"] for r in csv.DictReader(open(os.path.join(d, "validate_status.csv"))) if r["status"] == "profiled"]
    ls = launches(os.path.join(d, "validate_none.csv"))
    ours = [i for i in status if not i.startswith("cublas")] + [i for i in status if i.startswith("cublas")]
    in_order = [x for x in ls if not x["kernel"].startswith("nvjet")] + [x for x in ls if x["kernel"].startswith("nvjet")]
    if len(in_order) != len(ours):
        sys.exit(f"{d}: {len(in_order)} launches for {len(ours)} profiled configurations: cannot match them")
    return {i: (x["sm__cycles_elapsed.max"], x["sm__cycles_elapsed.avg.per_second"] / 1e9) for i, x in zip(ours, in_order)}


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

REASONS = ["barrier", "branch_resolving", "dispatch", "drain", "lg", "long_sb", "math", "mio", "no_inst",
           "not_selected", "selected", "short_sb", "sleep", "wait", "misc"]


def loop_states(path):
    """The warp states of the main loop in one stall-sampling export: (instructions, shares)."""
    rows = list(csv.reader(io.StringIO(gzip.open(path, "rt").read())))
    head = next(i for i, r in enumerate(rows) if len(r) > 3 and r[0] == "Address")
    hdr = rows[head]
    col = {h: i for i, h in enumerate(hdr)}
    data = [r for r in rows[head + 1:] if len(r) >= len(hdr)]
    num = lambda x: int(x) if x.isdigit() else 0
    executed = col["Instructions Executed"]
    groups = {}
    for r in data:
        if "HGMMA" in r[1]:
            groups[r[executed]] = groups.get(r[executed], 0) + 1
    loop = max(groups, key=lambda e: num(e) * groups[e])
    states = {h: 0 for h in REASONS}
    n = 0
    for r in data:
        if r[executed] == loop:
            n += 1
            for h in REASONS:
                states[h] += num(r[col["stall_" + h]])
    total = sum(states.values()) or 1
    return n, {h: v / total for h, v in states.items()}


stalls = os.path.join(DIR, "stalls")
if os.path.isdir(stalls):
    print()
    print("Without loads: the H200's consumers in the main loop (stall sampling) and the model's consumers")
    print("(share of warp-cycles):")
    print()
    print("| # | configuration | H200: selected | wait | math + mio | dispatch | not selected | model: consumer stall reasons |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for name in sorted(os.listdir(stalls)):
        if not name.endswith("_sass.csv.gz"):
            continue
        i = name.split("_")[0]
        n, st = loop_states(os.path.join(stalls, name))
        line = next(l for l in open(os.path.join(stalls, f"{i}_model.txt")) if l.strip().startswith("consumer "))
        model_states = line.split(")", 1)[1].strip()
        s = split[i]
        print(f"| {i} | {s['kernel']} {s['variant']}, seq {s['seq']} ({n} loop instructions) | {st['selected']:.1%} "
              f"| {st['wait']:.1%} | {st['math'] + st['mio']:.1%} | {st['dispatch']:.1%} | {st['not_selected']:.1%} "
              f"| {model_states} |")

every = os.path.join(DIR, "ncu_fa3")
if os.path.isdir(every):
    import statistics
    ap, af = ncu("plain", "ncu_fa3"), ncu("free", "ncu_fa3")
    groups = {}
    for i in ap:
        if i.startswith("cublas"):
            continue
        s = split[i]
        kind = "non-specialized" if s["variant"] == "nonspecialized" else "specialized (4 schedules)"
        key = (kind, s["d"], "causal" if s["causal"] == "1" else "non-causal")
        groups.setdefault(key, []).append(af[i][0] / ap[i][0])
    print()
    print("All 100 FA3 configurations (`ncu_fa3/`): cycles without loads over cycles as generated, H200:")
    print()
    print("| kernels | d | mask | configurations | min | median | max |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: |")
    for (kind, d, mask), r in sorted(groups.items()):
        print(f"| {kind} | {d} | {mask} | {len(r)} | {min(r):.3f} | {statistics.median(r):.3f} | {max(r):.3f} |")
