#!/usr/bin/env python3
"""The non-specialized GEMM's hand-off from op timestamps, GPU marks beside the model's.

    python3 calibration/validate/flat_handoff.py DIR ID [ID ...]

DIR holds `validate op-times --gpu` records (ID_gpu_cta0.csv; for the one-SM rows of item
30, unpack calibration/results/one_sm/op_times/op_times.tgz) and the model's
(ID_model_cta0.csv, from `validate op-times --split calibration/validate/one_sm.csv --ids ID
--compare DIR`). In `flat_128x256_p4` every warp is a `worker`; warp 0 issues the loads
(line 192 its first box, 194 its `expect_tx` arrive) and every warp passes its wait on a
full stage at line 243 (the `wgmma` after it). The loader's i-th visit of line 192 loads
k-step i (the prologue's four, then one refill a k-step), and a warp's i-th visit of line
243 is k-step i, so per k-step: the first box to the first warp of warpgroup 1 past its
wait, the `expect_tx` arrive to the same, how far warpgroup 1 runs ahead of warpgroup 0,
and the loading warpgroup's k-step. Medians and p10/p90 after the first eight k-steps; the
GPU's marks slow these loops by 45-67% (`op_times.log`), a copy in flight not."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from handoff import marks, spread  # noqa: E402


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    d = sys.argv[1]
    for cid in sys.argv[2:]:
        print(f"#{cid}")
        for side in ("gpu", "model"):
            by = marks(f"{d}/{cid}_{side}_cta0.csv")
            issue, commit = by[(0, "worker", 192)], by[(0, "worker", 194)]
            wg1 = [by[(w, "worker", 243)] for w in range(4, 8)]
            wg0 = [by[(w, "worker", 243)] for w in range(4)]
            n = min(len(issue), len(commit), *(len(x) for x in wg1 + wg0))
            past1 = [min(x[i] for x in wg1) for i in range(n)]
            past0 = [min(x[i] for x in wg0) for i in range(n)]
            skip = 8
            print(f"  {side}")
            print(f"    first box -> warpgroup 1 past its wait      {spread([past1[i] - issue[i] for i in range(skip, n)])}")
            print(f"    expect_tx -> warpgroup 1 past its wait      {spread([past1[i] - commit[i] for i in range(skip, n)])}")
            print(f"    warpgroup 1 past its wait - warpgroup 0's   {spread([past1[i] - past0[i] for i in range(skip, n)])}")
            print(f"    warpgroup 0's k-step                        {spread([past0[i + 1] - past0[i] for i in range(skip, n - 1)])}")


main()
