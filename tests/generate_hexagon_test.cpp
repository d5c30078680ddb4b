// The hexagon family (lozenge tilings) against MacMahon's formula through the count API, the
// lattices' coordinates, the edge-list writer with names, and matchcount-generate --names.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "generate_helpers.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/io.hpp"
#include "matchcount/pipeline.hpp"
#include "test_support.hpp"

using namespace matchcount;

namespace {

/// prod_{i<=a, j<=b, k<=c} (i+j+k-1)/(i+j+k-2).
Integer macmahon(int a, int b, int c) {
  Rational q = 1;
  for (int i = 1; i <= a; ++i)
    for (int j = 1; j <= b; ++j)
      for (int k = 1; k <= c; ++k) q *= Rational(i + j + k - 1, i + j + k - 2);
  q.canonicalize();
  EXPECT_EQ(q.get_den(), 1);
  return q.get_num();
}

Integer perfect_matchings(const EdgeList& g) {
  CountOptions o;
  o.perfect_matchings = true;
  return std::get<Integer>(count_permanent(AnyMatrix(biadjacency(g)), o).value.value);
}

ReadResult read_graph(const std::string& text) {
  std::istringstream in(text);
  ReadOptions o;
  o.as = InputFormat::Graph;
  return read_input(in, "g.edges", o);
}

Integer count_read(const ReadResult& r) {
  CountOptions o;
  o.perfect_matchings = true;
  return std::get<Integer>(count_permanent(r.matrix, o).value.value);
}

struct Generated {
  int exit_code = -1;
  std::string out;
};

Generated generate(const std::string& args) {
  const auto bin = std::filesystem::path(MATCHCOUNT_BINARY).parent_path() / "matchcount-generate";
  Generated g;
  if (!std::filesystem::exists(bin)) return g;
  const std::string out = test::temp_file("", ".out");
  const int status = std::system(("'" + bin.string() + "' " + args + " >'" + out + "' 2>/dev/null").c_str());
  g.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream o(out);
  std::stringstream so;
  so << o.rdbuf();
  g.out = so.str();
  std::filesystem::remove(out);
  return g;
}

}  // namespace

TEST(GenerateHexagon, LozengeTilingsFollowMacMahon) {
  EXPECT_EQ(macmahon(2, 2, 2), 20);
  EXPECT_EQ(macmahon(3, 3, 3), 980);
  for (auto [a, b, c] : std::vector<std::tuple<int, int, int>>{
           {1, 1, 1}, {2, 2, 2}, {3, 3, 3}, {2, 3, 4}, {4, 4, 4}, {1, 5, 3}, {5, 2, 1}, {0, 3, 5}, {4, 5, 6}}) {
    const EdgeList g = hexagon_graph(a, b, c);
    EXPECT_EQ(g.vertices, 2 * (a * b + b * c + c * a)) << a << b << c;
    gentest::expect_simple(g);
    EXPECT_EQ(perfect_matchings(g), macmahon(a, b, c)) << a << " " << b << " " << c;
  }
  EXPECT_EQ(hexagon_graph(0, 0, 7).vertices, 0);
  EXPECT_THROW(hexagon_graph(-1, 2, 2), UsageError);
  EXPECT_THROW(hexagon_graph(100000, 100000, 1), RefusedError);
}

TEST(GenerateHexagon, CoordinatesFollowTheTriangularLatticeConvention) {
  const int a = 3, b = 2, c = 4;
  const EdgeList g = hexagon_graph(a, b, c);
  const auto rc = hexagon_coordinates(a, b, c);
  ASSERT_EQ(rc.size(), static_cast<std::size_t>(g.vertices));
  EXPECT_TRUE(std::is_sorted(rc.begin(), rc.end()));  // reading order
  const std::set<std::pair<int, int>> distinct(rc.begin(), rc.end());
  EXPECT_EQ(distinct.size(), rc.size());
  int min_row = 1 << 30, min_col = 1 << 30, max_row = 0, up = 0;
  for (auto [r, col] : rc) min_row = std::min(min_row, r), min_col = std::min(min_col, col), max_row = std::max(max_row, r), up += col & 1;
  EXPECT_EQ(min_row, 0);
  EXPECT_EQ(max_row, b + c - 1);
  EXPECT_TRUE(min_col == 0 || min_col == 1);
  EXPECT_EQ(up, g.vertices / 2);  // as many up- as down-pointing triangles
  for (auto [u, v] : g.edges) {
    auto p = rc[static_cast<std::size_t>(u)], q = rc[static_cast<std::size_t>(v)];
    if (q < p) std::swap(p, q);
    const bool along = p.first == q.first && q.second == p.second + 1;
    const bool across = q.first == p.first + 1 && q.second == p.second - 1 && (p.second & 1);
    EXPECT_TRUE(along || across) << p.first << "," << p.second << " " << q.first << "," << q.second;
  }
  // Every pair of neighbouring triangles inside is an edge: 3 per up triangle less the boundary.
  std::set<std::pair<int, int>> cells(rc.begin(), rc.end());
  std::size_t pairs = 0;
  for (auto [r, col] : rc) pairs += cells.count({r, col + 1}) + ((col & 1) ? cells.count({r + 1, col - 1}) : 0);
  EXPECT_EQ(pairs, g.edges.size());
}

TEST(GenerateHexagon, LatticeCoordinates) {
  const auto grid = grid_coordinates(3, 5);
  for (int v = 0; v < 15; ++v) EXPECT_EQ(grid[static_cast<std::size_t>(v)], (std::pair<int, int>{v / 5, v % 5}));
  const EdgeList aztec = aztec_diamond_graph(4);
  const auto rc = aztec_diamond_coordinates(4);
  ASSERT_EQ(rc.size(), static_cast<std::size_t>(aztec.vertices));
  EXPECT_TRUE(std::is_sorted(rc.begin(), rc.end()));
  for (auto [u, v] : aztec.edges) {
    const auto p = rc[static_cast<std::size_t>(u)], q = rc[static_cast<std::size_t>(v)];
    EXPECT_EQ(std::abs(p.first - q.first) + std::abs(p.second - q.second), 1);
  }
  EXPECT_EQ(rc.front(), (std::pair<int, int>{0, 3}));  // the top row's two squares, columns 3, 4
  EXPECT_EQ(coordinate_names({{0, 3}, {12, -1}}), (std::vector<std::string>{"0,3", "12,-1"}));
}

TEST(GenerateHexagon, EdgeListsWithNamesReadBack) {
  const EdgeList g = hexagon_graph(2, 2, 2);
  std::ostringstream out;
  write_edge_list(out, g, "hexagon", coordinate_names(hexagon_coordinates(2, 2, 2)));
  EXPECT_NE(out.str().find("\n0,3 0,4\n0,3 1,2\n"), std::string::npos) << out.str();
  const ReadResult r = read_graph(out.str());
  EXPECT_EQ(r.row_names.size() + r.col_names.size(), 24u);
  EXPECT_EQ(count_read(r), 20);
  const EdgeList edge{2, {{0, 1}}};
  std::ostringstream sink;
  EXPECT_THROW(write_edge_list(sink, edge, "", {"a"}), UsageError);
  EXPECT_THROW(write_edge_list(sink, edge, "", {"a", "a"}), UsageError);
  EXPECT_THROW(write_edge_list(sink, edge, "", {"a", "b c"}), UsageError);
  EXPECT_THROW(write_edge_list(sink, edge, "", {"#a", "b"}), UsageError);
  EXPECT_THROW(write_edge_list(sink, edge, "", {"(0, 1)", "b"}), UsageError);
  EXPECT_TRUE(sink.str().empty());  // refused before anything is written
}

TEST(GenerateHexagon, ProgramWritesCoordinateNames) {
  if (generate("--help").exit_code < 0) GTEST_SKIP() << "matchcount-generate is not built";
  const Generated hex = generate("hexagon 3 3 3 --names coordinates");
  ASSERT_EQ(hex.exit_code, 0);
  EXPECT_NE(hex.out.find("generated by: matchcount-generate hexagon 3 3 3 --names coordinates\n"), std::string::npos);
  EXPECT_EQ(count_read(read_graph(hex.out)), 980);
  EXPECT_EQ(count_read(read_graph(generate("hexagon 3 3 3").out)), 980);
  const Generated grid = generate("grid 2 3 --names coordinates");
  ASSERT_EQ(grid.exit_code, 0);
  EXPECT_NE(grid.out.find("\n0,0 0,1\n"), std::string::npos) << grid.out;
  EXPECT_EQ(count_read(read_graph(grid.out)), 3);
  for (const char* lattice : {"aztec 3", "triangular 2 4", "king 3 3 --periodic-x"})
    EXPECT_EQ(generate(std::string(lattice) + " --names coordinates").exit_code, 0) << lattice;
  EXPECT_EQ(generate("grid 2 3 --names coordinates --format mtx").exit_code, 2);
  EXPECT_EQ(generate("petersen --names coordinates").exit_code, 2);  // no coordinates to give
  EXPECT_EQ(generate("grid 2 3 --names numbers").exit_code, 2);
}
