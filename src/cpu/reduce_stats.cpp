// SPDX-License-Identifier: BSD-3-Clause
// var/std (CPU), accumulated in double as PyTorch does on CPU. Rows are
// staged in chunks: each chunk's (count, mean, M2) comes from an exact
// two-pass over the staged values, and chunks merge with Chan's formula, so
// one pass over memory gives two-pass accuracy. Vertical reductions use
// Welford updates.
#include <algorithm>
#include <cmath>

#include "cpu/reduce_engine.h"
#include "tensorc_gen/native_functions.h"
#include "cpu/reduce_simd.h"

namespace tc::native {
namespace {

struct Moments {
  double mean = 0, m2 = 0;
  int64_t n = 0;
};

template <class T>
struct VarOp {
  using in_t = T;
  using acc_t = Moments;
  T* out;
  double correction;
  bool take_sqrt;

  Moments identity() const { return Moments(); }
  Moments combine(const Moments& a, const Moments& b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    double na = double(a.n), nb = double(b.n), n = na + nb, d = b.mean - a.mean;
    return {a.mean + d * (nb / n), a.m2 + b.m2 + d * d * (na * nb / n), a.n + b.n};
  }
  // Exact two-pass moments of up to kChunk staged values.
  static constexpr int64_t kChunk = 512;
  static Moments chunk(const T* p, int64_t n, int64_t s) {
    if (n <= 0 || n > kChunk) return Moments();  // (never > kChunk; tells the compiler so)
    double buf[kChunk];
    for (int64_t k = 0; k < n; ++k) buf[k] = cpu::to_acc<double>(p[k * s]);
    double mean = cpu::block_sum(buf, n) / double(n);
    for (int64_t k = 0; k < n; ++k) buf[k] = (buf[k] - mean) * (buf[k] - mean);
    return {mean, cpu::block_sum(buf, n), n};
  }
  Moments row(const T* p, int64_t n, int64_t s, int64_t) const {
    if (n <= kChunk) return chunk(p, n, s);
    cpu::Cascade<VarOp> c;
    for (int64_t i = 0; i < n; i += kChunk) c.push(*this, chunk(p + i * s, std::min(kChunk, n - i), s));
    return c.result(*this);
  }
  void vertical(Moments* acc, const T* p, int64_t w, int64_t sw, int64_t) const {
    // Within a block every accumulator has seen the same number of rows.
    int64_t n1 = acc[0].n + 1;
    double inv = 1.0 / double(n1);
    for (int64_t i = 0; i < w; ++i) {
      double x = cpu::to_acc<double>(p[i * sw]), d = x - acc[i].mean;
      acc[i].mean += d * inv;
      acc[i].m2 += d * (x - acc[i].mean);
      acc[i].n = n1;
    }
  }
  void write(int64_t o, const Moments& a) const {
    double divisor = std::max(0.0, double(a.n) - correction);
    double v = a.m2 / divisor;
    out[o] = T(take_sqrt ? std::sqrt(v) : v);
  }
};

Tensor var_std(const char* op, const Tensor& self, std::optional<IntArrayRef> dim, double correction, bool keepdim,
               bool take_sqrt) {
  TC_CHECK_TYPE(is_floating(self.dtype()), op, ": only floating point dtypes are supported, got ", self.dtype());
  uint64_t mask = cpu::reduce_mask(self, dim, op);
  cpu::ReducePlan pl = cpu::make_reduce_plan(self, mask, keepdim);
  Tensor out = empty_tensor(pl.out_shape, self.dtype());
  TC_DISPATCH_FLOATING_TYPES(self.dtype(), op, [&] {
    cpu::run_reduction(VarOp<scalar_t>{out.data_ptr<scalar_t>(), correction, take_sqrt}, self.data_ptr<scalar_t>(), pl);
  });
  return out;
}

double correction_value(const std::optional<Scalar>& c) { return c ? c->to_double() : 1.0; }

}  // namespace

Tensor var_cpu(const Tensor& self, bool unbiased) {
  return var_std("var", self, std::nullopt, unbiased ? 1.0 : 0.0, false, false);
}
Tensor var_dim_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return var_std("var", self, dim, unbiased ? 1.0 : 0.0, keepdim, false);
}
Tensor var_correction_cpu(const Tensor& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction,
                          bool keepdim) {
  return var_std("var", self, dim, correction_value(correction), keepdim, false);
}
Tensor std_cpu(const Tensor& self, bool unbiased) {
  return var_std("std", self, std::nullopt, unbiased ? 1.0 : 0.0, false, true);
}
Tensor std_dim_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return var_std("std", self, dim, unbiased ? 1.0 : 0.0, keepdim, true);
}
Tensor std_correction_cpu(const Tensor& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction,
                          bool keepdim) {
  return var_std("std", self, dim, correction_value(correction), keepdim, true);
}

}  // namespace tc::native
