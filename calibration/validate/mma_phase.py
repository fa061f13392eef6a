#!/usr/bin/env python3
"""Where the two warpgroups' MMA groups fall against each other in the non-specialized GEMM:
op timestamps on the GPU beside the model's timeline.

    python3 calibration/validate/mma_phase.py DIR ID [ID ...] [--issue L --release L]

Reads `DIR/ID_gpu_cta0.csv` and `DIR/ID_model_cta0.csv` (`validate op-times --gpu ... --lines`
and `--compare ... --lines`, the same lines: one mark where a warp enters each marked line).
ISSUE is the line of the loop's `wgmma` (its mark: the warp is past its full-stage wait and
about to issue), RELEASE the line of its release (its mark: the warp is past its
`wgmma.wait_group`); defaults: v1's 243 and 245, v2's 225 and 227 (`examples/
gemm_tradeoff_kernels.rs`), whichever the file marks. Warps 0-3 are the loading warpgroup
(warpgroup 0), 4-7 the other (warpgroup 1). A warpgroup's group issues when its last warp
reaches the issue line (the `wgmma` is collective) and is seen complete when its first warp
reaches the release line.

Per pass of warpgroup 0, after the first eight:
- its group: issue to seen complete (cycles);
- warpgroup 1's latest group issued before it: how long before (cycles), and how far it
  runs into warpgroup 0's group (its completion less warpgroup 0's issue, at least 0);
- warpgroup 1's lead (its pass index less warpgroup 0's at that group).
Medians and p10/p90 over passes, and the share of warpgroup 0's groups that warpgroup 1's
latest group is still running into. Where the file also marks the acquire (line 191, the
loading warpgroup's `load`), the hand-off: stage j's acquire by warp 0 to warpgroup 1 past
its wait for stage j (the copies' issue and flight, as warpgroup 1 sees them).
"""
import os
import sys
from bisect import bisect_right

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from handoff import marks, records, spread  # noqa: E402

ROLE = "worker"


def groups(by, warps, issue, release):
    """(issue, seen complete) of each of a warpgroup's groups, by pass."""
    at = {(w, line): by[(w, ROLE, line)] for w in warps for line in (issue, release)}
    n = min(min(len(at[(w, issue)]), len(at[(w, release)])) for w in warps)
    return [(max(at[(w, issue)][i] for w in warps), min(at[(w, release)][i] for w in warps)) for i in range(n)]


def phase(by, issue, release):
    g0 = groups(by, range(0, 4), issue, release)
    g1 = groups(by, range(4, 8), issue, release)
    span0, before, into, lead, hit = [], [], [], [], 0
    starts1 = [s for s, _ in g1]
    for i, (a, done) in enumerate(g0):
        if i < 8:
            continue
        j = bisect_right(starts1, a) - 1
        if j < 0:
            continue
        b, c = g1[j]
        span0.append(done - a)
        before.append(a - b)
        into.append(max(0, c - a))
        lead.append(j - i)
        hit += c > a
    n = len(span0)
    return {
        "passes": n,
        "warpgroup 0's group, issue to seen complete": spread(span0),
        "warpgroup 1's latest group issued before it": spread(before),
        "that group running into warpgroup 0's": spread(into),
        "still running at warpgroup 0's issue": f"{hit / n:.0%} of its groups" if n else "none",
        "warpgroup 1's lead, passes": spread(lead),
        "warpgroup 1's group, issue to seen complete": spread([d - s for s, d in g1[8:]]),
    } | acquire_to_past(by, g1)


ACQUIRE = 191


def acquire_to_past(by, g1):
    """Stage j's acquire (warp 0's mark) to warpgroup 1 past its wait for it, where marked."""
    acquires = by[(0, ROLE, ACQUIRE)]
    # Aligned from the end: one load a stage, the last for the last pass. The model's record
    # keeps one mark where a warp enters a line, so the prologue's back-to-back acquires are
    # one mark there; the loop's are apart.
    skip = len(g1) - len(acquires)
    pairs = [(g1[j][0], acquires[j - skip]) for j in range(max(8, skip), len(g1))]
    if not pairs:
        return {}
    return {"acquire to warpgroup 1 past its wait": spread([past - acquire for past, acquire in pairs])}


def main():
    args = sys.argv[1:]
    lines = {}
    for flag in ("--issue", "--release"):
        if flag in args:
            k = args.index(flag)
            lines[flag] = int(args[k + 1])
            del args[k : k + 2]
    if len(args) < 2:
        raise SystemExit(__doc__)
    for side, path in records(args[0], args[1:]):
        by = marks(path)
        present = {line for (_, _, line) in by}
        issue, release = (243, 245) if 243 in present else (225, 227)
        issue, release = lines.get("--issue", issue), lines.get("--release", release)
        print(f"  {side} (lines {issue}, {release})")
        for k, v in phase(by, issue, release).items():
            print(f"    {k:<48} {v}")


if __name__ == "__main__":
    main()
