#!/usr/bin/env python3
"""How long the FA3 kernel's consumers hold at their wait for a V stage, and how long before
it the producer issued that stage's copy, from op timestamps of CTA 0 (`validate op-times`:
ID_gpu_cta0.csv from the GPU, ID_model_cta0.csv from the model's timeline). The producer's
i-th V copy (its mark at `--load-line`, 175 in the FA3 kernel of examples/attention/hopper.rs
as rendered) pairs with each consumer leader's i-th V wait (its marks at `--wait-lines`,
272 and 296); a wait lasts until the warp's next mark.

    python3 calibration/validate/fa3_v_wait.py FILE [FILE ...] [--load-line N] [--wait-lines A,B]

Prints per consumer leader warp (4 and 8): the median and mean wait, and the median time
from the copy's issue to the wait's start. The marks slow the loop by 30-45% and each mark
costs a line 35-70 cycles: compare the GPU with the model, not with the unmarked kernel."""
import csv
import statistics
import sys


def marks(path):
    by_warp = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            by_warp.setdefault(int(r["warp"]), []).append((int(r["cycle"]), int(r["line"]), r["op"]))
    for seq in by_warp.values():
        seq.sort()
    return by_warp


def report(path, load_line, wait_lines):
    by_warp = marks(path)
    issued = [c for c, line, _ in by_warp.get(0, []) if line == load_line]
    for w in (4, 8):
        seq = by_warp.get(w, [])
        waits = [(c, seq[i + 1][0]) for i, (c, line, op) in enumerate(seq)
                 if line in wait_lines and op == "wait" and i + 1 < len(seq)]
        n = min(len(waits), len(issued))
        if n == 0:
            print(f"{path}: warp {w}: no V copies or waits at lines {load_line} / {sorted(wait_lines)}")
            continue
        held = [b - a for a, b in waits]
        ahead = [waits[k][0] - issued[k] for k in range(n)]
        print(f"{path}: warp {w}: {len(waits)} V waits, held median {statistics.median(held):.0f} "
              f"mean {statistics.mean(held):.0f} cycles; copy issued a median {statistics.median(ahead):.0f} "
              f"cycles before the wait")


def main(argv):
    load_line, wait_lines, files = 175, {272, 296}, []
    it = iter(argv)
    for a in it:
        if a == "--load-line":
            load_line = int(next(it))
        elif a == "--wait-lines":
            wait_lines = {int(x) for x in next(it).split(",")}
        else:
            files.append(a)
    if not files:
        sys.exit(__doc__)
    for f in files:
        report(f, load_line, wait_lines)


if __name__ == "__main__":
    main(sys.argv[1:])
