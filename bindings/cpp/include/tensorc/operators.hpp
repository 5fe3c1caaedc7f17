// SPDX-License-Identifier: BSD-3-Clause
// tensorc C++ wrapper: indexing (t.index({Slice(), 0, None})) and the operators.
// Part of the header-only wrapper over the C ABI; include <tensorc.hpp>.
#pragma once

#include "tensorc/tensor.hpp"

namespace tensorc {

// ---- indexing --------------------------------------------------------------------------

inline Tensor Tensor::operator[](int64_t i) const { return select(0, i); }

namespace detail {
// Applies the basic indices (integers, slices, None, Ellipsis) as views, and
// collects the tensor indices by the dim they apply to, as libtorch does:
// t.index({Slice(), idx}) is index(t, {None, idx}).
inline Tensor apply_basic_indices(const Tensor& self, ArrayRef<indexing::TensorIndex> indices,
                                  std::vector<std::optional<Tensor>>* tensor_indices) {
  using K = indexing::TensorIndex::Kind;
  // A bool (or uint8) mask index covers as many dims as it has; every other
  // index at most one.
  auto dims_covered = [](const indexing::TensorIndex& ix) -> int64_t {
    const Tensor t = Tensor::borrow(ix.tensor());
    const ScalarType st = t.scalar_type();
    return st == kBool || st == kUInt8 ? t.dim() : 1;
  };
  int64_t consumed = 0, ellipses = 0;
  for (const auto& ix : indices) {
    if (ix.kind() == K::Integer || ix.kind() == K::Slice) ++consumed;
    if (ix.kind() == K::Tensor) consumed += dims_covered(ix);
    if (ix.kind() == K::EllipsisDims) ++ellipses;
  }
  const int64_t nd = self.dim();
  if (ellipses > 1) throw IndexError("tensorc::Tensor::index: an index can only have a single ellipsis ('...')");
  if (consumed > nd)
    throw IndexError("tensorc::Tensor::index: too many indices for tensor of dimension " + std::to_string(nd));
  Tensor r = self.alias();
  int64_t d = 0;       // the dim of r the next index applies to
  int64_t listed = 0;  // the dims of r the entries of *tensor_indices cover
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
      case K::Tensor: {
        Tensor ti = Tensor::borrow(ix.tensor());
        const ScalarType st = ti.scalar_type();
        const bool mask = st == kBool || st == kUInt8;
        if (mask && ti.dim() == 0) {  // as libtorch: a new dim of size 1, then a 1-element mask over it
          r = r.unsqueeze(d);
          ti = ti.reshape({1});
        }
        // std::nullopt (one dim each) for the dims since the last entry; a
        // k-dim mask is one entry covering k dims.
        tensor_indices->resize(tensor_indices->size() + static_cast<size_t>(d - listed));
        d += mask ? ti.dim() : 1;
        tensor_indices->push_back(std::move(ti));
        listed = d;
        break;
      }
    }
  }
  return r;
}
}  // namespace detail

inline Tensor Tensor::index(ArrayRef<indexing::TensorIndex> indices) const {
  std::vector<std::optional<Tensor>> tensor_indices;
  Tensor r = detail::apply_basic_indices(*this, indices, &tensor_indices);
  return tensor_indices.empty() ? r : tensorc::index(r, tensor_indices);
}

inline Tensor& Tensor::index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& v) {
  std::vector<std::optional<Tensor>> tensor_indices;
  Tensor r = detail::apply_basic_indices(*this, indices, &tensor_indices);
  if (tensor_indices.empty())
    r.copy_(v);
  else
    tensorc::index_put_(r, tensor_indices, v);  // r is a view of *this
  return *this;
}
inline Tensor& Tensor::index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar& v) {
  std::vector<std::optional<Tensor>> tensor_indices;
  Tensor r = detail::apply_basic_indices(*this, indices, &tensor_indices);
  if (tensor_indices.empty())
    r.fill_(v);
  else
    tensorc::index_put_(r, tensor_indices, tensorc::scalar_tensor(v, r.scalar_type(), r.device()));
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
// a / b divides (a * reciprocal(b) would round twice: 3 / 7.f would be off by
// an ulp), with a Scalar's type promotion: a floating Scalar over an integer
// or bool tensor gives float32, an integer one over bool int64 (then div's
// true division makes integers float32).
inline Tensor operator/(const Scalar& a, const Tensor& b) {
  const ScalarType bt = b.scalar_type();
  ScalarType t = bt;
  if (a.is_floating_point() && !is_floating_point(bt))
    t = kFloat32;
  else if (a.is_integral() && bt == kBool)
    t = kInt64;
  return div(full_like(b, a, t), b);
}
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
