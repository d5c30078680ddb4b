#!/usr/bin/env bash
# Set up matchcount on a Debian 12 machine (as root, or with sudo available) and then
#   demo: build and count the perfect matchings of the bundled 8x8 grid;
#   test: build, run the whole test suite, the Python package's tests (python/, in a venv), then
#         the C++ suite again under AddressSanitizer + UBSan, then the fuzz targets briefly.
# Safe to re-run: packages already present are not reinstalled, builds are incremental.
set -euo pipefail
mode=${1:-demo}
case "$mode" in demo|test) ;; *) echo "usage: $0 demo|test" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.."

packages=(g++ make cmake pkg-config help2man libboost-graph-dev libgmp-dev libcli11-dev nlohmann-json3-dev libgtest-dev libopenmpi-dev openmpi-bin
          libsuitesparse-dev python3-dev python3-venv)
source scripts/install_packages.sh
install_missing setup "${packages[@]}"

jobs=$(nproc)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"

if [ "$mode" = demo ]; then
  echo "matchcount --as graph datasets/grid8x8.edges  (dimer coverings of the 8x8 square):"
  build/bin/matchcount --as graph datasets/grid8x8.edges
  exit 0
fi

# start_beside LOG COMMAND...: COMMAND at the lowest priority in the background, so that it
# takes only the CPU the steps in the foreground leave idle; its output goes to LOG.
# finish_beside: wait for it, print LOG, and stop the script if it failed.
# It runs in a process group of its own (set -m), which the trap ends if a step before the wait
# fails; not in a session of its own (setsid): the kernel's autogroups share the CPU fairly
# between sessions whatever their nice values, and the Release suite's timing test failed
# beside it.
start_beside() {
  beside_log=$1; shift
  set -m
  nice -n 19 "$@" >"$beside_log" 2>&1 &
  beside_pid=$!
  set +m
  trap 'kill -- -"$beside_pid" 2>/dev/null || true' EXIT
}
finish_beside() {
  local status=0
  wait "$beside_pid" || status=$?
  trap - EXIT
  cat "$beside_log"
  [ "$status" -eq 0 ] || { echo "setup: failed in the background (exit $status; $beside_log)" >&2; exit 1; }
}

# The sanitizer build starts now, beside the Release suite and the Python package (one core
# for most of pytest and pip). It checks the host code; CUDA stays out of it (no GPU runs in CI
# anyway). -Og with line tables (-g1) builds far faster than -O1 -g for a slightly slower suite;
# only the suite and the programs it runs are built (docs/benchmarks.md, "The test command's
# time").
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DMATCHCOUNT_SANITIZE=ON -DMATCHCOUNT_CUDA=OFF \
  -DCMAKE_CXX_FLAGS="-Og" -DCMAKE_CXX_FLAGS_DEBUG="-g1" >/dev/null
start_beside build-asan/build.log cmake --build build-asan -j"$jobs" --target matchcount_tests

ctest --test-dir build -j"$jobs" --output-on-failure

# find_package(matchcount) from an installed copy, as a downstream project would use it.
prefix=$(mktemp -d)
cmake --install build --prefix "$prefix" >/dev/null
cmake -S tests/install_consumer -B "$prefix/consumer-build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/consumer-build" >/dev/null
echo "installed library, 6x6 grid: $("$prefix/consumer-build/consumer")"
# The Python package (docs/python.md), built by pip against the library just installed (so the
# library is not compiled twice), in a venv of its own; its tests compare with build/bin.
venv=build-python/venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check nanobind scikit-build-core numpy scipy networkx pytest
CMAKE_BUILD_PARALLEL_LEVEL=$jobs "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation \
  ./python -Cbuild-dir="$PWD/build-python/build" -Ccmake.define.MATCHCOUNT_INSTALLED="$prefix"
MATCHCOUNT_CLI="$PWD/build/bin/matchcount" "$venv/bin/python" -m pytest -q python/tests
rm -rf "$prefix"
finish_beside
# The fuzz targets (clang) build beside the sanitizer suite, on what CPU its tests leave idle
# while they wait on the programs they run.
mkdir -p build-fuzz
start_beside build-fuzz/build.log bash scripts/fuzz.sh build
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan -j"$jobs" --output-on-failure
finish_beside
# The readers and the checkpoint file under libFuzzer: 60 s of fuzzing, the targets side by side
# (30 s on two cores; docs/fuzzing.md).
bash scripts/fuzz.sh brief
