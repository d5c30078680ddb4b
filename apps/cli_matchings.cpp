// --matchings (cli_matchings.hpp): the option group, its usage errors, the graph of the input
// and the monomer weight as a number.
#include "cli_matchings.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <variant>

#include "matchcount/error.hpp"
#include "matchcount/matchings.hpp"

namespace matchcount::cli {
namespace {

/// An integer, a fraction p/q, or a decimal (exact with --exact, else a double).
PermanentValue monomer_weight_of(const std::string& text, bool exact) {
  PermanentValue v;
  if (text.empty()) return v.value = Integer(1), v;
  const auto bad = [&] { return UsageError("--monomer-weight: not a number: '" + text + "'"); };
  std::size_t i = text[0] == '-' || text[0] == '+' ? 1 : 0;
  const bool digits = i < text.size() && text.find_first_not_of("0123456789", i) == std::string::npos;
  try {
    if (digits) return v.value = Integer(text[0] == '+' ? text.substr(1) : text), v;
    if (const auto slash = text.find('/'); slash != std::string::npos) {
      Rational q(text[0] == '+' ? text.substr(1) : text);
      if (q.get_den() == 0) throw bad();
      q.canonicalize();
      return v.value = q, v;
    }
  } catch (const std::invalid_argument&) {
    throw bad();
  }
  std::size_t used = 0;
  double x = 0;
  try {
    x = std::stod(text, &used);
  } catch (const std::exception&) {
    throw bad();
  }
  if (used != text.size() || !std::isfinite(x)) throw bad();
  if (!exact) return v.value = x, v;
  // The decimal exactly: its digits over a power of ten (digits, one dot, an exponent only).
  if (text.find_first_not_of("+-0123456789.eE") != std::string::npos) throw bad();
  try {
    const std::size_t e = text.find_first_of("eE");
    std::string mantissa = text.substr(0, e);
    long exponent = e == std::string::npos ? 0 : std::stol(text.substr(e + 1));
    if (const auto dot = mantissa.find('.'); dot != std::string::npos) {
      exponent -= static_cast<long>(mantissa.size() - dot - 1);
      mantissa.erase(dot, 1);
    }
    if (!mantissa.empty() && mantissa[0] == '+') mantissa.erase(0, 1);
    if (std::labs(exponent) > 100000) throw bad();
    Rational q{Integer(mantissa)};
    Integer ten;
    mpz_ui_pow_ui(ten.get_mpz_t(), 10, static_cast<unsigned long>(std::labs(exponent)));
    q = exponent >= 0 ? Rational(q * ten) : Rational(q / ten);
    q.canonicalize();
    return v.value = q, v;
  } catch (const std::invalid_argument&) {
    throw bad();
  } catch (const std::out_of_range&) {
    throw bad();
  }
}

}  // namespace

void add_matchings_options(CLI::App& app, MatchingsFlags& flags) {
  auto* g = app.add_option_group("All matchings", "matchings of every size, not only the perfect ones");
  g->add_flag("--matchings", flags.matchings,
              "print the number of all matchings of the graph (the empty one included; the Hosoya index), "
              "weighted by its edges' weights; a matrix counts the partial permutations (rook numbers)");
  g->add_flag("--polynomial", flags.polynomial,
              "with --matchings: print the matching polynomial's coefficients, one 'k m_k' a line (m_k: "
              "the matchings of k edges), exactly, or for float weights as doubles with a bound");
  g->add_option("--monomer-weight", flags.monomer_weight,
                "with --matchings: each unmatched vertex weighs Y (the monomer-dimer partition function; "
                "default 1)")
      ->type_name("Y");
}

void check_matchings(const MatchingsFlags& flags, const ReadOptions& read, bool estimate, bool lines_repeated, bool pattern,
                     bool torontonian, bool stack) {
  if (!flags.matchings) {
    if (flags.polynomial) throw UsageError("--polynomial gives the matching polynomial: it needs --matchings");
    if (!flags.monomer_weight.empty()) throw UsageError("--monomer-weight weighs unmatched vertices: it needs --matchings");
    return;
  }
  if (flags.polynomial && !flags.monomer_weight.empty())
    throw UsageError("--polynomial's coefficients m_k do not depend on the monomer weight; --monomer-weight does not apply");
  if (read.hafnian) throw UsageError("--matchings is a question of its own: --hafnian/--loop-hafnian do not apply");
  if (torontonian) throw UsageError("--matchings and --torontonian are different questions");
  if (estimate) throw UsageError("--matchings counts exactly; --estimate does not apply (yet)");
  if (lines_repeated || pattern) throw UsageError("--matchings takes the graph as it is; --reps/--row-mult/--col-mult do not apply");
  if (stack) throw UsageError("--matchings does not apply to a stack of matrices");
  if (read.as == InputFormat::Digraph)
    throw UsageError("--matchings counts the matchings of undirected graphs; --as digraph reads a digraph");
}

AnyMatrix matchings_graph(const ReadResult& input) {
  if (input.symmetric_graph) return input.matrix;
  // The bipartite graph of rows r and columns c: vertices 0..r-1 and r..r+c-1.
  return std::visit(
      [](const auto& b) -> AnyMatrix {
        using T = std::decay_t<decltype(b.entries[0].value)>;
        SparseMatrix<T> g{b.rows + b.cols, b.rows + b.cols, {}};
        for (const auto& e : b.entries) {
          g.entries.push_back({e.row, b.rows + e.col, e.value});
          g.entries.push_back({b.rows + e.col, e.row, e.value});
        }
        g.normalize();
        return g;
      },
      input.matrix);
}

CountReport count_matchings_of(const MatchingsFlags& flags, const ReadResult& input, const ReadOptions& read,
                               const CountOptions& count) {
  return count_matchings_report(matchings_graph(input), monomer_weight_of(flags.monomer_weight, read.exact), flags.polynomial,
                                count);
}

void print_polynomial(const CountReport& report, std::ostream& out, std::ostream& err) {
  double worst = 0;
  std::size_t at = 0;
  bool floats = false, complex = false;  // complex weights have no exact mode to suggest
  for (std::size_t k = 0; k < report.polynomial.size(); ++k) {
    const PermanentValue& c = report.polynomial[k];
    out << k << " " << c.to_string() << "\n";
    if (c.value.index() < 2) continue;
    floats = true;
    complex = complex || c.value.index() == 3;
    const double size = c.value.index() == 2 ? std::abs(std::get<double>(c.value)) : std::abs(std::get<Complex>(c.value));
    const double rel = c.abs_error / std::max(size, 0x1p-1074);
    if (rel > worst) worst = rel, at = k;
  }
  if (!floats) return;
  char line[200];
  std::snprintf(line, sizeof line,
                "matchcount: note: the coefficients are doubles, each within its bound (--json: \"polynomial_errors\"); the "
                "largest relative bound is %.3g (m_%zu)%s\n",
                worst, at, complex ? "" : "; --exact gives them exactly");
  err << line;
}

}  // namespace matchcount::cli
