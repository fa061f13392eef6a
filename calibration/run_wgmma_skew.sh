#!/usr/bin/env bash
# Builds and runs src/bench_wgmma_skew.cu (item 21: one late warp of a warpgroup, and two
# warpgroups with and without a bar.sync between k-steps, on one SM's tensor cores).
# On the device tool:  bash calibration/run_wgmma_skew.sh      (writes into $OUT)
# Anywhere else:       bash calibration/run_wgmma_skew.sh [outdir] (default: calibration/results/wgmma_skew)
set -u
export PATH="$PATH:/usr/local/cuda/bin"
HERE="$(cd "$(dirname "$0")" && pwd)"
OUTDIR="${1:-${OUT:-$HERE/results/wgmma_skew}}"
mkdir -p "$OUTDIR" "$HERE/build"
cd "$HERE"
NVFLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
date -u +"date: %Y-%m-%dT%H:%M:%SZ" > "$OUTDIR/wgmma_skew_env.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv >> "$OUTDIR/wgmma_skew_env.txt" 2>&1
nvcc $NVFLAGS -o build/bench_wgmma_skew src/bench_wgmma_skew.cu > "$OUTDIR/wgmma_skew_build.log" 2>&1
echo "build rc=$?" >> "$OUTDIR/wgmma_skew_build.log"
tail -3 "$OUTDIR/wgmma_skew_build.log"
cuobjdump --dump-sass build/bench_wgmma_skew > "$OUTDIR/wgmma_skew.sass" 2>/dev/null
cat "$OUTDIR/wgmma_skew.sass" \
  | grep -oE "\b(HGMMA\.[A-Z0-9x.]+|WARPGROUP\.[A-Z.]+)\b" | sort | uniq -c | sort -rn > "$OUTDIR/wgmma_skew_sass_summary.txt"
timeout 120 ./build/bench_wgmma_skew > "$OUTDIR/wgmma_skew.csv" 2> "$OUTDIR/wgmma_skew.err"
echo "rc=$?" >> "$OUTDIR/wgmma_skew.err"
cat "$OUTDIR/wgmma_skew.err"
cat "$OUTDIR/wgmma_skew.csv"
