// Private to the planners: the band the planar engines (kasteleyn, pfaffian) would eliminate
// in, estimated before any planarity test. A Boyer-Myrvold embedding test is linear but heavy
// (Boost's graph and embedding take far more memory per edge than the block), so the planners
// run it only when the engine, planar or not, could fit the memory budget and beat the other
// engines; these estimates, from a Cuthill-McKee order on light adjacency lists, decide that.
#pragma once

#include <utility>
#include <vector>

#include "engines/kasteleyn/kasteleyn.hpp"
#include "engines/pfaffian/pfaffian.hpp"

namespace matchcount::catalog {

/// The Kasteleyn plan the engine would make for the n x n pattern if its graph were planar
/// (planar is set): bands of the better of the natural and a Cuthill-McKee order (rows and
/// columns numbered separately), the elimination's work and one working matrix's bytes. The
/// engine orders by Boost's reverse Cuthill-McKee, whose band is about the same.
engines::KasteleynPlan estimated_kasteleyn(const engines::PatternRC& pattern, int n);

/// The same for the Pfaffian engine and a symmetric pattern (each edge both ways, no diagonal).
engines::PfaffianPlan estimated_pfaffian(const std::vector<std::pair<int, int>>& pattern, int n);

}  // namespace matchcount::catalog
