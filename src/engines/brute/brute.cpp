// The oracle: depth-first enumeration of the perfect matchings (row by row, each nonzero in
// an unused column), summed exactly (Integer) or with compensation (double, complex).
#include <optional>

#include "engines/brute/brute.hpp"
#include "engines/common.hpp"
#include "engines/entry_errors.hpp"

namespace matchcount::engines {
namespace {

template <class T>
class Enumerator {
 public:
  explicit Enumerator(const SparseMatrix<T>& a) : n_(a.rows), rows_(static_cast<std::size_t>(a.rows)) {
    for (const auto& e : a.entries) rows_[static_cast<std::size_t>(e.row)].push_back({e.col, e.value});
  }

  TermSum<T> run(const EngineOptions& opt) const {
    // Work items: the choices of the first two rows (or one when n == 1).
    struct Prefix { int c0, c1; };
    std::vector<Prefix> prefixes;
    for (std::size_t a = 0; a < rows_[0].size(); ++a) {
      if (n_ == 1) { prefixes.push_back({static_cast<int>(a), -1}); continue; }
      for (std::size_t b = 0; b < rows_[1].size(); ++b)
        if (rows_[1][b].first != rows_[0][a].first) prefixes.push_back({static_cast<int>(a), static_cast<int>(b)});
    }
    std::vector<TermSum<T>> sums(prefixes.size());
    Progress progress(opt, prefixes.size());
#pragma omp parallel for schedule(dynamic) num_threads(thread_count(opt, n_ > 8 ? 1e9 : 0.0))
    for (std::int64_t w = 0; w < static_cast<std::int64_t>(prefixes.size()); ++w) {
      const Prefix& p = prefixes[static_cast<std::size_t>(w)];
      std::vector<T> stack(static_cast<std::size_t>(n_) + 1);
      const auto& e0 = rows_[0][static_cast<std::size_t>(p.c0)];
      std::uint32_t used = 1u << e0.first;
      stack[1] = e0.second;
      int depth = 1;
      if (p.c1 >= 0) {
        const auto& e1 = rows_[1][static_cast<std::size_t>(p.c1)];
        used |= 1u << e1.first;
        stack[2] = stack[1] * e1.second;
        depth = 2;
      }
      dfs(depth, used, stack, sums[static_cast<std::size_t>(w)]);
      progress.tick();
    }
    TermSum<T> total;
    for (const auto& s : sums) total.merge(s);
    return total;
  }

 private:
  // stack[i] = product of the entries chosen in rows 0..i-1.
  void dfs(int i, std::uint32_t used, std::vector<T>& stack, TermSum<T>& sum) const {
    if (i == n_) {
      sum.add(stack[static_cast<std::size_t>(i)]);
      return;
    }
    for (const auto& [col, value] : rows_[static_cast<std::size_t>(i)]) {
      if (used >> col & 1) continue;
      stack[static_cast<std::size_t>(i) + 1] = stack[static_cast<std::size_t>(i)] * value;
      dfs(i + 1, used | 1u << col, stack, sum);
    }
  }

  int n_;
  std::vector<std::vector<std::pair<int, T>>> rows_;
};

class BruteEngine final : public Engine {
 public:
  std::string name() const override { return "brute"; }
  int max_n() const override { return 24; }

  Integer count(const SparseMatrix<Integer>& a, const EngineOptions& opt) const override {
    return Enumerator<Integer>(a).run(opt).s;
  }
  // Floats: sum |terms| is perm(|A|). Each term is a product of n factors (relative error
  // <= (n-1) u, complex <= 3u per multiplication) and moves by at most prod_i (1 + eta_i) - 1 of
  // itself when row i's entries are off by eta_i of their size (relative_perturbation); the sum
  // is compensated (its second-order term: terms^2 u^2 of sum |terms|).
  Approx<double> count(const SparseMatrix<double>& a, const EngineOptions& opt) const override {
    DDSum s = Enumerator<double>(a).run(opt).s;
    return {s.value(), bound(a, opt, s.value(), s.abs, 1)};
  }
  Approx<Complex> count(const SparseMatrix<Complex>& a, const EngineOptions& opt) const override {
    auto s = Enumerator<Complex>(a).run(opt);
    const Complex v(s.re.value(), s.im.value());
    return {v, bound(a, opt, std::abs(v), s.abs, 3)};
  }

 private:
  template <class T>
  static double bound(const SparseMatrix<T>& a, const EngineOptions& opt, double value, double abs_sum, double mult) {
    const double terms = abs_sum > 0 ? std::tgamma(a.rows + 1.0) : 0.0;  // at most n! of them
    const double eta = relative_perturbation(a, opt);
    const double rounding = (mult * a.rows + 2) * kEps + std::min(1.0, (terms * kEps) * (terms * kEps));
    return abs_sum * (eta + rounding * (1 + eta)) * (1 + 1e-12) + kEps * std::abs(value) + 0x1p-1074;
  }

};

}  // namespace

std::unique_ptr<Engine> make_brute() { return std::make_unique<BruteEngine>(); }

}  // namespace matchcount::engines
