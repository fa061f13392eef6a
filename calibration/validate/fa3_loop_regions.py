#!/usr/bin/env python3
"""Cycles per pass of the FA3 consumer's main-loop regions, from Nsight Compute's stall
sampling, located by landmarks in the SASS (so that the four schedules, one CUBIN with
different paths taken, read alike).

    python3 calibration/validate/fa3_loop_regions.py DIR ID [ID ...] [--warps N]

DIR holds `ncu_stalls.sh` output: ID_sass.csv.gz (every SASS instruction with its samples and
executions) and ID.txt (Elapsed Cycles). The FA3 kernel keeps 12 warps a CTA live, three on
each sub-partition (the producer warpgroup's four run its loop), one CTA an SM, so each
sample stands for the same warp-cycles: elapsed x 132 SMs x 12 warps / samples (--warps 8
for the non-specialized kernel). The main loop is the instructions executed exactly as often
as the most executed `HGMMA` of the S group (every consumer warp, every iteration after the
peeled first); it is cut where a landmark begins a step of the DSL's loop:

  turn       `BAR.SYNC` on the turn's named barrier (ping-pong)
  wait       `SYNCS.PHASECHK...TRYWAIT` (a K or V stage's wait) to the next landmark
  S issue    `WARPGROUP.ARRIVE` then the S group's `HGMMA`s and their descriptors
  PV issue   `WARPGROUP.ARRIVE` then the `P V` group (`HGMMA` with a register A)
  pass turn  `BAR.ARV` (ping-pong)
  mma wait   `WARPGROUP.DEPBAR` (`wgmma.wait_group`)
  release    `SYNCS.ARRIVE` (a stage's release)
  softmax    the first `FMNMX` (the row maximum) up to the next landmark

and everything between two landmarks is counted with the earlier one. Printed per region: its
instructions, cycles a pass of one warp, the share of the loop and the top stall reasons; the
sum is the loop's period for one consumer warp."""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stalls  # noqa: E402

LANDMARKS = [
    ("turn", lambda op, src: op.startswith("BAR.SYNC")),
    ("pass turn", lambda op, src: op.startswith("BAR.ARV")),
    ("wait", lambda op, src: "TRYWAIT" in op),
    ("issue", lambda op, src: op == "WARPGROUP.ARRIVE"),
    ("mma wait", lambda op, src: op.startswith("WARPGROUP.DEPBAR")),
    ("release", lambda op, src: op.startswith("SYNCS.ARRIVE")),
]


def load(d, cid):
    """Rows (offset, opcode, source, samples, executions, {reason: samples}) and the elapsed
    cycles of configuration `cid` in directory `d` (`stalls.load`)."""
    rows, elapsed = stalls.load(cid, d, with_reasons=True)
    return [(off, opcode(src), src, samples, execs, why) for off, src, samples, execs, why in rows], elapsed


def opcode(src):
    """An instruction's opcode, without its guard predicate."""
    return re.sub(r"^@!?U?P[T\d]+\s+", "", src).split(" ")[0]


def a_in_smem(src):
    """Whether an `HGMMA`'s A operand is a shared-memory descriptor (SS), not registers (RS)."""
    return src.split(",")[1].strip().startswith("gdesc")


def regions(rows, elapsed, warps, sms=132):
    """The loop's regions as (name, rows), the warp-cycles a sample stands for, and the
    loop's passes (warp-executions of its `S` `HGMMA`)."""
    per_sample = elapsed * sms * warps / sum(r[3] for r in rows)
    passes = max(r[4] for r in rows if r[1].startswith("HGMMA") and a_in_smem(r[2]))
    loop = [r for r in rows if r[4] == passes]
    out = []
    for i, r in enumerate(loop):
        name = next((n for n, test in LANDMARKS if test(r[1], r[2])), None)
        if name == "issue":
            # Which group: the next HGMMA's A operand, a descriptor (S) or registers (P V).
            after = [x for x in loop if x[0] > r[0] and x[1].startswith("HGMMA")]
            name = "S issue" if after and a_in_smem(after[0][2]) else "PV issue"
        if name is None and r[1].startswith("FMNMX") and out and out[-1][0] != "softmax":
            name = "softmax"
        if name is None and out and out[-1][0] not in ("softmax", "cast", "rescale"):
            ahead = [x[1] for x in loop[i:i + 16]]
            if r[1].startswith("F2FP") and sum(op.startswith("F2FP") for op in ahead) >= 8:
                name = "cast"
            elif r[1] == "FMUL" and sum(op == "FMUL" for op in ahead) >= 8:
                name = "rescale"
        if name is not None or not out:
            out.append((name or "loop head", []))
        out[-1][1].append(r)
    return out, per_sample, passes


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("ids", nargs="+")
    ap.add_argument("--warps", type=int, default=12, help="live warps a CTA (12: FA3; 8: non-specialized)")
    a = ap.parse_args()
    for cid in a.ids:
        rows, elapsed = load(a.dir, cid)
        regs, per_sample, passes = regions(rows, elapsed, a.warps)
        total = sum(sum(r[3] for r in rs) for _, rs in regs) * per_sample / passes
        print(f"#{cid}: {elapsed:,.0f} cycles elapsed, loop {sum(len(rs) for _, rs in regs)} instructions, "
              f"{passes} warp-passes, {total:,.0f} cycles a pass of one consumer warp")
        print(f"  {'offset':>6}  {'region':<10} {'instrs':>6} {'cycles':>7} {'share':>6}  top stall reasons (cycles)")
        for name, rs in regs:
            samples = sum(r[3] for r in rs)
            cyc = samples * per_sample / passes
            why = {}
            for r in rs:
                for k, v in r[5].items():
                    why[k] = why.get(k, 0) + v
            top = sorted(((v, k) for k, v in why.items() if v), reverse=True)[:3]
            tops = " ".join(f"{k} {v * per_sample / passes:.0f}" for v, k in top)
            print(f"  {rs[0][0]:>6x}  {name:<10} {len(rs):>6} {cyc:>7.0f} {100 * cyc / total:>5.1f}%  {tops}")
        print()


if __name__ == "__main__":
    main()
