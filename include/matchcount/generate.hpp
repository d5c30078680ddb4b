// Generators of standard instances, used by tests, benchmarks and `matchcount generate`.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "matchcount/matrix.hpp"

namespace matchcount {

/// An undirected graph as an edge list over vertices 0..vertices-1 (each edge once).
struct EdgeList {
  int vertices = 0;
  std::vector<std::pair<int, int>> edges;
};

EdgeList grid_graph(int m, int n);              ///< m x n grid (dimer coverings)
EdgeList torus_graph(int m, int n);             ///< C_m x C_n
EdgeList hypercube_graph(int d);                ///< Q_d
EdgeList aztec_diamond_graph(int order);        ///< the dual graph of the Aztec diamond
EdgeList prism_graph(int n);                    ///< C_n x K_2

/// Biadjacency matrix of a bipartite graph (2-coloured by BFS); throws RefusedError
/// when the graph is not bipartite.
SparseMatrix<Integer> biadjacency(const EdgeList& g);

SparseMatrix<Integer> complete_bipartite(int n);                      ///< all-ones J_n
SparseMatrix<Integer> erdos_renyi_bipartite(int n, double p, std::uint64_t seed);
/// Random d-regular bipartite graph on n + n vertices (union of d repaired random permutations).
SparseMatrix<Integer> random_regular_bipartite(int n, int d, std::uint64_t seed);
SparseMatrix<Integer> random_digraph(int n, double p, std::uint64_t seed, bool loops);
SparseMatrix<Integer> complete_loopless_digraph(int n);               ///< J - I
SparseMatrix<Integer> band_matrix(int n, int half_width);             ///< |i-j| <= w
SparseMatrix<Integer> random_integer_matrix(int n, double density, long lo, long hi,
                                            std::uint64_t seed);
SparseMatrix<double> random_real_matrix(int n, double density, double lo, double hi,
                                        std::uint64_t seed);
SparseMatrix<Complex> random_complex_matrix(int n, double density, std::uint64_t seed);

/// Writers for the formats read_input understands.
void write_edge_list(std::ostream& out, const EdgeList& g);   ///< "u v" per line (read --as graph)
void write_matrix_market(std::ostream& out, const AnyMatrix& m);  ///< coordinate, general
void write_bipartite_edges(std::ostream& out, const SparseMatrix<Integer>& m);  ///< "r<i> c<j> [w]"

/// The writers above with comment lines first (`comment` may hold several lines; each is
/// written after "# ", or "% " below the Matrix Market banner). Vertex numbers, r<i> and c<j>
/// are 0-based; Matrix Market indices are 1-based. Rational entries are written as exact
/// decimals (RefusedError when the denominator is not 2^a 5^b).
void write_edge_list(std::ostream& out, const EdgeList& g, const std::string& comment);
void write_matrix_market(std::ostream& out, const AnyMatrix& m, const std::string& comment);
void write_bipartite_edges(std::ostream& out, const SparseMatrix<Integer>& m,
                           const std::string& comment);
/// A digraph's arcs "u v [w]" (arc u -> v is entry A(u, v); read --as digraph). The
/// permanent of A counts the cycle covers of the digraph (loops are 1-cycles).
void write_arc_list(std::ostream& out, const SparseMatrix<Integer>& m,
                    const std::string& comment = "");

/// `value` as an exact decimal ("-0.125", "3"); false when the reduced denominator has a prime
/// factor other than 2 and 5.
bool exact_decimal(const Rational& value, std::string& out);

}  // namespace matchcount
