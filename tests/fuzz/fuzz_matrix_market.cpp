// Fuzz target: Matrix Market files ("%%MatrixMarket matrix ..." banner), as `matchcount FILE`
// and `--as matrix` read them, and the refusals of the graph readings (docs/fuzzing.md).
#include "read_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using matchcount::InputFormat;
  static const matchcount::fuzz::ReaderTarget target{
      {InputFormat::Auto, InputFormat::Matrix, InputFormat::Graph, InputFormat::Dimacs}, {"input.mtx", "input"}};
  matchcount::fuzz::read_and_check(data, size, target);
  return 0;
}
