#!/usr/bin/env bash
# Builds and runs src/bench_tma_store.cu (item 14: TMA bulk stores shared -> global at one CTA
# per SM: an epilogue's 64 KB tile, and a stream of stores).
# On the device tool:  bash calibration/run_tma_store.sh      (writes into $OUT)
# Anywhere else:       bash calibration/run_tma_store.sh [outdir] (default: calibration/results/tma_store)
set -u
export PATH="$PATH:/usr/local/cuda/bin"
HERE="$(cd "$(dirname "$0")" && pwd)"
OUTDIR="${1:-${OUT:-$HERE/results/tma_store}}"
mkdir -p "$OUTDIR" "$HERE/build"
cd "$HERE"
NVFLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
date -u +"date: %Y-%m-%dT%H:%M:%SZ" > "$OUTDIR/tma_store_env.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv >> "$OUTDIR/tma_store_env.txt" 2>&1
nvcc $NVFLAGS -o build/bench_tma_store src/bench_tma_store.cu > "$OUTDIR/tma_store_build.log" 2>&1
echo "build rc=$?" >> "$OUTDIR/tma_store_build.log"
tail -3 "$OUTDIR/tma_store_build.log"
cuobjdump --dump-sass build/bench_tma_store 2>/dev/null \
  | grep -oE "\b(UBLKCP\.[A-Z0-9.]+|UTMACMDFLUSH|DEPBAR\.[A-Z.]+|SYNCS\.[A-Z0-9.]+)\b" \
  | sort | uniq -c | sort -rn > "$OUTDIR/tma_store_sass_summary.txt"
timeout 120 ./build/bench_tma_store > "$OUTDIR/tma_store.log" 2>&1
echo "rc=$?" >> "$OUTDIR/tma_store.log"
grep -o '"name":"[^"]*","value":[^,]*' "$OUTDIR/tma_store.log"
tail -2 "$OUTDIR/tma_store.log"
