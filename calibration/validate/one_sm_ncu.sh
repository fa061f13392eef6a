#!/usr/bin/env bash
# Calibration item 30, second call (about 70 s of command): the one-SM flat rows of
# `one_sm.csv` and the 4096³ calibration rows #61-#64 stall-sampled without their loads, and
# every `one_sm.csv` row launched once under Nsight Compute with the clocks free and at base.
#
#   cargo build --release -p warpspec-validate
#   mkdir -p .gpu-carry/v .gpu-carry/m && strip -o .gpu-carry/v/validate target/release/validate
#   cp calibration/validate/one_sm.csv .gpu-carry/v/split.csv
#   cp calibration/validate/ncu_stalls.sh calibration/validate/ncu_clock.sh calibration/validate/one_sm_ncu.sh .gpu-carry/v/
#   cp .gpu-carry/v/validate calibration/validate/ncu_stalls.sh calibration/validate/split.csv .gpu-carry/m/
#   (run tool, carry [".gpu-carry"]): bash .gpu-carry/v/one_sm_ncu.sh
#
# Writes $OUT/c2.tgz: free_stalls/, full_free_stalls/ (ncu_stalls.sh output) and clock/
# (ncu_clock.sh output; `python3 calibration/validate/ncu_base.py DIR/clock`).
set -o pipefail
W=${WORK:-/tmp/c2}
rm -rf "$W" && mkdir -p "$W"
OUT=$W/free_stalls IDS="302 304 301 303" STALLS_TIMEOUT=60 VALIDATE_ARGS=--copies-free \
    bash .gpu-carry/v/ncu_stalls.sh > /dev/null 2>&1
echo "one SM without loads: $SECONDS s"
OUT=$W/full_free_stalls IDS="62 64 61 63" STALLS_TIMEOUT=60 VALIDATE_ARGS=--copies-free \
    bash .gpu-carry/m/ncu_stalls.sh > /dev/null 2>&1
echo "4096^3 without loads: $SECONDS s"
OUT=$W/clock CLUSTER_CLOCKS="" VALIDATE_CLOCKS="none base" timeout 200 bash .gpu-carry/v/ncu_clock.sh > "$W/clock.log" 2>&1
echo "clocks: $SECONDS s"
tar czf "${OUT:-.}/c2.tgz" -C "$W" .
