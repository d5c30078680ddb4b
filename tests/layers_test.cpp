// The layering of src/ (docs/architecture.md): a layer includes only its own headers and those
// of the layers it links, directly or through their DEPS. The layer table is the one the build
// writes (src/CMakeLists.txt, matchcount_layer: "name|folders|deps" per line), so the check
// follows the CMake targets as they are, not a copy of them. A file belongs to the layer of the
// deepest folder it lies in (src/engines/ryser/cuda/x.cu: ryser; src/engines/common.hpp:
// engines; src/runtime/mpi/...: runtime).
//
// Also: no `#include "../` in src/, apps/ or tests/ (src/ is the include root).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Layer {
  std::string name;
  std::vector<std::string> folders;  // relative to src/
  std::vector<std::string> deps;     // layer names
};

struct Include {
  std::string file;    // the including file, relative to src/
  int line = 0;
  std::string target;  // the included file, relative to src/
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep))
    if (!part.empty()) out.push_back(part);
  return out;
}

/// The layer a path under src/ belongs to: its deepest folder that a layer names ("" if none).
std::string layer_of(const std::vector<Layer>& layers, const std::string& path) {
  std::string best;
  std::size_t depth = 0;
  for (const Layer& l : layers)
    for (const std::string& f : l.folders)
      if (path.rfind(f + "/", 0) == 0 && f.size() + 1 > depth) {
        best = l.name;
        depth = f.size() + 1;
      }
  return best;
}

/// The layers `name` reaches through DEPS, itself included.
std::set<std::string> reachable(const std::vector<Layer>& layers, const std::string& name) {
  std::map<std::string, const Layer*> by_name;
  for (const Layer& l : layers) by_name[l.name] = &l;
  std::set<std::string> seen{name};
  std::vector<std::string> todo{name};
  while (!todo.empty()) {
    const std::string at = todo.back();
    todo.pop_back();
    const auto it = by_name.find(at);
    if (it == by_name.end()) continue;
    for (const std::string& d : it->second->deps)
      if (seen.insert(d).second) todo.push_back(d);
  }
  return seen;
}

/// One message per include that leaves the layer's links, per file in no layer, and per
/// DEPS entry that names no layer. Empty: the includes follow the links.
std::vector<std::string> check_includes(const std::vector<Layer>& layers, const std::vector<std::string>& files,
                                        const std::vector<Include>& includes) {
  std::vector<std::string> problems;
  std::set<std::string> names;
  for (const Layer& l : layers) names.insert(l.name);
  for (const Layer& l : layers)
    for (const std::string& d : l.deps)
      if (!names.count(d)) problems.push_back("layer " + l.name + " links " + d + ", which is no layer");
  for (const std::string& f : files)
    if (layer_of(layers, f).empty()) problems.push_back("src/" + f + ": in no layer's folder");
  std::map<std::string, std::set<std::string>> reach;
  for (const Include& inc : includes) {
    const std::string a = layer_of(layers, inc.file);
    if (a.empty()) continue;  // reported above
    const std::string where = "src/" + inc.file + ":" + std::to_string(inc.line) + ": ";
    const std::string b = layer_of(layers, inc.target);
    if (b.empty()) {
      problems.push_back(where + "includes \"" + inc.target + "\", which is in no layer");
      continue;
    }
    if (!reach.count(a)) reach[a] = reachable(layers, a);
    if (!reach[a].count(b))
      problems.push_back(where + "layer " + a + " includes layer " + b + ", which it does not link (\"" +
                         inc.target + "\")");
  }
  return problems;
}

/// The layer table the build wrote (MATCHCOUNT_LAYERS_FILE).
std::vector<Layer> read_layers(const fs::path& file) {
  std::vector<Layer> layers;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const std::size_t a = line.find('|'), b = line.find('|', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    layers.push_back({line.substr(0, a), split(line.substr(a + 1, b - a - 1), ';'), split(line.substr(b + 1), ';')});
  }
  return layers;
}

/// The text between the quotes of an `#include "..."` line ("" for any other line).
std::string quoted_include(const std::string& line) {
  std::size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos || line[i] != '#') return "";
  i = line.find_first_not_of(" \t", i + 1);
  if (i == std::string::npos || line.compare(i, 7, "include") != 0) return "";
  i = line.find_first_not_of(" \t", i + 7);
  if (i == std::string::npos || line[i] != '"') return "";
  const std::size_t end = line.find('"', i + 1);
  return end == std::string::npos ? "" : line.substr(i + 1, end - i - 1);
}

bool is_source(const fs::path& p) {
  const std::string e = p.extension().string();
  return e == ".cpp" || e == ".hpp" || e == ".cu" || e == ".cuh";
}

/// Every source file under `root`, relative to it, in a stable order.
std::vector<std::string> sources_under(const fs::path& root) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && is_source(e.path())) out.push_back(e.path().lexically_relative(root).generic_string());
  std::sort(out.begin(), out.end());
  return out;
}

const fs::path source_dir = MATCHCOUNT_SOURCE_DIR;

}  // namespace

TEST(Layers, IncludesFollowTheLinks) {
  const std::vector<Layer> layers = read_layers(MATCHCOUNT_LAYERS_FILE);
  ASSERT_GE(layers.size(), 10u) << "no layer table in " << MATCHCOUNT_LAYERS_FILE;
  const fs::path src = source_dir / "src";
  for (const Layer& l : layers)
    for (const std::string& f : l.folders) EXPECT_TRUE(fs::is_directory(src / f)) << "layer " << l.name << ": no src/" << f;

  const std::vector<std::string> files = sources_under(src);
  std::vector<Include> includes;
  for (const std::string& file : files) {
    std::ifstream in(src / file);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      const std::string inc = quoted_include(line);
      // Public headers (include/matchcount) are for every layer; generated ones have no folder.
      if (inc.empty() || inc.rfind("matchcount/", 0) == 0 || inc.find('/') == std::string::npos) continue;
      // A quoted include is looked up beside the including file first, then from src/.
      const fs::path beside = fs::path(file).parent_path() / inc;
      const bool local = fs::exists(src / beside);
      includes.push_back({file, n, local ? beside.lexically_normal().generic_string() : inc});
    }
  }
  EXPECT_GT(files.size(), 100u);
  EXPECT_GT(includes.size(), 100u);

  const std::vector<std::string> problems = check_includes(layers, files, includes);
  std::string report;
  for (const std::string& p : problems) report += "  " + p + "\n";
  EXPECT_TRUE(problems.empty()) << problems.size() << " include(s) across layers that do not link:\n"
                                << report << "(layers and their DEPS: src/CMakeLists.txt; see docs/architecture.md)";
}

TEST(Layers, TheCheckCatchesAViolation) {
  const std::vector<Layer> layers = {
      {"core", {"core"}, {}},
      {"engines", {"engines"}, {"core"}},
      {"ryser", {"engines/ryser"}, {"engines"}},
      {"frontier", {"engines/frontier"}, {"engines"}},
  };
  const std::vector<std::string> files = {"core/arith.hpp", "engines/common.hpp", "engines/ryser/ryser.cpp",
                                          "engines/ryser/cuda/kernel.cuh", "engines/frontier/cuda/launch.cu"};
  // Allowed: own layer, a direct DEPS entry, and one reached through DEPS.
  const std::vector<Include> fine = {
      {"engines/ryser/ryser.cpp", 3, "engines/ryser/cuda/kernel.cuh"},
      {"engines/ryser/ryser.cpp", 4, "engines/common.hpp"},
      {"engines/frontier/cuda/launch.cu", 5, "core/arith.hpp"},
  };
  EXPECT_TRUE(check_includes(layers, files, fine).empty());

  // A sibling's kernel, and an include upward from the shared layer.
  std::vector<Include> bad = fine;
  bad.push_back({"engines/frontier/cuda/launch.cu", 14, "engines/ryser/cuda/kernel.cuh"});
  bad.push_back({"engines/common.hpp", 7, "engines/ryser/ryser.hpp"});
  const auto problems = check_includes(layers, files, bad);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0],
            "src/engines/frontier/cuda/launch.cu:14: layer frontier includes layer ryser, which it does not link "
            "(\"engines/ryser/cuda/kernel.cuh\")");
  EXPECT_NE(problems[1].find("src/engines/common.hpp:7: layer engines includes layer ryser"), std::string::npos)
      << problems[1];

  // A file outside every layer, an include of a folder no layer owns, a DEPS entry of no layer.
  std::vector<Layer> broken = layers;
  broken[1].deps.push_back("gpu");
  const auto stray = check_includes(broken, {"gpu/old.cu", "core/arith.hpp"}, {{"core/arith.hpp", 2, "gpu/old.hpp"}});
  ASSERT_EQ(stray.size(), 3u);
  EXPECT_EQ(stray[0], "layer engines links gpu, which is no layer");
  EXPECT_EQ(stray[1], "src/gpu/old.cu: in no layer's folder");
  EXPECT_EQ(stray[2], "src/core/arith.hpp:2: includes \"gpu/old.hpp\", which is in no layer");

  EXPECT_EQ(quoted_include("  #  include \"engines/engine.hpp\"  // why"), "engines/engine.hpp");
  EXPECT_EQ(quoted_include("#include <vector>"), "");
  EXPECT_EQ(quoted_include("// #include \"core/arith.hpp\""), "");
}

TEST(Layers, NoParentRelativeIncludes) {
  int files = 0;
  for (const char* dir : {"src", "apps", "tests"}) {
    const fs::path root = source_dir / dir;
    for (const std::string& file : sources_under(root)) {
      ++files;
      std::ifstream in(root / file);
      std::string line;
      for (int n = 1; std::getline(in, line); ++n) {
        const std::string inc = quoted_include(line);
        EXPECT_FALSE(inc.rfind("../", 0) == 0 || inc.find("/../") != std::string::npos)
            << dir << "/" << file << ":" << n << ": #include \"" << inc << "\" (include from src/ instead)";
      }
    }
  }
  EXPECT_GT(files, 150);
}
