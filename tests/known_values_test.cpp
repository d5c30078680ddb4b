// Known counts: the families of ../shared/datasets/known-families.tsv built with our own
// generators and counted by the full pipeline, plus a few constants that need no shared data.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <map>
#include <sstream>

#include "matchcount/generate.hpp"
#include "matchcount/pipeline.hpp"
#include "test_support.hpp"

using namespace matchcount;

namespace {

// Perfect matchings: a graph with unequal sides counts 0 (not its rectangular permanent).
Integer count_of(const SparseMatrix<Integer>& a) {
  CountOptions o;
  o.perfect_matchings = true;
  return std::get<Integer>(count_permanent(AnyMatrix(a), o).value.value);
}

// J - I - P: the menage problem (no one next to their spouse).
SparseMatrix<Integer> menage_matrix(int n) {
  SparseMatrix<Integer> m;
  m.rows = m.cols = n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (j != i && j != (i + 1) % n) m.entries.push_back({i, j, 1});
  return m;
}

// I + P + P^2.
SparseMatrix<Integer> circulant_matrix(int n) {
  SparseMatrix<Integer> m;
  m.rows = m.cols = n;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) m.entries.push_back({i, (i + k) % n, 1});
  m.normalize();
  for (auto& e : m.entries) e.value = 1;  // n < 3 would sum duplicates
  return m;
}

/// The key=value integers of a parameter text, and a = M, b = N from "CM x CN".
/// (Parsed by hand: GCC 12 warns inside <regex> at -O2.)
std::map<std::string, int> parameters(const std::string& text) {
  std::map<std::string, int> out;
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t used = 0;  // a value is not the next key
  for (std::size_t eq = text.find('='); eq != std::string::npos; eq = text.find('=', eq + 1)) {
    std::size_t k = eq, v = eq + 1;
    while (k > used && word(text[k - 1])) --k;
    while (v < text.size() && digit(text[v])) ++v;
    if (k < eq && v > eq + 1) out[text.substr(k, eq - k)] = std::stoi(text.substr(eq + 1, v - eq - 1)), used = v;
  }
  // "C<a> x C<b>": a torus
  for (std::size_t c = text.find('C'); c != std::string::npos; c = text.find('C', c + 1)) {
    std::size_t i = c + 1, a_end, b_from;
    while (i < text.size() && digit(text[i])) ++i;
    if (i == c + 1 || text.compare(i, 4, " x C") != 0) continue;
    a_end = i;
    b_from = i = a_end + 4;
    while (i < text.size() && digit(text[i])) ++i;
    if (i == b_from) continue;
    out["a"] = std::stoi(text.substr(c + 1, a_end - c - 1));
    out["b"] = std::stoi(text.substr(b_from, i - b_from));
    break;
  }
  return out;
}

// The instance for one row of the table, or nothing when the family is not counted here
// (non-bipartite, or too large for a test that must stay fast).
std::optional<SparseMatrix<Integer>> instance(const std::string& family, const std::string& params) {
  auto p = parameters(params);
  constexpr int kMaxGridCells = 8 * 8;  // larger grids are benchmark material
  if (family == "grid_dimers") {
    if (p["m"] * p["n"] > kMaxGridCells) return std::nullopt;
    if (p["m"] * p["n"] % 2) return std::nullopt;  // odd: no 2-colouring with equal sides
    return biadjacency(grid_graph(p["m"], p["n"]));
  }
  if (family == "aztec_diamond") return p["order"] <= 5 ? std::optional(biadjacency(aztec_diamond_graph(p["order"]))) : std::nullopt;
  if (family == "hypercube_perfect_matchings") return p["d"] <= 5 ? std::optional(biadjacency(hypercube_graph(p["d"]))) : std::nullopt;
  if (family == "torus_perfect_matchings" || family.starts_with("torus C_2k")) {
    const int a = p.count("a") ? p["a"] : p["2k"], b = p.count("b") ? p["b"] : p["2k"];
    if (a * b > 40) return std::nullopt;
    return biadjacency(torus_graph(a, b));
  }
  if (family == "C_4 x C_n perfect matchings") {
    if (p["n"] % 2 || 4 * p["n"] > 40) return std::nullopt;
    return biadjacency(torus_graph(4, p["n"]));
  }
  if (family.starts_with("prism")) {
    if (p["n"] % 2) return std::nullopt;  // odd prisms are not bipartite (a hafnian)
    return biadjacency(prism_graph(p["n"]));
  }
  if (family.starts_with("derangements")) return complete_loopless_digraph(p["n"]);
  if (family.starts_with("menage")) return menage_matrix(p["n"]);
  if (family.starts_with("perm(J_n)")) return complete_bipartite(p["n"]);
  if (family.starts_with("perm(tridiagonal")) return band_matrix(p["n"], 1);
  if (family.starts_with("perm(|i-j|<=2")) return band_matrix(p["n"], 2);
  if (family.starts_with("perm(I+P+P^2)")) return circulant_matrix(p["n"]);
  return std::nullopt;
}

}  // namespace

TEST(KnownValues, SmallConstantsWithoutSharedData) {
  EXPECT_EQ(count_of(biadjacency(grid_graph(8, 8))), Integer("12988816"));
  EXPECT_EQ(count_of(biadjacency(grid_graph(3, 3))), 0);
  EXPECT_EQ(count_of(biadjacency(hypercube_graph(4))), 272);
  EXPECT_EQ(count_of(complete_loopless_digraph(10)), 1334961);
  EXPECT_EQ(count_of(complete_bipartite(12)), 479001600);
  for (int k = 1; k <= 6; ++k) {
    Integer expected;
    mpz_ui_pow_ui(expected.get_mpz_t(), 2, static_cast<unsigned long>(k * (k + 1) / 2));
    EXPECT_EQ(count_of(biadjacency(aztec_diamond_graph(k))), expected) << "Aztec diamond " << k;
  }
  Integer a = 1, b = 1;  // tridiagonal 0-1: Fibonacci numbers
  for (int n = 1; n <= 40; ++n) {
    EXPECT_EQ(count_of(band_matrix(n, 1)), b) << n;
    Integer c = a + b;
    a = b;
    b = c;
  }
}

TEST(KnownValues, FamiliesTableFromSharedData) {
  const auto dir = test::shared_dir();
  if (!dir) GTEST_SKIP() << "../shared is absent";
  std::ifstream in(*dir + "/datasets/known-families.tsv");
  ASSERT_TRUE(in.good());
  std::string line;
  int checked = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.starts_with("family\t")) continue;
    std::istringstream fields(line);
    std::string family, params, value;
    std::getline(fields, family, '\t');
    std::getline(fields, params, '\t');
    std::getline(fields, value, '\t');
    const auto m = instance(family, params);
    if (!m) continue;
    ASSERT_EQ(count_of(*m), Integer(value)) << family << " " << params;
    ++checked;
  }
  EXPECT_GT(checked, 150);
}
