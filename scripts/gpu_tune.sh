#!/bin/bash
# Times the specialised GPU kernel under the tuning knobs of src/engines/ryser/cuda/ryser_policies.cuh and ryser_kernel.cuh, on one
# dense case per mode. Usage: scripts/gpu_tune.sh N "DEFS1" "DEFS2" ... (DEFS as for
# MATCHCOUNT_NVRTC_DEFINES, "" for the defaults).
set -u
n=$1
shift
export LD_LIBRARY_PATH="$PWD/build/devlibs:${LD_LIBRARY_PATH:-}"
export MATCHCOUNT_KERNEL_CACHE=/tmp/tune-cache-$$
for defs in "$@"; do
  echo "== defines: ${defs:-(defaults)}"
  MATCHCOUNT_NVRTC_DEFINES="$defs" build/bin/matchcount-bench --engines gpu-ryser --sparse "" --dense $n \
    --dense-density 0.5 --modes exact,float | tail -2
done
