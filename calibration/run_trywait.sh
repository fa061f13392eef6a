#!/usr/bin/env bash
# Builds and runs src/bench_trywait.cu (item 20: the cost of a wait on an mbarrier phase that
# has already completed).
# On the device tool:  bash calibration/run_trywait.sh      (writes into $OUT)
# Anywhere else:       bash calibration/run_trywait.sh [outdir] (default: calibration/results/trywait)
set -u
export PATH="$PATH:/usr/local/cuda/bin"
HERE="$(cd "$(dirname "$0")" && pwd)"
OUTDIR="${1:-${OUT:-$HERE/results/trywait}}"
mkdir -p "$OUTDIR" "$HERE/build"
cd "$HERE"
NVFLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
{
  date -u +"date: %Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv
  nvcc --version | tail -2
} > "$OUTDIR/env.txt" 2>&1
nvcc $NVFLAGS -o build/bench_trywait src/bench_trywait.cu > "$OUTDIR/build.log" 2>&1
echo "build rc=$?" >> "$OUTDIR/build.log"
tail -3 "$OUTDIR/build.log"
cuobjdump --dump-sass build/bench_trywait > "$OUTDIR/trywait.sass" 2>/dev/null
timeout 120 ./build/bench_trywait > "$OUTDIR/trywait.log" 2>&1
echo "rc=$?" >> "$OUTDIR/trywait.log"
grep -o '"name":"[^"]*","value":[^,]*' "$OUTDIR/trywait.log"
tail -1 "$OUTDIR/trywait.log"
