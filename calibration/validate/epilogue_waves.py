#!/usr/bin/env python3
"""The waves of a one-CTA-per-SM kernel, CTA by CTA: how long each CTA's main loop and its
epilogue's global stores take, how long an SM waits between one CTA's end and the next CTA's
first op, and how far the SMs drift apart from wave to wave.

    epilogue_waves.py ID_gpu_ctas.csv ...     # op timestamps on the GPU (`validate op-times --gpu`)
    epilogue_waves.py --model ID.json ...     # the model's timeline (`validate run --reports DIR --trace-ctas 4`)

GPU marks are each SM's `clock64`, which differ between SMs by an offset; so the drift is
measured per SM from its own first CTA (a wave's start against the first wave's start on the
same SM) and compared across SMs, which needs no common clock. The CTA's `end` is its last
warp's return, after its stores issued (their data may still be on the way to L2).
"""

import argparse
import collections
import csv
import json


def quantile(values, p):
    s = sorted(values)
    return s[int(p * (len(s) - 1))]


def gpu_ctas(path):
    """Per SM, its CTAs as (start, store, end) in start order."""
    per_sm = collections.defaultdict(list)
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["start"] and r["store"] and r["end"]:
                per_sm[r["sm"]].append((int(r["start"]), int(r["store"]), int(r["end"])))
    return {sm: sorted(v) for sm, v in per_sm.items()}


def model_ctas(path):
    """Per SM of the model's timeline, its CTAs as (start, store, end): a CTA's epilogue is a
    run of `st.global` spans, the next CTA starts with the first span after it."""
    trace = json.load(open(path))
    names = {}
    for e in trace["traceEvents"]:
        if e.get("ph") == "M" and e["name"] == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]
    spans = collections.defaultdict(list)
    for e in trace["traceEvents"]:
        a = e.get("args", {})
        if e.get("ph") == "X" and "start_cycle" in a and "CTA" in names.get((e["pid"], e["tid"]), ""):
            spans[e["pid"]].append((a["start_cycle"], a["end_cycle"], e["name"].startswith("st.global")))
    per_sm = {}
    for sm, v in spans.items():
        v.sort()
        ctas, start, store, end, stores_end = [], v[0][0], None, 0, 0
        for s, e, is_store in v:
            # The CTA ends where a span starts after its stores (and every store so far).
            if store is not None and not is_store and s > stores_end:
                ctas.append((start, store, end))
                start, store, end = s, None, 0
            if is_store:
                store = s if store is None else store
                stores_end = max(stores_end, e)
            end = max(end, e)
        if store is not None:
            ctas.append((start, store, end))
        per_sm[sm] = ctas
    return per_sm


def summary(per_sm):
    lines = ["| wave | CTAs | main loop p10 / p50 / p90 | epilogue (first store to end) p10 / p50 / p90 | "
             "gap to the next CTA, p50 | start against wave 0, p10-p90 spread |",
             "| ---: | ---: | ---: | ---: | ---: | ---: |"]
    waves = max(len(v) for v in per_sm.values())
    for w in range(waves):
        ctas = [(v, v[w]) for v in per_sm.values() if len(v) > w]
        main = [c[1] - c[0] for _, c in ctas]
        epi = [c[2] - c[1] for _, c in ctas]
        gaps = [v[w + 1][0] - c[2] for v, c in ctas if len(v) > w + 1]
        drift = [c[0] - v[0][0] for v, c in ctas]
        fmt = lambda xs: " / ".join(f"{quantile(xs, p):,}" for p in (0.1, 0.5, 0.9))
        gap = f"{quantile(gaps, 0.5):,}" if gaps else "-"
        spread = f"{quantile(drift, 0.9) - quantile(drift, 0.1):,}" if w else "-"
        lines.append(f"| {w} | {len(ctas)} | {fmt(main)} | {fmt(epi)} | {gap} | {spread} |")
    return "\n".join(lines)


def correlation(a, b):
    n = len(a)
    ma, mb = sum(a) / n, sum(b) / n
    sa = (sum((x - ma) ** 2 for x in a) / n) ** 0.5
    sb = (sum((y - mb) ** 2 for y in b) / n) ** 0.5
    return sum((x - ma) * (y - mb) for x, y in zip(a, b)) / (n * sa * sb) if sa and sb else float("nan")


def persistence(per_sm):
    """Whether an SM's place in the first wave's epilogue is a property of the SM: its first
    epilogue against its second wave's start (drift) and its second epilogue, and the SMs
    fastest through the first epilogue."""
    two = {sm: v for sm, v in per_sm.items() if len(v) > 1}
    if len(two) < 3:
        return ""
    first = [v[0][2] - v[0][1] for v in two.values()]
    drift = [v[1][0] - v[0][0] for v in two.values()]
    second = [v[1][2] - v[1][1] for v in two.values()]
    fastest = sorted(two, key=lambda sm: two[sm][0][2] - two[sm][0][1])[:8]
    return (f"An SM's wave-0 epilogue against its wave-1 start (drift): correlation "
            f"{correlation(first, drift):.2f}; against its wave-1 epilogue: {correlation(first, second):.2f}. "
            f"Fastest through wave 0's epilogue: SMs {', '.join(str(sm) for sm in fastest)}.")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--model", action="store_true", help="the files are model timelines (ID.json)")
    args = ap.parse_args()
    for path in args.files:
        per_sm = model_ctas(path) if args.model else gpu_ctas(path)
        print(f"{path} ({'model' if args.model else 'GPU'}, {len(per_sm)} SMs)\n")
        print(summary(per_sm))
        print()
        print(persistence(per_sm))
        print()


if __name__ == "__main__":
    main()
