#!/usr/bin/env python3
"""Dynamic instruction mix of one main-loop iteration of the generated FA3 consumer.

Reads the `nvdisasm -gi -c` disassembly of the FA3-style kernel (see README.md) and walks
one iteration of the consumer's overlapped main loop along its unmasked path:

- the loop is the one holding the kernel's only `WARPGROUP.DEPBAR.LE gsb0, 0x1` (wait for
  `S_j`, leaving `P_{j-1} V_{j-1}` in flight); its head is the target of the backward
  branch that closes it;
- from the head to that wait: turn-taking, the waits for K and V, the `S = Q K^T` group
  (shared-memory operands) and the `O += P V` group (A in registers);
- after the wait, the conditional branch over the mask is taken (an unmasked block) to its
  target; from there to the `WARPGROUP.DEPBAR.LE gsb0, 0x0` is the softmax;
- from that wait to the next unconditional branch, and from its target to the loop's
  closing branch: the rescale of O, the cast of P and the loop counter.

Retry loops of blocking waits sit out of line and are not counted (each wait is counted
once, as if it passed at the first test). Prints per region the count of each opcode and
the totals by the pipe the timing model charges them to.

    python3 loop_mix.py fa3_bf16_d128.dis
"""

import collections
import re
import sys

INSTR = re.compile(r"\s+/\*([0-9a-f]{4,5})\*/\s+(.*?)\s*;")
LABEL = re.compile(r"^(\.L_x_\d+):")
TARGET = re.compile(r"`\((\.L_x_\d+)\)")

# The pipe the model charges each opcode to (runtime/src/sim/lower.rs), by the opcode's
# first component; anything else is control, synchronisation or uniform-datapath work.
PIPES = {
    "FFMA": "fma", "FADD": "fma", "FMUL": "fma", "IMAD": "fma", "MOV": "fma", "R2UR": "fma",
    "FMNMX": "alu", "F2FP": "alu", "LOP3": "alu", "SHF": "alu", "IADD3": "alu", "ISETP": "alu",
    "FSEL": "alu", "SEL": "alu", "LEA": "alu", "VIADD": "alu", "PLOP3": "alu",
    "MUFU": "mufu", "SHFL": "lsu", "HGMMA": "tensor",
}


def parse(path):
    """(address, opcode, text) of every instruction, and each label's address."""
    instrs, labels, pending = [], {}, []
    for line in open(path):
        label = LABEL.match(line.strip())
        if label:
            pending.append(label.group(1))
            continue
        m = INSTR.match(line)
        if m:
            addr, text = int(m.group(1), 16), m.group(2)
            words = text.split()
            op = words[1] if words[0].startswith("@") else words[0]
            instrs.append((addr, op, text))
            for name in pending:
                labels[name] = addr
            pending = []
    return instrs, labels


def target(text, labels):
    m = TARGET.search(text)
    return labels.get(m.group(1)) if m else None


def regions(instrs, labels):
    """The regions of one iteration of the consumer's main loop, `(name, lo, hi)` address
    ranges along its unmasked path."""
    addrs = [a for a, _, _ in instrs]
    at = {a: i for i, a in enumerate(addrs)}
    waits1 = [a for a, op, t in instrs if op.startswith("WARPGROUP.DEPBAR") and t.endswith("0x1")]
    if len(waits1) != 1:
        sys.exit(f"expected one WARPGROUP.DEPBAR.LE gsb0, 0x1, found {len(waits1)}")
    d1 = waits1[0]
    closing = [
        (a, target(t, labels))
        for a, op, t in instrs
        if a > d1 and op.startswith("BRA") and t.startswith("@") and (target(t, labels) or d1) < d1
    ]
    # The loop's closing branch reaches back furthest among those that stay after the
    # previous full wait (the prologue's `S_0` wait).
    prior = max(a for a, op, t in instrs if a < d1 and op.startswith("WARPGROUP.DEPBAR"))
    close_at, head = max(((a, h) for a, h in closing if h > prior), key=lambda x: d1 - x[1])
    skip = next(a for a, op, t in instrs if a > d1 and op == "BRA" and t.startswith("@"))
    unmasked = target(instrs[at[skip]][2], labels)
    d0 = next(a for a, op, t in instrs if a > unmasked and op.startswith("WARPGROUP.DEPBAR"))
    jump = next(a for a, op, t in instrs if a > d0 and op == "BRA" and not t.startswith("@"))
    resume = target(instrs[at[jump]][2], labels)
    found = [
        ("GEMMs: turn, waits, S = Q K^T (SS), O += P V (RS)", head, d1),
        ("softmax (unmasked path)", unmasked, d0),
        ("rescale O, cast P", d0, jump + 1),
        ("loop counter", resume, close_at + 1),
    ]
    # The branch over the mask itself.
    found.insert(1, ("wait S, mask test", d1, skip + 1))
    return found


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: loop_mix.py KERNEL.dis")
    instrs, labels = parse(sys.argv[1])
    total = collections.Counter()
    pipes = collections.Counter()
    for name, lo, hi in regions(instrs, labels):
        counts = collections.Counter(op for a, op, _ in instrs if lo <= a < hi)
        print(f"{name}: [{lo:#x}, {hi:#x}) {sum(counts.values())} instructions")
        for op, n in counts.most_common():
            print(f"    {n:4d}  {op}")
        total.update(counts)
    for op, n in total.items():
        pipes[PIPES.get(op.split(".")[0], "other")] += n
    print(f"one iteration, per warp: {sum(total.values())} instructions")
    for pipe, n in pipes.most_common():
        print(f"    {n:4d}  {pipe}")


if __name__ == "__main__":
    main()
