// SPDX-License-Identifier: BSD-3-Clause
// sum, mean, prod (CPU). Sums are pairwise (reduce_simd.h) and combined by
// the engine's cascade; integers accumulate in int64 and wrap like PyTorch.
#include <type_traits>

#include "cpu/reduce_copy.h"
#include "cpu/reduce_engine.h"
#include "tensorc_gen/native_functions.h"
#include "cpu/reduce_simd.h"

namespace tc::native {
namespace {

using cpu::acc_type_t;
using cpu::to_acc;

template <class Out, class Acc>
inline Out from_acc(Acc a) {
  if constexpr (std::is_same_v<Out, bool>)
    return a != Acc(0);
  else if constexpr (cpu::kIsReducedFloat<Out>)
    return Out(float(a));
  else
    return Out(a);
}

template <class In, class Out>
struct SumOp {
  using in_t = In;
  using acc_t = acc_type_t<Out>;
  Out* out;
  bool mean;
  int64_t count;  // elements per output (mean divides by it; 0 gives NaN)

  acc_t identity() const { return acc_t(0); }
  // Integer sums wrap modulo 2^64, as PyTorch's.
  TC_NO_SANITIZE_INTEGER acc_t combine(acc_t a, acc_t b) const {
    if constexpr (std::is_integral_v<acc_t>)
      return acc_t(uint64_t(a) + uint64_t(b));
    else
      return a + b;
  }
  acc_t row(const In* p, int64_t n, int64_t s, int64_t) const { return cpu::sum_row<acc_t>(p, n, s); }
  void vertical(acc_t* acc, const In* p, int64_t w, int64_t sw, int64_t) const { cpu::add_rows(acc, p, w, sw); }
  void write(int64_t o, acc_t a) const {
    if constexpr (std::is_floating_point_v<acc_t>)
      if (mean) a = a / acc_t(count);
    out[o] = from_acc<Out>(a);
  }
};

template <class In, class Out>
struct ProdOp {
  using in_t = In;
  using acc_t = acc_type_t<Out>;
  Out* out;

  acc_t identity() const { return acc_t(1); }
  acc_t combine(acc_t a, acc_t b) const {
    if constexpr (std::is_integral_v<acc_t>)
      return acc_t(uint64_t(a) * uint64_t(b));
    else
      return a * b;
  }
  acc_t row(const In* p, int64_t n, int64_t s, int64_t) const {
    acc_t a = identity();
    for (int64_t i = 0; i < n; ++i) a = combine(a, to_acc<acc_t>(p[i * s]));
    return a;
  }
  void vertical(acc_t* acc, const In* p, int64_t w, int64_t sw, int64_t) const {
    for (int64_t i = 0; i < w; ++i) acc[i] = combine(acc[i], to_acc<acc_t>(p[i * sw]));
  }
  void write(int64_t o, acc_t a) const { out[o] = from_acc<Out>(a); }
};

// The dtype sum/prod produce without a dtype argument: integers and bool
// widen to int64 (PyTorch's rule), floats keep theirs.
ScalarType natural_dtype(ScalarType t) { return is_integral(t, true) ? ScalarType::Int64 : t; }

enum class Kind { Sum, Mean, Prod };

Tensor reduce_arith(const char* op, Kind kind, const Tensor& self, uint64_t mask, bool keepdim,
                    std::optional<ScalarType> dtype) {
  const ScalarType out_dt = structured::sum_like_dtype(op, kind == Kind::Mean, self.dtype(), dtype);
  // With an explicit dtype PyTorch converts the input first.
  Tensor in = natural_dtype(self.dtype()) == out_dt || (kind == Kind::Mean && self.dtype() == out_dt)
                  ? self
                  : cpu::contiguous_as(self, out_dt);
  cpu::ReducePlan pl = cpu::make_reduce_plan(in, mask, keepdim);
  Tensor out = empty_tensor(pl.out_shape, out_dt);
  TC_DISPATCH_ALL_TYPES_AND_BOOL(in.dtype(), op, [&] {
    using In = scalar_t;
    auto run = [&](auto out_tag) {
      using Out = decltype(out_tag);
      Out* o = out.data_ptr<Out>();
      if (kind == Kind::Prod)
        cpu::run_reduction(ProdOp<In, Out>{o}, in.data_ptr<In>(), pl);
      else
        cpu::run_reduction(SumOp<In, Out>{o, kind == Kind::Mean, pl.red_numel}, in.data_ptr<In>(), pl);
    };
    if constexpr (std::is_integral_v<In>) {
      if (out_dt == ScalarType::Int64) return run(int64_t());
    }
    run(In());
  });
  return out;
}

}  // namespace

Tensor sum_cpu(const Tensor& self, std::optional<ScalarType> dtype) {
  return reduce_arith("sum", Kind::Sum, self, cpu::reduce_mask(self, std::nullopt, "sum"), false, dtype);
}

Tensor sum_dim_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  return reduce_arith("sum", Kind::Sum, self, cpu::reduce_mask(self, dim, "sum"), keepdim, dtype);
}

Tensor mean_cpu(const Tensor& self, std::optional<ScalarType> dtype) {
  return reduce_arith("mean", Kind::Mean, self, cpu::reduce_mask(self, std::nullopt, "mean"), false, dtype);
}

Tensor mean_dim_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  return reduce_arith("mean", Kind::Mean, self, cpu::reduce_mask(self, dim, "mean"), keepdim, dtype);
}

Tensor prod_cpu(const Tensor& self, std::optional<ScalarType> dtype) {
  return reduce_arith("prod", Kind::Prod, self, cpu::reduce_mask(self, std::nullopt, "prod"), false, dtype);
}

Tensor prod_dim_cpu(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  return reduce_arith("prod", Kind::Prod, self, cpu::reduce_mask_one(self, dim, "prod"), keepdim, dtype);
}

}  // namespace tc::native
