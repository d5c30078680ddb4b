// matchcount-generate's families: each subcommand's options, canonical command line,
// description and generator.

#include "generate_families.hpp"

#include <charconv>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "matchcount/generate.hpp"

namespace matchcount::cli {

/// Every family's parameters, bound to the subcommands' options and read by their lambdas.
struct FamilyParameters {
  int grid_m = 0, grid_n = 0;
  int torus_m = 0, torus_n = 0;
  int cube_d = 0;
  int aztec_k = 0;
  int hex_a = 0, hex_b = 0, hex_c = 0;
  int prism_n = 0;
  int kb_n = 0;
  int er_n = 0;
  double er_p = 0;
  std::uint64_t er_seed = 1;
  int reg_n = 0, reg_d = 3;
  std::uint64_t reg_seed = 1;
  int dg_n = 0;
  double dg_p = 0;
  std::uint64_t dg_seed = 1;
  bool dg_loops = false;
  int cd_n = 0;
  int band_n = 0, band_w = 0;
  int ri_n = 0;
  double ri_density = 1.0;
  long ri_lo = -9, ri_hi = 9;
  std::uint64_t ri_seed = 1;
  int rg_n = 0;
  double rg_density = 1.0, rr_lo = -1.0, rr_hi = 1.0;
  std::uint64_t rg_seed = 1;
  int rc_n = 0;
  double rc_density = 1.0;
  std::uint64_t rc_seed = 1;
  std::shared_ptr<void> general_graphs, symmetric_matrices;  // their own parameters
};

namespace {

std::string num(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string dims(int a, int b) { return std::to_string(a) + " " + std::to_string(b); }

}  // namespace

void add_coordinate_names(Family& f, std::function<std::vector<std::pair<int, int>>()> coordinates,
                          const std::string& note) {
  f.coordinates = std::move(coordinates);
  f.coordinates_note = note;
  f.app->add_option("--names", f.names,
                    "index: vertices are numbered 0, 1, ...; coordinates: vertex (r,c) is named \"r,c\" "
                    "(row r from the top, column c from the left), which matchcount --svg draws as "
                    "the lattice (--format edges only)")
      ->check(CLI::IsMember({"index", "coordinates"}))
      ->capture_default_str();
}

std::shared_ptr<FamilyParameters> add_families(const AddFamily& add) {
  auto parameters = std::make_shared<FamilyParameters>();
  FamilyParameters& p = *parameters;

  // --- graph families ---------------------------------------------------------------------
  {
    auto& f = add("grid", "M x N square-lattice graph with open boundaries (dimer coverings)", Kind::Graph);
    f.app->description(
        "The M x N grid graph: vertices are the sites of an M x N piece of the square lattice,\n"
        "edges join nearest neighbours, open (free) boundaries. Its perfect matchings are the\n"
        "dimer coverings of the lattice, equivalently the domino tilings of an M x N rectangle\n"
        "(Kasteleyn; Temperley-Fisher). M*(N-1) + N*(M-1) edges; vertex (r,c) = r*N + c, or\n"
        "named \"r,c\" with --names coordinates.\n"
        "Example: grid 8 8 has 12988816 dimer coverings.");
    f.app->add_option("M", p.grid_m, "rows (>= 1)")->required();
    f.app->add_option("N", p.grid_n, "columns (>= 1)")->required();
    f.command = [&p] { return std::string(kProgram) + " grid " + dims(p.grid_m, p.grid_n); };
    f.describe = [&p] {
      return std::to_string(p.grid_m) + " x " + std::to_string(p.grid_n) +
             " grid graph, open boundaries; perfect matchings = dimer coverings (matchcount --as graph)";
    };
    f.graph = [&p] { return grid_graph(p.grid_m, p.grid_n); };
    add_coordinate_names(f, [&p] { return grid_coordinates(p.grid_m, p.grid_n); },
                         "vertex names \"r,c\": row r, column c");
  }
  {
    auto& f = add("torus", "C_M x C_N: the M x N lattice with periodic boundaries", Kind::Graph);
    f.app->description(
        "The torus C_M x C_N: the M x N square lattice with periodic boundary conditions in both\n"
        "directions (every vertex has degree 4). Perfect matchings = dimer coverings on the torus.\n"
        "M, N >= 3 (C_2 would double every edge: use `prism N` for C_N x K_2, `grid 2 N` for a\n"
        "ladder). Bipartite exactly when M and N are both even; otherwise its perfect matchings\n"
        "are a hafnian: --format mtx writes the symmetric adjacency matrix (matchcount --hafnian)\n"
        "and --format bipartite is refused. Vertex (r,c) = r*N + c.\n"
        "Example: torus 4 4 has 272 perfect matchings, torus 8 8 has 311853312.");
    f.app->add_option("M", p.torus_m, "cycle length (>= 3)")->required();
    f.app->add_option("N", p.torus_n, "cycle length (>= 3)")->required();
    f.command = [&p] { return std::string(kProgram) + " torus " + dims(p.torus_m, p.torus_n); };
    f.describe = [&p] {
      return "torus C_" + std::to_string(p.torus_m) + " x C_" + std::to_string(p.torus_n) +
             " (periodic square lattice); perfect matchings = dimer coverings (matchcount --as graph)";
    };
    f.graph = [&p] { return torus_graph(p.torus_m, p.torus_n); };
  }
  {
    auto& f = add("hypercube", "Q_D: the D-dimensional hypercube graph", Kind::Graph);
    f.app->description(
        "The hypercube Q_D: the 2^D corners of the D-dimensional unit cube, joined along the cube's\n"
        "edges (vertices = D-bit strings, edges = single bit flips); D * 2^(D-1) edges. Bipartite\n"
        "by parity of the number of 1 bits. Perfect matchings of Q_D: OEIS A005271\n"
        "(Q_3: 9, Q_4: 272, Q_5: 589185, Q_6: 16332454526976).");
    f.app->add_option("D", p.cube_d, "dimension (>= 0)")->required();
    f.command = [&p] { return std::string(kProgram) + " hypercube " + std::to_string(p.cube_d); };
    f.describe = [&p] {
      return "hypercube Q_" + std::to_string(p.cube_d) + "; perfect matchings (matchcount --as graph)";
    };
    f.graph = [&p] { return hypercube_graph(p.cube_d); };
  }
  {
    auto& f = add("aztec", "Aztec diamond of order K (domino tilings)", Kind::Graph);
    f.app->description(
        "The Aztec diamond of order K: the 2K(K+1) unit squares whose centres lie in\n"
        "|x| + |y| <= K, adjacent when they share a side. Its perfect matchings are the domino\n"
        "tilings of the diamond, 2^(K(K+1)/2) of them (Elkies-Kuperberg-Larsen-Propp), the\n"
        "standard example of an arctic-circle phenomenon. Squares are numbered in reading order\n"
        "(top row first, left to right); with --names coordinates the square in row r (0 = top)\n"
        "and column c (0 = left) of the 2K x 2K box around the diamond is named \"r,c\".\n"
        "Example: aztec 4 has 1024 tilings.");
    f.app->add_option("K", p.aztec_k, "order (>= 1)")->required()->check(CLI::PositiveNumber);
    f.command = [&p] { return std::string(kProgram) + " aztec " + std::to_string(p.aztec_k); };
    f.describe = [&p] {
      return "Aztec diamond of order " + std::to_string(p.aztec_k) +
             "; perfect matchings = domino tilings (matchcount --as graph)";
    };
    f.graph = [&p] { return aztec_diamond_graph(p.aztec_k); };
    add_coordinate_names(f, [&p] { return aztec_diamond_coordinates(p.aztec_k); },
                         "vertex names \"r,c\": the unit square in row r (0 = top), column c (0 = left)");
  }
  {
    auto& f = add("hexagon", "hexagon A B C on the triangular lattice (lozenge tilings)", Kind::Graph);
    f.app->description(
        "The honeycomb graph of the hexagon with sides A, B, C, A, B, C on the triangular\n"
        "lattice: its 2(AB + BC + CA) vertices are the hexagon's unit triangles, adjacent when\n"
        "they share a side. Its perfect matchings are the lozenge tilings of the hexagon (the\n"
        "plane partitions in an A x B x C box), MacMahon's\n"
        "prod_{i<=A, j<=B, k<=C} (i+j+k-1)/(i+j+k-2) of them. The top side is horizontal,\n"
        "of length A; then clockwise B, C, A, B, C. Triangles are numbered row by row from the\n"
        "top, left to right. With --names coordinates triangle (r,c) is named \"r,c\": r is its\n"
        "horizontal strip (0 = top), c its place along the strip in the triangular lattice's\n"
        "sheared frame (each strip starts half an edge right of the one above); c even is a\n"
        "down-pointing triangle, c odd an up-pointing one; neighbours are (r,c-1), (r,c+1) and,\n"
        "across a horizontal side, up-pointing (r,c) with down-pointing (r+1,c-1).\n"
        "Example: hexagon 2 2 2 has 20 tilings, hexagon 3 3 3 has 980.");
    f.app->add_option("A", p.hex_a, "top side (>= 0)")->required();
    f.app->add_option("B", p.hex_b, "upper right side (>= 0)")->required();
    f.app->add_option("C", p.hex_c, "lower right side (>= 0)")->required();
    f.command = [&p] {
      return std::string(kProgram) + " hexagon " + std::to_string(p.hex_a) + " " + dims(p.hex_b, p.hex_c);
    };
    f.describe = [&p] {
      return "hexagon with sides " + std::to_string(p.hex_a) + ", " + std::to_string(p.hex_b) + ", " +
             std::to_string(p.hex_c) + " on the triangular lattice; perfect matchings = lozenge tilings "
             "(matchcount --as graph)";
    };
    f.graph = [&p] { return hexagon_graph(p.hex_a, p.hex_b, p.hex_c); };
    add_coordinate_names(f, [&p] { return hexagon_coordinates(p.hex_a, p.hex_b, p.hex_c); },
                         "vertex names \"r,c\": the unit triangle in strip r (0 = top), place c along it "
                         "(sheared frame); c even points down, c odd up; up (r,c) meets down (r+1,c-1)");
  }
  {
    auto& f = add("prism", "C_N x K_2: a ladder closed into a ring", Kind::Graph);
    f.app->description(
        "The prism graph C_N x K_2: two N-cycles (vertices 0..N-1 and N..2N-1) joined by the N\n"
        "rungs i -- N+i, i.e. a ladder closed into a ring (a 2 x N lattice periodic in one\n"
        "direction). N >= 3. Bipartite only for even N. Perfect matchings: OEIS A102081\n"
        "(N = 6: 20, N = 10: 125).");
    f.app->add_option("N", p.prism_n, "cycle length (>= 3)")->required();
    f.command = [&p] { return std::string(kProgram) + " prism " + std::to_string(p.prism_n); };
    f.describe = [&p] {
      return "prism C_" + std::to_string(p.prism_n) + " x K_2; perfect matchings (matchcount --as graph)";
    };
    f.graph = [&p] { return prism_graph(p.prism_n); };
  }

  p.general_graphs = add_general_graphs(add);

  // --- bipartite graphs given by their biadjacency matrix ------------------------------------
  {
    auto& f = add("complete-bipartite", "K_{N,N}: the all-ones matrix J_N (permanent N!)", Kind::IntegerMatrix);
    f.app->description(
        "The complete bipartite graph K_{N,N}, given by its biadjacency matrix J_N (all ones).\n"
        "Every permutation is a perfect matching: the permanent is N!. A worst case for\n"
        "exponential-time algorithms, since no structure can be exploited.");
    f.app->add_option("N", p.kb_n, "side size (>= 0)")->required();
    f.command = [&p] { return std::string(kProgram) + " complete-bipartite " + std::to_string(p.kb_n); };
    f.describe = [&p] {
      return "complete bipartite graph K_{" + std::to_string(p.kb_n) + "," + std::to_string(p.kb_n) +
             "} = all-ones matrix J_" + std::to_string(p.kb_n) + "; permanent = " + std::to_string(p.kb_n) + "!";
    };
    f.matrix = [&p] { return AnyMatrix(complete_bipartite(p.kb_n)); };
  }
  {
    auto& f = add("er", "random bipartite graph G(N, N, P), as its biadjacency matrix", Kind::IntegerMatrix);
    f.app->description(
        "An Erdos-Renyi random bipartite graph with N + N vertices: each of the N^2 possible edges\n"
        "(entries of the N x N 0-1 biadjacency matrix) is present independently with probability\n"
        "P. The permanent counts its perfect matchings; for P below about ln(N)/N it is usually 0.");
    f.app->add_option("N", p.er_n, "side size (>= 0)")->required();
    f.app->add_option("P", p.er_p, "edge probability in [0, 1]")->required();
    f.app->add_option("--seed", p.er_seed, "random seed (same seed, same graph)")->capture_default_str();
    f.command = [&p] {
      return std::string(kProgram) + " er " + std::to_string(p.er_n) + " " + num(p.er_p) + " --seed " +
             std::to_string(p.er_seed);
    };
    f.describe = [&p] {
      return "random bipartite graph, " + std::to_string(p.er_n) + " + " + std::to_string(p.er_n) +
             " vertices, edge probability " + num(p.er_p) + "; permanent = perfect matchings";
    };
    f.matrix = [&p] { return AnyMatrix(erdos_renyi_bipartite(p.er_n, p.er_p, p.er_seed)); };
  }

  {
    auto& f = add("regular", "random D-regular bipartite graph on N + N vertices", Kind::IntegerMatrix);
    f.app->description(
        "A random D-regular bipartite graph: the union of D random permutation matrices, repaired\n"
        "where two would share an entry, so every row and column has exactly D entries. Sparse\n"
        "test cases far beyond exact reach (N = 10^5) for matchcount --estimate.");
    f.app->add_option("N", p.reg_n, "side size (>= 0)")->required();
    f.app->add_option("D", p.reg_d, "degree (1..N)")->required();
    f.app->add_option("--seed", p.reg_seed, "random seed (same seed, same graph)")->capture_default_str();
    f.command = [&p] {
      return std::string(kProgram) + " regular " + std::to_string(p.reg_n) + " " + std::to_string(p.reg_d) + " --seed " +
             std::to_string(p.reg_seed);
    };
    f.describe = [&p] {
      return "random " + std::to_string(p.reg_d) + "-regular bipartite graph, " + std::to_string(p.reg_n) + " + " +
             std::to_string(p.reg_n) + " vertices; permanent = perfect matchings";
    };
    f.matrix = [&p] { return AnyMatrix(random_regular_bipartite(p.reg_n, p.reg_d, p.reg_seed)); };
  }

  // --- digraphs ------------------------------------------------------------------------------
  {
    auto& f = add("digraph", "random directed graph; matchcount counts its cycle covers", Kind::Digraph);
    f.app->description(
        "A random directed graph on N vertices: each arc u -> v (u != v; also u -> u with --loops)\n"
        "is present independently with probability P. The permanent of its adjacency matrix is\n"
        "the number of cycle covers: sets of disjoint directed cycles through every vertex\n"
        "(a loop is a cycle of length 1).");
    f.app->add_option("N", p.dg_n, "number of vertices (>= 0)")->required();
    f.app->add_option("P", p.dg_p, "arc probability in [0, 1]")->required();
    f.app->add_option("--seed", p.dg_seed, "random seed (same seed, same digraph)")->capture_default_str();
    f.app->add_flag("--loops", p.dg_loops, "allow loops u -> u (1-cycles)");
    f.command = [&p] {
      return std::string(kProgram) + " digraph " + std::to_string(p.dg_n) + " " + num(p.dg_p) + " --seed " +
             std::to_string(p.dg_seed) + (p.dg_loops ? " --loops" : "");
    };
    f.describe = [&p] {
      return "random digraph, " + std::to_string(p.dg_n) + " vertices, arc probability " + num(p.dg_p) +
             (p.dg_loops ? ", loops allowed" : ", no loops") + "; permanent = cycle covers (matchcount --as digraph)";
    };
    f.matrix = [&p] { return AnyMatrix(random_digraph(p.dg_n, p.dg_p, p.dg_seed, p.dg_loops)); };
  }
  {
    auto& f = add("complete-digraph", "complete digraph without loops, J - I (derangements)", Kind::Digraph);
    f.app->description(
        "The complete directed graph on N vertices without loops; adjacency matrix J - I. Its cycle\n"
        "covers are the permutations without fixed points, so the permanent is the number of\n"
        "derangements !N (OEIS A000166; N = 8: 14833).");
    f.app->add_option("N", p.cd_n, "number of vertices (>= 0)")->required();
    f.command = [&p] { return std::string(kProgram) + " complete-digraph " + std::to_string(p.cd_n); };
    f.describe = [&p] {
      return "complete loopless digraph on " + std::to_string(p.cd_n) +
             " vertices (J - I); permanent = derangements (matchcount --as digraph)";
    };
    f.matrix = [&p] { return AnyMatrix(complete_loopless_digraph(p.cd_n)); };
  }

  // --- matrices ------------------------------------------------------------------------------
  {
    auto& f = add("band", "0-1 band matrix, ones where |i - j| <= W", Kind::IntegerMatrix);
    f.app->description(
        "The N x N 0-1 band matrix with ones where |i - j| <= W. Its permanent counts the\n"
        "permutations that move no element by more than W places: W = 1 (tridiagonal) gives the\n"
        "Fibonacci number F(N+1), W = 2 gives OEIS A002524 (N = 12: 11854).");
    f.app->add_option("N", p.band_n, "matrix size (>= 0)")->required();
    f.app->add_option("W", p.band_w, "half bandwidth (>= 0)")->required();
    f.command = [&p] { return std::string(kProgram) + " band " + dims(p.band_n, p.band_w); };
    f.describe = [&p] {
      return std::to_string(p.band_n) + " x " + std::to_string(p.band_n) + " 0-1 band matrix, |i-j| <= " +
             std::to_string(p.band_w);
    };
    f.matrix = [&p] { return AnyMatrix(band_matrix(p.band_n, p.band_w)); };
  }
  {
    auto& f = add("random-int", "random sparse integer matrix (exact permanent)", Kind::IntegerMatrix);
    f.app->description(
        "A random N x N integer matrix: each entry is nonzero with probability DENSITY, with a\n"
        "value drawn uniformly from the nonzero integers in [LO, HI]. matchcount computes its\n"
        "permanent exactly (signed entries make cancellations, a test of exact arithmetic).");
    f.app->add_option("N", p.ri_n, "matrix size (>= 0)")->required();
    f.app->add_option("--density", p.ri_density, "probability that an entry is nonzero")->capture_default_str();
    f.app->add_option("--lo", p.ri_lo, "smallest value")->capture_default_str();
    f.app->add_option("--hi", p.ri_hi, "largest value")->capture_default_str();
    f.app->add_option("--seed", p.ri_seed, "random seed (same seed, same matrix)")->capture_default_str();
    f.command = [&p] {
      return std::string(kProgram) + " random-int " + std::to_string(p.ri_n) + " --density " +
             num(p.ri_density) + " --lo " + std::to_string(p.ri_lo) + " --hi " + std::to_string(p.ri_hi) +
             " --seed " + std::to_string(p.ri_seed);
    };
    f.describe = [&p] {
      return "random integer matrix, density " + num(p.ri_density) + ", nonzero values in [" +
             std::to_string(p.ri_lo) + ", " + std::to_string(p.ri_hi) + "]";
    };
    f.matrix = [&p] { return AnyMatrix(random_integer_matrix(p.ri_n, p.ri_density, p.ri_lo, p.ri_hi, p.ri_seed)); };
  }
  {
    auto& f = add("random-real", "random sparse real matrix (floating permanent)", Kind::FloatMatrix);
    f.app->description(
        "A random N x N real matrix: each entry is nonzero with probability DENSITY, with a value\n"
        "uniform in [LO, HI). Values are written with 17 significant digits at most, exactly as\n"
        "generated; matchcount reports a floating permanent with an error estimate.");
    f.app->add_option("N", p.rg_n, "matrix size (>= 0)")->required();
    f.app->add_option("--density", p.rg_density, "probability that an entry is nonzero")->capture_default_str();
    f.app->add_option("--lo", p.rr_lo, "lower end of the value range")->capture_default_str();
    f.app->add_option("--hi", p.rr_hi, "upper end of the value range")->capture_default_str();
    f.app->add_option("--seed", p.rg_seed, "random seed (same seed, same matrix)")->capture_default_str();
    f.command = [&p] {
      return std::string(kProgram) + " random-real " + std::to_string(p.rg_n) + " --density " +
             num(p.rg_density) + " --lo " + num(p.rr_lo) + " --hi " + num(p.rr_hi) + " --seed " +
             std::to_string(p.rg_seed);
    };
    f.describe = [&p] {
      return "random real matrix, density " + num(p.rg_density) + ", values uniform in [" + num(p.rr_lo) +
             ", " + num(p.rr_hi) + ")";
    };
    f.matrix = [&p] { return AnyMatrix(random_real_matrix(p.rg_n, p.rg_density, p.rr_lo, p.rr_hi, p.rg_seed)); };
  }
  {
    auto& f = add("random-complex", "random sparse complex matrix (floating permanent)", Kind::FloatMatrix);
    f.app->description(
        "A random N x N complex matrix: each entry is nonzero with probability DENSITY, with real\n"
        "and imaginary parts uniform in [-1, 1). (Permanents of complex matrices are the\n"
        "amplitudes of boson sampling; these matrices are not unitary, just random.)");
    f.app->add_option("N", p.rc_n, "matrix size (>= 0)")->required();
    f.app->add_option("--density", p.rc_density, "probability that an entry is nonzero")->capture_default_str();
    f.app->add_option("--seed", p.rc_seed, "random seed (same seed, same matrix)")->capture_default_str();
    f.command = [&p] {
      return std::string(kProgram) + " random-complex " + std::to_string(p.rc_n) + " --density " +
             num(p.rc_density) + " --seed " + std::to_string(p.rc_seed);
    };
    f.describe = [&p] {
      return "random complex matrix, density " + num(p.rc_density) +
             ", real and imaginary parts uniform in [-1, 1)";
    };
    f.matrix = [&p] { return AnyMatrix(random_complex_matrix(p.rc_n, p.rc_density, p.rc_seed)); };
  }
  p.symmetric_matrices = add_symmetric_matrices(add);
  return parameters;
}

}  // namespace matchcount::cli
