#!/usr/bin/env python3
"""How much of each FA3 consumer warpgroup's softmax runs while the other's does: op timestamps
on the GPU beside the model's timeline.

    python3 calibration/validate/softmax_overlap.py DIR ID [ID ...]

Reads `DIR/ID_gpu_cta0.csv` and `DIR/ID_model_cta0.csv` (`validate op-times --gpu ... --lines`
and `--compare ... --lines`, marking the softmax's first op, `row_max`, line 217 of
`examples/attention/hopper.rs`, and the op after its `exp2` part: the mark after line 221).
A warp's softmax runs from its mark on line 217 to the first mark after its next mark on
line 221. Per consumer warp (warps 4-7: warpgroup 0, 8-11: warpgroup 1) the softmax's
cycles, and the share of them during which the warp of the same rank in the other warpgroup
is in its softmax too (they share a sub-partition: warp w on w % 4). Softmaxes after the
first two of each warp. Then how far apart the warpgroups run: the median of warp 8's mark
less warp 4's of the same visit, on line 217 (the softmax) and line 271 (`S = Q K^T`), and
warp 4's iteration (its softmax to its next).
"""
import statistics
import csv
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from handoff import records  # noqa: E402

START, EXP2, S_ISSUE = 217, 221, 271


def consumer_marks(path):
    """Each consumer warp's marks, `(line, cycle)` in order."""
    by = defaultdict(list)
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["role"] == "consumer" and r["line"] != "0":
                by[int(r["warp"])].append((int(r["line"]), int(r["cycle"])))
    return by


def offsets(by):
    """Warp 8's marks less warp 4's on the softmax's and `S`'s lines, and warp 4's iteration."""

    def on(w, line):
        return [c for l, c in by[w] if l == line]

    def apart(line):
        a, b = on(4, line), on(8, line)
        return statistics.median(b[i] - a[i] for i in range(2, min(len(a), len(b))))

    starts = on(4, START)
    iteration = statistics.median(starts[i + 1] - starts[i] for i in range(2, len(starts) - 1))
    return apart(START), apart(S_ISSUE), iteration


def intervals(by):
    """Each warp's softmaxes, `(start, end)`, after its first two."""
    out = {}
    for w, marks in by.items():
        spans, i = [], 0
        while i < len(marks):
            if marks[i][0] == START:
                j = next((k for k in range(i + 1, len(marks)) if marks[k][0] == EXP2), None)
                if j is None or j + 1 >= len(marks):
                    break
                spans.append((marks[i][1], marks[j + 1][1]))
                i = j + 1
            else:
                i += 1
        out[w] = spans[2:]
    return out


def overlap(a, others):
    s, e = a
    return sum(max(0, min(e, oe) - max(s, os_)) for os_, oe in others)


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    for side, path in records(sys.argv[1], sys.argv[2:]):
        by = consumer_marks(path)
        spans = intervals(by)
        total = shared = n = 0
        for w in range(4, 12):
            other = w + 4 if w < 8 else w - 4
            for iv in spans.get(w, []):
                total += iv[1] - iv[0]
                shared += overlap(iv, spans.get(other, []))
                n += 1
        if n:
            print(f"  {side:<5} softmax {total / n:6.0f} cycles a visit ({n} visits), {shared / total:5.1%} of it beside the other warpgroup's")
            soft, s_issue, iteration = offsets(by)
            print(f"        warpgroup 1 after warpgroup 0: softmax {soft:6.0f}, S issue {s_issue:6.0f}; iteration {iteration:6.0f}")
        else:
            print(f"  {side}: no softmax marks")


if __name__ == "__main__":
    main()
