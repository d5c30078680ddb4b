#!/usr/bin/env bash
# OEIS A028420 (all matchings of the n x n grid), each term counted twice: from the generator's
# edge list and from the same list with its vertices renamed at random and its lines shuffled
# (scripts/shuffle_edges.py), which the planner orders differently (docs/benchmarks.md, "A028420
# to n = 32 on one H200").
#   scripts/a028420.sh FIRST LAST [BIN_DIR] [ENGINE]
# BIN_DIR holds matchcount and matchcount-generate (default build/bin); ENGINE, e.g.
# gpu-graph-frontier, forces an engine (default: the planner's). Prints "n seconds seconds
# same|DIFFERENT value" a term.
set -euo pipefail
first=$1 last=$2 bin=${3:-build/bin} engine=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags=(--matchings --as graph)
[ -n "$engine" ] && flags+=(--engine "$engine")
for ((n = first; n <= last; n++)); do
  "$bin/matchcount-generate" grid "$n" "$n" > "$tmp/g.edges"
  python3 "$here/shuffle_edges.py" "$tmp/g.edges" "$n" > "$tmp/s.edges"
  t0=$EPOCHREALTIME
  a=$("$bin/matchcount" "${flags[@]}" "$tmp/g.edges")
  t1=$EPOCHREALTIME
  b=$("$bin/matchcount" "${flags[@]}" "$tmp/s.edges")
  t2=$EPOCHREALTIME
  same=DIFFERENT
  [ "$a" = "$b" ] && same=same
  python3 -c "print($n, round($t1 - $t0, 2), round($t2 - $t1, 2), '$same', '$a')"
done
