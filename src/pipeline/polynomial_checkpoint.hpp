// Private to the pipeline: the checkpoint of `--matchings --polynomial` (matchings.cpp). The
// polynomial is counted in pieces, each a slot of the checkpoint: for each of
// the two passes a float polynomial makes (the values and the moduli of its bound; exact ones
// make one) and each component of the graph, the component's whole polynomial and its
// interpolation points Z(1) .. Z(k). A piece saved is not counted again on resuming, and a stop
// asked for (SIGINT, SIGTERM) takes effect between pieces.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "matchcount/checkpoint.hpp"
#include "matchcount/pipeline.hpp"

namespace matchcount::detail {

class PolynomialCheckpoint {
 public:
  /// Opens `checkpoint` (none: every call below does nothing) for the graph `a` with monomer
  /// weight `y`: the slots are numbered from what the graph alone fixes (its components).
  PolynomialCheckpoint(Checkpoint* checkpoint, const AnyMatrix& a, const PermanentValue& y, CountReport& report);
  bool active() const { return checkpoint_ != nullptr; }
  /// The next `count` slots, in the order the pieces are met (the same on every run).
  std::size_t take(std::size_t count);
  /// Starts the pass of the moduli (float polynomials' bound): its slots follow the values'.
  void second_pass();
  std::optional<std::vector<Rational>> saved(std::size_t slot) const;
  /// Records a piece; throws Interrupted when a stop was asked for.
  void save(std::size_t slot, const std::vector<Rational>& values);
  /// The count is complete: the file is removed, the resume summary goes into the report.
  void finish(CountReport& report);

 private:
  Checkpoint* checkpoint_ = nullptr;
  std::size_t pass_slots_ = 0, next_ = 1;
};

}  // namespace matchcount::detail
