#!/usr/bin/env bash
# Predicts configurations of the split with the timing model on every CPU core of a machine
# (the GPU machine's 16 cores; no GPU needed), one `validate run` process per configuration,
# longest first as listed, from a directory holding the release binary, split.csv and the
# earlier prediction file whose counts fix each run's clock (see `validate run --clocks-from`;
# $CLOCKS_FROM, by default model_clock.csv, the latest prediction):
#
#   bash predict.sh JOBS     JOBS: one line per configuration, "id [extra arguments]"
#
# Writes $OUT/parts/ID.csv (one model row) and ID.log; a configuration still running at
# $PREDICT_TIMEOUT seconds is cut off and has no row. Merge the rows with
#   (head -1 any.csv; tail -qn1 parts/*.csv) > model.csv
set -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/predict-out}
mkdir -p "$OUT/parts"
nproc > "$OUT/nproc.txt"
export HERE OUT CLOCKS_FROM
start=$(date +%s)
timeout "${PREDICT_TIMEOUT:-480}" xargs -P "$(nproc)" -L 1 sh -c '
    id=$1; shift
    "$HERE/validate" run --split "$HERE/split.csv" --ids "$id" --clocks-from "$HERE/${CLOCKS_FROM:-model_clock.csv}" \
        --model-out "$OUT/parts/$id.csv.tmp" "$@" > "$OUT/parts/$id.log" 2>&1 \
        && mv "$OUT/parts/$id.csv.tmp" "$OUT/parts/$id.csv"' sh < "$1"
echo "exit status $?, $(( $(date +%s) - start )) s" | tee "$OUT/predict.log"
ls "$OUT/parts"/*.csv 2>/dev/null | wc -l | tee -a "$OUT/predict.log"
