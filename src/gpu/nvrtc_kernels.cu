// Kernels specialised to one matrix, compiled at run time by NVRTC: n is a constant, so the
// row values live in registers, and every column's entries are baked into the code as
// constants (zero entries produce no instruction at all), which removes the shared-memory
// reads of the generic kernel. NVRTC is opened with dlopen, so the program runs where it is
// missing; compiled kernels are cached on disk, keyed by a hash of the source, the NVRTC
// version and the device's architecture.
#include <dlfcn.h>
#include <nvrtc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "kernels.hpp"
#include "ryser_kernel_source.hpp"

namespace matchcount::gpu::detail {
namespace {

/// The NVRTC entry points we use, resolved once.
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

std::string literal(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

/// How the specialised kernel reads its columns: baked into the code (constants become
/// immediates, zero entries vanish: the code-generation papers' approach for sparse 0-1
/// matrices) or from shared memory. On dense matrices shared memory won (H100, n = 38: real
/// 0.98 s against 1.42 s, exact 0-1 of density 0.5 1.50 s against 1.74 s, and baking a dense
/// real matrix took 2.5 s to compile), so only sparse integer matrices are baked.
/// MATCHCOUNT_NVRTC_COLUMNS=baked|shared overrides the choice (for measurements).
bool bake_columns(const WalkJob& job) {
  if (const char* c = std::getenv("MATCHCOUNT_NVRTC_COLUMNS")) {
    if (std::string(c) == "baked") return true;
    if (std::string(c) == "shared") return false;
  }
  std::size_t nonzero = 0;
  for (double v : job.a2) nonzero += v != 0.0;
  return job.kind != WalkKind::Complex && double(nonzero) <= 0.4 * double(job.a2.size());
}

/// Warp fraction with a nonzero term below which exact kernels skip zero terms.
constexpr double kSkipZeroBelow = 0.3;

struct Source {
  std::string text;
  int rows = 0;
  bool shared = false;
};

/// The specialised kernel's source: the kernel header, n fixed, and the columns baked or read
/// from shared memory; one entry point, mc_ryser_specialised.
Source source_for(const WalkJob& job) {
  const int n = job.n, m = n - 1, W = job.kind == WalkKind::Complex ? 2 : 1;
  Source out;
  out.shared = !bake_columns(job);
  out.rows = out.shared ? (n + 1) / 2 * 2 : n;  // shared reads take rows in pairs
  const int R = out.rows;
  std::ostringstream s;
  // Experiments with the tuning knobs of ryser_kernel.cuh: MATCHCOUNT_NVRTC_DEFINES="A=1,B=2".
  if (const char* defs = std::getenv("MATCHCOUNT_NVRTC_DEFINES")) {
    std::string d = defs;
    for (std::size_t p = 0; p < d.size();) {
      const std::size_t q = std::min(d.find(',', p), d.size());
      const std::string item = d.substr(p, q - p);
      const std::size_t eq = item.find('=');
      if (eq != std::string::npos) s << "#define " << item.substr(0, eq) << " " << item.substr(eq + 1) << "\n";
      p = q + 1;
    }
  }
  s << kRyserKernelSource << "\n";
  std::string cols = "mcgpu::SharedColumns<" + std::to_string(R) + ">";
  if (!out.shared) {
    cols = "BakedColumns";
    s << "struct BakedColumns {\n  static constexpr bool kUnrolled = true;\n  template <class Num>\n"
      << "  static __device__ __forceinline__ void add(typename Num::Y& y, int col, double dir, const double*,"
      << " const mcgpu::WalkArgs& A) {\n    switch (col) {\n";
    for (int j = 0; j < m; ++j) {
      s << "      case " << j << ":";
      for (int i = 0; i < n; ++i) {
        const double* v = &job.a2[(static_cast<std::size_t>(j) * n + i) * W];
        if (v[0] == 0.0 && (W == 1 || v[1] == 0.0)) continue;
        s << " Num::update(y, " << i << ", dir, " << literal(v[0]);
        if (W == 2) s << ", " << literal(v[1]);
        s << ", A);";
      }
      s << " break;\n";
    }
    s << "      default: break;\n    }\n  }\n};\n";
  }
  const std::string r = std::to_string(R);
  std::string num;
  switch (job.kind) {
    case WalkKind::Real: num = "mcgpu::RealNum<" + r + ">"; break;
    case WalkKind::Complex: num = "mcgpu::ComplexNum<" + r + ">"; break;
    case WalkKind::ModPrime: num = "mcgpu::ModPrimeNum<" + r + ">"; break;
    case WalkKind::ModShared: {
      const unsigned long long mask = job.fold_mask | (1ULL << (R - 1));
      // Skipping zero terms pays when few warps have a nonzero one (see ModSharedNum).
      const bool skip = warp_nonzero_fraction(job) < kSkipZeroBelow;
      num = "mcgpu::ModSharedNum<" + r + ", " + std::to_string(job.primes.size()) + ", " + std::to_string(mask) +
            "ULL, " + (skip ? "true" : "false") + ">";
      break;
    }
  }
  s << "extern \"C\" __global__ void __launch_bounds__(256, MCGPU_MIN_BLOCKS) mc_ryser_specialised(mcgpu::WalkArgs A) {\n";
  if (out.shared)
    s << "  extern __shared__ double2 shared_cols[];\n  double* cols = reinterpret_cast<double*>(shared_cols);\n"
      << "  for (int i = threadIdx.x; i < A.m * " << R * W << "; i += blockDim.x) cols[i] = A.a2[i];\n"
      << "  __syncthreads();\n  mcgpu::walk<" << num << ", " << cols << ", " << R << ">(A, cols, cols);\n}\n";
  else
    s << "  mcgpu::walk<" << num << ", " << cols << ", " << R << ">(A, nullptr, A.a2);\n}\n";
  out.text = s.str();
  return out;
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

std::filesystem::path cache_dir() {
  if (const char* d = std::getenv("MATCHCOUNT_KERNEL_CACHE")) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::filesystem::path(d) / "matchcount" / "kernels";
  if (const char* d = std::getenv("HOME"); d && *d) return std::filesystem::path(d) / ".cache" / "matchcount" / "kernels";
  return {};
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
  const auto tmp = p.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out.write(data.data(), static_cast<std::streamsize>(data.size()))) return;
  }
  std::filesystem::rename(tmp, p, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

/// NVRTC compilation to a cubin; empty with `why` set on failure.
std::string compile(const std::string& src, const std::string& arch, std::string& why) {
  const Nvrtc& l = nvrtc();
  nvrtcProgram prog = nullptr;
  if (l.create(&prog, src.c_str(), "matchcount_ryser.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS) {
    why = "nvrtcCreateProgram failed";
    return {};
  }
  const std::string arch_opt = "--gpu-architecture=" + arch;
  const char* opts[] = {arch_opt.c_str(), "--std=c++17"};
  std::string cubin;
  nvrtcResult r = l.compile(prog, 2, opts);
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

/// Loaded libraries stay for the life of the process, one per distinct cubin.
std::mutex loaded_mutex;
std::map<std::uint64_t, cudaKernel_t> loaded;

}  // namespace

Kernel specialised_kernel(const WalkJob& job, int cc_major, int cc_minor, bool compile_now) {
  Kernel k;
  const Nvrtc& l = nvrtc();
  const std::string arch = "sm_" + std::to_string(cc_major) + std::to_string(cc_minor);
  const Source source = source_for(job);
  const std::string& src = source.text;
  k.rows = source.rows;
  k.uses_shared = source.shared;
  const std::uint64_t key =
      fnv1a(src + "|" + arch + "|nvrtc" + std::to_string(l.major) + "." + std::to_string(l.minor));
  std::lock_guard<std::mutex> lock(loaded_mutex);
  if (auto it = loaded.find(key); it != loaded.end()) {
    k.fn = reinterpret_cast<const void*>(it->second);
    k.source = KernelSource::Cached;
    return k;
  }
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.cubin", static_cast<unsigned long long>(key));
  const auto dir = cache_dir();
  std::string cubin = dir.empty() ? std::string() : read_file(dir / name);
  k.source = KernelSource::Cached;
  if (cubin.empty()) {
    if (!compile_now) return k;  // not worth a compilation; the generic kernel runs
    if (!l.ok) {
      k.note = l.why;
      return k;
    }
    auto t0 = std::chrono::steady_clock::now();
    cubin = compile(src, arch, k.note);
    k.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (cubin.empty()) return k;
    if (!dir.empty()) write_atomically(dir / name, cubin);
    k.source = KernelSource::Compiled;
  }
  cudaLibrary_t lib = nullptr;
  cudaKernel_t fn = nullptr;
  if (cudaLibraryLoadData(&lib, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0) != cudaSuccess ||
      cudaLibraryGetKernel(&fn, lib, "mc_ryser_specialised") != cudaSuccess) {
    cudaGetLastError();
    k.note = "could not load the compiled kernel";
    return k;
  }
  loaded[key] = fn;
  k.fn = reinterpret_cast<const void*>(fn);
  return k;
}

}  // namespace matchcount::gpu::detail
