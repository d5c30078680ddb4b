#include "pipeline/share_walks.hpp"

#include <cmath>
#include <map>
#include <memory>
#include <utility>

#include "catalog/catalog.hpp"
#include "core/tuning.hpp"
#include "engines/torontonian/torontonian.hpp"
#include "runtime/mpi/blocks.hpp"

namespace matchcount::cluster {
namespace {

template <class T>
void serve_walks_of(Reader& in, const std::string& engine) {
  EngineOptions o;
  o.threads = in.get<int>();
  o.specialise = static_cast<Specialise>(in.get<int>());
  o.gpus = in.get<int>();
  const int graph = in.get<int>();  // Walks: 0 a permanent, 1 a hafnian, 2 a loop hafnian, 3 a torontonian
  const SparseMatrix<T> a = get_matrix<T>(in);
  if constexpr (!std::is_same_v<T, Integer>) {
    // The entries' error bounds, by value as rank 0 looks them up (EngineOptions::entry_error):
    // the walks' bounds (their deviation sums) must be the same on every rank.
    if (in.get<int>()) {
      auto errors = std::make_shared<std::map<std::pair<double, double>, double>>();
      for (const auto& e : a.entries) (*errors)[{std::real(e.value), std::imag(e.value)}] = in.get<double>();
      o.entry_error = [errors](const Complex& v) {
        const auto it = errors->find({v.real(), v.imag()});
        return it == errors->end() ? 0.0 : it->second;
      };
    }
  }
  WalkTeam team;
  o.team = &team;
  // Rank 0 has the sums.
  if constexpr (std::is_same_v<T, Complex>)
    if (graph == static_cast<int>(Walks::Torontonian)) {
      engines::TorontonianInput<Complex> t{a.rows / 2, a.dense(), {}, DevicePolicy::Cpu};
      t.gamma.resize(static_cast<std::size_t>(in.get<std::uint64_t>()));
      for (auto& g : t.gamma) g = in.get<Complex>();
      t.device = in.get<int>() ? DevicePolicy::Gpu : DevicePolicy::Cpu;
      (void)engines::torontonian(t, o);
      return;
    }
  if (graph == static_cast<int>(Walks::RepeatedHafnian)) {
    engines::RepeatedHafnian<T> r;
    r.n = a.rows;
    r.a = a.dense();
    r.rpt = in.get_vector<std::uint64_t>();
    r.mu = get_matrix<T>(in).dense();
    r.loops = in.get<int>() != 0;
    r.device = in.get<int>() ? DevicePolicy::Gpu : DevicePolicy::Cpu;
    (void)engines::hafnian_repeated(r, o);
    return;
  }
  if (graph) (void)make_graph_engine(engine)->hafnian(a, graph == 2, o);
  else (void)make_engine(engine)->permanent(a, o);
}

}  // namespace

bool shares(const std::string& engine, double predicted_seconds) {
  if (!distributed() || !catalog::entry(engine).shares_units) return false;
  return predicted_seconds >= tuning::tuning().mpi_min_seconds;
}

template <class T>
WalkTeam* share_walks(const std::string& engine, const SparseMatrix<T>& a, const EngineOptions& o, Walks walks) {
  Writer w;
  w.put(std::uint64_t{kWalks});
  w.put_string(engine);
  w.put(kind_code<T>());
  w.put(o.threads);
  w.put(static_cast<int>(o.specialise));
  w.put(o.gpus);
  w.put(static_cast<int>(walks));
  put_matrix(w, a);
  if constexpr (!std::is_same_v<T, Integer>) {
    w.put(static_cast<int>(o.entry_error ? 1 : 0));
    if (o.entry_error)
      for (const auto& e : a.entries) w.put(o.entry_error(Complex(e.value)));
  }
  return share_job(w);
}
template WalkTeam* share_walks(const std::string&, const SparseMatrix<Integer>&, const EngineOptions&, Walks);
template WalkTeam* share_walks(const std::string&, const SparseMatrix<double>&, const EngineOptions&, Walks);
template WalkTeam* share_walks(const std::string&, const SparseMatrix<Complex>&, const EngineOptions&, Walks);

WalkTeam* share_torontonian(const std::vector<Complex>& o, const std::vector<Complex>& gamma, bool gpu,
                            const EngineOptions& eo) {
  const int d = static_cast<int>(std::lround(std::sqrt(static_cast<double>(o.size()))));
  SparseMatrix<Complex> a{d, d, {}};
  for (int r = 0; r < d; ++r)
    for (int c = 0; c < d; ++c) a.entries.push_back({r, c, o[static_cast<std::size_t>(r) * static_cast<std::size_t>(d) + static_cast<std::size_t>(c)]});
  Writer w;
  w.put(std::uint64_t{kWalks});
  w.put_string("torontonian");
  w.put(kind_code<Complex>());
  w.put(eo.threads);
  w.put(static_cast<int>(eo.specialise));
  w.put(eo.gpus);
  w.put(static_cast<int>(Walks::Torontonian));
  put_matrix(w, a);
  w.put(0);  // no entry errors
  w.put(static_cast<std::uint64_t>(gamma.size()));
  for (const Complex& g : gamma) w.put(g);
  w.put(gpu ? 1 : 0);
  return share_job(w);
}

template <class T>
WalkTeam* share_repeated_hafnian(const engines::RepeatedHafnian<T>& in, const EngineOptions& eo) {
  // Every entry, zeros too: the other ranks' walks must start from the same bits (-0.0).
  SparseMatrix<T> a{in.n, in.n, {}}, mu{1, static_cast<int>(in.mu.size()), {}};
  for (int r = 0; r < in.n; ++r)
    for (int c = 0; c < in.n; ++c)
      a.entries.push_back({r, c, in.a[static_cast<std::size_t>(r) * static_cast<std::size_t>(in.n) + static_cast<std::size_t>(c)]});
  for (std::size_t i = 0; i < in.mu.size(); ++i) mu.entries.push_back({0, static_cast<int>(i), in.mu[i]});
  Writer w;
  w.put(std::uint64_t{kWalks});
  w.put_string("hafnian-rpt");
  w.put(kind_code<T>());
  w.put(eo.threads);
  w.put(static_cast<int>(eo.specialise));
  w.put(eo.gpus);
  w.put(static_cast<int>(Walks::RepeatedHafnian));
  put_matrix(w, a);
  if constexpr (!std::is_same_v<T, Integer>) w.put(0);  // no entry errors
  w.put_vector(in.rpt);
  put_matrix(w, mu);
  w.put(in.loops ? 1 : 0);
  w.put(in.device == DevicePolicy::Gpu ? 1 : 0);  // rank 0's resolved choice
  return share_job(w);
}
template WalkTeam* share_repeated_hafnian(const engines::RepeatedHafnian<Integer>&, const EngineOptions&);
template WalkTeam* share_repeated_hafnian(const engines::RepeatedHafnian<double>&, const EngineOptions&);
template WalkTeam* share_repeated_hafnian(const engines::RepeatedHafnian<Complex>&, const EngineOptions&);

void serve_walks(Reader& in) {
  const std::string engine = in.get_string();
  switch (in.get<std::uint64_t>()) {
    case kind_code<Integer>(): serve_walks_of<Integer>(in, engine); break;
    case kind_code<double>(): serve_walks_of<double>(in, engine); break;
    default: serve_walks_of<Complex>(in, engine); break;
  }
}

}  // namespace matchcount::cluster
