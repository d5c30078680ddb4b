// The checkpoint of --matchings --polynomial (polynomial_checkpoint.hpp).
#include "pipeline/polynomial_checkpoint.hpp"

#include <sstream>

#include "core/hashing.hpp"
#include "matchcount/error.hpp"
#include "matchcount/graph_matching.hpp"
#include "pipeline/resume.hpp"

namespace matchcount::detail {

PolynomialCheckpoint::PolynomialCheckpoint(Checkpoint* checkpoint, const AnyMatrix& a, const PermanentValue& y,
                                           CountReport& report)
    : checkpoint_(checkpoint) {
  if (!checkpoint_) return;
  // What the slots are of: the entries as written (17 digits: bit for bit) and the monomer weight.
  std::ostringstream text;
  text.precision(17);
  text << "matching polynomial;" << y.to_string() << ";";
  std::visit(
      [&](const auto& m) {
        text << m.rows << "x" << m.cols << ";";
        for (const auto& e : m.entries) text << e.row << "," << e.col << "," << e.value << ";";
        for (const auto& c : graph_components(GraphPattern::of(m))) pass_slots_ += 1 + c.size() / 2;
      },
      a);
  const std::string t = text.str();
  // Both passes' slots, each piece's text at most a few times the coefficients' digits.
  checkpoint_->open(fnv1a64(t.data(), t.size(), 0x6d617463686e6773ULL), 1 + 2 * pass_slots_, std::uint64_t{1} << 36);
  if (checkpoint_->resumed()) report.notes.push_back("resumed from the checkpoint " + checkpoint_->path());
}

std::size_t PolynomialCheckpoint::take(std::size_t count) {
  const std::size_t first = next_;
  next_ += count;
  return first;
}

void PolynomialCheckpoint::second_pass() { next_ = 1 + pass_slots_; }

std::optional<std::vector<Rational>> PolynomialCheckpoint::saved(std::size_t slot) const {
  if (!checkpoint_) return std::nullopt;
  const std::string text = checkpoint_->block_value(slot);
  if (text.empty()) return std::nullopt;
  std::vector<Rational> out;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ';');) {
    Rational q;
    if (q.set_str(item, 10) != 0) throw InputError(checkpoint_->path(), 0, "the checkpoint holds an unreadable piece of the polynomial");
    q.canonicalize();
    out.push_back(q);
  }
  return out;
}

void PolynomialCheckpoint::save(std::size_t slot, const std::vector<Rational>& values) {
  if (!checkpoint_) return;
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i) text += (i ? ";" : "") + values[i].get_str();
  checkpoint_->finish_block(slot, text.empty() ? std::string("0") : text);
}

void PolynomialCheckpoint::finish(CountReport& report) {
  if (!checkpoint_) return;
  report.resume = resume_summary(checkpoint_);
  checkpoint_->complete();
}

}  // namespace matchcount::detail
