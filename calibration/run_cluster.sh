#!/usr/bin/env bash
# Builds and runs src/bench_cluster.cu (item 12: thread-block clusters: resident clusters per
# cluster size, remote mbarrier arrivals, the cluster barrier, TMA bulk bandwidth from L2 at
# one CTA per SM, plain and multicast).
# On the device tool:  bash calibration/run_cluster.sh      (writes into $OUT)
# Anywhere else:       bash calibration/run_cluster.sh [outdir] (default: calibration/results/cluster)
set -u
export PATH="$PATH:/usr/local/cuda/bin"
HERE="$(cd "$(dirname "$0")" && pwd)"
OUTDIR="${1:-${OUT:-$HERE/results/cluster}}"
mkdir -p "$OUTDIR" "$HERE/build"
cd "$HERE"
NVFLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
date -u +"date: %Y-%m-%dT%H:%M:%SZ" > "$OUTDIR/cluster_env.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv >> "$OUTDIR/cluster_env.txt" 2>&1
nvcc $NVFLAGS -o build/bench_cluster src/bench_cluster.cu > "$OUTDIR/cluster_build.log" 2>&1
echo "build rc=$?" >> "$OUTDIR/cluster_build.log"
tail -3 "$OUTDIR/cluster_build.log"
cuobjdump --dump-sass build/bench_cluster 2>/dev/null \
  | grep -oE "\b(SYNCS\.[A-Z0-9.]+|MEMBAR\.[A-Z.]+|ERRBAR|CGAERRBAR|UBLKCP\.[A-Z0-9.]+|UCGABAR_[A-Z]+|CCTL\.[A-Z.]+)\b" \
  | sort | uniq -c | sort -rn > "$OUTDIR/cluster_sass_summary.txt"
Q="timestamp,clocks.sm,power.draw,clocks_event_reasons.active"
nvidia-smi --query-gpu=$Q --format=csv,noheader,nounits -lms 100 > "$OUTDIR/cluster_smi.csv" 2>&1 &
SMI=$!
timeout 120 ./build/bench_cluster > "$OUTDIR/cluster.log" 2>&1
echo "rc=$?" >> "$OUTDIR/cluster.log"
kill $SMI 2>/dev/null; wait $SMI 2>/dev/null
grep -o '"name":"[^"]*","value":[^,]*' "$OUTDIR/cluster.log"
tail -3 "$OUTDIR/cluster.log"
