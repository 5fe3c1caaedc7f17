// SPDX-License-Identifier: BSD-3-Clause
// Index kernels along one dim, with ATen's semantics:
//   index_select / index_copy / index_add  take or write whole slices at
//       positions `index` (a 0-D or 1-D int64/int32 tensor) of dim `dim`;
//   gather / scatter / scatter_add         take or write one element per
//       entry of `index` (int64, as many dims as self);
//   nonzero                                the coordinates of non-zero elements.
// Index values must lie in [0, size of dim): anything else is an IndexError
// naming the op, the position and the bound. scatter and index_copy with a
// repeated index keep one of the written values, as in ATen.
// The writing ops fill a fresh contiguous copy of self: the in-place variants
// are generated wrappers that copy the checked result back, so a failed call
// never leaves a half-written tensor.
#include <array>
#include <cstring>
#include <vector>

#include "core/parallel.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "cpu/index_util.h"
#include "cpu/loops.h"
#include "structured/index.h"
#include "tensorc_gen/native_functions.h"  // checks the kernels match the schema
#include "tensorc_gen/ops.h"

namespace tc::cpu {

Tensor checked_indices(const char* op, const char* arg, const Tensor& index, int64_t bound, bool allow_int32) {
  const bool ok = index.dtype() == ScalarType::Int64 || (allow_int32 && index.dtype() == ScalarType::Int32);
  TC_CHECK_TYPE(ok, op, ": argument '", arg, "' expected an int64", allow_int32 ? " or int32" : "", " tensor, got ",
                index.dtype());
  TC_CHECK(index.is_cpu(), Device, op, ": argument '", arg, "' expected a cpu tensor, got ", index.device());
  Tensor idx = index.dtype() == ScalarType::Int64 ? index.contiguous() : index.to(ScalarType::Int64);
  const int64_t* p = idx.data_ptr<int64_t>();
  for (int64_t i = 0, n = idx.numel(); i < n; ++i)
    TC_CHECK_INDEX(p[i] >= 0 && p[i] < bound, op, ": argument '", arg, "' has value ", p[i], " at position ", i,
                   ", expected a value in [0, ", bound, ")");
  return idx;
}

}  // namespace tc::cpu

namespace tc::native {
namespace {

using cpu::DimSplit;
using cpu::opmath_t;
using cpu::split_at;
using cpu::StridedWalk;

// The index argument of these ops, checked (cpu/index_util.h).
Tensor checked_index(const char* op, const Tensor& index, int64_t bound, bool allow_int32) {
  return cpu::checked_indices(op, "index", index, bound, allow_int32);
}

// A fresh contiguous copy of t (the buffer the writing ops fill).
Tensor contiguous_copy(const Tensor& t) {
  Tensor out = empty_tensor(t.sizes(), t.dtype(), t.device());
  out.copy_(t);
  return out;
}

// t's strides for a walk over `nd` dims, with the entry of `dim` zeroed when
// `skip_dim` (the index supplies that coordinate); all zeros for a 0-dim t.
DimVector walk_strides(const Tensor& t, int64_t nd, int64_t dim, bool skip_dim) {
  DimVector s(size_t(nd), 0);
  if (t.dim() == nd)
    for (int64_t d = 0; d < nd; ++d) s[size_t(d)] = skip_dim && d == dim ? 0 : t.stride(d);
  return s;
}

using structured::check_element_index;
using structured::check_slice_source;

enum class ScatterMode { Copy, Add };

// a + b in the compute type; for bool, a || b (as ATen's scatter_add).
template <class T>
T plus(T a, T b) {
  return T(opmath_t<T>(a) + opmath_t<T>(b));
}
template <>
bool plus(bool a, bool b) {
  return a || b;
}

// out (a contiguous copy of self) receives src[p] (or value) at p with
// coordinate `dim` replaced by index[p], for every position p of index.
Tensor scatter_impl(const char* op, const Tensor& self, int64_t dim_, const Tensor& index, const Tensor* src,
                    const Scalar* value, ScatterMode mode) {
  const int64_t dim = wrap_dim(dim_, self.dim(), op);
  check_element_index(op, self, dim, index, src);
  const Tensor idx = checked_index(op, index, self.dim() ? self.size(dim) : 1, false);
  Tensor out = contiguous_copy(self);
  if (idx.numel() == 0) return out;
  const int64_t dim_stride = self.dim() ? out.stride(dim) : 0;
  const int64_t* ip = idx.data_ptr<int64_t>();
  const int64_t nd = idx.dim();
  std::array<DimVector, 2> strides{walk_strides(out, nd, dim, true),
                                   src ? walk_strides(*src, nd, dim, false) : walk_strides(out, 0, dim, false)};
  if (!src) strides[1] = DimVector(size_t(nd), 0);
  TC_DISPATCH_ALL_TYPES_AND_BOOL(self.dtype(), op, [&] {
    scalar_t* o = out.data_ptr<scalar_t>();
    const scalar_t* s = src ? src->data_ptr<scalar_t>() : nullptr;
    const scalar_t fill = value ? value->to<scalar_t>() : scalar_t();
    StridedWalk<2> walk(idx.sizes(), strides);
    for (int64_t i = 0, n = idx.numel(); i < n; ++i, walk.next()) {
      scalar_t& dst = o[walk.off[0] + ip[i] * dim_stride];
      const scalar_t v = s ? s[walk.off[1]] : fill;
      dst = mode == ScatterMode::Add ? plus(dst, v) : v;
    }
  });
  return out;
}

}  // namespace

Tensor index_select_cpu(const Tensor& self, int64_t dim_, const Tensor& index) {
  const char* op = "index_select";
  int64_t dim = 0;
  const DimVector shape = structured::index_select_shape(op, self, dim_, index, &dim);
  const DimSplit s = split_at(self.sizes(), dim);
  const Tensor idx = checked_index(op, index, s.size, true);
  const int64_t n = idx.numel();
  Tensor out = empty_tensor(shape, self.dtype(), self.device());
  if (out.numel() == 0) return out;
  const Tensor src = self.contiguous();
  const size_t es = self.element_size(), slice = size_t(s.inner) * es;
  const char* sp = static_cast<const char*>(src.data_ptr());
  char* op_ = static_cast<char*>(out.data_ptr());
  const int64_t* ip = idx.data_ptr<int64_t>();
  parallel_for(0, s.outer * n, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, s.inner)),
               [&](int64_t b, int64_t e) {
                 for (int64_t k = b; k < e; ++k) {
                   const int64_t o = k / n, i = k % n;
                   std::memcpy(op_ + size_t(k) * slice, sp + size_t(o * s.size + ip[i]) * slice, slice);
                 }
               });
  return out;
}

Tensor index_copy_cpu(const Tensor& self, int64_t dim_, const Tensor& index, const Tensor& source) {
  const char* op = "index_copy";
  const int64_t dim = wrap_dim(dim_, self.dim(), op);
  check_slice_source(op, self, dim, index, source);
  const DimSplit s = split_at(self.sizes(), dim);
  const Tensor idx = checked_index(op, index, s.size, false);
  Tensor out = contiguous_copy(self);
  const int64_t n = idx.numel();
  if (n == 0 || out.numel() == 0) return out;
  const Tensor src = source.contiguous();
  const size_t slice = size_t(s.inner) * self.element_size();
  const char* sp = static_cast<const char*>(src.data_ptr());
  char* dp = static_cast<char*>(out.data_ptr());
  const int64_t* ip = idx.data_ptr<int64_t>();
  for (int64_t o = 0; o < s.outer; ++o)  // in index order: the last write of a repeated index wins
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(dp + size_t(o * s.size + ip[i]) * slice, sp + size_t(o * n + i) * slice, slice);
  return out;
}

Tensor index_add_cpu(const Tensor& self, int64_t dim_, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  const char* op = "index_add";
  const int64_t dim = wrap_dim(dim_, self.dim(), op);
  check_slice_source(op, self, dim, index, source);
  TC_CHECK_TYPE(self.dtype() != ScalarType::Bool, op, ": argument 'self' of dtype bool is not supported");
  TC_CHECK_TYPE(is_floating(self.dtype()) || !alpha.is_floating_point(), op, ": argument 'alpha' is a float (",
                alpha.to_double(), ") but self is ", self.dtype());
  const DimSplit s = split_at(self.sizes(), dim);
  const Tensor idx = checked_index(op, index, s.size, true);
  Tensor out = contiguous_copy(self);
  const int64_t n = idx.numel();
  if (n == 0 || out.numel() == 0) return out;
  const Tensor src = source.contiguous();
  const int64_t* ip = idx.data_ptr<int64_t>();
  TC_DISPATCH_ALL_TYPES(self.dtype(), op, [&] {
    using acc = opmath_t<scalar_t>;
    const acc a = alpha.to<acc>();
    const scalar_t* sp = src.data_ptr<scalar_t>();
    scalar_t* dp = out.data_ptr<scalar_t>();
    // Threads own disjoint outer rows, so no two write one element.
    parallel_for(0, s.outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n * s.inner)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t o = b; o < e; ++o)
                     for (int64_t i = 0; i < n; ++i) {
                       scalar_t* d = dp + (o * s.size + ip[i]) * s.inner;
                       const scalar_t* x = sp + (o * n + i) * s.inner;
                       for (int64_t j = 0; j < s.inner; ++j) d[j] = scalar_t(acc(d[j]) + a * acc(x[j]));
                     }
                 });
  });
  return out;
}

Tensor gather_cpu(const Tensor& self, int64_t dim_, const Tensor& index, bool sparse_grad) {
  const char* op = "gather";
  TC_CHECK(!sparse_grad, NotImplemented, op, ": argument 'sparse_grad' = True (sparse gradients) is not supported");
  const int64_t dim = wrap_dim(dim_, self.dim(), op);
  check_element_index(op, self, dim, index, nullptr);
  const Tensor idx = checked_index(op, index, self.dim() ? self.size(dim) : 1, false);
  Tensor out = empty_tensor(index.sizes(), self.dtype(), self.device());
  if (out.numel() == 0) return out;
  const int64_t dim_stride = self.dim() ? self.stride(dim) : 0;
  const int64_t* ip = idx.data_ptr<int64_t>();
  std::array<DimVector, 1> strides{walk_strides(self, idx.dim(), dim, true)};
  TC_DISPATCH_ALL_TYPES_AND_BOOL(self.dtype(), op, [&] {
    const scalar_t* sp = self.data_ptr<scalar_t>();
    scalar_t* o = out.data_ptr<scalar_t>();
    StridedWalk<1> walk(idx.sizes(), strides);
    for (int64_t i = 0, n = idx.numel(); i < n; ++i, walk.next()) o[i] = sp[walk.off[0] + ip[i] * dim_stride];
  });
  return out;
}

Tensor scatter_src_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl("scatter", self, dim, index, &src, nullptr, ScatterMode::Copy);
}

Tensor scatter_value_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return scatter_impl("scatter", self, dim, index, nullptr, &value, ScatterMode::Copy);
}

Tensor scatter_add_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl("scatter_add", self, dim, index, &src, nullptr, ScatterMode::Add);
}

Tensor nonzero_cpu(const Tensor& self) {
  const char* op = "nonzero";
  const Tensor x = self.contiguous();
  const int64_t n = x.numel(), nd = x.dim();
  std::vector<int64_t> hits;
  TC_DISPATCH_ALL_TYPES_AND_BOOL(x.dtype(), op, [&] {
    const scalar_t* p = x.data_ptr<scalar_t>();
    for (int64_t i = 0; i < n; ++i)
      if (opmath_t<scalar_t>(p[i]) != opmath_t<scalar_t>(0)) hits.push_back(i);
  });
  const int64_t count = int64_t(hits.size());
  Tensor out = empty_tensor({count, nd}, ScalarType::Int64, self.device());
  int64_t* o = out.data_ptr<int64_t>();
  for (int64_t r = 0; r < count; ++r) {  // flat position -> coordinates
    int64_t flat = hits[size_t(r)];
    for (int64_t d = nd - 1; d >= 0; --d) {
      o[r * nd + d] = flat % x.sizes()[size_t(d)];
      flat /= x.sizes()[size_t(d)];
    }
  }
  return out;
}

}  // namespace tc::native
