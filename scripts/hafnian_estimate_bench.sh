#!/usr/bin/env bash
# The hafnian estimators compared (docs/benchmarks.md, "Hafnian estimates"): each method samples
# each graph for SECONDS seconds on THREADS threads, every block sampled (--exact-up-to 0), and
# one Markdown row gives the samples per second, the relative variance of one sample
# (samples x rel.se^2), the variance per second of work (rel.se^2 x seconds: smaller is better),
# the estimate over the exact count (where it is known) and the heavy-tail flag.
#   [DEVICE=cpu|gpu] [SECTIONS="methods sizes targets"] bash scripts/hafnian_estimate_bench.sh [BUILD_DIR] [SECONDS] [THREADS]
# Then the relative error at a fixed budget against the size of triangular lattices up to
# 100 x 100 (scaling+, the default), and the issue's targets: the 32 x 32 triangular lattice
# and a random 3-regular graph on 1000 vertices to 1% (--rel-error 0.01) within 10 s.
# DEVICE=gpu samples on the GPU (the determinant estimators are CPU-only and left out).
set -euo pipefail
device=${DEVICE:-cpu}
sections=${SECTIONS:-methods sizes targets}
build=${1:-build}
seconds=${2:-4}
threads=${3:-2}
bin=$build/bin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bin/matchcount-generate" triangular 8 8 >"$work/tri8.edges"
"$bin/matchcount-generate" triangular 16 16 >"$work/tri16.edges"
"$bin/matchcount-generate" triangular 32 32 >"$work/tri32.edges"
"$bin/matchcount-generate" random-regular 60 3 --seed 1 >"$work/rr60.edges"
"$bin/matchcount-generate" random-regular 1000 3 --seed 1 >"$work/rr1000.edges"
"$bin/matchcount-generate" symmetric-01 32 0.5 --seed 1 >"$work/gnp32.mtx"
"$bin/matchcount-generate" symmetric-01 64 0.5 --seed 1 >"$work/gnp64.mtx"

row() {  # case file exact(or -) method [matchcount options...]
  local name=$1 file=$2 exact=$3 method=$4
  shift 4
  "$bin/matchcount" --estimate --method "$method" --rel-error 1e-9 --max-seconds "$seconds" --exact-up-to 0 \
    --threads "$threads" --device "$device" --json "$@" "$file" |
    python3 -c '
import json, sys
j = json.load(sys.stdin)
name, method, exact = sys.argv[1], sys.argv[2], sys.argv[3]
b = [x for x in j["blocks"] if not x["exact"]]
n, secs = j["samples"], sum(x["seconds"] for x in b)
rse = j["rel_std_error"]
ratio = "-" if exact == "-" else "%.3f" % 10 ** (j["log10_estimate"] - float(exact))
print("| %s | %s | %d | %.3g | %.3g | %.3g | %s | %s |" % (name, method, n, n / secs, n * rse * rse,
      rse * rse * secs, ratio, "yes" if j["heavy_tail"] else "no"))
' "$name" "$method" "$exact"
}

log10_exact() {  # the exact count's log10, from the exact engines
  "$bin/matchcount" "$@" | python3 -c 'import sys, math; print(math.log10(int(sys.stdin.read())))'
}

if [[ $sections == *methods* ]]; then
echo "| graph | method | samples | samples/s | rel.var per sample | rel.se^2 x s | est/exact | heavy tail |"
echo "|---|---|---|---|---|---|---|---|"
for c in "triangular 8x8:tri8.edges:--as graph" "triangular 16x16:tri16.edges:--as graph" \
         "triangular 32x32:tri32.edges:--as graph" "3-regular n=60:rr60.edges:--as graph" \
         "3-regular n=1000:rr1000.edges:--as graph" "G(32, 0.5):gnp32.mtx:--hafnian" "G(64, 0.5):gnp64.mtx:--hafnian"; do
  IFS=: read -r name file opt <<<"$c"
  exact=-
  [[ $file != rr1000.edges && $file != gnp64.mtx ]] && exact=$(log10_exact $opt "$work/$file")
  methods="rasmussen rasmussen+ scaling scaling+"
  [[ $file != tri32.edges && $file != rr1000.edges && $device == cpu ]] &&
    methods="$methods godsil-gutman godsil-gutman-complex barvinok"
  for m in $methods; do row "$name" "$work/$file" "$exact" "$m" $opt; done
done
fi

if [[ $sections == *sizes* ]]; then
echo
echo "| lattice | vertices | samples in ${seconds} s | rel. std. error | est/exact | heavy tail |"
echo "|---|---|---|---|---|---|"
for k in 8 16 24 32 48 64 100; do
  "$bin/matchcount-generate" triangular $k $k >"$work/t.edges"
  exact=$(log10_exact --as graph "$work/t.edges")
  "$bin/matchcount" --estimate --rel-error 1e-9 --max-seconds "$seconds" --exact-up-to 0 --threads "$threads" \
    --device "$device" --json --as graph "$work/t.edges" 2>"$work/err" | python3 -c '
import json, sys
text = sys.stdin.read()
k, exact = int(sys.argv[1]), float(sys.argv[2])
if not text:  # refused: no sample finished within the cap
    print("| %dx%d | %d | 0 | refused: %s | - | - |" % (k, k, k * k, open(sys.argv[3]).read().strip()[:80]))
    sys.exit()
j = json.loads(text)
print("| %dx%d | %d | %d | %.3g | %.3f | %s |" % (k, k, k * k, j["samples"], j["rel_std_error"],
      10 ** (j["log10_estimate"] - exact), "yes" if j["heavy_tail"] else "no"))
' "$k" "$exact" "$work/err"
done
fi

if [[ $sections == *targets* ]]; then
echo
echo "| graph | target | seconds | samples | rel. std. error | est/exact | heavy tail |"
echo "|---|---|---|---|---|---|---|"
for c in "triangular 32x32:tri32.edges" "3-regular n=1000:rr1000.edges"; do
  IFS=: read -r name file <<<"$c"
  exact=-
  [[ $file == tri32.edges ]] && exact=$(log10_exact --as graph "$work/$file")
  "$bin/matchcount" --estimate --rel-error 0.01 --max-seconds 10 --exact-up-to 0 --threads "$threads" \
    --device "$device" --json --as graph "$work/$file" | python3 -c '
import json, sys
j = json.load(sys.stdin)
name, exact = sys.argv[1], sys.argv[2]
ratio = "-" if exact == "-" else "%.4f" % 10 ** (j["log10_estimate"] - float(exact))
print("| %s | 1%% in 10 s | %.2f | %d | %.3g | %s | %s |" % (name, j["seconds"]["total"], j["samples"], j["rel_std_error"],
      ratio, "yes" if j["heavy_tail"] else "no"))
' "$name" "$exact"
done
fi
