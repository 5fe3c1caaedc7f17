// SPDX-License-Identifier: BSD-3-Clause
// Pointwise backward helpers of activations (CPU), ATen's formulas on the
// element-loop planner (broadcasting and type promotion as a binary op):
//   threshold_backward: self <= threshold ? 0 : grad_output   (relu's backward)
//   sigmoid_backward:   grad_output * (1 - output) * output    (output = sigmoid(x))
//   tanh_backward:      grad_output * (1 - output^2)           (output = tanh(x))
//   gelu_backward:      grad_output * d gelu(self) / d self, exact or tanh
// float16/bfloat16 compute in float.
#include <cmath>
#include <string_view>

#include "core/iter.h"
#include "core/tensor.h"
#include "cpu/loops.h"
#include "structured/binary.h"
#include "structured/nn.h"
#include "tensorc_gen/native_functions.h"  // checks the kernels match the schema

namespace tc::native {
namespace {

using cpu::cpu_kernel;
using cpu::opmath_t;

}  // namespace

Tensor threshold_backward_cpu(const Tensor& grad_output, const Tensor& self, const Scalar& threshold) {
  const char* name = "threshold_backward";
  return structured::run_pointwise_backward(grad_output, self, "self", false, name, [&](TensorIter& it, ScalarType dt) {
    TC_DISPATCH_ALL_TYPES(dt, name, [&] {
      using acc = opmath_t<scalar_t>;
      const acc th = threshold.to<acc>();
      cpu_kernel(it, [th](scalar_t g, scalar_t x) -> scalar_t { return acc(x) <= th ? scalar_t(0) : g; });
    });
  });
}

Tensor sigmoid_backward_cpu(const Tensor& grad_output, const Tensor& output) {
  const char* name = "sigmoid_backward";
  return structured::run_pointwise_backward(
      grad_output, output, "output", true, name, [&](TensorIter& it, ScalarType dt) {
        TC_DISPATCH_FLOATING_TYPES(dt, name, [&] {
          using acc = opmath_t<scalar_t>;
          cpu_kernel(it, [](scalar_t g, scalar_t y) -> scalar_t { return acc(g) * (acc(1) - acc(y)) * acc(y); });
        });
      });
}

Tensor tanh_backward_cpu(const Tensor& grad_output, const Tensor& output) {
  const char* name = "tanh_backward";
  return structured::run_pointwise_backward(
      grad_output, output, "output", true, name, [&](TensorIter& it, ScalarType dt) {
        TC_DISPATCH_FLOATING_TYPES(dt, name, [&] {
          using acc = opmath_t<scalar_t>;
          cpu_kernel(it, [](scalar_t g, scalar_t y) -> scalar_t { return acc(g) * (acc(1) - acc(y) * acc(y)); });
        });
      });
}

Tensor gelu_backward_cpu(const Tensor& grad_output, const Tensor& self, std::string_view approximate) {
  const char* name = "gelu_backward";
  const bool tanh_approx = structured::gelu_tanh(approximate, name);
  return structured::run_pointwise_backward(grad_output, self, "self", true, name, [&](TensorIter& it, ScalarType dt) {
    TC_DISPATCH_FLOATING_TYPES(dt, name, [&] {
      using acc = opmath_t<scalar_t>;
      if (tanh_approx) {
        // d/dx [x/2 (1 + tanh(u))], u = beta (x + kappa x^3)
        const acc beta = acc(M_SQRT2 * M_2_SQRTPI * 0.5), kappa = acc(0.044715);
        cpu_kernel(
            it,
            [beta, kappa](scalar_t gs, scalar_t xs) -> scalar_t {
              const acc x = xs, x2 = x * x;
              const acc t = std::tanh(beta * (x + kappa * x2 * x));
              const acc left = acc(0.5) * x, right = acc(1) + t;
              const acc dright = left * (acc(1) - t * t) * beta * (acc(1) + acc(3) * kappa * x2);
              return acc(gs) * (acc(0.5) * right + dright);
            },
            cpu::kTranscendentalGrain);
      } else {
        // d/dx [x Phi(x)] = Phi(x) + x phi(x)
        const acc inv_sqrt2 = acc(M_SQRT1_2), inv_sqrt_2pi = acc(M_2_SQRTPI * M_SQRT1_2 * 0.5);
        cpu_kernel(
            it,
            [inv_sqrt2, inv_sqrt_2pi](scalar_t gs, scalar_t xs) -> scalar_t {
              const acc x = xs;
              const acc cdf = acc(0.5) * (acc(1) + std::erf(x * inv_sqrt2));
              const acc pdf = inv_sqrt_2pi * std::exp(acc(-0.5) * x * x);
              return acc(gs) * (cdf + x * pdf);
            },
            cpu::kTranscendentalGrain);
      }
    });
  });
}

}  // namespace tc::native
