// SPDX-License-Identifier: BSD-3-Clause
// Matrix products on CUDA (mm, bmm, addmm on cuBLAS): how a strided tensor
// becomes a cuBLAS operand, and the process-wide TF32 switch.
#pragma once
#include <cstdint>

namespace tc::cuda {

// How cuBLAS (column-major) reads a matrix X of rows x cols whose element
// (i, j) is at i * rs + j * cs (element strides) as X transposed, the form a
// row-major product takes there (C = A @ B is C^T = B^T @ A^T): `trans`
// false when X^T is stored column-major with leading dimension `ld`, true when
// X itself is. A size-1 dim's stride does not matter.
struct CublasOperand {
  bool trans = false;
  int64_t ld = 1;
};
// False when cuBLAS cannot read these strides (neither is 1, a leading
// dimension too small, overlapping rows): the caller copies X first.
bool cublas_operand(int64_t rows, int64_t cols, int64_t rs, int64_t cs, CublasOperand* out);

// float32 products may run on TF32 tensor cores (torch.backends.cuda.matmul.
// allow_tf32); off by default, as in PyTorch.
bool matmul_allow_tf32();
void set_matmul_allow_tf32(bool allow);

}  // namespace tc::cuda
