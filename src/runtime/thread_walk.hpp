// The CPU executor of a walk's work units: OpenMP threads, checkpoints and MPI ranks, shared
// by the CPU walks (the dense Ryser walk, SpaRyser, SkipPer, rect-ryser). `opt` is anything
// with the engines' options' journal, team, progress and stats (EngineOptions).
//
// A walk is cut into units whose number and sums depend only on the input; unit b's sum comes
// from walk_unit(state, b), with one state per thread. Sums join the total strictly in unit
// order (units that finish early wait in `pending`), so the total after the first b units is
// well defined: that prefix, with its total, is what a checkpoint saves, and results have the
// same bits whatever the threads, the ranks, or an interruption and resume. The totals at some
// boundaries inside the prefix go with it (WalkLedger's marks): --verify-resume walks a sample
// of the ranges between them again, from the total before, and wants the total after.
#pragma once

#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>

#include "matchcount/error.hpp"
#include "runtime/team.hpp"
#include "runtime/work_units.hpp"

namespace matchcount::runtime {

/// Sums as checkpoint words: every Sum of the policies is made of doubles.
template <class Sum>
std::vector<std::uint64_t> sum_words(const Sum& s) {
  if constexpr (std::is_same_v<Sum, std::vector<double>>) {
    std::vector<std::uint64_t> w(s.size());
    std::memcpy(w.data(), s.data(), s.size() * sizeof(double));
    return w;
  } else {
    static_assert(std::is_trivially_copyable_v<Sum> && sizeof(Sum) % 8 == 0);
    std::vector<std::uint64_t> w(sizeof(Sum) / 8);
    std::memcpy(w.data(), &s, sizeof(Sum));
    return w;
  }
}
template <class Sum>
Sum sum_from_words(const std::vector<std::uint64_t>& w) {
  Sum s{};
  if constexpr (std::is_same_v<Sum, std::vector<double>>) {
    s.resize(w.size());
    std::memcpy(s.data(), w.data(), w.size() * sizeof(double));
  } else {
    std::memcpy(static_cast<void*>(&s), w.data(), std::min(w.size() * 8, sizeof(Sum)));
  }
  return s;
}

/// --verify-resume: the totals after the ranges of a resumed walk, each from the saved total
/// before it, recomputed with the walk's own additions in unit order (the units themselves on
/// all threads). Once a stop is requested the units left are not walked: the totals are then
/// meaningless, and the caller stops.
template <class Sum, class MakeState, class Walk, class Combine>
std::vector<std::vector<std::uint64_t>> recompute_prefix(const std::vector<VerifyRange>& ranges, int threads,
                                                         const WalkLedger& ledger, MakeState& make_state, Walk& walk,
                                                         Combine& combine) {
  std::vector<std::uint64_t> unit;  // every unit to walk
  for (const auto& r : ranges)
    for (std::uint64_t b = r.range.begin; b < r.range.end; ++b) unit.push_back(b);
  std::vector<Sum> sums(unit.size());
  std::atomic<std::size_t> next{0};
#pragma omp parallel num_threads(threads)
  {
    auto st = make_state();
    while (!ledger.stopping()) {
      const std::size_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= unit.size()) break;
      sums[i] = walk(st, unit[i]);
    }
  }
  std::vector<std::vector<std::uint64_t>> out;
  std::size_t at = 0;
  for (const auto& r : ranges) {
    Sum t = r.start.empty() ? Sum{} : sum_from_words<Sum>(r.start);
    for (std::uint64_t b = r.range.begin; b < r.range.end; ++b) combine(t, sums[at++]);
    out.push_back(sum_words(t));
  }
  return out;
}

/// Runs units 0 .. units-1 on `threads` OpenMP threads and returns the combined sum (`zero` on ranks other than 0 of an
/// MPI team, which only serve units). `zero` is the sum of no units: its encoding's size is
/// the checkpoint's. walk_unit(State&, uint64_t b) -> Sum; combine(Sum& total, const Sum& b).
template <class Sum, class Options, class MakeState, class WalkUnit, class Combine>
Sum run_units(std::uint64_t units, int threads, const Options& opt, const std::string& tag, const Sum& zero,
              MakeState make_state, WalkUnit walk_unit, Combine combine) {
  const WalkObserverFn observer = current_walk_observer();
  auto walk = [&](auto& st, std::uint64_t b) {
    Sum s = walk_unit(st, b);
    if (observer) observer(b);
    return s;
  };
  cluster::WalkTeam* team = opt.team;
  if (team && !team->leader()) {  // MPI: units from rank 0, their sums back to it
    team->join(tag, units);
#pragma omp parallel num_threads(threads)
    {
      auto st = make_state();
      while (const auto run = team->take(1))
        for (std::uint64_t b = run->begin; b < run->end; ++b) team->give({b, b + 1}, sum_words(walk(st, b)));
    }
    return zero;  // rank 0 has the total
  }

  WalkLedger ledger(opt.journal, tag, units, sum_words(zero).size(), opt.progress);  // the done units are a prefix
  const auto& saved = ledger.state().done;
  std::uint64_t frontier = saved.empty() ? 0 : saved[0].end;  // units [0, frontier) are in total
  Sum total = frontier ? sum_from_words<Sum>(ledger.state().sum) : Sum{};
  if (const auto ranges = ledger.verification(); !ranges.empty()) {  // --verify-resume
    const auto got = recompute_prefix<Sum>(ranges, threads, ledger, make_state, walk, combine);
    if (ledger.stopping()) ledger.interrupted(sum_words(total));  // the recomputation was cut short
    ledger.verified(ranges, got);
  }
  std::atomic<std::uint64_t> next{frontier};
  std::mutex mutex;
  std::map<std::uint64_t, Sum> pending;
  // Unit b's sum joins the total in unit order; the totals at the ledger's boundaries are its
  // marks.
  auto join = [&](const Sum& s) {
    combine(total, s);
    if (++frontier % ledger.stride() == 0) ledger.mark(frontier, sum_words(total));
  };
  auto hand_in = [&](std::uint64_t b, Sum s) {
    std::lock_guard<std::mutex> lock(mutex);
    if (b != frontier) {
      pending.emplace(b, std::move(s));
      return;
    }
    const std::uint64_t first = frontier;
    join(s);
    for (; !pending.empty() && pending.begin()->first == frontier; pending.erase(pending.begin()))
      join(pending.begin()->second);
    ledger.done({first, frontier}, [&] { return sum_words(total); });
  };
  // MPI: rank 0 hands units to the other ranks from the same counter as its threads.
  std::thread server;
  if (team)
    server = std::thread([&] {
      team->serve(
          tag, units,
          [&](std::uint64_t want) -> std::optional<UnitRange> {
            const std::uint64_t b = next.fetch_add(want, std::memory_order_relaxed);
            if (b >= units) return std::nullopt;
            return UnitRange{b, std::min(b + want, units)};
          },
          [&](UnitRange r, const std::vector<std::uint64_t>& w) { hand_in(r.begin, sum_from_words<Sum>(w)); },
          [&] { return ledger.stopping(); });
    });
#pragma omp parallel num_threads(threads)
  {
    auto st = make_state();
    while (!ledger.stopping()) {
      const std::uint64_t b = next.fetch_add(1, std::memory_order_relaxed);
      if (b >= units) break;
      hand_in(b, walk(st, b));
    }
  }
  if (server.joinable()) server.join();  // every unit handed out has come back
  if (team && opt.stats) opt.stats->note = cluster::ranks_note(team->units_by_rank());
  if (frontier < units) ledger.interrupted(sum_words(total));
  ledger.finished(sum_words(total));
  return total;
}

}  // namespace matchcount::runtime
