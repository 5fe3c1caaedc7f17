// SPDX-License-Identifier: BSD-3-Clause
// src/core/philox.h is what the CUDA random kernels compute per element; the
// CPU kernels read the same stream sequentially. Here the header's draws,
// run on the host, must give exactly what the CPU kernels wrote (every
// floating dtype, contiguous and transposed, uniform, normal and bernoulli),
// and the generator must advance by the counters the header says a fill
// reserves, so the two devices stay on one stream.
#include <gtest/gtest.h>

#include <cmath>

#include "core/generator.h"
#include "core/philox.h"
#include "core/tensor.h"
#include "structured/random.h"
#include "tensorc_gen/ops.h"

namespace {

using namespace tc;

double element(const Tensor& t, int64_t i) { return read_element(t, i).to_double(); }

struct Start {
  uint64_t key, counter;
};
Start state(const Generator& g) { return {g->seed(), g->offset()}; }

// The value the header gives element i, rounded to dtype as the kernels store it.
double rounded(double v, ScalarType dt) {
  return tc::_to_copy(tc::full({}, Scalar(v), ScalarType::Float64), dt).item().to_double();
}

class PhiloxDraws : public ::testing::TestWithParam<ScalarType> {};

TEST_P(PhiloxDraws, UniformMatchesTheCpuKernel) {
  const ScalarType dt = GetParam();
  Generator g = Generator::create(1234);
  g->set_offset(77);
  for (bool transposed : {false, true}) {
    Tensor t = transposed ? tc::t(tc::empty({13, 7}, dt)) : tc::empty({7, 13}, dt);
    const Start s = state(g);
    tc::uniform_(t, -2.0, 3.0, g);
    const int digits = structured::uniform_digits(dt);
    const bool dbl = dt == ScalarType::Float64;
    for (int64_t i = 0; i < t.numel(); ++i) {
      const double want = dbl ? philox::uniform<double>(s.key, s.counter, uint64_t(i), digits, -2.0, 5.0)
                              : double(philox::uniform<float>(s.key, s.counter, uint64_t(i), digits, -2.0f, 5.0f));
      ASSERT_EQ(element(t, i), rounded(want, dt)) << "element " << i << (transposed ? " (transposed)" : "");
    }
    const uint64_t words = digits > 32 ? 2 : 1;
    EXPECT_EQ(g->offset(), s.counter + (uint64_t(t.numel()) * words + 3) / 4);
  }
}

TEST_P(PhiloxDraws, NormalMatchesTheCpuKernel) {
  const ScalarType dt = GetParam();
  Generator g = Generator::create(99);
  for (bool transposed : {false, true}) {
    Tensor t = transposed ? tc::t(tc::empty({5, 9}, dt)) : tc::empty({9, 5}, dt);  // odd count: a half pair
    const Start s = state(g);
    tc::normal_(t, 0.5, 2.0, g);
    const bool dbl = dt == ScalarType::Float64;
    for (int64_t i = 0; i < t.numel(); ++i) {
      double want;
      if (dbl) {
        double u1, u2;
        philox::normal_uniforms<double>(s.key, s.counter, uint64_t(i / 2), &u1, &u2);
        const double rad = std::sqrt(-2.0 * std::log(u1)), a = 6.283185307179586 * u2;
        want = 0.5 + 2.0 * ((i & 1) ? std::sin(a) * rad : std::cos(a) * rad);
      } else {
        float u1, u2;
        philox::normal_uniforms<float>(s.key, s.counter, uint64_t(i / 2), &u1, &u2);
        const float rad = std::sqrt(-2.0f * std::log(u1)), a = 6.283185307179586f * u2;
        want = double(0.5f + 2.0f * ((i & 1) ? std::sin(a) * rad : std::cos(a) * rad));
      }
      // The CPU's sincos and the header's sin/cos may differ in the last bit,
      // which can move a rounding to float16/bfloat16 by one of their steps.
      const double tol = dbl ? 1e-12 : dt == ScalarType::BFloat16 ? 0.07 : dt == ScalarType::Float16 ? 8e-3 : 1e-5;
      ASSERT_NEAR(element(t, i), rounded(want, dt), tol) << "element " << i;
    }
    EXPECT_EQ(g->offset(), s.counter + philox::normal_counters(t.numel(), dbl));
  }
}

INSTANTIATE_TEST_SUITE_P(FloatingDtypes, PhiloxDraws,
                         ::testing::Values(ScalarType::Float32, ScalarType::Float64, ScalarType::Float16,
                                           ScalarType::BFloat16));

TEST(PhiloxDrawsBernoulli, MatchesTheCpuKernel) {
  Generator g = Generator::create(5);
  for (ScalarType dt : {ScalarType::Bool, ScalarType::Float32, ScalarType::Int64}) {
    Tensor t = tc::empty({301}, dt);
    const Start s = state(g);
    tc::bernoulli_(t, 0.3, g);
    for (int64_t i = 0; i < t.numel(); ++i)
      ASSERT_EQ(element(t, i), philox::bernoulli(s.key, s.counter, uint64_t(i), 0.3) ? 1.0 : 0.0) << i;
    EXPECT_EQ(g->offset(), s.counter + (301 + 3) / 4);
  }
}

// randint: one word per element for a span up to 2^32, two past it (a span
// wider than INT64_MAX too), in every kind of dtype the CUDA kernel stores.
TEST(PhiloxDrawsRandint, MatchesTheCpuKernel) {
  struct Case {
    int64_t low, high;
    ScalarType dt;
  };
  const Case cases[] = {{-3, 17, ScalarType::Int64},
                        {0, 2, ScalarType::Bool},
                        {-100, 100, ScalarType::Int8},
                        {5, 1000, ScalarType::Float32},
                        {-(int64_t(1) << 30), int64_t(1) << 30, ScalarType::BFloat16},  // rounds twice, via float
                        {-(int64_t(1) << 40), int64_t(1) << 41, ScalarType::Int64},
                        {INT64_MIN, INT64_MAX, ScalarType::Int64}};
  Generator g = Generator::create(8);
  for (const Case& c : cases) {
    const structured::RandintPlan plan = structured::randint_meta(c.low, c.high, {7, 9}, c.dt);
    const Start s = state(g);
    const Tensor t = tc::randint(c.low, c.high, {7, 9}, g, c.dt);
    for (int64_t i = 0; i < t.numel(); ++i) {
      const int64_t want = philox::integer(s.key, s.counter, uint64_t(i), plan.words, c.low, plan.range);
      // The kernels convert int64 as C++ does: through float for the half types.
      const bool half = c.dt == ScalarType::BFloat16 || c.dt == ScalarType::Float16;
      const double w = half ? double(float(want)) : double(want);
      ASSERT_EQ(read_element(t, i).to_double(), rounded(w, c.dt)) << c.low << ".." << c.high << " " << i;
    }
    EXPECT_EQ(plan.words, plan.range > (uint64_t(1) << 32) ? 2 : 1);
    EXPECT_EQ(g->offset(), s.counter + (uint64_t(t.numel()) * uint64_t(plan.words) + 3) / 4);
  }
}

// bernoulli with a tensor of probabilities, contiguous and transposed.
TEST(PhiloxDrawsBernoulli, WithProbabilitiesMatchesTheCpuKernel) {
  Generator g = Generator::create(6);
  for (bool transposed : {false, true}) {
    Tensor p = tc::rand({11, 5}, g, ScalarType::Float64);
    if (transposed) p = tc::t(p);
    const Start s = state(g);
    const Tensor t = tc::bernoulli(p, g);
    for (int64_t i = 0; i < t.numel(); ++i)
      ASSERT_EQ(element(t, i), philox::fraction(s.key, s.counter, uint64_t(i)) < element(p, i) ? 1.0 : 0.0) << i;
    EXPECT_EQ(g->offset(), s.counter + (55 + 3) / 4);
  }
}

TEST(PhiloxDrawsBlock, TheSharedBlockIsTheGeneratorsBlock) {
  uint32_t a[4], b[4 * 3];
  Philox4x32::generate_blocks(41, 0x1234567890abcdefULL, 3, b);
  for (int k = 0; k < 3; ++k) {
    philox::generate(41 + uint64_t(k), 0x1234567890abcdefULL, a);
    for (int j = 0; j < 4; ++j) EXPECT_EQ(a[j], b[4 * k + j]);
  }
  // Random123's known answer for Philox4x32-10, counter and key all zero.
  uint32_t zero[4] = {0, 0, 0, 0};
  philox::block(zero, 0, 0);
  EXPECT_EQ(zero[0], 0x6627e8d5u);
  EXPECT_EQ(zero[1], 0xe169c58du);
  EXPECT_EQ(zero[2], 0xbc57ac4cu);
  EXPECT_EQ(zero[3], 0x9b00dbd8u);
}

}  // namespace
