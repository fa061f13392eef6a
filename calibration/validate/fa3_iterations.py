#!/usr/bin/env python3
"""Cycles per main-loop iteration that the H200 measurements of the FA3 sweep imply, beside
the tensor-core bound and (where given) the model's figure.

A CTA of the FA3-style kernel (examples/attention/hopper.rs) owns 128 query rows and walks
128-key blocks; one CTA fits on an SM (its shared memory), so a launch runs in
`ceil(CTAs / 132)` waves and the burst time is about `waves x blocks x T_iter` cycles at the
1980 MHz the burst runs at (every FA3 burst phase of h200/fa3/phases.csv is at 1980 MHz).
Causal CTAs walk `qb + 1` blocks; the mean over a wave is used. Per iteration the two
consumer warpgroups issue 4 GEMMs of 64 x 128 x d: at 2048 bf16 FMA/clk/SM (the model's
`dense_fma_per_clk_bf16`) that is `d x 16` cycles of tensor time, the bound.

    python3 fa3_iterations.py split.csv h200/fa3/phases.csv [model.csv]
"""

import csv
import math
import sys

SMS = 132
BM = BN = 128
BOOST_MHZ = 1980.0


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: fa3_iterations.py SPLIT PHASES [MODEL]")
    split = {r["id"]: r for r in csv.DictReader(open(sys.argv[1])) if r["family"] == "fa3"}
    burst = {}
    for r in csv.DictReader(open(sys.argv[2])):
        if r["phase"] == "burst":
            burst[r["workload"].split()[0].lstrip("#")] = r
    model = {}
    if len(sys.argv) == 4:
        model = {r["id"]: r for r in csv.DictReader(open(sys.argv[3])) if r.get("model_burst_cycles")}
    print(f"{'id':>4} {'d':>4} {'seq':>6} {'causal':>6} {'variant':<17} {'waves':>5} {'blocks':>7}"
          f" {'meas cyc/it':>11} {'model cyc/it':>12} {'tensor bound':>12} {'meas/bound':>10}")
    for cid, c in sorted(split.items(), key=lambda kv: int(kv[0])):
        if cid not in burst:
            continue
        b, h, s, d = int(c["batch"]), int(c["heads"]), int(c["seq"]), int(c["d"])
        causal = c["causal"] == "1"
        qblocks = s // BM
        ctas = b * h * qblocks
        waves = math.ceil(ctas / SMS)
        blocks = (qblocks + 1) / 2 if causal else s // BN
        cycles = float(burst[cid]["median_ms"]) * 1e-3 * BOOST_MHZ * 1e6
        per_iter = cycles / (waves * blocks)
        bound = d * 16
        m = model.get(cid)
        mod = f"{float(m['model_burst_cycles']) / (waves * blocks):12.0f}" if m else f"{'-':>12}"
        print(f"{cid:>4} {d:>4} {s:>6} {int(causal):>6} {c['variant']:<17} {waves:>5} {blocks:>7.1f}"
              f" {per_iter:11.0f} {mod} {bound:12d} {per_iter / bound:10.2f}")


if __name__ == "__main__":
    main()
