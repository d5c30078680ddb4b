// The CPU ryser engine's exact walk over two low columns (src/engines/ryser/ryser_low_columns.hpp)
// against the plain walk (MATCHCOUNT_RYSER_LOW_COLUMNS=0) and the sparse walk: random blocks of
// many sizes, densities and entry ranges, classes of rows left empty, thread counts and a
// resumed checkpoint.
#include <gtest/gtest.h>

#include "catalog/catalog.hpp"
#include "core/tuning.hpp"
#include "memory_journal.hpp"
#include "test_support.hpp"

using namespace matchcount;

namespace {

/// The ryser engine with at most `low` low columns; `walk` names the walk that ran.
Integer ryser_with(const SparseMatrix<Integer>& a, int low, int threads = 0, std::string* walk = nullptr) {
  tuning::Tuning t = tuning::tuning();
  t.ryser_low_columns = low;
  const tuning::ScopedTuning knobs(t);
  test::MemoryJournal journal;
  EngineOptions o;
  o.threads = threads;
  o.journal = &journal;
  const Integer v = make_engine("ryser")->permanent(a, o);
  if (walk) *walk = journal.saved.empty() ? std::string() : journal.saved.begin()->first;
  return v;
}
bool low_walk(const std::string& tag) { return tag.find("ryser/exact-low2/") != std::string::npos; }


}  // namespace

// The walk runs where its model expects 25% less arithmetic than the plain walk's: on
// densities up to about 0.6, and not on dense blocks, whose rows every low column touches.
TEST(RyserLowColumns, AgreesWithThePlainWalkAndSparyser) {
  std::mt19937_64 rng(91);
  auto sparse = make_engine("sparyser");
  int checked = 0, low_runs = 0;
  for (int n = 10; n <= 21; ++n)
    for (double density : {0.25, 0.5, 0.8, 1.0})
      for (int kind = 0; kind < 3; ++kind) {
        const long lo = kind == 0 ? 1 : kind == 1 ? -9 : -1000, hi = kind == 0 ? 1 : kind == 1 ? 9 : 1000;
        auto a = test::without_empty_lines([&] { return test::random_integer(rng, n, density, lo, hi); });
        std::string walk, plain;
        const Integer low = ryser_with(a, 2, 0, &walk);
        EXPECT_EQ(low, ryser_with(a, 0, 0, &plain)) << "n=" << n << " density " << density << " kind " << kind;
        EXPECT_FALSE(low_walk(plain)) << plain;
        if (density <= 0.5) {
          EXPECT_TRUE(low_walk(walk)) << "n=" << n << " density " << density << ": " << walk;
        }
        if (density == 1.0) {
          EXPECT_FALSE(low_walk(walk)) << "n=" << n << ": " << walk;
        }
        low_runs += low_walk(walk);
        if (n <= 16) {
          EXPECT_EQ(low, sparse->permanent(a, {})) << "n=" << n;
        }
        ++checked;
      }
  EXPECT_EQ(checked, 144);
  EXPECT_GE(low_runs, 72);
}

// Empty classes: the two sparsest columns on one row each (disjoint or the same row), on
// every row (a full matrix: n!), and a zero column (permanent 0; the plain walk takes it).
TEST(RyserLowColumns, EmptyClassesOfRows) {
  std::mt19937_64 rng(92);
  for (int n : {12, 17}) {
    auto a = test::without_empty_lines([&] { return test::random_integer(rng, n, 0.7, -4, 6); });
    const SparseMatrix<Integer> first = test::one_entry_column(a, 2, 4, 3);
    for (const auto& b : {first, test::one_entry_column(first, 6, 9, 3), test::one_entry_column(first, 6, 4, 3)}) {
      std::string walk;
      EXPECT_EQ(ryser_with(b, 2, 0, &walk), ryser_with(b, 0)) << "n=" << n;
      EXPECT_TRUE(low_walk(walk)) << walk;
    }
    auto zero = a;
    std::erase_if(zero.entries, [](const Entry<Integer>& e) { return e.col == 1; });
    EXPECT_EQ(ryser_with(zero, 2), Integer(0));
  }
  auto ones = test::random_integer(rng, 15, 1.0, 1, 1);
  Integer f = 1;
  for (int i = 2; i <= 15; ++i) f *= i;
  EXPECT_EQ(ryser_with(ones, 2), f);
}

TEST(RyserLowColumns, ThreadCountsAndResumedWalks) {
  std::mt19937_64 rng(93);
  auto a = test::random_integer(rng, 24, 0.5, 1, 1);
  const Integer one = ryser_with(a, 2, 1);
  EXPECT_EQ(ryser_with(a, 2, 2), one);
  EXPECT_EQ(ryser_with(a, 0, 2), one);
  // A walk stopped after 100 of its units, then resumed from the journal with two threads.
  test::MemoryJournal journal;
  journal.stop_after_units = 100;
  EngineOptions o;
  o.threads = 1;
  o.journal = &journal;
  EXPECT_THROW(make_engine("ryser")->permanent(a, o), Interrupted);
  ASSERT_EQ(journal.saved.size(), 1u);
  EXPECT_NE(journal.saved.begin()->first.find("ryser/exact-low2/"), std::string::npos) << journal.saved.begin()->first;
  EXPECT_FALSE(journal.saved.begin()->second.complete());
  journal.stop_after_units = 0;
  o.threads = 2;
  EXPECT_EQ(make_engine("ryser")->permanent(a, o), one);
}
