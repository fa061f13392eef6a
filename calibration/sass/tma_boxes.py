#!/usr/bin/env python3
"""Instructions between consecutive TMA box loads (UTMALDG) in SASS, and what they are.

    python3 calibration/sass/tma_boxes.py KERNEL.sass [MORE.sass ...]

Reads `cuobjdump --dump-sass` output (of `cuda_dump`'s CUBINs). For each UTMALDG after the
first of a run of boxes (a run ends where more than 40 instructions separate two boxes),
prints the instructions since the previous one: how many, how many `R2UR` (an ordinary
register moved to a uniform one, the copy's operands being per-thread values), how many on
the uniform datapath (`U*` opcodes) and how many vector ALU ones, and whether the copy sits in
an `ELECT` / `BRA.U.ANY` loop.
"""
import re
import sys

INSTR = re.compile(r"\s+/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)")


def instructions(path):
    out = []
    for line in open(path):
        m = INSTR.match(line)
        if m:
            out.append(m.group(2))
    return out


def main():
    for path in sys.argv[1:]:
        ops = instructions(path)
        boxes = [i for i, op in enumerate(ops) if op.startswith("UTMALDG")]
        print(f"{path}: {len(ops)} instructions, {len(boxes)} UTMALDG, "
              f"{sum(op.startswith('BRA.U.ANY') for op in ops)} BRA.U.ANY")
        for prev, cur in zip(boxes, boxes[1:]):
            if cur - prev > 40:
                print("  --")
                continue
            between = ops[prev + 1:cur]
            r2ur = sum(op.startswith("R2UR") for op in between)
            uniform = sum(op.startswith("U") for op in between)
            vector = len(between) - r2ur - uniform
            print(f"  box at {cur}: {len(between)} since the last ({r2ur} R2UR, {uniform} uniform, {vector} other)")


if __name__ == "__main__":
    main()
