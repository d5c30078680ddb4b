// The expanded problem of a repeated-row hafnian (haf_rpt_layout.hpp).
#include "engines/hafnian/haf_rpt_layout.hpp"

namespace matchcount::engines::haf {

RptLayout layout_of(const std::vector<std::uint64_t>& rpt, bool loops) {
  RptLayout L;
  L.types = pair_types(rpt, loops);
  for (int m : L.types.mult) L.vertices += 2 * m;
  L.mode.assign(static_cast<std::size_t>(L.vertices), 0);
  int level = 0;
  for (std::size_t t = 0; t < L.types.mult.size(); ++t)
    for (int j = 0; j < L.types.mult[t]; ++j, ++level) {
      const int u = L.vertices - 1 - 2 * level;  // the level's pair (u, u - 1)
      L.mode[static_cast<std::size_t>(u)] = L.types.a[t];
      L.mode[static_cast<std::size_t>(u) - 1] = L.types.b[t];
    }
  return L;
}

Integer bound_of(const RepeatedHafnian<Integer>& in) {
  Integer bound = 1;
  for (int i = 0; i < in.n; ++i) {
    const auto r = in.rpt[static_cast<std::size_t>(i)];
    if (r == 0) continue;
    Integer row = 0;
    for (int j = 0; j < in.n; ++j) {
      const auto rj = in.rpt[static_cast<std::size_t>(j)] - (i == j ? 1 : 0);
      row += abs(in.a[static_cast<std::size_t>(i) * static_cast<std::size_t>(in.n) + static_cast<std::size_t>(j)]) *
             Integer(static_cast<unsigned long>(rj));
    }
    Integer root;
    mpz_sqrt(root.get_mpz_t(), row.get_mpz_t());
    Integer f = root + 1 + (in.loops ? abs(in.mu[static_cast<std::size_t>(i)]) : Integer(0));
    Integer power;
    mpz_pow_ui(power.get_mpz_t(), f.get_mpz_t(), static_cast<unsigned long>(r));
    bound *= power;
  }
  return bound;
}

double rpt_walk_work(const PairTypes& types, double vertices) {
  const double m = vertices / 2;
  double nodes = 1, level = 0, work = 0;
  for (int r : types.mult) {
    for (int j = 0; j < r; ++j) {
      const double s = vertices - 2 * (level + j);
      work += nodes * s * (s - 1) / 2 * m * m / 2;
    }
    nodes *= r + 1.0, level += r;
  }
  return work + nodes * m;
}

}  // namespace matchcount::engines::haf
