// The engine interface: every exact counting engine (CPU, GPU and structure engines alike)
// computes the permanent of one square block behind it. Engines are made by the catalog
// (src/catalog/catalog.hpp), which also holds what the planner and the programs know of them.
#pragma once

#include <functional>
#include <limits>
#include <memory>
#include <string>

#include "matchcount/engine.hpp"
#include "matchcount/matrix.hpp"
#include "matchcount/value.hpp"
#include "runtime/team.hpp"
#include "runtime/work_units.hpp"

namespace matchcount {

struct EngineOptions {
  /// Worker threads; 0 means OpenMP's default (all cores).
  int threads = 0;
  /// Called now and then with the fraction of this block done (0..1), from one thread at a
  /// time. May be empty.
  std::function<void(double)> progress;
  /// GPU engines may compile a kernel specialised to the block at run time (NVRTC).
  Specialise specialise = Specialise::Auto;
  /// Where the engine records what it did; may be null.
  EngineStats* stats = nullptr;
  /// GPU engines: use the first `gpus` visible devices (0: all).
  int gpus = 0;
  /// Checkpoints: the Ryser-type walks resume from and save their progress to it; may be null.
  WalkJournal* journal = nullptr;
  /// MPI: the Ryser walks share their units with the other ranks through it; may be null.
  cluster::WalkTeam* team = nullptr;
  /// The memory budget in bytes (CountOptions::max_memory): engines with large tables refuse a
  /// block whose tables are predicted beyond it (RefusedError), or split their work to fit.
  double max_bytes = std::numeric_limits<double>::infinity();
  /// Floats: how far the number an entry of value v stands for may lie from v (absolute): the
  /// decimal the reader rounded to v, or what preprocessing's roundings left (the pipeline's
  /// src/pipeline/entry_errors.hpp). Engines add the effect of these errors to their bound;
  /// empty: the entries are exact.
  std::function<double(const Complex&)> entry_error;
};

/// Counts the permanent of one square block. Implementations are stateless and thread-safe.
/// A block the engine cannot take (too large for its counters, or a bound it cannot meet)
/// raises RefusedError with a message saying why; it never returns a rounded exact count.
/// permanent() (non-virtual) checks the block once for every engine: not square is
/// std::invalid_argument, over max_n() RefusedError; n = 0 gives 1 and an empty row or column
/// 0 without calling the engine.
class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string name() const = 0;
  /// Largest block dimension accepted.
  virtual int max_n() const = 0;

  /// Exact permanent of a square integer matrix.
  Integer permanent(const SparseMatrix<Integer>& a, const EngineOptions& opt) const;
  /// Permanent of a square real matrix with an estimate of its absolute rounding error.
  Approx<double> permanent(const SparseMatrix<double>& a, const EngineOptions& opt) const;
  /// Permanent of a square complex matrix with an estimate of its absolute rounding error.
  Approx<Complex> permanent(const SparseMatrix<Complex>& a, const EngineOptions& opt) const;

 protected:
  // The engine proper. The guards of permanent() ran: `a` is square, 1 <= n <= max_n(),
  // and every row and column has an entry.
  virtual Integer count(const SparseMatrix<Integer>& a, const EngineOptions& opt) const = 0;
  virtual Approx<double> count(const SparseMatrix<double>& a, const EngineOptions& opt) const = 0;
  virtual Approx<Complex> count(const SparseMatrix<Complex>& a, const EngineOptions& opt) const = 0;
};

}  // namespace matchcount
