#!/usr/bin/env bash
# Builds and runs one single-file benchmark, src/bench_NAME.cu, with the flags of every item:
#   bash calibration/run_single.sh NAME [outdir]   (default: $OUT on the device tool, else
#                                                    calibration/results/NAME)
# Writes env.txt, build.log, NAME.sass (its SASS) and NAME.log (the RESULT lines), and prints
# each result's name and value. The run_NAME.sh scripts call it and add what their item needs.
set -u
export PATH="$PATH:/usr/local/cuda/bin"
NAME="$1"
HERE="$(cd "$(dirname "$0")" && pwd)"
OUTDIR="${2:-${OUT:-$HERE/results/$NAME}}"
mkdir -p "$OUTDIR" "$HERE/build"
cd "$HERE"
NVFLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
{
  date -u +"date: %Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv
  nvcc --version | tail -2
} > "$OUTDIR/env.txt" 2>&1
nvcc $NVFLAGS -o "build/bench_$NAME" "src/bench_$NAME.cu" > "$OUTDIR/build.log" 2>&1
echo "build rc=$?" >> "$OUTDIR/build.log"
tail -3 "$OUTDIR/build.log"
cuobjdump --dump-sass "build/bench_$NAME" > "$OUTDIR/$NAME.sass" 2>/dev/null
timeout 120 "./build/bench_$NAME" > "$OUTDIR/$NAME.log" 2>&1
echo "rc=$?" >> "$OUTDIR/$NAME.log"
grep -o '"name":"[^"]*","value":[^,]*' "$OUTDIR/$NAME.log"
tail -1 "$OUTDIR/$NAME.log"
