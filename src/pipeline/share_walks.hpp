// Rank 0 shares the work units of a block's walks with the other ranks of an MPI job: the
// block and the engine options go out as a kWalks job, and each rank runs the same engine on
// the same block with the team, taking units from rank 0 (src/runtime/team.hpp).
#pragma once

#include <string>
#include <vector>

#include "engines/engine.hpp"
#include "engines/hafnian/hafnian_repeated.hpp"
#include "runtime/team.hpp"

namespace matchcount::cluster {

/// Rank 0: whether a block planned for `engine` with this predicted time is shared out: the
/// engine's walks run in work units (its catalog row), several ranks run, and the block takes
/// at least MATCHCOUNT_MPI_MIN_SECONDS (default 0.5 s).
bool shares(const std::string& engine, double predicted_seconds);

/// What the walks of a shared block count (the other ranks call the same engine entry).
enum class Walks { Permanent = 0, Hafnian = 1, LoopHafnian = 2, Torontonian = 3, RepeatedHafnian = 4 };

/// Rank 0: the other ranks count their share of `engine`'s walks on block `a` (sent to
/// them with the options); returns the team for EngineOptions::team.
template <class T>
WalkTeam* share_walks(const std::string& engine, const SparseMatrix<T>& a, const EngineOptions& o,
                      Walks walks = Walks::Permanent);

/// Rank 0: the other ranks walk their share of the torontonian of the 2n x 2n matrix O (dense,
/// row-major) with gamma (2n values, or empty), on the GPUs where `gpu` (rank 0's choice, so
/// that every rank walks the same walk); returns the team for EngineOptions::team.
WalkTeam* share_torontonian(const std::vector<Complex>& o, const std::vector<Complex>& gamma, bool gpu,
                            const EngineOptions& eo);

/// Rank 0: the other ranks walk their share of the repeated-row hafnian of `in` (the engine's
/// input: integers, doubles or complex values); returns the team for EngineOptions::team.
template <class T>
WalkTeam* share_repeated_hafnian(const engines::RepeatedHafnian<T>& in, const EngineOptions& eo);

/// The kWalks job on the other ranks: this rank's share of the engine's walks on the block.
void serve_walks(Reader& in);

}  // namespace matchcount::cluster
