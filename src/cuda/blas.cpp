// SPDX-License-Identifier: BSD-3-Clause
// mm, bmm and addmm on CUDA: the shared meta step (structured/linalg.h), then
// one cuBLAS call through the driver table. Operands cuBLAS can read as they
// are (row- or column-major with any leading dimension) are passed without a
// copy; others are made contiguous first. float32, float64, float16 and
// bfloat16 (the half types accumulate in float32); integer products are not
// supported on CUDA, as in PyTorch.
#include "cuda/blas.h"

#include <algorithm>
#include <atomic>

#include "core/error.h"
#include "core/tensor.h"
#include "cuda/runtime.h"
#include "structured/linalg.h"
#include "tensorc_gen/native_functions.h"
#include "tensorc_gen/ops.h"

namespace tc::cuda {
namespace {
std::atomic<bool> g_allow_tf32{false};
}  // namespace

bool matmul_allow_tf32() { return g_allow_tf32.load(std::memory_order_relaxed); }
void set_matmul_allow_tf32(bool allow) { g_allow_tf32.store(allow, std::memory_order_relaxed); }

bool cublas_operand(int64_t rows, int64_t cols, int64_t rs, int64_t cs, CublasOperand* out) {
  if (rows <= 1) rs = cs == 1 ? std::max<int64_t>(cols, 1) : 1;
  if (cols <= 1) cs = rs == 1 ? std::max<int64_t>(rows, 1) : 1;
  if (cs == 1 && rs >= std::max<int64_t>(cols, 1)) {
    *out = {false, rs};
    return true;
  }
  if (rs == 1 && cs >= std::max<int64_t>(rows, 1)) {
    *out = {true, cs};
    return true;
  }
  return false;
}

}  // namespace tc::cuda

namespace tc::native {
namespace {

using cuda::CublasOperand;

void check_dtype(const char* op, ScalarType dt) {
  TC_CHECK_TYPE(
      dt == ScalarType::Float32 || dt == ScalarType::Float64 || dt == ScalarType::Float16 || dt == ScalarType::BFloat16,
      op, ": CUDA matrix products support float32, float64, float16 and bfloat16, got ", dt);
}

Tensor as_batch(const Tensor& t2) {
  return make_view(t2, {1, t2.sizes()[0], t2.sizes()[1]}, {0, t2.strides()[0], t2.strides()[1]}, t2.storage_offset());
}

// A 3-D input as cuBLAS reads it, copied to contiguous when it cannot be.
struct Operand {
  Tensor t;
  CublasOperand layout;
};
Operand operand(const Tensor& t3) {
  const int64_t batch = t3.sizes()[0], rows = t3.sizes()[1], cols = t3.sizes()[2];
  Operand o{t3, {}};
  // A batch stride of 0 (an expanded batch) is read as a copy, as PyTorch does.
  const bool batch_ok = batch <= 1 || t3.strides()[0] != 0;
  if (!batch_ok || !cuda::cublas_operand(rows, cols, t3.strides()[1], t3.strides()[2], &o.layout)) {
    o.t = tc::contiguous(t3);
    cuda::cublas_operand(rows, cols, o.t.strides()[1], o.t.strides()[2], &o.layout);
  }
  return o;
}

// c[i] = alpha * a[i] @ b[i] + beta * c[i] for 3-D tensors on one CUDA
// device; c is contiguous and shares no memory with a or b. With `bias` (one
// matrix, beta 0, a contiguous vector of c's dtype and c's column count),
// c = alpha * a @ b + bias in cuBLASLt's epilogue; returns false, writing
// nothing, when cuBLASLt has no algorithm for that.
bool batched_product(const char* op, const Tensor& a, const Tensor& b, double alpha, double beta, const Tensor& c,
                     const Tensor* bias = nullptr) {
  check_dtype(op, c.dtype());
  const int64_t batch = c.sizes()[0], m = c.sizes()[1], n = c.sizes()[2], k = a.sizes()[2];
  if (batch == 0 || m == 0 || n == 0) return true;
  if (k == 0 && !bias) {  // an empty sum: C = beta * C (zeros for beta 0, whatever C held), without cuBLAS
    Tensor out = c;
    if (beta == 0)
      fill_inplace_cuda(out, Scalar(int64_t(0)));
    else
      tc::mul_(out, Scalar(beta));
    return true;
  }
  const Operand A = operand(a), B = operand(b);
  // Row-major C = A @ B is column-major C^T = B^T @ A^T: cuBLAS's first
  // operand is B.
  cuda::GemmArgs g;
  g.dtype = int(c.dtype());
  g.m = n;
  g.n = m;
  g.k = k;
  g.a = B.t.data_ptr();
  g.trans_a = B.layout.trans;
  g.lda = B.layout.ld;
  g.stride_a = batch > 1 ? B.t.strides()[0] : 0;
  g.b = A.t.data_ptr();
  g.trans_b = A.layout.trans;
  g.ldb = A.layout.ld;
  g.stride_b = batch > 1 ? A.t.strides()[0] : 0;
  g.c = c.data_ptr();
  g.ldc = std::max<int64_t>(n, 1);
  g.stride_c = m * n;
  g.batch = batch;
  g.alpha = alpha;
  g.beta = beta;
  g.allow_tf32 = cuda::matmul_allow_tf32();
  g.bias = bias ? bias->data_ptr() : nullptr;
  const int dev = c.device().index;
  const cuda::DriverApi& drv = cuda::driver(op);
  cuda::DeviceGuard guard(dev);
  const int status = drv.gemm(&g, cuda::current_stream(dev));
  if (bias && status == cuda::kGemmEpilogueUnsupported) return false;
  cuda::check(status, op, bias ? "cuBLASLt's GEMM with a bias epilogue" : "cuBLAS's GEMM");
  return true;
}

// Whether addmm can add self in the GEMM's epilogue, as PyTorch does for
// linear's bias: a contiguous vector over the output's columns, beta 1,
// operands with more than one row and column each, and every size below
// 65535 * 32 (PyTorch's guards against cuBLASLt's known failures). The
// driver refuses a bias under 16-byte alignment, and addmm then takes the
// plain path.
bool bias_epilogue(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Tensor& out,
                   bool out_holds_self) {
  constexpr int64_t kLimit = 65535 * 32;
  const int64_t m = mat1.sizes()[0], k = mat1.sizes()[1], n = mat2.sizes()[1];
  return !out_holds_self && beta.to_double() == 1 && self.dim() == 1 && self.sizes()[0] == n && n > 1 &&
         self.strides()[0] == 1 && self.dtype() == out.dtype() && m > 1 && k > 1 && m < kLimit && k < kLimit &&
         n < kLimit;
}

// out (m x n, contiguous) = beta * broadcast(self) + alpha * mat1 @ mat2.
void addmm_into(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha,
                Tensor& out, bool out_holds_self) {
  check_dtype("addmm", out.dtype());
  if (bias_epilogue(self, mat1, mat2, beta, out, out_holds_self) &&
      batched_product("addmm", as_batch(mat1), as_batch(mat2), alpha.to_double(), 0.0, as_batch(out), &self))
    return;
  const bool use_self = beta.to_double() != 0;
  if (use_self && !out_holds_self) copy_inplace_cuda(out, self, false);  // broadcasts
  batched_product("addmm", as_batch(mat1), as_batch(mat2), alpha.to_double(), use_self ? beta.to_double() : 0.0,
                  as_batch(out));
}

}  // namespace

Tensor mm_cuda(const Tensor& self, const Tensor& mat2) {
  const DimVector shape = structured::mm_meta(self, mat2);
  check_dtype("mm", self.dtype());
  Tensor out = cuda::empty_on(shape, self.dtype(), self.device());
  batched_product("mm", as_batch(self), as_batch(mat2), 1.0, 0.0, as_batch(out));
  return out;
}

Tensor bmm_cuda(const Tensor& self, const Tensor& mat2) {
  const DimVector shape = structured::bmm_meta(self, mat2);
  check_dtype("bmm", self.dtype());
  Tensor out = cuda::empty_on(shape, self.dtype(), self.device());
  batched_product("bmm", self, mat2, 1.0, 0.0, out);
  return out;
}

Tensor addmm_cuda(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  const DimVector shape = structured::addmm_meta(self, mat1, mat2);
  check_dtype("addmm", self.dtype());
  Tensor out = cuda::empty_on(shape, self.dtype(), mat1.device());
  addmm_into(self, mat1, mat2, beta, alpha, out, false);
  return out;
}

Tensor& addmm_out_cuda(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                       const Scalar& alpha, Tensor& out) {
  const DimVector shape = structured::addmm_meta(self, mat1, mat2);
  check_dtype("addmm", self.dtype());
  structured::addmm_out_meta(self, shape, out);
  // Written in place when out is contiguous and shares memory with no input
  // other than being self itself (addmm_); else through a temporary.
  const auto* st = out.storage().get();
  const bool is_self = self.storage().get() == st && self.sizes().equals(out.sizes()) &&
                       self.strides().equals(out.strides()) && self.storage_offset() == out.storage_offset();
  const bool shares =
      mat1.storage().get() == st || mat2.storage().get() == st || (!is_self && self.storage().get() == st);
  if (!shares && out.is_contiguous()) {
    addmm_into(self, mat1, mat2, beta, alpha, out, is_self);
  } else {
    Tensor tmp = addmm_cuda(self, mat1, mat2, beta, alpha);
    copy_inplace_cuda(out, tmp, false);
  }
  out.bump_version();
  return out;
}

}  // namespace tc::native
