#!/usr/bin/env bash
# One prediction call on the GPU machine's CPUs (the `run` device tool returns only a few
# files): runs predict.sh on JOBS, then writes into $OUT_FINAL the merged rows (model.csv),
# predict.log, nproc.txt and the per-configuration logs packed (logs.tgz). From a directory
# holding this script, predict.sh, the release binary `validate`, split.csv and the clock
# source (see predict.sh), carried to the GPU machine:
#
#   (run tool, carry [".gpu-carry"]): OUT_FINAL=$OUT bash .gpu-carry/pred/predict_call.sh JOBS
set -u
D=$(cd "$(dirname "$0")" && pwd)
JOBS=$1
W=$(mktemp -d)
OUT=$W PREDICT_TIMEOUT=${PREDICT_TIMEOUT:-540} bash "$D/predict.sh" "$D/$JOBS"
first=$(ls "$W"/parts/*.csv | head -1)
(head -1 "$first"; tail -qn1 "$W"/parts/*.csv) > "$OUT_FINAL/model.csv"
cp "$W/predict.log" "$W/nproc.txt" "$OUT_FINAL/"
tar czf "$OUT_FINAL/logs.tgz" -C "$W/parts" $(cd "$W/parts" && ls *.log)
