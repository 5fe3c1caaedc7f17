// tensorc C++ wrapper: indexing (t.index({Slice(), 0, None})) and the operators.
// Part of the header-only wrapper over the C ABI; include <tensorc.hpp>.
#pragma once

#include "tensorc/tensor.hpp"

namespace tensorc {

// ---- indexing --------------------------------------------------------------------------

inline Tensor Tensor::operator[](int64_t i) const { return select(0, i); }

inline Tensor Tensor::index(ArrayRef<indexing::TensorIndex> indices) const {
  using K = indexing::TensorIndex::Kind;
  int64_t consumed = 0, ellipses = 0;
  for (const auto& ix : indices) {
    if (ix.kind() == K::Integer || ix.kind() == K::Slice) ++consumed;
    if (ix.kind() == K::EllipsisDims) ++ellipses;
  }
  const int64_t nd = dim();
  if (ellipses > 1) throw IndexError("tensorc::Tensor::index: an index can only have a single ellipsis ('...')");
  if (consumed > nd)
    throw IndexError("tensorc::Tensor::index: too many indices for tensor of dimension " + std::to_string(nd));
  Tensor r = alias();
  int64_t d = 0;
  for (const auto& ix : indices) {
    switch (ix.kind()) {
      case K::Integer: r = r.select(d, ix.integer()); break;
      case K::Slice: {
        const indexing::Slice& s = ix.slice();
        r = r.slice(d, s.start, s.stop, s.step.value_or(1));
        ++d;
        break;
      }
      case K::NewAxis: r = r.unsqueeze(d++); break;
      case K::EllipsisDims: d += nd - consumed; break;
    }
  }
  return r;
}

inline Tensor& Tensor::index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& v) {
  index(indices).copy_(v);
  return *this;
}
inline Tensor& Tensor::index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar& v) {
  index(indices).fill_(v);
  return *this;
}

// ---- operators ----------------------------------------------------------------------------

inline Tensor operator-(const Tensor& a) { return neg(a); }
inline Tensor operator~(const Tensor& a) { return bitwise_not(a); }

inline Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
inline Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, b); }
inline Tensor operator+(const Scalar& a, const Tensor& b) { return add(b, a); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
inline Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, b); }
inline Tensor operator-(const Scalar& a, const Tensor& b) { return rsub(b, a); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, b); }
inline Tensor operator*(const Scalar& a, const Tensor& b) { return mul(b, a); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
inline Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, b); }
inline Tensor operator/(const Scalar& a, const Tensor& b) { return mul(reciprocal(b), a); }
inline Tensor operator%(const Tensor& a, const Tensor& b) { return remainder(a, b); }
inline Tensor operator%(const Tensor& a, const Scalar& b) { return remainder(a, b); }
inline Tensor operator%(const Scalar& a, const Tensor& b) { return remainder(a, b); }
inline Tensor operator&(const Tensor& a, const Tensor& b) { return bitwise_and(a, b); }
inline Tensor operator&(const Tensor& a, const Scalar& b) { return bitwise_and(a, b); }
inline Tensor operator&(const Scalar& a, const Tensor& b) { return bitwise_and(a, b); }
inline Tensor operator|(const Tensor& a, const Tensor& b) { return bitwise_or(a, b); }
inline Tensor operator|(const Tensor& a, const Scalar& b) { return bitwise_or(a, b); }
inline Tensor operator|(const Scalar& a, const Tensor& b) { return bitwise_or(a, b); }
inline Tensor operator^(const Tensor& a, const Tensor& b) { return bitwise_xor(a, b); }
inline Tensor operator^(const Tensor& a, const Scalar& b) { return bitwise_xor(a, b); }
inline Tensor operator^(const Scalar& a, const Tensor& b) { return bitwise_xor(a, b); }

// Comparisons are elementwise and return bool tensors, as in libtorch.
inline Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
inline Tensor operator==(const Tensor& a, const Scalar& b) { return eq(a, b); }
inline Tensor operator==(const Scalar& a, const Tensor& b) { return eq(b, a); }
inline Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
inline Tensor operator!=(const Tensor& a, const Scalar& b) { return ne(a, b); }
inline Tensor operator!=(const Scalar& a, const Tensor& b) { return ne(b, a); }
inline Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
inline Tensor operator<(const Tensor& a, const Scalar& b) { return lt(a, b); }
inline Tensor operator<(const Scalar& a, const Tensor& b) { return gt(b, a); }
inline Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
inline Tensor operator<=(const Tensor& a, const Scalar& b) { return le(a, b); }
inline Tensor operator<=(const Scalar& a, const Tensor& b) { return ge(b, a); }
inline Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
inline Tensor operator>(const Tensor& a, const Scalar& b) { return gt(a, b); }
inline Tensor operator>(const Scalar& a, const Tensor& b) { return lt(b, a); }
inline Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
inline Tensor operator>=(const Tensor& a, const Scalar& b) { return ge(a, b); }
inline Tensor operator>=(const Scalar& a, const Tensor& b) { return le(b, a); }

}  // namespace tensorc
