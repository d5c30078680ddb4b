// matchcount-generate's subcommands (families): what each one holds, and the function that
// defines them all. The program itself (apps/matchcount_generate.cpp) renders and writes.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "matchcount/generate.hpp"

namespace matchcount::cli {

constexpr const char* kProgram = "matchcount-generate";

/// What a family produces; it decides the formats on offer. Symmetric: a symmetric integer or
/// real matrix (hafnians), written as Matrix Market `symmetric` or as a weighted graph edge
/// list; SymmetricComplex: the same without the edge list.
enum class Kind { Graph, Digraph, IntegerMatrix, FloatMatrix, Symmetric, SymmetricComplex };

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
  /// --names: "index" (vertex numbers) or "coordinates" ("r,c"); only families with
  /// `coordinates` (lattices: (row, column) per vertex, in the graph's numbering) offer it.
  std::string names = "index";
  std::function<std::vector<std::pair<int, int>>()> coordinates;
  /// A comment line saying what the coordinate names mean (with --names coordinates).
  std::string coordinates_note;
};

/// Registers a subcommand (name, one-line summary, kind) with its --format and --output.
using AddFamily = std::function<Family&(const std::string&, const std::string&, Kind)>;

/// Gives a lattice family its coordinates and the option --names index|coordinates; `note`
/// says what "r,c" means, for the file's comment.
void add_coordinate_names(Family& f, std::function<std::vector<std::pair<int, int>>()> coordinates,
                          const std::string& note);

struct FamilyParameters;

/// The families of general graphs and symmetric matrices (apps/generate_families_general.cpp),
/// called by add_families where they belong in the list; the result holds their parameters.
std::shared_ptr<void> add_general_graphs(const AddFamily& add);
std::shared_ptr<void> add_symmetric_matrices(const AddFamily& add);

/// Defines every family through `add`. Their options and lambdas refer to the parameters
/// returned, which must outlive parsing and rendering.
std::shared_ptr<FamilyParameters> add_families(const AddFamily& add);

}  // namespace matchcount::cli
