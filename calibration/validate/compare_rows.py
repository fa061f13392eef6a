#!/usr/bin/env python3
"""A trial prediction of some FA3 rows beside the current one, against the H200.

For a model file from `validate run --model-out` that holds only some configurations (a
trial of a model change on a subset), prints for those rows, and for the same rows of the
current prediction: burst and sustained error against the H200's measurement (from
`results_clock.csv`, the report of the current prediction), their mean absolute value and
bias per set, and the FA3 ablation deltas (each schedule against ping-pong + overlap at the
same shape, burst) within 3 points with the measured sign.

    python3 calibration/validate/compare_rows.py TRIAL.csv [TRIAL.csv ...] [--deltas] [--family F]

`--deltas` also prints every delta, the current and the trial prediction beside the H200's;
`--family` keeps one family's rows (a file of GEMM rows read family by family).

Several trial files are merged (later ones win). Only rows the trial has are compared; a
delta needs its shape's ping-pong + overlap row in the trial too.
"""

import argparse
import collections
import csv
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def read_model(path):
    rows = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r.get("model_burst_ms"):
                rows[int(r["id"])] = (float(r["model_burst_ms"]), float(r["model_sust_ms"]))
    return rows


def read_measured(path):
    meas, info = {}, {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["meas_burst_ms"] and r["meas_sust_ms"]:
                i = int(r["id"])
                meas[i] = (float(r["meas_burst_ms"]), float(r["meas_sust_ms"]))
                info[i] = (r["family"], r["shape"], r["variant"], r["set"])
    return meas, info


def errors(model, meas, ids, k):
    return [100.0 * (model[i][k] / meas[i][k] - 1.0) for i in ids]


def summary(name, model, meas, info, ids):
    for s in ("calibration", "heldout"):
        sel = [i for i in ids if info[i][3] == s]
        if not sel:
            continue
        b, u = errors(model, meas, sel, 0), errors(model, meas, sel, 1)
        n = len(sel)
        print(
            f"  {name:8s} {s:11s} {n:3d} rows  burst MAE {sum(map(abs, b)) / n:5.2f}% "
            f"(bias {sum(b) / n:+5.2f}%)  sustained MAE {sum(map(abs, u)) / n:5.2f}% (bias {sum(u) / n:+5.2f}%)"
        )
    within = total = wrong = 0
    dist = []
    per_variant = collections.defaultdict(lambda: [0, 0])
    for (_, variant), (pred, measd) in deltas(model, meas, info, ids).items():
        total += 1
        same_sign = (pred > 0) == (measd > 0)
        wrong += not same_sign
        close = same_sign and abs(pred - measd) <= 3.0
        within += close
        per_variant[variant][0] += close
        per_variant[variant][1] += 1
        dist.append(abs(pred - measd))
    if total:
        print(
            f"  {name:8s} ablation deltas: {within} of {total} within 3 points with the measured sign, "
            f"{wrong} with the sign wrong, mean distance {sum(dist) / total:.1f} points"
        )
        print("  " + " " * 8 + " by schedule: " + ", ".join(
            f"{v} {c} of {n}" for v, (c, n) in sorted(per_variant.items())))


def deltas(model, meas, info, ids):
    """Each FA3 schedule's burst time against ping-pong + overlap at the same shape, in
    percent, predicted and measured, by (shape, schedule)."""
    by_shape = collections.defaultdict(dict)
    for i in ids:
        by_shape[info[i][1]][info[i][2]] = i
    out = {}
    for shape, variants in sorted(by_shape.items()):
        base = variants.get("pingpong+overlap")
        if base is None:
            continue
        for variant, i in sorted(variants.items()):
            if i != base:
                out[(shape, variant)] = (100.0 * (model[i][0] / model[base][0] - 1.0),
                                         100.0 * (meas[i][0] / meas[base][0] - 1.0))
    return out


def head_dim(shape):
    """`b16h32s1024d64c` -> 64; 0 for a GEMM's `MxNxK`."""
    return int(shape.split("d")[-1].rstrip("c")) if "d" in shape else 0


def by_schedule(model, meas, info, ids):
    """Mean burst error per schedule and head dimension (0: a GEMM)."""
    groups = collections.defaultdict(list)
    for i in ids:
        groups[(info[i][2], head_dim(info[i][1]))].append(errors(model, meas, [i], 0)[0])
    return {k: (sum(v) / len(v), len(v)) for k, v in groups.items()}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("trial", nargs="+", help="model files of the trial (validate run --model-out)")
    p.add_argument("--current", default=os.path.join(HERE, "model_clock.csv"), help="the current prediction")
    p.add_argument("--deltas", action="store_true", help="print every ablation delta")
    p.add_argument("--measured", default=os.path.join(HERE, "results_clock.csv"), help="its report, with the H200's times")
    p.add_argument("--family", help="only this family's rows (fa3, ws_gemm, tradeoff, cluster_gemm)")
    a = p.parse_args()
    trial = {}
    for path in a.trial:
        trial.update(read_model(path))
    current = read_model(a.current)
    meas, info = read_measured(a.measured)
    ids = sorted(i for i in trial if i in meas and i in current and a.family in (None, info[i][0]))
    print(f"{len(ids)} rows: burst error, current -> trial")
    for i in ids:
        fam, shape, variant, s = info[i]
        c, t = errors(current, meas, [i], 0)[0], errors(trial, meas, [i], 0)[0]
        print(f"  #{i:<4d} {shape:18s} {variant:17s} {s:11s} {c:+6.1f}% -> {t:+6.1f}%")
    summary("current", current, meas, info, ids)
    summary("trial", trial, meas, info, ids)
    before, after = by_schedule(current, meas, info, ids), by_schedule(trial, meas, info, ids)
    print("mean burst error per schedule, current -> trial (rows)")
    for (variant, d) in sorted(before, key=lambda k: (k[1], k[0])):
        (b, n), (t, _) = before[(variant, d)], after[(variant, d)]
        print(f"  d {d:3d} {variant:17s} {b:+6.1f}% -> {t:+6.1f}%  ({n})")
    if a.deltas:
        print("ablation deltas (burst, against ping-pong + overlap): current -> trial, H200")
        now = deltas(current, meas, info, ids)
        for key, (t, m) in deltas(trial, meas, info, ids).items():
            print(f"  {key[0]:18s} {key[1]:17s} {now[key][0]:+6.1f}% -> {t:+6.1f}%   H200 {m:+6.1f}%")


if __name__ == "__main__":
    main()
