#!/usr/bin/env python3
"""Where each kernel's compiled code builds its wgmma groups' descriptors: the table
`validate run --mma-placement` reads (`kernel,form,counts`).

    target/release/validate cubins --out DIR          # NVRTC, no GPU
    for f in DIR/*.cubin; do nvdisasm -hex -c $f > ${f%.cubin}.hex.dis; done
    python3 calibration/sass/mma_placement.py DIR/*.hex.dis > calibration/validate/mma_placement.csv

A group runs from its fence (`WARPGROUP.ARRIVE`) to the `HGMMA` that closes it (`gsb0`); its
counts are the instructions before each of its `HGMMA`, the first counted from the fence
(`25 42 5 0`: 25 instructions, an `HGMMA`, 42, an `HGMMA`, 5, one, none, one). Per operand
form (SS: A from a descriptor; RS: A in registers) the kernel's main loop is the group at the
greatest loop depth (loops: backward branches; the peeled first iteration and the prologue sit
shallower); where several sit there (one CUBIN, several schedules' paths), the element-wise
mean, rounded. The kernel is the file's name up to its first dot, as `validate cubins` names
it."""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixed_stalls import HGMMA, functions_of, unpredicated  # noqa: E402

LABEL = re.compile(r"^\s*\.L_x_(\d+):")
OFFSET = re.compile(r"/\*([0-9a-f]{4,5})\*/")
TARGET = re.compile(r"\bBRA\s+`\(\.L_x_(\d+)\)")


def labels(path):
    """Each label's offset (the instruction after it)."""
    out, pending = {}, []
    for line in open(path):
        m = LABEL.match(line)
        if m:
            pending.append(m.group(1))
            continue
        m = OFFSET.search(line)
        if m and pending:
            out.update((p, int(m.group(1), 16)) for p in pending)
            pending = []
    return out


def groups(path):
    """The longest function's groups: (offset of the fence, form, counts, loop depth)."""
    name, instrs = max(functions_of(path).items(), key=lambda kv: len(kv[1]))
    at_label = labels(path)
    loops = []
    for at, text, _ in instrs:
        m = TARGET.search(text)
        if m and m.group(1) in at_label and at_label[m.group(1)] < at:
            loops.append((at_label[m.group(1)], at))
    out, open_group = [], None
    for at, text, _ in instrs:
        bare = unpredicated(text)
        m = HGMMA.search(bare)
        if bare.startswith("WARPGROUP.ARRIVE"):
            open_group = (at, [], [0])
        elif open_group and m:
            start, counts, run = open_group
            counts.append(run[0])
            run[0] = 0
            if "gsb0" in bare:
                form = "SS" if m.group(2).startswith("gdesc") else "RS"
                depth = sum(lo <= start <= hi for lo, hi in loops)
                out.append((start, form, counts, depth))
                open_group = None
        elif open_group:
            open_group[2][0] += 1
    return name, out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print("# the instructions before each HGMMA of a kernel's main-loop group: calibration/sass/mma_placement.py")
    print("kernel,form,counts")
    for path in sorted(sys.argv[1:]):
        kernel = os.path.basename(path).split(".")[0]
        _, found = groups(path)
        if not found:
            sys.exit(f"{path}: no wgmma group (disassemble with `nvdisasm -hex -c`)")
        by_form = collections.defaultdict(list)
        for _, form, counts, depth in found:
            by_form[form].append((depth, counts))
        for form in sorted(by_form):
            deepest = max(d for d, _ in by_form[form])
            chosen = [c for d, c in by_form[form] if d == deepest]
            if len({len(c) for c in chosen}) != 1:
                sys.exit(f"{path}: {form} groups of different sizes at depth {deepest}: {chosen}")
            mean = [round(sum(col) / len(chosen)) for col in zip(*chosen)]
            print(f"{kernel},{form},{' '.join(map(str, mean))}")


if __name__ == "__main__":
    main()
