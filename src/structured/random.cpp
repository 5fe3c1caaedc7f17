// SPDX-License-Identifier: BSD-3-Clause
#include "structured/random.h"

#include <cfloat>
#include <cmath>

#include "core/error.h"
#include "core/sanitize.h"
#include "core/shape.h"

namespace tc::structured {
namespace {

void check_floating(const char* op, const char* arg, ScalarType dt, const char* what) {
  TC_CHECK_TYPE(is_floating(dt), op, ": argument '", arg, "' expected ", what, ", got ", dt);
}

double largest_finite(ScalarType dt) {
  switch (dt) {
    case ScalarType::Float16: return 65504.0;
    case ScalarType::BFloat16: return 3.3895313892515355e38;
    case ScalarType::Float32: return double(FLT_MAX);
    default: return DBL_MAX;
  }
}

// The values randint may produce in dt.
void dtype_range(ScalarType dt, double* lo, double* hi) {
  switch (dt) {
    case ScalarType::Bool: *lo = 0, *hi = 1; return;
    case ScalarType::UInt8: *lo = 0, *hi = 255; return;
    case ScalarType::Int8: *lo = -128, *hi = 127; return;
    case ScalarType::Int16: *lo = -32768, *hi = 32767; return;
    case ScalarType::Int32: *lo = -2147483648.0, *hi = 2147483647.0; return;
    case ScalarType::Int64: *lo = -9223372036854775808.0, *hi = 9223372036854775807.0; return;
    default: *hi = largest_finite(dt), *lo = -*hi;
  }
}

// high - low for low < high: modulo 2^64, exact even past INT64_MAX.
TC_NO_SANITIZE_INTEGER uint64_t span_u64(int64_t low, int64_t high) { return uint64_t(high) - uint64_t(low); }

}  // namespace

RandintPlan randint_meta(int64_t low, int64_t high, IntArrayRef size, std::optional<ScalarType> dtype) {
  const ScalarType dt = dtype.value_or(ScalarType::Int64);
  TC_CHECK_TYPE(is_valid_dtype(int(dt)), "randint: unsupported dtype ", dt);
  TC_CHECK_ARG(low < high, "randint: argument 'high' expected > low (", low, "), got ", high);
  double lo, hi;
  dtype_range(dt, &lo, &hi);
  TC_CHECK_ARG(double(low) >= lo, "randint: argument 'low' (", low, ") is out of bounds for ", dt, " (expected >= ", lo,
               ")");
  TC_CHECK_ARG(double(high - 1) <= hi, "randint: argument 'high' (", high, ") is out of bounds for ", dt,
               " (expected high - 1 <= ", hi, ")");
  checked_numel(size, "randint");
  const uint64_t range = span_u64(low, high);
  return {dt, range, range > (uint64_t(1) << 32) ? 2 : 1};
}

void check_bernoulli_probabilities(const Tensor& self) {
  check_floating("bernoulli", "self", self.dtype(), "a floating point tensor of probabilities");
}

void check_random_inplace(const char* op, const Tensor& self) {
  TC_CHECK_ARG(self.defined(), op, ": argument 'self' is an undefined tensor");
  for (int64_t d = 0; d < self.dim(); ++d)
    TC_CHECK_ARG(self.stride(d) != 0 || self.size(d) <= 1, op,
                 ": argument 'self' has elements sharing memory (stride 0 at dim ", d,
                 "); clone it before writing in place");
}

void check_uniform(const Tensor& self, double from, double to) {
  check_random_inplace("uniform_", self);
  check_floating("uniform_", "self", self.dtype(), "a floating point tensor");
  TC_CHECK_ARG(std::isfinite(from) && std::isfinite(to),
               "uniform_: arguments 'from' and 'to' expected finite values, got from=", from, ", to=", to);
  TC_CHECK_ARG(from <= to, "uniform_: argument 'from' expected <= 'to' (a [from, to) range), got from=", from,
               ", to=", to);
  const double hi = largest_finite(self.dtype());
  TC_CHECK_ARG(from >= -hi && to <= hi && to - from <= hi, "uniform_: the range [", from, ", ", to,
               ") is out of bounds for ", self.dtype());
}

void check_normal(const Tensor& self, double std) {
  check_random_inplace("normal_", self);
  check_floating("normal_", "self", self.dtype(), "a floating point tensor");
  TC_CHECK_ARG(std >= 0.0, "normal_: argument 'std' expected >= 0, got ", std);
}

void check_probability(double p, const char* op, const char* arg) {
  TC_CHECK_ARG(p >= 0.0 && p <= 1.0, op, ": argument '", arg, "' expected a probability in [0, 1], got ", p);
}

bool check_dropout(const Tensor& input, double p, std::optional<bool> train) {
  const char* name = "native_dropout";
  TC_CHECK_ARG(p >= 0.0 && p <= 1.0, name, ": argument 'p' expected a dropout probability in [0, 1], got ", p);
  if (train.has_value() && !*train) return false;
  TC_CHECK_TYPE(is_floating(input.dtype()), name, ": argument 'input' expected a floating point tensor, got ",
                input.dtype());
  return true;
}

void check_dropout_backward(const Tensor& grad_output, const Tensor& mask) {
  const char* name = "native_dropout_backward";
  TC_CHECK_TYPE(mask.dtype() == ScalarType::Bool, name, ": argument 'mask' expected a bool tensor, got ", mask.dtype());
  TC_CHECK_TYPE(is_floating(grad_output.dtype()), name,
                ": argument 'grad_output' expected a floating point tensor, got ", grad_output.dtype());
}

ScalarType random_float_dtype(const char* op, std::optional<ScalarType> dtype) {
  const ScalarType dt = dtype.value_or(ScalarType::Float32);
  check_floating(op, "dtype", dt, "a floating point dtype");
  return dt;
}

int uniform_digits(ScalarType dt) {
  switch (dt) {
    case ScalarType::Float16: return 11;
    case ScalarType::BFloat16: return 8;
    case ScalarType::Float32: return 24;
    default: return 53;
  }
}

}  // namespace tc::structured
