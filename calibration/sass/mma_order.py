#!/usr/bin/env python3
"""Where the HGMMA of each wgmma group sit among the other instructions of the generated
kernels' SASS: for every kernel with a stall-sampling export in
calibration/results/validate_stalls/ (ID_sass.csv.gz, Nsight Compute's source view), the
instructions between consecutive HGMMA, WARPGROUP.ARRIVE (a group's fence) and
WARPGROUP.DEPBAR (wgmma.wait_group), in program order.

    python3 calibration/sass/mma_order.py [DIR]

A line reads `|ARRIVE 25 42 5 0 |DEPBAR`: after the arrive, 25 instructions, an HGMMA, 42
more, an HGMMA, 5, an HGMMA, none, an HGMMA, then the wait."""
import csv
import glob
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "validate"))
from stalls import open_text  # noqa: E402

DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "results", "validate_stalls")


def order(path):
    with open_text(path) as f:
        kernel = next(f).split(",")[1].strip('"')
        rows = list(csv.DictReader(f))
    out, n = [], 0
    for r in rows:
        s = r["Source"].strip()
        if "HGMMA" in s:
            out.append(str(n))
            n = 0
        elif s.startswith("WARPGROUP."):
            out.append("|" + s.split()[0][len("WARPGROUP."):])
            n = 0
        else:
            n += 1
    return kernel, " ".join(out)


def key(path):
    return int(os.path.basename(path).split("_")[0])


for path in sorted(glob.glob(os.path.join(DIR, "*_sass.csv*")), key=key):
    kernel, seq = order(path)
    print(f"#{key(path):<4} {kernel:<20} {seq}")
