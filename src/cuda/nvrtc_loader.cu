// Compiling a kernel source with NVRTC and loading it, with the on-disk cache (docs/gpu.md):
// the generic half of what nvrtc_kernels.cu does for gpu-ryser, for any source and entry
// point (the SkipPer kernels use it). NVRTC is opened with dlopen, so the program runs where
// it is missing; cubins are cached under the kernel cache folder, keyed by a hash of the
// source, the device architecture and the NVRTC version.
#include <dlfcn.h>
#include <nvrtc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "core/hashing.hpp"

#include "cuda/nvrtc_loader.hpp"
#include "core/tuning.hpp"

namespace matchcount::gpu::detail {
namespace {

struct Nvrtc {
  bool ok = false;
  std::string why;
  decltype(&nvrtcVersion) version = nullptr;
  decltype(&nvrtcCreateProgram) create = nullptr;
  decltype(&nvrtcCompileProgram) compile = nullptr;
  decltype(&nvrtcGetProgramLogSize) log_size = nullptr;
  decltype(&nvrtcGetProgramLog) log = nullptr;
  decltype(&nvrtcGetCUBINSize) cubin_size = nullptr;
  decltype(&nvrtcGetCUBIN) cubin = nullptr;
  decltype(&nvrtcDestroyProgram) destroy = nullptr;
  decltype(&nvrtcGetErrorString) error = nullptr;
  int major = 0, minor = 0;
};

const Nvrtc& nvrtc() {
  static const Nvrtc lib = [] {
    Nvrtc l;
    void* h = nullptr;
    for (const char* name : {"libnvrtc.so.13", "libnvrtc.so", "/usr/local/cuda/lib64/libnvrtc.so.13",
                             "/usr/local/cuda/lib64/libnvrtc.so", "libnvrtc.so.12"})
      if ((h = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (!h) {
      l.why = "NVRTC library not found";
      return l;
    }
    auto get = [&](auto& fn, const char* sym) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, sym));
      return fn != nullptr;
    };
    l.ok = get(l.version, "nvrtcVersion") && get(l.create, "nvrtcCreateProgram") &&
           get(l.compile, "nvrtcCompileProgram") && get(l.log_size, "nvrtcGetProgramLogSize") &&
           get(l.log, "nvrtcGetProgramLog") && get(l.cubin_size, "nvrtcGetCUBINSize") &&
           get(l.cubin, "nvrtcGetCUBIN") && get(l.destroy, "nvrtcDestroyProgram") &&
           get(l.error, "nvrtcGetErrorString");
    if (!l.ok) l.why = "NVRTC library lacks a needed function";
    else l.version(&l.major, &l.minor);
    return l;
  }();
  return lib;
}

std::filesystem::path cache_dir() {
  return tuning::tuning().kernel_cache;
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Writes through a temporary file and a rename, so readers never see half a kernel.
void write_atomically(const std::filesystem::path& p, const std::string& data) {
  std::error_code ec;
  std::filesystem::create_directories(p.parent_path(), ec);
  if (ec) return;
  // The process id and a counter: compilations on several threads of one process (one beside
  // a walk) may write the same file.
  static std::atomic<unsigned> serial{0};
  const auto tmp = p.string() + ".tmp" + std::to_string(::getpid()) + "." + std::to_string(serial++);
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out.write(data.data(), static_cast<std::streamsize>(data.size()))) return;
  }
  std::filesystem::rename(tmp, p, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

/// Loaded libraries stay for the life of the process, one per distinct cubin.
std::mutex loaded_mutex;
std::map<std::uint64_t, cudaKernel_t> loaded;

/// Whether e's cubin is in the kernel cache (a file of some bytes).
bool in_cache(const NvrtcEntry& e) {
  std::error_code ec;
  return !e.file.empty() && std::filesystem::file_size(e.file, ec) > 0 && !ec;
}

/// Loads `cubin` as e's kernel into k (fn, or note); the caller holds loaded_mutex.
void load_locked(const NvrtcEntry& e, const std::string& cubin, Kernel& k) {
  if (auto it = loaded.find(e.key); it != loaded.end()) {
    k.fn = reinterpret_cast<const void*>(it->second);
    return;
  }
  cudaLibrary_t lib = nullptr;
  cudaKernel_t fn = nullptr;
  if (cudaLibraryLoadData(&lib, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0) != cudaSuccess ||
      cudaLibraryGetKernel(&fn, lib, e.entry.c_str()) != cudaSuccess) {
    cudaGetLastError();
    k.note = "could not load the compiled kernel";
    return;
  }
  loaded[e.key] = fn;
  k.fn = reinterpret_cast<const void*>(fn);
}

}  // namespace

std::string nvrtc_compile(const std::string& src, const std::string& arch, std::string& why) {
  const Nvrtc& l = nvrtc();
  if (!l.ok) {
    why = l.why;
    return {};
  }
  nvrtcProgram prog = nullptr;
  if (l.create(&prog, src.c_str(), "matchcount_kernel.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS) {
    why = "nvrtcCreateProgram failed";
    return {};
  }
  const std::string arch_opt = "--gpu-architecture=" + arch;
  const char* opts[] = {arch_opt.c_str(), "--std=c++17"};
  std::string cubin;
  const nvrtcResult r = l.compile(prog, 2, opts);
  if (r != NVRTC_SUCCESS) {
    std::size_t size = 0;
    l.log_size(prog, &size);
    std::string log(size, '\0');
    l.log(prog, log.data());
    why = std::string("NVRTC compilation failed: ") + l.error(r) + ": " + log.substr(0, 300);
  } else {
    std::size_t size = 0;
    l.cubin_size(prog, &size);
    cubin.resize(size);
    l.cubin(prog, cubin.data());
  }
  l.destroy(&prog);
  return cubin;
}

std::string nvrtc_defines_from_env() {
  std::string out;
  for (const auto& [name, value] : tuning::tuning().nvrtc_defines) out += "#define " + name + " " + value + "\n";
  return out;
}

NvrtcEntry nvrtc_entry(const std::string& src, const char* entry, int cc_major, int cc_minor) {
  const Nvrtc& l = nvrtc();
  NvrtcEntry e;
  e.entry = entry;
  e.arch = "sm_" + std::to_string(cc_major) + std::to_string(cc_minor);
  e.key = fnv1a64(src + "|" + entry + "|" + e.arch + "|nvrtc" + std::to_string(l.major) + "." + std::to_string(l.minor));
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.cubin", static_cast<unsigned long long>(e.key));
  if (const auto dir = cache_dir(); !dir.empty()) e.file = dir / name;
  return e;
}

bool nvrtc_available(const NvrtcEntry& e) {
  {
    std::lock_guard<std::mutex> lock(loaded_mutex);
    if (loaded.count(e.key)) return true;
  }
  return in_cache(e);
}

NvrtcCubin nvrtc_build(const std::string& src, const NvrtcEntry& e) {
  NvrtcCubin c;
  if (!e.file.empty()) c.cubin = read_file(e.file);
  if (!c.cubin.empty()) return c;
  const auto t0 = std::chrono::steady_clock::now();
  c.cubin = nvrtc_compile(src, e.arch, c.why);
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (c.cubin.empty()) return c;
  c.compiled = true;
  if (!e.file.empty()) write_atomically(e.file, c.cubin);
  return c;
}

Kernel nvrtc_load(const NvrtcEntry& e, const std::string& cubin, bool compiled) {
  Kernel k;
  k.source = compiled ? KernelSource::Compiled : KernelSource::Cached;
  std::lock_guard<std::mutex> lock(loaded_mutex);
  load_locked(e, cubin, k);
  return k;
}

Kernel nvrtc_kernel(const std::string& src, const char* entry, int cc_major, int cc_minor, bool compile_now) {
  Kernel k;
  k.source = KernelSource::Cached;
  const NvrtcEntry e = nvrtc_entry(src, entry, cc_major, cc_minor);
  // Held throughout, so that two devices asking for one kernel compile it once.
  std::lock_guard<std::mutex> lock(loaded_mutex);
  if (auto it = loaded.find(e.key); it != loaded.end()) {
    k.fn = reinterpret_cast<const void*>(it->second);
    return k;
  }
  if (!compile_now && !in_cache(e)) return k;  // not worth a compilation; the caller runs a generic kernel
  NvrtcCubin c = nvrtc_build(src, e);  // the cache file, else NVRTC (and the file written)
  k.compile_seconds = c.seconds;
  k.note = c.why;
  if (c.cubin.empty()) return k;
  if (c.compiled) k.source = KernelSource::Compiled;
  load_locked(e, c.cubin, k);
  return k;
}

}  // namespace matchcount::gpu::detail
