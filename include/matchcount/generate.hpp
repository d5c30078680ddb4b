// Generators of standard instances, used by tests, benchmarks and `matchcount generate`.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

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

// --- general (non-bipartite) graphs: perfect matchings are hafnians ---------------------------
// Lattices number vertex (r, c) = r*n + c like grid_graph. A periodic direction wraps around and
// needs at least 3 sites (2 would double edges); open directions take any size >= 1.

/// Which directions of an m x n lattice wrap around: `rows` joins row m-1 to row 0 (the
/// vertical direction), `cols` joins column n-1 to column 0 (the horizontal direction).
struct Periodic {
  bool rows = false;
  bool cols = false;
};

/// Triangular lattice: the m x n grid plus the diagonal (r, c) -- (r+1, c+1) of every square
/// (degree 6 inside, 3 m n - 2 m - 2 n + 1 edges with open boundaries).
EdgeList triangular_graph(int m, int n, Periodic periodic = {});
/// King graph: the m x n grid plus both diagonals of every square (a king's moves).
EdgeList king_graph(int m, int n, Periodic periodic = {});
EdgeList complete_graph(int n);        ///< K_n: (n-1)!! perfect matchings for even n
EdgeList petersen_graph();             ///< 10 vertices, 15 edges, 6 perfect matchings
EdgeList icosahedron_graph();          ///< 12 vertices, 30 edges, 125 perfect matchings
EdgeList dodecahedron_graph();         ///< 20 vertices, 30 edges, 36 perfect matchings
/// Buckminsterfullerene C60, the truncated icosahedron: 60 vertices, 90 edges, 3-regular,
/// 12 pentagons and 20 hexagons, 12500 perfect matchings (Kekule structures).
EdgeList c60_graph();
/// Erdos-Renyi G(n, p): each pair u < v an edge with probability p (one draw per pair, pairs
/// in row-major order of the upper triangle).
EdgeList erdos_renyi_graph(int n, double p, std::uint64_t seed);
/// Random simple d-regular graph on n vertices (n*d even, 0 <= d < n): a random pairing of the
/// configuration model whose loops and repeated edges are removed by random switches; for
/// d > (n-1)/2 the complement of a random (n-1-d)-regular graph. RefusedError beyond 2^25
/// edges to repair.
EdgeList random_regular_graph(int n, int d, std::uint64_t seed);

/// The honeycomb graph of the hexagon with sides A, B, C, A, B, C on the triangular lattice:
/// its vertices are the hexagon's unit triangles (2(AB + BC + CA) of them), adjacent when they
/// share a side. Its perfect matchings are the lozenge tilings of the hexagon, MacMahon's
/// prod_{i<=A, j<=B, k<=C} (i+j+k-1)/(i+j+k-2) of them (A = B = C = 2: 20; 3: 980). The hexagon
/// has a horizontal top side of length A, then going clockwise sides of B, C, A, B, C. Vertices
/// are numbered in reading order of hexagon_coordinates (row by row from the top, left to right).
/// A, B, C >= 0.
EdgeList hexagon_graph(int a, int b, int c);

// --- vertex coordinates of the lattice families (matchcount-generate --names coordinates) ----
// (row, column) per vertex, in the family's vertex numbering; rows count down from the top,
// columns from the left, both from 0 (the hexagon's columns from 0 or 1, see below).

/// grid, torus, triangular and king m x n: vertex r*n + c is (r, c).
std::vector<std::pair<int, int>> grid_coordinates(int m, int n);
/// The Aztec diamond of order k: the square [x, x+1] x [y, y+1] is (k-1-y, x+k), so row 0 is
/// the top row and column 0 the leftmost column of the 2k x 2k box around the diamond.
std::vector<std::pair<int, int>> aztec_diamond_coordinates(int order);
/// The hexagon's unit triangles as (r, c): r is the horizontal strip (0 = top); c numbers the
/// triangles along the strip in the sheared (triangular-lattice) frame in which each strip
/// starts half an edge to the right of the one above: c even is a down-pointing triangle
/// (horizontal side on top), c odd an up-pointing one. Neighbours are (r, c +- 1) in the strip
/// and, across a horizontal side, the up-pointing (r, c) and the down-pointing (r+1, c-1).
/// The triangle's centre lies at x = (c + r + 1)/2 edge lengths (up to a shift of the whole
/// hexagon), y = (r + 1/3) sqrt(3)/2 for even c and (r + 2/3) sqrt(3)/2 for odd c (y down);
/// columns are shifted by an even number so that the smallest is 0 or 1.
std::vector<std::pair<int, int>> hexagon_coordinates(int a, int b, int c);
/// "r,c" for each (r, c): the names matchcount-generate --names coordinates writes.
std::vector<std::string> coordinate_names(const std::vector<std::pair<int, int>>& coordinates);

/// The symmetric adjacency matrix (both triangles; a repeated edge becomes 2, a loop (u, u) the
/// diagonal entry 1): its hafnian counts the perfect matchings of the graph.
SparseMatrix<Integer> adjacency_matrix(const EdgeList& g);

// --- random symmetric matrices (A = A^T; complex ones are symmetric, not Hermitian) ----------
// Positions (i, j) with i <= j are visited in row-major order of the upper triangle, one
// keep-draw each (with the rules of the random matrices below, src/generate/matrices.cpp), then
// the value draws of a kept entry; the diagonal takes part only with `diagonal` (loop weights for the loop hafnian),
// otherwise it draws nothing. The same seed gives the same matrix on every platform.

SparseMatrix<Integer> random_symmetric_01(int n, double p, bool diagonal, std::uint64_t seed);
SparseMatrix<Integer> random_symmetric_integer(int n, double density, long lo, long hi,
                                               bool diagonal, std::uint64_t seed);
SparseMatrix<double> random_symmetric_real(int n, double density, double lo, double hi,
                                           bool diagonal, std::uint64_t seed);
/// Real and imaginary parts uniform in [-1, 1).
SparseMatrix<Complex> random_symmetric_complex(int n, double density, bool diagonal,
                                               std::uint64_t seed);

/// Whether a matrix is square with A(i, j) == A(j, i) for every entry.
bool is_symmetric(const AnyMatrix& m);

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
/// decimals (RefusedError when the denominator is not 2^a 5^b); an exact value the readers
/// would refuse (text_readable) is a RefusedError too, never rounded.
void write_edge_list(std::ostream& out, const EdgeList& g, const std::string& comment);
/// The edge list with vertex v written as names[v] (names.size() == g.vertices): UsageError when
/// a name is empty, repeated, holds whitespace or starts with '#', '%' or '(' (the readers
/// would read it otherwise).
void write_edge_list(std::ostream& out, const EdgeList& g, const std::string& comment,
                     const std::vector<std::string>& names);
void write_matrix_market(std::ostream& out, const AnyMatrix& m, const std::string& comment);
void write_bipartite_edges(std::ostream& out, const SparseMatrix<Integer>& m,
                           const std::string& comment);
/// A digraph's arcs "u v [w]" (arc u -> v is entry A(u, v); read --as digraph). The
/// permanent of A counts the cycle covers of the digraph (loops are 1-cycles).
void write_arc_list(std::ostream& out, const SparseMatrix<Integer>& m,
                    const std::string& comment = "");

/// A symmetric matrix as a weighted undirected graph: "u v [w]" for each entry of the upper
/// triangle u <= v (a diagonal entry is a loop "u u w"; weight 1 is not written). Read it with
/// --as graph (loops are loop weights with --loop-hafnian). UsageError when `m` is not
/// symmetric; RefusedError when a weight has no exact decimal form.
void write_graph_edges(std::ostream& out, const AnyMatrix& m, const std::string& comment = "");
/// Matrix Market with the `symmetric` banner: only the lower triangle (row >= column) is
/// written, as the format says; readers mirror it. UsageError when `m` is not symmetric.
void write_matrix_market_symmetric(std::ostream& out, const AnyMatrix& m,
                                   const std::string& comment = "");

/// `value` as an exact decimal ("-0.125", "3"); false when the reduced denominator has a prime
/// factor other than 2 and 5.
bool exact_decimal(const Rational& value, std::string& out);
/// True when the readers take `value` written as a decimal: its decimal exponent, trailing zeros
/// included, within +-kMaxDecimalExponent (matchcount/io.hpp). Every double is; an exact value
/// beyond it (10^1001, 2^-1074 read exactly from a .npy file) has no text form that reads back,
/// and the writers refuse it (RefusedError naming the entry and the value).
bool text_readable(const Rational& value);
bool text_readable(const Integer& value);

}  // namespace matchcount
