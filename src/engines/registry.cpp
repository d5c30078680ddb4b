// The engine registry and the default choice of engine for a block.
#include "common.hpp"
#include "matchcount/gpu.hpp"

namespace matchcount {

std::vector<std::string> engine_names() { return {"ryser", "sparyser", "skipper", "brute", "gpu-ryser"}; }

bool gpu_available() {
  static const bool available = !gpu_devices().empty();
  return available;
}

std::unique_ptr<Engine> make_engine(std::string_view name) {
  if (name == "ryser") return engines::make_ryser();
  if (name == "sparyser") return engines::make_sparyser();
  if (name == "skipper") return engines::make_skipper();
  if (name == "brute") return engines::make_brute();
  if (name == "gpu-ryser") return engines::make_gpu_ryser();
  throw UsageError("unknown engine '" + std::string(name) + "' (choose ryser, sparyser, skipper, brute or gpu-ryser)");
}

// Measured on the 2-core AVX2 machine (exact 0-1, one thread, core-seconds), n = 30:
//   density  avg row degree  ryser  sparyser  skipper
//   0.10     3.9             2.0    3.5       0.22
//   0.15     5.4             ~2.3   -         5.5
//   0.20     6.8             2.5    15.0      12.9
//   0.30     9.7             2.3    27.0      30.6
// Dense Ryser (SIMD, half the subsets of the plain form) beats the scalar sparse walks
// unless rows are very sparse; SkipPer's jumps win below about 5 nonzeros per row (the
// crossover interpolates between 3.9 and 5.4), and at n = 33 and 36 with about 4.5 per row
// it still runs at 1.0e-11 to 1.2e-11 core-s per n 2^n against ryser's 7e-11. SpaRyser never
// wins here, so it is only chosen by name (a second independent exact engine).
// On the GPU, a block of n >= 28 (2^27 Gray steps, a millisecond of GPU time against a
// tenth of a second on two CPU cores) repays the launch; smaller ones stay on the CPU.
std::string choose_engine(int n, std::size_t nnz, NumberKind kind, DevicePolicy device) {
  (void)kind;  // the same crossover holds for exact and float counts
  const bool gpu = device == DevicePolicy::Gpu || (device == DevicePolicy::Auto && gpu_available());
  if (gpu && n >= 28 && n <= 63) return "gpu-ryser";
  if (n <= 16) return "ryser";
  return double(nnz) < 5.0 * n ? "skipper" : "ryser";
}

}  // namespace matchcount
