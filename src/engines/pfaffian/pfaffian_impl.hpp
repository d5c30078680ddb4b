// Pieces of the Pfaffian engine shared by its sources (pfaffian.hpp says what it does).
#pragma once

#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

#include "engines/graph_engine.hpp"
#include "engines/planar/dissection.hpp"
#include "engines/planar/planar.hpp"
#include "matchcount/error.hpp"

namespace matchcount::engines::pfaffian_detail {

/// Undirected edges as (u, v) with u < v, each once.
using EdgeList = planar::EdgeList;

/// The edges of a symmetric pattern (its entries with row < col, in the pattern's order).
EdgeList edges_of(const std::vector<std::pair<int, int>>& pattern);

/// The engine's refusal of a graph (n vertices, `edges` edges) that is not planar.
RefusedError not_planar_error(int n, std::size_t edges);

/// A Pfaffian orientation of the graph (n vertices, simple, no loops): sign[k] = +1 when
/// edge k = (u, v) is directed u -> v, -1 when v -> u. Empty when the graph is not planar.
/// Every component is oriented on its own.
std::vector<signed char> pfaffian_orientation(int n, const EdgeList& edges);

/// Positions of the vertices (pos[v]) with a small band: the natural order or reverse
/// Cuthill-McKee, whichever predicts less elimination work.
struct VertexOrder {
  std::vector<int> pos;
  int band = 0;
  double updates = 0;
};
VertexOrder band_order(int n, const EdgeList& edges);

/// Bytes of one banded working matrix of n rows holding `band` values each (plus padding).
inline double band_bytes(int n, int band, std::size_t value_size) {
  return double(n) * double(band + 8) * double(value_size);
}

/// The oriented block in banded order: K'(row[k], col[k]) = s[k] * a(edge k), row[k] <
/// col[k], and haf(A) = eps * Pf(K').
struct SkewBlock {
  int n = 0, band = 0;
  int eps = 1;
  double updates = 0;  // predicted entry updates of one elimination
  std::vector<int> row, col;   // per edge
  std::vector<signed char> s;  // per edge
  std::vector<std::size_t> entry;  // per edge: its entry (u, v), u < v, in the block
  std::vector<int> mate;  // a perfect matching, in positions (set_sign)
};

/// The block's orientation and order. RefusedError when the graph is not planar or the band
/// would not fit in kPfaffianMemoryLimit or the budget `max_bytes` (unless `exact`: exact
/// counts may take nested dissection, and exact_pfaffian checks the memory of the method).
template <class T>
SkewBlock prepare(const SparseMatrix<T>& a, std::size_t value_size,
                  double max_bytes = std::numeric_limits<double>::infinity(), bool exact = false);
/// Sets b.eps from a perfect matching of the block (mate[v] = partner).
template <class T>
void set_sign(const SparseMatrix<T>& a, SkewBlock& b, const std::vector<int>& mate);

/// The multiply-adds of one prime's fronts: plan d counts a pair of pivots as two pivots of one
/// multiply-add over whole fronts; the skew fronts do two over their upper triangle.
inline double front_work(const planar::Dissection& d) { return d.updates / 2; }

/// The refusal of a band of `bytes` over `limit` (kPfaffianMemoryLimit or the budget), `more`
/// appended.
[[noreturn]] void refuse_band(int n, int band, double bytes, double limit, const std::string& more = "");

/// haf(A) exactly: Pf(K') modulo primes, then CRT.
Integer exact_pfaffian(const SparseMatrix<Integer>& a, const SkewBlock& b, const EngineOptions& opt);
/// haf(A) in floating point with an estimate of its absolute error (the entries' own errors,
/// opt.entry_error, included).
template <class T>
Approx<T> float_pfaffian(const SparseMatrix<T>& a, const SkewBlock& b, const EngineOptions& opt);

}  // namespace matchcount::engines::pfaffian_detail
