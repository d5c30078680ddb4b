// The questions of one block (one_block.hpp).
#include "pipeline/one_block.hpp"

#include <sstream>
#include <string>

#include "core/hashing.hpp"
#include "pipeline/resume.hpp"

namespace matchcount::detail {

OneBlockCheckpoint::OneBlockCheckpoint(Checkpoint* checkpoint, std::uint64_t seed,
                                       std::initializer_list<const AnyMatrix*> matrices, std::uint64_t max_bytes,
                                       CountReport& report)
    : checkpoint_(checkpoint) {
  if (!checkpoint_) return;
  std::uint64_t h = seed;
  for (const AnyMatrix* m : matrices) {
    if (!m) continue;
    std::visit(
        [&](const auto& s) {
          std::ostringstream text;  // the entries as written, 17 digits: bit for bit
          text.precision(17);
          text << s.rows << "x" << s.cols << ";";
          for (const auto& e : s.entries) text << e.row << "," << e.col << "," << e.value << ";";
          const std::string t = text.str();
          h = fnv1a64(t.data(), t.size(), h);
        },
        *m);
  }
  checkpoint_->open(h, 1, max_bytes);
  if (checkpoint_->resumed()) report.notes.push_back("resumed from the checkpoint " + checkpoint_->path());
  checkpoint_->begin_block(0);
}

void OneBlockCheckpoint::finish(CountReport& report) {
  if (!checkpoint_) return;
  report.resume = resume_summary(checkpoint_);
  checkpoint_->complete();
}

}  // namespace matchcount::detail
