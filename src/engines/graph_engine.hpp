// The interface of the engines for general graphs: each computes the hafnian (or the loop
// hafnian) of one symmetric block, i.e. the weighted count of the perfect matchings of the graph
// whose adjacency matrix the block is. The permanent engines (engine.hpp) count bipartite
// graphs; these count every graph. The catalog (src/catalog) makes both kinds.
#pragma once

#include <memory>
#include <string>

#include "engines/engine.hpp"

namespace matchcount {

/// Counts the hafnian of one symmetric block: haf(A) = sum over perfect matchings M of the
/// graph of A of prod_{ij in M} a_ij. With `loops`, the loop hafnian: matchings may also cover
/// a vertex i alone, with weight a_ii (the diagonal). Without `loops` the diagonal is ignored.
/// Implementations are stateless and thread-safe; a block an engine cannot take raises
/// RefusedError saying why, never a rounded exact count.
///
/// hafnian() (non-virtual) runs the guards once for every engine: not square or not symmetric
/// is std::invalid_argument, over max_n() RefusedError, a loop hafnian asked of an engine
/// without loops() RefusedError; n = 0 gives 1; without loops, odd n or a vertex without a
/// neighbour gives 0 and the diagonal is dropped before count() is called; with loops, a
/// vertex with neither a neighbour nor a loop gives 0.
class GraphEngine {
 public:
  virtual ~GraphEngine() = default;
  virtual std::string name() const = 0;
  /// Largest block dimension accepted.
  virtual int max_n() const = 0;
  /// Whether it counts loop hafnians.
  virtual bool loops() const = 0;

  Integer hafnian(const SparseMatrix<Integer>& a, bool loops, const EngineOptions& opt) const;
  Approx<double> hafnian(const SparseMatrix<double>& a, bool loops, const EngineOptions& opt) const;
  Approx<Complex> hafnian(const SparseMatrix<Complex>& a, bool loops, const EngineOptions& opt) const;

 protected:
  // The engine proper. The guards ran: `a` is symmetric, 1 <= n <= max_n(), both triangles
  // are stored; without `loops` there are no diagonal entries, n is even and every vertex has
  // a neighbour; with `loops` every vertex has a neighbour or a loop.
  virtual Integer count(const SparseMatrix<Integer>& a, bool loops, const EngineOptions& opt) const = 0;
  virtual Approx<double> count(const SparseMatrix<double>& a, bool loops, const EngineOptions& opt) const = 0;
  virtual Approx<Complex> count(const SparseMatrix<Complex>& a, bool loops, const EngineOptions& opt) const = 0;
};


}  // namespace matchcount
