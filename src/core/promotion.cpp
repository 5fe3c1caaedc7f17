// SPDX-License-Identifier: BSD-3-Clause
#include "core/promotion.h"

namespace tc {
namespace {

ScalarType promote_undef(ScalarType a, ScalarType b) {
  if (a == ScalarType::Undefined) return b;
  if (b == ScalarType::Undefined) return a;
  return promote_types(a, b);
}

int category(ScalarType t) {
  if (t == ScalarType::Undefined) return -1;
  if (t == ScalarType::Bool) return 0;
  return is_floating(t) ? 2 : 1;
}

// A lower-priority group only matters when it brings a higher category.
ScalarType combine(ScalarType higher, ScalarType lower) {
  if (higher == ScalarType::Undefined) return lower;
  if (category(lower) > category(higher)) return promote_types(higher, lower);
  return higher;
}

}  // namespace

void ResultTypeState::add(const Tensor& t) {
  if (!t.defined()) return;
  if (t.impl()->is_wrapped_number()) {
    // A wrapped float counts as the default float dtype, an int as int64.
    ScalarType w = t.dtype() == ScalarType::Float64 ? ScalarType::Float32 : t.dtype();
    wrapped_ = promote_undef(wrapped_, w);
  } else if (t.dim() == 0) {
    zero_dim_ = promote_undef(zero_dim_, t.dtype());
  } else {
    dim_ = promote_undef(dim_, t.dtype());
  }
}

void ResultTypeState::add(const Scalar& s) {
  ScalarType w = s.is_floating_point() ? ScalarType::Float32 : s.is_integral() ? ScalarType::Int64 : ScalarType::Bool;
  wrapped_ = promote_undef(wrapped_, w);
}

ScalarType ResultTypeState::result() const { return combine(combine(dim_, zero_dim_), wrapped_); }

ScalarType result_type(std::initializer_list<Tensor> tensors) {
  ResultTypeState st;
  for (const Tensor& t : tensors) st.add(t);
  return st.result();
}

ScalarType result_type(const Tensor& a, const Scalar& b) {
  ResultTypeState st;
  st.add(a);
  st.add(b);
  return st.result();
}

}  // namespace tc
