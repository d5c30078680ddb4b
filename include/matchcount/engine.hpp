// The engine interface: every exact counting engine (CPU now; GPU and structure engines later)
// computes the permanent of one square block behind this interface.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "matchcount/matrix.hpp"
#include "matchcount/value.hpp"

namespace matchcount {

struct EngineOptions {
  /// Worker threads; 0 means OpenMP's default (all cores).
  int threads = 0;
  /// Called now and then with the fraction of this block done (0..1), from one thread at a
  /// time. May be empty.
  std::function<void(double)> progress;
};

/// Counts the permanent of one square block. Implementations are stateless and thread-safe.
/// A block the engine cannot take (too large for its counters, or a bound it cannot meet)
/// raises RefusedError with a message saying why; it never returns a rounded exact count.
class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string name() const = 0;
  /// Largest block dimension accepted.
  virtual int max_n() const = 0;

  /// Exact permanent of a square integer matrix.
  virtual Integer permanent(const SparseMatrix<Integer>& a, const EngineOptions& opt) const = 0;
  /// Permanent of a square real matrix with an estimate of its absolute rounding error.
  virtual Approx<double> permanent(const SparseMatrix<double>& a, const EngineOptions& opt) const = 0;
  /// Permanent of a square complex matrix with an estimate of its absolute rounding error.
  virtual Approx<Complex> permanent(const SparseMatrix<Complex>& a, const EngineOptions& opt) const = 0;
};

/// Names accepted by make_engine, in the order shown by --help.
std::vector<std::string> engine_names();
/// Creates an engine by name; throws UsageError for an unknown name.
std::unique_ptr<Engine> make_engine(std::string_view name);
/// The foundation's simple rule: which engine counts an n x n block with nnz entries.
std::string choose_engine(int n, std::size_t nnz, NumberKind kind);

}  // namespace matchcount
