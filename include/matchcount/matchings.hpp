// All matchings of a graph, not only the perfect ones (`matchcount --matchings`): the weighted
// number of matchings with a monomer weight on every unmatched vertex, and the matching
// polynomial, counted through loop hafnians (src/pipeline/matchings.cpp).
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

/// The all-matchings question as a report (--matchings): count_hafnian's report of the loop
/// hafnian behind count_matchings (its engines, structure and timings), quantity "matchings",
/// the graph's own size, and with `polynomial` the coefficients of matching_polynomial.
CountReport count_matchings_report(const AnyMatrix& a, const PermanentValue& monomer_weight, bool polynomial,
                                   const CountOptions& options = {});

}  // namespace matchcount
