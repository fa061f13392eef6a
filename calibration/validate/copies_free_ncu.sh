#!/usr/bin/env bash
# Cycles of the configurations of copies_free.sh from Nsight Compute (one launch each, clocks
# free, ncu_clock.sh), as generated (`plain/`) and built without TMA loads (`free/`): the
# timed runs' NVML clock is not the clock the SM counts in (docs/validation.md, "The clock
# the cycles tick at"), and a kernel without its loads draws less power, so only cycles
# compare the two builds. Carry .gpu-carry/validate/ with validate, split.csv, ncu_clock.sh
# and this script (as in copies_free.sh), then on the GPU machine:
#
#   bash .gpu-carry/validate/copies_free_ncu.sh --ids 70,71,...
#
# Writes $OUT/copies_free_ncu.tgz (the device tool returns only a few files).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=${OUT:-$PWD/copies-free-ncu-out}
W=$(mktemp -d)
for mode in plain free; do
    extra=()
    [ "$mode" = free ] && extra=(--copies-free)
    OUT=$W/$mode CLUSTER_CLOCKS="" VALIDATE_TIMEOUT=${VALIDATE_TIMEOUT:-240} bash "$HERE/ncu_clock.sh" "$@" "${extra[@]}"
done
mkdir -p "$ROOT"
tar czf "$ROOT/copies_free_ncu.tgz" -C "$W" plain free
