// matchcount-generate's families of general (non-bipartite) graphs and symmetric matrices,
// whose perfect matchings are hafnians: each subcommand's options, canonical command line,
// description and generator. add_families (generate_families.cpp) places them in the list.

#include <charconv>
#include <cstdint>
#include <memory>
#include <string>

#include "generate_families.hpp"
#include "matchcount/generate.hpp"

namespace matchcount::cli {

namespace {

std::string num(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string seed_text(std::uint64_t seed) { return " --seed " + std::to_string(seed); }

/// An M x N lattice family's parameters.
struct LatticeParameters {
  int m = 0, n = 0;
  bool periodic = false, periodic_x = false, periodic_y = false;
  Periodic boundary() const { return Periodic{periodic || periodic_y, periodic || periodic_x}; }
  std::string flags() const {
    const Periodic b = boundary();
    return b.rows && b.cols ? " --periodic" : b.cols ? " --periodic-x" : b.rows ? " --periodic-y" : "";
  }
  std::string words() const {
    const Periodic b = boundary();
    return b.rows && b.cols ? "periodic in both directions (a torus)"
           : b.cols         ? "periodic across columns (a cylinder)"
           : b.rows         ? "periodic across rows (a cylinder)"
                            : "open boundaries";
  }
};

struct GraphParameters {
  LatticeParameters tri, king;
  int complete_n = 0;
  int gnp_n = 0;
  double gnp_p = 0;
  std::uint64_t gnp_seed = 1;
  int rr_n = 0, rr_d = 3;
  std::uint64_t rr_seed = 1;
};

/// A symmetric matrix family's parameters (the ones a family does not show keep their defaults).
struct SymmetricParameters {
  int n = 0;
  double density = 1.0;
  long lo = -9, hi = 9;
  double rlo = -1.0, rhi = 1.0;
  bool diagonal = false;
  std::uint64_t seed = 1;
};

struct MatrixParameters {
  SymmetricParameters s01, sint, sreal, scomplex;
};

const char* kHafnianNote =
    "A graph that is not bipartite has its perfect matchings counted as a hafnian: matchcount\n"
    "--as graph FILE, or matchcount --hafnian on --format mtx (the symmetric adjacency matrix).\n";

void add_lattice(const AddFamily& add, LatticeParameters& p, const std::string& name,
                 const std::string& summary, const std::string& description,
                 EdgeList (*make)(int, int, Periodic)) {
  auto& f = add(name, summary, Kind::Graph);
  f.app->description(description + kHafnianNote);
  f.app->add_option("M", p.m, "rows (>= 1; >= 3 when periodic across rows)")->required();
  f.app->add_option("N", p.n, "columns (>= 1; >= 3 when periodic across columns)")->required();
  f.app->add_flag("--periodic", p.periodic, "wrap around in both directions (a torus)");
  f.app->add_flag("--periodic-x", p.periodic_x, "wrap around across columns: column N-1 meets column 0");
  f.app->add_flag("--periodic-y", p.periodic_y, "wrap around across rows: row M-1 meets row 0");
  f.command = [&p, name] {
    return std::string(kProgram) + " " + name + " " + std::to_string(p.m) + " " + std::to_string(p.n) + p.flags();
  };
  f.describe = [&p, name] {
    return std::to_string(p.m) + " x " + std::to_string(p.n) + " " + name + " lattice, " + p.words() +
           "; perfect matchings (matchcount --as graph)";
  };
  f.graph = [&p, make] { return make(p.m, p.n, p.boundary()); };
  add_coordinate_names(f, [&p] { return grid_coordinates(p.m, p.n); }, "vertex names \"r,c\": row r, column c");
}

void add_fixed_graph(const AddFamily& add, const std::string& name, const std::string& summary,
                     const std::string& description, EdgeList (*make)()) {
  auto& f = add(name, summary, Kind::Graph);
  f.app->description(description + kHafnianNote);
  f.command = [name] { return std::string(kProgram) + " " + name; };
  f.describe = [summary] { return summary + " (matchcount --as graph)"; };
  f.graph = make;
}

/// The options every symmetric family has: N, --density (unless `p_name` names P instead),
/// --diagonal and --seed.
Family& add_symmetric(const AddFamily& add, SymmetricParameters& p, const std::string& name,
                      const std::string& summary, const std::string& description, Kind kind) {
  auto& f = add(name, summary, kind);
  f.app->description(description +
                     "\nWith --diagonal the diagonal is drawn too: loop weights, counted by\n"
                     "matchcount --loop-hafnian (matchcount --hafnian ignores them). --format mtx writes\n"
                     "the lower triangle under the Matrix Market `symmetric` banner.");
  f.app->add_option("N", p.n, "matrix size (>= 0)")->required();
  f.app->add_flag("--diagonal", p.diagonal, "draw diagonal entries too (loop weights)");
  f.app->add_option("--seed", p.seed, "random seed (same seed, same matrix)")->capture_default_str();
  return f;
}

std::string diagonal_text(const SymmetricParameters& p) { return p.diagonal ? " --diagonal" : ""; }
std::string diagonal_words(const SymmetricParameters& p) {
  return p.diagonal ? ", with diagonal (loop weights)" : ", zero diagonal";
}

}  // namespace

std::shared_ptr<void> add_general_graphs(const AddFamily& add) {
  auto parameters = std::make_shared<GraphParameters>();
  GraphParameters& p = *parameters;
  add_lattice(add, p.tri, "triangular", "M x N triangular lattice: the grid plus one diagonal per square",
              "The M x N triangular lattice: the M x N grid graph plus the diagonal (r,c) -- (r+1,c+1)\n"
              "of every square, so inner vertices have 6 neighbours; 3MN - 2M - 2N + 1 edges with open\n"
              "boundaries, 3MN on the torus. Vertex (r,c) = r*N + c (named \"r,c\" with --names\n"
              "coordinates). Perfect matchings of width 4:\n"
              "OEIS A309117 (triangular 4 2: 5, 4 4: 56, 4 6: 749).\n",
              &triangular_graph);
  add_lattice(add, p.king, "king", "M x N king graph: the grid plus both diagonals of every square",
              "The M x N king graph: the moves of a chess king on an M x N board, i.e. the grid graph\n"
              "plus both diagonals of every square (8 neighbours inside, 4MN on the torus).\n"
              "Vertex (r,c) = r*N + c (named \"r,c\" with --names coordinates). Perfect matchings\n"
              "of the 2n x 2n board: OEIS A239273\n"
              "(king 2 2: 3, 4 4: 280, 6 6: 3037561).\n",
              &king_graph);
  {
    auto& f = add("complete", "K_N: the complete graph ((N-1)!! perfect matchings)", Kind::Graph);
    f.app->description(
        "The complete graph K_N: every pair of the N vertices is an edge. For even N its perfect\n"
        "matchings are the (N-1)!! = 1*3*5*...*(N-1) pairings (OEIS A001147; K_6: 15, K_10: 945);\n"
        "the hafnian of the all-ones matrix J - I.\n" + std::string(kHafnianNote));
    f.app->add_option("N", p.complete_n, "number of vertices (>= 0)")->required();
    f.command = [&p] { return std::string(kProgram) + " complete " + std::to_string(p.complete_n); };
    f.describe = [&p] {
      return "complete graph K_" + std::to_string(p.complete_n) + "; perfect matchings (matchcount --as graph)";
    };
    f.graph = [&p] { return complete_graph(p.complete_n); };
  }
  add_fixed_graph(add, "petersen", "the Petersen graph (10 vertices, 6 perfect matchings)",
                  "The Petersen graph: outer 5-cycle 0..4, spokes i -- 5+i, inner pentagram\n"
                  "5+i -- 5+(i+2)%5. 3-regular, 15 edges, 6 perfect matchings.\n",
                  &petersen_graph);
  add_fixed_graph(add, "icosahedron", "the icosahedron graph (12 vertices, 125 perfect matchings)",
                  "The graph of the icosahedron: 12 vertices (0 top, 1..5 upper pentagon, 6..10 lower\n"
                  "pentagon, 11 bottom), 30 edges, 5-regular, 20 triangular faces; 125 perfect matchings.\n",
                  &icosahedron_graph);
  add_fixed_graph(add, "dodecahedron", "the dodecahedron graph (20 vertices, 36 perfect matchings)",
                  "The graph of the dodecahedron, built as the dual of the icosahedron (vertex = an\n"
                  "icosahedron face, faces in lexicographic order of their corners): 20 vertices,\n"
                  "30 edges, 3-regular, 12 pentagonal faces; 36 perfect matchings.\n",
                  &dodecahedron_graph);
  add_fixed_graph(add, "c60", "buckminsterfullerene C60 (60 vertices, 12500 perfect matchings)",
                  "Buckminsterfullerene C60, the truncated icosahedron: 60 vertices, 90 edges,\n"
                  "3-regular, 12 pentagons and 20 hexagons. Vertex 5u+k is the corner of the pentagon\n"
                  "that replaces icosahedron vertex u (see icosahedron) on the edge to u's k-th\n"
                  "neighbour. Its 12500 perfect matchings are the Kekule structures of C60.\n",
                  &c60_graph);
  {
    auto& f = add("gnp", "Erdos-Renyi random graph G(N, P)", Kind::Graph);
    f.app->description(
        "The Erdos-Renyi random graph G(N, P): each of the N(N-1)/2 pairs of vertices is an edge\n"
        "independently with probability P (pairs drawn in row-major order of the upper\n"
        "triangle). For the bipartite G(N, N, P) use er.\n" + std::string(kHafnianNote));
    f.app->add_option("N", p.gnp_n, "number of vertices (>= 0)")->required();
    f.app->add_option("P", p.gnp_p, "edge probability in [0, 1]")->required();
    f.app->add_option("--seed", p.gnp_seed, "random seed (same seed, same graph)")->capture_default_str();
    f.command = [&p] {
      return std::string(kProgram) + " gnp " + std::to_string(p.gnp_n) + " " + num(p.gnp_p) + seed_text(p.gnp_seed);
    };
    f.describe = [&p] {
      return "random graph G(" + std::to_string(p.gnp_n) + ", " + num(p.gnp_p) +
             "); perfect matchings (matchcount --as graph)";
    };
    f.graph = [&p] { return erdos_renyi_graph(p.gnp_n, p.gnp_p, p.gnp_seed); };
  }
  {
    auto& f = add("random-regular", "random simple D-regular graph on N vertices", Kind::Graph);
    f.app->description(
        "A random simple D-regular graph on N vertices (N*D even, D < N): a random pairing of\n"
        "the configuration model whose loops and repeated edges are removed by random edge\n"
        "switches (for D > (N-1)/2 the complement of a random (N-1-D)-regular graph). For the\n"
        "bipartite D-regular graph on N + N vertices use regular.\n" + std::string(kHafnianNote));
    f.app->add_option("N", p.rr_n, "number of vertices (>= 0)")->required();
    f.app->add_option("D", p.rr_d, "degree (0..N-1, N*D even)")->required();
    f.app->add_option("--seed", p.rr_seed, "random seed (same seed, same graph)")->capture_default_str();
    f.command = [&p] {
      return std::string(kProgram) + " random-regular " + std::to_string(p.rr_n) + " " + std::to_string(p.rr_d) +
             seed_text(p.rr_seed);
    };
    f.describe = [&p] {
      return "random " + std::to_string(p.rr_d) + "-regular graph on " + std::to_string(p.rr_n) +
             " vertices; perfect matchings (matchcount --as graph)";
    };
    f.graph = [&p] { return random_regular_graph(p.rr_n, p.rr_d, p.rr_seed); };
  }
  return parameters;
}

std::shared_ptr<void> add_symmetric_matrices(const AddFamily& add) {
  auto parameters = std::make_shared<MatrixParameters>();
  MatrixParameters& p = *parameters;
  {
    auto& s = p.s01;
    auto& f = add_symmetric(add, s, "symmetric-01", "random symmetric 0-1 matrix (hafnian)", 
                            "A random symmetric N x N 0-1 matrix: each position above the diagonal is 1\n"
                            "independently with probability P, mirrored below: the adjacency matrix of\n"
                            "G(N, P). Its hafnian counts perfect matchings.",
                            Kind::Symmetric);
    f.app->add_option("P", s.density, "probability that an entry is 1")->required();
    f.command = [&s] {
      return std::string(kProgram) + " symmetric-01 " + std::to_string(s.n) + " " + num(s.density) +
             diagonal_text(s) + seed_text(s.seed);
    };
    f.describe = [&s] {
      return "random symmetric 0-1 matrix, P = " + num(s.density) + diagonal_words(s) + "; hafnian";
    };
    f.matrix = [&s] { return AnyMatrix(random_symmetric_01(s.n, s.density, s.diagonal, s.seed)); };
  }
  {
    auto& s = p.sint;
    auto& f = add_symmetric(add, s, "symmetric-int", "random symmetric integer matrix (exact hafnian)",
                            "A random symmetric N x N integer matrix: each position on or above the\n"
                            "diagonal is nonzero with probability DENSITY, with a value drawn uniformly from\n"
                            "the nonzero integers in [LO, HI], mirrored below.",
                            Kind::Symmetric);
    f.app->add_option("--density", s.density, "probability that an entry is nonzero")->capture_default_str();
    f.app->add_option("--lo", s.lo, "smallest value")->capture_default_str();
    f.app->add_option("--hi", s.hi, "largest value")->capture_default_str();
    f.command = [&s] {
      return std::string(kProgram) + " symmetric-int " + std::to_string(s.n) + " --density " + num(s.density) +
             " --lo " + std::to_string(s.lo) + " --hi " + std::to_string(s.hi) + diagonal_text(s) + seed_text(s.seed);
    };
    f.describe = [&s] {
      return "random symmetric integer matrix, density " + num(s.density) + ", nonzero values in [" +
             std::to_string(s.lo) + ", " + std::to_string(s.hi) + "]" + diagonal_words(s) + "; hafnian";
    };
    f.matrix = [&s] {
      return AnyMatrix(random_symmetric_integer(s.n, s.density, s.lo, s.hi, s.diagonal, s.seed));
    };
  }
  {
    auto& s = p.sreal;
    auto& f = add_symmetric(add, s, "symmetric-real", "random symmetric real matrix (floating hafnian)",
                            "A random symmetric N x N real matrix: each position on or above the diagonal\n"
                            "is nonzero with probability DENSITY, with a value uniform in [LO, HI), mirrored\n"
                            "below. Values are written exactly as generated (shortest round-trip form).",
                            Kind::Symmetric);
    f.app->add_option("--density", s.density, "probability that an entry is nonzero")->capture_default_str();
    f.app->add_option("--lo", s.rlo, "lower end of the value range")->capture_default_str();
    f.app->add_option("--hi", s.rhi, "upper end of the value range")->capture_default_str();
    f.command = [&s] {
      return std::string(kProgram) + " symmetric-real " + std::to_string(s.n) + " --density " + num(s.density) +
             " --lo " + num(s.rlo) + " --hi " + num(s.rhi) + diagonal_text(s) + seed_text(s.seed);
    };
    f.describe = [&s] {
      return "random symmetric real matrix, density " + num(s.density) + ", values uniform in [" + num(s.rlo) +
             ", " + num(s.rhi) + ")" + diagonal_words(s) + "; hafnian";
    };
    f.matrix = [&s] {
      return AnyMatrix(random_symmetric_real(s.n, s.density, s.rlo, s.rhi, s.diagonal, s.seed));
    };
  }
  {
    auto& s = p.scomplex;
    auto& f = add_symmetric(add, s, "symmetric-complex", "random complex symmetric matrix (floating hafnian)",
                            "A random complex symmetric N x N matrix (A = A^T, not Hermitian): each position\n"
                            "on or above the diagonal is nonzero with probability DENSITY, with real and\n"
                            "imaginary parts uniform in [-1, 1), mirrored below (as in Gaussian boson sampling).",
                            Kind::SymmetricComplex);
    f.app->add_option("--density", s.density, "probability that an entry is nonzero")->capture_default_str();
    f.command = [&s] {
      return std::string(kProgram) + " symmetric-complex " + std::to_string(s.n) + " --density " +
             num(s.density) + diagonal_text(s) + seed_text(s.seed);
    };
    f.describe = [&s] {
      return "random complex symmetric matrix, density " + num(s.density) +
             ", real and imaginary parts uniform in [-1, 1)" + diagonal_words(s) + "; hafnian";
    };
    f.matrix = [&s] { return AnyMatrix(random_symmetric_complex(s.n, s.density, s.diagonal, s.seed)); };
  }
  return parameters;
}

}  // namespace matchcount::cli
