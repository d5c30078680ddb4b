// The GPU SkipPer engine. Without a device: its walk plan evaluated on the CPU, exactly as the
// kernel runs it (tasks, jumps, constant slots, local Gray steps), against the CPU engines,
// and the forced engine on the command line. With a device: the engine against the CPU
// engines, exactly (integers) or to 1e-12 relative or the error estimates (floats).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "engines/sparse/gpu_skipper.hpp"
#include "engines/sparse/cuda/skip_cursor.hpp"
#include "catalog/catalog.hpp"
#include "matchcount/error.hpp"
#include "matchcount/gpu.hpp"
#include "test_support.hpp"
#include "core/tuning.hpp"

using namespace matchcount;

namespace {

#define SKIP_WITHOUT_GPU() \
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible"

/// The sum a SkipPer job stands for, evaluated on the CPU in exact integers the way the kernel
/// walks it: every task, the jumps of skip_target, start values, a zero constant skipping the
/// chunk, the local Gray walk. With `no_skip`, every chunk of every task is walked instead
/// (the jumps and zero tests must not change the sum).
Integer reference_sum(const gpu::SkipJob& job, bool no_skip = false) {
  const std::uint64_t qlow = std::uint64_t{1} << (job.k + job.task_bits), limit = std::uint64_t{1} << job.bits;
  const int slots = job.slots();
  Integer total = 0;
  std::vector<Integer> y(static_cast<std::size_t>(slots));
  for (std::uint64_t task = 0; task < (std::uint64_t{1} << job.task_bits); ++task) {
    const std::uint64_t fixed = task << job.k;
    std::uint64_t high = fixed;
    for (;;) {
      const std::uint64_t to =
          no_skip ? 0 : mcgpu::skip_target(high, fixed, qlow, limit, reinterpret_cast<const unsigned long long*>(job.dead_mask.data()),
                                    static_cast<int>(job.dead_mask.size()));
      if (to >= limit) break;
      if (to) {
        high = to;
        continue;
      }
      const std::uint64_t here = high;
      high += qlow;
      bool live = true;
      for (int i = 0; i < slots; ++i) {
        Integer v = 1;
        for (int s = job.slot_sum[i]; s < job.slot_sum[i + 1]; ++s) {
          Integer t = static_cast<long>(job.sum_base[s]);
          for (int e = job.sum_entry[s]; e < job.sum_entry[s + 1]; ++e)
            if ((here >> job.entry_bit[e]) & 1) t += static_cast<long>(job.entry_val[e]);
          v *= t;
        }
        if (i == job.sign_slot && std::popcount(here) % 2) v = -v;
        if (((job.const_mask >> i) & 1) && v == 0 && !no_skip) live = false;
        y[static_cast<std::size_t>(i)] = v;
      }
      if (live)
        for (std::uint64_t s = 0; s < (std::uint64_t{1} << job.k); ++s) {
          if (s > 0) {
            const int col = std::countr_zero(s);
            const long dir = ((s >> (col + 1)) & 1) ? -1 : 1;
            for (int i = 0; i < job.rows_l; ++i)
              y[static_cast<std::size_t>(i)] += dir * static_cast<long>(job.local[static_cast<std::size_t>(col) * job.rows_l + i]);
          }
          Integer term = 1;
          for (const auto& v : y) term *= v;
          total += (s & 1) ? -term : term;
        }
      if (high >= limit) break;
    }
  }
  return total;
}

Integer permanent_of(const engines::IntegerWalk& w, const Integer& sum) {
  Integer p = sum >> w.shift;
  EXPECT_EQ(p << w.shift, sum) << "the sum must be divisible by 2^shift";
  return w.negate ? Integer(-p) : p;
}

EngineOptions skipper_options(bool specialise, EngineStats* stats = nullptr) {
  EngineOptions o;
  o.specialise = specialise ? Specialise::Always : Specialise::Never;
  o.stats = stats;
  return o;
}

/// Sets the SkipPer knobs for one scope (the engine reads them per block): mode "skip",
/// "halved" or nullptr (the planner's), k and task_bits as MATCHCOUNT_SKIPPER_K / _TASK_BITS.
struct Knobs {
  Knobs(const char* mode, int k, int task_bits) : scope(with(mode, k, task_bits)) {}
  static tuning::Tuning with(const char* mode, int k, int task_bits) {
    tuning::Tuning t = tuning::tuning();
    t.skipper_mode = !mode ? 0 : std::string(mode) == "skip" ? 1 : 2;
    t.skipper_k = std::max(k, 0);
    t.skipper_task_bits = std::max(task_bits, -1);
    return t;
  }
  tuning::ScopedTuning scope;
};

/// `a` with its diagonal filled in where empty (value 1), so that no line is empty and the
/// engine does not hand the block to the CPU.
template <class T>
SparseMatrix<T> with_diagonal(SparseMatrix<T> a) {
  std::vector<char> has(static_cast<std::size_t>(a.rows));
  for (const auto& e : a.entries)
    if (e.row == e.col) has[static_cast<std::size_t>(e.row)] = 1;
  for (int i = 0; i < a.rows; ++i)
    if (!has[static_cast<std::size_t>(i)]) a.entries.push_back({i, i, T(1)});
  a.normalize();
  return a;
}

const char* mode_name(int i) { return i % 3 == 0 ? "skip" : i % 3 == 1 ? "halved" : nullptr; }

}  // namespace

TEST(GpuSkipperPlan, WalkOfTheJobIsThePermanent) {
  std::mt19937_64 rng(71);
  auto cpu = make_engine("ryser");
  int checked = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const int n = 3 + static_cast<int>(rng() % 11);
    const double density = 0.15 + 0.5 * double(rng() % 100) / 100.0;
    auto a = trial % 2 ? test::random_integer(rng, n, density, 1, 1) : test::random_integer(rng, n, density, -4, 4);
    std::vector<char> row(static_cast<std::size_t>(n)), col(static_cast<std::size_t>(n));
    for (const auto& e : a.entries) row[static_cast<std::size_t>(e.row)] = col[static_cast<std::size_t>(e.col)] = 1;
    if (std::count(row.begin(), row.end(), 0) || std::count(col.begin(), col.end(), 0)) continue;  // the engine never plans those
    engines::SkipChoice c;
    c.mode = 1 + trial % 2;
    c.k = trial % 5 == 0 ? 0 : 1 + static_cast<int>(rng() % 5);
    c.task_bits = trial % 3 == 0 ? -1 : static_cast<int>(rng() % 4);
    const auto w = engines::integer_walk(a, c);
    const Integer expect = cpu->permanent(a, {});
    const Integer sum = reference_sum(w.job);
    EXPECT_EQ(sum, reference_sum(w.job, true)) << "jumps changed the sum, n=" << n;
    EXPECT_EQ(permanent_of(w, sum), expect) << "n=" << n << " mode " << c.mode << " k " << w.plan.k;
    // The generic kernels' layout (constant slots padded to 8-slot groups) is the same sum.
    const auto padded = gpu::padded_for_every8(w.job, 64);
    if (!padded.slot_sum.empty()) {
      EXPECT_EQ(reference_sum(padded), sum) << "padded, n=" << n;
    }
    ++checked;
  }
  EXPECT_GT(checked, 60);
}

// The planner's choices on typical blocks: very sparse ones jump (most chunks dead), denser
// ones take the halved form; rows no local column touches become chunk constants.
TEST(GpuSkipperPlan, ChoosesTheFormByDensity) {
  auto plan_of = [](const SparseMatrix<Integer>& a) {
    std::vector<std::vector<int>> s(static_cast<std::size_t>(a.rows));
    for (const auto& e : a.entries) s[static_cast<std::size_t>(e.row)].push_back(e.col);
    return engines::plan_skipper(s, a.rows, {});
  };
  std::mt19937_64 rng(5);
  const auto sparse = test::random_integer(rng, 44, 0.1, 1, 1);
  const auto p = plan_of(sparse);
  EXPECT_FALSE(p.halved);
  EXPECT_LT(p.live, 0.2);
  EXPECT_GT(p.h_rows.size(), p.l_rows.size());
  const auto denser = test::random_integer(rng, 40, 0.3, 1, 1);
  const auto q = plan_of(denser);
  EXPECT_TRUE(q.halved);
  EXPECT_EQ(q.bits, 39);
  EXPECT_LE(q.task_bits, q.bits - q.k);
}

TEST(GpuSkipper, CliForcedEngine) {
  // A 0-1 matrix of n = 12 (the I + P + P^3 circulant): perm by the CPU engine, then forced
  // onto gpu-skipper (on the CPU when there is no device, silently).
  std::string mtx = "%%MatrixMarket matrix coordinate pattern general\n12 12 36\n";
  SparseMatrix<Integer> a{12, 12, {}};
  for (int i = 0; i < 12; ++i)
    for (int d : {0, 1, 3}) {
      mtx += std::to_string(i + 1) + " " + std::to_string((i + d) % 12 + 1) + "\n";
      a.entries.push_back({i, (i + d) % 12, 1});
    }
  a.normalize();
  const std::string expect = make_engine("ryser")->permanent(a, {}).get_str() + "\n";
  const auto path = test::temp_file(mtx, ".mtx");
  const auto r = test::run_matchcount("--engine gpu-skipper --no-preprocess '" + path + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, expect);
  if (!gpu_available()) {
    EXPECT_EQ(r.err, "");
  }
  const auto j = test::run_matchcount("--engine gpu-skipper --no-preprocess --json '" + path + "'");
  EXPECT_NE(j.out.find("\"engine\":\"gpu-skipper\""), std::string::npos) << j.out;
}

TEST(GpuSkipper, IntegersAgreeWithCpuExactly) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(72);
  auto gpu = make_engine("gpu-skipper"), ryser = make_engine("ryser"), frontier = make_engine("frontier");
  int checked = 0;
  for (int trial = 0; trial < 200; ++trial) {
    // Sizes 8..24 against Ryser, a few of 25..32 against the frontier DP; forms and local
    // lengths vary (k = 1..3 walks without unrolling; small n leaves most threads idle).
    const bool big = trial % 16 == 15;
    const int n = big ? 25 + static_cast<int>(rng() % 8) : 8 + static_cast<int>(rng() % 17);
    const double density = 0.05 + 0.35 * double(rng() % 100) / 100.0;
    auto a = with_diagonal(trial % 2 ? test::random_integer(rng, n, density, 1, 1) : test::random_integer(rng, n, density, -5, 5));
    const Knobs knobs(mode_name(trial), trial % 4 == 0 ? 1 + static_cast<int>(rng() % 3) : 0, trial % 5 == 0 ? 3 : -1);
    Integer expect;
    try {
      expect = (big ? frontier : ryser)->permanent(a, {});
    } catch (const RefusedError&) {
      continue;
    }
    EXPECT_EQ(gpu->permanent(a, skipper_options(trial % 7 == 0)), expect) << "trial " << trial << " n=" << n;
    ++checked;
  }
  EXPECT_GT(checked, 180);
  // Large entries: row sums beyond 2^49 force walks on residues, one prime at a time.
  for (int n : {9, 14}) {
    auto a = with_diagonal(test::random_integer(rng, n, 0.5, -(1L << 50), 1L << 50));
    EXPECT_EQ(gpu->permanent(a, skipper_options(n == 14)), ryser->permanent(a, {})) << "n=" << n;
  }
  // Many primes (more than four per walk).
  auto big = with_diagonal(test::random_integer(rng, 22, 0.35, -1000, 1000));
  EXPECT_EQ(gpu->permanent(big, skipper_options(true)), ryser->permanent(big, {}));
}

TEST(GpuSkipper, FloatsAgreeWithCpu) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(73);
  auto gpu = make_engine("gpu-skipper"), cpu = make_engine("ryser");
  double worst_real = 0, worst_complex = 0;
  int within = 0, total = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const int n = 8 + static_cast<int>(rng() % 17);
    const double density = 0.05 + 0.35 * double(rng() % 100) / 100.0;
    const Knobs knobs(mode_name(trial), trial % 6 == 0 ? 2 : 0, -1);
    if (trial % 3 != 2) {
      auto a = with_diagonal(test::random_real(rng, n, density, trial % 2 ? 0.0 : -1.0, 1.0));
      const auto g = gpu->permanent(a, skipper_options(trial % 5 == 0)), c = cpu->permanent(a, {});
      const double diff = std::abs(g.value - c.value);
      EXPECT_LE(diff, 1e-12 * std::abs(c.value) + g.abs_error + c.abs_error) << "real n=" << n << " trial " << trial;
      EXPECT_GE(g.abs_error, 0.0);
      if (c.value != 0) {
        worst_real = std::max(worst_real, diff / std::abs(c.value));
        within += diff <= 1e-12 * std::abs(c.value);
        ++total;
      }
    } else {
      auto a = with_diagonal(test::random_complex(rng, n, density));
      const auto g = gpu->permanent(a, skipper_options(trial % 4 == 1)), c = cpu->permanent(a, {});
      const double diff = std::abs(g.value - c.value);
      EXPECT_LE(diff, 1e-12 * std::abs(c.value) + g.abs_error + c.abs_error) << "complex n=" << n << " trial " << trial;
      if (std::abs(c.value) > 0) worst_complex = std::max(worst_complex, diff / std::abs(c.value));
    }
  }
  std::cout << "[ info     ] reals: " << within << " of " << total << " within 1e-12 relative of the CPU, largest "
            << worst_real << "; complex largest " << worst_complex << "\n";
}

TEST(GpuSkipper, SameBitsWhateverTheLaunch) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(74);
  auto gpu = make_engine("gpu-skipper");
  for (int n : {12, 23}) {
    auto a = with_diagonal(test::random_real(rng, n, 0.25, -1.0, 1.0));
    double v[3];
    EngineStats s1, s2;
    {
      const Knobs k("skip", 4, 2);
      v[0] = gpu->permanent(a, skipper_options(false, &s1)).value;
    }
    {
      const Knobs k("skip", 4, 6);
      v[1] = gpu->permanent(a, skipper_options(true, &s2)).value;
      v[2] = gpu->permanent(a, skipper_options(true)).value;
    }
    EXPECT_EQ(std::memcmp(&v[0], &v[1], sizeof(double)), 0) << "n=" << n;
    EXPECT_EQ(std::memcmp(&v[1], &v[2], sizeof(double)), 0) << "n=" << n;
    EXPECT_EQ(s1.kernel, "generic");
    EXPECT_NE(s2.kernel, "generic") << s2.note;
    EXPECT_EQ(s2.device, "gpu");
  }
}
