#!/usr/bin/env bash
# How the L2 serves a GEMM's TMA loads, by partition: one Nsight Compute profile per
# configuration (each launched once by `validate run --profile`, clocks free) with the L2's
# sector counts by source unit and hit, among them the sectors that reached a slice over the
# fabric between the L2's two partitions (`ltcfabric`), where this ncu knows such metrics.
# Which metrics exist is queried first (`--query-metrics`, kept as metrics.txt).
#
# Build here and carry (`run` tool), as for ncu_stalls.sh: validate, split.csv, this script.
# On the GPU machine: IDS="5 10 35" bash .gpu-carry-.../ncu_l2.sh
# Writes into $OUT: l2_metrics.txt (the metric names used), l2_ID.csv per configuration, env.
set -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/l2-out}
mkdir -p "$OUT"
P=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null)/nvidia/cu13/lib
export CUDA_CACHE_DISABLE=1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/nvidia/lib64:$P:${LD_LIBRARY_PATH:-}
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
"$NCU" --query-metrics > "$OUT/metrics_all.txt" 2>&1
# Base names: the L2's sectors and requests by source unit, hits and misses, the fabric.
# L2_PATTERN replaces the pattern (an extended regex over the metric names), for instance
# '^lrc__[a-z_]*' for the L2 request coalescer's counters, where this ncu has them.
# L2_KERNELS replaces the regex of the kernel names profiled (default: the GEMMs), for
# instance '^(fa3_|flat_|cluster_)' with attention and cluster configurations.
PATTERN=${L2_PATTERN:-'^lts__t_(sectors|requests)_srcunit_(tex|ltcfabric)[a-z_]*|^lts__t_sectors_(lookup_hit|lookup_miss)\b|^lts__ltcfabric[a-z_]*|^lts__t_sectors\b|^lts__cycles_active\b'}
grep -oE "$PATTERN" "$OUT/metrics_all.txt" | sort -u > "$OUT/l2_bases.txt"
M=sm__cycles_elapsed.max,gpu__time_duration.sum,lts__cycles_elapsed.avg.per_second
while read -r base; do M=$M,$base.sum; done < <(grep -v 'cycles_active' "$OUT/l2_bases.txt")
grep -q cycles_active "$OUT/l2_bases.txt" && M=$M,lts__cycles_active.avg
echo "$M" | tr ',' '\n' > "$OUT/l2_metrics.txt"
for id in ${IDS:?IDS: the configuration ids to profile}; do
    timeout "${L2_TIMEOUT:-120}" "$NCU" --kernel-name "regex:${L2_KERNELS:-^(ws_|flat_)}" --launch-count 1 --clock-control none \
        --metrics "$M" --csv --log-file "$OUT/l2_$id.csv" \
        "$HERE/validate" run --no-model --profile --split "$HERE/split.csv" --gpu "$OUT/run_$id" --ids "$id" \
        > "$OUT/l2_$id.log" 2>&1
    echo "$id: exit status $?" | tee -a "$OUT/l2_env.txt"
    rm -rf "$OUT/run_$id"
done
