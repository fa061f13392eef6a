#!/usr/bin/env python3
"""Stall reasons of the timed work in item 38's kernels (`bench_in_flight in_flight`), from
the Nsight Compute source page `run_interfere_mode.sh in_flight` writes
(`results/in_flight/in_flight_ncu.csv.gz`: three launches of each kernel, warp sampling every
64 cycles). The timed work is every instruction between the loop's two `CS2R ..., SR_CLOCKLO`
(the chain or the releases); each kernel's three launches are summed.

    python3 calibration/in_flight_stalls.py [results/in_flight/in_flight_ncu.csv.gz]
"""
import collections
import csv
import gzip
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def kernels(path):
    """Each profiled launch: (kernel name, header, rows)."""
    out, cur = [], None
    with gzip.open(path, "rt") as f:
        for r in csv.reader(f):
            if r and r[0] == "Kernel Name":
                cur = [r[1], None, []]
                out.append(cur)
            elif r and r[0] == "Address" and cur:
                cur[1] = r
            elif cur and cur[1] and len(r) == len(cur[1]):
                cur[2].append(r)
    return out


def timed(header, rows):
    """The rows between the loop's two clock reads: of the stretches between consecutive
    `SR_CLOCKLO` reads, the most executed (ptxas peels the loop's first passes)."""
    execs = header.index("Instructions Executed")
    clocks = [i for i, r in enumerate(rows) if "SR_CLOCKLO" in r[1]]
    if len(clocks) < 2:
        sys.exit("no pair of clock reads")
    spans = [rows[a + 1:b] for a, b in zip(clocks, clocks[1:])]
    return max(spans, key=lambda span: sum(int(r[execs] or 0) for r in span))


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "results/in_flight/in_flight_ncu.csv.gz")
    sums = collections.OrderedDict()
    for name, h, rows in kernels(path):
        ix = {n: i for i, n in enumerate(h)}
        reasons = [n for n in h if n.startswith("stall_") and "Not Issued" not in n]
        acc = sums.setdefault(name, collections.Counter())
        for r in timed(h, rows):
            for n in reasons:
                acc[n[6:]] += int(r[ix[n]] or 0)
            acc["#instructions"] += 1
    print("stall reasons of the timed work, share of its samples (three launches each)")
    for name, acc in sums.items():
        n = acc.pop("#instructions") // 3
        total = sum(acc.values())
        top = ", ".join(f"{k} {v / total:.1%}" for k, v in acc.most_common(5) if v)
        print(f"  {name.split('(long')[0].replace('void ', '')}: {n} instructions, {total} samples: {top}")


if __name__ == "__main__":
    main()
