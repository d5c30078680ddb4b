// Fuzz target: SUPerman's banner-less coordinate files ('rows cols nnz', then 'i j v' lines),
// recognised by their shape or a ".mtx" name, or read with --as matrix (docs/fuzzing.md).
#include "read_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using matchcount::InputFormat;
  static const matchcount::fuzz::ReaderTarget target{{InputFormat::Auto, InputFormat::Matrix},
                                                     {"input", "input.mtx", "INPUT.MTX"}};
  matchcount::fuzz::read_and_check(data, size, target);
  return 0;
}
