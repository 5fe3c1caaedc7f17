// SPDX-License-Identifier: BSD-3-Clause
// What the CUDA kernels composed of other ops (composed.cpp, nn.cpp) share.
#pragma once
#include "core/tensor.h"

namespace tc::cuda {

// value where mask is nonzero, else 0, by selection (threshold_backward with
// threshold 0), not by multiplication: an unselected inf or NaN never leaks
// in. Broadcasts like a binary op.
Tensor select_or_zero(const Tensor& value, const Tensor& mask);

}  // namespace tc::cuda
