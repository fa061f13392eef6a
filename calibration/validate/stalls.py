#!/usr/bin/env python3
"""Cycles per execution of code regions, from Nsight Compute's per-instruction stall sampling.

    python3 calibration/validate/stalls.py [DIR] > DIR/regions.txt

Reads `ncu_stalls.sh` output in DIR (default calibration/results/validate_stalls): per
configuration ID, `ID_sass.csv.gz` (each SASS instruction with its warp samples and executions;
an uncompressed `ID_sass.csv` is read as well)
and `ID.txt` (elapsed SM cycles). A region is a range of SASS offsets of the kernel (from
`cuobjdump -sass` of the CUBIN `examples/cuda_dump.rs` writes; the same NVRTC, so the same
code). With W warps resident per SM for the whole kernel (one CTA per SM), a region's share
of all samples times W x 132 SMs x elapsed cycles is the warp-cycles spent in it; divided by
its executions (the most-executed instruction of the region), the cycles one warp spends in
it per pass.

The sampler works per SM sub-partition: at each interval every sub-partition samples one of
its own active warps. A warp on a sub-partition of n live warps therefore gets 1/n of that
sub-partition's samples, not 1/W of the SM's, and where the live warps do not spread evenly
over the four sub-partitions (the 9-warp GEMMs: the producer warp 0 shares sub-partition 0
with the consumer warps 4 and 8, the other three hold two warps each) a region's cycles
must be weighted by where the warps that run it sit. Warp w sits on sub-partition w % 4.
With r = all samples / (4 x 132 x elapsed) samples per sub-partition-cycle, a region run by
the warps S, each `passes / |S|` times, takes

    cycles per pass = samples / (r x passes / |S| x sum over w in S of 1 / n(w))

(for an even spread this is the share formula above). The check that the sampler is per
sub-partition: in ws_gemm_128x128_p2 (#0, #1) the producer warp's code holds 8.96% and 8.63%
as many samples as the rest of the kernel, where a per-SM sampler would give it 1/8 of the
eight consumer warps' (12.5%) and a per-sub-partition one 1/3 / (2 x 1/3 + 6 x 1/2) = 9.09%.
Before this weighting the producer's regions of the 9-warp kernels, and the release of their
consumer warpgroups' leaders (warps 4 and 8, on the producer's sub-partition), read 25% low.
That is an estimate still: warps that exit early (the producer warpgroup's idle warps) are
not counted as live.
"""
import csv
import gzip
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "calibration/results/validate_stalls")
SMS = 132

# (configuration id, kernel, live warps of a CTA (warp indices), regions as (name, first
# offset, end offset[, warps that run it (default: every live warp)[, passes when not the
# executions of its most-executed instruction: a count, or another region's name]]))
# The warp-specialized GEMMs: the producer warp 0 (warps 1-3 of its warpgroup exit at once)
# and two consumer warpgroups, warps 4-7 and 8-11, whose leaders (4, 8) release the stages.
WS_LIVE = [0] + list(range(4, 12))
PRODUCER = [0]
CONSUMERS = list(range(4, 12))
LEADERS = [4, 8]
# ws_gemm_128x128_p2's regions (one CUBIN for every shape).
WS_128X128_P2 = [
    ("consumer: full-stage wait", 0x06E0, 0x0730, CONSUMERS),
    ("consumer: wgmma issue (4 HGMMA)", 0x0730, 0x0C20, CONSUMERS),
    ("consumer: wgmma.wait_group 0", 0x0C20, 0x0C30, CONSUMERS),
    ("consumer: release, loop", 0x0C30, 0x0D60, CONSUMERS),
    ("producer: empty-stage wait", 0x4210, 0x4230, PRODUCER),
    ("producer: TMA issue, 3 boxes", 0x4230, 0x4560, PRODUCER),
    # Its BSYNC runs twice a pass: one pass per k-step, as the TMA issue.
    ("producer: loop", 0x4560, 0x45F0, PRODUCER, "producer: TMA issue, 3 boxes"),
    ("ring: release (1 warp of 4)", 0x0C40, 0x0CF0, LEADERS),
    ("ring: stage, phase, loop", 0x0D00, 0x0D60, CONSUMERS),
]



def shifted(regions, by):
    """`regions` of a CUBIN whose code is the same as another's moved by `by` bytes (the
    deeper rings of ws_gemm 128x128 initialise more barriers before the same loops)."""
    return [(r[0], r[1] + by, r[2] + by, *r[3:]) for r in regions]


# flat_128x256_p4's regions (v1 and v1+bar.sync: one CUBIN).
FLAT_128X256_P4 = [
    ("loop head", 0x2A50, 0x2AB0),
    ("full-stage wait", 0x2AB0, 0x2BB0),
    ("wgmma issue", 0x2BB0, 0x2DC0),
    ("wgmma.wait_group 0", 0x2DC0, 0x2DD0),
    ("release", 0x2DD0, 0x2EB0),
    ("bar.sync, loader test", 0x2EB0, 0x2F00),
    ("acquire (empty-stage wait)", 0x2F00, 0x3050),
    ("TMA issue, 5 boxes", 0x3050, 0x3570),
    ("loop tail", 0x3570, 0x3600),
    ("ring: release (1 warp of 4)", 0x2DE0, 0x2E90),
    ("ring: acquire, to the try_wait", 0x2F00, 0x2FD0),
    ("ring: acquire, try_wait", 0x2FD0, 0x3010),
    ]

KERNELS = [
    (56, "flat_128x256_p4, v1 (8192^3)", list(range(8)), FLAT_128X256_P4),
    # The same CUBIN with the coupling bar.sync on (its branch at 0x2EB0 taken).
    (58, "flat_128x256_p4, v1+bar.sync (8192^3)", list(range(8)), FLAT_128X256_P4),
    (0, "ws_gemm_128x128_p2 (8192^3)", WS_LIVE, WS_128X128_P2),
    (1, "ws_gemm_128x128_p2 (4096^3)", WS_LIVE, WS_128X128_P2),
    # 3 and 4 stages: the same loops 0x80 and 0x100 bytes later (TRYWAIT, HGMMA, DEPBAR,
    # arrive and UTMALDG each at the 2-stage offset plus that).
    (5, "ws_gemm_128x128_p3 (8192^3)", WS_LIVE, shifted(WS_128X128_P2, 0x80)),
    (10, "ws_gemm_128x128_p4 (8192^3)", WS_LIVE, shifted(WS_128X128_P2, 0x100)),
    (57, "flat_128x256_p4, v2 (8192^3)", list(range(8)), [
        ("loop head, full-stage wait", 0x11C0, 0x1320),
        ("wgmma issue (2 HGMMA)", 0x1320, 0x1530),
        ("wgmma.wait_group 1", 0x1530, 0x1540),
        ("release", 0x1540, 0x1600),
        ("bar.sync, loader test", 0x1600, 0x1660),
        ("acquire (empty-stage wait)", 0x1660, 0x17B0),
        ("TMA issue, 5 boxes", 0x17B0, 0x1CC0),
        ("loop tail (stage, phase, k)", 0x1CC0, 0x1D50),
        ("ring: release (1 warp of 4)", 0x1550, 0x15F0),
        ("ring: acquire, to the try_wait", 0x1660, 0x1730),
        ("ring: acquire, try_wait", 0x1730, 0x1770),
        ("ring: acquire, stage, phase", 0x1770, 0x17B0),
    ]),
    # The attention kernels at b8 h16 s2048 d128 (held out): the non-specialized worker's
    # loader (2 warpgroups) and FA3's producer warpgroup (all 4 warps run its loop, one
    # issues), from the acquire's return to the expect_tx arrive of a K or a V load.
    (129, "flat_bf16_d128 (b8 h16 s2048)", list(range(8)), [
        ("loader: K, TMA issue, 2 boxes", 0x2470, 0x26A0),
        ("loader: V, TMA issue, 2 boxes", 0x6420, 0x6660),
    ]),
    (125, "fa3_bf16_d128 (b8 h16 s2048)", list(range(12)), [
        ("producer: K, TMA issue, 2 boxes", 0x10EB0, 0x110F0),
        ("producer: V, TMA issue, 2 boxes", 0x11240, 0x11450),
    ]),
    (55, "ws_128x256_p4 (8192^3)", WS_LIVE, [
        ("consumer: full-stage wait", 0x09D0, 0x0A40, CONSUMERS),
        ("consumer: wgmma issue", 0x0A40, 0x0D00, CONSUMERS),
        ("consumer: wgmma.wait_group 0", 0x0D00, 0x0D10, CONSUMERS),
        ("consumer: release, loop", 0x0D10, 0x0E40, CONSUMERS),
        ("producer: empty-stage wait", 0x6B70, 0x6B90, PRODUCER),
        ("producer: TMA issue, 5 boxes", 0x6B90, 0x7000, PRODUCER),
        ("producer: loop", 0x7000, 0x70A0, PRODUCER, "producer: TMA issue, 5 boxes"),
        ("ring: release (1 warp of 4)", 0x0D20, 0x0DD0, LEADERS),
        ("ring: stage, phase, loop", 0x0DE0, 0x0E40, CONSUMERS),
    ]),
    (25, "ws_gemm_128x256_p2 (8192^3)", WS_LIVE, [
        ("consumer: full-stage wait", 0x08D0, 0x0920, CONSUMERS),
        ("consumer: wgmma issue", 0x0920, 0x0E50, CONSUMERS),
        ("consumer: wgmma.wait_group 0", 0x0E50, 0x0E60, CONSUMERS),
        ("consumer: release, loop", 0x0E60, 0x0F90, CONSUMERS),
        ("producer: empty-stage wait", 0x6C70, 0x6CE0, PRODUCER),
        ("producer: TMA issue, 5 boxes", 0x6CE0, 0x7150, PRODUCER),
        ("producer: loop", 0x7150, 0x71E0, PRODUCER, "producer: TMA issue, 5 boxes"),
        ("ring: release (1 warp of 4)", 0x0E70, 0x0F20, LEADERS),
        ("ring: stage, phase, loop", 0x0F30, 0x0F90, CONSUMERS),
    ]),
    (35, "ws_gemm_128x256_p4 (8192^3)", WS_LIVE, [
        ("consumer: full-stage wait", 0x09D0, 0x0A20, CONSUMERS),
        ("consumer: wgmma issue", 0x0A20, 0x0F50, CONSUMERS),
        ("consumer: wgmma.wait_group 0", 0x0F50, 0x0F60, CONSUMERS),
        ("consumer: release, loop", 0x0F60, 0x1090, CONSUMERS),
        ("producer: empty-stage wait", 0x6D70, 0x6DE0, PRODUCER),
        ("producer: TMA issue, 5 boxes", 0x6DE0, 0x7250, PRODUCER),
        ("producer: loop", 0x7250, 0x72E0, PRODUCER, "producer: TMA issue, 5 boxes"),
        ("ring: release (1 warp of 4)", 0x0F70, 0x1020, LEADERS),
        ("ring: stage, phase, loop", 0x1030, 0x1090, CONSUMERS),
    ]),
    (37, "ws_gemm_128x256_p4 (8192x8192x1024)", WS_LIVE, [
        ("consumer: main loop (16 k-steps)", 0x09C0, 0x1050, CONSUMERS),
        # Once per consumer warp (2048 CTAs x 8), its code partly in a loop.
        ("consumer: store_global (64x256 f32)", 0x1050, 0x6700, CONSUMERS, 16384),
        ("exit (stores drain)", 0x6700, 0x6710),
    ]),
]


def samples_path(d, cid):
    """Configuration `cid`'s per-instruction samples in `d`: `ID_sass.csv.gz` as committed, or
    `ID_sass.csv` as `ncu --page source --csv` writes it; None if neither is there."""
    for name in (f"{cid}_sass.csv.gz", f"{cid}_sass.csv"):
        if os.path.exists(os.path.join(d, name)):
            return os.path.join(d, name)
    return None


def open_text(path):
    """`path` for reading as text, through gzip where it ends in `.gz`."""
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def open_samples(d, cid):
    path = samples_path(d, cid)
    if path is None:
        sys.exit(f"#{cid}: no {cid}_sass.csv.gz or {cid}_sass.csv in {d} (ncu_stalls.sh output)")
    return open_text(path)


def load(cid, d=None, with_reasons=False):
    """Configuration `cid`'s SASS rows (offset, source, samples, executions) and elapsed SM
    cycles, from `ncu_stalls.sh` output in `d` (default: this script's directory argument).
    With `with_reasons` each row also carries `{reason: samples}` (the `stall_*` columns;
    Nsight Compute 2025 adds each reason's not-issued samples, which are left out)."""
    d = d or DIR
    with open_samples(d, cid) as f:
        rows = list(csv.reader(f))
    head = next(i for i, r in enumerate(rows) if r and r[0] == "Address")
    h = rows[head]
    idx = {n: i for i, n in enumerate(h)}
    data = [r for r in rows[head + 1:] if len(r) == len(h)]
    base = int(data[0][0], 16)
    text = open(os.path.join(d, f"{cid}.txt")).read()
    elapsed = float(re.search(r"Elapsed Cycles\s+cycle\s+([\d,]+)", text).group(1).replace(",", ""))
    why = [n for n in h if n.startswith("stall_") and "(" not in n]
    out = []
    for r in data:
        count = lambda name: int(r[idx[name]].replace(",", "") or 0)
        row = (int(r[0], 16) - base, r[idx["Source"]].strip(), count("Warp Stall Sampling (All Samples)"),
               count("Instructions Executed"))
        out.append(row + ({n[len("stall_"):]: count(n) for n in why},) if with_reasons else row)
    return out, elapsed


def main():
    print("Cycles per pass of each code region, per warp (Nsight Compute stall sampling, H200, clocks free;")
    print("each warp weighted by the live warps of its sub-partition, warp w on w % 4):")
    for cid, name, live, regions in KERNELS:
        rows, elapsed = load(cid)
        total = sum(s for _, _, s, _ in rows)
        per_smsp = {q: sum(1 for w in live if w % 4 == q) for q in range(4)}
        rate = total / (sum(1 for n in per_smsp.values() if n) * SMS * elapsed)
        print(f"\n#{cid} {name}: {elapsed:,.0f} cycles, {len(live)} live warps per SM "
              f"({'/'.join(str(per_smsp[q]) for q in range(4))} per sub-partition)")
        print(f"  {'region':<30} {'instrs':>6} {'passes':>9} {'share':>6} {'cycles/pass':>11} {'per instr':>9}")
        for region, lo, hi, *given in regions:
            warps = given[0] if given else live
            sel = [r for r in rows if lo <= r[0] < hi]
            samples = sum(r[2] for r in sel)
            passes = given[1] if len(given) > 1 else max((r[3] for r in sel), default=0)
            if isinstance(passes, str):  # as many passes as the named region
                named = next(g for g in regions if g[0] == passes)
                passes = max((r[3] for r in rows if named[1] <= r[0] < named[2]), default=0)
            weight = sum(1 / per_smsp[w % 4] for w in warps) / len(warps)
            cyc = samples / (rate * passes * weight) if passes else 0.0
            print(f"  {region:<30} {len(sel):>6} {passes:>9} {100 * samples / total:>5.1f}% {cyc:>11.0f} {cyc / max(len(sel), 1):>9.2f}")


if __name__ == "__main__":
    main()
