#!/usr/bin/env python3
"""Model rows for the power fit: the GEMM rows of an earlier model run, recounted for the
lowering's wgmma descriptor arithmetic, and the attention rows of the current model.

`runtime/src/sim/lower.rs` counts, after each `wgmma` group, the instructions the generated
code spends building the shared-memory descriptors: 5 ALU + 9 FMA-pipe instructions per
native `wgmma` (m64nNk16) per warp with both operands in shared memory
(`WGMMA_DESCRIPTOR_INSTRS_SS`). Every GEMM of the split issues only such groups, with
N = the tile's BN, from warpgroups of 4 warps, so the lowering adds exactly

    4 warps x 14 x FLOPs / (2 x 64 x BN x 16)

warp-instructions to a GEMM's activity count; this script adds them to `act_instructions` of
each GEMM row of `--gemm` (a model run made before that lowering), leaves every timing
column as it is, and appends the rows of `--attention` (any number of files, the current
model) unchanged. With `--burst-cycles`, the recounted rows' sustained cycles are set to
their burst cycles, so that `validate report` recomputes their sustained clock and time
with the power model compiled in (the burst run's cycles at that clock), as it does for
every row not simulated again at its sustained clock.

    python3 recount.py --split split.csv --gemm model.csv --attention fa3.csv ... > out.csv
"""

import argparse
import csv
import sys

DESCRIPTOR_INSTRS_SS = 5 + 9
WARPS_PER_WARPGROUP = 4
NATIVE_M, NATIVE_K = 64, 16


def extra_instructions(flops, bn):
    natives = flops / (2 * NATIVE_M * bn * NATIVE_K)
    return WARPS_PER_WARPGROUP * DESCRIPTOR_INSTRS_SS * natives


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", required=True)
    ap.add_argument("--gemm", required=True)
    ap.add_argument("--attention", nargs="+", required=True)
    ap.add_argument("--burst-cycles", action="store_true")
    a = ap.parse_args()
    split = {r["id"]: r for r in csv.DictReader(open(a.split))}
    out = None
    for path, recount in [(a.gemm, True)] + [(p, False) for p in a.attention]:
        for row in csv.DictReader(open(path)):
            config = split.get(row["id"])
            if config is None:
                sys.exit(f"{path}: id {row['id']} is not in the split")
            is_gemm = config["family"] in ("ws_gemm", "tradeoff")
            if recount != is_gemm:
                continue
            if out is None:
                out = csv.DictWriter(sys.stdout, fieldnames=list(row), lineterminator="\n")
                out.writeheader()
            if recount and row["act_instructions"]:
                bn = int(config["tile"].split("x")[1])
                total = float(row["act_instructions"]) + extra_instructions(float(row["act_flops"]), bn)
                row["act_instructions"] = f"{total:.4e}"
                if a.burst_cycles:
                    row["model_sust_cycles"] = row["model_burst_cycles"]
            out.writerow(row)


if __name__ == "__main__":
    main()
