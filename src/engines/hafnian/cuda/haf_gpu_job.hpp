// The hafnian walk as the GPU runs it (HafJob), built by gpu_hafnian.cpp: the same recursion
// tree as the CPU walk (haf_walk.hpp), one scalar channel per prime or float lane. Internal to
// the library and its tests; run_hafnian_walk throws GpuError without CUDA or a device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "matchcount/gpu.hpp"

#ifdef __CUDACC__
#define MC_HAF_LANE_HD __host__ __device__
#else
#define MC_HAF_LANE_HD
#endif

namespace matchcount {

class WalkJournal;  // matchcount/checkpoint.hpp
namespace cluster {
class WalkTeam;  // matchcount/cluster.hpp
}

namespace gpu {

/// Zero coefficients stored below degree 0 of every device polynomial (the blocked
/// convolutions read up to 2B - 2 of them), and the largest half-size the kernel takes.
constexpr int kHafPad = 16, kHafMaxM = 36;

/// Doubles between consecutive polynomials of a walk of half-size m (times 2 for complex).
inline int haf_stride(int m) { return m + 1 + kHafPad; }

/// Number systems of the walk: residues modulo a prime below 2^24 (exact), doubles, complex,
/// the integers modulo 2^64 (exact; a root value's 64 bits held in a double's place),
/// Z64Mod: channel 0 modulo 2^64, the others modulo primes, channel 0 walked beside channel 1,
/// and Z64Big: channel 0 modulo 2^64 beside channel 1 modulo one prime below
/// haf_big_prime_limit(m) (two channels, no more).
enum class HafArith { Mod, Real, Complex, Z64, Z64Mod, Z64Big };

/// The number system of channel c of a group of `arith` (a prime's channel of any size is Mod
/// to the host: a residue in one word).
inline HafArith haf_channel_arith(HafArith arith, std::size_t c) {
  if (arith != HafArith::Z64Mod && arith != HafArith::Z64Big) return arith;
  return c == 0 ? HafArith::Z64 : HafArith::Mod;
}

/// The bound below which Z64Big's prime must lie at half-size m: each of a coefficient's
/// 2m + 2 products reduced within 7p/8, and its base within p, sum below 2^53.
inline double haf_big_prime_limit(int m) { return 0x1p53 / (1.75 * m + 2.75); }

/// Channels of one arithmetic, run side by side in one launch. A channel's root holds R =
/// haf_stride(m) rows of coefficients (-kHafPad..m) of the packed lower triangle of b (tri(n)
/// entries a row, entry (i, j), i > j, at tri(i) + j, coefficient 1 = a_ij), then with loops R
/// rows of the n loop polynomials (coefficient 0 = a_ii), then the polynomial 1 (R values):
/// coefficient-major, so that the warp's lanes, on consecutive entries, read consecutive
/// addresses. Complex values are (re, im) pairs.
struct HafGroup {
  HafArith arith = HafArith::Mod;
  std::size_t channels = 0;
  std::vector<double> roots;  // channel-major
  /// Per channel of a Mod, Z64Mod or Z64Big group: the prime and 1/p (0 for the channel modulo 2^64;
  /// empty for floats).
  std::vector<double> prime, pinv;
  /// A repeated walk's lane factors, channel-major: for each pair type t and k = 0..mult[t],
  /// (-1)^(mult - k) C(mult, k) (reduced modulo the channel's prime in a Mod group).
  std::vector<double> rpt_weights;
};

struct HafJob {
  int n = 0;  // even (odd loop blocks gained a vertex)
  bool loops = false;
  /// Not empty: the walk over repeated pair types (haf_rpt_walk.hpp) with these multiplicities
  /// in elimination order (they sum to n / 2); the root is the pattern's expanded matrix.
  std::vector<int> rpt_mult;
  std::vector<HafGroup> groups;
  /// Float groups: leaves are summed exactly as integers times 2^q (512-bit limbs).
  int q = 0;
  /// Multiply-adds of one channel's walk (hafnian_work), for sizing the runs.
  double walk_fmas = 0;
  bool verbose = false;  // MATCHCOUNT_GPU_VERBOSE: each device's set-up and runs on stderr
  int shared_kb = 0;  // shared memory per block for frames (0: the default)
  int task_block = 0;  // the largest task of a lane, in coefficients (1, 2 or 4; 0: 4)
  bool pair_channels = true;  // Mod and Real groups: two channels a walk (haf_mod2, haf_real2)
  int gpus = 0;  // the first `gpus` visible devices (0: all)
  std::function<void(double)> progress;
  WalkJournal* journal = nullptr;
  std::string tag;  // the walk's name in the journal and among MPI ranks
  cluster::WalkTeam* team = nullptr;
};

/// Appends one channel's root for an n0 x n0 block (padded to even n with a vertex whose loop
/// is 1) to `out`: value(i, j, w) is the w-th of the W doubles of entry (i, j), i >= j, and
/// `one` the value 1 in the channel's number system (a Z64 channel's 64 bits in a double).
void append_haf_root(std::vector<double>& out, int n0, bool loops, int W,
                     const std::function<double(int, int, int)>& value, double one = 1.0);

/// Words of one channel's sum: Mod 1 (the residue in [0, p)), Z64 1 (the sum modulo 2^64), Real
/// 8 limbs, Complex 16 limbs (re, then im) of 512-bit two's-complement fixed point.
std::size_t haf_channel_words(HafArith arith);

/// total += x for one channel's sum of haf_channel_words(arith) words: modulo 2^64 (Z64),
/// modulo p (Mod residues in [0, p)), or exactly in two's-complement limbs (floats).
void add_channel(HafArith arith, double p, std::uint64_t* total, const std::uint64_t* x);

struct HafResult {
  std::vector<std::uint64_t> words;  // every group's channels in order
  std::vector<std::uint64_t> units_per_device, units_by_rank;
  std::string note;  // device failures
  double run_seconds = 0;
  int shared_levels = 0;  // frames of vertex counts up to 2 * this in shared memory
};

/// The walk's unit depth: 2^depth units; fixed by m alone so that sums and checkpoints do not
/// depend on the devices.
int haf_unit_depth(int m);

/// A repeated walk's units (fixed by the multiplicities alone, as haf_unit_depth): ranges of
/// prod (mult + 1) / units consecutive leaves, each the choices of the first few types.
std::uint64_t haf_rpt_units(const std::vector<int>& mult);

/// Runs the walk on the GPUs; GpuError on any CUDA failure (or without CUDA).
HafResult run_hafnian_walk(const HafJob& job);

/// A batch of float walks for run_hafnian_lanes: `matrices` blocks of n vertices, n up to
/// kHafLaneMaxN (even: an odd loop block gained a vertex with loop 1), each walked in `walks`
/// vertex orders, one channel a (matrix, order): channel c walks matrix c / walks in order
/// c % walks. A matrix's root is root_values(n, loops) values of W doubles (W = 2 complex) in
/// its own order, as write_lane_root writes them: the entries (i, j), i > j, at tri(i) + j, then
/// with loops the n loops. A walk reads its entry (i, j) at lane_root_edge and its loop i at
/// order[i], and the walks from `spread` on read the entries' moduli (the walk of |A|).
struct HafLaneJob {
  int n = 0;
  bool loops = false, complex = false;
  int q = 0;  // leaves are summed exactly as integers times 2^q (512-bit limbs)
  bool verbose = false;  // MATCHCOUNT_GPU_VERBOSE: each launch's lanes and seconds on stderr
  std::size_t matrices = 0;
  int walks = 0, spread = 0;
  std::vector<int> orders;       // walk-major, n a walk: the matrix's vertex at each position
  const double* roots = nullptr;  // matrix-major, the caller's (a LaneRootBuffer's, best)
  std::size_t channels() const { return matrices * static_cast<std::size_t>(walks); }
  static std::size_t root_values(int n, bool loops) {
    return static_cast<std::size_t>(n) * static_cast<std::size_t>(n - 1) / 2 + (loops ? static_cast<std::size_t>(n) : 0);
  }
};

/// Host memory for the roots of a lane job, which the caller writes and run_hafnian_lanes copies
/// to the device: page-locked where CUDA is present, so that the copy runs at the bus's rate,
/// and kept (up to 64 MiB) for the next buffer of the process (page-locking costs more than
/// the copy it speeds); ordinary memory without CUDA or when page-locking fails. Not initialised.
class LaneRootBuffer {
 public:
  explicit LaneRootBuffer(std::size_t doubles);
  ~LaneRootBuffer();
  LaneRootBuffer(const LaneRootBuffer&) = delete;
  LaneRootBuffer& operator=(const LaneRootBuffer&) = delete;
  double* data() const { return data_; }

 private:
  double* data_ = nullptr;
  std::size_t capacity_ = 0;
  bool pinned_ = false;
};

/// The packed index of entry (a, b), a != b, of a lower triangle without its diagonal:
/// (i, j), i > j, at i(i - 1)/2 + j.
MC_HAF_LANE_HD inline int packed_edge(int a, int b) { return a > b ? a * (a - 1) / 2 + b : b * (b - 1) / 2 + a; }

/// Where a walk's entry at positions (i, j), i != j, lies in its matrix's root: the packed
/// index of the matrix's entry (order[i], order[j]).
MC_HAF_LANE_HD inline int lane_root_edge(const int* order, int i, int j) { return packed_edge(order[i], order[j]); }

/// Writes a matrix's root for run_hafnian_lanes at `out` (HafLaneJob's layout) for an n0 x n0
/// block, from the values append_haf_root takes (value(i, j, w), i >= j): the padding vertex
/// of an odd block has no edge and loop 1, as there.
template <class Value>
void write_lane_root(double* out, int n0, bool loops, int W, Value value) {
  const int n = n0 + n0 % 2;
  for (int i = 1; i < n; ++i)
    for (int j = 0; j < i; ++j)
      for (int w = 0; w < W; ++w) *out++ = i < n0 ? value(i, j, w) : 0.0;
  if (loops)
    for (int i = 0; i < n; ++i)
      for (int w = 0; w < W; ++w) *out++ = i < n0 ? value(i, i, w) : (w == 0 ? 1.0 : 0.0);
}

/// The largest n of run_hafnian_lanes.
constexpr int kHafLaneMaxN = 32;

/// Each channel's sum, haf_channel_words(Real or Complex) words as run_hafnian_walk gives
/// them, with one walk a thread instead of a warp (haf_lanes.cu), on the first device; channel
/// c of HafLaneJob at c * words.
std::vector<std::uint64_t> run_hafnian_lanes(const HafLaneJob& job);

/// Each channel's value (W doubles, channel c at c * W) by expansion along the first vertex
/// (haf_enum.cu) instead of Björklund's walk, on the first device: the same job, n up to
/// haf_enum::kMaxN (16); the values are haf_enum's on the host, bit for bit.
std::vector<double> run_hafnian_enum(const HafLaneJob& job);

/// run_hafnian_enum for one job after another: up to kInFlight jobs started on the device
/// and taken back in order, so that one job's roots cross the bus while the device expands the
/// job before, and the host writes the next job's roots and makes the last one's estimates
/// meanwhile. Each slot keeps its stream and buffers from job to job, and the process keeps one
/// queue's for the next. GpuError without CUDA or a device.
/// A job's results where a queue's take() left them, valid until its next start() (the CUDA
/// sources are C++17: no std::span).
template <class T>
struct JobResults {
  const T* data = nullptr;
  std::size_t size = 0;
  const T* begin() const { return data; }
  const T* end() const { return data + size; }
};
using EnumValues = JobResults<double>;       // run_hafnian_enum's values
using LaneSums = JobResults<std::uint64_t>;  // run_hafnian_lanes's channel sums

/// run_hafnian_lanes for one job after another, as EnumQueue does for the expansions: up to
/// kInFlight jobs on the device, taken back in order, each job in one launch. The slots'
/// buffers (a job's frames can take gigabytes) go back with the queue. GpuError without CUDA or
/// a device.
class LaneQueue {
 public:
  static constexpr int kInFlight = 2;
  struct State;  // the device side (haf_lane_jobs.cu)
  LaneQueue();
  ~LaneQueue();  // waits for the jobs not taken
  LaneQueue(const LaneQueue&) = delete;
  LaneQueue& operator=(const LaneQueue&) = delete;
  /// Starts `job` as EnumQueue::start does; false, starting nothing, where its frames need
  /// more than one launch (run_hafnian_lanes takes such a job).
  bool start(const HafLaneJob& job);
  /// The oldest started job's channel sums, as run_hafnian_lanes gives them; valid until the
  /// next start().
  LaneSums take();
  /// Jobs started and not taken.
  int in_flight() const;

 private:
  std::unique_ptr<State> state_;
};

class EnumQueue {
 public:
  static constexpr int kInFlight = 2;
  struct State;  // the device side (haf_enum.cu)
  EnumQueue();
  ~EnumQueue();  // waits for the jobs not taken
  EnumQueue(const EnumQueue&) = delete;
  EnumQueue& operator=(const EnumQueue&) = delete;
  /// Starts `job`, whose roots (page-locked, best) must stay as they are until take() returns
  /// it; at most kInFlight jobs may be started and not taken. True (an expansion always fits;
  /// LaneQueue::start's answer may be false).
  bool start(const HafLaneJob& job);
  /// The oldest started job's values, as run_hafnian_enum gives them, once the device has
  /// them; they stay valid until the next start().
  EnumValues take();
  /// Jobs started and not taken.
  int in_flight() const;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace gpu
}  // namespace matchcount
