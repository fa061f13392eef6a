#!/usr/bin/env python3
"""How a GEMM consumer's k-steps spread, GPU marks beside the model's: the intervals between
one warp's consecutive marks on one line (one mark a k-step), for CTA 0.

    python3 calibration/validate/kstep_tail.py DIR LINE ID [ID ...]

Reads `DIR/ID_gpu_cta0.csv` and `DIR/ID_model_cta0.csv` (`validate op-times --gpu` and
`--compare` with `--lines` holding LINE). Per configuration and side, over every consumer
warp's intervals after its first four: the median, p90 and p99, the share of k-steps longer
than 1.5 times the median, and the share of all the warp's cycles those hold beyond the
median (the time the long k-steps add). A mark costs the GPU cycles where it sits; with two
or four lines marked item 53's kernels ran -1% to +15% longer (`op_times.sh`'s log gives
each factor).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from handoff import marks  # noqa: E402


def intervals(path, line):
    """Every consumer warp's intervals between its marks on `line`, after its first four."""
    out = []
    for (_, role, at), cycles in marks(path).items():
        if role == "consumer" and at == line:
            cycles = sorted(cycles)
            out += [b - a for a, b in zip(cycles[4:], cycles[5:])]
    return sorted(out)


def summary(steps):
    q = lambda p: steps[min(len(steps) - 1, int(p * len(steps)))]
    med = q(0.5)
    long = [s for s in steps if s > 1.5 * med]
    excess = sum(s - med for s in long) / sum(steps)
    return f"{len(steps):6d} {med:7d} {q(0.9):7d} {q(0.99):7d} {100 * len(long) / len(steps):6.1f}% {100 * excess:6.1f}%"


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    d, line = sys.argv[1], int(sys.argv[2])
    print(f"{'id':>5} {'side':<6} {'steps':>6} {'median':>7} {'p90':>7} {'p99':>7} {'>1.5x':>7} {'excess':>7}")
    for i in sys.argv[3:]:
        for side in ("gpu", "model"):
            path = os.path.join(d, f"{i}_{side}_cta0.csv")
            if os.path.exists(path):
                print(f"{i:>5} {side:<6} {summary(intervals(path, line))}")


if __name__ == "__main__":
    main()
