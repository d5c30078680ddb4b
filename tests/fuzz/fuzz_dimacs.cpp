// Fuzz target: DIMACS graphs ('p edge N M', 'e U V'), recognised by `matchcount FILE` and read
// with --as dimacs and --as graph, and refused by --as digraph (docs/fuzzing.md).
#include "read_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using matchcount::InputFormat;
  static const matchcount::fuzz::ReaderTarget target{
      {InputFormat::Auto, InputFormat::Dimacs, InputFormat::Graph, InputFormat::Digraph}, {"input.col"}};
  matchcount::fuzz::read_and_check(data, size, target);
  return 0;
}
