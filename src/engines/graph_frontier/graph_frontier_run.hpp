// The graph frontier DP proper on the CPU (private to src/engines/graph_frontier): the dense
// tables the steps of graph_step.hpp transform; graph_frontier.cpp instantiates it with its
// number policies.
//
// Each new state pulls its value from at most (processed neighbours + 1) old states, so the
// new table is filled in parallel with no write conflicts, each value summing its terms in a
// fixed order: results do not depend on the thread count.
#pragma once

#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engines/common.hpp"
#include "engines/graph_frontier/graph_step.hpp"
#include "engines/growing_array.hpp"

namespace matchcount::engines::graph_frontier_detail {

/// Words a state of Policy: the constant Policy::words, or a policy's run-time word_count
/// (the polynomial DP: a coefficient per degree).
template <class Policy>
std::size_t words_of(const Policy& pol) {
  if constexpr (requires { pol.word_count; }) return pol.word_count;
  else return std::size_t(Policy::words);
}

/// The DP over dense tables of words_of(policy) words a state. Policy: Word; the constants
/// words (or the member word_count) and abs_word (the word bounding |value|, -1 for none);
/// one(), zero(d), add(d, s, entry) (entry -1: weight 1), finish(d), and optionally
/// begin_step(k), called before vertex k's states are filled.
template <class Policy>
class GraphRun {
 public:
  using Word = typename Policy::Word;
  /// The tables charge `meter` (graph_frontier.cpp sets its limit from
  /// EngineOptions::max_bytes).
  GraphRun(const Policy& pol, const EngineOptions& opt, bool loops, TableMeter& meter)
      : pol_(pol), opt_(opt), K_(words_of(pol)), half_(!loops), meter_(meter), old_(&meter), new_(&meter) {}

  /// The final state's words (all zero when no state survives).
  std::vector<Word> run(const std::vector<GraphStep>& steps) {
    old_.resize(K_);
    auto one = pol_.one();
    std::copy(one.begin(), one.end(), old_.data());
    double total = 0, done = 0;
    for (const auto& st : steps) total += st.predicted;
    for (const auto& st : steps) {
      if (!step(st, std::size_t(&st - steps.data()), steps.size())) return std::vector<Word>(K_, Word(0));
      done += st.predicted;
      if (opt_.progress) opt_.progress(total > 0 ? done / total : 1.0);
    }
    return {old_.data(), old_.data() + K_};
  }
  /// Floats: the power of two the states were divided by to stay in range, and per vertex done
  /// the largest |value| bound of its states (in the units before that division).
  int shift() const { return shift_; }
  const std::vector<double>& step_max() const { return step_max_; }

 private:
  std::size_t table_size(int w) const { return std::size_t{1} << (half_ ? std::max(w - 1, 0) : w); }

  // Vertex k of `count` (k counts from 0).
  bool step(const GraphStep& st, std::size_t k, std::size_t count) {
    if (half_ && st.new_w == 0 && st.parity) return false;  // an odd set of processed vertices cannot be matched
    const std::size_t N = table_size(st.new_w);
    const State old_mask = half_ ? (State{1} << std::max(st.old_w - 1, 0)) - 1 : ~State{0};
    const int top = st.new_w - 1;
    const bool implied = half_ && st.new_w >= 1;
    // The tables alternate, so each keeps the pages of the largest table it held: short of
    // room, the old one gives back its pages beyond its contents and the new one all of its.
    if (!meter_.within_target(new_.extra(N * K_))) {
      new_.n = 0;
      old_.trim(), new_.trim();
      if (!meter_.fits(new_.extra(N * K_)))
        meter_.refuse("graph-frontier: at vertex " + std::to_string(k + 1) + " of " + std::to_string(count) + " (" +
                          std::to_string(N) + " states)",
                      new_.extra(N * K_));
    }
    new_.resize(N * K_);
    if constexpr (requires { pol_.begin_step(k); }) pol_.begin_step(k);
    const Word* src = old_.data();
    Word* dst_all = new_.data();
    // thread_count counts basic steps of about a quarter nanosecond; a gather of a word costs
    // about four.
    const double work = 4.0 * double(N) * double(st.back.size() + 1) * double(K_ + 1);
    const int threads = thread_count(opt_, work);
    double mx = 0;
    const Policy& pol = pol_;
    // A compile-time count where the policy has one, so the gathers' indexing folds.
    constexpr std::size_t kStatic = static_words();
    const std::size_t K = kStatic ? kStatic : K_;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(max : mx)
    for (std::size_t i = 0; i < N; ++i) {
      State t = i;
      if (implied) t |= State((std::popcount(t) + st.parity) & 1) << top;
      State base = t & st.same;
      for (auto [j, o] : st.moved) base |= ((t >> j) & 1) << o;
      Word* d = dst_all + i * K;
      pol.zero(d);
      if (st.vslot >= 0 && ((t >> st.vslot) & 1)) {
        pol.add(d, src + (base & old_mask) * K, -1);  // v stays open
      } else {
        for (auto [o, e] : st.back)
          if (!((base >> o) & 1)) pol.add(d, src + ((base | (State{1} << o)) & old_mask) * K, e);
        if (st.loop >= 0) pol.add(d, src + (base & old_mask) * K, st.loop);
      }
      pol.finish(d);
      if constexpr (Policy::abs_word >= 0) mx = std::max(mx, double(d[Policy::abs_word]));
    }
    std::swap(old_, new_);
    if constexpr (Policy::abs_word >= 0) {
      // Powers of two keep the states in range, exactly; the final value takes them back.
      if (mx == 0) return false;
      if (mx > 0x1p400 || mx < 0x1p-400) {
        const int e = std::ilogb(mx);
        Word* d = old_.data();
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::size_t i = 0; i < N * K; ++i) d[i] = std::ldexp(d[i], -e);
        shift_ += e;
        mx = std::ldexp(mx, -e);
      }
      step_max_.push_back(std::ldexp(mx, shift_));
    }
    return true;
  }

  static constexpr std::size_t static_words() {
    if constexpr (requires { Policy::words; }) return std::size_t(Policy::words);
    else return 0;
  }

  const Policy& pol_;
  const EngineOptions& opt_;
  const std::size_t K_;
  bool half_;
  TableMeter& meter_;
  int shift_ = 0;
  std::vector<double> step_max_;
  GrowingArray<Word> old_, new_;  // every slot of a new table is written before it is read
};

}  // namespace matchcount::engines::graph_frontier_detail
