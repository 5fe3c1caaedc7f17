// SPDX-License-Identifier: BSD-3-Clause
// Shared by the generated out=/in-place wrappers: validate, then copy a
// computed result into the destination. Every check happens before the first
// write, so a failed op leaves its destination unchanged.
#pragma once
#include "core/tensor.h"

namespace tc {

// self <- result: result's shape must equal self's and its dtype must be
// castable to self's (PyTorch's rule for in-place ops).
void copy_result_inplace(const char* op, Tensor& self, const Tensor& result);
// out <- result: an empty (0-element) out is resized; otherwise its shape must
// match. Result's dtype must be castable to out's.
void copy_result_out(const char* op, const char* arg, Tensor& out, const Tensor& result);

}  // namespace tc
