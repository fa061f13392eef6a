#!/usr/bin/env python3
"""Where the two FA3 consumer warpgroups' MMA groups end against each other: op timestamps of
the schedules without overlap, on the GPU beside the model's timeline.

    python3 calibration/validate/group_ends.py DIR ID [ID ...]

Reads `DIR/ID_gpu_cta0.csv` and `DIR/ID_model_cta0.csv` (`validate op-times --gpu ... --lines`
and `--compare ... --lines` with lines 271, 284, 286 and 287 of `examples/attention/hopper.rs`
marked: the `S` issue, the wait for `S`, the `P V` issue and the wait for `P V`). A wait's
mark is taken as it begins and the next mark follows its return, so the next mark after line
284 (287) stands for the end of warp's `S` (`P V`) group. Per visit of CTA 0, warp 8
(warpgroup 1) less warp 4 (warpgroup 0): the `S` issue, and each wait's start and the mark
after it; medians with p10 and p90, after the first two visits. Under first-come service of
whole groups, groups issued less than a group apart end a group's occupancy apart (256
cycles for `S` at d 64); interleaved, they end closer than they were issued."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from handoff import spread  # noqa: E402
from softmax_overlap import consumer_marks  # noqa: E402


def visits(seq, line):
    """(the mark on `line`, the next mark) per visit."""
    return [(c, seq[i + 1][1]) for i, (l, c) in enumerate(seq) if l == line and i + 1 < len(seq)]


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    d = sys.argv[1]
    for cid in sys.argv[2:]:
        print(f"#{cid}")
        for side in ("gpu", "model"):
            by = consumer_marks(f"{d}/{cid}_{side}_cta0.csv")
            print(f"  {side}: warpgroup 1 less warpgroup 0, cycles")
            a, b = [c for l, c in by[4] if l == 271], [c for l, c in by[8] if l == 271]
            print(f"    S issue                  {spread([b[i] - a[i] for i in range(2, min(len(a), len(b)))])}")
            for line, name in ((284, "S"), (287, "P V")):
                a, b = visits(by[4], line), visits(by[8], line)
                n = min(len(a), len(b))
                print(f"    {name:3} wait begins          {spread([b[i][0] - a[i][0] for i in range(2, n)])}")
                print(f"    {name:3} done (the next mark) {spread([b[i][1] - a[i][1] for i in range(2, n)])}")


if __name__ == "__main__":
    main()
