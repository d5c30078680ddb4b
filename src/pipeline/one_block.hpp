// Private to the pipeline: what the questions counted in one block without preprocessing share
// (count_hafnian_repeated, count_torontonian): their input as dense values of one number kind,
// and their checkpoint.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <vector>

#include "matchcount/checkpoint.hpp"
#include "matchcount/pipeline.hpp"

namespace matchcount::detail {

/// Dense row-major values of `m` as U, the wider kind: integers widen to fractions exactly, and
/// integers and fractions round to the nearest double where U is a float. Throws logic_error
/// for a narrowing (complex to real, a float to an exact kind).
template <class U>
std::vector<U> dense_as(const AnyMatrix& m) {
  return std::visit(
      [](const auto& a) {
        using T = std::decay_t<decltype(a.entries[0].value)>;
        std::vector<U> out(static_cast<std::size_t>(a.rows) * static_cast<std::size_t>(a.cols), U(0));
        for (const auto& e : a.entries) {
          U& x = out[static_cast<std::size_t>(e.row) * static_cast<std::size_t>(a.cols) + static_cast<std::size_t>(e.col)];
          if constexpr (std::is_same_v<U, T>) x = e.value;
          else if constexpr (std::is_same_v<T, Integer> && std::is_same_v<U, Rational>) x = Rational(e.value);
          else if constexpr ((std::is_same_v<T, Integer> || std::is_same_v<T, Rational>) &&
                             (std::is_same_v<U, double> || std::is_same_v<U, Complex>))
            x = U(e.value.get_d());
          else if constexpr (std::is_same_v<T, double> && std::is_same_v<U, Complex>) x = Complex(e.value);
          else throw std::logic_error("dense_as: a narrowing conversion");
        }
        return out;
      },
      m);
}

/// The checkpoint of a one-block question: opened with a fingerprint of its inputs (`matrices`,
/// null ones skipped, and `seed` for what else defines the count), the resume noted, the block
/// begun; finish() records the resume summary and completes it.
class OneBlockCheckpoint {
 public:
  OneBlockCheckpoint(Checkpoint* checkpoint, std::uint64_t seed, std::initializer_list<const AnyMatrix*> matrices,
                     std::uint64_t max_bytes, CountReport& report);
  void finish(CountReport& report);

 private:
  Checkpoint* checkpoint_;
};

}  // namespace matchcount::detail
