// SPDX-License-Identifier: BSD-3-Clause
// A number of unspecified tensor type: bool, integer or floating. Carries its
// category so type promotion can treat it as a "wrapped number".
#pragma once
#include <cstdint>
#include <ostream>
#include <type_traits>

#include "core/dtype.h"

namespace tc {

class Scalar {
 public:
  enum class Tag : int8_t { Bool = 0, Int = 1, Float = 2 };

  Scalar() : Scalar(int64_t(0)) {}
  Scalar(bool b) : tag_(Tag::Bool) { v_.i = b; }
  Scalar(double d) : tag_(Tag::Float) { v_.d = d; }
  Scalar(float f) : Scalar(double(f)) {}
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T i) : tag_(Tag::Int) {
    v_.i = int64_t(i);
  }

  Tag tag() const { return tag_; }
  bool is_bool() const { return tag_ == Tag::Bool; }
  bool is_integral() const { return tag_ == Tag::Int; }
  bool is_floating_point() const { return tag_ == Tag::Float; }

  double to_double() const { return tag_ == Tag::Float ? v_.d : double(v_.i); }
  // A float converts by truncation, saturating at the int64 bounds, NaN to 0:
  // the plain cast is undefined out of range. Ops that must reject such values
  // check them first (check_scalar_fits).
  int64_t to_int() const { return tag_ == Tag::Float ? saturate(v_.d) : v_.i; }
  bool to_bool() const { return tag_ == Tag::Float ? v_.d != 0 : v_.i != 0; }
  template <class T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>)
      return to_bool();
    else if constexpr (std::is_integral_v<T>)
      return T(to_int());
    else
      return T(to_double());
  }
  // The dtype a tensor made from this number gets by default.
  ScalarType default_dtype() const {
    return tag_ == Tag::Float ? ScalarType::Float32 : tag_ == Tag::Int ? ScalarType::Int64 : ScalarType::Bool;
  }
  Scalar operator-() const;

 private:
  static int64_t saturate(double d) {
    if (d != d) return 0;
    if (d >= 9223372036854775808.0) return INT64_MAX;
    if (d <= -9223372036854775808.0) return INT64_MIN;
    return int64_t(d);
  }
  Tag tag_;
  union {
    int64_t i;
    double d;
  } v_;
};

std::ostream& operator<<(std::ostream& os, const Scalar& s);

}  // namespace tc
