// --verify-resume: a walk's saved state keeps partial sums (marks) beside its total, so that a
// resume can recompute a sample of the saved work. A checkpoint edited with its checksum made
// right (a done range widened, a sum word changed) is refused instead of giving a wrong count
// that calls itself exact; an honest one resumes to the same bits.
#include <signal.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cinttypes>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "catalog/catalog.hpp"
#include "checkpoint_helpers.hpp"
#include "core/hashing.hpp"
#include "matchcount/error.hpp"
#include "memory_journal.hpp"
#include "runtime/device_walk.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

/// A journal in memory that asks resumed walks to recompute `share` of their done units.
class VerifyJournal : public test::MemoryJournal {
 public:
  double share = 0;
  std::uint64_t units = 0, ranges = 0;
  double verify_share() const override { return share; }
  void verified(const std::string&, std::uint64_t u, std::uint64_t r, std::uint64_t) override {
    units += u;
    ranges += r;
  }
};

/// Expects `f` to throw InputError whose message has `why`.
template <class F>
void expect_refused(F f, const std::string& why) {
  try {
    f();
    ADD_FAILURE() << "not refused: expected '" << why << "'";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
  }
}

const char* kMismatch = "do not match a recomputation of units";

TEST(CheckpointVerify, PrefixWalksKeepFewMarksAndRecomputeThem) {
  // SpaRyser walks 2^10 units: enough for the marks to be thinned.
  std::mt19937_64 rng(31);
  const auto a = test::random_real(rng, 16, 0.7, -1, 1);
  const auto e = make_engine("sparyser");
  EngineOptions o;
  o.threads = 1;
  const auto plain = e->permanent(a, o);
  VerifyJournal j;
  j.stop_after_units = 700;
  o.journal = &j;
  EXPECT_THROW(e->permanent(a, o), Interrupted);
  ASSERT_EQ(j.saved.size(), 1u);
  const std::string tag = j.saved.begin()->first;
  const WalkState saved = j.saved.begin()->second;
  ASSERT_EQ(saved.done.size(), 1u);
  const std::uint64_t f = saved.done[0].end;
  ASSERT_GT(f, 2 * WalkLedger::kMaxMarks);
  ASSERT_LT(f, saved.units);
  // Totals after [0, b) for boundaries b up to the frontier, each range a small share of it.
  ASSERT_FALSE(saved.marks.empty());
  EXPECT_LE(saved.marks.size(), WalkLedger::kMaxMarks + 1);
  std::uint64_t at = 0;
  for (const auto& m : saved.marks) {
    EXPECT_EQ(m.range.begin, at);
    EXPECT_LE(m.range.size(), f / 32);
    at = m.range.end;
  }
  EXPECT_EQ(at, f);
  EXPECT_EQ(saved.marks.back().sum, saved.sum);

  const auto resume = [&](const WalkState& s, double share) {
    j.saved[tag] = s;
    j.stop_after_units = 0;
    j.share = share;
    j.units = j.ranges = 0;
    o.threads = 2;
    return e->permanent(a, o);
  };
  // Honest: every range recomputed to the same bits, and the count as without a stop.
  const auto all = resume(saved, 1.0);
  EXPECT_TRUE(test::same_bits(all, plain));
  EXPECT_EQ(j.units, f);
  EXPECT_EQ(j.ranges, saved.marks.size());
  // A sample: the last range always, in all about 1/16 of the work.
  resume(saved, 1.0 / 16);
  EXPECT_GE(j.units, saved.marks.back().range.size());
  EXPECT_LE(j.units, f / 16 + 2 * (f / 32));

  WalkState forged = saved;  // a mark inside changed: found when its range is recomputed
  forged.marks[saved.marks.size() / 2].sum[0] ^= 1;
  expect_refused([&] { resume(forged, 1.0); }, kMismatch);
  forged = saved;  // the total and its mark changed alike: the last range is always recomputed
  forged.sum[0] ^= 1;
  forged.marks.back().sum[0] ^= 1;
  expect_refused([&] { resume(forged, 1e-9); }, kMismatch);
  forged = saved;  // the done units widened with their last mark
  forged.done[0].end += 5;
  forged.marks.back().range.end += 5;
  expect_refused([&] { resume(forged, 1e-9); }, kMismatch);
  const auto wrong = resume(forged, 0.0);  // what an unverified resume of it gives
  EXPECT_FALSE(test::same_bits(wrong, plain));
  // Without recomputing anything, marks that do not fit the done units and total are refused.
  forged = saved;
  forged.sum[0] ^= 1;
  expect_refused([&] { resume(forged, 0.0); }, "inconsistent (its last mark is not its total)");
  forged = saved;
  forged.done[0].end += 5;
  expect_refused([&] { resume(forged, 0.0); }, "inconsistent (its marks do not end at its done units)");
}

/// A simulated device: the sum of a run is the sum of its unit indices, after a short pause.
class IndexSums final : public runtime::DeviceWorker {
 public:
  std::uint64_t first_run_units() const override { return 7; }
  std::vector<std::uint64_t> run(UnitRange r) override {
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    return {(r.begin + r.end - 1) * r.size() / 2};
  }
};

TEST(CheckpointVerify, DeviceWalksKeepPiecesAndRecomputeThem) {
  const std::uint64_t units = 3000;
  VerifyJournal j;
  runtime::DeviceWalk w;
  w.tag = "indices";
  w.units = units;
  w.words = 1;
  w.devices = 2;
  w.journal = &j;
  w.add = [](std::vector<std::uint64_t>& total, const std::vector<std::uint64_t>& sum) { total.at(0) += sum.at(0); };
  w.make_worker = [](int) -> std::unique_ptr<runtime::DeviceWorker> { return std::make_unique<IndexSums>(); };
  w.run_seconds = 0.0005;  // runs of a few units: many pieces
  j.stop_after_units = 2000;
  EXPECT_THROW(runtime::run_on_devices(w), Interrupted);
  const WalkState saved = j.saved.at("indices");
  ASSERT_FALSE(saved.complete());
  ASSERT_FALSE(saved.marks.empty());
  EXPECT_LE(saved.marks.size(), std::max(WalkLedger::kMaxMarks, saved.done.size()));
  std::uint64_t covered = 0, sum = 0;
  for (std::size_t i = 0; i < saved.marks.size(); ++i) {
    const WalkMark& m = saved.marks[i];
    if (i > 0) {
      EXPECT_LE(saved.marks[i - 1].range.end, m.range.begin);
    }
    covered += m.range.size();
    sum += m.sum[0];
    EXPECT_EQ(m.sum[0], (m.range.begin + m.range.end - 1) * m.range.size() / 2);
  }
  EXPECT_EQ(covered, saved.done_units());
  EXPECT_EQ(sum, saved.sum[0]);

  const auto resume = [&](const WalkState& s, double share) {
    j.saved["indices"] = s;
    j.stop_after_units = 0;
    j.share = share;
    j.units = 0;
    return runtime::run_on_devices(w).sum.at(0);
  };
  EXPECT_EQ(resume(saved, 1.0), units * (units - 1) / 2);
  EXPECT_EQ(j.units, saved.done_units());
  WalkState forged = saved;  // a piece and the total changed alike
  forged.marks.front().sum[0] += 1;
  forged.sum[0] += 1;
  expect_refused([&] { resume(forged, 1.0); }, kMismatch);
  forged = saved;  // the total alone
  forged.sum[0] += 1;
  expect_refused([&] { resume(forged, 0.0); }, "inconsistent (its marks do not add up to its total)");
}

// ---- the matchcount program ----

/// The checkpoint text with its walk line changed by `edit` (fields: walk, tag, units, done
/// ranges, sum words, marks) and the checksum made right again, as a forger would.
std::string forge(const std::string& text, const std::function<void(std::vector<std::string>&)>& edit) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.rfind("checksum ", 0) == 0) break;
    if (line.rfind("walk ", 0) == 0) {
      std::vector<std::string> f;
      std::istringstream words(line);
      for (std::string w; words >> w;) f.push_back(w);
      edit(f);
      line.clear();
      for (const auto& w : f) line += (line.empty() ? "" : " ") + w;
    }
    out += line + "\n";
  }
  char sum[40];
  std::snprintf(sum, sizeof sum, "checksum %016" PRIx64 "\n", fnv1a64(out));
  return out + sum;
}

/// "a-b" with b moved by `by`.
std::string widened(const std::string& range, int by) {
  const auto dash = range.rfind('-');
  return range.substr(0, dash + 1) + std::to_string(std::stoull(range.substr(dash + 1)) + static_cast<std::uint64_t>(by));
}

TEST(CheckpointVerifyCli, ForgedCheckpointsAreRefusedAndHonestOnesResume) {
  const test::SlowCase c = test::slow_case();
  const pid_t pid = test::spawn_matchcount(c.args(), c.out, c.err, 30000);
  std::this_thread::sleep_for(std::chrono::milliseconds(900));
  kill(pid, SIGTERM);
  ASSERT_EQ(WEXITSTATUS(test::wait_status(pid)), 143) << test::slurp(c.err);
  const std::string good = test::slurp(c.ckpt);
  ASSERT_NE(good.find("\nwalk "), std::string::npos) << good;

  const std::string args = "--engine ryser --device cpu --checkpoint '" + c.ckpt + "' '" + c.matrix + "'";
  const auto run_on = [&](const std::string& text, const std::string& extra) {
    std::ofstream(c.ckpt, std::ios::trunc) << text;
    return test::run_matchcount(extra + args);
  };
  const auto expect_refused_cli = [&](const test::RunResult& r, const std::string& why) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(c.ckpt + ": " + why), std::string::npos) << r.err;
  };
  // The done units widened, with the last mark: an unverified resume skips those units.
  const std::string wide = forge(good, [](std::vector<std::string>& f) {
    f[3] = widened(f[3], 3);
    const auto last = f[5].rfind(';') == std::string::npos ? 0 : f[5].rfind(';') + 1;
    const auto colon = f[5].find(':', last);
    f[5] = f[5].substr(0, last) + widened(f[5].substr(last, colon - last), 3) + f[5].substr(colon);
  });
  expect_refused_cli(run_on(wide, "--verify-resume "), "the checkpoint's saved sums do not match a recomputation");
  const auto unverified = run_on(wide, "");
  EXPECT_EQ(unverified.exit_code, 0) << unverified.err;
  EXPECT_NE(unverified.out, c.expected) << "the forgery should change the count";
  // A word of the total flipped, in its last mark too.
  const std::string flipped = forge(good, [](std::vector<std::string>& f) {
    f[4][15] = f[4][15] == '0' ? '1' : '0';
    const auto last = f[5].rfind(':');
    f[5][last + 16] = f[5][last + 16] == '0' ? '1' : '0';
  });
  expect_refused_cli(run_on(flipped, "--verify-resume "), "the checkpoint's saved sums do not match a recomputation");
  // The done units widened alone: inconsistent, refused without recomputing.
  expect_refused_cli(run_on(forge(good, [](std::vector<std::string>& f) { f[3] = widened(f[3], 3); }), ""),
                     "the saved state of walk");
  // The honest file resumes to the count, and says what it recomputed.
  const auto r = run_on(good, "-v --verify-resume ");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, c.expected);
  EXPECT_NE(r.err.find("--verify-resume recomputed"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(c.ckpt));

  const auto alone = test::run_matchcount("--verify-resume '" + c.matrix + "'");
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_NE(alone.err.find("--verify-resume requires --checkpoint"), std::string::npos) << alone.err;
}

}  // namespace
}  // namespace matchcount
