// All matchings of a graph, not only the perfect ones (issue "All matchings"): the weighted
// number of matchings with a monomer weight on every unmatched vertex, and the matching
// polynomial. A first step: counted exactly through loop hafnians (src/pipeline/matchings.cpp);
// the command line and the Python package do not offer it yet.
#pragma once

#include <vector>

#include "matchcount/matrix.hpp"
#include "matchcount/pipeline.hpp"
#include "matchcount/value.hpp"

namespace matchcount {

/// The sum over the matchings M of the graph whose symmetric adjacency matrix is `a` (both
/// triangles stored; the diagonal must be empty) of prod_{e in M} a_e times y^(unmatched
/// vertices), y = `monomer_weight`: the monomer-dimer partition function Z(1, y), and with y = 1
/// the number of all matchings (the Hosoya index) of an unweighted graph. It is the loop
/// hafnian of `a` with y on its diagonal (a vertex covered by its loop is a monomer), counted by
/// count_hafnian. Integer and rational weights give exact values. std::invalid_argument for a
/// matrix that is not square and symmetric or has diagonal entries.
PermanentValue count_matchings(const AnyMatrix& a, const PermanentValue& monomer_weight, const CountOptions& options = {});

/// The coefficients m_0, m_1, ..., m_{floor(n/2)} of the matching polynomial: m_k is the sum over
/// the matchings of k edges of the product of their weights (the number of k-matchings of an
/// unweighted graph). Exact integer or rational weights only (UsageError for floats, for now):
/// the loop hafnians of the graph with its edges scaled by x = 0 .. floor(n/2) and loops 1, then
/// exact interpolation.
std::vector<PermanentValue> matching_polynomial(const AnyMatrix& a, const CountOptions& options = {});

}  // namespace matchcount
