#!/bin/bash
# Multi-GPU scaling of gpu-ryser (docs/benchmarks.md): dense blocks, exact (random 0-1 of
# density 0.5, three primes in one walk) and double (uniform [0,1) reals), each counted with
# --gpus 1 and --gpus 2 (or the counts in $GPUS). "seconds" is the engine's time less the
# NVRTC compilation (the first run of a matrix compiles, later ones load the cached kernel).
# Then the exact hafnian walk (gpu-hafnian) of dense symmetric 0-1 matrices (density 0.5) of
# the sizes in $HAF_SIZES (default "56 60"; empty: none).
# Usage: scripts/multigpu_bench.sh [sizes] [bin dir]      (defaults "42 44" and build/bin)
set -u
source "$(dirname "$0")/json_fields.sh"
sizes=${1-42 44}
bin=${2-build/bin}
gpus=${GPUS-1 2}
export MATCHCOUNT_KERNEL_CACHE=${MATCHCOUNT_KERNEL_CACHE-/tmp/multigpu-bench-cache-$$}
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader || true
tmp=$(mktemp -d)
printf '%4s %-6s %4s %8s %8s  %-40s %s\n' n mode gpus seconds compile value note
for n in $sizes; do
  $bin/matchcount-generate er "$n" 0.5 --seed 7 -o "$tmp/exact.mtx"
  $bin/matchcount-generate random-real "$n" --density 1 --lo 0 --hi 1 --seed 7 -o "$tmp/float.mtx"
  for mode in exact float; do
    for g in $gpus; do
      json=$($bin/matchcount --json --engine gpu-ryser --device gpu --gpus "$g" "$tmp/$mode.mtx")
      json_fields "$json"
      printf '%4s %-6s %4s %8.2f %8.2f  %-40s %s\n' "$n" "$mode" "$g" \
        "$(awk -v s="$seconds" -v c="$compile" 'BEGIN { print s - c }')" "$compile" "$value" "$note"
    done
  done
done
for n in ${HAF_SIZES-56 60}; do
  $bin/matchcount-generate symmetric-01 "$n" 0.5 --seed 7 -o "$tmp/haf.mtx"
  for g in $gpus; do
    json=$($bin/matchcount --json --hafnian --engine gpu-hafnian --device gpu --gpus "$g" "$tmp/haf.mtx")
    json_fields "$json"
    printf '%4s %-6s %4s %8.2f %8.2f  %-40s %s\n' "$n" hafnian "$g" "${seconds:-0}" 0 "$value" "$note"
  done
done
rm -rf "$tmp"
