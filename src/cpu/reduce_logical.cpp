// SPDX-License-Identifier: BSD-3-Clause
// any/all (CPU): "is nonzero" reduced with or/and; rows stop at the first
// deciding element. The result is bool, or uint8 for uint8 input (PyTorch
// keeps that legacy rule).
#include <type_traits>

#include "cpu/reduce_engine.h"
#include "tensorc_gen/native_functions.h"
#include "cpu/reduce_simd.h"

namespace tc::native {
namespace {

template <class T>
inline bool nonzero(T v) {
  if constexpr (cpu::kIsReducedFloat<T>)
    return float(v) != 0.0f;
  else
    return v != T(0);
}

template <class T, bool IsAll>
struct LogicalOp {
  using in_t = T;
  using acc_t = bool;
  uint8_t* out;  // bool and uint8 share the 0/1 byte representation

  bool identity() const { return IsAll; }
  bool combine(bool a, bool b) const { return IsAll ? a && b : a || b; }
  bool row(const T* p, int64_t n, int64_t s, int64_t) const {
    for (int64_t i = 0; i < n; ++i)
      if (nonzero(p[i * s]) != IsAll) return !IsAll;
    return IsAll;
  }
  void vertical(bool* acc, const T* p, int64_t w, int64_t sw, int64_t) const {
    for (int64_t i = 0; i < w; ++i) acc[i] = combine(acc[i], nonzero(p[i * sw]));
  }
  void write(int64_t o, bool a) const { out[o] = uint8_t(a); }
};

template <bool IsAll>
Tensor logical(const char* op, const Tensor& self, uint64_t mask, bool keepdim) {
  cpu::ReducePlan pl = cpu::make_reduce_plan(self, mask, keepdim);
  const ScalarType out_dt = structured::logical_reduce_dtype(self.dtype());
  Tensor out = empty_tensor(pl.out_shape, out_dt);
  uint8_t* o = static_cast<uint8_t*>(out.data_ptr());
  TC_DISPATCH_ALL_TYPES_AND_BOOL(
      self.dtype(), op, [&] { cpu::run_reduction(LogicalOp<scalar_t, IsAll>{o}, self.data_ptr<scalar_t>(), pl); });
  return out;
}

}  // namespace

Tensor any_cpu(const Tensor& self) {
  return logical<false>("any", self, cpu::reduce_mask(self, std::nullopt, "any"), false);
}
Tensor any_dim_cpu(const Tensor& self, int64_t dim, bool keepdim) {
  return logical<false>("any", self, cpu::reduce_mask_one(self, dim, "any"), keepdim);
}
Tensor any_dims_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  return logical<false>("any", self, cpu::reduce_mask(self, dim, "any"), keepdim);
}
Tensor all_cpu(const Tensor& self) {
  return logical<true>("all", self, cpu::reduce_mask(self, std::nullopt, "all"), false);
}
Tensor all_dim_cpu(const Tensor& self, int64_t dim, bool keepdim) {
  return logical<true>("all", self, cpu::reduce_mask_one(self, dim, "all"), keepdim);
}
Tensor all_dims_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  return logical<true>("all", self, cpu::reduce_mask(self, dim, "all"), keepdim);
}

}  // namespace tc::native
