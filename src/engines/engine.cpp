// The guards every engine shares, run once before the engine proper (Engine::count).
#include "engines/engine.hpp"

#include "engines/common.hpp"

namespace matchcount {
Integer Engine::permanent(const SparseMatrix<Integer>& a, const EngineOptions& opt) const {
  engines::check_block(a, name(), max_n());
  if (a.rows == 0) return 1;
  if (engines::has_empty_line(a)) return 0;
  return count(a, opt);
}

Approx<double> Engine::permanent(const SparseMatrix<double>& a, const EngineOptions& opt) const {
  engines::check_block(a, name(), max_n());
  if (a.rows == 0) return {1.0, 0.0};
  if (engines::has_empty_line(a)) return {0.0, 0.0};
  return count(a, opt);
}

Approx<Complex> Engine::permanent(const SparseMatrix<Complex>& a, const EngineOptions& opt) const {
  engines::check_block(a, name(), max_n());
  if (a.rows == 0) return {Complex(1.0), 0.0};
  if (engines::has_empty_line(a)) return {Complex(0.0), 0.0};
  return count(a, opt);
}

}  // namespace matchcount
