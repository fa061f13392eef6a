#!/usr/bin/env bash
# The kernels with and without their TMA loads' memory cost, on the GPU machine: the same
# configurations measured by run.sh twice in one call, first as generated (`plain/`), then
# built with WS_COPIES_FREE (`free/`: every TMA load copies nothing and a stage is full at its
# producer's arrival; `validate run --copies-free`, `Cuda::without_copies`). Burst figures
# are what this diagnostic reads; the sustained phase is kept short (1.2 s: its window is 1 s). From the checkout the
# `run` device tool sends, with the release binary and split.csv in .gpu-carry/validate/:
#
#   cargo build --release -p warpspec-validate
#   mkdir -p .gpu-carry/validate && cp target/release/validate calibration/validate/split.csv \
#       calibration/validate/run.sh calibration/validate/copies_free.sh .gpu-carry/validate/
#   strip .gpu-carry/validate/validate
#   (run tool, carry [".gpu-carry"]): bash .gpu-carry/validate/copies_free.sh --ids 70,71,...
#
# The model's side: `validate run --ids ID --clock-ghz GHZ [--copies-free]` on any machine.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=${OUT:-$PWD/copies-free-out}
for mode in plain free; do
    extra=()
    [ "$mode" = free ] && extra=(--copies-free)
    OUT=$ROOT/$mode CUBLAS="" SUSTAINED_S=${SUSTAINED_S:-1.2} REST_S=${REST_S:-0.5} SWEEP_TIMEOUT=${SWEEP_TIMEOUT:-270} \
        bash "$HERE/run.sh" "$@" "${extra[@]}"
done
