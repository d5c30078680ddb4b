// The only reader of the environment in the library: every knob is parsed here, once, so that
// a value means the same wherever it is used and `--explain -v` can show all of them.
#include "core/tuning.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "matchcount/tuning.hpp"

namespace matchcount::tuning {
namespace {

std::string on_off(bool b) { return b ? "on" : "off"; }
std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
/// A two-word knob: `yes` sets it, `no` clears it, anything else leaves the automatic choice.
void choose(std::optional<bool>& knob, const char* v, const char* yes, const char* no) {
  if (std::string(v) == yes) knob = true;
  else if (std::string(v) == no) knob = false;
  else knob.reset();
}
std::string chosen(const std::optional<bool>& knob, const char* yes, const char* no, const char* automatic) {
  return !knob ? automatic : *knob ? yes : no;
}
/// An integer knob that keeps its default when empty.
int int_or(const char* v, int fallback) { return *v ? std::atoi(v) : fallback; }

/// A knob: its variable, its meaning and default for display, how a value sets it, how its
/// current value reads. A knob of named choices (two to four) has no parse or show of its own:
/// its field `pick` reads i + 1 for words[i], 0 (its default, shown as `fallback`) otherwise.
struct Knob {
  const char* name;
  const char* meaning;
  const char* fallback;
  void (*parse)(Tuning&, const char*);
  std::string (*show)(const Tuning&);
  int Tuning::*pick = nullptr;
  static constexpr int kWords = 4;
  const char* words[kWords] = {};

  void set(Tuning& t, const char* v) const {
    if (!pick) return parse(t, v);
    const std::string s(v);
    t.*pick = 0;
    for (int i = 0; i < kWords; ++i)
      if (words[i] && s == words[i]) t.*pick = i + 1;
  }
  std::string read(const Tuning& t) const {
    if (!pick) return show(t);
    return t.*pick >= 1 && t.*pick <= kWords && words[t.*pick - 1] ? words[t.*pick - 1] : fallback;
  }
};

// Unknown words leave a knob at its default, as out-of-range numbers do where noted.
const Knob kKnobs[] = {
    {"MATCHCOUNT_SKIPPER_MODE", "form of the GPU SkipPer walk: skip (plain, with jumps) or halved",
     "planner's", nullptr, nullptr, &Tuning::skipper_mode, {"skip", "halved"}},
    {"MATCHCOUNT_SKIPPER_K", "local bits of a GPU SkipPer chunk (0: the planner's)", "0",
     [](Tuning& t, const char* v) { t.skipper_k = int_or(v, 0); },
     [](const Tuning& t) { return std::to_string(t.skipper_k); }},
    {"MATCHCOUNT_SKIPPER_TASK_BITS", "bits of a GPU SkipPer task (-1: the planner's)", "-1",
     [](Tuning& t, const char* v) { t.skipper_task_bits = int_or(v, -1); },
     [](const Tuning& t) { return std::to_string(t.skipper_task_bits); }},
    {"MATCHCOUNT_SKIPPER_START", "data: SkipPer kernels read chunk starts from memory instead of baking them in",
     "baked", [](Tuning& t, const char* v) { t.skipper_start_data = std::string(v) == "data"; },
     [](const Tuning& t) -> std::string { return t.skipper_start_data ? "data" : "baked"; }},
    {"MATCHCOUNT_GPU_ORDER", "columns: gpu-ryser orders columns sparsest first, rows as given", "greedy",
     [](Tuning& t, const char* v) { t.gpu_order_columns = std::string(v) == "columns"; },
     [](const Tuning& t) -> std::string { return t.gpu_order_columns ? "columns" : "greedy"; }},
    {"MATCHCOUNT_GPU_VERBOSE", "anything but empty or 0: GPU kernel choices and resources on stderr", "off",
     [](Tuning& t, const char* v) { t.gpu_verbose = *v && *v != '0'; },
     [](const Tuning& t) { return on_off(t.gpu_verbose); }},
    {"MATCHCOUNT_HAF_SHARED_KB", "KiB of shared memory a gpu-hafnian block holds frames in (4..220; 0: 48)", "0",
     [](Tuning& t, const char* v) { t.haf_shared_kb = int_or(v, 0); },
     [](const Tuning& t) { return std::to_string(t.haf_shared_kb); }},
    {"MATCHCOUNT_HAF_TASK_BLOCK", "the largest block of coefficients a gpu-hafnian lane computes at once (1, 2, 4; 0: 4)",
     "0", [](Tuning& t, const char* v) { t.haf_task_block = int_or(v, 0); },
     [](const Tuning& t) { return std::to_string(t.haf_task_block); }},
    {"MATCHCOUNT_HAF_PAIRS", "pairs or single: gpu-hafnian's exact and real walks take two channels (primes, vertex orders) at once or one",
     "pairs", nullptr, nullptr, &Tuning::haf_pairs, {"pairs", "single"}},
    {"MATCHCOUNT_HAF_RING", "z64, primes, z64alone or z64small: gpu-hafnian's exact walks take 64 bits of the count from a channel in the integers modulo 2^64 beside the first prime (beside one prime of about 47 bits where that covers the rest), every bit from primes, the channel modulo 2^64 in a walk of its own, or beside primes below 2^24 only",
     "z64", nullptr, nullptr, &Tuning::haf_ring, {"z64", "primes", "z64alone", "z64small"}},
    {"MATCHCOUNT_HAF_BATCH", "lanes, walk or expand: GPU batches of small float hafnians (up to 32 vertices) walk each matrix and order in a thread, as channels of the gpu-hafnian walk, or (up to 16 vertices) expand along the first vertex, 32 matrices a warp",
     "by size: expand from 8 to 14 vertices (12 with loops), lanes otherwise", nullptr, nullptr, &Tuning::haf_batch, {"lanes", "walk", "expand"}},
    {"MATCHCOUNT_WARP_PLUS_ROWS", "rows from which GPU Rasmussen+ takes one sample per warp", "planner's",
     [](Tuning& t, const char* v) { t.warp_plus_rows = std::atoi(v); },
     [](const Tuning& t) { return t.warp_plus_rows ? std::to_string(*t.warp_plus_rows) : std::string("planner's"); }},
    {"MATCHCOUNT_KERNEL_CACHE", "folder of compiled NVRTC kernels (empty: no cache)",
     "$XDG_CACHE_HOME/matchcount/kernels, else ~/.cache/matchcount/kernels",
     [](Tuning& t, const char* v) { t.kernel_cache = v; },
     [](const Tuning& t) { return t.kernel_cache.empty() ? std::string("none") : t.kernel_cache; }},
    {"MATCHCOUNT_NVRTC_DEFINES", "NAME=VALUE,... : macros for every NVRTC kernel (e.g. MCGPU_MIN_BLOCKS)", "none",
     [](Tuning& t, const char* v) {
       const std::string d = v;
       t.nvrtc_defines.clear();
       for (std::size_t p = 0; p < d.size();) {
         const std::size_t q = std::min(d.find(',', p), d.size());
         const std::string item = d.substr(p, q - p);
         if (const std::size_t eq = item.find('='); eq != std::string::npos)
           t.nvrtc_defines.emplace_back(item.substr(0, eq), item.substr(eq + 1));
         p = q + 1;
       }
     },
     [](const Tuning& t) {
       std::string s;
       for (const auto& [name, value] : t.nvrtc_defines) s += (s.empty() ? "" : ",") + name + "=" + value;
       return s.empty() ? std::string("none") : s;
     }},
    {"MATCHCOUNT_NVRTC_COLUMNS", "baked or shared: where specialised gpu-ryser kernels read their columns",
     "by density", [](Tuning& t, const char* v) { choose(t.nvrtc_bake_columns, v, "baked", "shared"); },
     [](const Tuning& t) { return chosen(t.nvrtc_bake_columns, "baked", "shared", "by density"); }},
    {"MATCHCOUNT_RYSER_LOW_COLUMNS", "0, 1 or 2: low columns whose subsets exact specialised gpu-ryser walks take in one step",
     "2", [](Tuning& t, const char* v) {
       const std::string s = v;
       if (s == "0" || s == "1" || s == "2") t.ryser_low_columns = s[0] - '0';
     },
     [](const Tuning& t) { return std::to_string(t.ryser_low_columns); }},
    {"MATCHCOUNT_NVRTC_BLOCK", "threads per block of specialised kernels (32..1024, a multiple of 32; else ignored)",
     "built-in", [](Tuning& t, const char* v) {
       const int b = std::atoi(v);
       t.nvrtc_block = b >= 32 && b <= 1024 && b % 32 == 0 ? b : 0;
     },
     [](const Tuning& t) { return t.nvrtc_block ? std::to_string(t.nvrtc_block) : std::string("built-in"); }},
    {"MATCHCOUNT_NVRTC_HYBRID_MEMORY", "shared or global: where hybrid kernels keep their memory rows", "if it fits",
     [](Tuning& t, const char* v) { choose(t.nvrtc_memory_shared, v, "shared", "global"); },
     [](const Tuning& t) { return chosen(t.nvrtc_memory_shared, "shared", "global", "if it fits"); }},
    {"MATCHCOUNT_NVRTC_VARIANT", "register or hybrid: the specialised gpu-ryser kernel variant, unchecked for spills",
     "planner's", nullptr, nullptr, &Tuning::nvrtc_variant, {"register", "hybrid"}},
    {"MATCHCOUNT_NVRTC_MEMORY_ROWS", "a hybrid kernel with this many memory rows (1..n-1; not with VARIANT=register)",
     "planner's", [](Tuning& t, const char* v) {
       if (*v) t.nvrtc_memory_rows = std::atoi(v);
       else t.nvrtc_memory_rows.reset();
     },
     [](const Tuning& t) { return t.nvrtc_memory_rows ? std::to_string(*t.nvrtc_memory_rows) : std::string("planner's"); }},
    {"MATCHCOUNT_NVRTC_COMPILE", "background or wait: a gpu-ryser kernel not in the cache is compiled beside the walk (generic kernel meanwhile) or before it",
     "by request", nullptr, nullptr, &Tuning::nvrtc_compile, {"background", "wait"}},
    {"MATCHCOUNT_MPI_MIN_SECONDS", "walks predicted shorter than this (seconds) stay on MPI rank 0", "0.5",
     [](Tuning& t, const char* v) { t.mpi_min_seconds = std::atof(v); },
     [](const Tuning& t) { return number(t.mpi_min_seconds); }},
    {"MATCHCOUNT_GPU_STACK_SECONDS", "a command's stack of small matrices goes to the GPU by default only where the CPU's kernels would take this long (seconds; starting the CUDA context is what it weighs)", "1",
     [](Tuning& t, const char* v) { t.gpu_stack_seconds = std::atof(v); },
     [](const Tuning& t) { return number(t.gpu_stack_seconds); }},
    {"MATCHCOUNT_LOG_ORDERING", "amd or metis: the fill-reducing ordering of --log's sparse LU",
     "by size", nullptr, nullptr, &Tuning::log_ordering, {"amd", "metis"}},
    {"MATCHCOUNT_HAFNIAN_RPT", "walk or kan: how --reps counts (the pair walk or Kan's moment formula)",
     "by cost", nullptr, nullptr, &Tuning::hafnian_rpt, {"walk", "kan"}},
    {"MATCHCOUNT_MATCHING_POLYNOMIAL", "dp or interpolate: how --matchings --polynomial counts (the frontier DP of polynomials or loop hafnians at n/2 + 1 points)",
     "by cost", nullptr, nullptr, &Tuning::matching_polynomial, {"dp", "interpolate"}},
    {"MATCHCOUNT_KASTELEYN_METHOD", "band or nested: how kasteleyn's exact determinants eliminate (banded, or nested dissection)",
     "by work", nullptr, nullptr, &Tuning::kasteleyn_method, {"band", "nested"}},
    {"MATCHCOUNT_PFAFFIAN_METHOD", "band or nested: how pfaffian's exact Pfaffians eliminate (banded, or nested dissection)",
     "by work", nullptr, nullptr, &Tuning::pfaffian_method, {"band", "nested"}},
};

/// The variables mpirun (Open MPI), Hydra (MPICH, Intel MPI) and srun (PMI, PMIx) give a rank.
constexpr const char* kRankVariables[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"};

/// The defaults, with the kernel cache where the user's cache folders put it.
Tuning defaults() {
  Tuning t;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d)
    t.kernel_cache = (std::filesystem::path(d) / "matchcount" / "kernels").string();
  else if (const char* h = std::getenv("HOME"); h && *h)
    t.kernel_cache = (std::filesystem::path(h) / ".cache" / "matchcount" / "kernels").string();
  return t;
}

Tuning from_environment() {
  Tuning t = defaults();
  for (const Knob& k : kKnobs)
    if (const char* v = std::getenv(k.name)) k.set(t, v);
  for (const char* v : kRankVariables) t.launched_by_mpi = t.launched_by_mpi || std::getenv(v);
  return t;
}

std::atomic<const Tuning*> overridden{nullptr};

}  // namespace

const Tuning& tuning() {
  static const Tuning from_env = from_environment();
  const Tuning* o = overridden.load(std::memory_order_acquire);
  return o ? *o : from_env;
}

ScopedTuning::ScopedTuning(Tuning t) : mine_(std::move(t)), before_(overridden.exchange(&mine_)) {}
ScopedTuning::~ScopedTuning() { overridden.store(before_); }

std::vector<KnobRow> knob_table() {
  const Tuning& t = tuning();
  std::vector<KnobRow> rows;
  const Tuning base = defaults();
  for (const Knob& k : kKnobs) rows.push_back({k.name, k.meaning, k.fallback, k.read(t), k.read(t) != k.read(base)});
  std::string launchers;
  for (const char* v : kRankVariables) launchers += (launchers.empty() ? "" : ", ") + std::string(v);
  rows.push_back({launchers, "set by mpirun, Hydra or srun: this process is a rank of an MPI job", "unset",
                  t.launched_by_mpi ? "set" : "unset", t.launched_by_mpi});
  return rows;
}

}  // namespace matchcount::tuning

namespace matchcount {

std::string tuning_text() {
  std::string s = "tuning knobs (environment; docs/usage.md, \"Tuning knobs\"):\n";
  for (const auto& r : tuning::knob_table()) {
    s += "  " + r.name + " = " + r.value + (r.changed ? "  (default: " + r.fallback + ")" : "") + "\n";
    s += "      " + r.meaning + "\n";
  }
  return s;
}

}  // namespace matchcount
