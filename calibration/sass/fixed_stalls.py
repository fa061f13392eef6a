#!/usr/bin/env python3
"""The fixed stalls ptxas writes into each SASS instruction, read from the CUBIN's encoding.

Every Volta-and-later instruction is 128 bits; its top 23 bits are the scheduling control
the compiler sets (Jia et al., Dissecting the NVIDIA Volta GPU Architecture via
Microbenchmarking, arXiv 1804.06826, Sec. 2.1): bits 105-108 the stall count (cycles before
the warp may issue its next instruction), 109 the yield flag, 110-112 and 113-115 the
scoreboards this instruction sets on write and on read (7: none), 116-121 the mask of
scoreboards it waits for, 122-125 the operand reuse flags. `nvdisasm -hex` prints each
instruction's two 64-bit words; the control is the high word shifted right by 41. The
stall counts are what Nsight Compute's `wait` stall reason samples ("waiting on a fixed
latency execution dependency"): a warp's instructions cannot issue faster than the sum of
their counts, whatever the pipes do.

    # the FA3 consumer's main loop, region by region (loop_mix.py's walk):
    python3 fixed_stalls.py loop KERNEL.hex.dis
    # the non-specialized GEMM's loop regions (calibration/validate/flat_regions.py) from
    # ncu_stalls.sh output, each region's measured cycles beside its fixed stalls:
    python3 fixed_stalls.py regions KERNEL.hex.dis DIR ID [ID ...] [--sms N]
    # each function's longest loop in any dump (cuobjdump -sass too, gzipped or not):
    python3 fixed_stalls.py loops DUMP PATTERN
    # the arithmetic between consecutive MMAs of a group (the descriptors of the next one),
    # per function, MMA shape and operand form, from nvdisasm -hex output:
    python3 fixed_stalls.py gaps KERNEL.hex.dis [KERNEL.hex.dis ...]
    # the FA3 consumer's S and P V issue regions (fa3_loop_regions.py's landmarks), cut at
    # each HGMMA, the measured cycles of each piece (ncu_stalls.sh output) beside its stalls:
    python3 fixed_stalls.py issue KERNEL.hex.dis DIR ID [ID ...] [--warps 12]

KERNEL.hex.dis is `nvdisasm -hex -c KERNEL.cubin` (README.md says how to get the CUBIN)."""

import argparse
import collections
import gzip
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "validate"))
import fa3_loop_regions  # noqa: E402
import loop_mix  # noqa: E402
from flat_regions import regions as flat_regions  # noqa: E402
from stalls import load, samples_path  # noqa: E402

LOW = re.compile(r"/\*([0-9a-f]{4,5})\*/.*/\* 0x([0-9a-f]{16}) \*/\s*$")
HIGH = re.compile(r"^\s*/\* 0x([0-9a-f]{16}) \*/\s*$")

Control = collections.namedtuple("Control", "stall yield_flag write read wait reuse")


def controls(path):
    """Each instruction's control, by its offset."""
    lines = open(path).read().splitlines()
    out = {}
    for line, following in zip(lines, lines[1:]):
        low, high = LOW.search(line), HIGH.match(following)
        if low and high:
            c = int(high.group(1), 16) >> 41
            out[int(low.group(1), 16)] = Control(
                stall=c & 0xF, yield_flag=(c >> 4) & 1, write=(c >> 5) & 7, read=(c >> 8) & 7,
                wait=(c >> 11) & 0x3F, reuse=(c >> 17) & 0xF)
    if not out:
        sys.exit(f"{path}: no instruction encodings (disassemble with `nvdisasm -hex -c`)")
    return out


def loop(path):
    ctl = controls(path)
    instrs, labels = loop_mix.parse(path)
    total_n = total_s = 0
    by_op = collections.defaultdict(lambda: [0, 0])
    print(f"{path}: one iteration of the consumer's main loop, per warp")
    print(f"  {'region':52s} {'instrs':>6s} {'fixed stalls':>12s} {'waits on a scoreboard':>22s}")
    for name, lo, hi in loop_mix.regions(instrs, labels):
        sel = [(a, op) for a, op, _ in instrs if lo <= a < hi]
        stalls = sum(ctl[a].stall for a, _ in sel)
        waiting = sum(1 for a, _ in sel if ctl[a].wait)
        print(f"  {name[:52]:52s} {len(sel):6d} {stalls:12d} {waiting:22d}")
        total_n += len(sel)
        total_s += stalls
        for a, op in sel:
            by_op[op.split(".")[0]][0] += 1
            by_op[op.split(".")[0]][1] += ctl[a].stall
    print(f"  {'whole iteration':52s} {total_n:6d} {total_s:12d}")
    print("  by opcode: instructions, fixed stalls (mean)")
    for op, (n, s) in sorted(by_op.items(), key=lambda kv: -kv[1][1]):
        print(f"    {op:10s} {n:4d} {s:5d} ({s / n:.2f})")


FUNCTION = re.compile(r"Function : (\S+)|^\s*\.section\s+\.text\.([^,\s]+)")
BRANCH = re.compile(r"\bBRA\s+(?:`\(\.L_x_\d+\)\s*;|0x([0-9a-f]+))")


def functions_of(path):
    """Each function's instructions in a dump: (offset, text, stall count)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        lines = f.read().splitlines()
    functions, name = {}, None
    for line, following in zip(lines, lines[1:] + [""]):
        m = FUNCTION.search(line)
        if m:
            name = m.group(1) or m.group(2)
            functions[name] = []
            continue
        low, high = LOW.search(line), HIGH.match(following)
        if name and low and high:
            text = line.split("*/", 1)[1].rsplit("/*", 1)[0].strip().rstrip(";").strip()
            stall = (int(high.group(1), 16) >> 41) & 0xF
            functions[name].append((int(low.group(1), 16), text, stall))
    return functions


def loops(path, pattern):
    """Per function whose name holds `pattern`: its longest loop (the backward branch
    spanning the most code), instructions and fixed stalls, the mean per instruction."""
    functions = functions_of(path)
    for name, instrs in functions.items():
        if pattern not in name:
            continue
        spans = []
        for at, text, _ in instrs:
            m = BRANCH.search(text)
            if m and m.group(1) and int(m.group(1), 16) < at:
                spans.append((int(m.group(1), 16), at))
        if not spans:
            print(f"{name}: no backward branch")
            continue
        lo, hi = max(spans, key=lambda sp: sp[1] - sp[0])
        body = [stall for at, _, stall in instrs if lo <= at <= hi]
        print(f"{name}: loop {lo:#x}-{hi:#x}, {len(body)} instructions, {sum(body)} cycles of fixed "
              f"stalls ({sum(body) / len(body):.2f} an instruction)")


HGMMA = re.compile(r"HGMMA\.(\d+x\d+x\d+)\.\S+\s+R\d+,\s*(\S+?),")
STOPS = ("BRA", "BAR", "WARPSYNC", "SYNCS", "WARPGROUP.DEPBAR", "EXIT", "BSYNC")


def unpredicated(text):
    """An instruction's text without its guard predicate (`@!P3 MOV ...` -> `MOV ...`)."""
    return text.split(" ", 1)[1] if text.startswith("@") else text


def gaps(paths):
    """Per function, MMA shape and operand form (SS: A from a descriptor; RS: A in
    registers): the instructions between an HGMMA and the next one of the same group (no
    branch, barrier or wait between, the first not closing its group with `gsb0`), their
    count and the sum of their stall counts. That arithmetic builds the next MMA's
    descriptors, so it is the least time between the two MMAs' issue in one warp."""
    for path in paths:
        for name, instrs in functions_of(path).items():
            table = collections.defaultdict(list)
            prev = None
            for k, (at, text, stall) in enumerate(instrs):
                bare = unpredicated(text)
                m = HGMMA.search(bare)
                if m:
                    form = "SS" if m.group(2).startswith("gdesc") else "RS"
                    if prev is not None:
                        between = instrs[prev + 1:k]
                        if not any(unpredicated(t).startswith(STOPS) for _, t, _ in between):
                            table[(m.group(1), form)].append((len(between), sum(s for _, _, s in between)))
                    prev = None if "gsb0" in bare else k
                elif bare.startswith(STOPS):
                    prev = None
            if not table:
                continue
            print(f"{os.path.basename(path)} {name}")
            for (shape, form), rows in sorted(table.items()):
                n = sum(r[0] for r in rows)
                s = sum(r[1] for r in rows)
                print(f"  {shape:10s} {form}: {len(rows):3d} gaps, {n / len(rows):5.1f} instructions and "
                      f"{s / len(rows):5.1f} cycles of fixed stalls a gap ({s / n:.2f} an instruction)")


def regions(path, d, ids, sms):
    ctl = controls(path)
    ops = {a: op for a, op, _ in loop_mix.parse(path)[0]}
    for i in ids:
        rows, elapsed = load(i, d)
        for offset, source, _, _ in rows:
            # The profiled build: the profile's instructions are the disassembly's.
            words = source.split()
            op = words[1] if words[0].startswith("@") else words[0]
            if ops.get(offset) != op:
                sys.exit(f"#{i}: {op} at {offset:#x}, {ops.get(offset)} in {path}: not the profiled build")
        sass = [(source, samples, execs, offset) for offset, source, samples, execs in rows]
        print(f"#{i}: {elapsed:,.0f} cycles; per pass of one warp that runs the region")
        print(f"  {'region':36s} {'instrs':>6s} {'measured':>9s} {'fixed stalls':>12s}")
        for name, n, passes, cycles, part in flat_regions(sass, elapsed, sms):
            fixed = sum(ctl[x[3]].stall * x[2] for x in part) / passes
            print(f"  {name:36s} {n:6d} {cycles:9.1f} {fixed:12.1f}")


def issue(path, d, ids, warps):
    """The FA3 consumer's `S` and `P V` issue regions cut after each `HGMMA`: per piece its
    instructions, the sum of their stall counts, the cycles a pass of one consumer warp the
    H200's samples give it, their ratio and the top stall reasons. The first piece of a group
    runs before the group's first MMA, the others with the warp's own group in flight."""
    ctl = controls(path)
    ops = {a: op for a, op, _ in loop_mix.parse(path)[0]}
    for i in ids:
        if samples_path(d, i) is None:
            sys.exit(f"#{i}: no {i}_sass.csv.gz or {i}_sass.csv in {d} (ncu_stalls.sh output)")
        rows, elapsed = fa3_loop_regions.load(d, i)
        regs, per_sample, passes = fa3_loop_regions.regions(rows, elapsed, warps)
        print(f"#{i}: per pass of one consumer warp")
        print(f"  {'region':9s} {'piece':>5s} {'instrs':>6s} {'stalls':>6s} {'measured':>8s} {'ratio':>5s}  top reasons")
        for name, part in regs:
            if name not in ("S issue", "PV issue"):
                continue
            piece, k = [], 0
            for r in part:
                if ops.get(r[0]) != r[1]:
                    sys.exit(f"#{i}: {r[1]} at {r[0]:#x}, {ops.get(r[0])} in {path}: not the profiled build")
                piece.append(r)
                if r[1].startswith("HGMMA") or r is part[-1]:
                    k += 1
                    fixed = sum(ctl[x[0]].stall for x in piece)
                    cycles = sum(x[3] for x in piece) * per_sample / passes
                    why = collections.Counter()
                    for x in piece:
                        why.update({w: v * per_sample / passes for w, v in x[5].items()})
                    top = " ".join(f"{w} {v:.0f}" for w, v in why.most_common(3))
                    print(f"  {name:9s} {k:5d} {len(piece):6d} {fixed:6d} {cycles:8.0f} {cycles / max(fixed, 1):5.2f}  {top}")
                    piece = []


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    one = sub.add_parser("loop", help="the FA3 consumer's main loop")
    one.add_argument("dis", help="nvdisasm -hex -c output")
    many = sub.add_parser("regions", help="the non-specialized GEMM's loop regions beside Nsight Compute's")
    many.add_argument("dis", help="nvdisasm -hex -c output of the profiled build")
    many.add_argument("dir", help="ncu_stalls.sh output")
    many.add_argument("ids", nargs="+", help="configurations")
    many.add_argument("--sms", type=int, default=132, help="SMs the kernel ran on")
    each = sub.add_parser("loops", help="each matching function's longest loop, in any SASS dump")
    each.add_argument("dis", help="cuobjdump -sass or nvdisasm -hex output (.gz read too)")
    each.add_argument("pattern", help="a part of the function names to read")
    gap = sub.add_parser("gaps", help="the arithmetic between consecutive MMAs of a group")
    gap.add_argument("dis", nargs="+", help="nvdisasm -hex -c output")
    mma = sub.add_parser("issue", help="a consumer's MMA issue (FA3's S and P V, a GEMM's group), piece by piece, beside Nsight Compute's")
    mma.add_argument("dis", help="nvdisasm -hex -c output of the profiled kernel")
    mma.add_argument("dir", help="ncu_stalls.sh output")
    mma.add_argument("ids", nargs="+", help="configurations")
    mma.add_argument("--warps", type=int, default=12, help="live warps a CTA (12: FA3)")
    a = ap.parse_args()
    if a.what == "issue":
        issue(a.dis, a.dir, a.ids, a.warps)
    elif a.what == "loop":
        loop(a.dis)
    elif a.what == "loops":
        loops(a.dis, a.pattern)
    elif a.what == "gaps":
        gaps(a.dis)
    else:
        regions(a.dis, a.dir, a.ids, a.sms)


if __name__ == "__main__":
    main()
