// SPDX-License-Identifier: BSD-3-Clause
// Layer norm kernels (CPU): native_layer_norm and native_layer_norm_backward,
// ATen's semantics. The input is M rows of N = prod(normalized_shape)
// elements (made contiguous first); each row is normalised with its biased
// variance: y = (x - mean) * rstd * weight + bias, rstd = 1 / sqrt(var + eps).
// mean and rstd have input's leading dims followed by a 1 per normalized dim,
// in input's dtype. Row statistics and the weight/bias gradients accumulate
// in double; element math runs in float (double for float64). weight and bias
// may have another floating dtype than input (read in the compute type).
// Rows are split over threads; the weight/bias gradients (sums over rows)
// are split by columns, so they do not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>
#include <vector>

#include "core/parallel.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "cpu/loops.h"
#include "structured/nn.h"
#include "tensorc_gen/native_functions.h"  // checks the kernels match the schema
#include "tensorc_gen/ops.h"

namespace tc::native {
namespace {

using cpu::opmath_t;

using LnShape = structured::LayerNormShape;

bool defined(const std::optional<Tensor>& t) { return t && t->defined(); }

ScalarType compute_dtype(ScalarType dt) {
  return dt == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
}

// A parameter as a contiguous tensor of the compute dtype (undefined if absent).
Tensor as_compute(const std::optional<Tensor>& t, ScalarType dt) {
  if (!defined(t)) return Tensor();
  return t->dtype() == dt ? t->contiguous() : t->to(dt);
}

int64_t row_grain(int64_t n) { return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n)); }

template <class T>
void forward_kernel(const Tensor& x, const Tensor& w, const Tensor& b, double eps, const LnShape& s, const Tensor& out,
                    const Tensor& mean, const Tensor& rstd) {
  using acc = opmath_t<T>;
  const T* xp = x.data_ptr<T>();
  const acc* wp = w.defined() ? w.data_ptr<acc>() : nullptr;
  const acc* bp = b.defined() ? b.data_ptr<acc>() : nullptr;
  T *yp = out.data_ptr<T>(), *mp = mean.data_ptr<T>(), *rp = rstd.data_ptr<T>();
  const int64_t N = s.N;
  parallel_for(0, s.M, row_grain(N), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const T* xr = xp + i * N;
      T* yr = yp + i * N;
      double sum = 0;
      for (int64_t j = 0; j < N; ++j) sum += double(xr[j]);
      const double mu = sum / double(N);
      double sq = 0;
      for (int64_t j = 0; j < N; ++j) {
        const double d = double(xr[j]) - mu;
        sq += d * d;
      }
      const double r = 1.0 / std::sqrt(sq / double(N) + eps);
      mp[i] = T(mu);
      rp[i] = T(r);
      const acc m = acc(mu), ra = acc(r);
      if (wp && bp) {
        for (int64_t j = 0; j < N; ++j) yr[j] = T((acc(xr[j]) - m) * ra * wp[j] + bp[j]);
      } else if (wp) {
        for (int64_t j = 0; j < N; ++j) yr[j] = T((acc(xr[j]) - m) * ra * wp[j]);
      } else if (bp) {
        for (int64_t j = 0; j < N; ++j) yr[j] = T((acc(xr[j]) - m) * ra + bp[j]);
      } else {
        for (int64_t j = 0; j < N; ++j) yr[j] = T((acc(xr[j]) - m) * ra);
      }
    }
  });
}

// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dy * weight,
// xhat = (x - mean) * rstd, means over the row.
template <class T>
void grad_input_kernel(const Tensor& dy, const Tensor& x, const double* mean, const double* rstd, const Tensor& w,
                       const LnShape& s, const Tensor& dx) {
  using acc = opmath_t<T>;
  const T *dyp = dy.data_ptr<T>(), *xp = x.data_ptr<T>();
  const acc* wp = w.defined() ? w.data_ptr<acc>() : nullptr;
  T* dxp = dx.data_ptr<T>();
  const int64_t N = s.N;
  parallel_for(0, s.M, row_grain(N), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const T *dyr = dyp + i * N, *xr = xp + i * N;
      T* dxr = dxp + i * N;
      const acc m = acc(mean[i]), r = acc(rstd[i]);
      double sg = 0, sgx = 0;
      for (int64_t j = 0; j < N; ++j) {
        const acc g = wp ? acc(dyr[j]) * wp[j] : acc(dyr[j]);
        sg += double(g);
        sgx += double(g * (acc(xr[j]) - m) * r);
      }
      const acc a = acc(sg / double(N)), c = acc(sgx / double(N));
      for (int64_t j = 0; j < N; ++j) {
        const acc g = wp ? acc(dyr[j]) * wp[j] : acc(dyr[j]);
        dxr[j] = T(r * (g - a - (acc(xr[j]) - m) * r * c));
      }
    }
  });
}

// dweight = sum over rows of dy * xhat, dbias = sum over rows of dy (either
// may be skipped), by blocks of columns.
template <class T>
void grad_params_kernel(const Tensor& dy, const Tensor& x, const double* mean, const double* rstd, const LnShape& s,
                        double* dw, double* db) {
  const T *dyp = dy.data_ptr<T>(), *xp = x.data_ptr<T>();
  const int64_t M = s.M, N = s.N;
  parallel_for(0, N, row_grain(M), [&](int64_t begin, int64_t end) {
    for (int64_t i = 0; i < M; ++i) {
      const T *dyr = dyp + i * N, *xr = xp + i * N;
      const double m = mean[i], r = rstd[i];
      if (dw)
        for (int64_t j = begin; j < end; ++j) dw[j] += double(dyr[j]) * (double(xr[j]) - m) * r;
      if (db)
        for (int64_t j = begin; j < end; ++j) db[j] += double(dyr[j]);
    }
  });
}

// A double buffer as a tensor of `shape` and `dtype`.
Tensor from_doubles(const std::vector<double>& v, IntArrayRef shape, ScalarType dtype, Device device) {
  Tensor t = empty_tensor(shape, ScalarType::Float64, device);
  std::copy(v.begin(), v.end(), t.data_ptr<double>());
  return dtype == ScalarType::Float64 ? t : t.to(dtype);
}

std::vector<double> as_doubles(const Tensor& t) {
  const Tensor d = t.dtype() == ScalarType::Float64 ? t.contiguous() : t.to(ScalarType::Float64);
  const double* p = d.data_ptr<double>();
  return std::vector<double>(p, p + d.numel());
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> layer_norm_cpu(const Tensor& input, IntArrayRef normalized_shape,
                                                  const std::optional<Tensor>& weight,
                                                  const std::optional<Tensor>& bias, double eps) {
  const char* name = "native_layer_norm";
  const LnShape s = structured::layer_norm_meta(name, input, normalized_shape, weight, bias);
  const ScalarType dt = input.dtype(), ct = compute_dtype(dt);
  const DimVector sshape = structured::layer_norm_stat_shape(input, s.axis);
  Tensor out = empty_tensor(input.sizes(), dt, input.device());
  Tensor mean = empty_tensor(sshape, dt, input.device());
  Tensor rstd = empty_tensor(sshape, dt, input.device());
  if (s.M == 0) return {out, mean, rstd};
  const Tensor x = input.contiguous(), w = as_compute(weight, ct), b = as_compute(bias, ct);
  TC_DISPATCH_FLOATING_TYPES(dt, name, [&] { forward_kernel<scalar_t>(x, w, b, eps, s, out, mean, rstd); });
  return {out, mean, rstd};
}

std::tuple<Tensor, Tensor, Tensor> layer_norm_backward_cpu(const Tensor& grad_out, const Tensor& input,
                                                           IntArrayRef normalized_shape, const Tensor& mean,
                                                           const Tensor& rstd, const std::optional<Tensor>& weight,
                                                           const std::optional<Tensor>& bias,
                                                           const std::vector<bool>& output_mask) {
  const char* name = "native_layer_norm_backward";
  const LnShape s = structured::layer_norm_meta(name, input, normalized_shape, weight, bias);
  structured::layer_norm_backward_meta(name, grad_out, input, mean, rstd, output_mask, s);
  const ScalarType dt = input.dtype(), ct = compute_dtype(dt);
  const Device dev = input.device();
  Tensor dx, dw, db;
  const Tensor x = input.contiguous(), dy = grad_out.contiguous();
  const std::vector<double> mu = as_doubles(mean), r = as_doubles(rstd);
  if (output_mask[0]) {
    dx = empty_tensor(input.sizes(), dt, dev);
    if (s.M > 0) {
      const Tensor w = as_compute(weight, ct);
      TC_DISPATCH_FLOATING_TYPES(dt, name, [&] { grad_input_kernel<scalar_t>(dy, x, mu.data(), r.data(), w, s, dx); });
    }
  }
  if (output_mask[1] || output_mask[2]) {
    std::vector<double> gw(output_mask[1] ? size_t(s.N) : 0, 0.0), gb(output_mask[2] ? size_t(s.N) : 0, 0.0);
    TC_DISPATCH_FLOATING_TYPES(dt, name, [&] {
      grad_params_kernel<scalar_t>(dy, x, mu.data(), r.data(), s, output_mask[1] ? gw.data() : nullptr,
                                   output_mask[2] ? gb.data() : nullptr);
    });
    if (output_mask[1]) dw = from_doubles(gw, normalized_shape, defined(weight) ? weight->dtype() : dt, dev);
    if (output_mask[2]) db = from_doubles(gb, normalized_shape, defined(bias) ? bias->dtype() : dt, dev);
  }
  return {dx, dw, db};
}

}  // namespace tc::native
