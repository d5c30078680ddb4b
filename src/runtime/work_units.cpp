// Work units of the walks: done-range bookkeeping, the ledger workers report to, and the
// queue that hands units out (see work_units.hpp).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <random>

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
                       std::function<void(double)> progress, Marks kind, AddWords add)
    : journal_(journal), tag_(std::move(tag)), progress_(std::move(progress)), kind_(kind), add_(std::move(add)),
      words_(words) {
  state_.units = units;
  if (!journal_) return;
  WalkState saved = journal_->resume(tag_);
  if (saved.units == 0) return;
  if (saved.units != units || !well_formed(saved) || (saved.done_units() > 0 && saved.sum.size() != words))
    refuse("the saved state of walk " + tag_ + " does not fit this block");
  state_ = std::move(saved);
  check_marks(words);
  if (kind_ == Marks::Prefix) {  // new marks come about kMaxMarks / 2 times over what is done
    const std::uint64_t f = state_.done.empty() ? 0 : state_.done[0].end;
    while (f / stride_ > kMaxMarks / 2) stride_ *= 2;
  }
  if (progress_ && units) progress_(double(state_.done_units()) / double(units));
}

void WalkLedger::refuse(const std::string& why) const { throw InputError(journal_ ? journal_->name() : "checkpoint", 0, why); }

std::vector<std::uint64_t> WalkLedger::normal(const std::vector<std::uint64_t>& sum) const {
  std::vector<std::uint64_t> n(words_, 0);
  if (add_) add_(n, sum);
  return n;
}

/// A resumed state's marks must be what this ledger would have written for its done units
/// (checked without recomputing anything: a file edited by hand rarely gets this right).
void WalkLedger::check_marks(std::size_t words) const {
  const auto& m = state_.marks;
  const auto bad = [&](const char* what) {
    refuse(std::string("the saved state of walk ") + tag_ + " is inconsistent (" + what +
           "): the checkpoint is corrupt or was edited; remove it to start afresh");
  };
  for (const auto& k : m)
    if (k.range.begin >= k.range.end || k.sum.size() != words) bad("a mark of the wrong shape");
  if (kind_ == Marks::Prefix) {
    const auto& d = state_.done;
    if (d.size() > 1 || (d.size() == 1 && d[0].begin != 0)) bad("its done units are not a prefix");
    const std::uint64_t f = d.empty() ? 0 : d[0].end;
    if (m.size() > kMaxMarks + 1) bad("too many marks");
    if (f == 0) {
      if (!m.empty()) bad("marks without done units");
      return;
    }
    std::uint64_t at = 0;
    for (const auto& k : m) {
      if (k.range.begin != at) bad("its marks do not follow each other");
      at = k.range.end;
    }
    if (m.empty() || at != f) bad("its marks do not end at its done units");
    if (m.back().sum != state_.sum) bad("its last mark is not its total");
    return;
  }
  // Pieces: disjoint, sorted, covering exactly the done units, adding up to the total.
  if (m.size() > std::max(kMaxMarks, state_.done.size())) bad("too many marks");
  std::uint64_t covered = 0;
  std::vector<std::uint64_t> total(words, 0);
  for (std::size_t i = 0; i < m.size(); ++i) {
    const UnitRange& r = m[i].range;
    if (i > 0 && m[i - 1].range.end > r.begin) bad("its marks overlap");
    const auto in = std::upper_bound(state_.done.begin(), state_.done.end(), r.begin,
                                     [](std::uint64_t b, const UnitRange& d) { return b < d.begin; });
    if (in == state_.done.begin() || std::prev(in)->end < r.end) bad("a mark outside its done units");
    covered += r.size();
    if (add_) add_(total, m[i].sum);
  }
  if (covered != state_.done_units()) bad("its marks do not cover its done units");
  if (add_ && covered > 0 && total != normal(state_.sum)) bad("its marks do not add up to its total");
}

void WalkLedger::mark(std::uint64_t b, std::vector<std::uint64_t> total) {
  auto& m = state_.marks;
  m.push_back({{m.empty() ? 0 : m.back().range.end, b}, std::move(total)});
  // Thinning: a coarser stride keeps the boundaries on its multiples (and the last one); a
  // dropped mark's units go to the next. Boundaries then stay apart by at most the stride,
  // about 1/64 of the done units or less.
  while (m.size() > kMaxMarks) {
    stride_ *= 2;
    std::vector<WalkMark> kept;
    std::uint64_t at = 0;
    for (std::size_t i = 0; i < m.size(); ++i)
      if (m[i].range.end % stride_ == 0 || i + 1 == m.size()) {
        kept.push_back({{at, m[i].range.end}, std::move(m[i].sum)});
        at = m[i].range.end;
      }
    m = std::move(kept);
  }
}

void WalkLedger::piece(UnitRange r, const std::vector<std::uint64_t>& sum) {
  auto& m = state_.marks;
  const auto at = std::lower_bound(m.begin(), m.end(), r.begin,
                                   [](const WalkMark& k, std::uint64_t b) { return k.range.begin < b; });
  m.insert(at, WalkMark{r, sum});
  // Too many: merge the two adjacent pieces of the fewest units (touching ones only, so that
  // each stays one range to recompute); that keeps the pieces of about equal size.
  while (m.size() > kMaxMarks) {
    std::size_t best = m.size();
    for (std::size_t i = 0; i + 1 < m.size(); ++i)
      if (m[i].range.end == m[i + 1].range.begin &&
          (best == m.size() || m[i].range.size() + m[i + 1].range.size() < m[best].range.size() + m[best + 1].range.size()))
        best = i;
    if (best == m.size()) return;  // every one is alone in its done range
    add_(m[best].sum, m[best + 1].sum);
    m[best].range.end = m[best + 1].range.end;
    m.erase(m.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
}

WalkState WalkLedger::snapshot(std::vector<std::uint64_t> sum) const {
  WalkState s = state_;
  s.sum = std::move(sum);
  if (kind_ == Marks::Prefix && !s.done.empty() && (s.marks.empty() || s.marks.back().range.end < s.done[0].end))
    s.marks.push_back({{s.marks.empty() ? 0 : s.marks.back().range.end, s.done[0].end}, s.sum});
  return s;
}

void WalkLedger::done(UnitRange r, const std::function<std::vector<std::uint64_t>()>& sum_words) {
  state_.add(r);
  if (progress_ && state_.units) progress_(double(state_.done_units()) / double(state_.units));
  if (journal_ && journal_->due()) journal_->update(tag_, snapshot(sum_words()));
}

void WalkLedger::finished(std::vector<std::uint64_t> sum) {
  if (journal_) journal_->update(tag_, snapshot(std::move(sum)));
}

void WalkLedger::interrupted(std::vector<std::uint64_t> sum) {
  if (!journal_) throw std::logic_error("WalkLedger: a walk without a journal cannot stop early");
  const int signal = journal_->stop_requested();
  journal_->update(tag_, snapshot(std::move(sum)));
  throw Interrupted(signal, journal_->interrupted_message(signal));
}

std::vector<VerifyRange> WalkLedger::verification() const {
  const double share = journal_ ? journal_->verify_share() : 0.0;
  const auto& m = state_.marks;
  if (share <= 0 || m.empty()) return {};
  const double budget = std::ceil(share * double(state_.done_units()));
  std::vector<std::size_t> order(m.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937_64(std::random_device{}()));
  std::vector<bool> take(m.size(), false);
  double cost = 0;
  if (kind_ == Marks::Prefix) {  // the last mark's sum is the total the walk goes on from
    take.back() = true;
    cost = double(m.back().range.size());
  }
  for (const std::size_t i : order)
    if (!take[i] && (share >= 1 || cost == 0 || cost + double(m[i].range.size()) <= budget)) {
      take[i] = true;
      cost += double(m[i].range.size());
    }
  std::vector<VerifyRange> out;
  for (std::size_t i = 0; i < m.size(); ++i)
    if (take[i])
      out.push_back({m[i].range, kind_ == Marks::Prefix && i > 0 ? m[i - 1].sum : std::vector<std::uint64_t>{}, m[i].sum});
  return out;
}

void WalkLedger::verified(const std::vector<VerifyRange>& ranges, const std::vector<std::vector<std::uint64_t>>& got) {
  std::uint64_t units = 0;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const bool same = kind_ == Marks::Prefix ? got.at(i) == ranges[i].expect : normal(got.at(i)) == normal(ranges[i].expect);
    if (!same)
      refuse("the checkpoint's saved sums do not match a recomputation of units " + std::to_string(ranges[i].range.begin) +
             "-" + std::to_string(ranges[i].range.end - 1) + " of walk " + tag_ +
             ": it is corrupt or was edited; remove it to start afresh");
    units += ranges[i].range.size();
  }
  if (journal_) journal_->verified(tag_, units, ranges.size(), state_.done_units());
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
