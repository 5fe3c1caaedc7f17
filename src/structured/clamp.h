// SPDX-License-Identifier: BSD-3-Clause
// clamp's meta step (clamp, clamp_min, clamp_max with number bounds), shared
// by the CPU and CUDA kernels.
#pragma once
#include <optional>

#include "core/tensor.h"

namespace tc::structured {

// self defined and at least one bound given; returns the result dtype (self
// promoted with the bounds as Python numbers; not bool). An integer bound
// must fit an integral result dtype, as PyTorch checks.
ScalarType clamp_meta(const Tensor& self, const std::optional<Scalar>& lo, const std::optional<Scalar>& hi,
                      const char* name);

// clamp with tensor bounds (lo and hi may be null or undefined): self
// defined, at least one bound; returns the result dtype (self and the bounds
// promoted; not bool).
ScalarType clamp_tensors_meta(const Tensor& self, const Tensor* lo, const Tensor* hi, const char* name);

}  // namespace tc::structured
