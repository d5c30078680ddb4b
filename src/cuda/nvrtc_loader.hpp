// NVRTC compilation with the on-disk kernel cache, for any kernel source.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "cuda/launch.hpp"

namespace matchcount::gpu::detail {

/// The cubin of `src` for `arch` (e.g. "sm_90"); empty with `why` set when NVRTC is missing
/// or the compilation fails.
std::string nvrtc_compile(const std::string& src, const std::string& arch, std::string& why);

/// "#define A 1" lines from MATCHCOUNT_NVRTC_DEFINES="A=1,B=2" (tuning knobs of the kernel
/// headers, for measurements); empty when it is not set.
std::string nvrtc_defines_from_env();

/// The kernel `entry` (extern "C") of `src`: already loaded in this process, from the disk
/// cache, or compiled now when `compile_now` is set. fn is null, with note saying why where
/// there is a reason, when there is none; source is Compiled or Cached otherwise.
Kernel nvrtc_kernel(const std::string& src, const char* entry, int cc_major, int cc_minor, bool compile_now);

// The same in two steps, for compilations beside a running walk: nvrtc_build may run on any
// thread (NVRTC and files only, no CUDA call), nvrtc_load on the thread that launches.

/// Where the kernel `entry` of a source for one architecture is kept: its key (the process's
/// table, the cache file's name) and the cache file (empty path: no cache).
struct NvrtcEntry {
  std::uint64_t key = 0;
  std::string entry, arch;
  std::filesystem::path file;
};
NvrtcEntry nvrtc_entry(const std::string& src, const char* entry, int cc_major, int cc_minor);

/// Loaded in this process already, or in the disk cache: nvrtc_kernel needs no compilation.
bool nvrtc_available(const NvrtcEntry& e);

/// A cubin and how it was had: read from the cache (seconds 0), or compiled now (and written
/// to the cache); empty with `why` when NVRTC is missing or fails.
struct NvrtcCubin {
  std::string cubin;
  double seconds = 0;
  bool compiled = false;
  std::string why;
};
/// The cubin of `src` for e: from the cache, else compiled. Touches no CUDA context and no
/// state shared with the loader, so it may run on a thread of its own.
NvrtcCubin nvrtc_build(const std::string& src, const NvrtcEntry& e);

/// Loads a cubin from nvrtc_build (or finds it loaded); source Compiled or Cached as `compiled`
/// says, compile_seconds left 0; fn null with note when it cannot be loaded.
Kernel nvrtc_load(const NvrtcEntry& e, const std::string& cubin, bool compiled);

}  // namespace matchcount::gpu::detail
