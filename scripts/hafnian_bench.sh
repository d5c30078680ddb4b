#!/usr/bin/env bash
# Dense hafnians side by side in one run: matchcount --hafnian (exact integers) against
# thewalrus 0.22 hafnian(A, method="recursive") (doubles) on random symmetric 0-1 matrices of
# density 0.5, the same matrix for both. Prints a Markdown table (docs/benchmarks.md, "Dense
# hafnians against thewalrus"): seconds of each (wall clock, whole program or call), and the
# relative difference of thewalrus's value from the exact one.
#   scripts/hafnian_bench.sh [N ...]        (default: 32 36 40 44)
# Needs matchcount and matchcount-generate in build/bin (or $MATCHCOUNT_BIN); installs thewalrus into a venv
# (build/bench-venv, or $MATCHCOUNT_BENCH_VENV) on first use: a benchmark dependency only.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(32 36 40 44)
venv=${MATCHCOUNT_BENCH_VENV:-build/bench-venv}
bin=${MATCHCOUNT_BIN:-build/bin}
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import thewalrus" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "thewalrus==0.22.0"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "| n | matchcount exact (s) | thewalrus recursive (s) | thewalrus / matchcount | relative difference |"
echo "|---|---|---|---|---|"
for n in "${sizes[@]}"; do
  m="$work/sym$n.mtx"
  "$bin/matchcount-generate" symmetric-01 "$n" 0.5 --seed "$n" > "$m"
  # OpenBLAS variables set on some machines slow numpy down: unset for this command only.
  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$venv/bin/python" - "$m" "$n" "$bin/matchcount" <<'PY'
import subprocess, sys, time
import numpy as np
from thewalrus import hafnian
path, n, program = sys.argv[1], int(sys.argv[2]), sys.argv[3]
t = time.perf_counter()
exact = int(subprocess.run([program, "--hafnian", path], check=True, capture_output=True,
                           text=True).stdout)
mc = time.perf_counter() - t
a = np.zeros((n, n))
with open(path) as f:
    symmetric = 'symmetric' in f.readline()
    rows = [l.split() for l in f if not l.startswith('%')]
for i, j, *v in rows[1:]:
    i, j = int(i) - 1, int(j) - 1
    a[i, j] = float(v[0]) if v else 1.0
    if symmetric:
        a[j, i] = a[i, j]
hafnian(np.ones((20, 20)), method="recursive")  # numba compiles on the first call: not timed
t = time.perf_counter()
value = hafnian(a, method="recursive")
tw = time.perf_counter() - t
rel = abs(float(value) - exact) / abs(exact) if exact else abs(float(value))
print(f"| {n} | {mc:.3f} | {tw:.3f} | {tw / mc:.1f} | {rel:.1e} |", flush=True)
PY
done
