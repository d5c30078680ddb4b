#!/bin/sh
# Rebuilds the bundled datasets with matchcount-generate (no CMake needed).
#
#   datasets/regenerate.sh PATH/TO/matchcount-generate           rewrite the files here
#   datasets/regenerate.sh PATH/TO/matchcount-generate --check   compare only; exit 1 on a difference
#
# The commands below are the ones listed in datasets/README.md; keep the two in step.
set -eu

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 PATH/TO/matchcount-generate [--check]" >&2
  exit 2
fi
gen=$1
mode=${2:-write}
if [ "$mode" != write ] && [ "$mode" != --check ]; then
  echo "usage: $0 PATH/TO/matchcount-generate [--check]" >&2
  exit 2
fi
if [ ! -x "$gen" ]; then
  echo "$0: $gen is not an executable" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$gen" grid 8 8 -o "$out/grid8x8.edges"
"$gen" aztec 4 -o "$out/aztec4.edges"
"$gen" hypercube 4 -o "$out/hypercube4.edges"
"$gen" complete-digraph 8 -o "$out/derangements8.arcs"
"$gen" band 12 2 -o "$out/band12.mtx"
"$gen" random-int 10 --density 0.5 --lo -5 --hi 5 --seed 1 -o "$out/random_int10.mtx"
"$gen" c60 -o "$out/c60.edges"
"$gen" petersen -o "$out/petersen.edges"

status=0
for f in "$out"/*; do
  name=$(basename "$f")
  if [ "$mode" = --check ]; then
    if ! cmp -s "$f" "$here/$name"; then
      echo "$name differs from what $gen writes" >&2
      status=1
    fi
  else
    cp "$f" "$here/$name"
    echo "wrote datasets/$name"
  fi
done
exit $status
