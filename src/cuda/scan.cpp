// SPDX-License-Identifier: BSD-3-Clause
// cumsum on CUDA: the CPU's result dtype (structured/reduce_plan.h), the
// input cast to it and made contiguous, then the driver's scan along the
// middle dim of [outer, size, inner].
#include "core/shape.h"
#include "cpu/index_util.h"
#include "cuda/runtime.h"
#include "structured/reduce_plan.h"
#include "tensorc_gen/native_functions.h"
#include "tensorc_gen/ops.h"

namespace tc::native {

Tensor cumsum_cuda(const Tensor& self, int64_t dim_, std::optional<ScalarType> dtype) {
  const char* op = "cumsum";
  const int64_t dim = wrap_dim(dim_, self.dim(), op);
  const ScalarType result = structured::cumsum_dtype(self.dtype(), dtype);
  const Tensor x = tc::contiguous(self.dtype() == result ? self : tc::_to_copy(self, result));
  Tensor out = cuda::empty_on(self.sizes(), result, self.device());
  if (out.numel() == 0) return out;
  const cpu::DimSplit split = cpu::split_at(self.sizes(), dim);
  cuda::ScanArgs a;
  a.dtype = int(result);
  a.outer = split.outer;
  a.size = split.size;
  a.inner = split.inner;
  a.in = static_cast<const char*>(x.data_ptr());
  a.out = static_cast<char*>(out.data_ptr());
  const int dev = out.device().index;
  const cuda::DriverApi& drv = cuda::driver(op);
  cuda::DeviceGuard guard(dev);
  cuda::check(drv.launch_scan(&a, cuda::current_stream(dev)), op, "the scan kernel's launch");
  return out;
}

}  // namespace tc::native
