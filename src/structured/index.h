// SPDX-License-Identifier: BSD-3-Clause
// The argument rules of the index ops that every backend shares.
#pragma once
#include "core/tensor.h"

namespace tc::structured {

// gather and the scatters: index has self's number of dims and fits inside
// self (except along dim) and inside src (everywhere); src has self's dtype.
void check_element_index(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src);

}  // namespace tc::structured
