#!/usr/bin/env bash
# Calibration item 30: the trade-off study's five schedules on one SM (one CTA, 2048
# k-steps) and in one full wave (132 CTAs), from `calibration/validate/one_sm.csv`; the
# one-SM rows again without their loads (`--copies-free`), and stall-sampled under Nsight
# Compute (clocks free). One device call (about 60 s of command):
#
#   cargo build --release -p warpspec-validate
#   mkdir -p .gpu-carry/v && cp target/release/validate calibration/validate/one_sm.csv \
#       calibration/validate/run.sh calibration/validate/ncu_stalls.sh calibration/validate/one_sm.sh .gpu-carry/v/
#   mv .gpu-carry/v/one_sm.csv .gpu-carry/v/split.csv && strip .gpu-carry/v/validate
#   (run tool, carry [".gpu-carry"]): bash .gpu-carry/v/one_sm.sh
#
# Writes $OUT/one_sm.tgz: plain/ and free/ (run.sh's phases.csv, series.csv, status.csv,
# sweep.log) and stalls/ (ncu_stalls.sh's ID.txt and ID_sass.csv.gz). The model's side:
#   target/release/validate run --split calibration/validate/one_sm.csv --model-out F [--copies-free]
set -o pipefail
H=$(cd "$(dirname "$0")" && pwd)
W=${WORK:-/tmp/one_sm}
rm -rf "$W" && mkdir -p "$W"
OUT=$W/plain SUSTAINED_S=1 CUBLAS="" SWEEP_TIMEOUT=200 bash "$H/run.sh" > /dev/null 2>&1
echo "timed: $SECONDS s"
OUT=$W/free SUSTAINED_S=1 CUBLAS="" SWEEP_TIMEOUT=100 bash "$H/run.sh" --ids 301,302,303,304 --copies-free > /dev/null 2>&1
echo "without loads: $SECONDS s"
OUT=$W/stalls IDS="303 301 302 304" STALLS_TIMEOUT=60 bash "$H/ncu_stalls.sh" > /dev/null 2>&1
echo "stall sampling: $SECONDS s"
tar czf "${OUT:-.}/one_sm.tgz" -C "$W" .
