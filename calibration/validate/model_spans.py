#!/usr/bin/env python3
"""Cycles a pass of each warp in each of the model's ops, from a timeline written by
`validate run --reports DIR` (DIR/ID.json): per warp of the traced CTAs, the summed length of
its spans by source line and op, and the gaps between them, divided by its passes (the
`wgmma` groups it issued, one a k-step in the GEMMs). Set beside `flat_regions.py`, which reads
the same per-warp cycles from the H200's stall sampling.

    python3 calibration/validate/model_spans.py DIR/ID.json [DIR/ID.json ...]

A timeline keeps at most its span limit (the report says how many it dropped), so a long
one-SM run covers its first passes only; the divisor is the passes it covers."""
import json
import re
import sys
from collections import defaultdict


def per_warp(path):
    d = json.load(open(path))
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in d["traceEvents"]
             if e.get("ph") == "M" and e["name"] == "thread_name"}
    spans = defaultdict(list)
    for e in d["traceEvents"]:
        name = names.get((e.get("pid"), e.get("tid")), "")
        m = re.search(r"\bwarp (\d+) `", name)
        if e.get("ph") == "X" and m:
            spans[int(m.group(1))].append(e)
    table = {}
    for w, seq in spans.items():
        seq.sort(key=lambda e: e["args"]["start_cycle"])
        # A group: a run of spans of one source line holding a `wgmma` issue (a group lowered
        # MMA by MMA, its descriptor arithmetic between them, is one run).
        runs = [[]]
        for e in seq:
            if runs[-1] and runs[-1][-1]["args"].get("source") != e["args"].get("source"):
                runs.append([])
            runs[-1].append(e)
        passes = max(1, sum(any(e["name"].startswith("wgmma issue") for e in run) for run in runs))
        row = defaultdict(float)
        for a, b in zip(seq, seq[1:]):
            x = a["args"]
            line = x.get("source", "").rsplit(":", 1)[-1]
            op = re.sub(r"\[\d+\]| \(parity \d\)", "", a["name"])
            row[(line, op)] += (x["end_cycle"] - x["start_cycle"]) / passes
            row[("", "gap")] += (b["args"]["start_cycle"] - x["end_cycle"]) / passes
        row[("", "passes")] = passes
        table[w] = row
    return d["otherData"].get("cycles"), table


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        cycles, table = per_warp(path)
        warps = sorted(table)
        print(f"{path}: {cycles} cycles")
        print(f"  {'line op':40s}" + "".join(f"{'w' + str(w):>8s}" for w in warps))
        for key in sorted({k for row in table.values() for k in row}):
            vals = [table[w].get(key, 0.0) for w in warps]
            if max(vals) < 0.5:
                continue
            print(f"  {(key[0] + ' ' + key[1]).strip()[:40]:40s}" + "".join(f"{v:8.1f}" for v in vals))


main()
