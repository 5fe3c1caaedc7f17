// SPDX-License-Identifier: BSD-3-Clause
// gather and index_select on CUDA: the CPU's argument rules (shared through
// structured/index.h), indices checked on the device (one reduction and a
// read of two numbers; the exact message comes from the CPU's check), then
// one launch of the driver's gather loop. index_select is a gather whose
// index varies along `dim` only.
#include "core/shape.h"
#include "cpu/index_util.h"
#include "cuda/runtime.h"
#include "structured/index.h"
#include "tensorc_gen/native_functions.h"
#include "tensorc_gen/ops.h"

namespace tc::native {
namespace {

// Every index in [0, bound), checked where the indices live; an offender is
// reported by the CPU's check of a host copy, which names its position.
void check_index_values(const char* op, const Tensor& index, int64_t bound, bool allow_int32) {
  if (index.numel() == 0) return;
  const int64_t lo = tc::amin(index).item().to_int(), hi = tc::amax(index).item().to_int();
  if (lo >= 0 && hi < bound) return;
  cpu::checked_indices(op, "index", tc::_to_copy(index, std::nullopt, Device(DeviceType::CPU)), bound, allow_int32);
  TC_FAIL(Internal, "internal error: ", op, ": indices in [", lo, ", ", hi, "] passed the check against ", bound);
}

// out (contiguous, `shape`) = self at `index` along dim; `index_strides` are
// the index's element strides over out's shape (0 where it repeats).
void launch_gather(const char* op, const Tensor& self, int64_t dim, const Tensor& index, IntArrayRef index_strides,
                   Tensor& out) {
  const int64_t nd = out.dim();
  TC_CHECK(nd <= cuda::kMaxDims, NotImplemented, op, ": CUDA gathers take at most ", cuda::kMaxDims, " dims, got ", nd);
  cuda::Geometry g;
  g.numel = out.numel();
  const int64_t es = int64_t(self.element_size());
  int n = 0;
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t size = out.size(d);
    if (size == 1) continue;
    const int64_t s0 = out.stride(d) * es, s1 = d == dim || self.dim() == 0 ? 0 : self.stride(d) * es,
                  s2 = index_strides[size_t(d)] * 8;
    if (n > 0 && g.strides[0][n - 1] == s0 * size && g.strides[1][n - 1] == s1 * size &&
        g.strides[2][n - 1] == s2 * size) {
      g.sizes[n - 1] *= size;  // the outer dim walks on into this one
      g.strides[0][n - 1] = s0;
      g.strides[1][n - 1] = s1;
      g.strides[2][n - 1] = s2;
      continue;
    }
    g.sizes[n] = size;
    g.strides[0][n] = s0;
    g.strides[1][n] = s1;
    g.strides[2][n] = s2;
    ++n;
  }
  g.ndim = n;
  cuda::GatherArgs a;
  a.out = static_cast<char*>(out.data_ptr());
  a.self = static_cast<const char*>(self.data_ptr());
  a.index = static_cast<const char*>(index.data_ptr());
  a.elem_size = int(es);
  a.dim_stride = self.dim() ? self.stride(dim) * es : 0;
  a.dim_size = self.dim() ? self.size(dim) : 1;
  const int dev = out.device().index;
  const cuda::DriverApi& drv = cuda::driver(op);
  cuda::DeviceGuard guard(dev);
  cuda::check(drv.launch_gather(&a, &g, cuda::current_stream(dev)), op, "the gather kernel's launch");
}

// The index as int64 on self's device: a 0-dim CPU index may come with a
// CUDA self (it counts as a scalar in the device check), and the kernel reads
// device memory only.
Tensor device_index(const Tensor& index, const Tensor& self) {
  if (index.dtype() == ScalarType::Int64 && index.device() == self.device()) return index;
  return tc::_to_copy(index, ScalarType::Int64, self.device());
}

}  // namespace

Tensor gather_cuda(const Tensor& self, int64_t dim_, const Tensor& index, bool sparse_grad) {
  const char* op = "gather";
  TC_CHECK(!sparse_grad, NotImplemented, op, ": argument 'sparse_grad' = True (sparse gradients) is not supported");
  const int64_t dim = wrap_dim(dim_, self.dim(), op);
  structured::check_element_index(op, self, dim, index, nullptr);
  TC_CHECK_TYPE(index.dtype() == ScalarType::Int64, op, ": argument 'index' expected an int64 tensor, got ",
                index.dtype());
  check_index_values(op, index, self.dim() ? self.size(dim) : 1, false);
  Tensor out = cuda::empty_on(index.sizes(), self.dtype(), self.device());
  if (out.numel() == 0) return out;
  const Tensor idx = device_index(index, self);
  launch_gather(op, self, dim, idx, idx.strides(), out);
  return out;
}

Tensor index_select_cuda(const Tensor& self, int64_t dim_, const Tensor& index) {
  const char* op = "index_select";
  int64_t dim = 0;
  const DimVector shape = structured::index_select_shape(op, self, dim_, index, &dim);
  TC_CHECK_TYPE(index.dtype() == ScalarType::Int64 || index.dtype() == ScalarType::Int32, op,
                ": argument 'index' expected an int64 or int32 tensor, got ", index.dtype());
  check_index_values(op, index, self.dim() ? self.size(dim) : 1, true);
  const Tensor idx = device_index(index, self);
  Tensor out = cuda::empty_on(shape, self.dtype(), self.device());
  if (out.numel() == 0) return out;
  // The index along dim, the same for every other coordinate.
  DimVector index_strides(shape.size(), 0);
  if (!shape.empty()) index_strides[size_t(self.dim() ? dim : 0)] = idx.dim() ? idx.stride(0) : 0;
  launch_gather(op, self, self.dim() ? dim : 0, idx, index_strides.ref(), out);
  return out;
}

}  // namespace tc::native
