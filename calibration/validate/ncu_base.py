#!/usr/bin/env python3
"""How a kernel's SM cycles depend on the SM clock, on the H200 and in the model.

    python3 calibration/validate/ncu_base.py DIR [--model GHZ=MODEL_CSV ...] > DIR/base.txt

DIR holds an `ncu_clock.sh` run with `VALIDATE_CLOCKS="none base"`: `validate_none.csv` and
`validate_base.csv` (one launch per configuration under Nsight Compute, clocks free and locked
to base), `validate_status.csv` (the launch order). For each configuration: the SM cycles and
the clock (cycles over duration) of both launches, and the cycles' change between them. A
kernel whose time is set by something that does not follow the SM clock (the L2's and
HBM's bandwidth) takes fewer cycles at the lower clock, in proportion; one set by the SM's
own pipes takes as many. Each `--model GHZ=FILE` is a `validate run --clock-ghz GHZ
--model-out FILE` of the same configurations: the model's cycles at that clock, set beside
the H200's at the nearest measured clock.
"""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ncu_clock import launches as all_launches  # noqa: E402


def launches(path):
    """The warpspec kernels' launches (not cuBLAS's), in launch order."""
    return [x for x in all_launches(path) if not x["kernel"].startswith("nvjet")]


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    d = args[0]
    models = []
    i = 1
    while i < len(args):
        if args[i] != "--model" or i + 1 >= len(args) or "=" not in args[i + 1]:
            sys.exit(f"unexpected argument {args[i]!r}; expected --model GHZ=FILE")
        ghz, path = args[i + 1].split("=", 1)
        models.append((float(ghz), {r["id"]: float(r["model_burst_cycles"]) for r in csv.DictReader(open(path))}))
        i += 2
    status = [r["id"] for r in csv.DictReader(open(f"{d}/validate_status.csv"))
              if r["status"] == "profiled" and not r["id"].startswith("cublas")]
    none, base = launches(f"{d}/validate_none.csv"), launches(f"{d}/validate_base.csv")
    if not (len(none) == len(base) == len(status)):
        sys.exit(f"{d}: {len(none)} free and {len(base)} base launches for {len(status)} configurations")
    cols = "id   kernel                 cycles free  GHz     cycles base  GHz     cycles change"
    if models:
        cols += "   model: " + "  ".join(f"cycles at {g:.3f}" for g, _ in models) + "  change"
    print(cols)
    changes = []
    for cid, a, b in zip(status, none, base):
        ca, cb = a["sm__cycles_elapsed.max"], b["sm__cycles_elapsed.max"]
        fa, fb = a["sm__cycles_elapsed.avg.per_second"] / 1e9, b["sm__cycles_elapsed.avg.per_second"] / 1e9
        change = cb / ca - 1
        changes.append(change)
        line = f"{cid:>4} {a['kernel'][:22]:22} {ca:>11.0f}  {fa:.3f}  {cb:>11.0f}  {fb:.3f}  {100 * change:+6.1f}%"
        got = [m.get(cid) for _, m in models]
        if models and all(got):
            line += "        " + "  ".join(f"{c:>14.0f}" for c in got) + f"  {100 * (got[-1] / got[0] - 1):+6.1f}%"
        print(line)
    if changes:
        print(f"\n{len(changes)} configurations: cycles at base against free, "
              f"{100 * min(changes):+.1f}% to {100 * max(changes):+.1f}%")


if __name__ == "__main__":
    main()
