// SPDX-License-Identifier: BSD-3-Clause
// Matrix products on the CPU: the mm/bmm/addmm kernels (schema entries in
// schema/fragments/reduce_linalg.yaml) and the strided GEMM they share,
// backed by BLIS for float32/float64.
#pragma once
#include <cstdint>

#include "core/tensor.h"

namespace tc::native {

Tensor mm_cpu(const Tensor& self, const Tensor& mat2);
Tensor bmm_cpu(const Tensor& self, const Tensor& mat2);
Tensor addmm_cpu(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha);
Tensor& addmm_out_cpu(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                      const Scalar& alpha, Tensor& out);

}  // namespace tc::native

namespace tc::cpu {

// A strided matrix operand: element (i, j) is at data + i * rs + j * cs
// (strides in elements).
struct MatRef {
  void* data;
  int64_t rs, cs;
};

// C <- alpha * A(m x k) * B(k x n) + beta * C for float32/float64 through
// BLIS (small products use a plain loop); any strides BLIS accepts (see
// blas.cpp). beta == 0 ignores C's contents, NaN included. Threads: the
// library budget (blocks of C over the pool), or one inside a parallel region.
void gemm(ScalarType dtype, int64_t m, int64_t n, int64_t k, double alpha, MatRef a, MatRef b, double beta, MatRef c);

// The BLIS sub-configuration used for large products, e.g. "skx".
const char* blas_arch_name();
// BLIS's global thread count (follows tc::set_num_threads). tensorc's own
// calls pass one thread each and split large products over its pool.
int blas_num_threads();
// Benchmarks: when true, every product uses BLIS's own default context
// (what plain -lblis gives) so both can be timed in one run. Only differs
// from tensorc's choice when BLIS is linked statically (see blas.cpp).
void blas_force_default_arch(bool on);

}  // namespace tc::cpu
