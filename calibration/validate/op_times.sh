#!/usr/bin/env bash
# Records op timestamps on the GPU machine (the `run` device tool), from the root of the
# checkout that tool sends, with the release binary in .gpu-carry/validate/ (as run.sh):
#
#   cargo build --release -p warpspec-validate
#   mkdir -p .gpu-carry/validate && cp target/release/validate calibration/validate/split.csv .gpu-carry/validate/
#   strip .gpu-carry/validate/validate
#   (run tool, carry [".gpu-carry"]): bash calibration/validate/op_times.sh --ids 56,58
#
# Writes $OUT/op_times.tgz (or ./op_times.tgz) holding, per configuration, ID_gpu.csv,
# ID_sites.csv, ID_gpu_cta0.csv, ID_gpu_ctas.csv, ID_gpu.txt (see `validate op-times`), env.txt
# and the log. `--record-ctas N` records the first N CTAs (default 132, one wave); `--lines
# L1,L2,...` marks only the ops on those source lines (then pass the same to --compare);
# SPLIT names another split in the carried directory (e.g. one_sm.csv, copied there too).
# Then, here, with the archive unpacked into DIR:
#   validate op-times --ids 56,58 --compare DIR
set -o pipefail
BIN=$PWD/.gpu-carry/validate
ARCHIVE=${OUT:-$PWD}/op_times.tgz
OUT=$(mktemp -d)
P=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null)/nvidia/cu13/lib
export CUDA_CACHE_DISABLE=1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/nvidia/lib64:$P:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv 2>&1 | tee "$OUT/env.txt"
timeout "${OP_TIMES_TIMEOUT:-500}" "$BIN/validate" op-times --split "$BIN/${SPLIT:-split.csv}" --gpu "$OUT" "$@" 2>&1 | tee "$OUT/op_times.log"
echo "exit status $?" | tee -a "$OUT/op_times.log"
tar czf "$ARCHIVE" -C "$OUT" .
