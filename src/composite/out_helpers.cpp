// SPDX-License-Identifier: BSD-3-Clause
#include "composite/out_helpers.h"

#include "tensorc_gen/ops.h"

namespace tc {

void copy_result_inplace(const char* op, Tensor& self, const Tensor& result) {
  TC_CHECK_ARG(result.sizes() == self.sizes(), op, ": the result of shape ", result.sizes(),
               " does not match argument 'self' of shape ", self.sizes(), " (in-place ops cannot broadcast self)");
  TC_CHECK_TYPE(can_cast(result.dtype(), self.dtype()), op, ": result type ", result.dtype(),
                " can't be cast to the desired output type ", self.dtype(), " of argument 'self'");
  tc::copy_(self, result);
}

void copy_result_out(const char* op, const char* arg, Tensor& out, const Tensor& result) {
  TC_CHECK_TYPE(can_cast(result.dtype(), out.dtype()), op, ": result type ", result.dtype(),
                " can't be cast to the desired output type ", out.dtype(), " of argument '", arg, "'");
  TC_CHECK(out.device() == result.device(), Device, op, ": argument '", arg, "' is on ", out.device(),
           " but the result is on ", result.device());
  if (out.sizes() != result.sizes()) {
    TC_CHECK_ARG(out.numel() == 0, op, ": argument '", arg, "' has shape ", out.sizes(), " but the result has shape ",
                 result.sizes(), " (pass an empty tensor to have it resized)");
    out.impl()->resize_contiguous(result.sizes());
  }
  tc::copy_(out, result);
}

}  // namespace tc
