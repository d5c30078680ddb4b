// NVRTC compilation with the on-disk kernel cache, for any kernel source.
#pragma once

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

}  // namespace matchcount::gpu::detail
