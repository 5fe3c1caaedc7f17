// SPDX-License-Identifier: BSD-3-Clause
#include "structured/reduce_plan.h"

#include <algorithm>

#include "core/shape.h"

namespace tc::structured {
namespace {

// Merges neighbours (outer, inner) when outer_stride == inner_stride * inner_size.
// Products are checked: an empty tensor may carry any sizes and strides.
void coalesce(DimVector& sizes, DimVector& strides) {
  DimVector s, st;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 1) continue;
    size_t n = s.size();
    int64_t span = 0, merged = 0;
    if (n && !__builtin_mul_overflow(strides[i], sizes[i], &span) && st[n - 1] == span &&
        !__builtin_mul_overflow(s[n - 1], sizes[i], &merged)) {
      s[n - 1] = merged;
      st[n - 1] = strides[i];
    } else {
      s.push_back(sizes[i]);
      st.push_back(strides[i]);
    }
  }
  sizes = std::move(s);
  strides = std::move(st);
}

}  // namespace

ReducePlan make_reduce_plan(const Tensor& self, uint64_t mask, bool keepdim) {
  ReducePlan p;
  const int64_t nd = self.dim();
  IntArrayRef sz = self.sizes(), st = self.strides();
  // Reduced dims are visited in order of decreasing stride so the innermost
  // loop runs over the smallest stride; the order does not matter for the
  // result except for index-tracking ops, which reduce a single dim.
  std::vector<int64_t> red;
  bool out_empty = false, red_empty = false;
  for (int64_t d = 0; d < nd; ++d) {
    bool reduced = (mask >> d) & 1;
    if (reduced) {
      red.push_back(d);
      if (keepdim) p.out_shape.push_back(1);
    } else {
      p.out_shape.push_back(sz[size_t(d)]);
      p.kept_sizes.push_back(sz[size_t(d)]);
      p.kept_strides.push_back(st[size_t(d)]);
      // Checked: an empty tensor's other sizes may be huge (the 0 fixes it below).
      if (__builtin_mul_overflow(p.num_out, sz[size_t(d)], &p.num_out)) p.num_out = 0;
      if (sz[size_t(d)] == 0) out_empty = true;
    }
  }
  if (out_empty) p.num_out = 0;
  std::stable_sort(red.begin(), red.end(), [&](int64_t a, int64_t b) { return st[size_t(a)] > st[size_t(b)]; });
  for (int64_t d : red) {
    p.red_sizes.push_back(sz[size_t(d)]);
    p.red_strides.push_back(st[size_t(d)]);
    if (__builtin_mul_overflow(p.red_numel, sz[size_t(d)], &p.red_numel)) p.red_numel = 0;
    if (sz[size_t(d)] == 0) red_empty = true;
  }
  if (red_empty) p.red_numel = 0;
  coalesce(p.kept_sizes, p.kept_strides);
  coalesce(p.red_sizes, p.red_strides);
  return p;
}

uint64_t reduce_mask(const Tensor& self, std::optional<IntArrayRef> dims, const char* op) {
  if (self.dim() == 0) {
    if (dims) dim_mask(*dims, 0, op);  // validates: a 0-dim tensor accepts dims 0 and -1
    return 0;
  }
  return dim_mask(dims ? *dims : IntArrayRef(), self.dim(), op);
}

uint64_t reduce_mask_one(const Tensor& self, int64_t dim, const char* op) {
  int64_t d = wrap_dim(dim, self.dim(), op, "dim");
  return self.dim() == 0 ? 0 : uint64_t(1) << d;
}

void check_nonempty_reduction(const Tensor& self, uint64_t mask, const char* op, ErrorCode code) {
  if (self.numel() != 0) return;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (((mask >> d) & 1) && self.sizes()[size_t(d)] == 0)
      throw_error(code, str(op, ": expected reduction dim ", d, " to have non-zero size"));
  }
}

ScalarType sum_like_dtype(const char* op, bool mean, ScalarType self, std::optional<ScalarType> dtype) {
  const ScalarType out = dtype ? *dtype : (mean || !is_integral(self, true)) ? self : ScalarType::Int64;
  if (mean)
    TC_CHECK_TYPE(is_floating(out), op, ": could not infer output dtype: ", dtype ? "argument 'dtype'" : "input",
                  " must be a floating point dtype, got ", out);
  TC_CHECK_TYPE(is_valid_dtype(int(out)), op, ": argument 'dtype' has unsupported dtype ", out);
  return out;
}

ScalarType logical_reduce_dtype(ScalarType self) {
  return self == ScalarType::UInt8 ? ScalarType::UInt8 : ScalarType::Bool;
}

void check_full_extreme(const Tensor& self, const char* op) {
  TC_CHECK_ARG(self.numel() > 0, op,
               ": expected reduction dim to be specified for input.numel() == 0 (pass the 'dim' argument)");
}

ScalarType cumsum_dtype(ScalarType self, std::optional<ScalarType> dtype) {
  const ScalarType result = dtype ? *dtype : is_floating(self) ? self : ScalarType::Int64;
  TC_CHECK_TYPE(result != ScalarType::Bool, "cumsum: argument 'dtype' bool cannot hold a sum");
  return result;
}

}  // namespace tc::structured
