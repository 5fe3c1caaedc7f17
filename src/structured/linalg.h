// SPDX-License-Identifier: BSD-3-Clause
// The meta step of the matrix products (mm, bmm, addmm), shared by every
// backend: argument ranks, dtypes, inner dimensions and broadcasting, with
// PyTorch's messages. Each returns the product's shape; a backend's kernel
// allocates it on its device and runs its GEMM.
#pragma once
#include "core/tensor.h"

namespace tc::structured {

// mm(self, mat2): self (m x k) @ mat2 (k x n) -> {m, n}.
DimVector mm_meta(const Tensor& self, const Tensor& mat2);
// bmm(self, mat2): (b x m x k) @ (b x k x n) -> {b, m, n}.
DimVector bmm_meta(const Tensor& self, const Tensor& mat2);
// addmm(self, mat1, mat2): self broadcast to mat1 @ mat2's {m, n}.
DimVector addmm_meta(const Tensor& self, const Tensor& mat1, const Tensor& mat2);
// addmm.out: out must have self's dtype and `shape`, or be empty (then it
// is resized to `shape`).
void addmm_out_meta(const Tensor& self, IntArrayRef shape, Tensor& out);

}  // namespace tc::structured
