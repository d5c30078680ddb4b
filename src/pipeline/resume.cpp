// Fingerprints of counts and the text form of block values in checkpoints.
#include "core/arith.hpp"
#include "core/hashing.hpp"
#include "pipeline/resume.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cinttypes>
#include <cstdio>
#include <sstream>
#include <type_traits>

#include "matchcount/checkpoint.hpp"

namespace matchcount::detail {
namespace {

std::string bits(double x) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, std::bit_cast<std::uint64_t>(x));
  return buf;
}

bool unbits(const std::string& s, double& x) {
  if (s.size() != 16 || s.find_first_not_of("0123456789abcdef") != std::string::npos) return false;
  x = std::bit_cast<double>(static_cast<std::uint64_t>(std::stoull(s, nullptr, 16)));
  return true;
}

std::string entry_text(const Integer& v) { return v.get_str(16); }
std::string entry_text(const double& v) { return bits(v); }
std::string entry_text(const Complex& v) { return bits(v.real()) + ":" + bits(v.imag()); }

/// Words of `text` after `kind`, or empty when the kind differs.
std::vector<std::string> fields(const std::string& text, const std::string& kind) {
  std::istringstream in(text);
  std::string k, w;
  std::vector<std::string> out;
  if (!(in >> k) || k != kind) return out;
  while (in >> w) out.push_back(w);
  return out;
}

/// log of the float bound: the smaller of the products of absolute row and column sums
/// (permanent), or prod_i (|a_ii| with loops + sqrt(off-diagonal absolute row sum)) (hafnian).
template <class T>
double log_bound(const SparseMatrix<T>& a, bool hafnian, bool loops) {
  std::vector<double> row(static_cast<std::size_t>(a.rows)), col(static_cast<std::size_t>(a.cols)),
      diag(static_cast<std::size_t>(a.rows));
  for (const auto& e : a.entries) {
    const double x = std::abs(e.value);
    if (hafnian && e.row == e.col) {
      if (loops) diag[static_cast<std::size_t>(e.row)] = x;
      continue;
    }
    row[static_cast<std::size_t>(e.row)] += x;
    col[static_cast<std::size_t>(e.col)] += x;
  }
  double by_rows = 0, by_cols = 0;
  for (std::size_t i = 0; i < row.size(); ++i)
    by_rows += std::log(hafnian ? diag[i] + std::sqrt(row[i]) : row[i]);
  for (const double c : col) by_cols += std::log(c);
  return hafnian ? by_rows : std::min(by_rows, by_cols);
}

template <class T, class V>
bool within(const SparseMatrix<T>& a, bool hafnian, bool loops, const Approx<V>& v) {
  const double size = std::abs(v.value);
  if (!std::isfinite(size) || !std::isfinite(v.abs_error)) return true;
  const double excess = size - v.abs_error;
  if (excess <= 0) return true;
  const double lb = log_bound(a, hafnian, loops);
  return std::log(excess) <= lb + 1e-9 + 1e-12 * std::abs(lb);
}

}  // namespace

bool within_permanent_bound(const SparseMatrix<Integer>& block, const Integer& v) {
  return abs(v) <= permanent_bound(block);
}
bool within_permanent_bound(const SparseMatrix<double>& block, const Approx<double>& v) {
  return within(block, false, false, v);
}
bool within_permanent_bound(const SparseMatrix<Complex>& block, const Approx<Complex>& v) {
  return within(block, false, false, v);
}
bool within_hafnian_bound(const SparseMatrix<Integer>& block, bool loops, const Integer& v) {
  return abs(v) <= hafnian_bound(block, loops);
}
bool within_hafnian_bound(const SparseMatrix<double>& block, bool loops, const Approx<double>& v) {
  return within(block, true, loops, v);
}
bool within_hafnian_bound(const SparseMatrix<Complex>& block, bool loops, const Approx<Complex>& v) {
  return within(block, true, loops, v);
}

namespace {

/// The bytes of block i's value line and the walks its walk may have (P in resume.hpp).
template <class T>
std::pair<std::uint64_t, std::uint64_t> block_allowance(const SparseMatrix<T>& b, bool hafnian, bool loops) {
  if constexpr (std::is_same_v<T, Integer>) {
    const Integer bound = hafnian ? hafnian_bound(b, loops) : permanent_bound(b);
    const std::uint64_t bits = mpz_sizeinbase(bound.get_mpz_t(), 2);
    return {bits / 4 + 64, bits / 48 + 2};
  } else {
    return {80, 4};
  }
}

}  // namespace

template <class T>
std::uint64_t checkpoint_size_limit(const std::vector<SparseMatrix<T>>& blocks, bool hafnian, bool loops,
                                    const std::vector<char>& bipartite) {
  std::uint64_t bytes = 64 << 10, walks = 0;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const bool haf = hafnian && !(i < bipartite.size() && bipartite[i]);
    const auto [value, w] = block_allowance(blocks[i], haf, loops);
    bytes += value;
    walks = std::max(walks, w);
  }
  return bytes + walks * (320 << 10);
}

template std::uint64_t checkpoint_size_limit(const std::vector<SparseMatrix<Integer>>&, bool, bool, const std::vector<char>&);
template std::uint64_t checkpoint_size_limit(const std::vector<SparseMatrix<double>>&, bool, bool, const std::vector<char>&);
template std::uint64_t checkpoint_size_limit(const std::vector<SparseMatrix<Complex>>&, bool, bool, const std::vector<char>&);

template <class T>
std::uint64_t count_fingerprint(const SparseMatrix<T>& a, const CountOptions& o,
                                const std::vector<SparseMatrix<T>>& blocks, const std::vector<EnginePlan>& plans) {
  auto matrix_hash = [](const SparseMatrix<T>& m, std::uint64_t h) {
    h = fnv1a64(std::to_string(m.rows) + "x" + std::to_string(m.cols) + ";", h);
    for (const auto& e : m.entries)
      h = fnv1a64(std::to_string(e.row) + "," + std::to_string(e.col) + "=" + entry_text(e.value) + ";", h);
    return h;
  };
  std::uint64_t h = fnv1a64("matchcount count v1;" + to_string(number_kind<T>()) + ";engine=" + o.engine +
                            ";preprocess=" + std::to_string(o.preprocess) +
                            ";device=" + std::to_string(static_cast<int>(o.device)) +
                            ";branch=" + std::to_string(o.reduce.branch_max_degree) + "," +
                            std::to_string(o.reduce.branch_min_size) + "," + std::to_string(o.reduce.max_leaves) +
                            "," + std::to_string(o.reduce.redecompose) + ";");
  h = matrix_hash(a, h);
  for (std::size_t i = 0; i < blocks.size(); ++i) h = fnv1a64("block " + plans[i].engine + ";", matrix_hash(blocks[i], h));
  return h;
}

template std::uint64_t count_fingerprint(const SparseMatrix<Integer>&, const CountOptions&,
                                         const std::vector<SparseMatrix<Integer>>&, const std::vector<EnginePlan>&);
template std::uint64_t count_fingerprint(const SparseMatrix<double>&, const CountOptions&,
                                         const std::vector<SparseMatrix<double>>&, const std::vector<EnginePlan>&);
template std::uint64_t count_fingerprint(const SparseMatrix<Complex>&, const CountOptions&,
                                         const std::vector<SparseMatrix<Complex>>&, const std::vector<EnginePlan>&);

std::string encode_value(const Integer& v) { return "int " + v.get_str(16); }
// A float's error is followed by the word "estimate" when it is one (Approx::estimated).
std::string encode_value(const Approx<double>& v) {
  return "real " + bits(v.value) + " " + bits(v.abs_error) + (v.estimated ? " estimate" : "");
}
std::string encode_value(const Approx<Complex>& v) {
  return "complex " + bits(v.value.real()) + " " + bits(v.value.imag()) + " " + bits(v.abs_error) +
         (v.estimated ? " estimate" : "");
}

bool decode_value(const std::string& text, Integer& v) {
  const auto f = fields(text, "int");
  return f.size() == 1 && v.set_str(f[0], 16) == 0;
}

namespace {
/// Takes the trailing "estimate" off `f` into `estimated`; false for any other extra word.
bool take_estimate_mark(std::vector<std::string>& f, std::size_t plain, bool& estimated) {
  estimated = f.size() == plain + 1 && f.back() == "estimate";
  if (estimated) f.pop_back();
  return f.size() == plain;
}
}  // namespace

bool decode_value(const std::string& text, Approx<double>& v) {
  auto f = fields(text, "real");
  return take_estimate_mark(f, 2, v.estimated) && unbits(f[0], v.value) && unbits(f[1], v.abs_error);
}
bool decode_value(const std::string& text, Approx<Complex>& v) {
  auto f = fields(text, "complex");
  double re = 0, im = 0;
  if (!take_estimate_mark(f, 3, v.estimated) || !unbits(f[0], re) || !unbits(f[1], im) || !unbits(f[2], v.abs_error))
    return false;
  v.value = Complex(re, im);
  return true;
}

}  // namespace matchcount::detail
