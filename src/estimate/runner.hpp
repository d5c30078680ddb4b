// Internal to the estimation stage: a block's arrays on the host, and the samplers that run
// samples of it on the CPU (OpenMP) or a GPU (src/estimate/cuda/estimate_launch.cu).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "estimate/graph_path.hpp"
#include "estimate/sample_path.hpp"
#include "estimate/small_path.hpp"

namespace matchcount {
template <class T>
struct SparseMatrix;  // matchcount/matrix.hpp needs C++20, the CUDA sources are C++17
}  // namespace matchcount

namespace matchcount::estimate {

/// CSR and CSC of a nonnegative square block, with the Sinkhorn column scaling of the whole.
struct BlockData {
  int n = 0;
  int max_degree = 0;
  std::vector<int> row_start, col_of, col_start, row_of;
  std::vector<double> row_val, col_val, col_scale0;
  /// A perfect matching, row -> column (Hopcroft-Karp), the "+" methods' start; empty when
  /// the block has none (then their samples are 0).
  std::vector<int> match0;
  /// Blocks of at most 64 rows: patterns as bit masks, dense values unless all are 1.
  std::vector<std::uint64_t> row_bits, col_bits;
  std::vector<double> dense;
  bool unit = false;

  /// `a` square, entries positive and finite.
  static BlockData from(const SparseMatrix<double>& a);
  BlockView view() const;
  bool small() const { return n <= 64; }
  SmallBlock small_view() const;
};

/// Sweeps of the Sinkhorn scalings a block's samples start from: 500, or fewer where the block
/// is so large that 500 sweeps would outlast the samples (about 5e8 entry visits in all, and at
/// least 20 sweeps). The scaling only shapes the proposals, so stopping it early costs variance,
/// never bias, and the sweep count stays a function of the block (samples stay reproducible).
inline int scaling_sweeps(std::size_t entries) {
  return static_cast<int>(std::clamp(5e8 / static_cast<double>(std::max<std::size_t>(entries, 1)), 20.0, 500.0));
}

/// Where one warp per Rasmussen+ sample overtakes one thread per sample on the GPU.
constexpr int kWarpPlusRows = 1024;

/// A symmetric block (a general graph with nonnegative weights, no diagonal) on the host.
struct GraphData {
  int n = 0;
  int max_degree = 0;
  std::vector<int> start, adj;
  std::vector<double> val, scale0;
  /// A perfect matching, vertex -> partner (Edmonds), the "+" methods' start; empty when the
  /// graph has none (then their samples are 0).
  std::vector<int> mate0;
  /// The Bethe scaling's reverse slots and whole-graph messages (GraphView::rev, msg0);
  /// empty unless asked for.
  std::vector<int> rev;
  std::vector<double> msg0;

  /// `a` symmetric with both triangles, entries positive and finite; the diagonal is ignored.
  /// `bethe`: also the data of SampleParams::bethe.
  static GraphData from(const SparseMatrix<double>& a, bool bethe = false);
  GraphView view() const;
};

struct SamplerConfig {
  Method method = Method::ScalingPlus;
  SampleParams params;
  std::uint64_t seed = 1;
  std::uint32_t block_id = 0;  // part of every sample's random stream
  int threads = 0;             // CPU
  int device = 0;              // GPU
  /// Rasmussen methods on blocks of <= 64 rows use SmallPath (bit masks); tests turn it off
  /// to exercise Path on small blocks too.
  bool small_paths = true;
  /// GPU: on blocks of at least this many rows the lanes of a warp share the "+" methods'
  /// live-entry searches, and Rasmussen+ takes one sample per warp (one per thread below;
  /// the scaling methods always take a warp). docs/estimation.md has the measurements.
  int warp_plus_rows = kWarpPlusRows;
  /// The block is a general graph (GraphData, the hafnian), not a permanent's matrix.
  bool graph = false;
  /// Graphs: > 0 makes each sample a sequential Monte Carlo estimate over this many paths
  /// (graph_smc.hpp).
  int particles = 0;
};

/// Whether a sampler runs SmallPath for this block and config.
inline bool uses_small_path(const BlockData& b, const SamplerConfig& c) {
  return c.small_paths && b.small() && !is_scaling(c.method);
}

/// Samples are summed in batches of batch_samples(n) consecutive samples (from `first`),
/// merged in order, so that the sums do not depend on the thread or rank count. A batch is
/// one CPU thread's unit of work: on blocks of kSmallBatchRows rows or more, where a sample
/// can take a second, batches are small so that even the first round (256 samples) keeps
/// every core busy; from kOneSampleRows rows a batch is one sample: a time cap drops a batch
/// still running at the cap, and a batch of several samples that take seconds each would lose
/// them all.
constexpr std::uint64_t kBatch = 256;
constexpr int kSmallBatchRows = 4096;
constexpr int kOneSampleRows = 16384;
inline std::uint64_t batch_samples(int n) { return n >= kOneSampleRows ? 1 : n >= kSmallBatchRows ? 8 : kBatch; }
/// General graphs: batches of 8 from 512 vertices on, where a sample with full Sinkhorn sweeps
/// every step costs n^2 and batches of 256 would leave a round too few batches to share among
/// the cores, and of one sample from kSmallBatchRows vertices on (a sample there takes
/// seconds: see batch_samples); a resampled population is a batch of its own.
constexpr int kGraphSmallBatchVertices = 512;
inline std::uint64_t graph_batch_samples(int n, int particles) {
  return particles > 0 || n >= kSmallBatchRows ? 1
         : n >= kGraphSmallBatchVertices      ? std::min<std::uint64_t>(8, batch_samples(n))
                                              : batch_samples(n);
}

/// Runs samples first .. first + count - 1 of a block and returns their sums; the same
/// (config, first, count) gives the same bits.
class Sampler {
 public:
  virtual ~Sampler() = default;
  virtual SampleSums run(std::uint64_t first, std::uint64_t count) = 0;
  /// Under a time cap: the samples of run(first, count) up to `deadline`, a prefix of them
  /// (at least one batch) whose count the result gives. Samplers that cannot stop within a
  /// round run it whole (the GPU's round runs its samples side by side).
  virtual SampleSums run_until(std::uint64_t first, std::uint64_t count, std::chrono::steady_clock::time_point) {
    return run(first, count);
  }
  /// The same as parts that merge in order to run()'s result: per batch (batch_samples) on
  /// the CPU, so that ranks sharing a round (split at batch boundaries) give run()'s bits.
  virtual std::vector<SampleSums> run_parts(std::uint64_t first, std::uint64_t count) { return {run(first, count)}; }
  /// Under a time cap: samples still running at `t` are abandoned (the samples before them in
  /// the round are kept), so that a round ends by `t` however long one sample takes (the
  /// CPU's samplers; the GPU's rounds are sized to the cap by their measured wave times).
  virtual void stop_at(std::chrono::steady_clock::time_point t) { (void)t; }
  /// "cpu" or the GPU's name.
  virtual std::string device() const = 0;
  /// Samples a part of run_parts holds (0: batch_samples(n)): ranks sharing a round split it
  /// there.
  virtual std::uint64_t batch_size() const { return 0; }
  /// Samples drawn side by side, in about the time of one (a GPU's threads); rounds are made
  /// of whole waves of this many. 1: a round's time grows with its samples from the first.
  virtual std::uint64_t width() const { return 1; }
};

std::unique_ptr<Sampler> make_cpu_sampler(const BlockData& block, const SamplerConfig& config);
/// Throws GpuError when no GPU can run it (or the build has no CUDA).
std::unique_ptr<Sampler> make_gpu_sampler(const BlockData& block, const SamplerConfig& config);

/// The CPU sampler of a general graph: the sequential methods (graph_path.hpp) or the
/// determinant estimators (determinant_sample.hpp).
std::unique_ptr<Sampler> make_graph_cpu_sampler(const GraphData& graph, const SamplerConfig& config);
/// The GPU sampler of a general graph (the sequential methods); throws GpuError when no GPU
/// can run it, for a determinant estimator, or without CUDA.
std::unique_ptr<Sampler> make_gpu_graph_sampler(const GraphData& graph, const SamplerConfig& config);

/// E[one sample] of a sequential graph method by enumerating every sample path (small graphs
/// only); `dead_paths` as for path_expectation.
double graph_path_expectation(const GraphData& graph, const SamplerConfig& config, std::uint64_t* dead_paths = nullptr);

/// E[one sample] by enumerating every sample path (small blocks only: the paths multiply);
/// `dead_paths`, when given, receives the number of paths that end in a sample of 0.
double path_expectation(const BlockData& block, const SamplerConfig& config, std::uint64_t* dead_paths = nullptr);

}  // namespace matchcount::estimate
