#include "engines/common.hpp"

namespace matchcount::engines {

ModPlan make_mod_plan(const SparseMatrix<Integer>& a, const std::vector<int>& row_order) {
  ModPlan plan;
  plan.primes = choose_primes(permanent_bound(a));
  for (double p : plan.primes) plan.pinv.push_back(1.0 / p);
  std::vector<Integer> rsum(static_cast<std::size_t>(a.rows));
  for (const auto& e : a.entries) rsum[static_cast<std::size_t>(e.row)] += abs(e.value);
  const Integer limit = Integer(1) << 49;
  plan.shared = true;
  for (const auto& r : rsum) plan.shared = plan.shared && r < limit;
  if (!plan.shared) return plan;
  Integer prod = 1;
  for (std::size_t k = 0; k < row_order.size(); ++k) {
    const Integer& r = rsum[static_cast<std::size_t>(row_order[k])];
    if (k > 0 && prod * r >= limit) {
      plan.group_end.push_back(static_cast<int>(k));
      prod = 1;
    }
    prod *= r;
  }
  plan.group_end.push_back(static_cast<int>(row_order.size()));
  return plan;
}

Integer finish_mod(const std::vector<double>& sums, const ModPlan& plan, bool negate, int shift) {
  std::vector<std::uint64_t> res, primes;
  for (std::size_t k = 0; k < plan.primes.size(); ++k) {
    auto p = static_cast<std::uint64_t>(plan.primes[k]);
    __extension__ unsigned __int128 r = to_residue(sums[k], p);
    r = r * inv_mod(pow_mod(2, static_cast<std::uint64_t>(shift), p), p) % p;
    if (negate) r = (p - r) % p;
    res.push_back(static_cast<std::uint64_t>(r));
    primes.push_back(p);
  }
  return crt_symmetric(res, primes);
}

}  // namespace matchcount::engines
