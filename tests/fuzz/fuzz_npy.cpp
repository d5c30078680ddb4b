// Fuzz target: NumPy .npy arrays (binary), as `matchcount FILE`, --as npy and --as matrix read
// them, and the refusal of the graph readings (docs/fuzzing.md).
#include "read_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using matchcount::InputFormat;
  static const matchcount::fuzz::ReaderTarget target{
      {InputFormat::Auto, InputFormat::Npy, InputFormat::Matrix, InputFormat::Graph}, {"input.npy"}};
  matchcount::fuzz::read_and_check(data, size, target);
  return 0;
}
