#!/usr/bin/env bash
# libFuzzer runs of the readers and the checkpoint file under ASan + UBSan (docs/fuzzing.md).
#   scripts/fuzz.sh                           brief: 60 seconds of fuzzing in all, split over the six reader
#                                             and checkpoint targets (CI)
#   scripts/fuzz.sh long [SECONDS]            SECONDS in all (default 3600), split over all seven targets
#   scripts/fuzz.sh brief|long SECONDS TARGET...   only these targets (e.g. npy checkpoint)
#   ... -- FLAG...                            more libFuzzer flags, e.g. -- -fork=2 (two processes)
#   scripts/fuzz.sh build [TARGET...]         only build what brief (or the targets named) would run
# Builds the targets in build-fuzz with clang (installing clang if missing, as scripts/setup.sh
# installs packages) and fails when any target finds a crash, a sanitizer report, a failed
# check, a timeout or an out-of-memory. Inputs that found new coverage are kept in
# build-fuzz/corpus/TARGET; an input that failed is saved as build-fuzz/crashes/TARGET/*.
# Targets run side by side, one per core (one at a time when the flags ask for -fork or -jobs,
# which take the cores themselves), so the brief run's 60 seconds take 30 on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: $0 [brief|long|build] [SECONDS] [TARGET...] [-- LIBFUZZER_FLAG...]" >&2; exit 2; }
all_targets=(matrix_market bannerless edge_list dimacs npy checkpoint count)
mode=brief
build_only=0
case "${1:-}" in brief|long) mode=$1; shift ;; build) build_only=1; shift ;; -h|--help) usage ;; esac
seconds=60
[ "$mode" = long ] && seconds=3600
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then seconds=$1; shift; fi
targets=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  [[ " ${all_targets[*]} " == *" $1 "* ]] || { echo "fuzz: unknown target '$1' (${all_targets[*]})" >&2; exit 2; }
  targets+=("$1"); shift
done
[ $# -gt 0 ] && shift  # the "--"
extra=("$@")
# Without names: brief runs the readers and the checkpoint file (the count target compiles the
# whole library under the sanitizers, too long for CI; its seeds are replayed by the unit tests,
# FuzzFound.CountCorpusReplays); long runs all seven.
if [ ${#targets[@]} -eq 0 ]; then
  if [ "$mode" = brief ]; then targets=(matrix_market bannerless edge_list dimacs npy checkpoint)
  else targets=("${all_targets[@]}"); fi
fi
per_target=$(( seconds / ${#targets[@]} ))
[ "$per_target" -ge 1 ] || per_target=1

# clang with libFuzzer (Debian's libclang-rt-dev holds it) and clang's OpenMP runtime, besides
# what the library needs.
packages=(clang libclang-rt-dev libomp-dev cmake make pkg-config libboost-graph-dev libgmp-dev libcli11-dev
          nlohmann-json3-dev)
source scripts/install_packages.sh
install_missing fuzz "${packages[@]}"

dir=build-fuzz
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# -O1 with line tables: fast enough to fuzz, quick to build, stack traces with lines.
cmake -S . -B "$dir" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only" -DMATCHCOUNT_FUZZ=ON -DMATCHCOUNT_TESTS=OFF \
  -DMATCHCOUNT_CUDA=OFF -DMATCHCOUNT_MPI=OFF -DMATCHCOUNT_PYTHON=OFF "${launcher[@]}" >/dev/null
cmake --build "$dir" $(printf -- ' --target fuzz_%s' "${targets[@]}") -j"$(nproc)"
[ "$build_only" = 1 ] && exit 0

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
root=$PWD
mkdir -p "$dir/logs"
side_by_side=$(nproc)
[[ " ${extra[*]-} " == *" -fork="* || " ${extra[*]-} " == *" -jobs="* ]] && side_by_side=1
# One target's run; its summary line, or the end of its log when it failed, goes to
# logs/TARGET.summary, and logs/TARGET.failed marks a failure.
fuzz_one() {
  local t=$1 corpus=$dir/corpus/$1 crashes=$dir/crashes/$1 log=$dir/logs/$1.log summary=$dir/logs/$1.summary
  mkdir -p "$corpus" "$crashes"
  rm -f "$dir/logs/$t.failed"
  # New inputs go to the first folder, so tests/fuzz/corpus (the seeds) is only read. The run
  # starts in the logs folder, where -jobs puts the logs of its workers.
  if (cd "$dir/logs" && "$root/$dir/fuzz/fuzz_$t" "$root/$corpus" "$root/tests/fuzz/corpus/$t" \
        -max_total_time="$per_target" -timeout=30 -rss_limit_mb=2048 -artifact_prefix="$root/$crashes/" \
        -print_final_stats=1 "${extra[@]}") >"$log" 2>&1; then
    local runs rate last
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    if [ -z "$runs" ]; then  # -fork and -jobs print no final stats: the last progress line
      last=$(grep -a -E -o '#[0-9]+[: ].*exec/s:? [0-9]+' "$log" | tail -1 || true)
      runs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$last") rate=$(sed -E -n 's/.*exec\/s:? //p' <<<"$last")
    fi
    echo "fuzz: $t: ${runs:-?} runs in ${per_target}s (${rate:-?}/s), corpus $(ls "$corpus" | wc -l) inputs" >"$summary"
  else
    touch "$dir/logs/$t.failed"
    { echo "fuzz: $t FAILED; the log's end ($log):"
      tail -n 40 "$log"
      echo "fuzz: the input is in $crashes/ (docs/fuzzing.md: reproduce with $dir/fuzz/fuzz_$t FILE)"; } >"$summary"
  fi
}
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$side_by_side" ]; then wait -n || true; running=$((running - 1)); fi
  fuzz_one "$t" &
  running=$((running + 1))
done
wait
failed=()
for t in "${targets[@]}"; do
  if [ -e "$dir/logs/$t.failed" ]; then failed+=("$t"); cat "$dir/logs/$t.summary" >&2
  else cat "$dir/logs/$t.summary"; fi
done
if ((${#failed[@]})); then
  echo "fuzz: failed: ${failed[*]}" >&2
  exit 1
fi
