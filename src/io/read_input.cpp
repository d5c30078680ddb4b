// read_input: opens the input and picks the reader.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "reader_impl.hpp"

namespace matchcount {

ReadResult read_input(std::istream& in, const std::string& name, const ReadOptions& options) {
  using namespace io_detail;
  LineReader reader(in, name);
  std::string_view first;
  bool banner = false;
  if (reader.next(first)) {
    banner = is_matrix_market_banner(first);
    reader.push_back();
  }
  ReadResult result;
  switch (options.as) {
    case InputFormat::Auto:
      if (banner) read_matrix_market(reader, options, result);
      else if (iends_with(name, ".mtx")) read_bannerless_coordinate(reader, options, result);
      else read_edge_list(reader, InputFormat::Auto, options, result);
      break;
    case InputFormat::Matrix:
      if (banner) read_matrix_market(reader, options, result);
      else read_bannerless_coordinate(reader, options, result);
      break;
    case InputFormat::Bipartite:
    case InputFormat::Graph:
    case InputFormat::Digraph:
      if (banner)
        reader.fail_at(1, "a Matrix Market file is a matrix, not an edge list (read it as a matrix)");
      read_edge_list(reader, options.as, options, result);
      break;
  }
  return result;
}

ReadResult read_input(const std::string& path, const ReadOptions& options) {
  if (path == "-") return read_input(std::cin, "<stdin>", options);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, 0, "cannot open: Is a directory");
  errno = 0;
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    const int err = errno;
    throw InputError(path, 0, std::string("cannot open") + (err != 0 ? std::string(": ") + std::strerror(err) : ""));
  }
  return read_input(file, path, options);
}

}  // namespace matchcount
