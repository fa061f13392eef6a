#!/usr/bin/env python3
"""Cycles per pass of the non-specialized GEMM's (`flat_128x256_p4`) loop regions, from
Nsight Compute's stall sampling, located by landmarks in the SASS rather than by offsets (so
that the builds with and without loads, whose offsets differ, read alike).

    python3 calibration/validate/flat_regions.py DIR ID [ID ...] [--sms N]

DIR holds `ncu_stalls.sh` output: ID_sass.csv.gz (every SASS instruction with its samples and
executions) and ID.txt (Elapsed Cycles). Every warp of the 8-warp CTA sits on its own
sub-partition pair (two per sub-partition), so each sample stands for the same warp-cycles:
elapsed x SMs x 8 warps / samples (132 SMs, or --sms: 1 for the one-SM rows of item 30).
The main loop is every instruction executed at least a fiftieth as often as the most
executed one; its regions, in program order: the loop head to the full-stage `try_wait`,
from it to the branch on its result (the next `wgmma`'s descriptor arithmetic runs there),
the rest of the descriptors to the first `HGMMA`, that `HGMMA` (where a warpgroup's warps
wait for each other), the second group's descriptors and `HGMMA`, `WARPGROUP.DEPBAR`
(the `wgmma.wait_group`), the release (one warp of each warpgroup), what lies between it
and the acquire (the `bar.sync` where there is one), the acquire (the loading warpgroup's
four warps), the boxes and the `expect_tx` arrive (one warp; the `expect_tx` alone without
loads) and the loop tail. A region's cycles are per pass of one warp that runs it."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stalls import load  # noqa: E402


def regions(sass, elapsed, sms=132):
    """`(name, instructions, passes, cycles a pass, rows)` of each region; `sass` holds
    `(source, samples, executions, offset)` rows in program order."""
    per_sample = elapsed * sms * 8 / sum(x[1] for x in sass)
    most = max(x[2] for x in sass)
    loop = [x for x in sass if x[2] >= most / 50]
    full = loop[0][2]
    at = lambda word, after=0: next(i for i in range(after, len(loop)) if word in loop[i][0])
    trywait = at("TRYWAIT")
    branch = at("BRA", trywait)
    hgmma = at("HGMMA")
    hgmma2 = at("HGMMA", hgmma + 1)
    depbar = at("DEPBAR")
    release = next(i for i in range(depbar, len(loop)) if loop[i][2] < 0.3 * full)
    release_end = next(i for i in range(release, len(loop)) if loop[i][2] >= 0.3 * full)
    acquire = [i for i in range(release_end, len(loop)) if 0.4 * full < loop[i][2] < 0.6 * full]
    box_warp = [i for i in range(release_end, len(loop)) if loop[i][2] < 0.2 * full]
    last = max(acquire + box_warp) + 1
    cuts = [
        ("loop head to the try_wait", range(0, trywait + 1)),
        ("try_wait to its branch", range(trywait + 1, branch + 1)),
        ("descriptors to the first HGMMA", range(branch + 1, hgmma)),
        ("first HGMMA", range(hgmma, hgmma + 1)),
        ("second group's descriptors, HGMMA", range(hgmma + 1, hgmma2 + 1)),
        ("wgmma.wait_group", range(depbar, depbar + 1)),
        ("release (one warp a warpgroup)", range(release, release_end)),
        ("to the acquire (bar.sync)", range(release_end, min(acquire))),
        ("acquire (the loading warpgroup)", acquire),
        ("boxes, expect_tx (one warp)", box_warp),
        ("loop tail", range(last, len(loop))),
    ]
    out = []
    for name, part in cuts:
        part = [loop[i] for i in part]
        if not part:
            continue
        samples = sum(x[1] for x in part)
        passes = max(x[2] for x in part)
        out.append((name, len(part), passes, samples * per_sample / passes, part))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", help="ncu_stalls.sh output")
    ap.add_argument("ids", nargs="+", help="configurations")
    ap.add_argument("--sms", type=int, default=132, help="SMs the kernel ran on (1 for the one-SM rows)")
    a = ap.parse_args()
    for i in a.ids:
        rows, elapsed = load(i, a.dir)
        print(f"#{i}: {elapsed:,.0f} cycles")
        sass = [(source, samples, execs, offset) for offset, source, samples, execs in rows]
        for name, n, passes, cycles, _ in regions(sass, elapsed, a.sms):
            print(f"  {name:36s} {n:3d} instrs {passes:9d} passes {cycles:7.1f} cycles a pass")


if __name__ == "__main__":
    main()
