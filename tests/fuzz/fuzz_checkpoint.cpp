// Fuzz target: the checkpoint file (src/checkpoint), opened as a resumed count opens it, its
// block values decoded as the pipeline decodes them and its walk states, with their marks,
// handed to WalkLedger as a resumed walk of either kind does (docs/fuzzing.md).
//
// Each input is tried twice: as it is, and with its last line replaced by the right checksum,
// so that mutations reach the lines behind the checksum. The fingerprint and block count the
// file names are the ones the count asks for, so that the file is not refused as another
// count's. A file that opens must write itself back as a file that opens with the same values
// and walk states and writes the same text again.
#include <unistd.h>

#include <bit>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <typeinfo>
#include <vector>

#include "core/hashing.hpp"
#include "matchcount/checkpoint.hpp"
#include "matchcount/error.hpp"
#include "pipeline/resume.hpp"
#include "runtime/work_units.hpp"

namespace {

using namespace matchcount;

[[noreturn]] void broken(const std::string& what) {
  std::fprintf(stderr, "fuzz check failed: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

bool one_line(const std::string& s) { return s.find_first_of("\n\r") == std::string::npos; }

/// Fields as the parser splits them: every separator starts a field, trailing empty ones too.
std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t at = 0;
  for (std::size_t e; (e = s.find(sep, at)) != std::string::npos; at = e + 1) out.push_back(s.substr(at, e - at));
  out.push_back(s.substr(at));
  return out;
}

/// Where the file lives while it is read: memory-backed when /dev/shm is there.
const std::string& scratch_path() {
  static const std::string path = [] {
    const std::string dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    return dir + "/matchcount-fuzz-checkpoint-" + std::to_string(getpid());
  }();
  return path;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

/// What the lines of the file name: the fingerprint and block count (as the count that resumes
/// would pass them), the blocks with a value line and the walk tags.
struct Named {
  std::uint64_t fingerprint = 0, blocks = 1;
  std::vector<std::uint64_t> values;
  std::vector<std::string> tags;
};

Named scan(const std::string& text) {
  const auto digits = [](const std::string& s, const char* allowed, std::size_t most) {
    return !s.empty() && s.size() <= most && s.find_first_not_of(allowed) == std::string::npos;
  };
  Named n;
  const std::vector<std::string> lines = split(text, '\n');
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const std::vector<std::string> f = split(lines[k], ' ');
    if (f.size() < 2) continue;
    if (k == 1 && f.size() == 2 && f[0] == "fingerprint" && digits(f[1], "0123456789abcdef", 16))
      n.fingerprint = std::stoull(f[1], nullptr, 16);
    if (k == 2 && f.size() == 2 && f[0] == "blocks" && digits(f[1], "0123456789", 19)) n.blocks = std::stoull(f[1]);
    if (f[0] == "value" && f.size() >= 3 && digits(f[1], "0123456789", 19)) n.values.push_back(std::stoull(f[1]));
    if (f[0] == "walk") n.tags.push_back(f[1]);
  }
  return n;
}

/// `text` with its last line replaced by "checksum <FNV-1a of the rest>".
std::string sealed(std::string text) {
  if (!text.empty() && text.back() == '\n') text.pop_back();
  const std::size_t last = text.rfind('\n');
  text.resize(last == std::string::npos ? 0 : last + 1);
  char sum[32];
  std::snprintf(sum, sizeof sum, "checksum %016" PRIx64 "\n", fnv1a64(text));
  return text + sum;
}

bool same(const Approx<double>& a, const Approx<double>& b) {
  return std::bit_cast<std::uint64_t>(a.value) == std::bit_cast<std::uint64_t>(b.value) &&
         std::bit_cast<std::uint64_t>(a.abs_error) == std::bit_cast<std::uint64_t>(b.abs_error) &&
         a.estimated == b.estimated;
}
bool same(const Approx<Complex>& a, const Approx<Complex>& b) {
  return std::bit_cast<std::uint64_t>(a.value.real()) == std::bit_cast<std::uint64_t>(b.value.real()) &&
         std::bit_cast<std::uint64_t>(a.value.imag()) == std::bit_cast<std::uint64_t>(b.value.imag()) &&
         std::bit_cast<std::uint64_t>(a.abs_error) == std::bit_cast<std::uint64_t>(b.abs_error) &&
         a.estimated == b.estimated;
}
bool same(const Integer& a, const Integer& b) { return a == b; }

/// A value the pipeline decodes must encode to text that decodes to the same value.
template <class V>
void check_value(const std::string& text) {
  V v{};
  if (!detail::decode_value(text, v)) return;
  V back{};
  if (!detail::decode_value(detail::encode_value(v), back) || !same(v, back))
    broken("the block value '" + text + "' does not survive encode_value");
}

/// Wrapping addition word by word: an exact addition of sums, as the device walks have.
void add_words(std::vector<std::uint64_t>& total, const std::vector<std::uint64_t>& sum) {
  for (std::size_t k = 0; k < total.size() && k < sum.size(); ++k) total[k] += sum[k];
}

/// WalkLedger refuses a saved walk state that does not fit (InputError) or takes one whose done
/// ranges are sorted, disjoint, not touching and within the walk's units, and whose marks are
/// what its kind of walk writes: for a walk in unit order (Prefix) ranges that follow each
/// other from 0 to the end of its one done range, the last with its total; for a walk of
/// exact sums (Pieces) disjoint ranges inside the done ones that cover them. The ranges it
/// would recompute (--verify-resume) are some of its marks, for a Prefix walk the last one.
void check_walk(WalkJournal* journal, const std::string& tag, WalkLedger::Marks kind) {
  const WalkState saved = journal->resume(tag);
  if (saved.units == 0) return;
  const std::string name = "walk '" + tag + (kind == WalkLedger::Marks::Prefix ? "' (prefix)" : "' (pieces)");
  try {
    WalkLedger ledger(journal, tag, saved.units, saved.sum.size(), nullptr, kind, add_words);
    const WalkState& s = ledger.state();
    std::uint64_t done = 0;
    for (std::size_t k = 0; k < s.done.size(); ++k) {
      const UnitRange& r = s.done[k];
      if (r.begin >= r.end || r.end > s.units || (k > 0 && s.done[k - 1].end >= r.begin))
        broken("WalkLedger took the malformed done ranges of " + name);
      done += r.size();
    }
    std::uint64_t left = 0;
    for (const UnitRange& r : s.remaining()) left += r.size();
    if (done != s.done_units() || done + left != s.units) broken("the done and remaining units of " + name + " do not add up");
    std::uint64_t covered = 0, at = 0;
    for (const WalkMark& m : s.marks) {
      if (m.range.begin >= m.range.end || m.range.begin < at || m.sum.size() != s.sum.size())
        broken("WalkLedger took malformed marks of " + name);
      if (kind == WalkLedger::Marks::Prefix && m.range.begin != at) broken("WalkLedger took marks with gaps of " + name);
      covered += m.range.size();
      at = m.range.end;
    }
    if (covered != done) broken("WalkLedger took marks that do not cover the done units of " + name);
    if (kind == WalkLedger::Marks::Prefix && done > 0 && (s.done.size() != 1 || s.marks.back().sum != s.sum))
      broken("WalkLedger took a prefix walk's marks that do not end at its total: " + name);
    const std::vector<VerifyRange> ranges = ledger.verification();
    for (std::size_t k = 0; k < ranges.size(); ++k) {
      bool mark = false;
      for (const WalkMark& m : s.marks) mark = mark || (m.range == ranges[k].range && m.sum == ranges[k].expect);
      if (!mark || (k > 0 && ranges[k - 1].range.end > ranges[k].range.begin))
        broken("a range to recompute that is no mark of " + name + ", or one twice");
    }
    if (done > 0 && (ranges.empty() || (kind == WalkLedger::Marks::Prefix && !(ranges.back().range == s.marks.back().range))))
      broken("--verify-resume would not recompute the range the total of " + name + " rests on");
  } catch (const InputError& e) {
    if (!one_line(e.what())) broken(std::string("a WalkLedger message of several lines: ") + e.what());
  }
}

/// What a checkpoint holds, copied out (two checkpoints of one file cannot be open at once:
/// the second would wait for the first's lock).
struct Held {
  std::vector<std::string> values;
  std::vector<WalkState> walks;
};

Held held(const std::unique_ptr<Checkpoint>& c, const Named& named) {
  Held h;
  for (const std::uint64_t i : named.values) h.values.push_back(c->block_value(i));
  for (const std::string& tag : named.tags) h.walks.push_back(c->journal()->resume(tag));
  return h;
}

/// The most bytes open() reads: far over what a fuzzer writes, so that every input is parsed.
constexpr std::uint64_t kMaxBytes = 1 << 24;

/// Opens `text` as a checkpoint file (with --verify-resume, so that walks offer what they
/// would recompute); nullptr when it is refused (with a proper message).
std::unique_ptr<Checkpoint> open(const std::string& text, const Named& named) {
  const std::string& path = scratch_path();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  auto checkpoint = std::make_unique<Checkpoint>(path, 1e9, true);
  try {
    checkpoint->open(named.fingerprint, named.blocks, kMaxBytes);
  } catch (const InputError& e) {
    const std::string what = e.what();
    if (!one_line(what)) broken("a checkpoint message of several lines: " + what);
    if (what.rfind(path + ":", 0) != 0) broken("a checkpoint message that does not name the file first: " + what);
    return nullptr;
  } catch (const std::exception& e) {
    broken(std::string("an exception other than InputError (") + typeid(e).name() + "): " + e.what());
  }
  return checkpoint;
}

void check_file(const std::string& text) {
  const Named named = scan(text);
  std::unique_ptr<Checkpoint> first = open(text, named);
  if (!first) return;
  for (const std::uint64_t i : named.values) {
    const std::string v = first->block_value(i);
    check_value<Integer>(v);
    check_value<Approx<double>>(v);
    check_value<Approx<Complex>>(v);
  }
  // Walks ask for their own tags, which hold no control characters; the message of a refusal
  // names the tag asked for.
  for (const std::string& tag : named.tags)
    if (one_line(tag)) {
      check_walk(first->journal(), tag, WalkLedger::Marks::Prefix);
      check_walk(first->journal(), tag, WalkLedger::Marks::Pieces);
    }

  if (!first->resumed()) return;  // an empty file
  if (!first->write()) broken("could not write the checkpoint back");
  const std::string written = slurp(scratch_path());
  const Held a = held(first, named);
  first.reset();
  const std::unique_ptr<Checkpoint> second = open(written, named);
  if (!second) broken("the checkpoint as written back is refused:\n" + written);
  const Held b = held(second, named);
  for (std::size_t k = 0; k < named.values.size(); ++k)
    if (a.values[k] != b.values[k]) broken("block value " + std::to_string(named.values[k]) + " differs after writing back");
  for (std::size_t k = 0; k < named.tags.size(); ++k) {
    const WalkState &x = a.walks[k], &y = b.walks[k];
    if (x.units != y.units || x.done != y.done || x.sum != y.sum || x.marks != y.marks)
      broken("the state of walk '" + named.tags[k] + "' differs after writing back");
  }
  if (!second->write()) broken("could not write the checkpoint back");
  if (slurp(scratch_path()) != written) broken("writing the checkpoint back twice gives two texts");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  check_file(text);
  check_file(sealed(text));
  std::remove(scratch_path().c_str());
  std::remove((scratch_path() + ".tmp").c_str());
  std::remove((scratch_path() + ".lock").c_str());
  return 0;
}
