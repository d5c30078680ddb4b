// The frontier DP proper: sorted (key, value words) arrays, one merge per row (private to
// src/engines; frontier.cpp instantiates it with its number policies).
//
// For one entry (r, c) of the row, the map from an old key to its new key is increasing on
// the old keys it accepts (c unused, every closing column used), so the new array is the
// merge of one sorted stream per entry: no hashing, no sorting. A column opening at this row
// owns the new keys with its bit: its stream needs no merging. Chunks of the new key range
// are merged in parallel, each new value summing its terms in entry order, so results do
// not depend on the thread count.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "engines/common.hpp"
#include "engines/frontier/frontier.hpp"
#include "engines/growing_array.hpp"

namespace matchcount::engines::frontier_detail {

using Key = FrontierKey;
using Step = FrontierStep;
using Move = FrontierMove;
constexpr Key kNone = ~Key{0};  // larger than every key (keys have at most 63 bits)

/// The state tables: their sizes change from row to row, so they grow with headroom.
template <class T>
using StateTable = GrowingArray<T, /*Headroom=*/true>;

/// The DP over sorted (key, K words) arrays; Policy supplies set/add of value words.
template <class Policy>
class FrontierRun {
 public:
  using Word = typename Policy::Word;
  /// The tables charge `meter` (frontier.cpp sets its limit from EngineOptions::max_bytes).
  FrontierRun(const Policy& pol, const EngineOptions& opt, TableMeter& meter, bool count_first = false)
      : pol_(pol), opt_(opt), K_(std::size_t(pol.words)), count_first_(count_first), meter_(meter),
        keys_(&meter), new_keys_(&meter), vals_(&meter), new_vals_(&meter) {}

  std::vector<Word> run(const std::vector<Step>& steps) {
    keys_.resize(1), vals_.resize(K_);
    keys_[0] = 0;
    auto one = pol_.one();
    std::copy(one.begin(), one.end(), vals_.begin());
    double total = 0, done = 0;
    for (const auto& st : steps) total += st.predicted;
    for (const auto& st : steps) {
      row(st, std::size_t(&st - steps.data()), steps.size());
      done += st.predicted;
      if (opt_.progress) opt_.progress(total > 0 ? done / total : 1.0);
      if (keys_.n == 0) return std::vector<Word>(K_, Word(0));
    }
    return {vals_.begin(), vals_.end()};
  }
  /// Per row done: the largest |value| bound word (Policy::abs_word) of its new states.
  const std::vector<double>& row_max() const { return row_max_; }

 private:
  // First source index whose image under move m is >= t (t = 0: the first source).
  std::size_t start_of(const Step& st, const Move& m, Key t) const {
    if (t == 0) return 0;
    Key low = (Key{1} << st.kept) - 1, high = t >> st.kept, mh = m.add >> st.kept;
    if (mh != high) return mh > high ? 0 : keys_.n;
    Key L = t & low, cb = m.add & low;
    Key s = st.expand(L > cb ? L - cb : 0) | m.fixed;
    return std::size_t(std::lower_bound(keys_.begin(), keys_.end(), s) - keys_.begin());
  }

  // Merges the streams of the moves over [idx[m], end[m]); with Fill, writes from `out`.
  // `act` holds the moves still running, in move order (the order terms are summed).
  // With Fill, `room` is the most states it may write (its part of the table): the bounds the
  // tables are sized by are exact, so reaching it is a bug, which stops the merge and is
  // thrown by the row once out of the threads.
  template <bool Fill>
  std::size_t merge(const Step& st, std::size_t* idx, const std::size_t* end, Key* cur, std::size_t* act, std::size_t out,
                    std::size_t room = 0) {
    auto full = [&](std::size_t count) {
      if (!Fill || count < room) return false;
      overflow_ = true;
      return true;
    };
    std::size_t A = 0, count = 0;
    for (std::size_t m = 0; m < st.moves.size(); ++m)
      if (idx[m] < end[m]) act[A++] = m;
    if (A == 1) {  // one stream (a column opening here, or one old column): filter and map
      const Move& mv = st.moves[act[0]];
      for (std::size_t i = idx[act[0]]; i < end[act[0]]; ++i) {
        if (!Step::accepts(mv, keys_[i])) continue;
        if constexpr (Fill) {
          if (full(count)) return count;
          new_keys_[out + count] = st.compact(keys_[i]) | mv.add;
          pol_.set(&new_vals_[(out + count) * K_], &vals_[i * K_], mv.entry);
        }
        ++count;
      }
      return count;
    }
    auto advance = [&](std::size_t m) {
      std::size_t i = idx[m];
      while (i < end[m] && !Step::accepts(st.moves[m], keys_[i])) ++i;
      idx[m] = i;
      cur[m] = i < end[m] ? st.compact(keys_[i]) | st.moves[m].add : kNone;
    };
    for (std::size_t a = 0; a < A; ++a) advance(act[a]);
    for (;;) {
      Key t = kNone;
      for (std::size_t a = 0; a < A; ++a) t = std::min(t, cur[act[a]]);
      if (t == kNone || full(count)) return count;
      Word* dst = Fill ? &new_vals_[(out + count) * K_] : nullptr;
      if constexpr (Fill) new_keys_[out + count] = t;
      bool first = true;
      for (std::size_t a = 0; a < A; ++a) {
        std::size_t m = act[a];
        if (cur[m] != t) continue;
        if constexpr (Fill) {
          const Word* src = &vals_[idx[m] * K_];
          if (first) pol_.set(dst, src, st.moves[m].entry);
          else pol_.add(dst, src, st.moves[m].entry);
        }
        first = false;
        ++idx[m];
        advance(m);
      }
      ++count;
    }
  }

  // Row k of `rows` (k counts from 0).
  void row(const Step& st, std::size_t k, std::size_t rows) {
    const std::size_t N = keys_.n, M = st.moves.size();
    int threads = thread_count(opt_, double(N) * double(M) * double(K_ + 1));
    // Chunks of the new key range: a column opening here owns the keys with its bit (it
    // needs no merging), and with threads, quantiles of the images of sampled sources.
    std::vector<Key> piv;
    for (const auto& m : st.moves)
      if (m.add >> st.kept) piv.push_back(m.add);
    if (threads > 1 && N > 4096) {
      std::size_t chunks = std::size_t(threads) * 8, samples = std::min(N, chunks * 64);
      std::vector<Key> img;
      for (std::size_t i = 0; i < samples; ++i) {
        Key s = keys_[i * N / samples];
        for (const auto& m : st.moves)
          if (Step::accepts(m, s)) img.push_back(st.compact(s) | m.add);
      }
      std::sort(img.begin(), img.end());
      for (std::size_t j = 1; j < chunks && !img.empty(); ++j) piv.push_back(img[j * img.size() / chunks]);
    }
    std::sort(piv.begin(), piv.end());
    piv.erase(std::unique(piv.begin(), piv.end()), piv.end());
    if (!piv.empty() && piv[0] == 0) piv.erase(piv.begin());
    const std::size_t C = piv.size() + 1;
    std::vector<std::size_t> begin(C * M), end(C * M), idx(C * M), act(C * M), counts(C + 1);
    std::vector<double> chunk_max(C);
    std::vector<Key> cur(C * M);
    for (std::size_t j = 0; j < C; ++j)
      for (std::size_t m = 0; m < M; ++m) {
        begin[j * M + m] = j == 0 ? 0 : start_of(st, st.moves[m], piv[j - 1]);
        end[j * M + m] = j + 1 == C ? N : start_of(st, st.moves[m], piv[j]);
      }
    const int th = C > 1 ? threads : 1;
    const double state_bytes = 8.0 * double(K_ + 1);
    // Chunk j's output (at[j] to at[j + 1]) is bounded by its sources in range and by the keys
    // its part of the new key range holds (keys_below), so that the bounds add up to no more
    // than the plan's bound on the row's states.
    std::vector<std::size_t> at(C + 1);
    for (std::size_t j = 0; j < C; ++j) {
      std::size_t sources = 0;
      for (std::size_t m = 0; m < M; ++m) sources += end[j * M + m] - begin[j * M + m];
      const std::size_t keys = (j + 1 == C ? st.max_states() : st.keys_below(piv[j])) - (j == 0 ? 0 : st.keys_below(piv[j - 1]));
      at[j + 1] = at[j] + std::min(sources, keys);
    }
    // Three ways to write the new table, each charged to the meter before it writes:
    // - Packed (one thread): the chunks one after another, each where the last one ended; the
    //   table touches only the states written;
    // - Bounded (threads): chunk j writes from at[j] and the chunks are packed afterwards, so
    //   the writes spread over all at[C] slots, which must fit (and a quarter of the engine's
    //   limit);
    // - Counted: a counting merge sizes every chunk exactly first, at the price of a merge.
    const std::size_t most = at[C];
    enum class Way { Packed, Bounded, Counted } way = Way::Counted;
    if (!count_first_ && th == 1 && room(most)) way = Way::Packed;
    else if (!count_first_ && th > 1 && double(N + at[C]) * state_bytes <= kFrontierMemoryLimit / 4 && room(at[C]))
      way = Way::Bounded;
    std::size_t total = 0;
    if (way == Way::Packed) {
      new_keys_.resize(most);
      new_vals_.resize(most * K_);
      for (std::size_t j = 0; j < C; ++j) {
        std::copy_n(begin.data() + j * M, M, idx.data() + j * M);
        counts[j + 1] = merge<true>(st, idx.data() + j * M, end.data() + j * M, cur.data() + j * M, act.data() + j * M,
                                    total, most - total);
        chunk_max[j] = abs_max(total, counts[j + 1]);
        total += counts[j + 1];
      }
      new_keys_.settle(total), new_vals_.settle(total * K_);
    } else {
      if (way == Way::Counted) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(th)
        for (std::size_t j = 0; j < C; ++j) {
          std::copy_n(begin.data() + j * M, M, idx.data() + j * M);
          counts[j + 1] = merge<false>(st, idx.data() + j * M, end.data() + j * M, cur.data() + j * M, act.data() + j * M, 0);
        }
        for (std::size_t j = 0; j < C; ++j) at[j + 1] = at[j] + counts[j + 1];
        if (!room(at[C]))
          meter_.refuse("frontier: at row " + std::to_string(k + 1) + " of " + std::to_string(rows) + " (" +
                            std::to_string(at[C]) + " states)",
                        new_keys_.extra(at[C]) + new_vals_.extra(at[C] * K_));
      }
      new_keys_.resize(at[C]);
      new_vals_.resize(at[C] * K_);
#pragma omp parallel for schedule(dynamic, 1) num_threads(th)
      for (std::size_t j = 0; j < C; ++j) {
        std::copy_n(begin.data() + j * M, M, idx.data() + j * M);
        counts[j + 1] = merge<true>(st, idx.data() + j * M, end.data() + j * M, cur.data() + j * M, act.data() + j * M,
                                    at[j], at[j + 1] - at[j]);
        chunk_max[j] = abs_max(at[j], counts[j + 1]);
      }
      for (std::size_t j = 0; j < C; total += counts[++j])
        if (at[j] != total) {
          std::memmove(&new_keys_[total], &new_keys_[at[j]], counts[j + 1] * sizeof(Key));
          std::memmove(&new_vals_[total * K_], &new_vals_[at[j] * K_], counts[j + 1] * K_ * sizeof(Word));
        }
      new_keys_.n = total, new_vals_.n = total * K_;
    }
    if (overflow_) throw std::logic_error("frontier: a row wrote more states than its bound");
    row_max_.push_back(*std::max_element(chunk_max.begin(), chunk_max.end()));
    std::swap(keys_, new_keys_);
    std::swap(vals_, new_vals_);
  }

  // The largest |value| bound word among `count` new states from `from` (0 without one).
  double abs_max(std::size_t from, std::size_t count) const {
    double mx = 0;
    if (pol_.abs_word >= 0)
      for (std::size_t i = from; i < from + count; ++i)
        mx = std::max(mx, double(new_vals_[i * K_ + std::size_t(pol_.abs_word)]));
    return mx;
  }

  // Whether the new tables can hold k states within the meter; short of room, the tables first
  // give back their pages beyond their contents (left by larger rows, or by chunks written
  // apart), and the new ones all theirs (they hold nothing yet).
  bool room(std::size_t k) {
    auto extra = [&] { return new_keys_.extra(k) + new_vals_.extra(k * K_); };
    if (meter_.within_target(extra())) return true;
    new_keys_.n = new_vals_.n = 0;
    keys_.trim(), vals_.trim(), new_keys_.trim(), new_vals_.trim();
    return meter_.fits(extra());
  }

  const Policy& pol_;
  const EngineOptions& opt_;
  std::size_t K_;
  bool count_first_;
  std::atomic<bool> overflow_{false};
  TableMeter& meter_;
  std::vector<double> row_max_;
  StateTable<Key> keys_, new_keys_;
  StateTable<Word> vals_, new_vals_;
};

}  // namespace matchcount::engines::frontier_detail
