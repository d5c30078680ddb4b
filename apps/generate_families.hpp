// matchcount-generate's subcommands (families): what each one holds, and the function that
// defines them all. The program itself (apps/matchcount_generate.cpp) renders and writes.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>

#include "matchcount/generate.hpp"

namespace matchcount::cli {

constexpr const char* kProgram = "matchcount-generate";

/// What a family produces; it decides the formats on offer.
enum class Kind { Graph, Digraph, IntegerMatrix, FloatMatrix };

/// One subcommand: its parameters live in FamilyParameters, read by the lambdas.
struct Family {
  CLI::App* app = nullptr;
  Kind kind = Kind::Graph;
  std::string format;
  std::string output;
  /// The canonical command line (all parameters, defaults included) and a description.
  std::function<std::string()> command;
  std::function<std::string()> describe;
  std::function<EdgeList()> graph;            // Kind::Graph
  std::function<AnyMatrix()> matrix;          // the other kinds
};

/// Registers a subcommand (name, one-line summary, kind) with its --format and --output.
using AddFamily = std::function<Family&(const std::string&, const std::string&, Kind)>;

struct FamilyParameters;

/// Defines every family through `add`. Their options and lambdas refer to the parameters
/// returned, which must outlive parsing and rendering.
std::shared_ptr<FamilyParameters> add_families(const AddFamily& add);

}  // namespace matchcount::cli
