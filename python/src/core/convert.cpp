// Arrays and coordinate lists into AnyMatrix by the rules of the CLI's NumPy reader, and
// results back into Python numbers.
#include "convert.hpp"

#include <cmath>
#include <complex>
#include <stdexcept>
#include <utility>
#include <vector>

namespace matchcount::py {

std::string entry_message(std::int64_t row, std::int64_t col, const std::string& what) {
  return "entry (row " + std::to_string(row + 1) + ", column " + std::to_string(col + 1) + ") " + what;
}

namespace {

/// Entries as the NumPy reader collects them before it decides the number kind.
struct Collector {
  int rows = 0, cols = 0;
  ExactMode mode = ExactMode::Auto;
  char kind = 'i';  // 'i' integers, 'f' reals, 'c' complex
  std::vector<Entry<Integer>> ints;
  std::vector<Entry<double>> reals;
  std::vector<Entry<Complex>> complexes;
  bool integral = true;  // every real (or complex) value is a (real) integer

  static void finite(double x, std::int64_t i, std::int64_t j, const char* part) {
    if (std::isfinite(x)) return;
    throw std::invalid_argument(entry_message(i, j, std::string(part) + (std::isnan(x) ? "is NaN" : "is infinite") +
                                                         ": only finite values can be counted"));
  }
  void add(std::int64_t i, std::int64_t j, long long v) {
    if (v != 0) ints.push_back({int(i), int(j), Integer(static_cast<long>(v))});
  }
  void add(std::int64_t i, std::int64_t j, unsigned long long v) {
    if (v == 0) return;
    Integer z;
    mpz_set_ui(z.get_mpz_t(), static_cast<unsigned long>(v));
    ints.push_back({int(i), int(j), std::move(z)});
  }
  void add(std::int64_t i, std::int64_t j, double x) {
    finite(x, i, j, "");
    if (x == 0.0) return;
    integral = integral && std::trunc(x) == x;
    reals.push_back({int(i), int(j), x});
  }
  void add(std::int64_t i, std::int64_t j, Complex z) {
    finite(z.real(), i, j, "real part ");
    finite(z.imag(), i, j, "imaginary part ");
    if (z == Complex(0.0, 0.0)) return;
    integral = integral && z.imag() == 0.0 && std::trunc(z.real()) == z.real();
    complexes.push_back({int(i), int(j), z});
  }

  template <class T>
  SparseMatrix<T> shaped(std::vector<Entry<T>> entries, bool normalize) const {
    SparseMatrix<T> m;
    m.rows = rows, m.cols = cols;
    m.entries = std::move(entries);
    if (normalize) m.normalize();
    return m;
  }

  /// The number kind the NumPy reader gives these entries (src/io/npy.cpp), or doubles when
  /// a float result is asked for.
  AnyMatrix finish(bool normalize) {
    if (kind == 'c' && !integral) return shaped(std::move(complexes), normalize);
    if (kind == 'f' && !integral && mode == ExactMode::Exact) {
      std::vector<Entry<Rational>> q;
      q.reserve(reals.size());
      for (const auto& e : reals) q.push_back({e.row, e.col, Rational(e.value)});  // exact
      return shaped(std::move(q), normalize);
    }
    if (kind == 'f' && (!integral || mode == ExactMode::Float)) return shaped(std::move(reals), normalize);
    if (mode == ExactMode::Float) {
      std::vector<Entry<double>> d;
      for (const auto& e : ints) d.push_back({e.row, e.col, e.value.get_d()});
      for (const auto& e : complexes) d.push_back({e.row, e.col, e.value.real()});
      return shaped(std::move(d), normalize);
    }
    for (const auto& e : reals) ints.push_back({e.row, e.col, Integer(e.value)});  // exact
    for (const auto& e : complexes) ints.push_back({e.row, e.col, Integer(e.value.real())});
    return shaped(std::move(ints), normalize);
  }
};

template <class T>
constexpr char kind_of_type() {
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) return 'c';
  else if constexpr (std::is_floating_point_v<T>) return 'f';
  else return 'i';
}

/// The value as the Collector takes it: integers widened, floats as doubles.
template <class T>
auto widen(T v) {
  if constexpr (std::is_same_v<T, bool>) return static_cast<long long>(v);
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) return static_cast<long long>(v);
  else if constexpr (std::is_integral_v<T>) return static_cast<unsigned long long>(v);
  else if constexpr (std::is_floating_point_v<T>) return static_cast<double>(v);
  else return Complex(v.real(), v.imag());
}

/// Calls f(T*) with the array's element type, or throws for a dtype the reader refuses.
template <class F>
void dispatch(nb::dlpack::dtype t, F&& f) {
  using nb::dlpack::dtype_code;
  const auto code = static_cast<dtype_code>(t.code);
  if (t.lanes == 1) switch (code) {
      case dtype_code::Bool: if (t.bits == 8) return f(static_cast<const bool*>(nullptr)); break;
      case dtype_code::Int:
        if (t.bits == 8) return f(static_cast<const std::int8_t*>(nullptr));
        if (t.bits == 16) return f(static_cast<const std::int16_t*>(nullptr));
        if (t.bits == 32) return f(static_cast<const std::int32_t*>(nullptr));
        if (t.bits == 64) return f(static_cast<const std::int64_t*>(nullptr));
        break;
      case dtype_code::UInt:
        if (t.bits == 8) return f(static_cast<const std::uint8_t*>(nullptr));
        if (t.bits == 16) return f(static_cast<const std::uint16_t*>(nullptr));
        if (t.bits == 32) return f(static_cast<const std::uint32_t*>(nullptr));
        if (t.bits == 64) return f(static_cast<const std::uint64_t*>(nullptr));
        break;
      case dtype_code::Float:
        if (t.bits == 32) return f(static_cast<const float*>(nullptr));
        if (t.bits == 64) return f(static_cast<const double*>(nullptr));
        break;
      case dtype_code::Complex:
        if (t.bits == 64) return f(static_cast<const std::complex<float>*>(nullptr));
        if (t.bits == 128) return f(static_cast<const std::complex<double>*>(nullptr));
        break;
      default: break;
    }
  // The Python layer names numpy's dtype; this is for arrays from other libraries.
  throw std::domain_error("unsupported dtype (integers i1..i8 and u1..u8, bool b1, floats f4 f8, complex c8 c16)");
}

void check_shape(std::int64_t rows, std::int64_t cols) {
  constexpr std::int64_t kMax = (std::int64_t(1) << 31) - 1;
  if (rows > kMax || cols > kMax)
    throw std::invalid_argument("shape (" + std::to_string(rows) + ", " + std::to_string(cols) + ") is too large");
}

using Index = nb::ndarray<nb::ro, const std::int64_t, nb::ndim<1>, nb::device::cpu>;

void check_coords(int rows, int cols, const Index& r, const Index& c, std::size_t n) {
  if (r.shape(0) != n || c.shape(0) != n) throw std::invalid_argument("coordinate lists of different lengths");
  for (std::size_t k = 0; k < n; ++k)
    if (r(k) < 0 || r(k) >= rows || c(k) < 0 || c(k) >= cols)
      throw std::invalid_argument("entry (" + std::to_string(r(k) + 1) + ", " + std::to_string(c(k) + 1) +
                                  ") is outside the " + std::to_string(rows) + "x" + std::to_string(cols) + " matrix");
}

}  // namespace

AnyMatrix from_strided(const void* data, nb::dlpack::dtype dtype, std::int64_t rows, std::int64_t cols, std::int64_t s0,
                       std::int64_t s1, ExactMode mode) {
  check_shape(rows, cols);
  Collector out;
  out.rows = int(rows), out.cols = int(cols), out.mode = mode;
  dispatch(dtype, [&](auto* tag) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(tag)>>;
    out.kind = kind_of_type<T>();
    const T* p = static_cast<const T*>(data);
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j) out.add(i, j, widen(p[i * s0 + j * s1]));
  });
  return out.finish(false);  // row-major scan: already sorted, no zeros, no duplicates
}

AnyMatrix from_dense(const nb::ndarray<nb::ro, nb::ndim<2>, nb::device::cpu>& a, ExactMode mode) {
  return from_strided(a.data(), a.dtype(), static_cast<std::int64_t>(a.shape(0)), static_cast<std::int64_t>(a.shape(1)),
                      a.stride(0), a.stride(1), mode);
}

AnyMatrix from_coo(int rows, int cols, const Index& r, const Index& c,
                   const nb::ndarray<nb::ro, nb::ndim<1>, nb::device::cpu>& values, ExactMode mode) {
  const std::size_t n = values.shape(0);
  check_coords(rows, cols, r, c, n);
  Collector out;
  out.rows = rows, out.cols = cols, out.mode = mode;
  dispatch(values.dtype(), [&](auto* tag) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(tag)>>;
    out.kind = kind_of_type<T>();
    const T* p = static_cast<const T*>(values.data());
    const std::int64_t s = values.stride(0);
    for (std::size_t k = 0; k < n; ++k) out.add(r(k), c(k), widen(p[std::int64_t(k) * s]));
  });
  return out.finish(true);
}

Integer to_integer(nb::handle obj) {
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(obj.ptr(), &overflow);
  if (v == -1 && PyErr_Occurred()) throw nb::python_error();
  if (!overflow) return Integer(static_cast<long>(v));
  // Big: through hexadecimal text, linear in the digits both ways.
  nb::str hex = nb::steal<nb::str>(PyNumber_ToBase(obj.ptr(), 16));
  if (!hex.is_valid()) throw nb::python_error();
  std::string s = hex.c_str();  // "0x..." or "-0x..."
  const bool negative = s[0] == '-';
  Integer z(s.substr(negative ? 3 : 2), 16);
  return negative ? Integer(-z) : z;
}

AnyMatrix from_coo_big(int rows, int cols, const Index& r, const Index& c, const nb::list& nums, const nb::object& dens,
                       ExactMode mode) {
  const std::size_t n = nb::len(nums);
  check_coords(rows, cols, r, c, n);
  const bool fractions = !dens.is_none();
  std::vector<Entry<Rational>> q;
  std::vector<Entry<Integer>> z;
  bool integral = true;
  const nb::list den_list = fractions ? nb::list(dens) : nb::list();
  if (fractions && nb::len(den_list) != n) throw std::invalid_argument("numerator and denominator lists differ in length");
  for (std::size_t k = 0; k < n; ++k) {
    Integer num = to_integer(nums[k]);
    if (fractions) {
      Integer den = to_integer(den_list[k]);
      if (den == 0) throw std::invalid_argument(entry_message(r(k), c(k), "has a zero denominator"));
      Rational v(num, den);
      v.canonicalize();
      integral = integral && v.get_den() == 1;
      q.push_back({int(r(k)), int(c(k)), std::move(v)});
    } else {
      z.push_back({int(r(k)), int(c(k)), std::move(num)});
    }
  }
  if (fractions && integral)
    for (auto& e : q) z.push_back({e.row, e.col, e.value.get_num()});
  const auto shaped = [&](auto entries) {
    SparseMatrix<std::decay_t<decltype(entries[0].value)>> m;
    m.rows = rows, m.cols = cols;
    m.entries = std::move(entries);
    m.normalize();
    return AnyMatrix(std::move(m));
  };
  if (mode == ExactMode::Float) {
    std::vector<Entry<double>> d;
    const auto add = [&](const auto& e, double x) {
      if (!std::isfinite(x)) throw std::invalid_argument(entry_message(e.row, e.col, "is too large for a double"));
      d.push_back({e.row, e.col, x});
    };
    if (fractions && !integral) for (const auto& e : q) add(e, e.value.get_d());
    else for (const auto& e : z) add(e, e.value.get_d());
    return shaped(std::move(d));
  }
  if (fractions && !integral) return shaped(std::move(q));
  return shaped(std::move(z));
}

nb::object to_python(const Integer& v) {
  if (mpz_fits_slong_p(v.get_mpz_t())) return nb::steal(PyLong_FromLong(mpz_get_si(v.get_mpz_t())));
  const std::string s = v.get_str(16);
  return nb::steal(PyLong_FromString(s.c_str(), nullptr, 16));
}

nb::object to_python(const PermanentValue& v) {
  switch (v.value.index()) {
    case 0: return to_python(std::get<Integer>(v.value));
    case 1: {
      static nb::handle fraction = nb::object(nb::module_::import_("fractions").attr("Fraction")).release();
      const Rational& q = std::get<Rational>(v.value);
      return fraction(to_python(Integer(q.get_num())), to_python(Integer(q.get_den())));
    }
    case 2: return nb::steal(PyFloat_FromDouble(std::get<double>(v.value)));
    default: {
      const Complex z = std::get<Complex>(v.value);
      return nb::steal(PyComplex_FromDoubles(z.real(), z.imag()));
    }
  }
}

}  // namespace matchcount::py
