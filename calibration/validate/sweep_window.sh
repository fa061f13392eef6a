#!/usr/bin/env bash
# The L2 request coalescer's window against its counters: predicts configurations of the
# split with several windows on every CPU core of a machine (the GPU machine's 16 cores; no
# GPU needed), from a directory holding the release binary, split.csv and the prediction
# file whose counts fix each run's clock (as predict.sh):
#
#   bash sweep_window.sh JOBS     JOBS: one line per run, "id window"
#
# Writes $OUT/sweep/ID_WINDOW.csv (one model row; column model_l2_coalesced) and .log. The
# sweep behind l2.coalescing_window_cycles: the nine ws_gemm configurations with coalescer
# counters (0 5 10 20 25 30 35 40 50) at windows 4 8 16 32 64,
# calibration/results/l2_coalescer/window_sweep.txt.
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/sweep-out}
mkdir -p "$OUT/sweep"
export HERE OUT
start=$(date +%s)
timeout "${SWEEP_TIMEOUT:-400}" xargs -P "$(nproc)" -L 1 sh -c '
    "$HERE/validate" run --split "$HERE/split.csv" --ids "$1" --clocks-from "$HERE/model_all.csv" \
        --l2-coalescing-window "$2" --model-out "$OUT/sweep/$1_$2.csv" > "$OUT/sweep/$1_$2.log" 2>&1' sh < "$1"
echo "exit $?, $(( $(date +%s) - start )) s" > "$OUT/sweep/done.txt"
