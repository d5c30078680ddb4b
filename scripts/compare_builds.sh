#!/usr/bin/env bash
# Old and new builds side by side on this machine, for a change that must not alter
# behaviour or speed (docs/benchmarks.md): the same values from `matchcount --json` on the
# bundled datasets and the shared matrices, and the CPU engine benchmark timed alternately,
# old then new, `ROUNDS` times (the minimum of each is reported).
#
#   scripts/compare_builds.sh OLD_BUILD_DIR NEW_BUILD_DIR [ROUNDS]
#
# Both build folders need bin/matchcount and bin/matchcount-bench (Release, CUDA off is fine).
set -euo pipefail
old=$1 new=$2 rounds=${3:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
shared=${MATCHCOUNT_SHARED:-$here/../shared}

# Values: the JSON without its timings must be identical.
strip() { python3 -c '
import json, sys
text = sys.stdin.read()
try:
    d = json.loads(text)
except ValueError:  # no JSON: refused, timed out or failed; compare the text itself
    print(text)
    sys.exit(0)
def drop(x):
    if isinstance(x, dict):
        return {k: drop(v) for k, v in x.items() if "second" not in k and k not in ("version", "threads", "stage_seconds")}
    if isinstance(x, list):
        return [drop(v) for v in x]
    return x
print(json.dumps(drop(d), sort_keys=True))'; }
same=0 differ=0
for f in "$here"/datasets/*.edges "$here"/datasets/*.arcs "$here"/datasets/*.mtx "$shared"/datasets/matrices/*.mtx; do
  [ -e "$f" ] || continue
  args=(--json --max-seconds 20)
  case "$f" in *.edges) args+=(--as graph) ;; *.arcs) args+=(--as digraph) ;; esac
  a=$(timeout 60 "$old/bin/matchcount" "${args[@]}" "$f" 2>/dev/null | strip || true)
  b=$(timeout 60 "$new/bin/matchcount" "${args[@]}" "$f" 2>/dev/null | strip || true)
  if [ "$a" == "$b" ]; then same=$((same + 1)); else differ=$((differ + 1)); echo "DIFFERENT: $f"; fi
done
echo "values: $same inputs give the same JSON, $differ differ"

# Timing: the engine benchmark of docs/benchmarks.md, old and new alternately.
bench=(--dense 24:28 --sparse 30:32 --densities 0.1,0.2 --engines ryser,sparyser,skipper --max-seconds 8)
for r in $(seq 1 "$rounds"); do
  for which in old new; do
    dir=$old; [ $which == new ] && dir=$new
    "$dir/bin/matchcount-bench" "${bench[@]}" > "/tmp/compare_${which}_$r.txt"
  done
done
python3 - "$rounds" <<'PY'
import sys
rounds = int(sys.argv[1])
def table(path):
    rows = {}
    for line in open(path):
        f = line.split()
        if len(f) < 8 or line.startswith("#") or f[0] == "case":
            continue
        try:
            rows[(f[0], f[1], f[2], f[4], f[5])] = float(f[6])  # case n density mode engine -> seconds
        except ValueError:  # skipped (over --max-seconds)
            continue
    return rows
best = {}
for which in ("old", "new"):
    for r in range(1, rounds + 1):
        for key, v in table(f"/tmp/compare_{which}_{r}.txt").items():
            best[(which, key)] = min(best.get((which, key), v), v)
print(f"| case | n | density | mode | engine | old s | new s | new/old |  (minimum of {rounds} alternating runs)")
print("|---|---|---|---|---|---|---|---|")
ratios = []
for key in sorted({k for (w, k) in best if w == "old"}, key=lambda k: (k[0], int(k[1]), k[2], k[3], k[4])):
    o, n = best.get(("old", key)), best.get(("new", key))
    if o is None or n is None or o <= 0:
        continue
    ratios.append(n / o)
    print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {key[4]} | {o:.4f} | {n:.4f} | {n / o:.2f} |")
if ratios:
    import math
    print(f"geometric mean new/old: {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f} over {len(ratios)} cases")
PY
