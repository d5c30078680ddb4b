// Ryser's formula over classes of identical lines (private to src/engines).
//
// When the columns of A fall into k classes of identical columns with multiplicities m_t,
// the 2^n subsets S of Ryser's formula collapse into the prod_t (m_t + 1) count vectors x
// (x_t columns taken from class t), each standing for prod_t C(m_t, x_t) subsets:
//   perm(A) = (-1)^n sum_x (-1)^|x| prod_t C(m_t, x_t) prod_i (sum_t x_t c_t[i]),
// and identical rows i (multiplicity mu_r) turn the product into prod_r y_r^mu_r. The n x n
// all-a matrix costs n + 1 terms; boson-sampling permanents (photons sharing modes repeat
// rows and columns) cost prod (m_t + 1) instead of 2^n.
#pragma once

#include <memory>
#include <vector>

#include "engines/engine.hpp"

namespace matchcount::engines {

struct RepeatedPlan {
  /// The classes are of rows: the walk counts perm(A^T) = perm(A).
  bool transposed = false;
  /// Column classes (of A, or of A^T when transposed): a representative column and a size.
  std::vector<int> col_rep, col_mult;
  /// Row classes likewise.
  std::vector<int> row_rep, row_mult;
  /// Terms of the walk: prod (col_mult + 1) (infinite beyond double range).
  double terms = 0;
  /// Work: terms * (column classes + rows classes), in multiplications.
  double cost = 0;
};

/// The cheaper orientation's classes of identical lines of a square matrix.
RepeatedPlan plan_repeated(const SparseMatrix<Integer>& a);
RepeatedPlan plan_repeated(const SparseMatrix<double>& a);
RepeatedPlan plan_repeated(const SparseMatrix<Complex>& a);

/// Most terms the engine accepts (more: RefusedError; the planner never picks it then).
constexpr double kRepeatedMaxTerms = 1e13;

std::unique_ptr<Engine> make_repeated();

}  // namespace matchcount::engines
