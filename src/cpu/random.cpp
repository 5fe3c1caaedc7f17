// SPDX-License-Identifier: BSD-3-Clause
// Random kernels (CPU): rand, randn, randint, randperm, uniform_, normal_,
// bernoulli, bernoulli_. All draw from the Philox stream of core/generator.h:
// a kernel reserves its counters once, then logical element i reads fixed
// words derived from i alone, so results do not depend on the thread count
// or on how parallel_for chunks the range.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <vector>

#include "core/generator.h"
#include "core/parallel.h"
#include "core/philox.h"
#include "core/sanitize.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "structured/random.h"
#include "tensorc_gen/native_functions.h"  // checks the kernels match the schema

namespace tc::native {
namespace {

// Philox costs ~10 multiply rounds per 4 words: chunks smaller than this are
// not worth a thread.
constexpr int64_t kRandomGrain = 8192;

Device cpu_device(const char* op, std::optional<Device> device) {
  TC_CHECK(!device || device->is_cpu(), Device, op, ": argument 'device' expected cpu, got ", *device, " (no ", op,
           " kernel for that device)");
  return Device(DeviceType::CPU);
}

GeneratorImpl* gen_of(const std::optional<Generator>& g) { return generator_or_default(g ? &*g : nullptr); }

// Reserves the counters for n elements of `words` 32-bit words each.
PhiloxState reserve(GeneratorImpl* g, int64_t n, int words) { return g->reserve_state(philox::counters(n, words)); }

// Sequential reader of words [w, end) of one Philox stream (32-bit words,
// four per counter value), generated a buffer of blocks at a time.
class WordReader {
 public:
  WordReader(PhiloxState s, uint64_t w, uint64_t end)
      : key_(s.key), base_(s.counter), next_block_(w / 4), end_block_((end + 3) / 4) {
    refill();
    pos_ = unsigned(w % 4);
  }
  uint32_t next32() {
    if (pos_ == len_) refill();
    return buf_[pos_++];
  }
  uint64_t next64() {
    uint64_t lo = next32();
    return lo | (uint64_t(next32()) << 32);
  }

 private:
  static constexpr uint64_t kBufBlocks = 32;
  void refill() {
    uint64_t left = end_block_ > next_block_ ? end_block_ - next_block_ : 1;
    uint64_t nb = std::min(kBufBlocks, left);
    Philox4x32::generate_blocks(base_ + next_block_, key_, int64_t(nb), buf_);
    next_block_ += nb;
    len_ = unsigned(4 * nb);
    pos_ = 0;
  }
  uint64_t key_, base_, next_block_, end_block_;
  unsigned pos_ = 0, len_ = 0;
  uint32_t buf_[4 * kBufBlocks];
};

// Per floating type: the accumulate type, the mantissa digits a uniform in
// [0, 1) may use so that it is exactly representable (never rounds up to 1),
// and the largest finite value. (The primary template only serves integral
// branches that dtype dispatch instantiates but never runs.)
template <class T>
struct FloatTraits {
  using acc = double;
  static constexpr int digits = 0;
  static constexpr double max = 0;
};
template <>
struct FloatTraits<Half> {
  using acc = float;
  static constexpr int digits = 11;
  static constexpr double max = 65504.0;
};
template <>
struct FloatTraits<BFloat16> {
  using acc = float;
  static constexpr int digits = 8;
  static constexpr double max = 3.3895313892515355e38;
};
template <>
struct FloatTraits<float> {
  using acc = float;
  static constexpr int digits = 24;
  static constexpr double max = 3.4028234663852886e38;
};
template <>
struct FloatTraits<double> {
  using acc = double;
  static constexpr int digits = 53;
  static constexpr double max = std::numeric_limits<double>::max();
};

template <class T>
constexpr int words_per_uniform() {
  return FloatTraits<T>::digits > 32 ? 2 : 1;
}

// A uniform in [0, 1) with T's digits, in T's accumulate type.
template <class T>
typename FloatTraits<T>::acc uniform01(WordReader& r) {
  using acc = typename FloatTraits<T>::acc;
  constexpr int d = FloatTraits<T>::digits;
  // Through int64: converting uint64 to floating is a slow sequence on x86.
  if constexpr (d > 32)
    return acc(int64_t(r.next64() >> (64 - d))) * acc(1.0 / double(uint64_t(1) << d));
  else
    return acc(int32_t(r.next32() >> (32 - d))) * acc(1.0 / double(uint64_t(1) << d));
}

// Calls f(i, element&) for logical elements [b, e) of t in row-major order,
// whatever its strides.
template <class T, class F>
void for_range(const Tensor& t, int64_t b, int64_t e, F&& f) {
  T* base = static_cast<T*>(t.data_ptr());
  if (t.is_contiguous()) {
    for (int64_t i = b; i < e; ++i) f(i, base[i]);
    return;
  }
  int64_t nd = t.dim();
  IntArrayRef sz = t.sizes(), st = t.strides();
  DimVector idx(static_cast<size_t>(nd));
  int64_t off = 0;
  for (int64_t d = nd - 1, r = b; d >= 0; --d) {
    idx[size_t(d)] = r % sz[size_t(d)];
    r /= sz[size_t(d)];
    off += idx[size_t(d)] * st[size_t(d)];
  }
  for (int64_t i = b; i < e; ++i) {
    f(i, base[off]);
    for (int64_t d = nd - 1; d >= 0; --d) {
      size_t k = size_t(d);
      if (++idx[k] < sz[k]) {
        off += st[k];
        break;
      }
      off -= (sz[k] - 1) * st[k];
      idx[k] = 0;
    }
  }
}

// Fills t with draw(reader) per element; element i reads words
// [i * words, (i + 1) * words) of the stream.
template <class T, class Draw>
void fill_random(const Tensor& t, PhiloxState st, int words, Draw draw) {
  parallel_for(0, t.numel(), kRandomGrain, [&](int64_t b, int64_t e) {
    WordReader r(st, uint64_t(b) * uint64_t(words), uint64_t(e) * uint64_t(words));
    for_range<T>(t, b, e, [&](int64_t, T& out) { out = draw(r); });
  });
}

// The checks of the random fills are their meta step (structured/random.h),
// shared with the CUDA kernels.

void uniform_fill(const Tensor& t, double from, double to, GeneratorImpl* g) {
  TC_DISPATCH_FLOATING_TYPES(t.dtype(), "uniform_", [&] {
    using acc = typename FloatTraits<scalar_t>::acc;
    constexpr int w = words_per_uniform<scalar_t>();
    acc lo = acc(from), span = acc(to - from);
    PhiloxState st = reserve(g, t.numel(), w);
    fill_random<scalar_t>(t, st, w, [&](WordReader& r) { return scalar_t(uniform01<scalar_t>(r) * span + lo); });
  });
}

// One call for both (glibc's sincos is about as fast as either alone).
inline void sin_cos(float x, float* s, float* c) {
#ifdef __GLIBC__
  ::sincosf(x, s, c);
#else
  *s = std::sin(x);
  *c = std::cos(x);
#endif
}
inline void sin_cos(double x, double* s, double* c) {
#ifdef __GLIBC__
  ::sincos(x, s, c);
#else
  *s = std::sin(x);
  *c = std::cos(x);
#endif
}

// Box-Muller: one pair of uniforms gives two normals, for elements 2k and
// 2k+1. Float types compute in float from 24-bit uniforms (one word each),
// double from 53-bit uniforms (two words each).
template <class acc>
inline void box_muller(WordReader& r, acc z[2]) {
  acc u1, u2;
  if constexpr (std::is_same_v<acc, double>) {
    // int64 before converting: uint64 -> double is a slow sequence on x86.
    u1 = double(int64_t(r.next64() >> 11) + 1) * 0x1p-53;  // (0, 1]: log never sees 0
    u2 = double(int64_t(r.next64() >> 11)) * 0x1p-53;
  } else {
    u1 = float(int32_t(r.next32() >> 8) + 1) * 0x1p-24f;
    u2 = float(int32_t(r.next32() >> 8)) * 0x1p-24f;
  }
  acc rad = std::sqrt(acc(-2) * std::log(u1));
  sin_cos(acc(6.283185307179586) * u2, &z[1], &z[0]);
  z[0] *= rad;
  z[1] *= rad;
}

void normal_fill(const Tensor& t, double mean, double stdv, GeneratorImpl* g) {
  TC_DISPATCH_FLOATING_TYPES(t.dtype(), "normal_", [&] {
    using acc = typename FloatTraits<scalar_t>::acc;
    constexpr uint64_t words_per_pair = std::is_same_v<acc, double> ? 4 : 2;
    const acc m = acc(mean), s = acc(stdv);
    PhiloxState st = reserve(g, (t.numel() + 1) / 2, int(words_per_pair));
    parallel_for(0, t.numel(), kRandomGrain, [&](int64_t b, int64_t e) {
      WordReader r(st, uint64_t(b / 2) * words_per_pair, uint64_t((e + 1) / 2) * words_per_pair);
      acc z[2] = {0, 0};
      if (t.is_contiguous()) {
        scalar_t* o = t.data_ptr<scalar_t>();
        int64_t i = b;
        if (i & 1) {  // the chunk starts mid-pair
          box_muller(r, z);
          o[i++] = scalar_t(m + s * z[1]);
        }
        for (; i + 1 < e; i += 2) {
          box_muller(r, z);
          o[i] = scalar_t(m + s * z[0]);
          o[i + 1] = scalar_t(m + s * z[1]);
        }
        if (i < e) {
          box_muller(r, z);
          o[i] = scalar_t(m + s * z[0]);
        }
        return;
      }
      for_range<scalar_t>(t, b, e, [&](int64_t i, scalar_t& out) {
        if (i == b || (i & 1) == 0) box_muller(r, z);
        out = scalar_t(m + s * z[i & 1]);
      });
    });
  });
}

// [lowest, max] of dtype as doubles (floating: finite range).
Tensor random_float_tensor(const char* op, IntArrayRef size, std::optional<ScalarType> dtype,
                           std::optional<Device> device) {
  Device dev = cpu_device(op, device);
  ScalarType dt = structured::random_float_dtype(op, dtype);
  checked_numel(size, op);
  return empty_tensor(size, dt, dev);
}

// low + x for x < high - low: modulo 2^64, exact even when the range spans
// more than INT64_MAX (as philox::integer).
TC_NO_SANITIZE_INTEGER int64_t offset_from(int64_t low, uint64_t x) { return int64_t(uint64_t(low) + x); }

}  // namespace

Tensor rand_cpu(IntArrayRef size, std::optional<Generator> generator, std::optional<ScalarType> dtype,
                std::optional<Device> device) {
  Tensor t = random_float_tensor("rand", size, dtype, device);
  uniform_fill(t, 0.0, 1.0, gen_of(generator));
  return t;
}

Tensor randn_cpu(IntArrayRef size, std::optional<Generator> generator, std::optional<ScalarType> dtype,
                 std::optional<Device> device) {
  Tensor t = random_float_tensor("randn", size, dtype, device);
  normal_fill(t, 0.0, 1.0, gen_of(generator));
  return t;
}

Tensor& uniform_cpu_(Tensor& self, double from, double to, std::optional<Generator> generator) {
  structured::check_uniform(self, from, to);
  uniform_fill(self, from, to, gen_of(generator));
  self.bump_version();
  return self;
}

Tensor& normal_cpu_(Tensor& self, double mean, double std, std::optional<Generator> generator) {
  structured::check_normal(self, std);
  normal_fill(self, mean, std, gen_of(generator));
  self.bump_version();
  return self;
}

Tensor& bernoulli_float_cpu_(Tensor& self, double p, std::optional<Generator> generator) {
  structured::check_random_inplace("bernoulli_", self);
  structured::check_probability(p, "bernoulli_", "p");
  GeneratorImpl* g = gen_of(generator);
  TC_DISPATCH_ALL_TYPES_AND_BOOL(self.dtype(), "bernoulli_", [&] {
    PhiloxState st = reserve(g, self.numel(), 1);
    const scalar_t one = Scalar(int64_t(1)).to<scalar_t>(), zero = Scalar(int64_t(0)).to<scalar_t>();
    fill_random<scalar_t>(self, st, 1, [&](WordReader& r) { return double(r.next32()) * 0x1p-32 < p ? one : zero; });
  });
  self.bump_version();
  return self;
}

// self holds the probabilities; the result has self's shape and dtype.
Tensor bernoulli_cpu(const Tensor& self, std::optional<Generator> generator) {
  TC_CHECK_ARG(self.defined(), "bernoulli: argument 'self' is an undefined tensor");
  TC_CHECK(self.is_cpu(), Device, "bernoulli: argument 'self' expected a cpu tensor, got a tensor on ", self.device());
  structured::check_bernoulli_probabilities(self);
  Tensor out = empty_tensor(self.sizes(), self.dtype(), self.device());
  GeneratorImpl* g = gen_of(generator);
  TC_DISPATCH_FLOATING_TYPES(self.dtype(), "bernoulli", [&] {
    PhiloxState st = reserve(g, self.numel(), 1);
    scalar_t* o = out.data_ptr<scalar_t>();
    parallel_for(0, self.numel(), kRandomGrain, [&](int64_t b, int64_t e) {
      WordReader r(st, uint64_t(b), uint64_t(e));
      for_range<const scalar_t>(self, b, e, [&](int64_t i, const scalar_t& pv) {
        double p = double(pv);
        TC_CHECK_ARG(p >= 0.0 && p <= 1.0, "bernoulli: argument 'self' expected probabilities in [0, 1], got ", p,
                     " at element ", i);
        o[i] = scalar_t(double(r.next32()) * 0x1p-32 < p ? 1.0f : 0.0f);
      });
    });
  });
  return out;
}

Tensor randint_low_cpu(int64_t low, int64_t high, IntArrayRef size, std::optional<Generator> generator,
                       std::optional<ScalarType> dtype, std::optional<Device> device) {
  Device dev = cpu_device("randint", device);
  const structured::RandintPlan plan = structured::randint_meta(low, high, size, dtype);
  Tensor t = empty_tensor(size, plan.dtype, dev);
  const uint64_t range = plan.range;
  const int words = plan.words;
  PhiloxState st = reserve(gen_of(generator), t.numel(), words);
  TC_DISPATCH_ALL_TYPES_AND_BOOL(plan.dtype, "randint", [&] {
    fill_random<scalar_t>(t, st, words, [&](WordReader& r) {
      uint64_t x = words == 2 ? r.next64() : r.next32();
      return scalar_t(offset_from(low, x % range));
    });
  });
  return t;
}

Tensor randint_cpu(int64_t high, IntArrayRef size, std::optional<Generator> generator, std::optional<ScalarType> dtype,
                   std::optional<Device> device) {
  return randint_low_cpu(0, high, size, generator, dtype, device);
}

// Fisher-Yates on int64 (serial: each swap depends on the previous ones).
// Step i draws word(s) i of the stream.
Tensor randperm_cpu(int64_t n, std::optional<Generator> generator, std::optional<ScalarType> dtype,
                    std::optional<Device> device) {
  Device dev = cpu_device("randperm", device);
  TC_CHECK_ARG(n >= 0, "randperm: argument 'n' expected a non-negative number, got ", n);
  ScalarType dt = dtype.value_or(ScalarType::Int64);
  TC_CHECK_TYPE(dt != ScalarType::Bool, "randperm: argument 'dtype' expected a numeric dtype, got bool");
  TC_DISPATCH_ALL_TYPES(dt, "randperm", [&] {
    double limit;  // the largest n - 1 the dtype holds exactly
    if constexpr (std::is_integral_v<scalar_t>)
      limit = double(std::numeric_limits<scalar_t>::max());
    else
      limit = std::ldexp(1.0, FloatTraits<scalar_t>::digits);
    TC_CHECK_ARG(n == 0 || double(n - 1) <= limit, "randperm: argument 'n' (", n, ") is too large for ", dt,
                 " (expected n <= ", limit + 1, ")");
  });
  Tensor t = empty_tensor({n}, dt, dev);
  const int words = uint64_t(n) > (uint64_t(1) << 32) ? 2 : 1;
  PhiloxState st = reserve(gen_of(generator), n, words);
  std::vector<int64_t> tmp;
  int64_t* r = dt == ScalarType::Int64 ? t.data_ptr<int64_t>() : (tmp.resize(size_t(n)), tmp.data());
  std::iota(r, r + n, int64_t(0));
  WordReader rd(st, 0, uint64_t(std::max<int64_t>(n - 1, 0)) * uint64_t(words));
  for (int64_t i = 0; i + 1 < n; ++i) {
    uint64_t x = words == 2 ? rd.next64() : rd.next32();
    std::swap(r[i], r[i + int64_t(x % uint64_t(n - i))]);
  }
  if (dt != ScalarType::Int64) {
    TC_DISPATCH_ALL_TYPES(dt, "randperm", [&] {
      auto* o = t.data_ptr<scalar_t>();
      for (int64_t i = 0; i < n; ++i) o[i] = scalar_t(r[i]);
    });
  }
  return t;
}

}  // namespace tc::native
