#!/usr/bin/env bash
# Builds and runs src/bench_wgmma_pair.cu (item 18: the wgmma groups of two warpgroups on one
# SM's tensor cores: completion order, issue back-pressure, and whether two warpgroups running
# k-steps side by side alternate or move together).
# On the device tool:  bash calibration/run_wgmma_pair.sh      (writes into $OUT)
# Anywhere else:       bash calibration/run_wgmma_pair.sh [outdir] (default: calibration/results/wgmma_pair)
set -u
export PATH="$PATH:/usr/local/cuda/bin"
HERE="$(cd "$(dirname "$0")" && pwd)"
OUTDIR="${1:-${OUT:-$HERE/results/wgmma_pair}}"
mkdir -p "$OUTDIR" "$HERE/build"
cd "$HERE"
NVFLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
date -u +"date: %Y-%m-%dT%H:%M:%SZ" > "$OUTDIR/wgmma_pair_env.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv >> "$OUTDIR/wgmma_pair_env.txt" 2>&1
nvcc $NVFLAGS -o build/bench_wgmma_pair src/bench_wgmma_pair.cu > "$OUTDIR/wgmma_pair_build.log" 2>&1
echo "build rc=$?" >> "$OUTDIR/wgmma_pair_build.log"
tail -3 "$OUTDIR/wgmma_pair_build.log"
cuobjdump --dump-sass build/bench_wgmma_pair 2>/dev/null \
  | grep -oE "\b(HGMMA\.[A-Z0-9x.]+|WARPGROUP\.[A-Z.]+)\b" | sort | uniq -c | sort -rn > "$OUTDIR/wgmma_pair_sass_summary.txt"
timeout 120 ./build/bench_wgmma_pair > "$OUTDIR/wgmma_pair.csv" 2> "$OUTDIR/wgmma_pair.err"
echo "rc=$?" >> "$OUTDIR/wgmma_pair.err"
cat "$OUTDIR/wgmma_pair.err"
cat "$OUTDIR/wgmma_pair.csv"
