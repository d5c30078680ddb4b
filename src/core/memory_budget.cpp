// Memory budgets (matchcount/memory.hpp): what the system lets this process use, and sizes as
// people type and read them.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

#include "core/resident.hpp"
#include "matchcount/memory.hpp"

namespace matchcount {
namespace {

constexpr double kNone = std::numeric_limits<double>::infinity();

/// The first number in `path` (a cgroup limit; "max" and unreadable files give none).
double number_in(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word) || word == "max") return kNone;
  try {
    const double v = std::stod(word);
    // cgroup v1 writes "no limit" as a page-rounded 2^63.
    return v > 0 && v < 0x1p62 ? v : kNone;
  } catch (const std::exception&) {
    return kNone;
  }
}

/// MemAvailable of /proc/meminfo in bytes (none when it cannot be read).
double mem_available() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  double kib = 0;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kib * 1024;
  }
  return kNone;
}

/// The memory limit of this process's cgroup: its own folder under /sys/fs/cgroup (as
/// /proc/self/cgroup names it) or, inside a container that mounts its cgroup as the root, the
/// root's files.
double cgroup_limit() {
  double limit = std::min(number_in("/sys/fs/cgroup/memory.max"), number_in("/sys/fs/cgroup/memory/memory.limit_in_bytes"));
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1), path = line.substr(second + 1);
    if (path.empty() || path == "/") continue;
    if (controllers.empty()) limit = std::min(limit, number_in("/sys/fs/cgroup" + path + "/memory.max"));
    if (controllers.find("memory") != std::string::npos)
      limit = std::min(limit, number_in("/sys/fs/cgroup/memory" + path + "/memory.limit_in_bytes"));
  }
  return limit;
}

double resource_limit(int resource) {
  struct rlimit r{};
  if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return kNone;
  return double(r.rlim_cur);
}

}  // namespace

double available_memory() {
  double bytes = std::min({mem_available(), cgroup_limit(), resource_limit(RLIMIT_AS), resource_limit(RLIMIT_DATA)});
  if (std::isinf(bytes)) {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    bytes = pages > 0 && page > 0 ? double(pages) * double(page) : 0x1p33;
  }
  return bytes;
}

double resident_bytes() {
  // statm's second field: resident pages. A read costs a few microseconds.
  std::ifstream in("/proc/self/statm");
  double size = 0, pages = 0;
  if (!(in >> size >> pages)) return 0;
  static const long page = sysconf(_SC_PAGESIZE);
  return pages * double(page > 0 ? page : 4096);
}

double default_max_memory() {
  // Read once, when the process first asks: counts made one after another (estimates count
  // many small blocks) share one budget, and the files are not read again for each.
  static const double budget = 0.75 * available_memory();
  return budget;
}

std::optional<double> parse_memory_size(std::string_view text) {
  std::string s(text);
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  if (s.empty() || !(std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '.')) return std::nullopt;
  // Decimal numbers only (stod would also take hexadecimal ones; no unit has an x).
  if (s.find_first_of("xX") != std::string::npos) return std::nullopt;
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string unit = s.substr(used);
  unit.erase(unit.begin(), std::find_if(unit.begin(), unit.end(), not_space));
  for (char& c : unit) c = char(std::tolower(static_cast<unsigned char>(c)));
  static const std::pair<const char*, double> kUnits[] = {
      {"", 1},          {"b", 1},           {"k", 0x1p10},     {"kib", 0x1p10},  {"kb", 1e3},
      {"m", 0x1p20},    {"mib", 0x1p20},    {"mb", 1e6},       {"g", 0x1p30},    {"gib", 0x1p30},
      {"gb", 1e9},      {"t", 0x1p40},      {"tib", 0x1p40},   {"tb", 1e12}};
  for (const auto& [name, scale] : kUnits)
    if (unit == name) {
      const double bytes = v * scale;
      if (!std::isfinite(bytes) || bytes < 0 || bytes > 0x1p63) return std::nullopt;
      return bytes;
    }
  return std::nullopt;
}

std::string memory_text(double bytes) {
  if (!std::isfinite(bytes)) return "unlimited";
  static const char* kNames[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int k = 0;
  double v = bytes;
  while (v >= 1024 && k < 5) v /= 1024, ++k;
  char buf[48];
  if (k == 0) std::snprintf(buf, sizeof buf, "%.0f bytes", v);
  else std::snprintf(buf, sizeof buf, v >= 100 ? "%.0f %s" : "%.3g %s", v, kNames[k]);
  return buf;
}

}  // namespace matchcount
