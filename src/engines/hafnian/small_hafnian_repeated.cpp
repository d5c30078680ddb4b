// matchcount::small_dense_hafnian_repeated (matchcount/small_dense.hpp): the repeated-pair
// engine on one small float pattern without the pipeline. For a few photons the engine's walk
// or Kan's sum takes microseconds, and the pipeline around it (the sparse matrix, the memory
// budget, the checkpoint's scope, the report) several times that; the engine is the same, so is
// the value.
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "engines/dense_input.hpp"
#include "engines/hafnian/hafnian_repeated.hpp"
#include "matchcount/small_dense.hpp"

namespace matchcount {
namespace {

template <class T>
SmallDenseValue count(const std::vector<double>& re, const std::vector<double>& im, const std::vector<double>& mu_re,
                      const std::vector<double>& mu_im, int n, const std::vector<std::uint64_t>& rpt, bool loops,
                      SmallDenseValue::Kind kind) {
  engines::RepeatedHafnian<T> in;
  in.n = n, in.rpt = rpt, in.loops = loops, in.device = DevicePolicy::Cpu;
  const auto value = [](double x, double y) {
    if constexpr (std::is_same_v<T, Complex>) return T(x, y);
    else return x;
  };
  for (std::size_t e = 0; e < re.size(); ++e) in.a.push_back(value(re[e], im[e]));
  for (int i = 0; i < n; ++i) {
    const auto ii = static_cast<std::size_t>(i);
    in.mu.push_back(mu_re.empty() ? in.a[ii * static_cast<std::size_t>(n + 1)] : value(mu_re[ii], mu_im[ii]));
  }
  EngineOptions one;
  one.threads = 1;
  const Approx<T> got = engines::hafnian_repeated(in, one);
  SmallDenseValue out;
  if (!std::isfinite(std::abs(got.value))) return out;  // the pipeline says it is beyond double range
  out.kind = kind;
  out.re = std::real(got.value), out.im = std::imag(got.value);
  out.abs_error = got.abs_error, out.estimated = got.estimated;
  return out;
}

}  // namespace

SmallDenseValue small_dense_hafnian_repeated(const void* data, DenseElement type, std::int64_t rows, std::int64_t cols,
                                             std::int64_t s0, std::int64_t s1, const std::vector<std::uint64_t>& rpt,
                                             const void* mu, std::int64_t mu_stride, bool loops) {
  SmallDenseValue none;
  if (rows != cols || rows > kSmallHafnianMax || rpt.size() != static_cast<std::size_t>(rows) || (mu && !loops)) return none;
  std::uint64_t photons = 0;
  for (std::uint64_t r : rpt) {
    if (r > engines::kRepeatedMaxVertices) return none;
    photons += r;
  }
  if (photons > engines::kRepeatedMaxVertices || engines::pair_types(rpt, loops).leaves() > kSmallRepeatedLeaves) return none;
  const int n = static_cast<int>(rows);
  thread_local std::vector<double> re, im, mu_re, mu_im;
  bool integral = true, any_imag = false;
  if (!engines::dense::read_square(data, type, n, s0, s1, re, im, integral, any_imag)) return none;
  if (!engines::dense::exactly_symmetric(re, im, n)) return none;  // the pipeline names the entry
  mu_re.clear(), mu_im.clear();
  if (mu) {  // n loop weights of the matrix's element type: read as a column
    bool mu_integral = true;
    for (int i = 0; i < n; ++i) {
      double x = 0, y = 0;
      const bool read = engines::dense::dispatch(type, [&](auto* tag) {
        return engines::dense::to_doubles(static_cast<decltype(tag)>(mu)[i * mu_stride], x, y);
      });
      if (!read) return none;
      mu_integral = mu_integral && y == 0 && std::trunc(x) == x;
      mu_re.push_back(x), mu_im.push_back(y);
    }
    integral = integral && mu_integral;
  }
  const SmallDenseValue::Kind kind = engines::dense::number_kind(type, integral, DenseMode::Auto);
  if (kind == SmallDenseValue::Cplx) return count<Complex>(re, im, mu_re, mu_im, n, rpt, loops, kind);
  if (kind == SmallDenseValue::Real) return count<double>(re, im, mu_re, mu_im, n, rpt, loops, kind);
  return none;  // integers and fractions: the pipeline counts them exactly
}

}  // namespace matchcount
