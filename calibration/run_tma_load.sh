#!/usr/bin/env bash
# Builds and runs src/bench_tma_load.cu (item 16: a GEMM's operand ring under load, one CTA per
# SM: stage latency from issue to full, the ring's round, bytes per cycle per SM, TB/s).
# On the device tool:  bash calibration/run_tma_load.sh      (writes into $OUT)
# Anywhere else:       bash calibration/run_tma_load.sh [outdir] (default: calibration/results/tma_load)
set -u
export PATH="$PATH:/usr/local/cuda/bin"
HERE="$(cd "$(dirname "$0")" && pwd)"
OUTDIR="${1:-${OUT:-$HERE/results/tma_load}}"
mkdir -p "$OUTDIR" "$HERE/build"
cd "$HERE"
NVFLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
date -u +"date: %Y-%m-%dT%H:%M:%SZ" > "$OUTDIR/tma_load_env.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv >> "$OUTDIR/tma_load_env.txt" 2>&1
nvcc $NVFLAGS -o build/bench_tma_load src/bench_tma_load.cu > "$OUTDIR/tma_load_build.log" 2>&1
echo "build rc=$?" >> "$OUTDIR/tma_load_build.log"
tail -3 "$OUTDIR/tma_load_build.log"
cuobjdump --dump-sass build/bench_tma_load 2>/dev/null \
  | grep -oE "\b(UTMALDG\.[A-Z0-9.]+|HGMMA\.[A-Z0-9x.]+|SYNCS\.[A-Z0-9.]+)\b" \
  | sort | uniq -c | sort -rn > "$OUTDIR/tma_load_sass_summary.txt"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv,noheader -lms 100 \
  > "$OUTDIR/tma_load_smi.csv" 2>/dev/null &
SMI=$!
RAW="$OUTDIR/raw"
mkdir -p "$RAW"
timeout 180 ./build/bench_tma_load --raw "$RAW" > "$OUTDIR/tma_load.csv" 2> "$OUTDIR/tma_load.err"
echo "rc=$?" >> "$OUTDIR/tma_load.err"
kill $SMI 2>/dev/null
(cd "$RAW" && gzip -f ./*.csv)
cat "$OUTDIR/tma_load.err"
wc -l "$OUTDIR/tma_load.csv"
