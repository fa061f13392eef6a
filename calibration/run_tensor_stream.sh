#!/usr/bin/env bash
# Builds and runs src/bench_tensor_stream.cu (item 19: the tensor cores of one SM beside bulk
# copies into and out of its shared memory).
# On the device tool:  bash calibration/run_tensor_stream.sh      (writes into $OUT)
# Anywhere else:       bash calibration/run_tensor_stream.sh [outdir] (default: calibration/results/tensor_stream)
set -u
export PATH="$PATH:/usr/local/cuda/bin"
HERE="$(cd "$(dirname "$0")" && pwd)"
OUTDIR="${1:-${OUT:-$HERE/results/tensor_stream}}"
mkdir -p "$OUTDIR" "$HERE/build"
cd "$HERE"
NVFLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
date -u +"date: %Y-%m-%dT%H:%M:%SZ" > "$OUTDIR/tensor_stream_env.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv >> "$OUTDIR/tensor_stream_env.txt" 2>&1
nvcc $NVFLAGS -o build/bench_tensor_stream src/bench_tensor_stream.cu > "$OUTDIR/tensor_stream_build.log" 2>&1
echo "build rc=$?" >> "$OUTDIR/tensor_stream_build.log"
tail -3 "$OUTDIR/tensor_stream_build.log"
cuobjdump --dump-sass build/bench_tensor_stream 2>/dev/null \
  | grep -oE "\b(HGMMA\.[A-Z0-9x.]+|UBLKCP\.[A-Z0-9.]+|SYNCS\.[A-Z0-9.]+)\b" | sort | uniq -c | sort -rn > "$OUTDIR/tensor_stream_sass_summary.txt"
timeout 120 ./build/bench_tensor_stream > "$OUTDIR/tensor_stream.csv" 2> "$OUTDIR/tensor_stream.err"
echo "rc=$?" >> "$OUTDIR/tensor_stream.err"
cat "$OUTDIR/tensor_stream.err"
cat "$OUTDIR/tensor_stream.csv"
