// Helpers shared by the estimation tests: every method, and exact permanents to compare with.
#pragma once

#include <variant>

#include "matchcount/estimate.hpp"
#include "matchcount/matrix.hpp"
#include "matchcount/pipeline.hpp"

namespace matchcount::esttest {

inline constexpr EstimateMethod kMethods[] = {EstimateMethod::Rasmussen, EstimateMethod::RasmussenPlus,
                                              EstimateMethod::Scaling, EstimateMethod::ScalingPlus};

inline double exact_permanent(const SparseMatrix<double>& a) {
  CountOptions o;
  o.device = DevicePolicy::Cpu;
  return std::get<double>(count_permanent(AnyMatrix(a), o).value.value);
}

inline SparseMatrix<double> as_double(const SparseMatrix<Integer>& a) {
  return convert<double>(a, [](const Integer& v) { return v.get_d(); });
}

}  // namespace matchcount::esttest
