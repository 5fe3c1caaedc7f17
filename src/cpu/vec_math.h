// SPDX-License-Identifier: BSD-3-Clause
// Vectorised transcendental functions over float32 / float64 spans, from
// SLEEF (sleef.org, Boost Software License 1.0; THIRD_PARTY.md).
//
// Each op is SLEEF's 1.0-ulp ("u10") function, as PyTorch's CPU kernels use
// it, in the widest variant the CPU runs, chosen once (cpu/isa.h):
// AVX-512F (16 floats / 8 doubles a call), AVX2+FMA (8 / 4), else SSE2 (4 / 2).
// A tail shorter than a vector is padded to one (a masked load with
// AVX-512), so an element's result never depends on where it sits in a
// tensor. Sigmoid and the two gelu forms are PyTorch's formulas around SLEEF's
// exp, erf and tanh. Accuracy per op: tests/internal/test_vec_math.cpp.
//
//   if (auto f = vec_unary_fn<float>(VecOp::Tanh)) f(in, out, n);
//   vec_unary_kernel<double>(iter, fn, grain);   // a built 1-in 1-out iterator
#pragma once
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/iter.h"
#include "cpu/isa.h"

namespace tc::cpu {

enum class VecOp : uint8_t {
  Exp,
  Expm1,
  Log,
  Log1p,
  Log2,
  Log10,
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Sinh,
  Cosh,
  Tanh,
  Erf,
  Asinh,
  Acosh,
  Atanh,
  Sigmoid,   // 1 / (1 + exp(-x))
  GeluErf,   // x * 0.5 * (1 + erf(x / sqrt(2)))
  GeluTanh,  // 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
  kCount
};

// The op's name ("tanh", "gelu_tanh"...), for messages and tests.
const char* vec_op_name(VecOp op);

// out[i] = op(in[i]) for i in [0, n). in == out is fine; a partial overlap
// is not (TensorIter copies such an input first).
template <class T>
using VecUnaryFn = void (*)(const T* in, T* out, int64_t n);

// The function for `op` built for `isa`, or nullptr where this build has no
// such variant (no SLEEF vectors on this architecture, or a compiler without
// the per-ISA copies: then only Isa::Baseline). The caller makes sure the CPU
// runs `isa`; the default is the best one it runs.
VecUnaryFn<float> vec_unary_f32(VecOp op, Isa isa);
VecUnaryFn<double> vec_unary_f64(VecOp op, Isa isa);

template <class T>
VecUnaryFn<T> vec_unary_fn(VecOp op, Isa which = isa()) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "float32 and float64 only");
  if constexpr (std::is_same_v<T, float>)
    return vec_unary_f32(op, which);
  else
    return vec_unary_f64(op, which);
}

// out = fn(in) over a built iterator with one output and one input, both of
// dtype T (the loop dtype). Dense runs go straight through fn; other runs
// (strided, broadcast) are gathered into a small buffer, computed and
// scattered back, so results match the dense path bit for bit.
template <class T>
void vec_unary_kernel(TensorIter& it, VecUnaryFn<T> fn, int64_t grain) {
  it.for_each(
      [fn](char** data, const int64_t* s, int64_t n) {
        if (s[0] == int64_t(sizeof(T)) && s[1] == int64_t(sizeof(T))) {
          fn(reinterpret_cast<const T*>(data[1]), reinterpret_cast<T*>(data[0]), n);
          return;
        }
        constexpr int64_t kBlock = 256;
        alignas(64) T buf[kBlock];
        for (int64_t b = 0; b < n; b += kBlock) {
          const int64_t m = std::min(kBlock, n - b);
          const char* in = data[1] + b * s[1];
          char* out = data[0] + b * s[0];
          for (int64_t i = 0; i < m; ++i) buf[i] = *reinterpret_cast<const T*>(in + i * s[1]);
          fn(buf, buf, m);
          for (int64_t i = 0; i < m; ++i) *reinterpret_cast<T*>(out + i * s[0]) = buf[i];
        }
      },
      // Whole vectors of the 1-d loop, whole rows otherwise: each thread's
      // elements group into the same vectors as on one thread.
      grain, it.ndim() == 1 ? 64 : it.shape()[0]);
}

}  // namespace tc::cpu
