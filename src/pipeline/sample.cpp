// Exact random perfect matchings (matchcount/which.hpp, sample_perfect_matchings) by sequential
// self-reducibility: the first unmatched vertex u takes neighbour v with probability
// w_uv count(G - u - v) / count(G), with exact integer counts (the weights scaled to integers:
// rationals by their common denominator, doubles as the binary fractions they are) and an exact
// uniform draw below the total (GMP's Mersenne Twister, seeded per sample from the seed and the
// sample's index, so samples do not depend on threads or machines). Counts of the graphs met
// are kept, so later samples reuse the early steps. Graphs of narrow frontier go to the frontier
// DP's sampler instead (graph_frontier_tables.hpp): one forward pass, then O(n) a sample; whole
// lattice regions (an Aztec diamond, a rectangle) with known cells to the lattice samplers
// (lattice_sample.hpp).
#include <gmp.h>

#include <cmath>
#include <optional>
#include <string>
#include <unordered_map>

#include "matchcount/error.hpp"
#include "matchcount/which.hpp"
#include "engines/graph_frontier/graph_frontier_tables.hpp"
#include "pipeline/lattice_sample.hpp"
#include "pipeline/which_common.hpp"

namespace matchcount {
namespace {

/// The weights as nonnegative integers with the same ratios; RefusedError for negative or
/// complex ones.
SparseMatrix<Integer> integer_weights(const AnyMatrix& m) {
  std::string why;
  auto z = detail::scaled_integer_weights(m, &why);
  if (!z) throw RefusedError("samples are drawn with probability proportional to the weights: " + why);
  return std::move(*z);
}

/// A seed per sample from (seed, index) by splitmix64's finalizer.
std::uint64_t sample_seed(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (index + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class Sampler {
 public:
  Sampler(SparseMatrix<Integer> a, bool symmetric, const SampleOptions& options)
      : a_(std::move(a)), symmetric_(symmetric), options_(options), rows_(a_.rows), cols_(a_.cols) {
    row_entries_.resize(static_cast<std::size_t>(rows_));
    for (std::size_t i = 0; i < a_.entries.size(); ++i) row_entries_[static_cast<std::size_t>(a_.entries[i].row)].push_back(i);
    gmp_randinit_mt(state_);
  }
  ~Sampler() { gmp_randclear(state_); }
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  std::vector<std::pair<int, int>> draw(std::uint64_t index) {
    const std::uint64_t z = sample_seed(options_.seed, index);
    Integer seed;
    mpz_import(seed.get_mpz_t(), 1, 1, sizeof z, 0, 0, &z);
    gmp_randseed(state_, seed.get_mpz_t());
    std::vector<char> gone_row(static_cast<std::size_t>(rows_), 0), gone_col(static_cast<std::size_t>(cols_), 0);
    std::vector<std::pair<int, int>> pairs;
    for (int u = 0; u < rows_; ++u) {
      if (gone_row[static_cast<std::size_t>(u)]) continue;
      if (options_.stop && options_.stop()) throw Interrupted(2, "sampling stopped");
      // The candidates and their weights w_uv count(G - u - v).
      std::vector<std::pair<int, Integer>> choices;
      Integer total = 0;
      for (std::size_t i : row_entries_[static_cast<std::size_t>(u)]) {
        const auto& e = a_.entries[i];
        const int v = e.col;
        if (symmetric_ && v == u) continue;
        if (gone_col[static_cast<std::size_t>(v)]) continue;
        gone_row[static_cast<std::size_t>(u)] = gone_col[static_cast<std::size_t>(v)] = 1;
        if (symmetric_) gone_row[static_cast<std::size_t>(v)] = gone_col[static_cast<std::size_t>(u)] = 1;
        const Integer w = e.value * count(gone_row, gone_col);
        gone_row[static_cast<std::size_t>(u)] = gone_col[static_cast<std::size_t>(v)] = 0;
        if (symmetric_) gone_row[static_cast<std::size_t>(v)] = gone_col[static_cast<std::size_t>(u)] = 0;
        if (w == 0) continue;
        total += w;
        choices.emplace_back(v, w);
      }
      if (total == 0) throw std::logic_error("sample_perfect_matchings: a step with no matching left");
      Integer r;
      mpz_urandomm(r.get_mpz_t(), state_, total.get_mpz_t());
      int chosen = choices.back().first;
      for (const auto& [v, w] : choices) {
        if (r < w) {
          chosen = v;
          break;
        }
        r -= w;
      }
      gone_row[static_cast<std::size_t>(u)] = gone_col[static_cast<std::size_t>(chosen)] = 1;
      if (symmetric_) gone_row[static_cast<std::size_t>(chosen)] = gone_col[static_cast<std::size_t>(u)] = 1;
      pairs.emplace_back(u, chosen);
    }
    return pairs;
  }

  /// The count of the graph without the gone rows and columns, kept for later steps.
  Integer count(const std::vector<char>& gone_row, const std::vector<char>& gone_col) {
    std::string key(gone_row.begin(), gone_row.end());
    if (!symmetric_) key.append(gone_col.begin(), gone_col.end());
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    const PermanentValue v =
        detail::count_quietly(AnyMatrix(detail::without(a_, gone_row, gone_col)), symmetric_, options_.count);
    Integer c = std::get<Integer>(v.value);
    if (memo_.size() < kMemoMax) memo_.emplace(std::move(key), c);
    return c;
  }

 private:
  static constexpr std::size_t kMemoMax = 1 << 20;
  SparseMatrix<Integer> a_;
  bool symmetric_;
  const SampleOptions& options_;
  int rows_, cols_;
  std::vector<std::vector<std::size_t>> row_entries_;
  std::unordered_map<std::string, Integer> memo_;
  gmp_randstate_t state_;
};


/// The samples by the frontier DP, or nothing where it does not apply (Auto: tables beyond 1 GiB).
std::optional<std::vector<std::vector<std::pair<int, int>>>> by_frontier(const SparseMatrix<Integer>& a, bool symmetric,
                                                                         const SampleOptions& options) {
  if (options.method == WhichMethod::Counts) return std::nullopt;
  if (!symmetric && a.rows != a.cols) return std::nullopt;  // no perfect matching: the counts say so
  const SparseMatrix<Integer> g = detail::general_graph(a, symmetric);
  for (const auto& e : g.entries)
    if (!e.value.fits_ulong_p()) return std::nullopt;
  const auto sampler = engines::FrontierTables::make(g, options.method == WhichMethod::Frontier ? 16 * detail::kTablesBytes : detail::kTablesBytes);
  if (!sampler) {
    if (options.method == WhichMethod::Frontier) throw RefusedError("the graph frontier DP's tables do not fit for these samples");
    return std::nullopt;
  }
  if (!sampler->has_matching()) throw RefusedError("the graph has no perfect matching to sample");
  std::vector<std::vector<std::pair<int, int>>> out;
  for (std::uint64_t i = 0; i < options.samples; ++i) {
    if (options.stop && options.stop()) throw Interrupted(2, "sampling stopped");
    auto pairs = sampler->draw(sample_seed(options.seed, i));
    if (!symmetric)
      for (auto& [u, v] : pairs) v -= a.rows;  // (row, row count + column) -> (row, column)
    out.push_back(std::move(pairs));
  }
  return out;
}

}  // namespace

std::vector<std::vector<std::pair<int, int>>> sample_perfect_matchings(const MatchingGraph& g, const SampleOptions& options) {
  if (options.count.log) throw UsageError("--log does not apply to --sample");
  if (options.method == WhichMethod::Minors) throw UsageError("the hafnian's minors give edge probabilities, not samples");
  if (g.symmetric && rows_of(g.matrix) != cols_of(g.matrix))
    throw UsageError("samples of a general graph need its square adjacency matrix");
  if (!g.cells.empty() || options.method == WhichMethod::Lattice)
    if (auto drawn = detail::lattice_samples(g, options)) return *drawn;
  SparseMatrix<Integer> a = integer_weights(g.matrix);
  if (auto drawn = by_frontier(a, g.symmetric, options)) return *drawn;
  std::vector<char> none_r(static_cast<std::size_t>(a.rows), 0), none_c(static_cast<std::size_t>(a.cols), 0);
  Sampler sampler(std::move(a), g.symmetric, options);
  if (sampler.count(none_r, none_c) == 0)
    throw RefusedError("the graph has no perfect matching to sample");
  std::vector<std::vector<std::pair<int, int>>> out;
  for (std::uint64_t i = 0; i < options.samples; ++i) out.push_back(sampler.draw(i));
  return out;
}

}  // namespace matchcount
