#!/usr/bin/env bash
# Builds and runs every H200 calibration microbenchmark, then writes results/h200.json.
# On the device tool:  bash calibration/run.sh        (writes into $OUT)
# Anywhere else:       bash calibration/run.sh [outdir] (default: calibration/results)
set -u
export PATH="$PATH:/usr/local/cuda/bin"
HERE="$(cd "$(dirname "$0")" && pwd)"
OUTDIR="${1:-${OUT:-$HERE/results}}"
mkdir -p "$OUTDIR" "$HERE/build"
cd "$HERE"
BENCHES="alu smem_sync wgmma tma gmem cublas"
NVFLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"

{
  date -u +"date: %Y-%m-%dT%H:%M:%SZ"
  uname -a
  nvidia-smi
  nvcc --version
  nvidia-smi -q -d CLOCK,PERFORMANCE,POWER,TEMPERATURE
} > "$OUTDIR/env.txt" 2>&1

# ---- build (in parallel), keeping ptxas reports
pids=""
for b in $BENCHES; do
  extra=""
  [ "$b" = cublas ] && extra="-lcublas"
  ( nvcc $NVFLAGS -o build/bench_$b src/bench_$b.cu $extra > build/$b.log 2>&1; echo "build rc=$?" >> build/$b.log ) &
  pids="$pids $!"
done
wait $pids
: > "$OUTDIR/build.log"
for b in $BENCHES; do echo "===== $b" >> "$OUTDIR/build.log"; cat build/$b.log >> "$OUTDIR/build.log"; done
# SASS evidence: the instructions each benchmark is meant to exercise
{
  for b in $BENCHES; do
    [ -x build/bench_$b ] || continue
    echo "===== $b: instruction counts (selected opcodes)"
    cuobjdump --dump-sass build/bench_$b 2>/dev/null \
      | grep -oE "\b(FFMA|MUFU\.EX2|LDS(\.128)?|SYNCS\.[A-Z0-9.]+|BAR\.(SYNC|ARV)[A-Z_.]*|HGMMA\.[0-9x]+\.F32\.BF16|WARPGROUP\.[A-Z]+|UTMALDG\.2D|UBLKCP\.[A-Z.]+|LDG\.E[A-Z0-9.]*)\b" \
      | sort | uniq -c | sort -rn
  done
} > "$OUTDIR/sass_summary.txt" 2>&1

# ---- clock/power logger for the whole run
Q="timestamp,utilization.gpu,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active"
nvidia-smi --query-gpu=$Q --format=csv,noheader,nounits > /dev/null 2>&1 \
  || Q="timestamp,utilization.gpu,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu"
echo "$Q" > "$OUTDIR/smi.csv"
nvidia-smi --query-gpu=$Q --format=csv,noheader,nounits -lms 100 >> "$OUTDIR/smi.csv" 2>&1 &
SMI=$!

# ---- run
: > "$OUTDIR/bench.log"
for b in $BENCHES; do
  echo "===== bench_$b  $(date -u +%H:%M:%S)" | tee -a "$OUTDIR/bench.log"
  if [ -x build/bench_$b ]; then
    timeout 90 ./build/bench_$b >> "$OUTDIR/bench.log" 2>&1
    echo "rc=$?" | tee -a "$OUTDIR/bench.log"
  else
    echo "NOT BUILT (see build.log)" | tee -a "$OUTDIR/bench.log"
  fi
done
kill $SMI 2>/dev/null
wait $SMI 2>/dev/null

python3 "$HERE/collect.py" "$OUTDIR" > "$OUTDIR/h200.json"
python3 "$HERE/collect.py" "$OUTDIR" --table
