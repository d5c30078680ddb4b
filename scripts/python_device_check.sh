#!/bin/bash
# The Python package's tests on a CUDA machine whose image lacks GMP's headers, Boost and MPI
# (the device tool's machines), with its own Python (another minor version than here).
#   here:   scripts/python_device_check.sh pack [build]   -> build/pydev (library, headers, nanobind)
#   device: scripts/python_device_check.sh run  [build]   -> compiles matchcount._core against the
#           packed library with the device's python3, then runs pytest python/tests
# Carry build/pydev, build/bin/matchcount and build/devlibs (scripts/device_libs.sh). Shims stand in for the packages the
# installed CMake config asks for (their targets only need the carried shared libraries).
set -euo pipefail
mode=${1:?usage: $0 pack|run [build-dir]}
build=${2:-build}
cd "$(dirname "$0")/.."
pack=$build/pydev

if [[ $mode == pack ]]; then
  rm -rf "$pack" && mkdir -p "$pack/gmp"
  cmake --install "$build" --prefix "$pack/prefix" >/dev/null
  rm -rf "$pack/prefix/bin" "$pack/prefix/share"
  cp /usr/include/gmpxx.h /usr/include/x86_64-linux-gnu/gmp.h "$pack/gmp/"
  # The nanobind the bindings were written against (the device's may be older).
  nb=$(build-python/venv/bin/python -c 'import nanobind, os; print(os.path.dirname(nanobind.__file__))')
  cp -r "$nb" "$pack/nanobind" && rm -rf "$pack/nanobind/__pycache__"
  du -sh "$pack"
  exit 0
fi

[[ $mode == run ]] || { echo "usage: $0 pack|run [build-dir]" >&2; exit 2; }
root=$PWD
libs=$root/$build/devlibs
shim=/tmp/matchcount-shim
mkdir -p "$shim"
cat >"$shim/PkgConfigConfig.cmake" <<EOF
function(pkg_check_modules prefix)
  if(NOT TARGET PkgConfig::GMPXX)
    add_library(PkgConfig::GMPXX INTERFACE IMPORTED GLOBAL)
    set_target_properties(PkgConfig::GMPXX PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "$root/$pack/gmp"
      INTERFACE_LINK_LIBRARIES "$libs/libgmpxx.so.4;$libs/libgmp.so.10")
  endif()
endfunction()
EOF
cat >"$shim/BoostConfig.cmake" <<'EOF'
if(NOT TARGET Boost::headers)
  add_library(Boost::headers INTERFACE IMPORTED GLOBAL)
endif()
EOF
cat >"$shim/MPIConfig.cmake" <<EOF
if(NOT TARGET MPI::MPI_CXX)
  add_library(MPI::MPI_CXX INTERFACE IMPORTED GLOBAL)
  set_target_properties(MPI::MPI_CXX PROPERTIES INTERFACE_LINK_LIBRARIES "$libs/libmpi_cxx.so.40;$libs/libmpi.so.40")
endif()
set(MPI_CXX_FOUND TRUE)
EOF
# Libraries the export names by their path here (SuiteSparse's) are the carried copies there.
sed -i -E "s#/usr/lib/x86_64-linux-gnu/(lib[a-z_]+)\.so#$libs/\1.so#g" "$pack/prefix/lib/cmake/matchcount/matchcountTargets.cmake"
for f in "$libs"/lib*.so.*; do ln -sf "$(basename "$f")" "${f%%.so.*}.so"; done
for p in PkgConfig Boost MPI; do
  printf 'set(PACKAGE_VERSION 99)\nset(PACKAGE_VERSION_COMPATIBLE TRUE)\n' >"$shim/${p}ConfigVersion.cmake"
done

py=$(command -v python3)
obj=/tmp/matchcount-pybuild
# The compiler that built the library (GCC 12 here), else the system's: a toolchain of its own
# (the device image's /opt/gcc) links a second libstdc++ into the module, and two copies of the
# stream locale in one process crash the first std::ostringstream.
cxx=$(command -v g++-12 || echo /usr/bin/g++)
rm -rf "$obj"
cmake -S python -B "$obj" -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE="$py" -DCMAKE_CXX_COMPILER="$cxx" \
  -DMATCHCOUNT_INSTALLED="$root/$pack/prefix" -Dnanobind_DIR="$root/$pack/nanobind/cmake" \
  -DCMAKE_FIND_PACKAGE_PREFER_CONFIG=ON -DCMAKE_PREFIX_PATH="$shim" \
  -DCMAKE_SHARED_LINKER_FLAGS="-Wl,-rpath-link,$libs" >/dev/null
cmake --build "$obj" -j"$(nproc)"
site=/tmp/matchcount-site
rm -rf "$site" && mkdir -p "$site"
cp -r python/src/matchcount "$site/"
cp "$obj"/_core*.so "$site/matchcount/"
export LD_LIBRARY_PATH="$libs:${LD_LIBRARY_PATH:-}"
export MATCHCOUNT_KERNEL_CACHE="${OUT:-/tmp}/kernel-cache"
PYTHONPATH=$site MATCHCOUNT_CLI=$root/$build/bin/matchcount "$py" -m pytest -q -p no:cacheprovider python/tests "${@:3}"
