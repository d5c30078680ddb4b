// The dense hafnian engines for general graphs (private to src/engines; the catalog makes them).
//
// "hafnian": Björklund's recursive algorithm (2012), pairs of vertices eliminated with
// polynomials truncated at degree n/2, extended to loop hafnians by a vector of path-to-a-loop
// polynomials (haf_walk.hpp). Exact counts run modulo small primes, four at a time in the lanes
// of one vector; floats walk the matrix in four vertex orders, one a lane, whose spread is the
// error estimate (haf_setup.hpp).
// "hafnian-brute": enumeration of the (loop) perfect matchings, the tests' oracle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "engines/graph_engine.hpp"
#include "matchcount/matrix.hpp"

namespace matchcount::engines {

/// Size limits of the two engines (their max_n, and the catalog's).
constexpr int kHafnianMaxN = 72, kHafnianBruteMaxN = 30;

/// name "hafnian": dense, O(n^2 2^(n/2)) multiply-adds, loops() true, max_n 72.
std::unique_ptr<GraphEngine> make_hafnian();
/// name "gpu-hafnian": the same walk on CUDA devices (cuda/haf_kernel.cuh), in work units;
/// counts on the CPU engine when CUDA fails; loops() true, max_n 72.
std::unique_ptr<GraphEngine> make_gpu_hafnian();
/// name "hafnian-brute": enumeration of the matchings, the oracle; loops() true, max_n 30.
std::unique_ptr<GraphEngine> make_hafnian_brute();

/// Planner cost model: predicted seconds of "hafnian" on an n x n block on `cores` cores;
/// `primes` = CRT primes of an exact count (0 for floats, hafnian_prime_count for integers),
/// kind Integer/Real/Complex, loops or not. Constants calibrated on a 2-core AMD EPYC (Zen 4).
double hafnian_seconds(int n, double primes, NumberKind kind, bool loops, int cores);

/// Planner cost model of "gpu-hafnian" on one device: `channels` walks in units of one prime's
/// walk (gpu_hafnian_exact_channels for exact counts, kGpuHafnianRealChannels,
/// kGpuHafnianComplexChannels) of hafnian_work(n, loops) scalar multiply-adds each, at a rate
/// calibrated in docs/benchmarks.md ("The GPU hafnian's cost model"), plus the start-up of the
/// device.
double gpu_hafnian_seconds(int n, double channels, bool loops);

/// A float block's walks in units of one prime's walk: four real vertex orders two a walk;
/// three complex orders and the real walk of |A| beside them (the same section).
constexpr double kGpuHafnianRealChannels = 4.5, kGpuHafnianComplexChannels = 8.5;

/// The exact GPU walk's channels of `a` in units of one prime's walk: its walk modulo 2^64 and
/// the primes beyond 64 bits of the bound (MATCHCOUNT_HAF_RING=primes: the primes alone).
double gpu_hafnian_exact_channels(const SparseMatrix<Integer>& a, bool loops);
/// The same for an n x n block whose hafnian_bound is `bound` (the planner computes it once).
double gpu_hafnian_exact_channels(int n, const Integer& bound);

/// Float hafnians of a batch of blocks of one size on the CUDA devices, each value with the
/// engine's estimate: up to gpu::kHafLaneMaxN vertices one walk a thread a vertex order
/// (gpu_haf::lane_hafnians; the walk of |A| only where an entry carries an error), beyond it
/// (or MATCHCOUNT_HAF_BATCH=walk) every block's kFloatWalks vertex orders as channels of one
/// gpu-hafnian walk, in jobs of 16383 blocks. GpuError without CUDA or a device.
template <class T>
std::vector<Approx<T>> gpu_hafnian_batch(const std::vector<SparseMatrix<T>>& blocks, bool loops, const EngineOptions& opt);

/// The exact GPU walk of `a` modulo each of `primes` (primes below 2^prime_bits of its half-size;
/// UsageError otherwise), residues in [0, p): a check of a count on primes of one's choosing
/// (matchcount-kernel-bench --haf-residues). GpuError without CUDA or a device.
std::vector<std::uint64_t> gpu_hafnian_residues(const SparseMatrix<Integer>& a, bool loops, const std::vector<double>& primes,
                                                const EngineOptions& opt);

/// The number of CRT primes (the small primes of the exact walk, below 2^24 or so) the exact
/// count of `a` needs: enough that their product exceeds 2 hafnian_bound(a, loops) + 1.
std::size_t hafnian_prime_count(const SparseMatrix<Integer>& a, bool loops);
/// The same for an n x n block whose hafnian_bound is `bound`.
std::size_t hafnian_prime_count(int n, const Integer& bound);

/// haf(A - i - j) for every pair i > j of an n x n symmetric integer block without loops (n
/// even, 2 <= n <= kHafnianMaxN, every vertex with an edge), at index i (i - 1) / 2 + j: the
/// hafnian's partial derivatives, exactly, from one reverse walk of the recursion
/// (haf_gradient.hpp) in about three times a count's work. `stop`, when set, is polled between
/// units; Interrupted when it says so.
std::vector<Integer> hafnian_minors(const SparseMatrix<Integer>& a, const EngineOptions& opt,
                                    const std::function<bool()>& stop = {});

/// Multiply-adds (of one 4-lane vector) of one walk of the recursion tree for an n x n block
/// (n rounded up to even), the cost model's work count.
double hafnian_work(int n, bool loops);

}  // namespace matchcount::engines
