// The Pfaffian engine (pfaffian.hpp): a perfect matching (or a count of 0), the oriented block
// in banded order, then the exact or floating-point Pfaffian.
#include "engines/pfaffian/pfaffian.hpp"

#include "engines/common.hpp"
#include "engines/pfaffian/pfaffian_impl.hpp"
#include "matchcount/graph_matching.hpp"

namespace matchcount::engines {
namespace {

using namespace pfaffian_detail;

class PfaffianEngine final : public GraphEngine {
 public:
  std::string name() const override { return "pfaffian"; }
  int max_n() const override { return kPfaffianMaxN; }
  bool loops() const override { return false; }

 protected:
  Integer count(const SparseMatrix<Integer>& a, bool, const EngineOptions& opt) const override {
    SkewBlock b = prepare(a, sizeof(double), opt.max_bytes, true);
    if (!sign(a, b)) return 0;
    return exact_pfaffian(a, b, opt);
  }
  Approx<double> count(const SparseMatrix<double>& a, bool, const EngineOptions& opt) const override {
    return floating(a, opt);
  }
  Approx<Complex> count(const SparseMatrix<Complex>& a, bool, const EngineOptions& opt) const override {
    return floating(a, opt);
  }

 private:
  /// Sets b.eps from a perfect matching; false when there is none (the hafnian is 0). The
  /// orientation comes first, so that a non-planar block is refused whatever its matchings.
  template <class T>
  static bool sign(const SparseMatrix<T>& a, SkewBlock& b) {
    const GraphMatching m = edmonds_matching(GraphPattern::of(a));
    if (!m.perfect()) return false;
    set_sign(a, b, m.mate);
    return true;
  }
  template <class T>
  static Approx<T> floating(const SparseMatrix<T>& a, const EngineOptions& opt) {
    SkewBlock b = prepare(a, sizeof(T), opt.max_bytes);
    if (!sign(a, b)) return {T(0.0), 0.0};
    Approx<T> r = float_pfaffian(a, b, opt);
    if (opt.progress) opt.progress(1.0);
    return r;
  }
};

}  // namespace

std::unique_ptr<GraphEngine> make_pfaffian() { return std::make_unique<PfaffianEngine>(); }

}  // namespace matchcount::engines
