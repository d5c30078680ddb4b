// Vertex positions for pictures of graphs without coordinate names (graph_layout.hpp).
#include "report/graph_layout.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>
#include <vector>

#include "engines/planar/planar.hpp"

namespace matchcount::svg_detail {

namespace {

constexpr double kPi = 3.14159265358979323846;

/// Neighbour lists without loops or repeats.
std::vector<std::vector<int>> adjacency(int n, const Edges& edges) {
  std::vector<std::vector<int>> adj(static_cast<std::size_t>(n));
  for (auto [u, v] : edges)
    if (u != v && u >= 0 && v >= 0 && u < n && v < n) {
      adj[static_cast<std::size_t>(u)].push_back(v);
      adj[static_cast<std::size_t>(v)].push_back(u);
    }
  for (auto& list : adj) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  return adj;
}

Edges simple_edges(const std::vector<std::vector<int>>& adj) {
  Edges out;
  for (std::size_t u = 0; u < adj.size(); ++u)
    for (int v : adj[u])
      if (static_cast<int>(u) < v) out.emplace_back(static_cast<int>(u), v);
  return out;
}

/// Solves L_ff x = b by conjugate gradients with the diagonal as preconditioner; false when it
/// does not converge within `max_steps`.
bool solve_laplacian(const std::vector<std::vector<int>>& adj, const std::vector<int>& free_index,
                     const std::vector<int>& free_vertices, const std::vector<double>& b,
                     std::vector<double>& x, int max_steps) {
  const std::size_t m = free_vertices.size();
  x.assign(m, 0.0);
  auto apply = [&](const std::vector<double>& in, std::vector<double>& out) {
    for (std::size_t i = 0; i < m; ++i) {
      const auto& list = adj[static_cast<std::size_t>(free_vertices[i])];
      double s = static_cast<double>(list.size()) * in[i];
      for (int w : list)
        if (const int j = free_index[static_cast<std::size_t>(w)]; j >= 0) s -= in[static_cast<std::size_t>(j)];
      out[i] = s;
    }
  };
  double bb = 0;
  for (double v : b) bb += v * v;
  if (bb == 0) return true;
  const double tol2 = 1e-22 * bb;
  std::vector<double> r = b, z(m), p(m), ap(m);
  auto precondition = [&] {
    for (std::size_t i = 0; i < m; ++i)
      z[i] = r[i] / static_cast<double>(adj[static_cast<std::size_t>(free_vertices[i])].size());
  };
  precondition();
  p = z;
  double rz = std::inner_product(r.begin(), r.end(), z.begin(), 0.0);
  for (int step = 0; step < max_steps; ++step) {
    apply(p, ap);
    const double pap = std::inner_product(p.begin(), p.end(), ap.begin(), 0.0);
    if (!(pap > 0)) return false;
    const double alpha = rz / pap;
    double rr = 0;
    for (std::size_t i = 0; i < m; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * ap[i];
      rr += r[i] * r[i];
    }
    if (rr <= tol2) return true;
    precondition();
    const double rz_next = std::inner_product(r.begin(), r.end(), z.begin(), 0.0);
    const double beta = rz_next / rz;
    rz = rz_next;
    for (std::size_t i = 0; i < m; ++i) p[i] = z[i] + beta * p[i];
  }
  return false;
}

double signed_area(const engines::planar::Face& face, const std::vector<Point>& at) {
  double a = 0;
  for (std::size_t i = 0; i < face.size(); ++i) {
    const Point& p = at[static_cast<std::size_t>(face[i].from)];
    const Point& q = at[static_cast<std::size_t>(face[(i + 1) % face.size()].from)];
    a += p.x * q.y - q.x * p.y;
  }
  return a / 2;
}

/// A pseudo-random double in [0, 1) (splitmix64): the force layout's fixed start.
double next_unit(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

std::vector<Point> circle_layout(int n) {
  std::vector<Point> at(static_cast<std::size_t>(n));
  const double radius = std::max(1.0, n / (2 * kPi));
  for (int i = 0; i < n; ++i)
    at[static_cast<std::size_t>(i)] = {radius * std::cos(2 * kPi * i / n), radius * std::sin(2 * kPi * i / n)};
  return at;
}

/// Scales a component's positions so that its median edge is 1 long and moves its bounding
/// box to the origin; returns the box's size.
Point normalise(std::vector<Point>& at, const Edges& edges) {
  std::vector<double> lengths;
  lengths.reserve(edges.size());
  for (auto [u, v] : edges) {
    const Point& p = at[static_cast<std::size_t>(u)];
    const Point& q = at[static_cast<std::size_t>(v)];
    lengths.push_back(std::hypot(p.x - q.x, p.y - q.y));
  }
  double scale = 1;
  if (!lengths.empty()) {
    auto mid = lengths.begin() + static_cast<std::ptrdiff_t>(lengths.size() / 2);
    std::nth_element(lengths.begin(), mid, lengths.end());
    if (*mid > 1e-300) scale = 1 / *mid;
  }
  double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
  for (const Point& p : at) {
    x0 = std::min(x0, p.x), y0 = std::min(y0, p.y);
    x1 = std::max(x1, p.x), y1 = std::max(y1, p.y);
  }
  for (Point& p : at) p = {(p.x - x0) * scale, (p.y - y0) * scale};
  return {(x1 - x0) * scale, (y1 - y0) * scale};
}

}  // namespace

std::optional<TutteLayout> tutte_layout(int vertices, const Edges& edges_in) {
  if (vertices < 3) return std::nullopt;
  const auto adj = adjacency(vertices, edges_in);
  const Edges edges = simple_edges(adj);
  if (edges.size() > 3 * static_cast<std::size_t>(vertices) - 6) return std::nullopt;  // not planar
  for (const auto& list : adj)
    if (list.empty()) return std::nullopt;  // not connected
  const auto tree = engines::planar::face_tree(vertices, edges);
  if (!tree) return std::nullopt;
  // The largest face whose boundary visits no vertex twice: a convex polygon can hold it.
  std::vector<int> stamp(static_cast<std::size_t>(vertices), -1);
  int best = -1;
  for (std::size_t f = 0; f < tree->faces.size(); ++f) {
    const auto& face = tree->faces[f];
    if (face.size() < 3 || (best >= 0 && face.size() <= tree->faces[static_cast<std::size_t>(best)].size())) continue;
    bool simple = true;
    for (const auto& step : face) {
      int& s = stamp[static_cast<std::size_t>(step.from)];
      if (s == static_cast<int>(f)) simple = false;
      s = static_cast<int>(f);
    }
    if (simple) best = static_cast<int>(f);
  }
  if (best < 0) return std::nullopt;
  const auto& outer = tree->faces[static_cast<std::size_t>(best)];

  TutteLayout t;
  t.at.assign(static_cast<std::size_t>(vertices), Point{});
  std::vector<int> free_index(static_cast<std::size_t>(vertices), 0);
  for (std::size_t j = 0; j < outer.size(); ++j) {
    const double angle = 2 * kPi * static_cast<double>(j) / static_cast<double>(outer.size());
    t.pinned.push_back(outer[j].from);
    t.at[static_cast<std::size_t>(outer[j].from)] = {std::cos(angle), std::sin(angle)};
    free_index[static_cast<std::size_t>(outer[j].from)] = -1;
  }
  std::vector<int> free_vertices;
  for (int v = 0; v < vertices; ++v)
    if (free_index[static_cast<std::size_t>(v)] >= 0) {
      free_index[static_cast<std::size_t>(v)] = static_cast<int>(free_vertices.size());
      free_vertices.push_back(v);
    }
  std::vector<double> bx(free_vertices.size(), 0.0), by(free_vertices.size(), 0.0), x, y;
  for (std::size_t i = 0; i < free_vertices.size(); ++i)
    for (int w : adj[static_cast<std::size_t>(free_vertices[i])])
      if (free_index[static_cast<std::size_t>(w)] < 0) {
        bx[i] += t.at[static_cast<std::size_t>(w)].x;
        by[i] += t.at[static_cast<std::size_t>(w)].y;
      }
  // Steps grow like the graph's diameter on meshes; the cap bounds the work (steps x edges).
  const double work_cap = 4e9 / static_cast<double>(edges.size() + 1);
  const int steps = static_cast<int>(std::min({20000.0, 200 + 40 * std::sqrt(double(vertices)), work_cap}));
  if (!solve_laplacian(adj, free_index, free_vertices, bx, x, steps) ||
      !solve_laplacian(adj, free_index, free_vertices, by, y, steps))
    return std::nullopt;
  for (std::size_t i = 0; i < free_vertices.size(); ++i) t.at[static_cast<std::size_t>(free_vertices[i])] = {x[i], y[i]};

  // An embedding: every inner face turns the other way from the pinned one (all walks turn
  // the same way around their own face), and the inner faces tile the pinned polygon.
  const double outer_area = signed_area(outer, t.at);
  double inner_total = 0;
  for (std::size_t f = 0; f < tree->faces.size(); ++f) {
    if (static_cast<int>(f) == best) continue;
    const double a = -signed_area(tree->faces[f], t.at) * (outer_area > 0 ? 1 : -1);
    if (!(a > 0)) return std::nullopt;
    inner_total += a;
  }
  if (!(std::abs(inner_total - std::abs(outer_area)) <= 1e-6 * std::abs(outer_area))) return std::nullopt;
  std::vector<Point> sorted = t.at;
  std::sort(sorted.begin(), sorted.end(), [](const Point& a, const Point& b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
  for (std::size_t i = 1; i < sorted.size(); ++i)
    if (std::hypot(sorted[i].x - sorted[i - 1].x, sorted[i].y - sorted[i - 1].y) < 1e-12) return std::nullopt;
  return t;
}

std::vector<Point> force_layout(int vertices, const Edges& edges_in) {
  const std::size_t n = static_cast<std::size_t>(std::max(vertices, 0));
  std::vector<Point> at(n);
  if (n == 0) return at;
  const Edges edges = simple_edges(adjacency(vertices, edges_in));
  const double side = std::sqrt(static_cast<double>(n));
  std::uint64_t state = 0x5eedf00dull;
  for (Point& p : at) p = {side * next_unit(state), side * next_unit(state)};
  if (n == 1) return at;
  // About 2e8 pair visits in all: a fraction of a second at n = kForceMax.
  const int steps = static_cast<int>(std::clamp(2e8 / (double(n) * double(n)), 50.0, 500.0));
  const double t0 = side / 10 + 0.1;
  std::vector<Point> disp(n);
  for (int step = 0; step < steps; ++step) {
    std::fill(disp.begin(), disp.end(), Point{});
    for (std::size_t i = 0; i < n; ++i) {
      double fx = 0, fy = 0;
      const Point pi = at[i];
      for (std::size_t j = i + 1; j < n; ++j) {
        double dx = pi.x - at[j].x, dy = pi.y - at[j].y;
        double d2 = dx * dx + dy * dy;
        if (d2 < 1e-12) dx = 1e-3, dy = 0, d2 = 1e-6;  // coincident: pushed apart along x
        const double f = 1 / d2;                      // repulsion k^2 / d with k = 1
        fx += dx * f, fy += dy * f;
        disp[j].x -= dx * f, disp[j].y -= dy * f;
      }
      disp[i].x += fx, disp[i].y += fy;
    }
    for (auto [u, v] : edges) {
      const double dx = at[static_cast<std::size_t>(u)].x - at[static_cast<std::size_t>(v)].x;
      const double dy = at[static_cast<std::size_t>(u)].y - at[static_cast<std::size_t>(v)].y;
      const double d = std::sqrt(dx * dx + dy * dy);  // attraction d^2 / k
      disp[static_cast<std::size_t>(u)].x -= dx * d, disp[static_cast<std::size_t>(u)].y -= dy * d;
      disp[static_cast<std::size_t>(v)].x += dx * d, disp[static_cast<std::size_t>(v)].y += dy * d;
    }
    const double t = t0 * (1 - double(step) / steps) + 0.01;
    for (std::size_t i = 0; i < n; ++i) {
      const double len = std::hypot(disp[i].x, disp[i].y);
      if (len > 0) {
        const double move = std::min(len, t) / len;
        at[i].x += disp[i].x * move, at[i].y += disp[i].y * move;
      }
    }
  }
  return at;
}

Layout layout_graph(int vertices, const Edges& edges_in) {
  Layout out;
  const std::size_t n = static_cast<std::size_t>(std::max(vertices, 0));
  out.at.assign(n, Point{});
  const auto adj = adjacency(vertices, edges_in);
  // Components, each with its vertices in increasing order.
  std::vector<int> component(n, -1);
  std::vector<std::vector<int>> members;
  for (std::size_t s = 0; s < n; ++s) {
    if (component[s] >= 0) continue;
    const int c = static_cast<int>(members.size());
    members.push_back({static_cast<int>(s)});
    component[s] = c;
    for (std::size_t h = 0; h < members.back().size(); ++h)
      for (int w : adj[static_cast<std::size_t>(members.back()[h])])
        if (component[static_cast<std::size_t>(w)] < 0) {
          component[static_cast<std::size_t>(w)] = c;
          members.back().push_back(w);
        }
  }
  std::vector<std::size_t> order(members.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return members[a].size() > members[b].size(); });

  std::vector<int> local(n, -1);
  std::vector<std::vector<Point>> placed(members.size());
  std::vector<Point> boxes(members.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    auto& list = members[order[k]];
    std::sort(list.begin(), list.end());
    const int size = static_cast<int>(list.size());
    for (int i = 0; i < size; ++i) local[static_cast<std::size_t>(list[static_cast<std::size_t>(i)])] = i;
    Edges edges;
    for (int u : list)
      for (int w : adj[static_cast<std::size_t>(u)])
        if (u < w) edges.emplace_back(local[static_cast<std::size_t>(u)], local[static_cast<std::size_t>(w)]);
    std::vector<Point> at;
    LayoutMethod method = LayoutMethod::Circle;
    if (size <= 2) {
      at = size == 1 ? std::vector<Point>{{0, 0}} : std::vector<Point>{{0, 0}, {1, 0}};
      method = LayoutMethod::Force;
    } else if (auto tutte = size <= kTutteMax ? tutte_layout(size, edges) : std::nullopt) {
      at = std::move(tutte->at);
      method = LayoutMethod::Tutte;
    } else if (size <= kForceMax) {
      at = force_layout(size, edges);
      method = LayoutMethod::Force;
    } else {
      at = circle_layout(size);
    }
    if (k == 0) out.method = method;
    boxes[k] = normalise(at, edges);
    placed[k] = std::move(at);
  }
  // Rows of components, largest first, about as wide as the whole is tall.
  constexpr double kGap = 2;
  double area = 0, widest = 0;
  for (const Point& b : boxes) area += (b.x + kGap) * (b.y + kGap), widest = std::max(widest, b.x);
  const double row_width = std::max(widest, 1.2 * std::sqrt(area));
  double x = 0, y = 0, row_height = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (x > 0 && x + boxes[k].x > row_width) x = 0, y += row_height + kGap, row_height = 0;
    const auto& list = members[order[k]];
    for (std::size_t i = 0; i < list.size(); ++i)
      out.at[static_cast<std::size_t>(list[i])] = {placed[k][i].x + x, placed[k][i].y + y};
    x += boxes[k].x + kGap;
    row_height = std::max(row_height, boxes[k].y);
  }
  return out;
}

}  // namespace matchcount::svg_detail
