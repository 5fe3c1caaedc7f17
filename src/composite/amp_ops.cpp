// SPDX-License-Identifier: BSD-3-Clause
// GradScaler's two ops (CompositeExplicitAutograd), with ATen's names and
// rules. They are written with tensor ops only, so each backend runs them on
// its own device and nothing is read back to the host: the scale, the
// growth tracker and the found-inf flag stay 1-element device tensors, as a
// training step on a GPU needs. Every argument is checked before the first
// write, so a refused call changes nothing.
#include <limits>

#include "core/shape.h"
#include "tensorc_gen/native_functions.h"  // checks the kernels match the schema
#include "tensorc_gen/ops.h"

namespace tc::native {
namespace {

void check_one_element(const Tensor& t, ScalarType dtype, const char* op, const char* name) {
  TC_CHECK_ARG(t.defined(), op, ": argument '", name, "' is an undefined tensor");
  TC_CHECK_ARG(t.numel() == 1, op, ": argument '", name, "' expected a 1-element tensor, got shape ", t.sizes());
  TC_CHECK_TYPE(t.dtype() == dtype, op, ": argument '", name, "' expected dtype ", dtype, ", got ", t.dtype());
}

void check_same_device(const Tensor& t, const Tensor& reference, const char* op, const char* name) {
  TC_CHECK_ARG(t.device() == reference.device(), op, ": argument '", name, "' expected a tensor on ",
               reference.device(), " (where the scale is), got one on ", t.device());
}

// A dim of stride 0 and size > 1: several elements in one place (as the loop
// planner refuses for a written tensor), found before anything is written.
bool is_expanded(const Tensor& t) {
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.size(d) > 1 && t.stride(d) == 0) return true;
  return false;
}

}  // namespace

// For each gradient g: found_inf becomes 1 if g holds an inf or a NaN, and g
// is multiplied by inv_scale (also when found_inf is set: the step that
// follows is skipped anyway, as in ATen).
void _amp_foreach_non_finite_check_and_unscale_(const std::vector<Tensor>& self, Tensor& found_inf,
                                                const Tensor& inv_scale) {
  constexpr const char* op = "_amp_foreach_non_finite_check_and_unscale_";
  check_one_element(inv_scale, ScalarType::Float32, op, "inv_scale");
  check_one_element(found_inf, ScalarType::Float32, op, "found_inf");
  check_same_device(found_inf, inv_scale, op, "found_inf");
  for (size_t i = 0; i < self.size(); ++i) {
    const Tensor& g = self[i];
    TC_CHECK_ARG(g.defined(), op, ": argument 'self' element ", i, " is an undefined tensor");
    TC_CHECK_TYPE(is_floating(g.dtype()), op, ": argument 'self' expected floating-point tensors, element ", i,
                  " has dtype ", g.dtype());
    TC_CHECK_ARG(g.device() == inv_scale.device(), op, ": argument 'self' expected tensors on ", inv_scale.device(),
                 " (where the scale is), element ", i, " is on ", g.device());
    TC_CHECK_ARG(!is_expanded(g), op, ": argument 'self' element ", i,
                 " has elements that share memory (an expanded tensor), which cannot be unscaled in place");
  }
  // 0-dim views of the 1-element tensors: they broadcast into a gradient of any shape, 0-dim included.
  const Tensor inv = tc::reshape(inv_scale, IntArrayRef());
  Tensor found = tc::reshape(found_inf, IntArrayRef());
  const Tensor one = tc::ones_like(found);
  for (const Tensor& g : self) {
    if (g.numel() == 0) continue;
    const Tensor non_finite = tc::logical_not(tc::all(tc::isfinite(g)));  // 0-dim bool, on the device
    tc::copy_(found, tc::where(non_finite, one, found));
    Tensor out = g;
    out.mul_(inv);
  }
}

// After a step: with found_inf set, scale *= backoff and the tracker restarts;
// otherwise the tracker counts one more clean step, and at growth_interval
// clean steps the scale grows (unless that would overflow float32) and the
// tracker restarts. The products are taken in double and rounded once, as
// ATen's kernel does.
Tensor& _amp_update_scale_(Tensor& self, Tensor& growth_tracker, const Tensor& found_inf, double scale_growth_factor,
                           double scale_backoff_factor, int64_t growth_interval) {
  constexpr const char* op = "_amp_update_scale_";
  check_one_element(self, ScalarType::Float32, op, "self");
  check_one_element(growth_tracker, ScalarType::Int32, op, "growth_tracker");
  check_one_element(found_inf, ScalarType::Float32, op, "found_inf");
  check_same_device(growth_tracker, self, op, "growth_tracker");
  check_same_device(found_inf, self, op, "found_inf");
  TC_CHECK_ARG(growth_interval > 0 && growth_interval <= std::numeric_limits<int32_t>::max(), op,
               ": argument 'growth_interval' expected a positive int32, got ", growth_interval);

  // Everything on 0-dim views, so 1-element tensors of any shape ([1], [], [1, 1]) mix.
  Tensor scale0 = tc::reshape(self, IntArrayRef()), tracker0 = tc::reshape(growth_tracker, IntArrayRef());
  const Tensor found = tc::ne(tc::reshape(found_inf, IntArrayRef()), Scalar(0.0));
  const Tensor scale = scale0.to(ScalarType::Float64);
  const Tensor backed_off = tc::mul(scale, Scalar(scale_backoff_factor)).to(ScalarType::Float32);
  const Tensor grown = tc::mul(scale, Scalar(scale_growth_factor)).to(ScalarType::Float32);
  const Tensor successful = tc::add(tracker0, Scalar(int64_t(1)));
  const Tensor at_interval = tc::eq(successful, Scalar(growth_interval));
  const Tensor grow = tc::logical_and(at_interval, tc::isfinite(grown));
  const Tensor new_scale = tc::where(found, backed_off, tc::where(grow, grown, scale0));
  const Tensor zero = tc::zeros_like(tracker0);
  const Tensor new_tracker = tc::where(tc::logical_or(found, at_interval), zero, successful);
  tc::copy_(scale0, new_scale);  // through the views: into self and growth_tracker
  tc::copy_(tracker0, new_tracker);
  return self;
}

}  // namespace tc::native
