// hafnian_minors: every haf(A - i - j) by the reverse walk of haf_gradient.hpp, modulo the
// exact count's primes (four a pass), in units run on OpenMP threads, then by CRT.
#include <algorithm>

#include "core/arith.hpp"
#include "engines/hafnian/haf_gradient.hpp"
#include "engines/hafnian/haf_setup.hpp"
#include "engines/hafnian/haf_units.hpp"
#include "engines/hafnian/hafnian.hpp"
#include "engines/polled_units.hpp"
#include "matchcount/error.hpp"

namespace matchcount::engines {

std::vector<Integer> hafnian_minors(const SparseMatrix<Integer>& a, const EngineOptions& opt,
                                    const std::function<bool()>& stop) {
  const int n = a.rows;
  if (n != a.cols || n % 2 || n < 2 || n > kHafnianMaxN)
    throw UsageError("hafnian minors: need an even n x n block, 2 <= n <= " + std::to_string(kHafnianMaxN));
  std::vector<char> has_edge(static_cast<std::size_t>(n), 0);
  for (const auto& e : a.entries)
    if (e.row != e.col && e.value != 0) has_edge[static_cast<std::size_t>(e.row)] = 1;
  // hafnian_bound is a product of one factor per vertex, each >= 1 when the vertex has an edge,
  // and no factor grows when vertices go: so it bounds every minor too.
  if (std::find(has_edge.begin(), has_edge.end(), 0) != has_edge.end())
    throw RefusedError("hafnian minors: a vertex without an edge");
  const std::vector<double> primes = haf::primes_for(a, false);
  const std::vector<haf::ModArith> ariths = haf::prime_passes(primes);
  const std::vector<Integer> dense = a.dense();
  const int m = n / 2, depth = std::clamp(m - 10, 0, 20);
  const std::uint64_t units = std::uint64_t{1} << depth;
  const int threads =
      std::min<int>(thread_count(opt, 3.0 * hafnian_work(n, false)), static_cast<int>(std::max<std::uint64_t>(units, 1)));
  const std::size_t pairs = haf::tri(n);
  std::vector<v4d> sums(pairs * ariths.size(), v4d{0, 0, 0, 0});
  for (std::size_t q = 0; q < ariths.size(); ++q) {
    const haf::ModArith& ar = ariths[q];
    const haf::Root<v4d> root = haf::root_of<v4d>(n, false, [&](int i, int j) {
      return haf::residues(dense[static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j)], ar);
    }, [](int) { return v4d{}; });
    polled_units(
        units, threads, stop, "hafnian minors stopped", [&] { return haf::make_gradient_walk(ar, root, depth); },
        [](auto& walk, std::uint64_t u) { walk->run_unit(u); },
        [&](const auto& walk) {
          for (int i = 1; i < n; ++i)
            for (int j = 0; j < i; ++j) {
              v4d& s = sums[q * pairs + haf::tri(i) + static_cast<std::size_t>(j)];
              s = ar.reduce(s + walk->derivative(i, j));
            }
        });
  }
  std::vector<Integer> out(pairs);
  std::vector<std::uint64_t> residue(primes.size()), ps(primes.size());
  for (std::size_t k = 0; k < primes.size(); ++k) ps[k] = static_cast<std::uint64_t>(primes[k]);
  for (std::size_t e = 0; e < pairs; ++e) {
    for (std::size_t k = 0; k < primes.size(); ++k)
      residue[k] = to_residue(sums[(k / 4) * pairs + e][k % 4], ps[k]);
    out[e] = crt_symmetric(residue, ps);
  }
  return out;
}

}  // namespace matchcount::engines
