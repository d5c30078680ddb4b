// Fuzz target: the whole count, not only the readers (docs/fuzzing.md). The first byte of an
// input picks the mode (--as, --hafnian, --loop-hafnian, --no-preprocess, --estimate,
// --exact, --log), the rest is the file; a first line "#Q reps 2,0,3" or "#Q tor" asks the other
// questions (--reps with the mode's hafnian flags, --torontonian) of the file after it, and a 3-D
// .npy stack is counted matrix by matrix. The input is read as the program reads it, then
// counted on the CPU with small budgets; a crash, a sanitizer report, an exception other than
// the program's own refusals, or an exact count that disagrees with brute force aborts.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <variant>

#include "matchcount/error.hpp"
#include "matchcount/estimate.hpp"
#include "matchcount/io.hpp"
#include "matchcount/multiplicity.hpp"
#include "matchcount/pipeline.hpp"

namespace matchcount::fuzz {
namespace {

struct Mode {
  InputFormat as = InputFormat::Auto;
  bool hafnian = false, loops = false, preprocess = true, estimate = false, exact = false, log = false;

  explicit Mode(std::uint8_t b) {
    static constexpr InputFormat kAs[] = {InputFormat::Auto, InputFormat::Graph, InputFormat::Bipartite,
                                          InputFormat::Digraph, InputFormat::Matrix, InputFormat::Dimacs,
                                          InputFormat::Graph, InputFormat::Auto};
    as = kAs[b & 7];
    hafnian = (b >> 3) & 1;
    loops = hafnian && ((b >> 4) & 1);
    preprocess = !((b >> 5) & 1);
    estimate = (b >> 6) & 1;
    exact = (b >> 7) & 1;
    log = !estimate && !hafnian && ((b >> 4) & 1);  // bit 4 means --log when it is not --loop-hafnian
  }
  std::string text() const {
    return "--as " + input_format_names()[static_cast<std::size_t>(as)] + (loops ? " --loop-hafnian" : hafnian ? " --hafnian" : "") +
           (preprocess ? "" : " --no-preprocess") + (estimate ? " --estimate" : "") + (exact ? " --exact" : "") +
           (log ? " --log" : "");
  }
};

[[noreturn]] void broken(const std::string& what, const Mode& mode) {
  std::fprintf(stderr, "fuzz check failed: %s\n  counted with %s\n", what.c_str(), mode.text().c_str());
  std::fflush(stderr);
  std::abort();
}

/// Small budgets: the fuzzer looks for wrong behaviour, not for long counts.
CountOptions count_options(const Mode& mode) {
  CountOptions o;
  o.preprocess = mode.preprocess;
  o.threads = 1;
  o.device = DevicePolicy::Cpu;
  o.max_work = 1e6;
  o.max_seconds = 2;
  o.max_memory = 256.0 * (1 << 20);
  o.log = mode.log;
  return o;
}

/// The count of a small square exact matrix again by brute force (no preprocessing): the same
/// text, or the fuzz check fails.
void check_against_brute(const ReadResult& r, bool hafnian, const Mode& mode, const CountReport& got) {
  if (!got.value.exact() || got.value.log) return;
  const bool exact_kind = std::holds_alternative<SparseMatrix<Integer>>(r.matrix) ||
                          std::holds_alternative<SparseMatrix<Rational>>(r.matrix);
  const int n = rows_of(r.matrix);
  if (!exact_kind || n != cols_of(r.matrix) || n > 9) return;
  CountOptions o;
  o.preprocess = false;
  o.threads = 1;
  o.device = DevicePolicy::Cpu;
  o.perfect_matchings = !r.row_names.empty();
  o.engine = hafnian ? "hafnian-brute" : "brute";
  const CountReport brute = hafnian ? count_hafnian(r.matrix, mode.loops, o) : count_permanent(r.matrix, o);
  if (brute.value.to_string() != got.value.to_string())
    broken("the count " + got.value.to_string() + " differs from brute force's " + brute.value.to_string(), mode);
}

/// The other questions: --reps (checked against the hafnian of the expanded matrix by brute
/// force where small) and --torontonian (a float with a finite, nonnegative bound).
void question(const ReadResult& r, const Mode& mode, const std::string& q) {
  CountOptions o = count_options(mode);
  if (q.rfind("reps ", 0) == 0 && mode.hafnian) {  // the program reads --reps with --hafnian
    const std::vector<std::uint64_t> rpt = parse_multiplicities(q.substr(5), "--reps");
    std::uint64_t photons = 0;
    for (auto x : rpt) photons += x;
    if (photons > 40) return;  // small patterns: the fuzzer looks for wrong behaviour
    const CountReport got = count_hafnian_repeated(r.matrix, rpt, nullptr, mode.loops, o);
    if (!got.value.exact()) {
      if (!(got.value.abs_error >= 0)) broken("a --reps float without a nonnegative error", mode);
      return;
    }
    if (photons > 10 || !std::holds_alternative<SparseMatrix<Integer>>(r.matrix)) return;
    CountOptions brute;
    brute.preprocess = false, brute.threads = 1, brute.device = DevicePolicy::Cpu, brute.engine = "hafnian-brute";
    const AnyMatrix expanded = repeat_lines(r.matrix, rpt, rpt);
    const CountReport want = count_hafnian(expanded, mode.loops, brute);
    if (want.value.to_string() != got.value.to_string())
      broken("--reps " + q.substr(5) + " gives " + got.value.to_string() + ", the expansion " + want.value.to_string(), mode);
  } else if (q == "tor") {
    if (rows_of(r.matrix) > 16) return;
    const CountReport got = count_torontonian(r.matrix, nullptr, o);
    if (!(got.value.abs_error >= 0) || !std::isfinite(got.value.abs_error))
      broken("a torontonian without a finite bound", mode);
  }
}

void count(const ReadResult& r, const Mode& mode) {
  if (r.is_stack) {  // each matrix of a 3-D .npy stack on its own, as the program counts them
    for (std::size_t i = 0; i < r.stack.size() && i < 8; ++i) {
      ReadResult one = r;
      one.is_stack = false, one.stack.clear(), one.matrix = r.stack[i];
      count(one, mode);
    }
    return;
  }
  const bool hafnian = mode.hafnian || r.symmetric_graph;
  if (mode.estimate) {
    EstimateOptions e;
    e.perfect_matchings = !r.row_names.empty();
    e.samples = 64;
    e.max_seconds = 0.5;
    e.threads = 1;
    e.device = DevicePolicy::Cpu;
    e.max_memory = 256.0 * (1 << 20);
    const EstimateReport est = hafnian ? estimate_hafnian(r.matrix, mode.loops, e) : estimate_permanent(r.matrix, e);
    (void)est;
    return;
  }
  CountOptions o = count_options(mode);
  o.perfect_matchings = !r.row_names.empty();
  if (hafnian) o.vertex_names = r.row_names;
  const CountReport report = hafnian ? count_hafnian(r.matrix, mode.loops, o) : count_permanent(r.matrix, o);
  if (report.value.exact() && report.value.to_string().find_first_not_of("-0123456789/") != std::string::npos)
    broken("an exact value prints as " + report.value.to_string(), mode);
  if (!report.value.exact() && !report.value.log && !(report.value.abs_error >= 0))
    broken("a float value without a nonnegative error bound", mode);
  check_against_brute(r, hafnian, mode, report);
}

}  // namespace
}  // namespace matchcount::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace matchcount;
  if (size < 1 || size > 4096) return 0;  // small inputs: every one is counted
  const fuzz::Mode mode(data[0]);
  std::string text(reinterpret_cast<const char*>(data) + 1, size - 1), question;
  if (text.rfind("#Q ", 0) == 0) {  // another question, then the file
    const std::size_t eol = text.find('\n');
    question = text.substr(3, eol == std::string::npos ? std::string::npos : eol - 3);
    text = eol == std::string::npos ? std::string() : text.substr(eol + 1);
  }
  std::istringstream in(text);
  ReadOptions read;
  read.as = mode.as;
  read.exact = mode.exact;
  read.hafnian = mode.hafnian;
  read.loops = mode.loops;
  read.max_memory = 256.0 * (1 << 20);
  read.max_seconds = 5;
  try {
    const ReadResult r = read_input(in, "input", read);
    // The program refuses these combinations before counting (apps/cli_main.cpp).
    if (mode.hafnian && (mode.as == InputFormat::Bipartite || mode.as == InputFormat::Digraph)) return 0;
    if (mode.hafnian && !r.symmetric_graph && !r.row_names.empty()) return 0;
    if (!question.empty()) {
      if (!r.is_stack && !mode.estimate && !mode.log) fuzz::question(r, mode, question);
      return 0;
    }
    fuzz::count(r, mode);
  } catch (const InputError& e) {
    if (std::string(e.what()).find_first_of("\n\r") != std::string::npos) fuzz::broken("a message of two lines", mode);
  } catch (const RefusedError&) {  // budgets and limits, BudgetError included
  } catch (const UsageError&) {    // e.g. --log of complex values
  } catch (const std::exception& e) {
    fuzz::broken(std::string("unexpected exception: ") + e.what(), mode);
  }
  return 0;
}
