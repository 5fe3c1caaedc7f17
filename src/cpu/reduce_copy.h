// SPDX-License-Identifier: BSD-3-Clause
// Strided copy with dtype conversion for the reduction / cat / BLAS family.
// These kernels stage operands (a contiguous or converted copy) and write
// slices of their outputs; the loop is core's cast_copy.
#pragma once
#include "core/tensor.h"

namespace tc::cpu {

// dst <- src elementwise over dst's shape (src must have the same sizes),
// converting src's dtype to dst's. dst must not overlap src.
void copy_strided(const Tensor& dst, const Tensor& src);

// A contiguous tensor holding src's values as `dtype`: src itself when it
// already is contiguous and of that dtype, else a fresh copy.
Tensor contiguous_as(const Tensor& src, ScalarType dtype);
inline Tensor contiguous_of(const Tensor& src) { return contiguous_as(src, src.dtype()); }

}  // namespace tc::cpu
