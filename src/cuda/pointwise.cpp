// SPDX-License-Identifier: BSD-3-Clause
// The CUDA pointwise loops. Each op's meta step is the CPU's (the families
// of structured/families.h, over a TensorIter planned on the tensors'
// device); only the loop differs: one launch of the driver's pointwise kernel
// with the op's code.
#include "cuda/pointwise.h"

#include "core/error.h"
#include "cuda/runtime.h"
#include "tensorc_gen/native_functions.h"

namespace tc::cuda {

static_assert(kBool == int(ScalarType::Bool) && kUInt8 == int(ScalarType::UInt8) && kInt8 == int(ScalarType::Int8) &&
                  kInt16 == int(ScalarType::Int16) && kInt32 == int(ScalarType::Int32) &&
                  kInt64 == int(ScalarType::Int64) && kFloat16 == int(ScalarType::Float16) &&
                  kBFloat16 == int(ScalarType::BFloat16) && kFloat32 == int(ScalarType::Float32) &&
                  kFloat64 == int(ScalarType::Float64),
              "the driver's dtype codes are ScalarType's");

namespace {

int compute_code(ScalarType common, const char* op) {
  switch (common) {
    case ScalarType::Float16:
    case ScalarType::BFloat16:
    case ScalarType::Float32: return int(ScalarType::Float32);
    case ScalarType::Float64: return int(ScalarType::Float64);
    case ScalarType::Undefined: TC_FAIL(Internal, "internal error: ", op, ": a CUDA loop without a compute dtype");
    default: return int(ScalarType::Int64);  // every integer dtype and bool
  }
}

}  // namespace

Geometry iteration_geometry(const TensorIter& it, const char* op) {
  TC_CHECK(it.ntensors() <= kMaxOperands, NotImplemented, op, ": CUDA element loops take at most ", kMaxOperands,
           " operands, got ", it.ntensors());
  TC_CHECK(it.ndim() <= kMaxDims, NotImplemented, op, ": CUDA element loops take at most ", kMaxDims,
           " non-mergeable dims, got ", it.ndim());
  Geometry g;
  g.numel = it.numel();
  g.ndim = it.ndim();
  for (int k = 0; k < g.ndim; ++k) {
    const int d = g.ndim - 1 - k;  // TensorIter's dim 0 is the innermost; the geometry's is the outermost
    g.sizes[d] = it.shape()[size_t(k)];
    for (int op_index = 0; op_index < it.ntensors(); ++op_index) g.strides[op_index][d] = it.byte_stride(op_index, k);
  }
  return g;
}

Geometry tensor_geometry(const Tensor& dst, const Tensor* src, const char* op) {
  const int64_t nd = dst.dim();
  const int64_t ns = src ? src->dim() : 0;
  TC_CHECK_ARG(!src || ns <= nd, op, ": the size of src ", src->sizes(), " does not broadcast to self's size ",
               dst.sizes());
  Geometry g;
  g.numel = dst.numel();
  int64_t sizes[64], s0[64], s1[64];
  TC_CHECK(nd <= 64, Index, op, ": at most 64 dims, got ", nd);
  int n = 0;
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t size = dst.sizes()[size_t(d)];
    int64_t src_stride = 0;
    if (src) {
      const int64_t sd = d - (nd - ns);
      if (sd >= 0) {
        const int64_t ssize = src->sizes()[size_t(sd)];
        TC_CHECK_ARG(ssize == size || ssize == 1, op, ": the size of src ", src->sizes(),
                     " does not broadcast to self's size ", dst.sizes());
        if (ssize == size) src_stride = src->strides()[size_t(sd)] * int64_t(src->element_size());
      }
    }
    if (size == 1) continue;
    const int64_t dst_stride = dst.strides()[size_t(d)] * int64_t(dst.element_size());
    if (n > 0 && s0[n - 1] == dst_stride * size && s1[n - 1] == src_stride * size) {
      sizes[n - 1] *= size;  // the outer dim walks on into this one: merge
      s0[n - 1] = dst_stride;
      s1[n - 1] = src_stride;
      continue;
    }
    sizes[n] = size;
    s0[n] = dst_stride;
    s1[n] = src_stride;
    ++n;
  }
  TC_CHECK(n <= kMaxDims, NotImplemented, op, ": CUDA element loops take at most ", kMaxDims,
           " non-mergeable dims, got ", n);
  g.ndim = n;
  for (int i = 0; i < n; ++i) {
    g.sizes[i] = sizes[i];
    g.strides[0][i] = s0[i];
    g.strides[1][i] = s1[i];
  }
  return g;
}

PointwiseArgs pointwise_args(const TensorIter& it, PointwiseOp kind, const Scalar& alpha) {
  PointwiseArgs a;
  a.op = int(kind);
  a.compute = compute_code(it.common_dtype(), "pointwise");
  a.common = int(it.common_dtype());
  a.noperands = it.ntensors();
  const bool floating = a.compute != int(ScalarType::Int64);
  for (int k = 0; k < it.ntensors(); ++k) {
    a.dtype[k] = int(it.dtype(k));
    if (k >= it.noutputs() && it.on_host(k)) {
      // A host value, rounded to the common dtype as the device loop rounds
      // its tensor inputs (and the CPU loop every input).
      Scalar v = read_scalar(it.data(k), it.dtype(k));
      if (it.dtype(k) != it.common_dtype()) {
        alignas(8) unsigned char rounded[8] = {0};
        write_scalar(rounded, it.common_dtype(), v);
        v = read_scalar(rounded, it.common_dtype());
      }
      if (floating)
        a.fvalue[k] = v.to_double();
      else
        a.ivalue[k] = v.to_int();
      a.data[k] = nullptr;
    } else {
      a.data[k] = it.data(k);
    }
  }
  if (floating)
    a.alpha = alpha.to_double();
  else
    a.ialpha = alpha.is_bool() ? int64_t(alpha.to_bool()) : alpha.to_int();
  return a;
}

void launch_pointwise(const TensorIter& it, PointwiseOp kind, const char* op, const Scalar& alpha) {
  TC_CHECK(it.device().is_cuda(), Internal, "internal error: ", op, ": a CUDA loop over tensors on ", it.device());
  const Geometry g = iteration_geometry(it, op);
  const PointwiseArgs args = pointwise_args(it, kind, alpha);
  if (g.numel == 0) return;
  const int dev = it.device().index;
  const DriverApi& drv = driver(op);
  DeviceGuard guard(dev);
  check(drv.launch_pointwise(&args, &g, current_stream(dev)), op, "the pointwise kernel's launch");
}

}  // namespace tc::cuda

// ---- the loops of the structured families (`dispatch: CPU, CUDA` in schema/ops.yaml) ----
namespace tc::native {
namespace {

void unary(TensorIter& it, cuda::PointwiseOp kind, const char* op) { cuda::launch_pointwise(it, kind, op); }
// abs, the roundings, fmod and remainder refuse bool, as their CPU loops do
// (the message of TC_DISPATCH_ALL_TYPES there).
void loop_refusing_bool(TensorIter& it, cuda::PointwiseOp kind, const char* op, const char* dispatch_name) {
  TC_CHECK_TYPE(it.common_dtype() != ScalarType::Bool, dispatch_name, ": unsupported dtype ", it.common_dtype());
  cuda::launch_pointwise(it, kind, op);
}

}  // namespace

void abs_loop_cuda(TensorIter& it) { loop_refusing_bool(it, cuda::PointwiseOp::Abs, "abs", "abs"); }
void sign_loop_cuda(TensorIter& it) { unary(it, cuda::PointwiseOp::Sign, "sign"); }
void floor_loop_cuda(TensorIter& it) { loop_refusing_bool(it, cuda::PointwiseOp::Floor, "floor", "round"); }
void ceil_loop_cuda(TensorIter& it) { loop_refusing_bool(it, cuda::PointwiseOp::Ceil, "ceil", "round"); }
void round_loop_cuda(TensorIter& it) { loop_refusing_bool(it, cuda::PointwiseOp::Round, "round", "round"); }
void trunc_loop_cuda(TensorIter& it) { loop_refusing_bool(it, cuda::PointwiseOp::Trunc, "trunc", "round"); }
void exp_loop_cuda(TensorIter& it) { unary(it, cuda::PointwiseOp::Exp, "exp"); }
void expm1_loop_cuda(TensorIter& it) { unary(it, cuda::PointwiseOp::Expm1, "expm1"); }
void log_loop_cuda(TensorIter& it) { unary(it, cuda::PointwiseOp::Log, "log"); }
void log1p_loop_cuda(TensorIter& it) { unary(it, cuda::PointwiseOp::Log1p, "log1p"); }
void log2_loop_cuda(TensorIter& it) { unary(it, cuda::PointwiseOp::Log2, "log2"); }
void log10_loop_cuda(TensorIter& it) { unary(it, cuda::PointwiseOp::Log10, "log10"); }
void sqrt_loop_cuda(TensorIter& it) { unary(it, cuda::PointwiseOp::Sqrt, "sqrt"); }
void rsqrt_loop_cuda(TensorIter& it) { unary(it, cuda::PointwiseOp::Rsqrt, "rsqrt"); }
void reciprocal_loop_cuda(TensorIter& it) { unary(it, cuda::PointwiseOp::Reciprocal, "reciprocal"); }
void sin_loop_cuda(TensorIter& it) { unary(it, cuda::PointwiseOp::Sin, "sin"); }
void cos_loop_cuda(TensorIter& it) { unary(it, cuda::PointwiseOp::Cos, "cos"); }
void tan_loop_cuda(TensorIter& it) { unary(it, cuda::PointwiseOp::Tan, "tan"); }
void asin_loop_cuda(TensorIter& it) { unary(it, cuda::PointwiseOp::Asin, "asin"); }
void acos_loop_cuda(TensorIter& it) { unary(it, cuda::PointwiseOp::Acos, "acos"); }
void atan_loop_cuda(TensorIter& it) { unary(it, cuda::PointwiseOp::Atan, "atan"); }
void asinh_loop_cuda(TensorIter& it) { unary(it, cuda::PointwiseOp::Asinh, "asinh"); }
void acosh_loop_cuda(TensorIter& it) { unary(it, cuda::PointwiseOp::Acosh, "acosh"); }
void atanh_loop_cuda(TensorIter& it) { unary(it, cuda::PointwiseOp::Atanh, "atanh"); }
void sinh_loop_cuda(TensorIter& it) { unary(it, cuda::PointwiseOp::Sinh, "sinh"); }
void cosh_loop_cuda(TensorIter& it) { unary(it, cuda::PointwiseOp::Cosh, "cosh"); }
void tanh_loop_cuda(TensorIter& it) { unary(it, cuda::PointwiseOp::Tanh, "tanh"); }
void sigmoid_loop_cuda(TensorIter& it) { unary(it, cuda::PointwiseOp::Sigmoid, "sigmoid"); }
void erf_loop_cuda(TensorIter& it) { unary(it, cuda::PointwiseOp::Erf, "erf"); }

// add and sub (which passes -alpha); the meta step has checked alpha.
void add_loop_cuda(TensorIter& it, const Scalar& alpha) {
  cuda::launch_pointwise(it, cuda::PointwiseOp::Add, it.op_name(), alpha);
}
void mul_loop_cuda(TensorIter& it) { cuda::launch_pointwise(it, cuda::PointwiseOp::Mul, it.op_name()); }
void div_loop_cuda(TensorIter& it) { cuda::launch_pointwise(it, cuda::PointwiseOp::Div, it.op_name()); }
void eq_loop_cuda(TensorIter& it) { cuda::launch_pointwise(it, cuda::PointwiseOp::Eq, it.op_name()); }
void ne_loop_cuda(TensorIter& it) { cuda::launch_pointwise(it, cuda::PointwiseOp::Ne, it.op_name()); }
void lt_loop_cuda(TensorIter& it) { cuda::launch_pointwise(it, cuda::PointwiseOp::Lt, it.op_name()); }
void le_loop_cuda(TensorIter& it) { cuda::launch_pointwise(it, cuda::PointwiseOp::Le, it.op_name()); }
void gt_loop_cuda(TensorIter& it) { cuda::launch_pointwise(it, cuda::PointwiseOp::Gt, it.op_name()); }
void ge_loop_cuda(TensorIter& it) { cuda::launch_pointwise(it, cuda::PointwiseOp::Ge, it.op_name()); }

// fmod and remainder: the meta step has refused integer zero divisors; bool
// is refused as the CPU loop's integral dispatch does.
void fmod_loop_cuda(TensorIter& it) { loop_refusing_bool(it, cuda::PointwiseOp::Fmod, it.op_name(), it.op_name()); }
void remainder_loop_cuda(TensorIter& it) {
  loop_refusing_bool(it, cuda::PointwiseOp::Remainder, it.op_name(), it.op_name());
}
// bitwise: integral and bool dtypes, checked by the meta step (bool computes
// as 0/1 in int64 and is stored back as != 0).
void bitwise_and_loop_cuda(TensorIter& it) { cuda::launch_pointwise(it, cuda::PointwiseOp::BitwiseAnd, it.op_name()); }
void bitwise_or_loop_cuda(TensorIter& it) { cuda::launch_pointwise(it, cuda::PointwiseOp::BitwiseOr, it.op_name()); }
void bitwise_xor_loop_cuda(TensorIter& it) { cuda::launch_pointwise(it, cuda::PointwiseOp::BitwiseXor, it.op_name()); }

}  // namespace tc::native
