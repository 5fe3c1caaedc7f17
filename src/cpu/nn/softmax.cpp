// SPDX-License-Identifier: BSD-3-Clause
// softmax / log_softmax and their backward kernels (CPU), ATen's _softmax,
// _log_softmax, _softmax_backward_data and _log_softmax_backward_data.
//
// Numerically stable: each row subtracts its max before exp. Rows are the
// lines along `dim`; the input is made contiguous first (one copy when it is
// not), so a row is either a dense run (dim is the last dim: the fast path)
// or a run with stride `inner` (any other dim: processed a block of
// neighbouring rows at a time, so every inner loop is still unit-stride).
// float16/bfloat16 compute in float32; with half_to_float the result is
// float32. Work is split over rows (or row blocks) with parallel_for.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/parallel.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "cpu/fast_math.h"
#include "cpu/loops.h"
#include "cpu/reduce_simd.h"
#include "structured/nn.h"
#include "tensorc_gen/native_functions.h"  // checks the kernels match the schema
#include "tensorc_gen/ops.h"

namespace tc::native {
namespace {

using cpu::opmath_t;

// The contiguous tensor around `dim` as outer x size x inner.
struct Geometry {
  int64_t outer = 1, size = 1, inner = 1;
};

Geometry geometry(IntArrayRef sizes, int64_t dim) {
  Geometry g;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (int64_t(d) < dim)
      g.outer *= sizes[d];
    else if (int64_t(d) == dim)
      g.size = sizes[d];
    else
      g.inner *= sizes[d];
  }
  return g;
}

// exp in the compute type: a vectorisable float32 exp, libm for double.
__attribute__((always_inline)) inline float exp_acc(const cpu::ExpF32& e, float x) { return e(x); }
inline double exp_acc(const cpu::ExpF32&, double x) { return std::exp(x); }

// Rows of about this many elements per parallel task.
int64_t row_grain(int64_t row_len) { return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, row_len)); }

// Neighbouring rows handled together when dim is not the last dim.
constexpr int64_t kBlock = 64;

// ---- row helpers ----------------------------------------------------------------
// float and double rows reduce with 16-byte vectors (GCC vector extensions:
// reductions over plain loops do not vectorise without -ffast-math), so the
// last-dim path runs at the speed of its element loops; half types convert
// element by element.

template <class T>
constexpr bool kVectorRow = std::is_same_v<T, opmath_t<T>>;

// Max of a row. A NaN is skipped here but still propagates (exp(NaN - m)).
template <class T>
opmath_t<T> row_max(const T* p, int64_t n) {
  using acc = opmath_t<T>;
  acc m = -std::numeric_limits<acc>::infinity();
  int64_t i = 0;
  if constexpr (kVectorRow<T>) {
    using V = typename cpu::Vec16<T>::type;
    constexpr int64_t L = cpu::Vec16<T>::lanes;
    V m0, m1, m2, m3, x0, x1, x2, x3;
    for (int64_t j = 0; j < L; ++j) m0[j] = m;
    m1 = m2 = m3 = m0;
    for (; i + 4 * L <= n; i += 4 * L) {
      TC_VLOAD(x0, p + i);
      TC_VLOAD(x1, p + i + L);
      TC_VLOAD(x2, p + i + 2 * L);
      TC_VLOAD(x3, p + i + 3 * L);
      m0 = x0 > m0 ? x0 : m0;
      m1 = x1 > m1 ? x1 : m1;
      m2 = x2 > m2 ? x2 : m2;
      m3 = x3 > m3 ? x3 : m3;
    }
    m0 = m1 > m0 ? m1 : m0;
    m2 = m3 > m2 ? m3 : m2;
    m0 = m2 > m0 ? m2 : m0;
    for (int64_t j = 0; j < L; ++j) m = m0[j] > m ? m0[j] : m;
  }
  for (; i < n; ++i) {
    const acc v = acc(p[i]);
    m = v > m ? v : m;
  }
  return m;
}

// Sum of a row (pairwise for float / double).
template <class T>
opmath_t<T> row_sum(const T* p, int64_t n) {
  if constexpr (kVectorRow<T>) {
    return cpu::pairwise_sum(p, n);
  } else {
    float s = 0;
    for (int64_t i = 0; i < n; ++i) s += float(p[i]);
    return s;
  }
}

// sum(a * b) over a row.
template <class T>
opmath_t<T> row_dot(const T* a, const T* b, int64_t n) {
  using acc = opmath_t<T>;
  acc s = 0;
  int64_t i = 0;
  if constexpr (kVectorRow<T>) {
    using V = typename cpu::Vec16<T>::type;
    constexpr int64_t L = cpu::Vec16<T>::lanes;
    V s0 = {}, s1 = {}, s2 = {}, s3 = {}, a0, a1, a2, a3, b0, b1, b2, b3;
    for (; i + 4 * L <= n; i += 4 * L) {
      TC_VLOAD(a0, a + i);
      TC_VLOAD(a1, a + i + L);
      TC_VLOAD(a2, a + i + 2 * L);
      TC_VLOAD(a3, a + i + 3 * L);
      TC_VLOAD(b0, b + i);
      TC_VLOAD(b1, b + i + L);
      TC_VLOAD(b2, b + i + 2 * L);
      TC_VLOAD(b3, b + i + 3 * L);
      s0 += a0 * b0;
      s1 += a1 * b1;
      s2 += a2 * b2;
      s3 += a3 * b3;
    }
    s0 = (s0 + s1) + (s2 + s3);
    for (int64_t j = 0; j < L; ++j) s += s0[j];
  }
  for (; i < n; ++i) s += acc(a[i]) * acc(b[i]);
  return s;
}

// ---- forward -------------------------------------------------------------------

// Elements per chunk of exponentials summed on the stack (log_softmax).
constexpr int64_t kChunk = 256;

// One dense row: out = softmax(x) or log_softmax(x). `buf` (n elements)
// holds the exponentials when the output type cannot (float16 output).
template <bool Log, class T, class U>
void forward_row(const T* x, U* out, opmath_t<T>* buf, int64_t n, const cpu::ExpF32& e) {
  using acc = opmath_t<T>;
  const acc m = row_max(x, n);
  if constexpr (Log) {
    acc s = 0, tmp[kChunk];
    for (int64_t c = 0; c < n; c += kChunk) {
      const int64_t len = std::min(kChunk, n - c);
      for (int64_t k = 0; k < len; ++k) tmp[k] = exp_acc(e, acc(x[c + k]) - m);
      s += cpu::block_sum(tmp, len);
    }
    const acc ls = std::log(s);  // (x - m) - log(s): x - m is exact near the max
    for (int64_t i = 0; i < n; ++i) out[i] = U((acc(x[i]) - m) - ls);
  } else {
    acc* ex = nullptr;
    if constexpr (std::is_same_v<U, acc>)
      ex = out;
    else
      ex = buf;
    for (int64_t i = 0; i < n; ++i) ex[i] = exp_acc(e, acc(x[i]) - m);
    const acc r = acc(1) / cpu::pairwise_sum(ex, n);
    for (int64_t i = 0; i < n; ++i) out[i] = U(ex[i] * r);
  }
}

// Rows [j0, j0 + w) of block `o` with stride `inner` between a row's elements.
template <bool Log, class T, class U>
void forward_block(const T* x, U* out, int64_t size, int64_t inner, int64_t w, opmath_t<T>* buf, const cpu::ExpF32& e) {
  using acc = opmath_t<T>;
  acc m[kBlock], s[kBlock];
  for (int64_t j = 0; j < w; ++j) {
    m[j] = -std::numeric_limits<acc>::infinity();
    s[j] = 0;
  }
  for (int64_t d = 0; d < size; ++d) {
    const T* xr = x + d * inner;
    for (int64_t j = 0; j < w; ++j) {
      const acc v = acc(xr[j]);
      m[j] = v > m[j] ? v : m[j];
    }
  }
  for (int64_t d = 0; d < size; ++d) {
    const T* xr = x + d * inner;
    acc* br = nullptr;  // log_softmax keeps no exponentials: buf is null
    if constexpr (!Log) br = buf + d * w;
    for (int64_t j = 0; j < w; ++j) {
      const acc v = exp_acc(e, acc(xr[j]) - m[j]);
      if constexpr (!Log) br[j] = v;
      s[j] += v;
    }
  }
  for (int64_t j = 0; j < w; ++j) s[j] = Log ? std::log(s[j]) : acc(1) / s[j];
  for (int64_t d = 0; d < size; ++d) {
    const T* xr = x + d * inner;
    const acc* br = nullptr;
    if constexpr (!Log) br = buf + d * w;
    U* o = out + d * inner;
    for (int64_t j = 0; j < w; ++j) o[j] = Log ? U((acc(xr[j]) - m[j]) - s[j]) : U(br[j] * s[j]);
  }
}

template <bool Log, class T, class U>
void forward_kernel(const Tensor& in, const Tensor& out, int64_t dim) {
  using acc = opmath_t<T>;
  const Geometry g = geometry(in.sizes(), dim);
  const T* x = in.data_ptr<T>();
  U* y = out.data_ptr<U>();
  if (g.inner == 1) {
    parallel_for(0, g.outer, row_grain(g.size), [&](int64_t b, int64_t e) {
      const cpu::ExpF32 ex;
      std::vector<acc> buf(std::is_same_v<U, acc> || Log ? 0 : size_t(g.size));
      for (int64_t r = b; r < e; ++r) forward_row<Log>(x + r * g.size, y + r * g.size, buf.data(), g.size, ex);
    });
    return;
  }
  const int64_t bw = kBlock, nblocks = (g.inner + bw - 1) / bw;
  parallel_for(0, g.outer * nblocks, row_grain(g.size * bw), [&](int64_t b, int64_t e) {
    const cpu::ExpF32 ex;
    std::vector<acc> buf(Log ? 0 : size_t(g.size * bw));
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / nblocks, j0 = (t % nblocks) * bw, w = std::min(bw, g.inner - j0);
      const int64_t off = o * g.size * g.inner + j0;
      forward_block<Log>(x + off, y + off, g.size, g.inner, w, buf.data(), ex);
    }
  });
}

template <bool Log>
Tensor softmax_forward(const Tensor& self, int64_t dim, bool half_to_float, const char* name) {
  const structured::SoftmaxMeta meta = structured::softmax_meta(self, dim, half_to_float, name);
  const ScalarType dt = self.dtype();
  Tensor out = empty_tensor(self.sizes(), meta.out_dtype, self.device());
  if (self.numel() == 0) return out;
  const Tensor in = self.contiguous();
  const int64_t row_dim = meta.dim;
  TC_DISPATCH_FLOATING_TYPES(dt, name, [&] {
    if constexpr (cpu::is_reduced_float_v<scalar_t>) {
      if (half_to_float) return forward_kernel<Log, scalar_t, float>(in, out, row_dim);
    }
    forward_kernel<Log, scalar_t, scalar_t>(in, out, row_dim);
  });
  return out;
}

// ---- backward ------------------------------------------------------------------
// softmax:     grad_input = y * (g - sum(g * y))
// log_softmax: grad_input = g - exp(y) * sum(g)

template <bool Log, class T, class U>
void backward_row(const T* g, const T* y, U* out, int64_t n, const cpu::ExpF32& e) {
  using acc = opmath_t<T>;
  if constexpr (Log) {
    const acc s = row_sum(g, n);
    for (int64_t i = 0; i < n; ++i) out[i] = U(acc(g[i]) - exp_acc(e, acc(y[i])) * s);
  } else {
    const acc s = row_dot(g, y, n);
    for (int64_t i = 0; i < n; ++i) out[i] = U(acc(y[i]) * (acc(g[i]) - s));
  }
}

template <bool Log, class T, class U>
void backward_block(const T* g, const T* y, U* out, int64_t size, int64_t inner, int64_t w, const cpu::ExpF32& e) {
  using acc = opmath_t<T>;
  acc s[kBlock];
  for (int64_t j = 0; j < w; ++j) s[j] = 0;
  for (int64_t d = 0; d < size; ++d) {
    const T *gr = g + d * inner, *yr = y + d * inner;
    for (int64_t j = 0; j < w; ++j) s[j] += Log ? acc(gr[j]) : acc(gr[j]) * acc(yr[j]);
  }
  for (int64_t d = 0; d < size; ++d) {
    const T *gr = g + d * inner, *yr = y + d * inner;
    U* o = out + d * inner;
    for (int64_t j = 0; j < w; ++j)
      o[j] = Log ? U(acc(gr[j]) - exp_acc(e, acc(yr[j])) * s[j]) : U(acc(yr[j]) * (acc(gr[j]) - s[j]));
  }
}

template <bool Log, class T, class U>
void backward_kernel(const Tensor& grad, const Tensor& output, const Tensor& out, int64_t dim) {
  const Geometry geo = geometry(grad.sizes(), dim);
  const T* g = grad.data_ptr<T>();
  const T* y = output.data_ptr<T>();
  U* o = out.data_ptr<U>();
  if (geo.inner == 1) {
    parallel_for(0, geo.outer, row_grain(geo.size), [&](int64_t b, int64_t e) {
      const cpu::ExpF32 ex;
      for (int64_t r = b; r < e; ++r)
        backward_row<Log>(g + r * geo.size, y + r * geo.size, o + r * geo.size, geo.size, ex);
    });
    return;
  }
  const int64_t bw = kBlock, nblocks = (geo.inner + bw - 1) / bw;
  parallel_for(0, geo.outer * nblocks, row_grain(geo.size * bw), [&](int64_t b, int64_t e) {
    const cpu::ExpF32 ex;
    for (int64_t t = b; t < e; ++t) {
      const int64_t ob = t / nblocks, j0 = (t % nblocks) * bw, w = std::min(bw, geo.inner - j0);
      const int64_t off = ob * geo.size * geo.inner + j0;
      backward_block<Log>(g + off, y + off, o + off, geo.size, geo.inner, w, ex);
    }
  });
}

template <bool Log>
Tensor softmax_backward(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype,
                        const char* name) {
  const int64_t row_dim = structured::softmax_backward_meta(grad_output, output, dim, input_dtype, name);
  const bool half_to_float = input_dtype != grad_output.dtype();
  const ScalarType dt = grad_output.dtype();
  Tensor out = empty_tensor(grad_output.sizes(), input_dtype, grad_output.device());
  if (grad_output.numel() == 0) return out;
  const Tensor g = grad_output.contiguous(), y = output.contiguous();
  if (half_to_float) {
    if (input_dtype == ScalarType::Float16)
      backward_kernel<Log, float, Half>(g, y, out, row_dim);
    else
      backward_kernel<Log, float, BFloat16>(g, y, out, row_dim);
    return out;
  }
  TC_DISPATCH_FLOATING_TYPES(dt, name, [&] { backward_kernel<Log, scalar_t, scalar_t>(g, y, out, row_dim); });
  return out;
}

}  // namespace

Tensor softmax_cpu(const Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_forward<false>(self, dim, half_to_float, "_softmax");
}

Tensor log_softmax_cpu(const Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_forward<true>(self, dim, half_to_float, "_log_softmax");
}

Tensor softmax_backward_cpu(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype) {
  return softmax_backward<false>(grad_output, output, dim, input_dtype, "_softmax_backward_data");
}

Tensor log_softmax_backward_cpu(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype) {
  return softmax_backward<true>(grad_output, output, dim, input_dtype, "_log_softmax_backward_data");
}

}  // namespace tc::native
