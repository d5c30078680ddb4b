// Running a piece of a test under other tuning knobs (core/tuning.hpp).
#pragma once

#include "core/tuning.hpp"

namespace matchcount::test {

/// The knobs in force with `knob` set to `value`.
template <class T>
tuning::Tuning tuning_with(T tuning::Tuning::*knob, T value) {
  tuning::Tuning t = tuning::tuning();
  t.*knob = value;
  return t;
}

/// f() with `knobs` in force; the knobs before are back when it returns.
template <class F>
auto with_tuning(const tuning::Tuning& knobs, F f) {
  const tuning::ScopedTuning scope(knobs);
  return f();
}

}  // namespace matchcount::test
