#!/bin/bash
# GPU hafnian timings (docs/benchmarks.md, "Hafnians on the GPU"): dense symmetric matrices,
# exact (random 0-1 of density 0.5) and float (uniform [-1, 1) reals; complex with both parts
# uniform), counted by gpu-hafnian with --gpus 1 and 2 (or the counts in $GPUS). "seconds" is
# the engine's time from --json.
# Usage: scripts/gpu_hafnian_bench.sh [sizes] [bin dir]   (defaults "40 44 48 50" and build/bin)
# Modes: MODES="exact real complex" (default exact).
set -u
source "$(dirname "$0")/json_fields.sh"
sizes=${1-40 44 48 50}
bin=${2-build/bin}
gpus=${GPUS-1}
modes=${MODES-exact}
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader || true
tmp=$(mktemp -d)
printf '%4s %-8s %4s %9s  %-44s %s\n' n mode gpus seconds value note
for n in $sizes; do
  $bin/matchcount-generate symmetric-01 "$n" 0.5 --seed 7 -o "$tmp/exact.mtx"
  $bin/matchcount-generate symmetric-real "$n" --seed 7 -o "$tmp/real.mtx"
  $bin/matchcount-generate symmetric-complex "$n" --seed 7 -o "$tmp/complex.mtx"
  for mode in $modes; do
    for g in $gpus; do
      json=$($bin/matchcount --json --hafnian --engine gpu-hafnian --device gpu --gpus "$g" "$tmp/$mode.mtx")
      json_fields "$json"
      printf '%4s %-8s %4s %9.3f  %-44s %s\n' "$n" "$mode" "$g" "${seconds:-0}" "$value" "$note"
    done
  done
done
rm -rf "$tmp"
