// Forbert-Marx reduction of one square block: rows/columns with one entry multiply out,
// with two entries merge two columns (rows), with three or four entries branch.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "matchcount/matrix.hpp"

namespace matchcount {

struct ReduceOptions {
  /// Lines (rows or columns) with at most this many entries are branched on (3 or 4 in the
  /// paper; 2 disables branching).
  int branch_max_degree = 4;
  /// Blocks smaller than this are not branched on (an engine counts them directly); the
  /// free rules (degree 1 and 2) apply at every size.
  int branch_min_size = 16;
  /// Upper limit on leaves of the branching tree; reaching it stops branching.
  std::size_t max_leaves = 1u << 16;
  /// Re-run the Dulmage-Mendelsohn split on every branch.
  bool redecompose = true;
};

struct ReduceStats {
  std::size_t lines_multiplied_out = 0;  // degree-1 rows/columns
  std::size_t merges = 0;                 // degree-2 rows/columns merged
  std::size_t branches = 0;               // degree-3/4 splits
  std::size_t leaves = 0;                 // blocks handed to engines
  std::size_t zero_branches = 0;          // branches found to have no perfect matching
  std::size_t branchings_undone = 0;      // branching trees that cost more than their block whole
};

}  // namespace matchcount

namespace matchcount {

/// perm(input) = factor * perm(rest); `zero` when a line became empty (perm = 0).
template <class T>
struct Reduced {
  T factor{1};
  SparseMatrix<T> rest;
  bool zero = false;
  bool changed = false;  // whether any rule applied
};

/// Applies the rules that cost nothing until none applies: a line (row or column) with one
/// entry a multiplies out (factor *= a, line and its partner removed); a row with entries
/// alpha at column j and beta at column k is removed and columns j, k are replaced by the one
/// column beta*col_j + alpha*col_k (by multilinearity this keeps the permanent); likewise for
/// columns. Requires a square matrix. Instantiated for Integer, double and Complex.
template <class T>
Reduced<T> reduce_lines(const SparseMatrix<T>& a, ReduceStats& stats);
/// The same, taking the matrix over: when no rule applies it comes back as `rest` unchanged,
/// without a copy (planning a block of 10^6 rows holds as few copies of it as it can).
template <class T>
Reduced<T> reduce_lines(SparseMatrix<T>&& a, ReduceStats& stats);

/// perm(a) = weight * perm(minor) + perm(rest): expansion of one entry of a line with
/// 3..max_degree entries; `rest` is a with that entry removed (the line then has one entry
/// fewer, so further reduction follows). Empty when no such line exists.
template <class T>
struct Branch {
  T weight{1};
  SparseMatrix<T> minor;
  SparseMatrix<T> rest;
};
template <class T>
bool branch_on_sparse_line(const SparseMatrix<T>& a, int max_degree, Branch<T>& out);

}  // namespace matchcount
