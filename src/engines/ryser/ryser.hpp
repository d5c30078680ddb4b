// The dense Ryser walk: on the CPU (SIMD Gray-code walk in work units) and on CUDA devices.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "engines/engine.hpp"

namespace matchcount::engines {

std::unique_ptr<Engine> make_ryser();
std::unique_ptr<Engine> make_gpu_ryser();

/// The CPU engine's exact walk time over the plain walk's for block `a`: below 1 where it takes
/// the walk over two low columns (ryser_low_columns.hpp), 1 elsewhere. For the planner.
double exact_walk_time_factor(const SparseMatrix<Integer>& a);

/// Largest side permanent_minors takes (its Gray code's steps fit 64 bits; time limits it first).
constexpr int kPermanentMinorsMaxN = 62;

/// perm(A - row i - column j) for every position (i, j) of an n x n integer block (every row and
/// column with an entry), row-major: the permanent's partial derivatives, exactly, from one
/// forward Gray-code walk of Glynn's formula for all primes at once (permanent_minors.cpp),
/// about six times a count's work. `stop`, when set, is polled between units; Interrupted when
/// it says so.
std::vector<Integer> permanent_minors(const SparseMatrix<Integer>& a, const EngineOptions& opt,
                                      const std::function<bool()>& stop = {});
/// Planner cost model of permanent_minors on `cores` cores (its primes from the bound of `a`).
double permanent_minors_seconds(const SparseMatrix<Integer>& a, int cores);

}  // namespace matchcount::engines
