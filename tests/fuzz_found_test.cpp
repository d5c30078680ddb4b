// Inputs the fuzz targets (tests/fuzz, docs/fuzzing.md) found to break a reader or the
// checkpoint file, each kept as a regression test once fixed.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "io_helpers.hpp"

// The whole-count fuzz target (tests/fuzz/fuzz_count.cpp, linked into the tests): aborts on a
// failed check.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace matchcount {
namespace {

using namespace iotest;

/// The message of the InputError that reading `data` throws (empty when none is thrown).
std::string input_error(const std::string& data, const std::string& name) {
  try {
    read_text(data, name);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A .npy header is text of any byte but NUL; a key or dtype quoted in a message kept its
// newlines, so the one-line message of an InputError broke in two. Escaped as \xNN now.
TEST(FuzzFound, NpyHeaderTextInMessagesStaysOneLine) {
  const std::string magic = std::string("\x93NUMPY\x01\x00", 8);
  for (const std::string& dict : {std::string("{'fortran_ord\n\rer': False}"), std::string("{'descr': '<i\n8'}")}) {
    std::string header = dict;
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    const std::string data = magic + static_cast<char>(header.size()) + '\0' + header;
    const std::string message = input_error(data, "a.npy");
    ASSERT_FALSE(message.empty()) << dict;
    EXPECT_EQ(message.find_first_of("\n\r"), std::string::npos) << message;
    EXPECT_NE(message.find("\\x0a"), std::string::npos) << message;
  }
}

// A networkx attribute dict is quoted whole in its error, tabs and CRs inside it included.
TEST(FuzzFound, AttributeDictInMessagesStaysOneLine) {
  const std::string message = input_error("0 1 {'weight'\r 2}\n", "in.txt");
  ASSERT_FALSE(message.empty());
  EXPECT_EQ(message.find_first_of("\n\r"), std::string::npos) << message;
  EXPECT_NE(message.find("malformed attribute dict '{'weight'\\x0d 2}'"), std::string::npos) << message;
}

// The whole-count target's seeds and the inputs it found (a crash aborts the test binary):
// inputs without a perfect matching once crashed the hafnian path (issue 32).
TEST(FuzzFound, CountCorpusReplays) {
  const std::filesystem::path dir = std::filesystem::path(MATCHCOUNT_SOURCE_DIR) / "tests/fuzz/corpus/count";
  int inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    SCOPED_TRACE(entry.path().filename().string());
    EXPECT_EQ(LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(data.data()), data.size()), 0);
    ++inputs;
  }
  EXPECT_GE(inputs, 10);
}

}  // namespace
}  // namespace matchcount
