// The literature's real matrices (../shared/datasets/matrices) against the exact permanents
// of ../shared/datasets/values.tsv, read as their headers say. Cases whose blocks left after
// preprocessing would take more than a few seconds are skipped with the predicted work.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "matchcount/error.hpp"
#include "matchcount/io.hpp"
#include "matchcount/pipeline.hpp"
#include "test_support.hpp"

using namespace matchcount;

TEST(SharedMatrices, ExactValuesFromValuesTable) {
  const auto dir = test::shared_dir();
  if (!dir) GTEST_SKIP() << "../shared is absent";
  std::ifstream in(*dir + "/datasets/values.tsv");
  ASSERT_TRUE(in.good());
  std::string line;
  int checked = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.starts_with("file\t")) continue;
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string x; std::getline(fields, x, '\t');) f.push_back(x);
    ASSERT_EQ(f.size(), 5u) << line;
    if (f[4] == "UNKNOWN") continue;
    ReadOptions ro;
    ro.exact = true;  // the table holds exact values of the decimals as written
    const ReadResult r = read_input(*dir + "/datasets/" + f[0], ro);
    EXPECT_EQ(std::to_string(rows_of(r.matrix)), f[1]) << f[0];
    EXPECT_EQ(std::to_string(nnz_of(r.matrix)), f[2]) << f[0];
    CountOptions co;
    co.max_work = 4e10;  // about 5 s predicted on 2 cores: room for mesh1e1's exact frontier DP
    try {
      const CountReport c = count_permanent(r.matrix, co);
      if (c.value.exact()) {
        EXPECT_EQ(c.value.to_string(), f[4]) << f[0];
        ++checked;
      }
    } catch (const RefusedError& e) {
      std::cout << "[ skipped  ] " << f[0] << ": " << e.what() << "\n";
    }
  }
  // All known values but complex.mtx (complex entries count in floating point): the all-0.91
  // matrices (dense.mtx, world_record_62.mtx) by the repeated-lines engine, mesh1e1 and
  // mycielskian6 by the frontier DP, the rest after preprocessing.
  EXPECT_GE(checked, 10);
}
