// The matching polynomial by one frontier DP (graph_frontier.hpp,
// graph_frontier_matching_polynomial): the loop-hafnian DP of graph_frontier_run.hpp over the
// graph with a loop of weight 1 at every vertex (a vertex left unmatched), where every state
// carries the polynomial in the number of edges instead of one value. A vertex matched to an
// open neighbour shifts the polynomial by one degree (times the edge's weight); staying open or
// taking its loop adds it as it is. After k vertices no structure has more than floor(k/2)
// edges, so a step touches only the degrees up to that. Exact modulo primes below 2^50 (the
// coefficients are bounded by the total of the moduli), one prime a pass, CRT at the end.
#include <cmath>
#include <algorithm>
#include <map>
#include <cstdint>
#include <string>
#include <vector>

#include "core/arith.hpp"
#include "engines/common.hpp"
#include "engines/graph_frontier/graph_frontier.hpp"
#include "engines/graph_frontier/graph_frontier_run.hpp"
#include "engines/modular_tables.hpp"
#include "matchcount/error.hpp"

namespace matchcount::engines {
namespace {

using graph_frontier_detail::GraphRun;

/// Residues of the coefficients 0 .. word_count - 1 modulo one prime p < 2^50, summed lazily
/// (at most 65 terms below 2p a coefficient, as ModPolicy) and reduced by Barrett.
struct PolyPolicy {
  using Word = std::uint64_t;
  static constexpr int abs_word = -1;
  std::size_t word_count = 1;
  std::uint64_t p = 0, barrett = 0;
  bool unit = true;                              // every edge weighs 1
  ShoupTable factors;                            // per distinct value
  const std::vector<std::uint32_t>* value_of = nullptr;
  const std::vector<char>* is_loop = nullptr;    // per entry
  // Degrees a source state may hold (read) and a new state may hold (written) at this step.
  mutable std::size_t read_top = 0, write_top = 0;

  void begin_step(std::size_t k) const {
    read_top = std::min(word_count - 1, k / 2);
    write_top = std::min(word_count - 1, (k + 1) / 2);
  }
  std::vector<Word> one() const {
    std::vector<Word> v(word_count, 0);
    v[0] = 1;
    return v;
  }
  void zero(Word* d) const { std::fill(d, d + write_top + 1, Word(0)); }
  void add(Word* d, const Word* s, int e) const {
    if (e < 0 || (*is_loop)[std::size_t(e)]) {  // open, or a monomer (loop weight 1)
      for (std::size_t c = 0; c <= read_top; ++c) d[c] += s[c];
      return;
    }
    // An edge: one degree up. A term beyond write_top is zero (no structure has that many
    // edges), so it is skipped.
    const std::size_t top = std::min(read_top, write_top - 1);
    if (unit) {
      for (std::size_t c = 0; c <= top; ++c) d[c + 1] += s[c];
      return;
    }
    const std::size_t i = (*value_of)[std::size_t(e)];
    const std::uint64_t w = factors.residue[i], wq = factors.quotient[i];
    for (std::size_t c = 0; c <= top; ++c) d[c + 1] += shoup_mul_lazy(s[c], w, wq, p);
  }
  void finish(Word* d) const {
    for (std::size_t c = 0; c <= write_top; ++c) d[c] = barrett_reduce(d[c], p, barrett);
  }
};

/// The graph with a loop of weight 1 at every vertex.
SparseMatrix<Integer> with_monomers(const SparseMatrix<Integer>& a) {
  SparseMatrix<Integer> g{a.rows, a.cols, {}};
  for (const auto& e : a.entries)
    if (e.row != e.col) g.entries.push_back(e);
  for (int i = 0; i < a.rows; ++i) g.entries.push_back({i, i, Integer(1)});
  g.normalize();
  return g;
}

/// One pass of the DP modulo p: the coefficients' residues. `factors` holds the residues of the
/// values `value_of` names per entry of the setup's graph.
std::vector<std::uint64_t> polynomial_pass(const PolynomialSetup& s, std::uint64_t p, ShoupTable factors,
                                           const std::vector<std::uint32_t>* value_of, bool unit, const EngineOptions& o) {
  PolyPolicy pol;
  pol.word_count = s.words;
  pol.p = p, pol.barrett = barrett_factor(p);
  pol.unit = unit;
  pol.value_of = value_of;
  pol.is_loop = &s.is_loop;
  pol.factors = std::move(factors);
  TableMeter meter(s.limit, o.max_bytes < kGraphFrontierMemoryLimit);
  meter.set_target(s.bytes);
  return GraphRun<PolyPolicy>(pol, o, true, meter).run(s.steps);
}

/// `opt` with its progress reporting pass b of `passes` as that share of the whole.
EngineOptions progress_share(const EngineOptions& opt, std::size_t b, std::size_t passes) {
  EngineOptions o = opt;
  if (opt.progress) o.progress = [progress = opt.progress, b, passes](double f) { progress((double(b) + f) / double(passes)); };
  return o;
}

}  // namespace

GraphFrontierPlan graph_frontier_polynomial_plan(const SparseMatrix<Integer>& a) {
  std::vector<std::pair<int, int>> pattern;
  for (const auto& e : a.entries)
    if (e.row != e.col) pattern.emplace_back(e.row, e.col);
  return plan_graph_frontier(pattern, a.rows);
}

double graph_frontier_polynomial_bytes(const GraphFrontierPlan& plan, int n) {
  return graph_frontier_bytes(plan, n / 2 + 1, true);
}

PolynomialSetup polynomial_setup(const SparseMatrix<Integer>& a, const EngineOptions& opt, bool on_device) {
  if (a.rows != a.cols) throw std::invalid_argument("the matching polynomial needs a square symmetric matrix");
  for (const auto& e : a.entries)
    if (e.row == e.col) throw std::invalid_argument("the matching polynomial counts a graph without self-loops");
  PolynomialSetup s;
  const int n = a.rows;
  s.words = static_cast<std::size_t>(n / 2) + 1;
  s.g = with_monomers(a);
  s.plan = graph_frontier_polynomial_plan(a);
  if (s.plan.width > kGraphFrontierMaxWidth)
    throw RefusedError("graph-frontier: the best vertex order found has frontier width " + std::to_string(s.plan.width) +
                       ", more than the " + std::to_string(kGraphFrontierMaxWidth) + " vertices a state holds");
  s.limit = std::min(kGraphFrontierMemoryLimit, opt.max_bytes) - graph_frontier_other_bytes(n, double(a.nnz()));
  s.bytes = graph_frontier_polynomial_bytes(s.plan, n);
  if (!on_device && s.bytes > s.limit)
    refuse_memory(opt.max_bytes < kGraphFrontierMemoryLimit,
                  "graph-frontier: the matching polynomial's tables (frontier width " + std::to_string(s.plan.width) + ", " +
                      std::to_string(s.words) + " coefficients a state) would take " + three_digits(s.bytes / double(1ull << 30)) +
                      " GiB, over the " + three_digits(std::max(s.limit, 0.0) / double(1ull << 30)) + " GiB they may use");
  s.steps = graph_frontier_steps(s.g, true, s.plan);
  // Every |m_k| is at most the total over |A|: the loop hafnian of |A| with unit loops.
  SparseMatrix<Integer> moduli = s.g;
  for (auto& e : moduli.entries) e.value = abs(e.value);
  for (double p : choose_primes(hafnian_bound(moduli, true))) s.primes.push_back(std::uint64_t(p));
  s.distinct = distinct_values(s.g);
  for (const auto& e : s.g.entries) {
    s.is_loop.push_back(e.row == e.col);
    s.unit = s.unit && (e.row == e.col || e.value == 1);
  }
  return s;
}

std::vector<Integer> graph_frontier_matching_polynomial(const SparseMatrix<Integer>& a, const EngineOptions& opt) {
  if (a.rows == 0) return {Integer(1)};
  const PolynomialSetup s = polynomial_setup(a, opt, false);
  std::vector<std::vector<std::uint64_t>> residues(s.words);
  for (std::size_t b = 0; b < s.primes.size(); ++b) {
    const std::uint64_t p = s.primes[b];
    const auto r = polynomial_pass(s, p, ShoupTable(s.distinct.values, std::vector<std::uint64_t>{p}), &s.distinct.index_of,
                                   s.unit, progress_share(opt, b, s.primes.size()));
    for (std::size_t k = 0; k < s.words; ++k) residues[k].push_back(r[k]);
  }
  std::vector<Integer> m;
  for (const auto& r : residues) m.push_back(crt_symmetric(r, s.primes));
  return m;
}

namespace {

using u128 = unsigned __int128;

std::uint64_t mulmod(std::uint64_t a, std::uint64_t b, std::uint64_t p) { return std::uint64_t(u128(a) * b % p); }

std::uint64_t powmod(std::uint64_t a, std::uint64_t e, std::uint64_t p) {
  std::uint64_t r = 1;
  for (; e; e >>= 1, a = mulmod(a, a, p))
    if (e & 1) r = mulmod(r, a, p);
  return r;
}

/// A square root of -1 modulo a prime p = 1 (mod 4): c^((p-1)/4) for a quadratic non-residue c.
std::uint64_t sqrt_minus_one(std::uint64_t p) {
  for (std::uint64_t c = 2;; ++c)
    if (powmod(c, (p - 1) / 2, p) == p - 1) return powmod(c, (p - 1) / 4, p);
}

std::uint64_t residue(const Integer& x, std::uint64_t p) { return mpz_fdiv_ui(x.get_mpz_t(), p); }

}  // namespace

std::vector<std::pair<Integer, Integer>> graph_frontier_gaussian_polynomial(const SparseMatrix<Integer>& re,
                                                                            const SparseMatrix<Integer>& im,
                                                                            const EngineOptions& opt) {
  if (re.rows == 0) return {{Integer(1), Integer(0)}};
  // The pattern with the moduli |x| + |y| plans the DP and bounds both parts of every m_k.
  std::map<std::pair<int, int>, std::pair<Integer, Integer>> value;
  for (const auto& e : re.entries) value[{e.row, e.col}].first = e.value;
  for (const auto& e : im.entries) value[{e.row, e.col}].second = e.value;
  SparseMatrix<Integer> moduli{re.rows, re.cols, {}};
  for (const auto& [at, v] : value)
    if (v.first != 0 || v.second != 0) moduli.entries.push_back({at.first, at.second, abs(v.first) + abs(v.second)});
  const PolynomialSetup s = polynomial_setup(moduli, opt, false);
  const Integer bound = hafnian_bound(s.g, true);  // s.g: the moduli with unit loops
  // Primes p = 1 (mod 4), where -1 has a square root: their product beyond twice the bound.
  std::vector<std::uint64_t> primes;
  Integer product = 1;
  for (double p : choose_primes(bound * bound * bound * 64)) {
    const auto q = std::uint64_t(p);
    if (q % 4 != 1) continue;
    primes.push_back(q);
    product *= q;
    if (product > 2 * bound + 1) break;
  }
  if (product <= 2 * bound + 1) throw std::logic_error("graph_frontier_gaussian_polynomial: too few primes");
  std::vector<std::vector<std::uint64_t>> re_res(s.words), im_res(s.words);
  std::vector<std::uint32_t> identity(s.g.entries.size());
  for (std::size_t e = 0; e < identity.size(); ++e) identity[e] = std::uint32_t(e);
  for (std::size_t b = 0; b < primes.size(); ++b) {
    const std::uint64_t p = primes[b], root = sqrt_minus_one(p);
    std::vector<std::uint64_t> at[2];
    for (int sign = 0; sign < 2; ++sign) {  // x + i y at i = root, then at i = -root
      const std::uint64_t r = sign ? p - root : root;
      std::vector<Integer> residues;
      for (const auto& e : s.g.entries) {
        if (e.row == e.col) {
          residues.push_back(Integer(1));
          continue;
        }
        const auto& v = value[{e.row, e.col}];
        residues.push_back(Integer((residue(v.first, p) + mulmod(residue(v.second, p), r, p)) % p));
      }
      at[sign] = polynomial_pass(s, p, ShoupTable(residues, std::vector<std::uint64_t>{p}), &identity, false,
                                 progress_share(opt, 2 * b + std::size_t(sign), 2 * primes.size()));
    }
    // m(root) = R + root I and m(-root) = R - root I: R = (a + b) / 2, I = (a - b) / (2 root).
    const std::uint64_t half = (p + 1) / 2, inv_two_root = powmod(mulmod(2, root, p), p - 2, p);
    for (std::size_t k = 0; k < s.words; ++k) {
      const std::uint64_t a = at[0][k] % p, c = at[1][k] % p;
      re_res[k].push_back(mulmod((a + c) % p, half, p));
      im_res[k].push_back(mulmod((a + p - c) % p, inv_two_root, p));
    }
  }
  std::vector<std::pair<Integer, Integer>> m;
  for (std::size_t k = 0; k < s.words; ++k) m.emplace_back(crt_symmetric(re_res[k], primes), crt_symmetric(im_res[k], primes));
  return m;
}

PolynomialTraffic graph_frontier_polynomial_traffic(const SparseMatrix<Integer>& a) {
  PolynomialTraffic t;
  const int n = a.rows;
  const GraphFrontierPlan plan = graph_frontier_polynomial_plan(a);
  std::vector<std::vector<int>> adj(static_cast<std::size_t>(n));
  for (const auto& e : a.entries)
    if (e.row != e.col) adj[static_cast<std::size_t>(e.row)].push_back(e.col);
  std::vector<int> pos(static_cast<std::size_t>(n)), later(static_cast<std::size_t>(n), 0);
  for (int k = 0; k < n; ++k) pos[static_cast<std::size_t>(plan.order[static_cast<std::size_t>(k)])] = k;
  // later[v]: v's neighbours not yet processed; the frontier holds the processed v with some.
  for (int v = 0; v < n; ++v) later[static_cast<std::size_t>(v)] = static_cast<int>(adj[static_cast<std::size_t>(v)].size());
  int frontier = 0;
  double previous = 1;  // the table before the first vertex: one state
  for (int k = 0; k < n; ++k) {
    const int v = plan.order[static_cast<std::size_t>(k)];
    for (int u : adj[static_cast<std::size_t>(v)])
      if (pos[static_cast<std::size_t>(u)] < k && --later[static_cast<std::size_t>(u)] == 0) --frontier;
    int after = 0;
    for (int u : adj[static_cast<std::size_t>(v)]) after += pos[static_cast<std::size_t>(u)] > k;
    later[static_cast<std::size_t>(v)] = after;
    frontier += after > 0;
    // Every subset of the frontier may be open (a vertex may stay a monomer): twice the
    // perfect-matching DP's parity-constrained states.
    const double states = std::ldexp(1.0, frontier);
    t.states += states;
    t.bytes_per_prime += 8.0 * (states * double((k + 1) / 2 + 1) + previous * double(k / 2 + 1));
    previous = states;
  }
  SparseMatrix<Integer> moduli = with_monomers(a);
  for (auto& e : moduli.entries) e.value = abs(e.value);
  t.primes = double(choose_primes(hafnian_bound(moduli, true)).size());
  return t;
}

double graph_frontier_polynomial_seconds(const GraphFrontierPlan& plan, int n, double primes, int cores) {
  // Per prime a pass, the loop-hafnian DP's gathers of about n / 4 words each (the degrees
  // touched grow from 0 to n / 2), each a sum (unit) or a lazy product.
  const double words = std::max(1.0, n / 4.0);
  return kGraphFrontierFixed + primes * (plan.cost * 2 * (kGraphFrontierBase + words * kGraphFrontierModWord)) /
                                   (1 + kGraphFrontierParallel * (std::max(cores, 1) - 1));
}

}  // namespace matchcount::engines
