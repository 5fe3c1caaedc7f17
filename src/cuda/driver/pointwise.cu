// SPDX-License-Identifier: BSD-3-Clause
// The pointwise loop: out = op(a[, b]) over a strided geometry, for every op
// of PointwiseOp. One kernel per compute type (float, double, long long) and
// index width; the op is a switch on a value every thread shares, so the
// branch costs next to nothing beside the memory traffic, and nvcc compiles
// six kernels instead of one per op and dtype.
#include <cuda_runtime_api.h>

#include "cuda/driver/cast.cuh"
#include "cuda/driver/elementwise.h"

namespace tc::cuda {
namespace {

// The floating functions by compute type (float: the f-suffixed versions).
#define TC_FLOAT_FN(name, ffn, dfn)                        \
  __device__ inline float name(float x) { return ffn(x); } \
  __device__ inline double name(double x) { return dfn(x); }
TC_FLOAT_FN(f_exp, expf, exp)
TC_FLOAT_FN(f_expm1, expm1f, expm1)
TC_FLOAT_FN(f_log, logf, log)
TC_FLOAT_FN(f_log1p, log1pf, log1p)
TC_FLOAT_FN(f_log2, log2f, log2)
TC_FLOAT_FN(f_log10, log10f, log10)
TC_FLOAT_FN(f_sqrt, sqrtf, sqrt)
TC_FLOAT_FN(f_rsqrt, rsqrtf, rsqrt)
TC_FLOAT_FN(f_sin, sinf, sin)
TC_FLOAT_FN(f_cos, cosf, cos)
TC_FLOAT_FN(f_tan, tanf, tan)
TC_FLOAT_FN(f_asin, asinf, asin)
TC_FLOAT_FN(f_acos, acosf, acos)
TC_FLOAT_FN(f_atan, atanf, atan)
TC_FLOAT_FN(f_asinh, asinhf, asinh)
TC_FLOAT_FN(f_acosh, acoshf, acosh)
TC_FLOAT_FN(f_atanh, atanhf, atanh)
TC_FLOAT_FN(f_sinh, sinhf, sinh)
TC_FLOAT_FN(f_cosh, coshf, cosh)
TC_FLOAT_FN(f_tanh, tanhf, tanh)
TC_FLOAT_FN(f_erf, erff, erf)
TC_FLOAT_FN(f_erfc, erfcf, erfc)
TC_FLOAT_FN(f_abs, fabsf, fabs)
TC_FLOAT_FN(f_floor, floorf, floor)
TC_FLOAT_FN(f_ceil, ceilf, ceil)
TC_FLOAT_FN(f_rint, rintf, rint)  // half to even, as torch.round
TC_FLOAT_FN(f_trunc, truncf, trunc)
#undef TC_FLOAT_FN

// Integer arithmetic wraps (in unsigned), as the CPU's does.
__device__ inline long long wrap_add(long long a, long long b) {
  return (long long)((unsigned long long)a + (unsigned long long)b);
}
__device__ inline long long wrap_mul(long long a, long long b) {
  return (long long)((unsigned long long)a * (unsigned long long)b);
}

__device__ inline float f_fmod(float a, float b) { return fmodf(a, b); }
__device__ inline double f_fmod(double a, double b) { return fmod(a, b); }
__device__ inline float f_pow(float a, float b) { return powf(a, b); }
__device__ inline double f_pow(double a, double b) { return pow(a, b); }
__device__ inline float f_atan2(float a, float b) { return atan2f(a, b); }
__device__ inline double f_atan2(double a, double b) { return atan2(a, b); }
__device__ inline float f_copysign(float a, float b) { return copysignf(a, b); }
__device__ inline double f_copysign(double a, double b) { return copysign(a, b); }

// Python's floor division from fmod, as ATen's div_floor_floating and the
// CPU loop: exact quotients agree with Python.
template <class C>
__device__ inline C div_floor_float(C a, C b) {
  if (b == C(0)) return a / b;
  const C mod = f_fmod(a, b);
  C div = (a - mod) / b;
  if (mod != C(0) && ((b < C(0)) != (mod < C(0)))) div -= C(1);
  if (div == C(0)) return f_copysign(C(0), a / b);
  C floordiv = f_floor(div);
  if (div - floordiv > C(0.5)) floordiv += C(1);
  return floordiv;
}

// pow with one of the common number exponents, by the CPU loop's exact
// formulas (the host chose them from the exponent as a double).
template <class C>
__device__ inline C pow_number(C a, C e) {
  if (e == C(2)) return a * a;
  if (e == C(3)) return a * a * a;
  if (e == C(0.5)) return f_sqrt(a);
  if (e == C(-0.5)) return C(1) / f_sqrt(a);
  if (e == C(-1)) return C(1) / a;
  if (e == C(-2)) return C(1) / (a * a);
  return f_pow(a, e);
}

// Integer fmod and remainder as the CPU loops compute them; b == -1 gives 0
// (INT64_MIN % -1 would overflow), b == 0 never arrives (the meta step
// refuses it) but gives 0 rather than undefined behaviour.
__device__ inline long long int_fmod(long long a, long long b) { return b == 0 || b == -1 ? 0 : a % b; }
__device__ inline long long int_remainder(long long a, long long b) {
  long long r = int_fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
__device__ inline long long wrap_neg(long long a) { return (long long)(0ull - (unsigned long long)a); }
// Division of integers (every dtype computes in int64, its values already
// rounded to it): -1 negates, wrapping (INT64_MIN / -1 traps); 0 never
// arrives (refused before the launch) and gives 0.
__device__ inline long long int_div_trunc(long long a, long long b) {
  return b == -1 ? wrap_neg(a) : b == 0 ? 0 : a / b;
}
__device__ inline long long int_div_floor(long long a, long long b) {
  if (b == -1) return wrap_neg(a);
  if (b == 0) return 0;
  long long q = a / b;
  if (a % b != 0 && ((a % b < 0) != (b < 0))) --q;
  return q;
}
// Integer power by squaring, wrapping; negative exponents as ATen: bases 1
// and -1 stay units, every other base truncates to 0.
__device__ inline long long int_pow(long long a, long long b) {
  if (b < 0) return a == 1 ? 1 : a == -1 ? ((b % 2) ? -1 : 1) : 0;
  unsigned long long base = (unsigned long long)a, result = 1;
  for (unsigned long long e = (unsigned long long)b; e; e >>= 1) {
    if (e & 1) result *= base;
    base *= base;
  }
  return (long long)result;
}

// Comparisons give 1 or 0 in every compute type (NaN compares unequal).
template <class C>
__device__ inline bool compare(int op, C a, C b, bool* is_comparison) {
  *is_comparison = true;
  switch (PointwiseOp(op)) {
    case PointwiseOp::Eq: return a == b;
    case PointwiseOp::Ne: return a != b;
    case PointwiseOp::Lt: return a < b;
    case PointwiseOp::Le: return a <= b;
    case PointwiseOp::Gt: return a > b;
    case PointwiseOp::Ge: return a >= b;
    default: *is_comparison = false; return false;
  }
}

template <class C>
__device__ inline C apply(int op, C a, C b, C alpha) {
  bool is_comparison;
  const bool truth = compare(op, a, b, &is_comparison);
  if (is_comparison) return truth ? C(1) : C(0);
  if constexpr (std::is_floating_point_v<C>) {
    switch (PointwiseOp(op)) {
      case PointwiseOp::Add: return a + alpha * b;
      case PointwiseOp::Mul: return a * b;
      case PointwiseOp::Div: return a / b;
      case PointwiseOp::Abs: return f_abs(a);
      case PointwiseOp::Sign: return C((C(0) < a) - (a < C(0)));  // 0 for NaN, as the CPU loop
      case PointwiseOp::Floor: return f_floor(a);
      case PointwiseOp::Ceil: return f_ceil(a);
      case PointwiseOp::Round: return f_rint(a);
      case PointwiseOp::Trunc: return f_trunc(a);
      case PointwiseOp::Exp: return f_exp(a);
      case PointwiseOp::Expm1: return f_expm1(a);
      case PointwiseOp::Log: return f_log(a);
      case PointwiseOp::Log1p: return f_log1p(a);
      case PointwiseOp::Log2: return f_log2(a);
      case PointwiseOp::Log10: return f_log10(a);
      case PointwiseOp::Sqrt: return f_sqrt(a);
      case PointwiseOp::Rsqrt: return f_rsqrt(a);
      case PointwiseOp::Reciprocal: return C(1) / a;
      case PointwiseOp::Sin: return f_sin(a);
      case PointwiseOp::Cos: return f_cos(a);
      case PointwiseOp::Tan: return f_tan(a);
      case PointwiseOp::Asin: return f_asin(a);
      case PointwiseOp::Acos: return f_acos(a);
      case PointwiseOp::Atan: return f_atan(a);
      case PointwiseOp::Asinh: return f_asinh(a);
      case PointwiseOp::Acosh: return f_acosh(a);
      case PointwiseOp::Atanh: return f_atanh(a);
      case PointwiseOp::Sinh: return f_sinh(a);
      case PointwiseOp::Cosh: return f_cosh(a);
      case PointwiseOp::Tanh: return f_tanh(a);
      case PointwiseOp::Sigmoid: return C(1) / (C(1) + f_exp(-a));
      case PointwiseOp::Erf: return f_erf(a);
      case PointwiseOp::Neg: return -a;
      case PointwiseOp::Relu: return a < C(0) ? C(0) : a;  // NaN stays NaN
      case PointwiseOp::ThresholdBackward: return b <= alpha ? C(0) : a;
      case PointwiseOp::SigmoidBackward: return a * (C(1) - b) * b;
      case PointwiseOp::TanhBackward: return a * (C(1) - b * b);
      case PointwiseOp::Maximum:
        if (a != a || b != b) return a != a ? a : b;
        return a > b ? a : b;
      case PointwiseOp::Minimum:
        if (a != a || b != b) return a != a ? a : b;
        return a < b ? a : b;
      // The forms without the cancellation of 1 + erf / 1 + tanh for x < 0,
      // as the CPU's float loops: x Phi(x) = x/2 erfc(-x / sqrt 2) and
      // x/2 (1 + tanh u) = x / (1 + exp(-2u)).
      case PointwiseOp::Gelu: return C(0.5) * a * f_erfc(-a * C(M_SQRT1_2));
      case PointwiseOp::GeluTanh: {
        const C beta = C(M_SQRT2 * M_2_SQRTPI * 0.5), kappa = C(0.044715);
        return a / (C(1) + f_exp(C(-2) * beta * (a + kappa * a * a * a)));
      }
      case PointwiseOp::GeluBackward: {
        // d/dx [x Phi(x)] = Phi(x) + x phi(x)
        const C cdf = C(0.5) * (C(1) + f_erf(b * C(M_SQRT1_2)));
        const C pdf = f_exp(C(-0.5) * b * b) * C(M_2_SQRTPI * M_SQRT1_2 * 0.5);
        return a * (cdf + b * pdf);
      }
      case PointwiseOp::GeluTanhBackward: {
        const C beta = C(M_SQRT2 * M_2_SQRTPI * 0.5), kappa = C(0.044715);
        const C x2 = b * b, t = f_tanh(beta * (b + kappa * x2 * b));
        const C left = C(0.5) * b, right = C(1) + t;
        const C dright = left * (C(1) - t * t) * beta * (C(1) + C(3) * kappa * x2);
        return a * (C(0.5) * right + dright);
      }
      case PointwiseOp::Fmod: return f_fmod(a, b);
      case PointwiseOp::Remainder: {
        C m = f_fmod(a, b);
        if (m != C(0) && ((b < C(0)) != (m < C(0)))) m += b;
        return m;
      }
      case PointwiseOp::DivTrunc: return f_trunc(a / b);
      case PointwiseOp::DivFloor: return div_floor_float(a, b);
      case PointwiseOp::Pow: return f_pow(a, b);
      case PointwiseOp::PowNumber: return f_pow(a, alpha);  // the exponent in the compute type, as the CPU's
      case PointwiseOp::PowExact: return pow_number(a, alpha);
      case PointwiseOp::Atan2: return f_atan2(a, b);
      default: return a;
    }
  } else {
    // int64 compute: every integer dtype and bool (stored back with a wrapping
    // cast, or != 0 for bool: add is "or", mul is "and" there). The floating
    // ops never reach here (their inputs compute in float).
    switch (PointwiseOp(op)) {
      case PointwiseOp::Add: return wrap_add(a, wrap_mul(alpha, b));
      case PointwiseOp::Mul: return wrap_mul(a, b);
      case PointwiseOp::Abs: return a < 0 ? (long long)(0ull - (unsigned long long)a) : a;
      case PointwiseOp::Sign: return (0 < a) - (a < 0);
      case PointwiseOp::Neg: return (long long)(0ull - (unsigned long long)a);
      case PointwiseOp::Relu: return a < 0 ? 0 : a;
      case PointwiseOp::ThresholdBackward: return b <= alpha ? 0 : a;
      case PointwiseOp::Maximum: return a > b ? a : b;
      case PointwiseOp::Minimum: return a < b ? a : b;
      case PointwiseOp::Fmod: return int_fmod(a, b);
      case PointwiseOp::Remainder: return int_remainder(a, b);
      case PointwiseOp::BitwiseAnd: return a & b;
      case PointwiseOp::BitwiseOr: return a | b;
      case PointwiseOp::BitwiseXor: return a ^ b;
      case PointwiseOp::DivTrunc: return int_div_trunc(a, b);
      case PointwiseOp::DivFloor: return int_div_floor(a, b);
      case PointwiseOp::Pow:
      case PointwiseOp::PowNumber:
      case PointwiseOp::PowExact: return int_pow(a, b);
      default: return a;  // Floor, Ceil, Round, Trunc: integers are whole already
    }
  }
}

// v (an input loaded in the compute type) rounded to the common dtype, as
// the CPU loop casts every input to it before computing: a float32 input of a
// float16 computation is rounded to float16, an int64 0-dim input of an int8
// one wraps to int8.
template <class C>
__device__ inline C through_common(C v, int common) {
  if constexpr (std::is_floating_point_v<C>) {
    if (common == kFloat16) return C(__half2float(__float2half_rn(float(v))));
    if (common == kBFloat16) return C(__bfloat162float(__float2bfloat16_rn(float(v))));
    return v;
  } else {
    switch (common) {
      case kBool: return v != 0 ? 1 : 0;
      case kUInt8: return (long long)(uint8_t)(unsigned long long)v;
      case kInt8: return (long long)(int8_t)(unsigned long long)v;
      case kInt16: return (long long)(int16_t)(unsigned long long)v;
      case kInt32: return (long long)(int32_t)(unsigned long long)v;
      default: return v;
    }
  }
}

__device__ inline void copy_element(char* dst, const char* src, int size) {
  switch (size) {
    case 1: *dst = *src; break;
    case 2: *reinterpret_cast<uint16_t*>(dst) = *reinterpret_cast<const uint16_t*>(src); break;
    case 4: *reinterpret_cast<uint32_t*>(dst) = *reinterpret_cast<const uint32_t*>(src); break;
    default: *reinterpret_cast<uint64_t*>(dst) = *reinterpret_cast<const uint64_t*>(src); break;
  }
}

template <class C>
__device__ inline C host_value(const PointwiseArgs& a, int k) {
  if constexpr (std::is_floating_point_v<C>)
    return C(a.fvalue[k]);
  else
    return C(a.ivalue[k]);
}

template <class Index, class C, int N>
__global__ void pointwise_kernel(PointwiseArgs args, Geometry g) {
  const Index n = Index(g.numel), step = Index(gridDim.x) * Index(blockDim.x);
  C alpha;
  if constexpr (std::is_floating_point_v<C>)
    alpha = C(args.alpha);
  else
    alpha = C(args.ialpha);
  const C a_host = host_value<C>(args, 1), b_host = N > 2 ? host_value<C>(args, 2) : C(0);
  const C c_host = N > 3 ? host_value<C>(args, 3) : C(0);
  for (Index i = Index(blockIdx.x) * Index(blockDim.x) + Index(threadIdx.x); i < n; i += step) {
    Index o[N];
    offsets<N>(g, i, o);
    C a = a_host, b = b_host;
    if (args.data[1]) {
      a = load_as<C>(args.data[1] + o[1], args.dtype[1]);
      if (args.dtype[1] != args.common) a = through_common(a, args.common);
    }
    if constexpr (N > 2) {
      if (args.data[2]) {
        b = load_as<C>(args.data[2] + o[2], args.dtype[2]);
        if (args.dtype[2] != args.common) b = through_common(b, args.common);
      }
    }
    if constexpr (N > 3) {  // where: the condition a selects b or c
      const int k = a != C(0) ? 2 : 3;
      if (args.data[k] && args.dtype[k] == args.dtype[0]) {
        // The selected element's bytes, as the CPU copies them (NaN payloads included).
        copy_element(args.data[0] + o[0], args.data[k] + o[k], dtype_size(args.dtype[0]));
      } else {
        C c = c_host;
        if (args.data[3]) {
          c = load_as<C>(args.data[3] + o[3], args.dtype[3]);
          if (args.dtype[3] != args.common) c = through_common(c, args.common);
        }
        store_as(args.data[0] + o[0], args.dtype[0], k == 2 ? b : c);
      }
    } else {
      store_as(args.data[0] + o[0], args.dtype[0], apply<C>(args.op, a, b, alpha));
    }
  }
}

template <class C, int N>
void launch_as(const PointwiseArgs& a, const Geometry& g, cudaStream_t s) {
  if (fits_32bit(g, N))
    pointwise_kernel<int32_t, C, N><<<blocks_for(g.numel), kThreads, 0, s>>>(a, g);
  else
    pointwise_kernel<int64_t, C, N><<<blocks_for(g.numel), kThreads, 0, s>>>(a, g);
}

template <class C>
void launch_compute(const PointwiseArgs& a, const Geometry& g, cudaStream_t s) {
  if (a.noperands > 3)
    launch_as<C, 4>(a, g, s);
  else if (a.noperands > 2)
    launch_as<C, 3>(a, g, s);
  else
    launch_as<C, 2>(a, g, s);
}

}  // namespace

int launch_pointwise(const PointwiseArgs* args, const Geometry* g, Stream stream) {
  if (g->numel == 0) return 0;
  if (args->noperands < 2 || args->noperands > kMaxOperands || args->op < 0 || args->op >= int(PointwiseOp::Count) ||
      (args->op == int(PointwiseOp::Where)) != (args->noperands == 4))
    return int(cudaErrorInvalidValue);
  const cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);
  switch (args->compute) {
    case kFloat32: launch_compute<float>(*args, *g, s); break;
    case kFloat64: launch_compute<double>(*args, *g, s); break;
    case kInt64: launch_compute<long long>(*args, *g, s); break;
    default: return int(cudaErrorInvalidValue);
  }
  return int(cudaGetLastError());
}

}  // namespace tc::cuda
