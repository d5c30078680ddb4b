// Planarity, plane faces and their dual tree (from the left-right test's embedding,
// lr_planarity.hpp), and the banding order of the planar engines (planar.hpp, on Boost Graph).
#include "engines/planar/planar.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/cuthill_mckee_ordering.hpp>

#include <numeric>
#include <stdexcept>

#include "engines/planar/lr_planarity.hpp"

namespace matchcount::engines::planar {
namespace {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS,
                                    boost::property<boost::vertex_index_t, int>,
                                    boost::property<boost::edge_index_t, int>>;

/// The graph with edge k's index k (the faces name edges by it).
Graph graph_of(int vertices, const EdgeList& edges) {
  Graph g(static_cast<std::size_t>(vertices));
  for (std::size_t k = 0; k < edges.size(); ++k) boost::add_edge(edges[k].first, edges[k].second, static_cast<int>(k), g);
  return g;
}

/// Union-find root with path halving.
int find(std::vector<int>& up, int v) {
  while (up[std::size_t(v)] != v) v = up[std::size_t(v)] = up[std::size_t(up[std::size_t(v)])];
  return v;
}

/// FaceTree::leaves_first for the faces of a plane embedding of the graph.
std::vector<FaceToFix> faces_leaves_first(int vertices, const EdgeList& edges, const std::vector<Face>& faces) {
  const std::size_t m = edges.size();
  std::vector<int> up(static_cast<std::size_t>(vertices));
  std::iota(up.begin(), up.end(), 0);
  std::vector<char> tree(m, 0);
  for (std::size_t k = 0; k < m; ++k) {
    const int a = find(up, edges[k].first), b = find(up, edges[k].second);
    if (a != b) up[std::size_t(a)] = b, tree[k] = 1;
  }
  const std::size_t nf = faces.size();
  std::vector<std::vector<std::pair<int, int>>> dual(nf);  // (neighbour face, edge)
  std::vector<int> first_face(m, -1);
  for (std::size_t f = 0; f < nf; ++f)
    for (const FaceStep& s : faces[f]) {
      if (tree[std::size_t(s.edge)]) continue;
      int& other = first_face[std::size_t(s.edge)];
      if (other < 0) {
        other = int(f);
      } else {
        dual[std::size_t(other)].push_back({int(f), s.edge});
        dual[f].push_back({other, s.edge});
      }
    }
  // Breadth first from each root: a face comes after its parent, so reversed, after its children.
  std::vector<int> parent_edge(nf, -1), order;
  std::vector<char> seen(nf, 0);
  for (std::size_t root = 0; root < nf; ++root) {
    if (seen[root]) continue;
    seen[root] = 1;
    const std::size_t start = order.size();
    order.push_back(int(root));
    for (std::size_t h = start; h < order.size(); ++h)
      for (auto [f, e] : dual[std::size_t(order[h])])
        if (!seen[std::size_t(f)]) seen[std::size_t(f)] = 1, parent_edge[std::size_t(f)] = e, order.push_back(f);
  }
  std::vector<FaceToFix> leaves_first;
  leaves_first.reserve(order.size());
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    if (parent_edge[std::size_t(*it)] >= 0) leaves_first.push_back({*it, parent_edge[std::size_t(*it)]});
  return leaves_first;
}

}  // namespace

std::optional<FaceTree> face_tree(int vertices, const EdgeList& edges) {
  const std::optional<Rotation> rotation = lr_planarity(vertices, edges);
  if (!rotation) return std::nullopt;
  // Faces are the orbits of h -> next[h ^ 1]: arrive at a vertex along h, leave along the
  // half-edge after h's twin in the rotation.
  FaceTree t;
  const std::vector<int>& next = rotation->next;
  std::vector<char> walked(next.size(), 0);
  for (std::size_t h0 = 0; h0 < next.size(); ++h0) {
    if (walked[h0]) continue;
    Face& face = t.faces.emplace_back();
    for (std::size_t h = h0; !walked[h]; h = std::size_t(next[h ^ 1])) {
      walked[h] = 1;
      const auto [u, v] = edges[h / 2];
      face.push_back({h % 2 ? v : u, int(h / 2)});
    }
  }
  // Euler's formula, per component with edges V - E + F = 2: a wrong embedding would sign
  // the edges wrongly and give wrong counts without a word, so it is checked.
  std::vector<int> up(static_cast<std::size_t>(vertices));
  std::iota(up.begin(), up.end(), 0);
  std::vector<char> touched(static_cast<std::size_t>(vertices), 0);
  long components = 0, touched_vertices = 0;
  for (auto [a, b] : edges) {
    for (int x : {a, b})
      if (!touched[std::size_t(x)]) touched[std::size_t(x)] = 1, ++touched_vertices, ++components;
    const int ra = find(up, a), rb = find(up, b);
    if (ra != rb) up[std::size_t(ra)] = rb, --components;
  }
  if (touched_vertices - long(edges.size()) + long(t.faces.size()) != 2 * components)
    throw std::logic_error("planar: the embedding's faces break Euler's formula");
  t.leaves_first = faces_leaves_first(vertices, edges, t.faces);
  return t;
}

bool is_planar(int vertices, const EdgeList& edges) { return lr_planarity(vertices, edges, false).has_value(); }

std::vector<std::size_t> reverse_cuthill_mckee(int vertices, const EdgeList& edges) {
  const Graph g = graph_of(vertices, edges);
  std::vector<std::size_t> order(boost::num_vertices(g));
  boost::cuthill_mckee_ordering(g, order.rbegin());
  return order;
}

int permutation_sign(const std::vector<int>& p) {
  std::vector<char> seen(p.size(), 0);
  int sign = 1;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (seen[i]) continue;
    std::size_t len = 0;
    for (std::size_t j = i; !seen[j]; j = std::size_t(p[j])) seen[j] = 1, ++len;
    if (len % 2 == 0) sign = -sign;
  }
  return sign;
}

}  // namespace matchcount::engines::planar
