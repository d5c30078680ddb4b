#!/bin/bash
# The GPU benchmark of docs/benchmarks.md: dense engine timings (exact 0-1 of density 0.5 and
# uniform [0,1) reals), then the whole pipeline on Erdos-Renyi matrices with real entries in
# [0,1) and on the literature's matrices when ../shared or $MATCHCOUNT_SHARED is present.
# Usage: scripts/gpu_bench.sh [dense-range] [er-sizes]     (defaults 32:44 and "40 44")
set -u
dense=${1-32:44}
er_sizes=${2-40 44}
export LD_LIBRARY_PATH="$PWD/build/devlibs:${LD_LIBRARY_PATH:-}"
export MATCHCOUNT_KERNEL_CACHE=/tmp/gpu-bench-cache-$$
bin=build/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader || true
if [[ -n $dense ]]; then
  $bin/matchcount-bench --engines gpu-ryser --sparse "" --dense "$dense" --dense-density 0.5 \
    --modes exact,float --max-seconds 400
fi
tmp=$(mktemp -d)
printf '\n%-10s %4s %5s %9s %9s %s\n' case n p seconds compile value
for n in $er_sizes; do
  for p in 0.1 0.3 0.5; do
    $bin/matchcount-generate random-real "$n" --density "$p" --lo 0 --hi 1 --seed 7 -o "$tmp/er.mtx"
    start=$(date +%s%N)
    json=$($bin/matchcount --json --device gpu "$tmp/er.mtx")
    end=$(date +%s%N)
    value=$(sed -n 's/.*"value":"\{0,1\}\([^",]*\).*/\1/p' <<<"$json")
    compile=$(grep -o '"compile_seconds":[0-9.e+-]*' <<<"$json" | cut -d: -f2 | paste -sd' ')
    runs=$(grep -o '"engine_runs":\[[^]]*\]' <<<"$json" | grep -o '"engine":"[^"]*","n":[0-9]*,"count":[0-9]*' |
           sed 's/"engine":"\([^"]*\)","n":\([0-9]*\),"count":\([0-9]*\)/\1:\2x\3/' | paste -sd' ')
    printf '%-10s %4s %5s %9s %9s %s  [%s]\n' er-real "$n" "$p" "$(( (end - start) / 1000000 )) ms" "${compile:-0}" \
      "$value" "$runs"
  done
done
rm -rf "$tmp"
# The literature's matrices, carried in build/shared-matrices (git-ignored) when present.
if [[ -d build/shared-matrices ]]; then
  for f in build/shared-matrices/*.mtx; do
    start=$(date +%s%N)
    out=$(timeout 150 $bin/matchcount --device gpu --json "$f" 2>&1 | grep -o '"value":[^,]*\|"engine_runs":\[[^]]*\]' | head -2 | cut -c1-160 | paste -sd' ')
    end=$(date +%s%N)
    printf '%-22s %9s %s\n' "$(basename "$f")" "$(( (end - start) / 1000000 )) ms" "$out"
  done
fi
# Sparse 0-1 blocks: columns baked into the code against read from shared memory.
for cols in baked shared; do
  echo "== sparse exact, columns $cols"
  MATCHCOUNT_NVRTC_COLUMNS=$cols $bin/matchcount-bench --engines gpu-ryser --dense "" --sparse 38 \
    --densities 0.1,0.2,0.3 --modes exact | tail -3
done
