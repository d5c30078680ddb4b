// Logarithms of hafnians of planar graphs (pfaffian_log_hafnian, pfaffian.hpp): the engine's
// Pfaffian orientation, a perfect matching (or a hafnian of exactly 0), and half the sparse LU
// log-determinant of the oriented matrix.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "engines/pfaffian/pfaffian.hpp"
#include "engines/pfaffian/pfaffian_impl.hpp"
#include "matchcount/graph_matching.hpp"

namespace matchcount::engines {
template <class T>
planar::LogDet pfaffian_log_hafnian(const SparseMatrix<T>& a, double max_bytes, planar::Ordering ordering,
                                    double given_error) {
  using namespace pfaffian_detail;
  const int n = a.rows;
  EdgeList edges;
  std::vector<std::size_t> entry;  // per edge: its entry (u, v), u < v
  for (std::size_t k = 0; k < a.entries.size(); ++k) {
    const auto& e = a.entries[k];
    if (e.row == e.col)
      throw RefusedError("pfaffian: a graph with loops has no Pfaffian; its log-hafnian is not computed");
    if (e.value < 0)
      throw RefusedError("pfaffian: a negative weight makes the hafnian's sign unknown to its log-determinant "
                         "(det K = Pf(K)^2); count it without --log");
    if (e.row < e.col) edges.emplace_back(e.row, e.col), entry.push_back(k);
  }
  const std::vector<signed char> orient = pfaffian_orientation(n, edges);
  if (orient.empty()) throw not_planar_error(n, edges.size());
  const GraphMatching m = edmonds_matching(GraphPattern::of(a));
  if (!m.perfect()) return planar::LogDet::exact_zero();  // the hafnian is exactly 0
  // K(u, v) = +-a(u, v) by the orientation, K(v, u) = -K(u, v).
  SparseMatrix<double> k;
  k.rows = k.cols = n;
  k.entries.reserve(2 * edges.size());
  double entry_error = given_error;
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const auto& x = a.entries[entry[e]];
    const double v = planar::entry_double(x.value);
    if (!std::isfinite(v))
      throw RefusedError("pfaffian: an edge weight of this graph is beyond the range of double precision, which "
                         "its log-determinant needs");
    entry_error = std::max(entry_error, planar::entry_rounding(x.value));
    const auto [u, w] = edges[e];
    k.entries.push_back({u, w, orient[e] * v});
    k.entries.push_back({w, u, -orient[e] * v});
  }
  k.normalize();
  planar::LogDetOptions lo;
  lo.entry_error = entry_error, lo.max_bytes = max_bytes, lo.ordering = ordering;
  lo.diagonal_pivots = false;  // diagonal pivots grow on skew matrices (LogDetOptions)
  planar::LogDet r = planar::sparse_log_det(k, lo);
  // haf A = |Pf K| = sqrt|det K| (nonnegative weights: every matching enters with weight >= 0).
  if (r.sign != 0) r.sign = 1;
  r.log_abs /= 2;
  r.error /= 2;
  return r;
}

template planar::LogDet pfaffian_log_hafnian(const SparseMatrix<Integer>&, double, planar::Ordering, double);
template planar::LogDet pfaffian_log_hafnian(const SparseMatrix<double>&, double, planar::Ordering, double);

}  // namespace matchcount::engines
