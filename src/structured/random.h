// SPDX-License-Identifier: BSD-3-Clause
// The meta step of the random fills, shared by the CPU and CUDA kernels:
// argument checks (all before the first write) and how many stream words an
// element takes. What element i draws is src/core/philox.h's.
#pragma once
#include <optional>

#include "core/tensor.h"

namespace tc::structured {

// An in-place fill's target: defined, no two elements sharing memory.
void check_random_inplace(const char* op, const Tensor& self);
// uniform_(from, to): a floating self; finite, ordered bounds within its dtype's range.
void check_uniform(const Tensor& self, double from, double to);
// normal_(mean, std): a floating self; std >= 0.
void check_normal(const Tensor& self, double std);
// A probability argument in [0, 1].
void check_probability(double p, const char* op, const char* arg);
// native_dropout: p in [0, 1]; when training (train unset or true), a
// floating input. Returns whether it trains.
bool check_dropout(const Tensor& input, double p, std::optional<bool> train);
// native_dropout_backward: a bool mask and a floating grad_output.
void check_dropout_backward(const Tensor& grad_output, const Tensor& mask);
// randint(low, high, size, dtype): low < high, both within the dtype's
// range (int64 by default; bool and floating allowed), a valid size. The
// output dtype, the span high - low (modulo 2^64) and the stream words an
// element takes (2 when the span exceeds 2^32); philox::integer draws.
struct RandintPlan {
  ScalarType dtype;
  uint64_t range;
  int words;
};
RandintPlan randint_meta(int64_t low, int64_t high, IntArrayRef size, std::optional<ScalarType> dtype);
// bernoulli(self): probabilities in a floating tensor.
void check_bernoulli_probabilities(const Tensor& self);
// rand/randn's dtype: float32 by default, floating only.
ScalarType random_float_dtype(const char* op, std::optional<ScalarType> dtype);
// The mantissa digits a uniform in [0, 1) may use in floating dtype `dt` so
// that it never rounds up to 1 (11 float16, 8 bfloat16, 24 float32, 53
// float64); above 32, an element takes two stream words.
int uniform_digits(ScalarType dt);

}  // namespace tc::structured
