#!/usr/bin/env bash
# Builds and runs src/bench_latency.cu (item 26: the dependent-issue latency of the instructions the generated
# loops are made of).
# On the device tool:  bash calibration/run_latency.sh      (writes into $OUT)
# Anywhere else:       bash calibration/run_latency.sh [outdir] (default: calibration/results/latency)
set -u
export PATH="$PATH:/usr/local/cuda/bin"
HERE="$(cd "$(dirname "$0")" && pwd)"
OUTDIR="${1:-${OUT:-$HERE/results/latency}}"
mkdir -p "$OUTDIR" "$HERE/build"
cd "$HERE"
NVFLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
{
  date -u +"date: %Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv
  nvcc --version | tail -2
} > "$OUTDIR/env.txt" 2>&1
nvcc $NVFLAGS -o build/bench_latency src/bench_latency.cu > "$OUTDIR/build.log" 2>&1
echo "build rc=$?" >> "$OUTDIR/build.log"
tail -3 "$OUTDIR/build.log"
cuobjdump --dump-sass build/bench_latency > "$OUTDIR/latency.sass" 2>/dev/null
timeout 120 ./build/bench_latency > "$OUTDIR/latency.log" 2>&1
echo "rc=$?" >> "$OUTDIR/latency.log"
grep -o '"name":"[^"]*","value":[^,]*' "$OUTDIR/latency.log"
tail -1 "$OUTDIR/latency.log"
grep -oE "FFMA|FADD|FMUL|FMNMX|FSEL|IADD3|LOP3\.LUT|SHF\.[A-Z.0-9]*|IMAD[.A-Z0-9]*|F2FP[.A-Z0-9_]*|MUFU\.EX2" "$OUTDIR/latency.sass" | sort | uniq -c > "$OUTDIR/latency_ops.txt"
cat "$OUTDIR/latency_ops.txt"
gzip -f "$OUTDIR/latency.sass"
