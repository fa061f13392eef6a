#!/usr/bin/env bash
# Builds and runs src/bench_interfere.cu (item 11: tensor-core / ALU / MUFU interference, softmax
# instruction rates, wgmma step overheads, FA3-consumer synthetic).
# On the device tool:  bash calibration/run_interfere.sh      (writes into $OUT)
# Anywhere else:       bash calibration/run_interfere.sh [outdir] (default: calibration/results)
set -u
export PATH="$PATH:/usr/local/cuda/bin"
HERE="$(cd "$(dirname "$0")" && pwd)"
OUTDIR="${1:-${OUT:-$HERE/results}}"
mkdir -p "$OUTDIR" "$HERE/build"
cd "$HERE"
NVFLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
date -u +"date: %Y-%m-%dT%H:%M:%SZ" > "$OUTDIR/interfere_env.txt"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv >> "$OUTDIR/interfere_env.txt" 2>&1
nvcc $NVFLAGS -o build/bench_interfere src/bench_interfere.cu > "$OUTDIR/interfere_build.log" 2>&1
echo "build rc=$?" >> "$OUTDIR/interfere_build.log"
tail -3 "$OUTDIR/interfere_build.log"
cuobjdump --dump-sass build/bench_interfere > build/interfere.sass 2>/dev/null
gzip -c build/interfere.sass > "$OUTDIR/interfere_sass.txt.gz"
grep -oE "\b(FFMA|FADD|FMUL|FMNMX|MUFU\.EX2|F2FP\.[A-Z0-9.]+|SHFL\.BFLY|HGMMA\.[0-9x]+\.F32\.BF16|WARPGROUP\.[A-Z]+|BAR\.[A-Z.]+|LDS[.0-9]*)\b" build/interfere.sass \
  | sort | uniq -c | sort -rn > "$OUTDIR/interfere_sass_summary.txt"
Q="timestamp,clocks.sm,power.draw,clocks_event_reasons.active"
nvidia-smi --query-gpu=$Q --format=csv,noheader,nounits -lms 100 > "$OUTDIR/interfere_smi.csv" 2>&1 &
SMI=$!
timeout 120 ./build/bench_interfere > "$OUTDIR/interfere.log" 2>&1
echo "rc=$?" >> "$OUTDIR/interfere.log"
kill $SMI 2>/dev/null; wait $SMI 2>/dev/null
grep -o '"name":"[^"]*","value":[^,]*' "$OUTDIR/interfere.log"
tail -2 "$OUTDIR/interfere.log"
