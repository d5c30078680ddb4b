// A downstream program on the installed library alone: every public header compiles on its own
// include path (none reaches an internal one), and the 6x6 grid has 6728 perfect matchings,
// counted through the pipeline; C60's 12500 perfect matchings through the hafnian path.
#include <iostream>

#include "matchcount/checkpoint.hpp"
#include "matchcount/cluster.hpp"
#include "matchcount/decompose.hpp"
#include "matchcount/engine.hpp"
#include "matchcount/error.hpp"
#include "matchcount/estimate.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/gpu.hpp"
#include "matchcount/graph_matching.hpp"
#include "matchcount/io.hpp"
#include "matchcount/matching.hpp"
#include "matchcount/matrix.hpp"
#include "matchcount/multiplicity.hpp"
#include "matchcount/pipeline.hpp"
#include "matchcount/reduce.hpp"
#include "matchcount/report.hpp"
#include "matchcount/tuning.hpp"
#include "matchcount/value.hpp"

int main() {
  using namespace matchcount;
  const CountReport r = count_permanent(AnyMatrix(biadjacency(grid_graph(6, 6))));
  std::cout << r.value.to_string() << "\n";
  bool ok = r.value.to_string() == "6728";
  for (const EngineInfo& e : engine_catalog()) ok = ok && !e.name.empty();
  const CountReport c60 = count_hafnian(AnyMatrix(adjacency_matrix(c60_graph())), false);
  ok = ok && c60.value.to_string() == "12500" && edmonds_matching(GraphPattern::of(adjacency_matrix(c60_graph()))).perfect();
  return ok ? 0 : 1;
}
