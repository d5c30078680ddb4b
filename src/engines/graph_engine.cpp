// The guards every general-graph engine shares, run once before the engine proper.
#include "engines/graph_engine.hpp"

#include <stdexcept>

#include "engines/common.hpp"

namespace matchcount {


namespace {

enum class Guard { Run, One, Zero };

/// The shared guards; `work` is `a` without its diagonal when loops are off and it has one.
template <class T>
Guard guard(const GraphEngine& engine, const SparseMatrix<T>& a, bool loops, SparseMatrix<T>& work,
            bool& copied) {
  if (!a.square())
    throw std::invalid_argument(engine.name() + ": the hafnian needs a square matrix, got " + std::to_string(a.rows) +
                                "x" + std::to_string(a.cols));
  if (first_asymmetric_entry(a).first >= 0)
    throw std::invalid_argument(engine.name() + ": the hafnian needs a symmetric matrix");
  if (loops && !engine.loops())
    throw RefusedError(engine.name() + ": counts hafnians without loops only");
  if (a.rows > engine.max_n())
    throw RefusedError(engine.name() + ": a " + std::to_string(a.rows) + "x" + std::to_string(a.rows) +
                       " block is larger than its limit n <= " + std::to_string(engine.max_n()));
  if (a.rows == 0) return Guard::One;
  copied = false;
  if (!loops) {
    if (a.rows % 2 != 0) return Guard::Zero;
    for (const auto& e : a.entries)
      if (e.row == e.col) {
        copied = true;
        break;
      }
    if (copied) {
      work.rows = work.cols = a.rows;
      for (const auto& e : a.entries)
        if (e.row != e.col) work.entries.push_back(e);
    }
  }
  const SparseMatrix<T>& b = copied ? work : a;
  std::vector<char> covered(static_cast<std::size_t>(b.rows));
  for (const auto& e : b.entries) covered[static_cast<std::size_t>(e.row)] = 1;
  for (char c : covered)
    if (!c) return Guard::Zero;
  return Guard::Run;
}

}  // namespace

Integer GraphEngine::hafnian(const SparseMatrix<Integer>& a, bool loops, const EngineOptions& opt) const {
  SparseMatrix<Integer> work;
  bool copied = false;
  switch (guard(*this, a, loops, work, copied)) {
    case Guard::One: return 1;
    case Guard::Zero: return 0;
    case Guard::Run: break;
  }
  return count(copied ? work : a, loops, opt);
}

Approx<double> GraphEngine::hafnian(const SparseMatrix<double>& a, bool loops, const EngineOptions& opt) const {
  SparseMatrix<double> work;
  bool copied = false;
  switch (guard(*this, a, loops, work, copied)) {
    case Guard::One: return {1.0, 0.0};
    case Guard::Zero: return {0.0, 0.0};
    case Guard::Run: break;
  }
  return count(copied ? work : a, loops, opt);
}

Approx<Complex> GraphEngine::hafnian(const SparseMatrix<Complex>& a, bool loops, const EngineOptions& opt) const {
  SparseMatrix<Complex> work;
  bool copied = false;
  switch (guard(*this, a, loops, work, copied)) {
    case Guard::One: return {Complex(1.0), 0.0};
    case Guard::Zero: return {Complex(0.0), 0.0};
    case Guard::Run: break;
  }
  return count(copied ? work : a, loops, opt);
}

}  // namespace matchcount
