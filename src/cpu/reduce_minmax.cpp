// SPDX-License-Identifier: BSD-3-Clause
// amax/amin, max/min (full and .dim), argmax/argmin (CPU). NaN propagates:
// a NaN anywhere in a reduced row is the result, and its first position is
// the index. Ties keep the first position, as PyTorch documents.
#include <cmath>
#include <limits>
#include <type_traits>

#include "cpu/reduce_copy.h"
#include "cpu/reduce_engine.h"
#include "tensorc_gen/native_functions.h"
#include "cpu/reduce_simd.h"

namespace tc::native {
namespace {

template <class T>
using value_t = std::conditional_t<cpu::kIsReducedFloat<T>, float, T>;

template <class V>
inline bool is_nan(V v) {
  if constexpr (std::is_floating_point_v<V>)
    return v != v;
  else
    return false;
}

template <bool IsMax, class V>
inline bool better(V a, V b) {  // a strictly beats b
  if constexpr (IsMax)
    return a > b;
  else
    return a < b;
}

template <bool IsMax, class V>
constexpr V worst() {
  if constexpr (std::is_same_v<V, bool>)
    return !IsMax;
  else if constexpr (std::is_floating_point_v<V>)
    return IsMax ? -std::numeric_limits<V>::infinity() : std::numeric_limits<V>::infinity();
  else
    return IsMax ? std::numeric_limits<V>::lowest() : std::numeric_limits<V>::max();
}

// NaN-propagating pick of the better value; `a` is the earlier one.
template <bool IsMax, class V>
inline V pick(V a, V b) {
  if constexpr (std::is_floating_point_v<V>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return better<IsMax>(b, a) ? b : a;
}

// max/min of a contiguous float/double row: vector compare-select plus a
// separate NaN flag, so the loop vectorises. 16-byte vectors: GCC lowers a
// vector ?: on wider-than-native vectors lane by lane.
template <bool IsMax, class V>
V extreme_contig(const V* p, int64_t n) {
  typedef V Vt __attribute__((vector_size(16)));
  using Mt = std::conditional_t<std::is_same_v<V, float>, int32_t, int64_t>;
  typedef Mt Mv __attribute__((vector_size(16)));
  constexpr int64_t L = 16 / sizeof(V);
  V m = worst<IsMax, V>();
  int64_t i = 0;
  if (n >= 4 * L) {
    Vt m0, m1, m2, m3, x0, x1, x2, x3;
    Mv nan = {};
    for (int64_t j = 0; j < L; ++j) m0[j] = m;
    m1 = m2 = m3 = m0;
    for (; i + 4 * L <= n; i += 4 * L) {
      TC_VLOAD(x0, p + i);
      TC_VLOAD(x1, p + i + L);
      TC_VLOAD(x2, p + i + 2 * L);
      TC_VLOAD(x3, p + i + 3 * L);
      if constexpr (IsMax) {
        m0 = x0 > m0 ? x0 : m0;
        m1 = x1 > m1 ? x1 : m1;
        m2 = x2 > m2 ? x2 : m2;
        m3 = x3 > m3 ? x3 : m3;
      } else {
        m0 = x0 < m0 ? x0 : m0;
        m1 = x1 < m1 ? x1 : m1;
        m2 = x2 < m2 ? x2 : m2;
        m3 = x3 < m3 ? x3 : m3;
      }
      nan |= ((x0 != x0) | (x1 != x1)) | ((x2 != x2) | (x3 != x3));
    }
    for (int64_t j = 0; j < L; ++j) {
      if (nan[j]) return std::numeric_limits<V>::quiet_NaN();
      m = pick<IsMax>(pick<IsMax>(pick<IsMax>(pick<IsMax>(m, m0[j]), m1[j]), m2[j]), m3[j]);
    }
  }
  for (; i < n; ++i) m = pick<IsMax>(m, p[i]);
  return m;
}

template <class T, bool IsMax>
struct ExtremeOp {
  using in_t = T;
  using acc_t = value_t<T>;
  T* out;

  acc_t identity() const { return worst<IsMax, acc_t>(); }
  acc_t combine(acc_t a, acc_t b) const { return pick<IsMax>(a, b); }
  acc_t row(const T* p, int64_t n, int64_t s, int64_t) const {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
      if (s == 1) return extreme_contig<IsMax>(p, n);
    acc_t m = identity();
    for (int64_t i = 0; i < n; ++i) m = pick<IsMax>(m, acc_t(p[i * s]));
    return m;
  }
  void vertical(acc_t* acc, const T* p, int64_t w, int64_t sw, int64_t) const {
    for (int64_t i = 0; i < w; ++i) acc[i] = pick<IsMax>(acc[i], acc_t(p[i * sw]));
  }
  void write(int64_t o, acc_t a) const { out[o] = T(a); }
};

template <class V>
struct ArgAcc {
  V v{};
  int64_t i = -1;  // -1: nothing seen yet
};

template <class T, bool IsMax>
struct ArgOp {
  using in_t = T;
  using V = value_t<T>;
  using acc_t = ArgAcc<V>;
  T* values;  // may be null (argmax)
  int64_t* indices;

  // Whether `v` seen at a later position replaces `a`.
  static bool replaces(const acc_t& a, V v) {
    return a.i < 0 || (!is_nan(a.v) && (is_nan(v) || better<IsMax>(v, a.v)));
  }
  acc_t identity() const { return acc_t(); }
  acc_t combine(const acc_t& a, const acc_t& b) const { return b.i >= 0 && replaces(a, b.v) ? b : a; }
  acc_t row(const T* p, int64_t n, int64_t s, int64_t first) const {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      // Contiguous: find the extreme value vectorised, then its first position.
      if (s == 1 && n > 0) {
        V m = extreme_contig<IsMax>(p, n);
        int64_t k = 0;
        if (is_nan(m))
          while (!is_nan(p[k])) ++k;
        else
          while (p[k] != m) ++k;
        return {m, first + k};
      }
    }
    acc_t a;
    for (int64_t k = 0; k < n; ++k) {
      V v = V(p[k * s]);
      if (replaces(a, v)) {
        a = {v, first + k};
        if (is_nan(v)) break;
      }
    }
    return a;
  }
  void vertical(acc_t* acc, const T* p, int64_t w, int64_t sw, int64_t r) const {
    for (int64_t k = 0; k < w; ++k) {
      V v = V(p[k * sw]);
      if (replaces(acc[k], v)) acc[k] = {v, r};
    }
  }
  void write(int64_t o, const acc_t& a) const {
    if (values) values[o] = T(a.v);
    indices[o] = a.i;
  }
};

template <bool IsMax>
Tensor extreme(const char* op, const Tensor& self, uint64_t mask, bool keepdim) {
  cpu::ReducePlan pl = cpu::make_reduce_plan(self, mask, keepdim);
  Tensor out = empty_tensor(pl.out_shape, self.dtype());
  TC_DISPATCH_ALL_TYPES_AND_BOOL(self.dtype(), op, [&] {
    cpu::run_reduction(ExtremeOp<scalar_t, IsMax>{out.data_ptr<scalar_t>()}, self.data_ptr<scalar_t>(), pl);
  });
  return out;
}

// Values (optional) and int64 indices along one dim.
template <bool IsMax>
void arg_extreme(const char* op, const Tensor& self, uint64_t mask, bool keepdim, Tensor* values, Tensor& indices,
                 bool allow_bool) {
  TC_CHECK_TYPE(allow_bool || self.dtype() != ScalarType::Bool, op, ": unsupported dtype ", self.dtype());
  cpu::ReducePlan pl = cpu::make_reduce_plan(self, mask, keepdim);
  indices = empty_tensor(pl.out_shape, ScalarType::Int64);
  if (values) *values = empty_tensor(pl.out_shape, self.dtype());
  TC_DISPATCH_ALL_TYPES_AND_BOOL(self.dtype(), op, [&] {
    ArgOp<scalar_t, IsMax> o{values ? values->data_ptr<scalar_t>() : nullptr, indices.data_ptr<int64_t>()};
    cpu::run_reduction(o, self.data_ptr<scalar_t>(), pl);
  });
}

template <bool IsMax>
Tensor full_extreme(const char* op, const Tensor& self) {
  structured::check_full_extreme(self, op);
  return extreme<IsMax>(op, self, cpu::reduce_mask(self, std::nullopt, op), false);
}

template <bool IsMax>
Tensor amax_like(const char* op, const Tensor& self, IntArrayRef dim, bool keepdim) {
  uint64_t mask = cpu::reduce_mask(self, dim, op);
  cpu::check_nonempty_reduction(self, mask, op, ErrorCode::Index);
  return extreme<IsMax>(op, self, mask, keepdim);
}

template <bool IsMax>
std::tuple<Tensor, Tensor> max_dim_like(const char* op, const Tensor& self, int64_t dim, bool keepdim) {
  uint64_t mask = cpu::reduce_mask_one(self, dim, op);
  cpu::check_nonempty_reduction(self, mask, op, ErrorCode::Index);
  Tensor values, indices;
  arg_extreme<IsMax>(op, self, mask, keepdim, &values, indices, true);
  return {values, indices};
}

template <bool IsMax>
Tensor argmax_like(const char* op, const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  Tensor indices;
  if (dim) {
    uint64_t mask = cpu::reduce_mask_one(self, *dim, op);
    cpu::check_nonempty_reduction(self, mask, op, ErrorCode::Index);
    arg_extreme<IsMax>(op, self, mask, keepdim, nullptr, indices, false);
    return indices;
  }
  // No dim: the index into the flattened (row-major) tensor.
  TC_CHECK_ARG(self.numel() > 0, op,
               ": expected reduction dim to be specified for input.numel() == 0 (pass the 'dim' argument)");
  Tensor flat = cpu::contiguous_of(self);
  int64_t n = self.numel();
  flat = make_view(flat, {n}, {1}, flat.storage_offset());
  arg_extreme<IsMax>(op, flat, 1, false, nullptr, indices, false);
  if (keepdim && self.dim() > 0) {
    DimVector ones(size_t(self.dim()), 1);
    indices = make_view(indices, ones, ones, 0);
  }
  return indices;
}

}  // namespace

Tensor amax_cpu(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return amax_like<true>("amax", self, dim, keepdim);
}
Tensor amin_cpu(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return amax_like<false>("amin", self, dim, keepdim);
}
Tensor max_cpu(const Tensor& self) { return full_extreme<true>("max", self); }
Tensor min_cpu(const Tensor& self) { return full_extreme<false>("min", self); }

std::tuple<Tensor, Tensor> max_dim_cpu(const Tensor& self, int64_t dim, bool keepdim) {
  return max_dim_like<true>("max", self, dim, keepdim);
}
std::tuple<Tensor, Tensor> min_dim_cpu(const Tensor& self, int64_t dim, bool keepdim) {
  return max_dim_like<false>("min", self, dim, keepdim);
}

Tensor argmax_cpu(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return argmax_like<true>("argmax", self, dim, keepdim);
}
Tensor argmin_cpu(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return argmax_like<false>("argmin", self, dim, keepdim);
}

}  // namespace tc::native
