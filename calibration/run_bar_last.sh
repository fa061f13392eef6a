#!/usr/bin/env bash
# Builds and runs src/bench_bar_last.cu (item 29: what the warps that reach a bar.sync last
# pay for it, in four code shapes after the barrier; one CTA on one SM) and prints its table.
# On the device tool:  bash calibration/run_bar_last.sh      (writes into $OUT)
# Anywhere else:       bash calibration/run_bar_last.sh [outdir] (default: calibration/results/bar_last)
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
OUTDIR="${1:-${OUT:-$HERE/results/bar_last}}"
bash "$HERE/run_single.sh" bar_last "$OUTDIR"
cat "$OUTDIR/bar_last.log"
