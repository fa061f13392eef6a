#!/usr/bin/env python3
"""Hand-off latencies of a pipeline from op timestamps: GPU marks beside the model's.

    python3 calibration/validate/handoff.py DIR ID ISSUE COMMIT PASSED [RELEASE STAGES]

Reads `DIR/ID_gpu_cta0.csv` and `DIR/ID_model_cta0.csv` (`validate op-times --gpu` and
`--compare`: one mark where a warp enters each marked line). ISSUE is the producer's line of
its first copy of a stage, COMMIT its line after the last copy (the `expect_tx` arrive), and
PASSED the consumers' line after their wait on the full stage (its mark is where the wait
returned). Per k-step, with the producer's i-th marks and the i-th mark of the first consumer
warp past its wait: issue -> passed, commit -> passed, and the consumers' k-step. With
RELEASE (the consumers' release line, its mark where they enter it) and STAGES (the ring's
depth), also the wake: the last consumer warp entering its release of k-step i to the
producer past its acquire of the same stage, k-step i + STAGES. Medians and
p10/p90 over k-steps after the first four. A GPU mark costs cycles where it sits (`docs/
validation.md`, "Op by op"), so the GPU's issue span is slowed by its marks; a copy in flight
is not.
"""
import csv
import os
import sys
from collections import defaultdict


def marks(path):
    by = defaultdict(list)
    with open(path) as f:
        for r in csv.DictReader(f):
            by[(int(r["warp"]), r["role"], int(r["line"]))].append(int(r["cycle"]))
    return by


def records(d, ids):
    """Each configuration's raw marks in `d`, GPU then model: prints the configuration's
    header, yields `(side, path)` for each file there and names the one missing."""
    for cid in ids:
        print(f"#{cid}")
        for side in ("gpu", "model"):
            path = os.path.join(d, f"{cid}_{side}_cta0.csv")
            if os.path.exists(path):
                yield side, path
            else:
                print(f"  {side}: no {path}")


def spread(xs):
    xs = sorted(xs)
    if not xs:
        return "no k-steps"
    return f"median {xs[len(xs) // 2]:6d}  p10 {xs[len(xs) // 10]:6d}  p90 {xs[9 * len(xs) // 10]:6d}"


def handoff(path, issue, commit, passed, release=None):
    by = marks(path)
    producers = sorted(w for (w, role, line) in by if role == "producer" and line == issue)
    consumers = sorted(w for (w, role, line) in by if role == "consumer" and line == passed)
    if not producers or not consumers:
        raise SystemExit(f"{path}: no producer marks on line {issue} or consumer marks on line {passed}")
    p = producers[0]
    first, last = by[(p, "producer", issue)], by[(p, "producer", commit)]
    past = [by[(w, "consumer", passed)] for w in consumers]
    n = min(len(first), len(last), *(len(x) for x in past))
    full = [min(x[i] for x in past) for i in range(n)]
    skip = 4 if n > 8 else 0
    out = {
        "k-steps": n,
        "first copy -> consumer past its wait": spread([full[i] - first[i] for i in range(skip, n)]),
        "expect_tx arrive -> consumer past its wait": spread([full[i] - last[i] for i in range(skip, n)]),
        "consumer k-step": spread([full[i + 1] - full[i] for i in range(skip, n - 1)]),
    }
    if release is not None:
        line, stages = release
        released = [by[(w, "consumer", line)] for w in consumers]
        m = min(len(first), *(len(x) for x in released))
        end = [max(x[i] for x in released) for i in range(m)]
        out["last release -> producer past its acquire"] = spread(
            [first[i + stages] - end[i] for i in range(skip, m - stages)]
        )
    return out


def main():
    if len(sys.argv) not in (6, 8):
        raise SystemExit(__doc__)
    d, cid = sys.argv[1], sys.argv[2]
    issue, commit, passed = (int(x) for x in sys.argv[3:6])
    release = (int(sys.argv[6]), int(sys.argv[7])) if len(sys.argv) == 8 else None
    print(f"#{cid}: producer line {issue} (first copy) to {commit} (expect_tx arrive); consumers past their wait at line {passed}")
    for side in ("gpu", "model"):
        path = os.path.join(d, f"{cid}_{side}_cta0.csv")
        if not os.path.exists(path):
            print(f"  {side}: no {path}")
            continue
        h = handoff(path, issue, commit, passed, release)
        print(f"  {side} ({h.pop('k-steps')} k-steps of CTA 0)")
        for k, v in h.items():
            print(f"    {k:<44} {v}")


if __name__ == "__main__":
    main()
