#!/usr/bin/env python3
"""A kernel's waves on one time base for every SM: when each wave's CTAs start and store, and
how fast the whole GPU drains a wave's epilogue stores (calibration item 28).

    waves_global.py ID_gpu_ctas.csv:BYTES ...    # BYTES: the output bytes one CTA stores

`ID_gpu_ctas.csv` (`validate op-times --gpu --record-ctas N`) gives each CTA's first op, first
`store_global` and end in its SM's `clock64`, and the GPU's `%globaltimer` (ns) read right
after that end. The SMs' cycle counters differ by offsets; the global timer does not. Per
SM the end cycles against the end times give the clock (cycles per ns, the median over the
SMs of each one's slope from its first CTA's end to its last) and the SM's offset (the median
over its CTAs of `cycle - clock x ns`); every mark then goes onto one base, in cycles of
that clock. What is left of each end after the fit (`residual`) says how well the base
holds: the global timer ticks every 32 ns, and the clock moves a little during a run.

Per wave (the k-th CTA of every SM): the spread of its CTAs' starts and first stores over
the SMs, its store window (the first CTA's first store to the last CTA's end) and the rate
at which the wave's stores left over that window, bytes over time at the fitted clock. The
window runs to the last warp's end (its stores issued, perhaps not all written yet), so the
wave's stores take at least that long: the rate is an upper bound.
"""

import collections
import csv
import statistics
import sys

from epilogue_waves import quantile


def ctas_by_sm(path):
    """Per SM, its CTAs as (start, store, end, end_ns), in start order, relative to the run's
    first start and first global time (so that products stay exact in floating point)."""
    rows = [r for r in csv.DictReader(open(path)) if r["start"] and r["store"] and r["end"] and r["end_ns"]]
    if not rows:
        sys.exit(f"{path}: no CTA with a start, a store, an end and its global time (an older file?)")
    c0 = min(int(r["start"]) for r in rows)
    n0 = min(int(r["end_ns"]) for r in rows)
    per_sm = collections.defaultdict(list)
    for r in rows:
        per_sm[int(r["sm"])].append(
            (int(r["start"]) - c0, int(r["store"]) - c0, int(r["end"]) - c0, int(r["end_ns"]) - n0)
        )
    return {sm: sorted(v) for sm, v in per_sm.items()}


def report(path, cta_bytes):
    per_sm = ctas_by_sm(path)
    slopes = [(v[-1][2] - v[0][2]) / (v[-1][3] - v[0][3]) for v in per_sm.values() if len(v) > 1 and v[-1][3] > v[0][3]]
    if not slopes:
        sys.exit(f"{path}: every SM ran one CTA; the clock needs two ends on one SM")
    clock = statistics.median(slopes)
    offset = {sm: statistics.median(c[2] - clock * c[3] for c in v) for sm, v in per_sm.items()}
    residual = [c[2] - clock * c[3] - offset[sm] for sm, v in per_sm.items() for c in v]
    print(f"{path} ({len(per_sm)} SMs, {cta_bytes} bytes stored per CTA)")
    print()
    print(
        f"Clock {clock:.4f} cycles/ns (the SMs' slopes p10-p90 {quantile(slopes, 0.1):.4f}-{quantile(slopes, 0.9):.4f}); "
        f"an end's residual on the common base p10 / p90 {quantile(residual, 0.1):.0f} / {quantile(residual, 0.9):.0f} cycles."
    )
    print()
    print("| wave | CTAs | starts: p10-p90 / p0-p100 spread | first stores: p0-p100 spread | store window | bytes | rate, TB/s |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for wave in range(max(len(v) for v in per_sm.values())):
        ctas = [(c[0] - offset[sm], c[1] - offset[sm], c[2] - offset[sm]) for sm, v in per_sm.items() if len(v) > wave for c in [v[wave]]]
        starts = [c[0] for c in ctas]
        stores = [c[1] for c in ctas]
        window = max(c[2] for c in ctas) - min(stores)
        total = cta_bytes * len(ctas)
        rate = total / window * clock * 1e9 / 1e12
        print(
            f"| {wave} | {len(ctas)} | {quantile(starts, 0.9) - quantile(starts, 0.1):,.0f} / {max(starts) - min(starts):,.0f} "
            f"| {max(stores) - min(stores):,.0f} | {window:,.0f} | {total / 2**20:.1f} MiB | {rate:.2f} |"
        )
    print()


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for arg in sys.argv[1:]:
        path, _, size = arg.rpartition(":")
        if not path or not size.isdigit():
            sys.exit(f"{arg}: expected ID_gpu_ctas.csv:BYTES")
        report(path, int(size))


if __name__ == "__main__":
    main()
