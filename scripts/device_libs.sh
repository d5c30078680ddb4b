#!/bin/bash
# Fills BUILD/devlibs with the shared libraries that the programs in BUILD need beyond the C
# and C++ runtimes (GMP, MPI, OpenMP, SuiteSparse with its BLAS and LAPACK, ...), for a GPU
# machine whose image lacks them: carry BUILD/devlibs beside the programs and set
# LD_LIBRARY_PATH=BUILD/devlibs there (scripts/gpu_check.sh, scripts/python_device_check.sh).
# Usage: scripts/device_libs.sh [build-dir]
set -euo pipefail
build=${1:-build}
cd "$(dirname "$0")/.."
mkdir -p "$build/devlibs"
for program in "$build/bin/matchcount" "$build/tests/matchcount_tests"; do
  [ -x "$program" ] || continue
  ldd "$program" | awk '$3 ~ /^\// { print $3 }' |
    grep -v -E '/(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s)\.so' |
    while read -r lib; do cp -L "$lib" "$build/devlibs/"; done
done
du -sh "$build/devlibs"
