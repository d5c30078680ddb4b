#!/usr/bin/env bash
# The planner on general graphs: every hafnian engine forced on each graph of a benchmark set,
# against the engine the planner picks (docs/benchmarks.md, "Planner check: general graphs").
# Prints a Markdown table of seconds (whole program, wall clock; "-" refused, ">T" over the
# time limit) and the ratio of the planner's pick to the fastest engine.
#   scripts/graph_planner_check.sh [LIMIT_SECONDS]      (default 60)
# Needs matchcount and matchcount-generate in build/bin (or $MATCHCOUNT_BIN). $ENGINES replaces
# the forced engines (e.g. with gpu-hafnian gpu-graph-frontier on a GPU machine), $CASES (one
# case per line) the graphs.
set -euo pipefail
cd "$(dirname "$0")/.."
limit=${1:-60}
bin=${MATCHCOUNT_BIN:-build/bin}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cases=(
  "triangular 20 20" "triangular 60 60" "triangular 100 100" "king 12 12" "king 16 16"
  "triangular 10 60 --periodic" "king 10 40 --periodic-y" "c60" "dodecahedron" "complete 24"
  "random-regular 60 3 --seed 1" "random-regular 200 3 --seed 2" "random-regular 40 6 --seed 3"
  "gnp 30 0.5 --seed 4" "gnp 40 0.3 --seed 5" "symmetric-01 36 0.5 --seed 6" "symmetric-01 44 0.5 --seed 44"
)
if [ -n "${CASES:-}" ]; then mapfile -t cases <<<"$CASES"; fi
read -r -a engines <<<"${ENGINES:-hafnian pfaffian graph-frontier}"
# Seconds of one run, or - (refused, exit 3), or >limit.
run() {
  local start end rc
  start=$(date +%s%N)
  set +e
  timeout "$limit" "$bin/matchcount" "$@" > "$work/out" 2> "$work/err"
  rc=$?
  set -e
  end=$(date +%s%N)
  if [ $rc -eq 124 ]; then echo ">$limit"; elif [ $rc -ne 0 ]; then echo "-"; else
    awk -v ns=$((end - start)) 'BEGIN { printf "%.3f", ns / 1e9 }'; fi
}
head="| graph | n | auto picks | predicted (s) | auto (s) |"
for e in "${engines[@]}"; do head+=" $e (s) |"; done
echo "$head auto / best |"
echo "|---|---|---|---|---|$(printf -- '---|%.0s' "${engines[@]}")---|"
for c in "${cases[@]}"; do
  # shellcheck disable=SC2086
  "$bin/matchcount-generate" $c --format adjacency > "$work/g.mtx" 2>/dev/null ||
    "$bin/matchcount-generate" $c > "$work/g.mtx"
  n=$(awk '!/^%/ { print $1; exit }' "$work/g.mtx")
  pick=$("$bin/matchcount" --explain --json --hafnian "$work/g.mtx" |
         python3 -c 'import json,sys; r=json.load(sys.stdin)["engine_runs"]; print("+".join(sorted({x["engine"] for x in r})) or "none", "| %.3g" % sum(x.get("predicted_seconds", 0) for x in r))')
  auto=$(run --hafnian "$work/g.mtx")
  row="| $c | $n | $pick | $auto |"
  best=""
  for e in "${engines[@]}"; do
    t=$(run --engine "$e" --hafnian "$work/g.mtx")
    row+=" $t |"
    case $t in
      - | '>'*) ;;
      *) if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; fi ;;
    esac
  done
  ratio=$(awk -v a="$auto" -v b="$best" 'BEGIN { if (b == "" || a ~ /[->]/) print "?"; else printf "%.2f", a / b }')
  echo "$row $ratio |"
done
