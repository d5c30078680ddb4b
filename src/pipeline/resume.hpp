// Private to the pipeline: what ties a checkpoint to one count (a fingerprint of the input,
// the options and the plan) and the text form of the block values it stores.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engines/engine.hpp"
#include "matchcount/pipeline.hpp"
#include "matchcount/value.hpp"

namespace matchcount::detail {

/// Hash of the matrix counted, the options that shape the plan, and the blocks with their
/// planned engines: a checkpoint is resumed only by the count that wrote it.
template <class T>
std::uint64_t count_fingerprint(const SparseMatrix<T>& a, const CountOptions& options,
                                const std::vector<SparseMatrix<T>>& blocks, const std::vector<EnginePlan>& plans);

/// Block values as checkpoint text ("int <hex>", "real <bits> <bits>", "complex ..."); exact
/// for every value (doubles as their bit patterns).
std::string encode_value(const Integer& v);
std::string encode_value(const Approx<double>& v);
std::string encode_value(const Approx<Complex>& v);
/// False when `text` is not the encoding of a value of this type.
bool decode_value(const std::string& text, Integer& v);
bool decode_value(const std::string& text, Approx<double>& v);
bool decode_value(const std::string& text, Approx<Complex>& v);

/// A resumed block value is at most the proven bound on the block's permanent (hafnian, loop
/// hafnian): core's permanent_bound and hafnian_bound for integers; for floats the products of
/// absolute row sums (of sqrt(row sums) plus loop weights for hafnians), with the value's
/// error bound and a relative slack of 1e-9 for rounding. A value beyond it cannot come from
/// this block: the checkpoint is corrupt. Non-finite float values are not judged.
bool within_permanent_bound(const SparseMatrix<Integer>& block, const Integer& v);
bool within_permanent_bound(const SparseMatrix<double>& block, const Approx<double>& v);
bool within_permanent_bound(const SparseMatrix<Complex>& block, const Approx<Complex>& v);
bool within_hafnian_bound(const SparseMatrix<Integer>& block, bool loops, const Integer& v);
bool within_hafnian_bound(const SparseMatrix<double>& block, bool loops, const Approx<double>& v);
bool within_hafnian_bound(const SparseMatrix<Complex>& block, bool loops, const Approx<Complex>& v);
/// The most bytes a checkpoint of a count of these blocks can hold (Checkpoint::open refuses a
/// larger file unread): a generous bound from the input, never from the file. The header, each
/// block's value line at the length its proven bound allows (80 bytes for floats), and for the
/// running block's walks (one per prime and a few more: P = bits of the bound / 48 + 2, 4 for
/// floats) 320 KiB each: done ranges, sums and marks take a few KiB a walk in practice.
/// Hafnian counts give `loops` and which blocks are `bipartite` (permanents); else every block
/// is a permanent's.
template <class T>
std::uint64_t checkpoint_size_limit(const std::vector<SparseMatrix<T>>& blocks, bool hafnian = false,
                                    bool loops = false, const std::vector<char>& bipartite = {});

/// The resume summary of a count with a checkpoint (CountReport::resume), before it completes.
inline ResumeSummary resume_summary(const Checkpoint* checkpoint) {
  return checkpoint ? checkpoint->summary() : ResumeSummary{};
}

inline constexpr const char* kBeyondBound =
    "the checkpoint is corrupt: a block's saved value exceeds the proven bound on its permanent "
    "(hafnian); remove it to start afresh";

}  // namespace matchcount::detail
