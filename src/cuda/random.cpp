// SPDX-License-Identifier: BSD-3-Clause
// The random fills on CUDA: the CPU kernels' meta step (structured/random.h)
// and generator, then one launch of the driver's random kernel, which draws
// element i exactly as the CPU does (src/core/philox.h). So a seed gives the
// same numbers on both devices; rand, randn and dropout are built on these.
#include <tuple>

#include "core/generator.h"
#include "core/philox.h"
#include "core/shape.h"
#include "cuda/pointwise.h"
#include "cuda/runtime.h"
#include "structured/random.h"
#include "tensorc_gen/native_functions.h"
#include "tensorc_gen/ops.h"

namespace tc::native {
namespace {

GeneratorImpl* gen_of(const std::optional<Generator>& g) { return generator_or_default(g ? &*g : nullptr); }

// Fills self (any strides) with `kind`; reserves `counters` of the generator.
// `args` brings the kind's own fields (randint's low, range and words).
void launch_random(Tensor& self, cuda::RandomKind kind, uint64_t counters, double a, double b, GeneratorImpl* g,
                   const char* op, cuda::RandomArgs args = {}) {
  const cuda::Geometry geometry = cuda::tensor_geometry(self, nullptr, op);
  const PhiloxState st = g->reserve_state(counters);
  if (self.numel() == 0) return;
  args.kind = int(kind);
  args.dtype = int(self.dtype());
  args.digits = is_floating(self.dtype()) ? structured::uniform_digits(self.dtype()) : 24;
  args.key = st.key;
  args.counter = st.counter;
  args.a = a;
  args.b = b;
  args.data = static_cast<char*>(self.data_ptr());
  const int dev = self.device().index;
  const cuda::DriverApi& drv = cuda::driver(op);
  cuda::DeviceGuard guard(dev);
  cuda::check(drv.launch_random(&args, &geometry, cuda::current_stream(dev)), op, "the random kernel's launch");
}

// rand/randn's output: a floating dtype (float32 by default) on the CUDA
// device asked for (-1: the current one).
Tensor random_factory(const char* op, IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  const ScalarType dt = structured::random_float_dtype(op, dtype);
  checked_numel(size, op);
  const int index = cuda::resolve_device(device ? device->index : -1, op);
  return cuda::empty_on(size, dt, Device(DeviceType::CUDA, index));
}

void uniform_fill(Tensor& t, double from, double to, GeneratorImpl* g, const char* op) {
  const int words = structured::uniform_digits(t.dtype()) > 32 ? 2 : 1;
  launch_random(t, cuda::RandomKind::Uniform, philox::counters(t.numel(), words), from, to - from, g, op);
}

void normal_fill(Tensor& t, double mean, double std, GeneratorImpl* g, const char* op) {
  launch_random(t, cuda::RandomKind::Normal, philox::normal_counters(t.numel(), t.dtype() == ScalarType::Float64), mean,
                std, g, op);
}

}  // namespace

Tensor& uniform_cuda_(Tensor& self, double from, double to, std::optional<Generator> generator) {
  structured::check_uniform(self, from, to);
  uniform_fill(self, from, to, gen_of(generator), "uniform_");
  self.bump_version();
  return self;
}

Tensor& normal_cuda_(Tensor& self, double mean, double std, std::optional<Generator> generator) {
  structured::check_normal(self, std);
  normal_fill(self, mean, std, gen_of(generator), "normal_");
  self.bump_version();
  return self;
}

Tensor& bernoulli_float_cuda_(Tensor& self, double p, std::optional<Generator> generator) {
  structured::check_random_inplace("bernoulli_", self);
  structured::check_probability(p, "bernoulli_", "p");
  launch_random(self, cuda::RandomKind::Bernoulli, philox::counters(self.numel(), 1), p, 0, gen_of(generator),
                "bernoulli_");
  self.bump_version();
  return self;
}

Tensor rand_cuda(IntArrayRef size, std::optional<Generator> generator, std::optional<ScalarType> dtype,
                 std::optional<Device> device) {
  Tensor t = random_factory("rand", size, dtype, device);
  uniform_fill(t, 0.0, 1.0, gen_of(generator), "rand");
  return t;
}

Tensor randn_cuda(IntArrayRef size, std::optional<Generator> generator, std::optional<ScalarType> dtype,
                  std::optional<Device> device) {
  Tensor t = random_factory("randn", size, dtype, device);
  normal_fill(t, 0.0, 1.0, gen_of(generator), "randn");
  return t;
}

Tensor randint_low_cuda(int64_t low, int64_t high, IntArrayRef size, std::optional<Generator> generator,
                        std::optional<ScalarType> dtype, std::optional<Device> device) {
  const structured::RandintPlan plan = structured::randint_meta(low, high, size, dtype);
  const int index = cuda::resolve_device(device ? device->index : -1, "randint");
  Tensor t = cuda::empty_on(size, plan.dtype, Device(DeviceType::CUDA, index));
  cuda::RandomArgs args;
  args.low = low;
  args.range = plan.range;
  args.words = plan.words;
  launch_random(t, cuda::RandomKind::Integer, philox::counters(t.numel(), plan.words), 0, 0, gen_of(generator),
                "randint", args);
  return t;
}
Tensor randint_cuda(int64_t high, IntArrayRef size, std::optional<Generator> generator, std::optional<ScalarType> dtype,
                    std::optional<Device> device) {
  return randint_low_cuda(0, high, size, generator, dtype, device);
}

// Element i is 1 where philox::fraction(i) < self[i], as on the CPU: the
// fractions (exact in float64) drawn on the device, then one comparison.
// Probabilities outside [0, 1] (or NaN) are found by one reduction and a
// read of its answer (this synchronises), and reported by the CPU's check
// of a host copy, so the message names the element as there.
Tensor bernoulli_cuda(const Tensor& self, std::optional<Generator> generator) {
  TC_CHECK_ARG(self.defined(), "bernoulli: argument 'self' is an undefined tensor");
  structured::check_bernoulli_probabilities(self);
  const Tensor p = tc::_to_copy(self, ScalarType::Float64);
  if (self.numel() > 0) {
    const Tensor in_range = tc::logical_and(tc::ge(p, Scalar(0.0)), tc::le(p, Scalar(1.0)));
    if (!tc::all(in_range).item().to_bool())
      bernoulli_cpu(tc::_to_copy(self, std::nullopt, Device(DeviceType::CPU)), generator);  // throws, naming it
  }
  Tensor fractions = cuda::empty_on(self.sizes(), ScalarType::Float64, self.device());
  launch_random(fractions, cuda::RandomKind::Fraction, philox::counters(self.numel(), 1), 0, 0, gen_of(generator),
                "bernoulli");
  return tc::_to_copy(tc::lt(fractions, p), self.dtype());
}

// randperm runs the CPU's Fisher-Yates (a serial chain of swaps, the same
// generator, so the same permutation as on the CPU) and copies the result
// over: a host round trip.
Tensor randperm_cuda(int64_t n, std::optional<Generator> generator, std::optional<ScalarType> dtype,
                     std::optional<Device> device) {
  const int index = cuda::resolve_device(device ? device->index : -1, "randperm");
  return tc::_to_copy(randperm_cpu(n, generator, dtype, Device(DeviceType::CPU)), std::nullopt,
                      Device(DeviceType::CUDA, index));
}

namespace {

// x * mask * scale as the CPU's apply_mask computes it: in float32 for
// float16/bfloat16 (the scale is not rounded to them), in x's dtype otherwise.
Tensor masked_scale(const Tensor& x, const Tensor& mask, double scale) {
  const ScalarType dt = x.dtype();
  const bool narrow = dt == ScalarType::Float16 || dt == ScalarType::BFloat16;
  const Tensor xc = narrow ? tc::_to_copy(x, ScalarType::Float32) : x;
  const Tensor y = tc::mul(tc::mul(xc, mask), Scalar(scale));
  return narrow ? tc::_to_copy(y, dt) : y;
}

}  // namespace

// Dropout as on the CPU: a bool keep-mask from bernoulli_(1 - p), then
// input * mask * (1 / (1 - p)) (a few pointwise launches here, one there).
std::tuple<Tensor, Tensor> native_dropout_cuda(const Tensor& input, double p, std::optional<bool> train) {
  if (!structured::check_dropout(input, p, train)) return {tc::clone(input), tc::ones_like(input, ScalarType::Bool)};
  Tensor mask = cuda::empty_on(input.sizes(), ScalarType::Bool, input.device());
  if (input.numel() == 0) return {cuda::empty_on(input.sizes(), input.dtype(), input.device()), mask};
  const double keep = 1.0 - p;
  tc::bernoulli_(mask, keep);
  return {masked_scale(input, mask, keep == 0.0 ? 0.0 : 1.0 / keep), mask};
}

Tensor native_dropout_backward_cuda(const Tensor& grad_output, const Tensor& mask, double scale) {
  structured::check_dropout_backward(grad_output, mask);
  return masked_scale(grad_output, mask, scale);
}

}  // namespace tc::native
