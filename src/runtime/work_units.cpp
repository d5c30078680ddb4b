// Work units of the walks: done-range bookkeeping, the ledger workers report to, and the
// queue that hands units out (see work_units.hpp).
#include <algorithm>

#include <atomic>

#include "runtime/work_units.hpp"
#include "matchcount/engine.hpp"
#include "matchcount/error.hpp"

namespace matchcount {

std::uint64_t WalkState::done_units() const {
  std::uint64_t n = 0;
  for (const auto& r : done) n += r.size();
  return n;
}

void WalkState::add(UnitRange r) {
  if (r.begin >= r.end) return;
  auto it = std::lower_bound(done.begin(), done.end(), r, [](const UnitRange& a, const UnitRange& b) { return a.begin < b.begin; });
  if ((it != done.end() && it->begin < r.end) || (it != done.begin() && std::prev(it)->end > r.begin))
    throw std::logic_error("WalkState: units done twice");
  if (it != done.begin() && std::prev(it)->end == r.begin) {  // extend the previous range
    --it;
    it->end = r.end;
  } else {
    it = done.insert(it, r);
  }
  if (auto next = std::next(it); next != done.end() && next->begin == it->end) {
    it->end = next->end;
    done.erase(next);
  }
}

std::vector<UnitRange> WalkState::remaining() const {
  std::vector<UnitRange> out;
  std::uint64_t at = 0;
  for (const auto& r : done) {
    if (r.begin > at) out.push_back({at, r.begin});
    at = r.end;
  }
  if (at < units) out.push_back({at, units});
  return out;
}

std::string WalkJournal::interrupted_message(int signal) const {
  return "interrupted by signal " + std::to_string(signal);
}

namespace {

/// True when the ranges are sorted, non-empty, disjoint, not touching and within `units`.
bool well_formed(const WalkState& s) {
  std::uint64_t at = 0;
  for (std::size_t i = 0; i < s.done.size(); ++i) {
    const auto& r = s.done[i];
    if (r.begin >= r.end || r.end > s.units || (i > 0 && r.begin <= at)) return false;
    at = r.end;
  }
  return true;
}

}  // namespace

WalkLedger::WalkLedger(WalkJournal* journal, std::string tag, std::uint64_t units, std::size_t words,
                       std::function<void(double)> progress)
    : journal_(journal), tag_(std::move(tag)), progress_(std::move(progress)) {
  state_.units = units;
  if (!journal_) return;
  WalkState saved = journal_->resume(tag_);
  if (saved.units == 0) return;
  if (saved.units != units || !well_formed(saved) || (saved.done_units() > 0 && saved.sum.size() != words))
    throw InputError("checkpoint", 0, "the saved state of walk " + tag_ + " does not fit this block");
  state_ = std::move(saved);
  if (progress_ && units) progress_(double(state_.done_units()) / double(units));
}

void WalkLedger::done(UnitRange r, const std::function<std::vector<std::uint64_t>()>& sum_words) {
  state_.add(r);
  if (progress_ && state_.units) progress_(double(state_.done_units()) / double(state_.units));
  if (journal_ && journal_->due()) {
    state_.sum = sum_words();
    journal_->update(tag_, state_);
  }
}

void WalkLedger::finished(std::vector<std::uint64_t> sum) {
  state_.sum = std::move(sum);
  if (journal_) journal_->update(tag_, state_);
}

void WalkLedger::interrupted(std::vector<std::uint64_t> sum) {
  state_.sum = std::move(sum);
  if (!journal_) throw std::logic_error("WalkLedger: a walk without a journal cannot stop early");
  const int signal = journal_->stop_requested();
  journal_->update(tag_, state_);
  throw Interrupted(signal, journal_->interrupted_message(signal));
}

UnitQueue::UnitQueue(std::vector<UnitRange> todo) : todo_(todo.rbegin(), todo.rend()) {
  for (const auto& r : todo_) left_ += r.size();
}

std::optional<UnitRange> UnitQueue::take(std::uint64_t want, int workers, std::uint64_t least) {
  std::lock_guard<std::mutex> lock(mutex_);
  while (!todo_.empty() && todo_.back().size() == 0) todo_.pop_back();
  if (todo_.empty()) return std::nullopt;
  // Guided self-scheduling: at most half of a fair share of what is left, so that the last
  // runs are short and the workers finish together (a lone worker takes what it asks for).
  const std::uint64_t cap =
      workers > 1 ? std::max<std::uint64_t>(std::max<std::uint64_t>(least, 1), left_ / (2 * static_cast<std::uint64_t>(workers)))
                  : left_;
  UnitRange& front = todo_.back();
  const std::uint64_t n = std::min({std::max<std::uint64_t>(want, 1), cap, front.size()});
  UnitRange r{front.begin, front.begin + n};
  front.begin += n;
  if (front.size() == 0) todo_.pop_back();
  left_ -= n;
  return r;
}

void UnitQueue::give_back(UnitRange r) {
  std::lock_guard<std::mutex> lock(mutex_);
  todo_.push_back(r);
  left_ += r.size();
}

std::uint64_t UnitQueue::left() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return left_;
}

namespace {
std::atomic<WalkObserver> walk_observer{nullptr};
}  // namespace

WalkObserverFn current_walk_observer() { return walk_observer.load(std::memory_order_acquire); }
void set_walk_observer(WalkObserver observer) { walk_observer.store(observer, std::memory_order_release); }

}  // namespace matchcount
