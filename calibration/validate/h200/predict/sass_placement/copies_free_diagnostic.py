#!/usr/bin/env python3
"""The diagnostic without loads: the model now, with the placement alone, with the placement
and the x1.60 stretch, and with the placement alone once the group start delays only a
group's first MMA (`start_once`: the fix that followed the trial), each in cycles beside the H200's build without TMA loads
(`../../copies_free/copies_free.md`, its "without loads" column), and the FA3 deltas against
ping-pong + overlap.

    python3 calibration/validate/h200/predict/sass_placement/copies_free_diagnostic.py

The rows (`diagnostic_copies_free_*.csv`, log beside them): `validate run --ids ...
--clocks-from calibration/validate/model_clock.csv --copies-free`, then with
`--mma-placement calibration/validate/mma_placement.csv` and with that and
`--descriptor-latency-factor-own 1.6`; `_placement_start_once.csv` with the placement alone
and the build with the fix (`runtime/src/sim/sm/units.rs`); `_placement_fence.csv` with the
placement and `--wgmma-group-start-from-fence` (the group start from the fence, before the
arithmetic of the first MMA's descriptors)."""
import csv
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))


def h200():
    out = {}
    for line in open(os.path.join(HERE, "..", "..", "copies_free", "copies_free.md")):
        m = re.match(r"\| (\d+) \| ([^|]+)\| ([\d,]+) \| ([\d,]+) \|", line)
        if m and int(m.group(1)) not in out:
            out[int(m.group(1))] = (m.group(2).strip(), int(m.group(4).replace(",", "")))
    return out


def model(name):
    with open(os.path.join(HERE, name)) as f:
        return {int(r["id"]): int(r["model_burst_cycles"]) for r in csv.DictReader(f) if r["model_burst_cycles"]}


h = h200()
names = ("current", "placement", "trial", "placement_start_once", "placement_fence")
now, placed, both, once, fence = (model(f"diagnostic_copies_free_{n}.csv") for n in names)
print("| # | configuration | H200 without loads | model now | placement | placement and x1.60 | placement, start once "
      "| placement, start from the fence |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for i in sorted(set(now) & set(placed) & set(both) & set(once) & set(fence)):
    name, cycles = h[i]
    cell = lambda m: f"{m[i]:,} ({100 * (m[i] / cycles - 1):+.1f}%)"  # noqa: E731
    print(f"| {i} | {name} | {cycles:,} | {cell(now)} | {cell(placed)} | {cell(both)} | {cell(once)} | {cell(fence)} |")
print()
print("| delta against ping-pong + overlap | H200 | model now | placement | placement and x1.60 | placement, start once "
      "| placement, start from the fence |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for base, ids in ((70, (71, 72, 73)), (120, (121, 122, 123))):
    for i in ids:
        delta = lambda m: f"{100 * (m[i] / m[base] - 1):+.1f}%"  # noqa: E731
        ours = 100 * (h[i][1] / h[base][1] - 1)
        print(f"| {h[i][0]} | {ours:+.1f}% | {delta(now)} | {delta(placed)} | {delta(both)} | {delta(once)} "
              f"| {delta(fence)} |")
