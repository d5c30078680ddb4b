// Fuzz target: edge lists (plain, weighted, networkx attribute dicts, KONECT headers) read as
// `matchcount FILE` does and with --as bipartite, graph and digraph (docs/fuzzing.md).
#include "read_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using matchcount::InputFormat;
  static const matchcount::fuzz::ReaderTarget target{
      {InputFormat::Auto, InputFormat::Bipartite, InputFormat::Graph, InputFormat::Digraph}, {"input.edges"}};
  matchcount::fuzz::read_and_check(data, size, target);
  return 0;
}
