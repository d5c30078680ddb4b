#!/bin/bash
# Runs the GPU tests and GPU benchmarks on a machine with a CUDA device, from binaries built
# elsewhere (build/bin, with build/devlibs for libraries the device image lacks).
# Usage: scripts/gpu_check.sh [tests|bench|all] [extra bench arguments]
set -u
what=${1:-all}
shift || true
export LD_LIBRARY_PATH="$PWD/build/devlibs:${LD_LIBRARY_PATH:-}"
export MATCHCOUNT_KERNEL_CACHE="${OUT:-/tmp}/kernel-cache"
nvidia-smi -L || true
if [[ $what == tests || $what == all ]]; then
  build/tests/matchcount_tests --gtest_filter='Gpu*:EngineRegistry*:Conformance*' 2>&1 | tail -40
fi
if [[ $what == bench || $what == all ]]; then
  build/bin/matchcount-bench --engines gpu-ryser --sparse "" --dense-density 0.5 --max-seconds 300 "$@"
fi
