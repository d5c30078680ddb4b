// Counts the perfect matchings of the 6x6 grid through the installed library: 6728.
#include <iostream>

#include "matchcount/generate.hpp"
#include "matchcount/pipeline.hpp"

int main() {
  using namespace matchcount;
  const CountReport r = count_permanent(AnyMatrix(biadjacency(grid_graph(6, 6))));
  std::cout << r.value.to_string() << "\n";
  return r.value.to_string() == "6728" ? 0 : 1;
}
