#!/usr/bin/env bash
# Dense hafnians side by side in one run: matchcount --hafnian (exact integers) against
# thewalrus 0.22 hafnian(A, method="recursive") (doubles) on random symmetric 0-1 matrices of
# density 0.5, the same matrix for both. Prints a Markdown table (docs/benchmarks.md, "Dense
# hafnians against thewalrus"): seconds of each (wall clock, whole program or call), and the
# relative difference of thewalrus's value from the exact one.
#   scripts/hafnian_bench.sh [N ...]        (default: 32 36 40 44)
# Needs matchcount and matchcount-generate in build/bin (or $MATCHCOUNT_BIN); installs thewalrus into a venv
# (build/bench-venv, or $MATCHCOUNT_BENCH_VENV) on first use: a benchmark dependency only.
# MATCHCOUNT_BENCH_PYTHON=python3: a Python that imports thewalrus already (the GPU machine,
# thewalrus carried as wheels), no venv. MATCHCOUNT_DEVICES="cpu gpu": one matchcount column
# per --device, the same count each (the values must agree), in place of the plain command.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(32 36 40 44)
venv=${MATCHCOUNT_BENCH_VENV:-build/bench-venv}
bin=${MATCHCOUNT_BIN:-build/bin}
python=${MATCHCOUNT_BENCH_PYTHON:-}
if [ -z "$python" ]; then
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import thewalrus" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "thewalrus==0.22.0"
  fi
  python=$venv/bin/python
fi
devices=${MATCHCOUNT_DEVICES:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$devices" ]; then
  echo "| n | matchcount exact (s) | thewalrus recursive (s) | thewalrus / matchcount | relative difference |"
  echo "|---|---|---|---|---|"
else
  head="| n |" rule="|---|"
  for d in $devices; do head+=" matchcount --device $d (s) |" rule+="---|"; done
  echo "$head thewalrus recursive (s) | thewalrus / fastest matchcount | relative difference |"
  echo "$rule---|---|---|"
fi
for n in "${sizes[@]}"; do
  m="$work/sym$n.mtx"
  "$bin/matchcount-generate" symmetric-01 "$n" 0.5 --seed "$n" > "$m"
  # OpenBLAS variables set on some machines slow numpy down: unset for this command only.
  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$python" - "$m" "$n" "$bin/matchcount" $devices <<'PY'
import subprocess, sys, time
import numpy as np
from thewalrus import hafnian
path, n, program, devices = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
times, values = [], set()
for d in devices or [None]:
    t = time.perf_counter()
    out = subprocess.run([program, "--hafnian", path] + (["--device", d] if d else []), check=True,
                         capture_output=True, text=True).stdout
    times.append(time.perf_counter() - t)
    values.add(int(out))
if len(values) != 1:
    sys.exit(f"n = {n}: the devices' counts differ: {sorted(values)}")
exact, mc = values.pop(), min(times)
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
cells = " | ".join(f"{x:.3f}" for x in times)
print(f"| {n} | {cells} | {tw:.3f} | {tw / mc:.1f} | {rel:.1e} |", flush=True)
PY
done
