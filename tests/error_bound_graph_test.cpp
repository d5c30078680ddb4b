// The printed error of float hafnians and loop hafnians against exact references (issue 32,
// item 6; the permanents' side is error_bound_test.cpp): random symmetric matrices of decimals
// read through the Matrix Market reader (symmetric storage), counted by every CPU hafnian
// engine, forced with and without the graph preprocessing (forced edges, degree-2 folds,
// components, bipartite blocks counted as permanents), each within its abs_error of the exact
// (loop) hafnian of the decimals. The dense hafnian walk's arithmetic error is an estimate (the
// spread of three walks, docs/engines.md); what the entries' errors move is bounded, and so are
// the other engines' errors.
#include <gtest/gtest.h>

#include <random>

#include "catalog/catalog.hpp"
#include "exact_reference.hpp"
#include "matchcount/pipeline.hpp"

using namespace matchcount;
using namespace matchcount::test::exact;

namespace {

std::vector<std::string> graph_engines() {
  std::vector<std::string> out;
  for (const auto& row : catalog::rows())
    if (row.make_graph && !row.gpu && (row.kinds & catalog::kReal)) out.push_back(row.name);
  return out;
}

/// A random symmetric matrix of decimals (loops on the diagonal with `loops`): edges with
/// probability `density`, leading-digit exponents in [lo, hi]; `bipartite` keeps the edges
/// between even and odd vertices only.
DecimalMatrix random_symmetric(std::mt19937_64& rng, int n, bool complex, bool loops, double density, int lo, int hi,
                               bool bipartite) {
  DecimalMatrix m{n, n, complex, std::vector<Decimal>(std::size_t(n * n), decimal("0")),
                  complex ? std::vector<Decimal>(std::size_t(n * n), decimal("0")) : std::vector<Decimal>{}};
  std::uniform_int_distribution<int> ex(lo, hi);
  std::uniform_real_distribution<double> p(0, 1);
  const int digits = 1 + static_cast<int>(rng() % 17);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) {
      if (i == j ? !loops : (p(rng) >= density || (bipartite && (i + j) % 2 == 0))) continue;
      const int e = ex(rng);
      const auto k = static_cast<std::size_t>(i * n + j), t = static_cast<std::size_t>(j * n + i);
      m.re[k] = m.re[t] = random_decimal(rng, digits, e);
      if (complex) m.im[k] = m.im[t] = random_decimal(rng, digits, e, 0.2);
    }
  // A spanning path, so that most graphs have perfect matchings to count.
  for (int i = 0; i + 1 < n; ++i) {
    const auto k = static_cast<std::size_t>((i + 1) * n + i), t = static_cast<std::size_t>(i * n + i + 1);
    if (m.zero(i + 1, i)) m.re[k] = m.re[t] = random_decimal(rng, digits, ex(rng));
  }
  return m;
}

/// Edge (0, 1) set to a decimal near -R / C (haf = a01 C + R): a hafnian tiny beside haf(|A|).
void cancel(DecimalMatrix& m, bool loops, int digits) {
  const int n = m.rows;
  auto set = [&](const CQ& v) {
    m.re[1] = m.re[static_cast<std::size_t>(n)] = decimal_of(v.re);
    if (m.complex) m.im[1] = m.im[static_cast<std::size_t>(n)] = decimal_of(v.im);
  };
  set({});
  const CQ r = hafnian(m, loops);
  set({1, 0});
  CQ c = hafnian(m, loops);
  c.re -= r.re, c.im -= r.im;
  const Complex target = -Complex(r.re.get_d(), r.im.get_d()) / Complex(c.re.get_d(), c.im.get_d());
  if (!std::isfinite(std::abs(target))) return;
  char re[64], im[64];
  std::snprintf(re, sizeof re, "%.*e", digits - 1, target.real());
  std::snprintf(im, sizeof im, "%.*e", digits - 1, target.imag());
  m.re[1] = m.re[static_cast<std::size_t>(n)] = decimal(re);
  if (m.complex) m.im[1] = m.im[static_cast<std::size_t>(n)] = decimal(im);
}

}  // namespace

TEST(ErrorBound, RandomDecimalHafnians) {
  std::mt19937_64 rng(35);
  Tally t;
  const int cases = 1200 / kScale;
  for (int c = 0; c < cases; ++c) {
    const bool loops = c % 3 == 2;
    const int n = loops ? 2 + static_cast<int>(rng() % 8) : 2 * (1 + static_cast<int>(rng() % 5));  // to 10
    const bool complex = rng() % 2;
    const int family = c % 5;
    const bool mixed = family == 1;
    DecimalMatrix m = random_symmetric(rng, n, complex, loops, family >= 2 ? 0.35 : 0.9, mixed ? -8 : 0,
                                       mixed ? 8 : 0, family == 3 && !loops);
    if (family == 4 && n >= 4) cancel(m, loops, 3 + static_cast<int>(rng() % 12));
    const CQ want = hafnian(m, loops);
    const AnyMatrix a = read(m, Storage::Symmetric, true);
    const std::string what = "family " + std::to_string(family) + (loops ? ", loops\n" : "\n") +
                             matrix_market(m, Storage::Symmetric);
    CountOptions o;
    o.threads = 1;
    t.check("pipeline", count_hafnian(a, loops, o), want, what);
    for (const std::string& e : graph_engines())
      for (bool pre : {true, false}) {
        o.engine = e, o.preprocess = pre;
        try {
          t.check(e + (pre ? "" : " (whole)") + (loops ? " loops" : ""), count_hafnian(a, loops, o), want, what);
        } catch (const RefusedError&) {  // pfaffian: not planar, or loops
        }
      }
  }
  t.print("float hafnians of random decimals");
  EXPECT_EQ(t.failures, 0);
  for (const std::string& e : graph_engines()) EXPECT_GE(t.runs[e], e == "pfaffian" ? cases / 20 : cases / 3) << e;
}
