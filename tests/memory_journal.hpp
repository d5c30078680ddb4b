// A checkpoint journal held in memory, for the tests that interrupt and resume walks.
#pragma once

#include <csignal>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "matchcount/checkpoint.hpp"
#include "runtime/work_units.hpp"

namespace matchcount::test {

/// A journal in memory: every unit is "due", and a stop is requested after `stop_after` updates.
class MemoryJournal : public WalkJournal {
 public:
  std::map<std::string, WalkState> saved;
  std::vector<WalkState> history;
  int stop_after = -1;
  int updates = 0;
  WalkState resume(const std::string& tag) override {
    auto it = saved.find(tag);
    return it == saved.end() ? WalkState{} : it->second;
  }
  bool due() const override { return true; }
  void update(const std::string& tag, const WalkState& s) override {
    saved[tag] = s;
    history.push_back(s);
    ++updates;
  }
  /// Or after this many units done over all walks (0: no such stop). Threads that finish out
  /// of order hand in several units at once, so under load a walk may save fewer states than
  /// it has units: a stop by units always falls inside the walk.
  std::uint64_t stop_after_units = 0;
  int stop_requested() const override {
    if (stop_after >= 0 && updates >= stop_after) return SIGINT;
    std::uint64_t done = 0;
    for (const auto& [tag, s] : saved) done += s.done_units();
    return stop_after_units > 0 && done >= stop_after_units ? SIGINT : 0;
  }
};

}  // namespace matchcount::test
