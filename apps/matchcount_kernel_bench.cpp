// matchcount-kernel-bench: times the gpu-ryser engine's NVRTC kernel variants (register-only
// and hybrid register/memory, docs/gpu.md) on random dense and sparse matrices, or with
// --batch the GPU batch of small dense permanents (gpu_dense_permanents). A benchmark,
// not a test: it prints one line per run with the time, the FP64 floor and the fraction of it
// reached, and checks that the variants of a case give the same value. Runs predicted longer
// than --cap seconds are stopped after a few launches and their time extrapolated from the
// progress rate. Sets MATCHCOUNT_GPU_VERBOSE=1: the kernels' registers and local (spill) bytes
// appear on stderr before each run.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <complex>
#include <optional>
#include <random>
#include <vector>

#include "catalog/catalog.hpp"
#include "engines/graph_frontier/graph_frontier.hpp"
#include "engines/hafnian/hafnian.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/io.hpp"
#include "matchcount/small_dense.hpp"

using namespace matchcount;

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct Stop {};  // thrown from the progress callback to end an extrapolated run

/// "kind:n[:density]", kind real, complex or exact (0-1).
struct Case {
  std::string kind;
  int n = 0;
  double density = 1.0;
};
Case parse_case(const std::string& s) {
  Case c;
  const auto a = s.find(':'), b = s.find(':', a + 1);
  c.kind = s.substr(0, a);
  c.n = std::stoi(s.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1));
  if (b != std::string::npos) c.density = std::stod(s.substr(b + 1));
  return c;
}

/// FP64 instructions of the register-only walk: per step the product over the n rows (one
/// multiplication a row, complex 4) and the flipped column's entries (one FMA, complex 2),
/// sparsest columns flipped most often.
template <class T>
double floor_ops(const SparseMatrix<T>& a, int W) {
  std::vector<int> counts(static_cast<std::size_t>(a.cols));
  for (const auto& e : a.entries) ++counts[static_cast<std::size_t>(e.col)];
  std::sort(counts.begin(), counts.end());
  double per_step = a.rows * W * W;
  for (int j = 0; j + 1 < a.cols; ++j) per_step += W * counts[static_cast<std::size_t>(j)] * std::ldexp(1.0, -(j + 1));
  return per_step * std::ldexp(1.0, a.rows - 1);
}

/// True when every row and column holds an entry (else the engine leaves the block to the CPU).
template <class T>
bool full_lines(const SparseMatrix<T>& a) {
  std::vector<bool> row(static_cast<std::size_t>(a.rows)), col(static_cast<std::size_t>(a.cols));
  for (const auto& e : a.entries) row[static_cast<std::size_t>(e.row)] = col[static_cast<std::size_t>(e.col)] = true;
  return std::all_of(row.begin(), row.end(), [](bool b) { return b; }) &&
         std::all_of(col.begin(), col.end(), [](bool b) { return b; });
}

/// The first matrix from seeds s, s + 1000, ... with no empty line.
template <class Make>
auto without_empty_lines(std::uint64_t s, Make make) {
  auto a = make(s);
  while (!full_lines(a)) a = make(s += 1000);
  return a;
}

void set_variant(const std::string& v) {
  // "register", "hybrid", "hybrid:K", "hybrid:K:global|shared", "auto"
  unsetenv("MATCHCOUNT_NVRTC_VARIANT");
  unsetenv("MATCHCOUNT_NVRTC_MEMORY_ROWS");
  unsetenv("MATCHCOUNT_NVRTC_HYBRID_MEMORY");
  if (v == "auto") return;
  const auto a = v.find(':'), b = a == std::string::npos ? a : v.find(':', a + 1);
  setenv("MATCHCOUNT_NVRTC_VARIANT", v.substr(0, a).c_str(), 1);
  if (a == std::string::npos) return;
  const std::string rows = v.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
  if (!rows.empty()) setenv("MATCHCOUNT_NVRTC_MEMORY_ROWS", rows.c_str(), 1);
  if (b != std::string::npos) setenv("MATCHCOUNT_NVRTC_HYBRID_MEMORY", v.substr(b + 1).c_str(), 1);
}

struct Timing {
  double seconds = 0;
  bool extrapolated = false;
  std::string value, kernel;
  double compile = 0;
};

/// One run; with a cap, stopped once the run has passed it with at least three progress
/// reports, its total extrapolated from the rate between the first and the last report.
template <class T, class Show>
Timing time_run(const SparseMatrix<T>& a, double cap, Show show) {
  Timing t;
  std::vector<std::pair<double, double>> points;  // (time, fraction)
  EngineOptions o;
  o.specialise = Specialise::Always;
  EngineStats stats;
  o.stats = &stats;
  o.progress = [&](double f) {
    points.push_back({now(), f});
    if (cap > 0 && points.size() >= 3 && points.back().first - points.front().first > cap) throw Stop{};
  };
  const double t0 = now();
  try {
    t.value = show(make_engine("gpu-ryser")->permanent(a, o));
    t.seconds = now() - t0 - stats.compile_seconds;
  } catch (const Stop&) {
    const auto [t1, f1] = points.front();
    const auto [t2, f2] = points.back();
    t.seconds = (t2 - t1) / (f2 - f1);
    t.extrapolated = true;
  }
  t.kernel = stats.kernel.empty() ? "?" : stats.kernel;
  t.compile = stats.compile_seconds;
  return t;
}

/// The small dense kernels on the CPU's threads, one matrix a thread at a time (what the
/// Python package's batches and the CLI's stacks run where no GPU takes a batch).
std::vector<SmallDenseValue> cpu_batch(const std::vector<double>& re, const std::vector<double>& im, int n, long long k,
                                       bool hafnian, bool loops) {
  std::vector<SmallDenseValue> v(static_cast<std::size_t>(k));
  const bool cplx = !im.empty();
  const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
#pragma omp parallel
  {
    std::vector<std::complex<double>> c(cplx ? nn : 0);
#pragma omp for schedule(dynamic, 16)
    for (long long b = 0; b < k; ++b) {
      const double* r = re.data() + static_cast<std::size_t>(b) * nn;
      const void* data = r;
      if (cplx) {
        for (std::size_t e = 0; e < nn; ++e) c[e] = {r[e], im[static_cast<std::size_t>(b) * nn + e]};
        data = c.data();
      }
      const DenseElement type = cplx ? DenseElement::Complex128 : DenseElement::Float64;
      v[static_cast<std::size_t>(b)] = hafnian ? small_dense_hafnian(data, type, n, n, n, 1, loops, DenseMode::Float)
                                               : small_dense_permanent(data, type, n, n, n, 1, DenseMode::Float);
    }
  }
  return v;
}

/// --batch n:k[:real|complex[:cpu]]: gpu_dense_permanents on k random n x n matrices (entries
/// 0.3 U(-1, 1), as GBSKernels' benchmark), the whole call timed (transfers included), best of
/// three after a warm-up; the floor counts each term's FP64 operations: the n (2n complex)
/// additions of the step, the n - 1 products (4 operations complex) and the sums' 8 (14).
/// ":cpu" times the small dense kernels on the CPU's threads instead (cpu_batch).
void time_batch(const std::string& spec, double rate, std::uint64_t seed) {
  int n = 0;
  long long k = 0;
  char kind_text[24] = "complex";
  if (std::sscanf(spec.c_str(), "%d:%lld:%23s", &n, &k, kind_text) < 2 || k < 1) throw CLI::ValidationError("--batch", spec);
  std::string kind_spec = kind_text;
  const bool on_cpu = kind_spec.size() > 4 && kind_spec.compare(kind_spec.size() - 4, 4, ":cpu") == 0;
  if (on_cpu) kind_spec.resize(kind_spec.size() - 4), std::snprintf(kind_text, sizeof kind_text, "%s", kind_spec.c_str());
  // "haf-" or "lhaf-" before the number kind: hafnians (loop hafnians) of symmetric matrices.
  std::string kind = kind_text;
  const bool hafnian = kind.rfind("haf-", 0) == 0 || kind.rfind("lhaf-", 0) == 0, loops = kind.rfind("lhaf-", 0) == 0;
  if (hafnian) kind = kind.substr(kind.find('-') + 1);
  const bool cplx = kind == "complex";
  std::mt19937_64 rng(seed + static_cast<std::uint64_t>(n));
  std::uniform_real_distribution<double> u(-0.3, 0.3);
  std::vector<double> re(static_cast<std::size_t>(k * n * n)), im(cplx ? re.size() : 0);
  for (auto& x : re) x = u(rng);
  for (auto& x : im) x = u(rng);
  if (hafnian)  // symmetric: the upper triangle from the lower
    for (long long b = 0; b < k; ++b)
      for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
          re[static_cast<std::size_t>(b * n * n + i * n + j)] = re[static_cast<std::size_t>(b * n * n + j * n + i)];
          if (cplx) im[static_cast<std::size_t>(b * n * n + i * n + j)] = im[static_cast<std::size_t>(b * n * n + j * n + i)];
        }
  double best = 1e300, checksum = 0;
  for (int r = 0; r < 4; ++r) {
    const double t0 = now();
    const auto v = on_cpu    ? cpu_batch(re, im, n, k, hafnian, loops)
                   : hafnian ? gpu_dense_hafnians(re.data(), cplx ? im.data() : nullptr, n, k, loops)
                             : gpu_dense_permanents(re.data(), cplx ? im.data() : nullptr, n, k);
    const double t = now() - t0;
    if (r > 0) best = std::min(best, t);
    checksum = 0;
    for (const auto& x : v) checksum += std::abs(std::complex<double>(x.re, x.im));
  }
  const double ops_per_term = cplx ? 2.0 * n + 4.0 * (n - 1) + 14 : n + (n - 1) + 8.0;
  // Hafnians: the floor of their walk is not counted here (docs/benchmarks.md counts it).
  const double floor = hafnian || on_cpu ? 0.0 : double(k) * std::ldexp(1.0, n - 1) * ops_per_term / rate;
  std::printf("batch %s %-7s n=%2d k=%lld %s: %.4f s, %.4g /s, floor %.4f s (%.0f%%), checksum %.12g\n",
              hafnian ? (loops ? "lhaf" : "haf") : "perm", kind.c_str(), n, k, on_cpu ? "cpu" : "gpu", best, double(k) / best,
              floor, 100 * floor / best, checksum);
  std::fflush(stdout);
}

/// --tor-stack FILE.npy[:cpu]: the torontonians of a 3-D stack of O matrices (k, 2n, 2n), by
/// gpu_dense_torontonians (the whole call, transfers included) or with :cpu by
/// small_dense_torontonian on the CPU's threads; best of three after a warm-up, and how many the
/// small path left to the engine.
void time_tor_stack(const std::string& spec) {
  std::string path = spec;
  const bool on_cpu = path.size() > 4 && path.compare(path.size() - 4, 4, ":cpu") == 0;
  if (on_cpu) path.resize(path.size() - 4);
  const ReadResult in = read_input(path, ReadOptions{});
  if (!in.is_stack || in.stack.empty()) throw CLI::ValidationError("--tor-stack", path + " is not a 3-D stack");
  const int d = rows_of(in.stack[0]);
  const auto k = static_cast<std::int64_t>(in.stack.size());
  const std::size_t dd = static_cast<std::size_t>(d) * static_cast<std::size_t>(d);
  std::vector<double> re(static_cast<std::size_t>(k) * dd), im(re.size());
  std::vector<std::complex<double>> c(re.size());
  for (std::int64_t b = 0; b < k; ++b)
    std::visit(
        [&](const auto& m) {
          using T = std::decay_t<decltype(m.entries[0].value)>;
          if constexpr (std::is_same_v<T, double> || std::is_same_v<T, Complex>)
            for (const auto& e : m.entries) {
              const std::size_t at = static_cast<std::size_t>(b) * dd + static_cast<std::size_t>(e.row * d + e.col);
              c[at] = std::complex<double>(e.value), re[at] = c[at].real(), im[at] = c[at].imag();
            }
        },
        in.stack[static_cast<std::size_t>(b)]);
  double best = 1e300, checksum = 0;
  std::int64_t referred = 0;
  for (int r = 0; r < 4; ++r) {
    const double t0 = now();
    std::vector<SmallDenseValue> v;
    if (on_cpu) {
      v.resize(static_cast<std::size_t>(k));
#pragma omp parallel for schedule(dynamic, 16)
      for (std::int64_t b = 0; b < k; ++b)
        v[static_cast<std::size_t>(b)] = small_dense_torontonian(c.data() + static_cast<std::size_t>(b) * dd, DenseElement::Complex128, d, d, d, 1);
    } else {
      v = gpu_dense_torontonians(re.data(), im.data(), d / 2, k);
    }
    const double t = now() - t0;
    if (r > 0) best = std::min(best, t);
    checksum = 0, referred = 0;
    for (const auto& x : v) checksum += x.re, referred += x.kind == SmallDenseValue::None;
  }
  std::printf("tor stack %d modes k=%lld %s: %.4f s, %.4g /s, left to the engine %lld, checksum %.12g\n", d / 2,
              static_cast<long long>(k), on_cpu ? "cpu" : "gpu", best, double(k) / best, static_cast<long long>(referred), checksum);
  std::fflush(stdout);
}

}  // namespace

/// --haf-residues: the GPU walk modulo chosen primes, the vertices reversed where asked.
int haf_residues(const std::string& file, const std::vector<double>& primes, bool reverse) {
  ReadOptions ro;
  ro.hafnian = true;
  const ReadResult in = read_input(file, ro);
  const auto* a_ptr = std::get_if<SparseMatrix<Integer>>(&in.matrix);
  if (!a_ptr || primes.empty()) {
    std::fprintf(stderr, "matchcount-kernel-bench: --haf-residues needs an integer matrix and --primes\n");
    return 2;
  }
  SparseMatrix<Integer> a = *a_ptr;
  if (reverse) {
    for (auto& e : a.entries) e.row = a.rows - 1 - e.row, e.col = a.cols - 1 - e.col;
    a.normalize();
  }
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<std::uint64_t> r = engines::gpu_hafnian_residues(a, false, primes, EngineOptions{});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (std::size_t k = 0; k < r.size(); ++k)
    std::printf("%.0f %llu\n", primes[k], static_cast<unsigned long long>(r[k]));
  std::printf("# %s, n = %d, %s order, %.3f s\n", file.c_str(), a.rows, reverse ? "reversed" : "given", s);
  return 0;
}

int main(int argc, char** argv) {
  CLI::App app{"Times the register-only and hybrid NVRTC kernels of gpu-ryser"};
  std::vector<std::string> cases{"real:40", "exact:40", "complex:36"}, variants{"register", "hybrid"};
  double cap = 0, rate = 17e12;
  std::uint64_t seed = 1;
  app.add_option("--cases", cases, "kind:n[:density], kind real, complex or exact (0-1)")->delimiter(',');
  app.add_option("--variants", variants, "register, hybrid, hybrid:K[:shared|global], auto")->delimiter(',');
  app.add_option("--cap", cap, "extrapolate runs longer than this many seconds (0: never)");
  app.add_option("--gpu-rate", rate, "FP64 instructions per second of the GPU, for the floor")->capture_default_str();
  app.add_option("--seed", seed, "random seed")->capture_default_str();
  std::vector<std::string> batches;
  app.add_option("--batch", batches,
                 "n:k[:real|complex|haf-real|haf-complex|lhaf-real|lhaf-complex][:cpu]: the GPU batch of k small "
                 "dense permanents, hafnians or loop hafnians, or with :cpu the CPU's small kernels (then exits)")
      ->delimiter(',');
  std::vector<std::string> tor_stacks;
  app.add_option("--tor-stack", tor_stacks,
                 "FILE.npy[:cpu]: the GPU batch of the stack's torontonians, or with :cpu the CPU's small path (then exits)")
      ->delimiter(',');
  std::vector<std::string> floors;
  double bandwidth = 4.8e12;
  app.add_option("--polynomial-floor", floors,
                 "FILE (a graph's edge list): the memory floor of the matching polynomial's DP, counted from its "
                 "plan, and its seconds at --bandwidth (then exits; no GPU needed)")
      ->delimiter(',');
  app.add_option("--bandwidth", bandwidth, "memory bytes per second of the GPU, for --polynomial-floor")->capture_default_str();
  std::string haf_file;
  std::vector<double> haf_primes;
  bool haf_reverse = false;
  app.add_option("--haf-residues", haf_file,
                 "FILE (a symmetric matrix): the exact GPU hafnian walk modulo each of --primes, a line each (then "
                 "exits): a check of a count on primes of one's choosing");
  app.add_option("--primes", haf_primes, "primes for --haf-residues, below 2^prime_bits of the half-size (23 bits at n = 70)")
      ->delimiter(',');
  app.add_flag("--reverse", haf_reverse, "with --haf-residues: the vertices in reverse order (another walk, the same hafnian)");
  CLI11_PARSE(app, argc, argv);
  if (!haf_file.empty()) return haf_residues(haf_file, haf_primes, haf_reverse);
  if (!floors.empty()) {
    std::printf("%-28s %6s %12s %7s %14s %10s\n", "graph", "n", "states", "primes", "bytes", "floor s");
    for (const std::string& f : floors) {
      ReadOptions ro;
      ro.as = InputFormat::Graph;
      ro.hafnian = true;  // the symmetric adjacency matrix, bipartite or not
      const ReadResult in = read_input(f, ro);
      const auto* a_ptr = std::get_if<SparseMatrix<Integer>>(&in.matrix);
      if (!a_ptr) {
        std::fprintf(stderr, "matchcount-kernel-bench: %s: integer weights only\n", f.c_str());
        return 2;
      }
      const SparseMatrix<Integer>& a = *a_ptr;
      const engines::PolynomialTraffic t = engines::graph_frontier_polynomial_traffic(a);
      const double bytes = t.bytes_per_prime * t.primes;
      std::printf("%-28s %6d %12.4g %7.0f %14.4g %10.3f\n", f.c_str(), a.rows, t.states, t.primes, bytes, bytes / bandwidth);
    }
    return 0;
  }
  if (!batches.empty() || !tor_stacks.empty()) {  // (a GPU case without a device fails in its GpuError)
    for (const std::string& b : batches) time_batch(b, rate, seed);
    for (const std::string& t : tor_stacks) time_tor_stack(t);
    return 0;
  }
  if (!gpu_available()) {
    std::fprintf(stderr, "matchcount-kernel-bench: no CUDA device\n");
    return 1;
  }
  // The first GPU run of a process pays one-time costs (module loading, first allocations):
  // an untimed run first.
  set_variant("register");
  EngineOptions warm;
  warm.specialise = Specialise::Always;
  make_engine("gpu-ryser")->permanent(random_real_matrix(20, 1.0, 0.0, 1.0, seed), warm);
  setenv("MATCHCOUNT_GPU_VERBOSE", "1", 1);
  std::printf("%-8s %3s %5s %-20s %-16s %10s %9s %6s %s\n", "kind", "n", "dens", "variant", "kernel", "seconds",
              "floor s", "floor%", "value");
  for (const std::string& spec : cases) {
    const Case c = parse_case(spec);
    const auto s = seed + static_cast<std::uint64_t>(c.n);
    std::string first_value;
    for (const std::string& v : variants) {
      set_variant(v);
      std::fflush(stdout);
      Timing t;
      double ops = 0;
      if (c.kind == "complex") {
        const auto a = without_empty_lines(s, [&](std::uint64_t x) { return random_complex_matrix(c.n, c.density, x); });
        ops = floor_ops(a, 2);
        t = time_run(a, cap, [](const Approx<Complex>& x) {
          char buf[64];
          std::snprintf(buf, sizeof buf, "%.15g%+.15gi", x.value.real(), x.value.imag());
          return std::string(buf);
        });
      } else if (c.kind == "real") {
        const auto a = without_empty_lines(s, [&](std::uint64_t x) { return random_real_matrix(c.n, c.density, 0.0, 1.0, x); });
        ops = floor_ops(a, 1);
        t = time_run(a, cap, [](const Approx<double>& x) {
          char buf[40];
          std::snprintf(buf, sizeof buf, "%.17g", x.value);
          return std::string(buf);
        });
      } else {
        const auto a = without_empty_lines(s, [&](std::uint64_t x) { return erdos_renyi_bipartite(c.n, c.density, x); });
        ops = floor_ops(a, 1);
        t = time_run(a, cap, [](const Integer& x) { return x.get_str(); });
      }
      const double floor = ops / rate;
      std::string value = t.extrapolated ? "-" : t.value;
      if (!t.extrapolated) {
        if (first_value.empty()) first_value = t.value;
        else if (t.value != first_value) value += "  MISMATCH";
      }
      char secs[32];
      std::snprintf(secs, sizeof secs, "%s%.3f", t.extrapolated ? "~" : "", t.seconds);
      std::printf("%-8s %3d %5.2f %-20s %-16s %10s %9.3f %5.0f%% %s\n", c.kind.c_str(), c.n, c.density, v.c_str(),
                  t.kernel.c_str(), secs, floor, 100 * floor / t.seconds, value.c_str());
      std::fflush(stdout);
    }
  }
  return 0;
}
