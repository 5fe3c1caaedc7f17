// SPDX-License-Identifier: BSD-3-Clause
// Accuracy of the float32/float64 transcendental unary ops, which run on
// SLEEF's vector functions (src/cpu/vec_math.h), in ULPs against a long
// double libm reference (64-bit mantissa: its own error is far below a
// float64 ulp).
//
// For each op and dtype the inputs are a dense grid and uniform samples over
// the op's interesting range, random bit patterns over all finite values
// (huge, tiny and subnormal arguments, out-of-domain ones), and specials:
// +-0, +-inf, NaN, +-denorm_min, +-FLT/DBL_MIN and _MAX, and the domain
// boundaries with their neighbours. Checked:
//   - the tensorc op (tc::tanh... on a contiguous tensor whose length leaves a
//     tail): max ULP error <= the op's bound, NaN exactly where the reference
//     is NaN, and for the special inputs the same value as std:: (sign of
//     zero included);
//   - every ISA variant this CPU runs (SSE2, AVX2, AVX-512), called directly:
//     the same bounds;
//   - strided, in-place and out= calls give the contiguous result bit for bit.
// ULP error: |got - ref| / ulp(ref), ulp at ref's binade in the dtype
// (subnormal spacing below the normal range). A result that overflows to
// inf counts as exact when the reference is beyond the dtype's max.
// The gelu forms are measured in ulps of max(|gelu(x)|, |x| / 2): their
// tails for x < 0 are tiny values whose relative accuracy is bounded by the
// rounding of x itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "cpu/isa.h"
#include "cpu/vec_math.h"
#include "tensorc_gen/ops.h"

using namespace tc;
using cpu::Isa;
using cpu::VecOp;

namespace {

using LD = long double;
constexpr double kHuge = 1e30;  // the error of a wrong NaN / inf / sign

struct Range {
  double lo, hi;
};

struct OpCase {
  VecOp op;
  const char* name;
  std::function<Tensor(const Tensor&)> fn;  // the tensorc op
  LD (*ref)(LD);                            // the exact function, in long double
  float (*std_f)(float);                    // what the specials must match
  double (*std_d)(double);
  Range r32, r64;             // where the grid and the uniform samples lie
  std::vector<double> edges;  // domain boundaries (also taken with neighbours)
  double bound32, bound64;    // max ULP error allowed
  bool gelu_scale = false;    // error in ulps of max(|ref|, |x| / 2)
};

// Scalar formulas of the composites, as src/cpu/unary.cpp writes them, for
// the special-value check.
template <class T>
T sigmoid_std(T x) {
  return T(1) / (T(1) + std::exp(-x));
}
template <class T>
T gelu_erf_std(T x) {
  return x * T(0.5) * (T(1) + std::erf(x * T(M_SQRT1_2)));
}
template <class T>
T gelu_tanh_std(T x) {
  const T beta = T(M_SQRT2 * M_2_SQRTPI * 0.5), kappa = T(0.044715);
  return T(0.5) * x * (T(1) + std::tanh(beta * (x + kappa * x * x * x)));
}

LD gelu_erf_ref(LD x) { return 0.5L * x * std::erfc(-x / std::sqrt(2.0L)); }
LD gelu_tanh_ref(LD x) {
  const LD beta = std::sqrt(2.0L / 3.14159265358979323846264338327950288L), kappa = 0.044715L;
  return 0.5L * x * (1.0L + std::tanh(beta * (x + kappa * x * x * x)));
}

// Bounds. SLEEF's u10 functions promise 1.0 ulp; tanh, atanh, asinh, tan
// and log1p reach exactly 1 ulp (plus the reference's hair) at tiny and
// subnormal arguments, hence 1.001. erf: 1.5 (the SSE2 variant, without FMA,
// reaches 1.42 ulp just above FLT_MIN). The composites round a few times
// after SLEEF's exp / erfc (u15) / tanh: 2.5.
constexpr double kU10 = 1.001;

#define TC_STD_CASE(op, fn)                                                                         \
  VecOp::op, #fn, [](const Tensor& x) { return tc::fn(x); }, [](LD x) -> LD { return std::fn(x); }, \
      [](float x) { return std::fn(x); }, [](double x) { return std::fn(x); }

const std::vector<OpCase>& cases() {
  static const std::vector<OpCase> c = {
      {TC_STD_CASE(Exp, exp), {-104, 89}, {-746, 710}, {0}, kU10, kU10},
      {TC_STD_CASE(Expm1, expm1), {-20, 89}, {-40, 710}, {0}, kU10, kU10},
      {TC_STD_CASE(Log, log), {0, 10}, {0, 10}, {0, 1}, kU10, kU10},
      {TC_STD_CASE(Log1p, log1p), {-1, 10}, {-1, 10}, {-1, 0}, kU10, kU10},
      {TC_STD_CASE(Log2, log2), {0, 10}, {0, 10}, {0, 1}, kU10, kU10},
      {TC_STD_CASE(Log10, log10), {0, 10}, {0, 10}, {0, 1}, kU10, kU10},
      {TC_STD_CASE(Sin, sin), {-100, 100}, {-100, 100}, {0}, kU10, kU10},
      {TC_STD_CASE(Cos, cos), {-100, 100}, {-100, 100}, {0}, kU10, kU10},
      {TC_STD_CASE(Tan, tan), {-100, 100}, {-100, 100}, {0}, kU10, kU10},
      {TC_STD_CASE(Asin, asin), {-1, 1}, {-1, 1}, {-1, 0, 1}, kU10, kU10},
      {TC_STD_CASE(Acos, acos), {-1, 1}, {-1, 1}, {-1, 0, 1}, kU10, kU10},
      {TC_STD_CASE(Atan, atan), {-10, 10}, {-10, 10}, {0}, kU10, kU10},
      {TC_STD_CASE(Sinh, sinh), {-90, 90}, {-711, 711}, {0}, kU10, kU10},
      {TC_STD_CASE(Cosh, cosh), {-90, 90}, {-711, 711}, {0}, kU10, kU10},
      {TC_STD_CASE(Tanh, tanh), {-10, 10}, {-20, 20}, {0}, kU10, kU10},
      {TC_STD_CASE(Erf, erf), {-5, 5}, {-7, 7}, {0}, 1.5, 1.5},
      {TC_STD_CASE(Asinh, asinh), {-10, 10}, {-10, 10}, {0}, kU10, kU10},
      {TC_STD_CASE(Acosh, acosh), {1, 10}, {1, 10}, {1}, kU10, kU10},
      {TC_STD_CASE(Atanh, atanh), {-1, 1}, {-1, 1}, {-1, 0, 1}, kU10, kU10},
      {VecOp::Sigmoid,
       "sigmoid",
       [](const Tensor& x) { return tc::sigmoid(x); },
       [](LD x) -> LD { return 1.0L / (1.0L + std::exp(-x)); },
       sigmoid_std<float>,
       sigmoid_std<double>,
       {-110, 30},
       {-750, 50},
       {0},
       2,
       2},
      {VecOp::GeluErf,
       "gelu",
       [](const Tensor& x) { return tc::gelu(x, "none"); },
       gelu_erf_ref,
       gelu_erf_std<float>,
       gelu_erf_std<double>,
       {-15, 10},
       {-40, 10},
       {0},
       3,
       3,
       true},
      {VecOp::GeluTanh,
       "gelu(tanh)",
       [](const Tensor& x) { return tc::gelu(x, "tanh"); },
       gelu_tanh_ref,
       gelu_tanh_std<float>,
       gelu_tanh_std<double>,
       {-15, 10},
       {-40, 10},
       {0},
       3,
       3,
       true},
  };
  return c;
}

template <class T>
constexpr ScalarType dtype_of() {
  return std::is_same_v<T, float> ? ScalarType::Float32 : ScalarType::Float64;
}

// The inputs of one op in dtype T (deterministic).
template <class T>
std::vector<T> inputs(const OpCase& c) {
  using lim = std::numeric_limits<T>;
  std::vector<T> v = {T(0),
                      T(-0.0),
                      lim::infinity(),
                      -lim::infinity(),
                      lim::quiet_NaN(),
                      lim::denorm_min(),
                      -lim::denorm_min(),
                      lim::min(),
                      -lim::min(),
                      lim::max(),
                      -lim::max(),
                      T(1),
                      T(-1),
                      T(0.5),
                      T(-0.5)};
  for (double e : c.edges) {
    v.push_back(T(e));
    v.push_back(std::nextafter(T(e), lim::infinity()));
    v.push_back(std::nextafter(T(e), -lim::infinity()));
  }
  const Range r = std::is_same_v<T, float> ? c.r32 : c.r64;
  constexpr int kGrid = 1 << 15, kUniform = 1 << 15, kBits = 1 << 15;
  for (int i = 0; i <= kGrid; ++i) v.push_back(T(r.lo + (r.hi - r.lo) * double(i) / kGrid));
  std::mt19937_64 rng(0x5EEF + unsigned(c.op));
  std::uniform_real_distribution<double> u(r.lo, r.hi);
  for (int i = 0; i < kUniform; ++i) v.push_back(T(u(rng)));
  using Bits = std::conditional_t<std::is_same_v<T, float>, uint32_t, uint64_t>;
  while (int(v.size()) < kGrid + kUniform + kBits) {
    const Bits b = Bits(rng());
    T x;
    std::memcpy(&x, &b, sizeof x);
    if (std::isfinite(x)) v.push_back(x);
  }
  if (v.size() % 64 == 0) v.push_back(T(0.25));  // a tail for every vector width
  v.push_back(T(0.75));
  return v;
}

bool same(double a, double b) { return std::isnan(a) ? std::isnan(b) : a == b && std::signbit(a) == std::signbit(b); }

template <class T>
double ulp_error(T x, T got, LD ref, bool gelu_scale) {
  using lim = std::numeric_limits<T>;
  if (std::isnan(ref) || std::isnan(got)) return std::isnan(ref) && std::isnan(got) ? 0 : kHuge;
  if (std::isinf(got)) return std::signbit(got) == std::signbit(ref) && std::fabs(ref) > LD(lim::max()) ? 0 : kHuge;
  if (std::isinf(ref)) return kHuge;
  LD mag = std::fabs(ref);
  if (gelu_scale) mag = std::max(mag, std::fabs(LD(x)) / 2);
  int e = lim::min_exponent;
  if (mag > 0) {
    std::frexp(mag, &e);
    e = std::max(e, lim::min_exponent);
  }
  const LD ulp = std::ldexp(1.0L, e - lim::digits);
  return double(std::fabs(LD(got) - ref) / ulp);
}

struct Stats {
  double max_ulp = 0;
  double worst_x = 0, worst_got = 0;
  long double worst_ref = 0;
  int special_mismatch = 0;
  std::string first_special;
};

// Errors of `got` (for `x`) against the reference, and the specials against std::.
template <class T>
Stats measure(const OpCase& c, const std::vector<T>& x, const T* got, const std::vector<LD>& ref) {
  Stats s;
  for (size_t i = 0; i < x.size(); ++i) {
    const double err = ulp_error(x[i], got[i], ref[i], c.gelu_scale);
    if (err > s.max_ulp || std::isnan(err)) {
      s.max_ulp = err;
      s.worst_x = double(x[i]);
      s.worst_got = double(got[i]);
      s.worst_ref = ref[i];
    }
  }
  // The first 15 inputs and the edges with their neighbours are the specials.
  const size_t nspecial = 15 + 3 * c.edges.size();
  for (size_t i = 0; i < nspecial; ++i) {
    const T want = std::is_same_v<T, float> ? T(c.std_f(float(x[i]))) : T(c.std_d(double(x[i])));
    const bool exact_kind =
        std::isnan(want) || std::isinf(want) || want == 0 || std::isnan(x[i]) || std::isinf(x[i]) || x[i] == 0;
    if (exact_kind && !same(double(got[i]), double(want))) {
      if (s.special_mismatch++ == 0) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "x=%.9g: got %.9g, std:: %.9g", double(x[i]), double(got[i]), double(want));
        s.first_special = buf;
      }
    }
  }
  return s;
}

template <class T>
Tensor tensor_of(const std::vector<T>& v) {
  Tensor t = empty_tensor({int64_t(v.size())}, dtype_of<T>());
  if (!v.empty()) std::memcpy(t.data_ptr(), v.data(), v.size() * sizeof(T));  // empty: null pointers
  return t;
}

template <class T>
std::vector<T> contents(const Tensor& t) {
  EXPECT_EQ(t.dtype(), dtype_of<T>());
  std::vector<T> out(size_t(t.numel()));
  if (out.empty()) {
  } else if (t.is_contiguous()) {
    std::memcpy(out.data(), t.data_ptr(), out.size() * sizeof(T));
  } else {
    for (int64_t i = 0; i < t.numel(); ++i) out[size_t(i)] = T(read_element(t, i).to_double());
  }
  return out;
}

// Bitwise comparison (NaN payloads aside).
template <class T>
int64_t count_diff(const std::vector<T>& a, const std::vector<T>& b) {
  int64_t d = 0;
  for (size_t i = 0; i < a.size(); ++i) d += !same(double(a[i]), double(b[i]));
  return d;
}

const char* isa_name(Isa i) { return i == Isa::Avx512 ? "avx512" : i == Isa::Avx2 ? "avx2" : "sse2"; }

template <class T>
void check_op(const OpCase& c) {
  const char* tn = std::is_same_v<T, float> ? "float32" : "float64";
  const double bound = std::is_same_v<T, float> ? c.bound32 : c.bound64;
  SCOPED_TRACE(std::string(c.name) + " " + tn);
  const std::vector<T> x = inputs<T>(c);
  std::vector<LD> ref(x.size());
  for (size_t i = 0; i < x.size(); ++i) ref[i] = c.ref(LD(x[i]));

  // The tensorc op, contiguous.
  const Tensor in = tensor_of(x);
  const std::vector<T> got = contents<T>(c.fn(in));
  ASSERT_EQ(got.size(), x.size());
  const Stats s = measure(c, x, got.data(), ref);
  std::printf("[ ulp ] %-10s %s  tensorc (%s): max %.4f ulp at x=%.17g (got %.17g, ref %.20Lg)\n", c.name, tn,
              isa_name(cpu::isa()), s.max_ulp, s.worst_x, s.worst_got, s.worst_ref);
  EXPECT_LE(s.max_ulp, bound) << "worst x=" << s.worst_x << " got " << s.worst_got << " ref " << double(s.worst_ref);
  EXPECT_EQ(s.special_mismatch, 0) << s.first_special;

  // Every ISA variant this CPU runs, called directly.
  for (Isa isa : {Isa::Baseline, Isa::Avx2, Isa::Avx512}) {
    if (int(isa) > int(cpu::isa())) continue;
    const cpu::VecUnaryFn<T> f = cpu::vec_unary_fn<T>(c.op, isa);
    if (!f) continue;
    std::vector<T> out(x.size());
    f(x.data(), out.data(), int64_t(x.size()));
    const Stats si = measure(c, x, out.data(), ref);
    if (isa != cpu::isa())
      std::printf("[ ulp ] %-10s %s  %-7s direct: max %.4f ulp at x=%.17g\n", c.name, tn, isa_name(isa), si.max_ulp,
                  si.worst_x);
    EXPECT_LE(si.max_ulp, bound) << isa_name(isa) << " worst x=" << si.worst_x;
    EXPECT_EQ(si.special_mismatch, 0) << isa_name(isa) << ": " << si.first_special;
    if (isa == cpu::isa()) {
      EXPECT_EQ(count_diff(out, got), 0) << "the op does not use the selected variant";
    }
  }

  // Strided input (every other element of a buffer): the same bits.
  std::vector<T> wide(2 * x.size(), T(7));
  for (size_t i = 0; i < x.size(); ++i) wide[2 * i] = x[i];
  const Tensor strided = make_view(tensor_of(wide), {int64_t(x.size())}, {2}, 0);
  EXPECT_EQ(count_diff(contents<T>(c.fn(strided)), got), 0) << "strided input";
}

class VecMath : public ::testing::TestWithParam<size_t> {};

TEST_P(VecMath, Float32) { check_op<float>(cases()[GetParam()]); }
TEST_P(VecMath, Float64) { check_op<double>(cases()[GetParam()]); }

INSTANTIATE_TEST_SUITE_P(Ops, VecMath, ::testing::Range(size_t(0), cases().size()),
                         [](const ::testing::TestParamInfo<size_t>& i) {
                           std::string n = cpu::vec_op_name(cases()[i.param].op);
                           return n;
                         });

TEST(VecMathTable, EveryOpHasAName) {
  for (int i = 0; i < int(VecOp::kCount); ++i) EXPECT_STRNE(cpu::vec_op_name(VecOp(i)), "?") << i;
  EXPECT_EQ(cases().size(), size_t(VecOp::kCount));
  for (size_t i = 0; i < cases().size(); ++i) EXPECT_EQ(size_t(cases()[i].op), i) << cases()[i].name;
}

// In-place and out= take the same loop: the same bits as the functional op,
// for every length up to a few vectors (all tail shapes).
TEST(VecMathTable, InPlaceOutAndShortLengthsMatch) {
  for (int64_t n = 0; n <= 40; ++n) {
    std::vector<float> xf(static_cast<size_t>(n));
    std::vector<double> xd(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) xd[size_t(i)] = xf[size_t(i)] = float(-3.0 + 0.37 * double(i));
    for (int dt = 0; dt < 2; ++dt) {
      const Tensor x = dt ? tensor_of(xd) : tensor_of(xf);
      const Tensor want = tc::tanh(x);
      Tensor inplace = x.clone();
      tc::tanh_(inplace);
      Tensor out = empty_tensor({n}, x.dtype());
      tc::tanh_out(out, x);
      if (dt) {
        EXPECT_EQ(count_diff(contents<double>(inplace), contents<double>(want)), 0) << n;
        EXPECT_EQ(count_diff(contents<double>(out), contents<double>(want)), 0) << n;
        for (int64_t i = 0; i < n; ++i)
          EXPECT_LE(ulp_error(xd[size_t(i)], contents<double>(want)[size_t(i)], std::tanh(LD(xd[size_t(i)])), false),
                    1.0);
      } else {
        EXPECT_EQ(count_diff(contents<float>(inplace), contents<float>(want)), 0) << n;
        EXPECT_EQ(count_diff(contents<float>(out), contents<float>(want)), 0) << n;
      }
    }
  }
}

// Float16 and BFloat16 keep their scalar loops in float.
TEST(VecMathTable, ReducedFloatsUnchanged) {
  Tensor h = empty_tensor({3}, ScalarType::Float16);
  const float v[3] = {0.5f, -1.0f, 2.0f};
  for (int64_t i = 0; i < 3; ++i)
    write_scalar(static_cast<char*>(h.data_ptr()) + i * 2, ScalarType::Float16, Scalar(double(v[i])));
  const Tensor r = tc::tanh(h);
  EXPECT_EQ(r.dtype(), ScalarType::Float16);
  for (int64_t i = 0; i < 3; ++i) EXPECT_NEAR(read_element(r, i).to_double(), std::tanh(double(v[i])), 1e-3) << i;
}

}  // namespace
