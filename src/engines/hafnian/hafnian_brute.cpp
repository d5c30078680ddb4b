// The oracle "hafnian-brute": depth-first enumeration of the (loop) perfect matchings, always
// expanding the lowest uncovered vertex (matched to a later neighbour, or covered by its loop),
// summed exactly (Integer: in 128 bits when no term or partial sum can overflow, else GMP) or
// with compensation (double, complex).
#include <cmath>

#include "engines/common.hpp"
#include "engines/entry_errors.hpp"
#include "engines/hafnian/hafnian.hpp"

namespace matchcount::engines {
namespace {

template <class T>
class Matchings {
 public:
  template <class S, class Convert>
  Matchings(const SparseMatrix<S>& a, bool loops, Convert convert)
      : n_(a.rows), loops_(loops), later_(static_cast<std::size_t>(a.rows)), loop_(static_cast<std::size_t>(a.rows), T(0)) {
    for (const auto& e : a.entries) {
      if (e.row == e.col) {
        if (loops) loop_[static_cast<std::size_t>(e.row)] = convert(e.value);
      } else if (e.col > e.row) {
        later_[static_cast<std::size_t>(e.row)].push_back({e.col, convert(e.value)});
      }
    }
  }

  TermSum<T> run(const EngineOptions& opt) const {
    // Work items: the choices of vertex 0 (its loop is item -1).
    std::vector<int> items;
    if (loops_ && !(loop_[0] == T(0))) items.push_back(-1);
    for (std::size_t k = 0; k < later_[0].size(); ++k) items.push_back(static_cast<int>(k));
    std::vector<TermSum<T>> sums(items.size());
#pragma omp parallel for schedule(dynamic) num_threads(thread_count(opt, n_ > 12 ? 1e9 : 0.0))
    for (std::int64_t w = 0; w < static_cast<std::int64_t>(items.size()); ++w) {
      const int k = items[static_cast<std::size_t>(w)];
      if (k < 0) {
        dfs(1, loop_[0], sums[static_cast<std::size_t>(w)]);
      } else {
        const auto& [j, v] = later_[0][static_cast<std::size_t>(k)];
        dfs(1 | (std::uint64_t{1} << j), v, sums[static_cast<std::size_t>(w)]);
      }
    }
    TermSum<T> total;
    for (const auto& s : sums) total.merge(s);
    return total;
  }

 private:
  void dfs(std::uint64_t used, const T& prod, TermSum<T>& sum) const {
    int i = 0;
    while (i < n_ && ((used >> i) & 1)) ++i;
    if (i == n_) {
      sum.add(prod);
      return;
    }
    const std::uint64_t with_i = used | (std::uint64_t{1} << i);
    if (loops_ && !(loop_[static_cast<std::size_t>(i)] == T(0))) dfs(with_i, prod * loop_[static_cast<std::size_t>(i)], sum);
    for (const auto& [j, v] : later_[static_cast<std::size_t>(i)])
      if (!((used >> j) & 1)) dfs(with_i | (std::uint64_t{1} << j), prod * v, sum);
  }

  int n_;
  bool loops_;
  std::vector<std::vector<std::pair<int, T>>> later_;
  std::vector<T> loop_;
};

/// Involutions of n points: an upper bound on the number of (loop) perfect matchings.
double involutions(int n) {
  double a = 1, b = 1;  // T(0), T(1)
  for (int k = 2; k <= n; ++k) {
    const double c = b + (k - 1) * a;
    a = b, b = c;
  }
  return b;
}

class HafnianBrute final : public GraphEngine {
 public:
  std::string name() const override { return "hafnian-brute"; }
  int max_n() const override { return kHafnianBruteMaxN; }
  bool loops() const override { return true; }

 protected:
  Integer count(const SparseMatrix<Integer>& a, bool loops, const EngineOptions& opt) const override {
    // Every term is a product of at most n entries; the partial sums count at most
    // involutions(n) terms.
    std::size_t bits = 1;
    for (const auto& e : a.entries) bits = std::max(bits, mpz_sizeinbase(e.value.get_mpz_t(), 2));
    if (bits <= 62 && double(bits) * a.rows + std::log2(involutions(a.rows)) + 2 < 126) {
      Matchings<__int128> mt(a, loops, [](const Integer& v) { return static_cast<__int128>(v.get_si()); });
      const __int128 s = mt.run(opt).s;
      const bool neg = s < 0;
      unsigned __int128 u = neg ? -static_cast<unsigned __int128>(s) : static_cast<unsigned __int128>(s);
      Integer r = Integer(static_cast<unsigned long>(u >> 64));
      r <<= 64;
      r += Integer(static_cast<unsigned long>(u & ~std::uint64_t{0}));
      return neg ? Integer(-r) : r;
    }
    return Matchings<Integer>(a, loops, [](const Integer& v) { return v; }).run(opt).s;
  }

  // Products of at most n factors (3u a complex one), a compensated sum; sum |terms| is
  // haf(|A|), which the entries' own errors move by symmetric_perturbation of (entry_errors.hpp).
  Approx<double> count(const SparseMatrix<double>& a, bool loops, const EngineOptions& opt) const override {
    const TermSum<double> s = Matchings<double>(a, loops, [](double v) { return v; }).run(opt);
    const double moved = symmetric_perturbation(a, loops, opt);
    return {s.s.value(), ((a.rows + 2.0) * kEps * (1 + moved) + moved) * s.s.abs + 2 * kEps * std::fabs(s.s.value())};
  }

  Approx<Complex> count(const SparseMatrix<Complex>& a, bool loops, const EngineOptions& opt) const override {
    const TermSum<Complex> s = Matchings<Complex>(a, loops, [](const Complex& v) { return v; }).run(opt);
    const Complex v(s.re.value(), s.im.value());
    const double moved = symmetric_perturbation(a, loops, opt);
    return {v, (3 * (a.rows + 2.0) * kEps * (1 + moved) + moved) * s.abs + 2 * kEps * std::abs(v)};
  }
};

}  // namespace

std::unique_ptr<GraphEngine> make_hafnian_brute() { return std::make_unique<HafnianBrute>(); }

}  // namespace matchcount::engines
