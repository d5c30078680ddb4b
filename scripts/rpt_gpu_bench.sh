#!/bin/bash
# Repeated-row hafnians (--reps) on the CPU and on the GPU (docs/benchmarks.md, "Repeated-row
# hafnians on the GPU"): each pattern counted with --device cpu (every core), --device gpu
# (one device) and, where several are visible, --device gpu on all of them. "seconds" is the
# engine's time from --json; "wall" the whole process.
# Usage: scripts/rpt_gpu_bench.sh [bin dir]      (default build/bin)
set -u
source "$(dirname "$0")/json_fields.sh"
bin=${1-build/bin}
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
tmp=$(mktemp -d)
$bin/matchcount-generate symmetric-complex 20 --seed 5 -o "$tmp/c20.mtx"
$bin/matchcount-generate symmetric-complex 32 --seed 5 -o "$tmp/c32.mtx"
$bin/matchcount-generate symmetric-int 32 --lo -3 --hi 3 --seed 5 -o "$tmp/i32.mtx"
$bin/matchcount-generate symmetric-complex 24 --seed 6 -o "$tmp/c24.mtx"
twos32=$(printf '2,%.0s' $(seq 32)); twos32=${twos32%,}
gbs24=4,4,4,4,3,3,3,3,3,3,3,3,2,2,2,2,2,2,2,2,2,2,1,1
printf '%-34s %-10s %8s %8s  %-46s %-10s %s\n' case device seconds wall value abs_error note
run() {  # name file reps device [gpus]
  local t0=$EPOCHREALTIME json
  json=$($bin/matchcount --json --hafnian --reps "$3" --device "$4" ${5:+--gpus $5} "$2")
  local wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
  json_fields "$json"
  value=$(grep -o '"value":\[[^]]*\]\|"value":"[^"]*"' <<<"$json" | head -1 | cut -d: -f2-)
  local err=$(grep -o '"abs_error":[0-9.e+-]*' <<<"$json" | head -1 | cut -d: -f2)
  printf '%-34s %-10s %8.3f %8s  %-46s %-10s %s\n' "$1" "$4${5:+ x$5}" "${seconds:-0}" "$wall" "$value" "${err:-0}" "$note"
}
for c in "c20 4,3,3,3,3,2x9,1x6|$tmp/c20.mtx|4,3,3,3,3,2,2,2,2,2,2,2,2,2,1,1,1,1,1,1" \
         "c24 62 photons (GBS-like)|$tmp/c24.mtx|$gbs24" \
         "c32 2x32 (64 photons)|$tmp/c32.mtx|$twos32" \
         "i32 2x32 exact|$tmp/i32.mtx|$twos32"; do
  IFS='|' read -r name file reps <<<"$c"
  run "$name" "$file" "$reps" cpu
  run "$name" "$file" "$reps" gpu 1
  if [ "$gpus" -gt 1 ]; then run "$name" "$file" "$reps" gpu "$gpus"; fi
done
rm -rf "$tmp"
