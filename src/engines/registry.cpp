// The engine registry and the default choice of engine for a block.
#include "common.hpp"

namespace matchcount {

std::vector<std::string> engine_names() { return {"ryser", "sparyser", "skipper", "brute"}; }

std::unique_ptr<Engine> make_engine(std::string_view name) {
  if (name == "ryser") return engines::make_ryser();
  if (name == "sparyser") return engines::make_sparyser();
  if (name == "skipper") return engines::make_skipper();
  if (name == "brute") return engines::make_brute();
  throw UsageError("unknown engine '" + std::string(name) + "' (choose ryser, sparyser, skipper or brute)");
}

std::string choose_engine(int n, std::size_t nnz, NumberKind kind) {
  (void)kind;
  // TODO(measurements): see the comment in the report.
  double density = n > 0 ? double(nnz) / (double(n) * double(n)) : 1.0;
  if (n <= 16 || density >= 0.3) return "ryser";
  return "skipper";
}

}  // namespace matchcount
