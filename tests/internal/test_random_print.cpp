// SPDX-License-Identifier: BSD-3-Clause
// Generator (Philox), random kernels, factory kernels and printing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/generator.h"
#include "core/parallel.h"
#include "core/tensor.h"
#include "tensorc_gen/native_functions.h"  // the kernels under test

namespace tc::native {
using OptDt = std::optional<ScalarType>;
using OptDev = std::optional<Device>;
using OptGen = std::optional<Generator>;
}  // namespace tc::native

namespace tc {
// Defined in core/print.cpp.
using PrintHostCopyFn = Tensor (*)(const Tensor&);
void set_print_host_copy(DeviceType type, PrintHostCopyFn fn);
}  // namespace tc

namespace {

using namespace tc;
using namespace tc::native;
const std::nullopt_t none = std::nullopt;

// A tensor holding `v` (converted to dtype), contiguous, of shape `shape`.
Tensor make(const std::vector<double>& v, std::vector<int64_t> shape, ScalarType dt) {
  Tensor t = empty_tensor(shape, dt);
  char* p = static_cast<char*>(t.data_ptr());
  for (size_t i = 0; i < v.size(); ++i) {
    Scalar s = dt == ScalarType::Bool   ? Scalar(v[i] != 0)
               : is_integral(dt, false) ? Scalar(int64_t(v[i]))
                                        : Scalar(v[i]);
    write_scalar(p + i * t.element_size(), dt, s);
  }
  return t;
}

std::vector<double> values(const Tensor& t) {
  std::vector<double> out(size_t(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) out[size_t(i)] = read_element(t, i).to_double();
  return out;
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.numel() == b.numel() && a.dtype() == b.dtype() &&
         std::memcmp(a.data_ptr(), b.data_ptr(), size_t(a.numel()) * a.element_size()) == 0;
}

void expect_error(const std::function<void()>& f, ErrorCode code, const std::vector<std::string>& needles) {
  try {
    f();
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(int(e.code()), int(code)) << e.what();
    for (const auto& n : needles) EXPECT_NE(std::string(e.what()).find(n), std::string::npos) << e.what();
  }
}

void mean_std(const Tensor& t, double* mean, double* sd) {
  std::vector<double> v = values(t);
  double m = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size()), s2 = 0;
  for (double x : v) s2 += (x - m) * (x - m);
  *mean = m;
  *sd = std::sqrt(s2 / double(v.size()));
}

// Runs f once with 1 thread and once with 2, restoring the thread count.
template <class F>
std::pair<Tensor, Tensor> with_1_and_2_threads(F f) {
  int saved = get_num_threads();
  set_num_threads(1);
  Tensor a = f();
  set_num_threads(2);
  Tensor b = f();
  set_num_threads(saved);
  return {a, b};
}

// ---- Philox and the generator ------------------------------------------------

TEST(Philox, Random123KnownAnswers) {
  struct Kat {
    uint32_t ctr[4], key[2], out[4];
  };
  const Kat kats[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Kat& k : kats) {
    uint32_t out[4];
    Philox4x32::block(k.ctr, k.key, out);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], k.out[i]) << "word " << i;
  }
  uint32_t out[4];
  Philox4x32::generate(0, 0, out);
  EXPECT_EQ(out[0], 0x6627e8d5u);
  EXPECT_EQ(out[3], 0x9b00dbd8u);
}

TEST(Generator, SeedOffsetReserve) {
  Generator g = Generator::create(5);
  EXPECT_EQ(g->seed(), 5u);
  EXPECT_EQ(g->reserve(3), 0u);
  EXPECT_EQ(g->reserve(2), 3u);
  EXPECT_EQ(g->offset(), 5u);
  PhiloxState s = g->reserve_state(1);
  EXPECT_EQ(s.key, 5u);
  EXPECT_EQ(s.counter, 5u);
  g->set_seed(9);
  EXPECT_EQ(g->offset(), 0u);
  g->set_offset(42);
  EXPECT_EQ(g->reserve(1), 42u);
}

TEST(Generator, DefaultIsProcessWide) {
  EXPECT_EQ(default_generator().impl(), default_generator().impl());
  manual_seed(kDefaultRngSeed);
  EXPECT_EQ(default_generator()->seed(), 67280421310721u);
  EXPECT_EQ(generator_or_default(nullptr), default_generator().impl());
  Generator none_given;
  EXPECT_EQ(generator_or_default(&none_given), default_generator().impl());
}

TEST(Generator, ConsumesCountersPerElement) {
  Generator g = Generator::create(1);
  rand_cpu({10}, g, none, none);  // float32: 1 word each, 10 words -> 3 counters
  EXPECT_EQ(g->offset(), 3u);
  rand_cpu({10}, g, ScalarType::Float64, none);  // 2 words each -> 5 counters
  EXPECT_EQ(g->offset(), 8u);
}

// ---- determinism ---------------------------------------------------------------

TEST(RandomDeterminism, SameSeedSameNumbers) {
  manual_seed(123);
  Tensor a = rand_cpu({1000}, none, none, none);
  manual_seed(123);
  Tensor b = rand_cpu({1000}, none, none, none);
  EXPECT_TRUE(same_bytes(a, b));
  Tensor c = rand_cpu({1000}, none, none, none);  // the stream moved on
  EXPECT_FALSE(same_bytes(a, c));
  Tensor d = rand_cpu({1000}, Generator::create(124), none, none);
  EXPECT_FALSE(same_bytes(a, d));
}

TEST(RandomDeterminism, IndependentOfThreadCount) {
  const int64_t n = 100001;  // odd, and many grains
  auto check = [&](const char* what, std::function<Tensor(Generator)> f) {
    auto [a, b] = with_1_and_2_threads([&] { return f(Generator::create(77)); });
    EXPECT_TRUE(same_bytes(a, b)) << what;
  };
  check("rand", [&](Generator g) { return rand_cpu({n}, g, none, none); });
  check("rand f64", [&](Generator g) { return rand_cpu({n}, g, ScalarType::Float64, none); });
  check("randn", [&](Generator g) { return randn_cpu({n}, g, none, none); });
  check("randn f64", [&](Generator g) { return randn_cpu({n}, g, ScalarType::Float64, none); });
  check("randint", [&](Generator g) { return randint_cpu(1000, {n}, g, none, none); });
  check("randperm", [&](Generator g) { return randperm_cpu(n, g, none, none); });
  check("bernoulli_", [&](Generator g) {
    Tensor t = empty_cpu({n}, none, none);
    return bernoulli_float_cpu_(t, 0.5, g);
  });
  check("bernoulli", [&](Generator g) { return bernoulli_cpu(full_cpu({n}, 0.25, none, none), g); });
}

TEST(RandomDeterminism, ElementsHaveFixedStreamPositions) {
  // Element i reads the same words whatever the tensor size (and so whatever
  // the chunking): a short tensor is a prefix of a long one.
  int saved = get_num_threads();
  set_num_threads(2);
  for (ScalarType dt : {ScalarType::Float32, ScalarType::Float64}) {
    Tensor big = randn_cpu({100001}, Generator::create(21), dt, none);
    Tensor small = randn_cpu({4097}, Generator::create(21), dt, none);
    EXPECT_EQ(std::memcmp(big.data_ptr(), small.data_ptr(), 4097 * big.element_size()), 0) << dt;
    big = rand_cpu({100001}, Generator::create(22), dt, none);
    small = rand_cpu({333}, Generator::create(22), dt, none);
    EXPECT_EQ(std::memcmp(big.data_ptr(), small.data_ptr(), 333 * big.element_size()), 0) << dt;
  }
  set_num_threads(saved);
}

TEST(RandomDeterminism, StridedSelfGetsTheLogicalStream) {
  // uniform_/normal_ into a transposed view give, in logical order, the values
  // a contiguous tensor of the same shape gets.
  for (bool normal : {false, true}) {
    Tensor a = empty_cpu({300, 201}, none, none);
    Tensor base = empty_cpu({201, 300}, none, none);
    Tensor bt = make_view(base, {300, 201}, {1, 300}, 0);
    ASSERT_FALSE(bt.is_contiguous());
    uint32_t v0 = base.version();
    if (normal) {
      normal_cpu_(a, 0, 1, Generator::create(3));
      normal_cpu_(bt, 0, 1, Generator::create(3));
    } else {
      uniform_cpu_(a, 0, 1, Generator::create(3));
      uniform_cpu_(bt, 0, 1, Generator::create(3));
    }
    EXPECT_EQ(values(a), values(bt)) << (normal ? "normal_" : "uniform_");
    EXPECT_GT(base.version(), v0);  // the view shares the base's counter
  }
}

// ---- distributions ---------------------------------------------------------------

TEST(RandomDistribution, Rand) {
  for (ScalarType dt : {ScalarType::Float32, ScalarType::Float64, ScalarType::Float16, ScalarType::BFloat16}) {
    Tensor t = rand_cpu({100000}, Generator::create(11), dt, none);
    EXPECT_EQ(t.dtype(), dt);
    std::vector<double> v = values(t);
    EXPECT_GE(*std::min_element(v.begin(), v.end()), 0.0) << dt;
    EXPECT_LT(*std::max_element(v.begin(), v.end()), 1.0) << dt;
    double m, s;
    mean_std(t, &m, &s);
    EXPECT_NEAR(m, 0.5, 0.01) << dt;
    EXPECT_NEAR(s, std::sqrt(1.0 / 12), 0.01) << dt;
  }
}

TEST(RandomDistribution, Randn) {
  for (ScalarType dt : {ScalarType::Float32, ScalarType::Float64, ScalarType::Float16, ScalarType::BFloat16}) {
    Tensor t = randn_cpu({100001}, Generator::create(12), dt, none);
    double m, s;
    mean_std(t, &m, &s);
    EXPECT_NEAR(m, 0.0, 0.02) << dt;
    EXPECT_NEAR(s, 1.0, 0.02) << dt;
  }
}

TEST(RandomDistribution, UniformNormalInPlace) {
  Tensor t = empty_cpu({100000}, ScalarType::Float64, none);
  uint32_t v0 = t.version();
  uniform_cpu_(t, -2, 6, Generator::create(1));
  EXPECT_EQ(t.version(), v0 + 1);
  std::vector<double> v = values(t);
  EXPECT_GE(*std::min_element(v.begin(), v.end()), -2.0);
  EXPECT_LT(*std::max_element(v.begin(), v.end()), 6.0);
  double m, s;
  mean_std(t, &m, &s);
  EXPECT_NEAR(m, 2.0, 0.05);
  EXPECT_NEAR(s, 8 / std::sqrt(12.0), 0.05);
  normal_cpu_(t, 3, 2, Generator::create(2));
  mean_std(t, &m, &s);
  EXPECT_NEAR(m, 3.0, 0.03);
  EXPECT_NEAR(s, 2.0, 0.03);
  normal_cpu_(t, 5, 0, Generator::create(2));  // std 0 is allowed: all equal mean
  EXPECT_EQ(values(t)[7], 5.0);
}

TEST(RandomDistribution, Bernoulli) {
  Tensor t = empty_cpu({100000}, none, none);
  bernoulli_float_cpu_(t, 0.3, Generator::create(4));
  double m, s;
  mean_std(t, &m, &s);
  EXPECT_NEAR(m, 0.3, 0.01);
  for (double x : values(t)) ASSERT_TRUE(x == 0.0 || x == 1.0);

  Tensor b = empty_cpu({64}, ScalarType::Bool, none);
  bernoulli_float_cpu_(b, 1.0, none);
  for (double x : values(b)) EXPECT_EQ(x, 1.0);
  Tensor i = empty_cpu({64}, ScalarType::Int32, none);
  bernoulli_float_cpu_(i, 0.0, none);
  for (double x : values(i)) EXPECT_EQ(x, 0.0);

  // Probabilities from a (non-contiguous) tensor: 0 and 1 are exact.
  Tensor p = make({0, 1, 0, 1, 0, 1}, {3, 2}, ScalarType::Float64);
  Tensor pt = make_view(p, {2, 3}, {1, 2}, 0);  // [[0,0,0],[1,1,1]]
  Tensor r = bernoulli_cpu(pt, Generator::create(5));
  EXPECT_EQ(r.dtype(), ScalarType::Float64);
  EXPECT_EQ(r.sizes(), pt.sizes());
  EXPECT_EQ(values(r), (std::vector<double>{0, 0, 0, 1, 1, 1}));
  Tensor half = bernoulli_cpu(full_cpu({100000}, 0.5, none, none), Generator::create(6));
  mean_std(half, &m, &s);
  EXPECT_NEAR(m, 0.5, 0.01);
}

TEST(RandomDistribution, RandintRange) {
  Tensor t = randint_low_cpu(-3, 5, {20000}, Generator::create(8), none, none);
  EXPECT_EQ(t.dtype(), ScalarType::Int64);
  std::set<double> seen;
  for (double x : values(t)) {
    ASSERT_GE(x, -3);
    ASSERT_LT(x, 5);
    seen.insert(x);
  }
  EXPECT_EQ(seen.size(), 8u);
  Tensor u = randint_cpu(256, {5000}, Generator::create(8), ScalarType::UInt8, none);
  std::set<double> useen;
  for (double x : values(u)) useen.insert(x);
  EXPECT_GT(useen.size(), 250u);
  Tensor b = randint_cpu(2, {100}, none, ScalarType::Bool, none);
  EXPECT_EQ(b.dtype(), ScalarType::Bool);
  // A range wider than 2^32 takes 64-bit draws.
  const int64_t lo = -(int64_t(1) << 62), hi = int64_t(1) << 62;
  Tensor w = randint_low_cpu(lo, hi, {1000}, Generator::create(9), none, none);
  bool big = false;
  for (int64_t i = 0; i < w.numel(); ++i) {
    int64_t x = read_element(w, i).to_int();
    ASSERT_GE(x, lo);
    ASSERT_LT(x, hi);
    big |= x > (int64_t(1) << 40) || x < -(int64_t(1) << 40);
  }
  EXPECT_TRUE(big);
  Tensor f = randint_cpu(10, {100}, none, ScalarType::Float32, none);
  for (double x : values(f)) EXPECT_EQ(x, std::floor(x));
}

TEST(RandomDistribution, RandpermIsAPermutation) {
  for (int64_t n : {0, 1, 2, 7, 1000, 70000}) {
    Tensor p = randperm_cpu(n, Generator::create(uint64_t(n)), none, none);
    EXPECT_EQ(p.dtype(), ScalarType::Int64);
    std::vector<double> v = values(p);
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    std::vector<double> iota(static_cast<size_t>(n));
    std::iota(iota.begin(), iota.end(), 0.0);
    EXPECT_EQ(sorted, iota) << n;
    if (n >= 1000) {
      EXPECT_NE(v, iota);
    }
  }
  Tensor p32 = randperm_cpu(100, none, ScalarType::Int32, none);
  EXPECT_EQ(p32.dtype(), ScalarType::Int32);
  Tensor ph = randperm_cpu(2049, none, ScalarType::Float16, none);
  std::vector<double> v = values(ph);
  std::sort(v.begin(), v.end());
  EXPECT_EQ(v.back(), 2048.0);
  EXPECT_EQ(randperm_cpu(128, none, ScalarType::Int8, none).numel(), 128);
}

TEST(RandomErrors, MessagesNameOpArgumentAndExpectation) {
  Tensor f = empty_cpu({4}, none, none);
  Tensor l = empty_cpu({4}, ScalarType::Int64, none);
  expect_error([&] { rand_cpu({-1}, none, none, none); }, ErrorCode::InvalidArgument, {"rand", "size"});
  expect_error([&] { rand_cpu({2}, none, ScalarType::Int64, none); }, ErrorCode::Type, {"rand", "dtype", "int64"});
  expect_error([&] { randn_cpu({2}, none, none, Device(DeviceType::CUDA, 0)); }, ErrorCode::Device,
               {"randn", "device", "cuda:0"});
  expect_error([&] { uniform_cpu_(f, 2, 1, none); }, ErrorCode::InvalidArgument, {"uniform_", "from", "to"});
  expect_error([&] { uniform_cpu_(l, 0, 1, none); }, ErrorCode::Type, {"uniform_", "self", "floating"});
  Tensor h = empty_cpu({4}, ScalarType::Float16, none);
  expect_error([&] { uniform_cpu_(h, 0, 1e6, none); }, ErrorCode::InvalidArgument, {"uniform_", "float16"});
  expect_error([&] { normal_cpu_(f, 0, -1, none); }, ErrorCode::InvalidArgument, {"normal_", "std", ">= 0"});
  expect_error([&] { bernoulli_float_cpu_(f, 1.5, none); }, ErrorCode::InvalidArgument,
               {"bernoulli_", "'p'", "[0, 1]"});
  expect_error([&] { bernoulli_float_cpu_(f, -0.1, none); }, ErrorCode::InvalidArgument, {"bernoulli_"});
  expect_error(
      [&] {
        bernoulli_cpu(make({0.5, 1.5}, {2}, ScalarType::Float32), none);
      },
      ErrorCode::InvalidArgument, {"bernoulli", "self", "[0, 1]"});
  expect_error([&] { bernoulli_cpu(l, none); }, ErrorCode::Type, {"bernoulli", "self"});
  expect_error([&] { randint_low_cpu(3, 3, {2}, none, none, none); }, ErrorCode::InvalidArgument,
               {"randint", "high", "low"});
  expect_error([&] { randint_cpu(300, {2}, none, ScalarType::UInt8, none); }, ErrorCode::InvalidArgument,
               {"randint", "high", "uint8"});
  expect_error([&] { randint_low_cpu(-1, 3, {2}, none, ScalarType::UInt8, none); }, ErrorCode::InvalidArgument,
               {"randint", "low", "uint8"});
  expect_error([&] { randint_cpu(3, {2}, none, ScalarType::Bool, none); }, ErrorCode::InvalidArgument,
               {"randint", "bool"});
  expect_error([&] { randperm_cpu(-1, none, none, none); }, ErrorCode::InvalidArgument, {"randperm", "'n'"});
  expect_error([&] { randperm_cpu(129, none, ScalarType::Int8, none); }, ErrorCode::InvalidArgument,
               {"randperm", "int8"});
  expect_error([&] { randperm_cpu(2050, none, ScalarType::Float16, none); }, ErrorCode::InvalidArgument,
               {"randperm", "float16"});
  expect_error([&] { randperm_cpu(3, none, ScalarType::Bool, none); }, ErrorCode::Type, {"randperm", "bool"});
  // An expanded self (stride 0) cannot be written element by element.
  Tensor one = empty_cpu({1}, none, none);
  Tensor expanded = make_view(one, {4}, {0}, 0);
  expect_error([&] { uniform_cpu_(expanded, 0, 1, none); }, ErrorCode::InvalidArgument, {"uniform_", "self"});
  // A failed in-place op leaves self untouched.
  Tensor z = zeros_cpu({4}, none, none);
  uint32_t v0 = z.version();
  expect_error([&] { normal_cpu_(z, 0, -1, none); }, ErrorCode::InvalidArgument, {"normal_"});
  EXPECT_EQ(z.version(), v0);
  EXPECT_EQ(values(z), (std::vector<double>{0, 0, 0, 0}));
}

// ---- factories --------------------------------------------------------------------

TEST(Factory, EmptyZerosOnesFull) {
  Tensor e = empty_cpu({2, 3}, none, none);
  EXPECT_EQ(e.dtype(), ScalarType::Float32);
  EXPECT_EQ(e.sizes(), IntArrayRef({2, 3}));
  Tensor es = empty_strided_cpu({2, 3}, {1, 2}, ScalarType::Int32, none);
  EXPECT_EQ(es.strides(), IntArrayRef({1, 2}));
  EXPECT_EQ(values(zeros_cpu({3}, ScalarType::Int16, none)), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(values(ones_cpu({2, 2}, ScalarType::BFloat16, none)), (std::vector<double>{1, 1, 1, 1}));
  EXPECT_EQ(values(ones_cpu({2}, ScalarType::Bool, none)), (std::vector<double>{1, 1}));
  EXPECT_EQ(zeros_cpu({0, 5}, none, none).numel(), 0);
  EXPECT_EQ(zeros_cpu({}, none, none).dim(), 0);

  // full infers bool / int64 / float32 from the fill value.
  EXPECT_EQ(full_cpu({2}, true, none, none).dtype(), ScalarType::Bool);
  EXPECT_EQ(full_cpu({2}, int64_t(3), none, none).dtype(), ScalarType::Int64);
  EXPECT_EQ(full_cpu({2}, 2.5, none, none).dtype(), ScalarType::Float32);
  EXPECT_EQ(values(full_cpu({3}, 2.5, ScalarType::Float64, none)), (std::vector<double>{2.5, 2.5, 2.5}));
  EXPECT_EQ(values(full_cpu({2}, int64_t(-1), ScalarType::UInt8, none)), (std::vector<double>{255, 255}));
  EXPECT_EQ(values(full_cpu({2}, 1.5, ScalarType::Int64, none)), (std::vector<double>{1, 1}));
  Tensor big = full_cpu({100000}, -0.0, none, none);  // -0.0 must not take the memset path
  EXPECT_TRUE(std::signbit(read_element(big, 99999).to_double()));
  expect_error([&] { full_cpu({2}, int64_t(300), ScalarType::UInt8, none); }, ErrorCode::InvalidArgument,
               {"full", "fill_value", "uint8"});
  expect_error([&] { full_cpu({2}, 1e6, ScalarType::Float16, none); }, ErrorCode::InvalidArgument, {"full", "float16"});
  expect_error([&] { full_cpu({2}, NAN, ScalarType::Int64, none); }, ErrorCode::InvalidArgument, {"full"});
  EXPECT_TRUE(std::isinf(read_element(full_cpu({1}, INFINITY, ScalarType::Float16, none), 0).to_double()));
  expect_error([&] { zeros_cpu({2, -1}, none, none); }, ErrorCode::InvalidArgument, {"size"});
  expect_error([&] { zeros_cpu({2}, none, Device(DeviceType::CUDA, 0)); }, ErrorCode::Device,
               {"zeros", "device", "cuda:0"});
  expect_error([&] { empty_cpu({2}, none, Device(DeviceType::CUDA, 1)); }, ErrorCode::Device, {"empty", "cuda:1"});
}

TEST(Factory, ScalarTensor) {
  Tensor s = scalar_tensor_cpu(int64_t(1), none, none);
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.dtype(), ScalarType::Float32);  // always the default dtype
  EXPECT_EQ(s.item().to_double(), 1.0);
  EXPECT_EQ(scalar_tensor_cpu(7, ScalarType::Int32, none).item().to_int(), 7);
}

TEST(Factory, LikeFamily) {
  Tensor base = empty_cpu({4, 3}, ScalarType::Float64, none);
  Tensor t = make_view(base, {3, 4}, {1, 3}, 0);  // a transpose: dense, not contiguous
  Tensor e = empty_like_cpu(t, none, none);
  EXPECT_EQ(e.dtype(), ScalarType::Float64);
  EXPECT_EQ(e.strides(), IntArrayRef({1, 3}));  // preserve_format
  Tensor z = zeros_like_cpu(t, ScalarType::Int32, none);
  EXPECT_EQ(z.dtype(), ScalarType::Int32);
  EXPECT_EQ(values(z), std::vector<double>(12, 0.0));
  EXPECT_EQ(values(ones_like_cpu(t, none, none)), std::vector<double>(12, 1.0));
  Tensor f = full_like_cpu(t, int64_t(7), none, none);
  EXPECT_EQ(f.dtype(), ScalarType::Float64);  // self's dtype, not the fill value's
  EXPECT_EQ(values(f), std::vector<double>(12, 7.0));
  // A non-dense self (a strided slice) gives a contiguous result.
  Tensor sliced = make_view(base, {2, 3}, {6, 1}, 0);
  EXPECT_TRUE(empty_like_cpu(sliced, none, none).is_contiguous());
  expect_error([&] { full_like_cpu(t, int64_t(1000), ScalarType::Int8, none); }, ErrorCode::InvalidArgument,
               {"full_like", "int8"});
  expect_error([&] { ones_like_cpu(t, none, Device(DeviceType::CUDA, 0)); }, ErrorCode::Device, {"ones_like"});
}

TEST(Factory, Arange) {
  Tensor a = arange_cpu(int64_t(10), none, none);
  EXPECT_EQ(a.dtype(), ScalarType::Int64);
  EXPECT_EQ(a.numel(), 10);
  EXPECT_EQ(read_element(a, 9).to_int(), 9);
  Tensor f = arange_start_step_cpu(int64_t(0), int64_t(1), 0.3, none, none);
  EXPECT_EQ(f.dtype(), ScalarType::Float32);
  EXPECT_EQ(f.numel(), 4);  // ceil(1 / 0.3)
  EXPECT_FLOAT_EQ(float(read_element(f, 3).to_double()), 0.9f);
  EXPECT_EQ(arange_start_cpu(1.0, 2.5, none, none).numel(), 2);
  EXPECT_EQ(values(arange_start_step_cpu(int64_t(5), int64_t(1), int64_t(-1), none, none)),
            (std::vector<double>{5, 4, 3, 2}));
  EXPECT_EQ(arange_start_cpu(int64_t(3), int64_t(3), none, none).numel(), 0);
  // An integral result truncates fractional bounds first, as PyTorch does.
  EXPECT_EQ(values(arange_start_cpu(int64_t(0), 2.5, ScalarType::Int64, none)), (std::vector<double>{0, 1}));
  EXPECT_EQ(values(arange_start_cpu(0.5, int64_t(3), ScalarType::Int64, none)), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(arange_cpu(int64_t(1000000), ScalarType::Float64, none).numel(), 1000000);
  expect_error([&] { arange_start_step_cpu(int64_t(0), int64_t(1), int64_t(0), none, none); },
               ErrorCode::InvalidArgument, {"arange", "step", "nonzero"});
  expect_error([&] { arange_start_cpu(int64_t(5), int64_t(1), none, none); }, ErrorCode::InvalidArgument,
               {"arange", "step", "sign"});
  expect_error([&] { arange_start_step_cpu(int64_t(0), int64_t(1), -0.5, none, none); }, ErrorCode::InvalidArgument,
               {"arange"});
  expect_error([&] { arange_cpu(INFINITY, none, none); }, ErrorCode::InvalidArgument, {"arange", "finite"});
}

TEST(Factory, Linspace) {
  Tensor l = linspace_cpu(int64_t(0), int64_t(1), 5, none, none);
  EXPECT_EQ(l.dtype(), ScalarType::Float32);
  EXPECT_EQ(values(l), (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
  Tensor m = linspace_cpu(-1.0, 1.0, 101, ScalarType::Float64, none);
  EXPECT_EQ(read_element(m, 0).to_double(), -1.0);
  EXPECT_EQ(read_element(m, 100).to_double(), 1.0);
  EXPECT_NEAR(read_element(m, 50).to_double(), 0.0, 1e-15);
  Tensor big = linspace_cpu(0.1, 0.7, 100001, none, none);
  EXPECT_EQ(read_element(big, 100000).to_double(), double(0.7f));  // endpoint exact
  EXPECT_EQ(values(linspace_cpu(int64_t(0), int64_t(10), 5, ScalarType::Int64, none)),
            (std::vector<double>{0, 2, 5, 7, 10}));
  EXPECT_EQ(values(linspace_cpu(3.0, 9.0, 1, none, none)), (std::vector<double>{3}));
  EXPECT_EQ(linspace_cpu(3.0, 9.0, 0, none, none).numel(), 0);
  expect_error([&] { linspace_cpu(0.0, 1.0, -1, none, none); }, ErrorCode::InvalidArgument, {"linspace", "steps"});
}

TEST(Factory, Eye) {
  EXPECT_EQ(values(eye_cpu(2, none, none)), (std::vector<double>{1, 0, 0, 1}));
  Tensor r = eye_m_cpu(2, 3, ScalarType::Int64, none);
  EXPECT_EQ(r.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(values(r), (std::vector<double>{1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(eye_m_cpu(0, 3, none, none).numel(), 0);
  expect_error([&] { eye_cpu(-1, none, none); }, ErrorCode::InvalidArgument, {"eye", "'n'"});
  expect_error([&] { eye_m_cpu(2, -1, none, none); }, ErrorCode::InvalidArgument, {"eye", "'m'"});
}

// ---- printing: expected strings are what PyTorch prints ---------------------------

struct PrintCase {
  std::vector<double> values;
  std::vector<int64_t> shape;
  ScalarType dtype;
  const char* expected;
};

// Generated with torch.tensor(values, dtype=...).reshape(shape) and repr().
const PrintCase kPrintCases[] = {
    {{1.0, 2.0, 3.0}, {3}, ScalarType::Float32, "tensor([1., 2., 3.])"},
    {{1, 2, 3, 4},
     {2, 2},
     ScalarType::Int64,
     "tensor([[1, 2],\n"
     "        [3, 4]])"},
    {{3.5}, {}, ScalarType::Float32, "tensor(3.5000)"},
    {{}, {0, 3}, ScalarType::Float32, "tensor([], size=(0, 3))"},
    {{}, {0}, ScalarType::Int64, "tensor([], dtype=torch.int64)"},
    {{}, {0}, ScalarType::Float32, "tensor([])"},
    {{}, {2, 0, 3}, ScalarType::Float64, "tensor([], size=(2, 0, 3), dtype=torch.float64)"},
    {{1, 0}, {2}, ScalarType::Bool, "tensor([ True, False])"},
    {{1}, {}, ScalarType::Bool, "tensor(True)"},
    {{1.0, 2.0}, {2}, ScalarType::Float64, "tensor([1., 2.], dtype=torch.float64)"},
    {{0.12345, 1.5}, {2}, ScalarType::Float32, "tensor([0.1235, 1.5000])"},
    {{0.12345, -1.5, 100.25}, {3}, ScalarType::Float64, "tensor([  0.1235,  -1.5000, 100.2500], dtype=torch.float64)"},
    {{10000000000.0, 1.0}, {2}, ScalarType::Float32, "tensor([1.0000e+10, 1.0000e+00])"},
    {{1e-05, 1.0}, {2}, ScalarType::Float32, "tensor([1.0000e-05, 1.0000e+00])"},
    {{123456789.0, 1.0}, {2}, ScalarType::Float64, "tensor([1.2346e+08, 1.0000e+00], dtype=torch.float64)"},
    {{1000.0, 1.0}, {2}, ScalarType::Float32, "tensor([1000.,    1.])"},
    {{1001.0, 1.0}, {2}, ScalarType::Float32, "tensor([1.0010e+03, 1.0000e+00])"},
    {{1001.5, 1.0}, {2}, ScalarType::Float32, "tensor([1.0015e+03, 1.0000e+00])"},
    {{NAN, INFINITY, -INFINITY, 1.5}, {4}, ScalarType::Float32, "tensor([   nan,    inf,   -inf, 1.5000])"},
    {{NAN, 1.0}, {2}, ScalarType::Float32, "tensor([nan, 1.])"},
    {{NAN, -INFINITY}, {2}, ScalarType::Float32, "tensor([nan, -inf])"},
    {{0.0, 0.0}, {2}, ScalarType::Float32, "tensor([0., 0.])"},
    {{-0.0, 1.0}, {2}, ScalarType::Float32, "tensor([-0., 1.])"},
    {{-0.5, 0.0}, {2}, ScalarType::Float32, "tensor([-0.5000,  0.0000])"},
    {{1.5, 2.25}, {2}, ScalarType::Float16, "tensor([1.5000, 2.2500], dtype=torch.float16)"},
    {{1.5, 2.25}, {2}, ScalarType::BFloat16, "tensor([1.5000, 2.2500], dtype=torch.bfloat16)"},
    {{1.5}, {}, ScalarType::Float16, "tensor(1.5000, dtype=torch.float16)"},
    {{5}, {}, ScalarType::Int64, "tensor(5)"},
    {{-7}, {}, ScalarType::Int32, "tensor(-7, dtype=torch.int32)"},
    {{1, 200, 3}, {3}, ScalarType::UInt8, "tensor([  1, 200,   3], dtype=torch.uint8)"},
    {{-1, 20, 300}, {3}, ScalarType::Int16, "tensor([ -1,  20, 300], dtype=torch.int16)"},
    {{1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0},
     {2, 2, 2},
     ScalarType::Float32,
     "tensor([[[1., 2.],\n"
     "         [3., 4.]],\n"
     "\n"
     "        [[5., 6.],\n"
     "         [7., 8.]]])"},
    {{1.0, 2.0, 3.0, 4.0, 5.0, 6.0},
     {1, 2, 3},
     ScalarType::Float32,
     "tensor([[[1., 2., 3.],\n"
     "         [4., 5., 6.]]])"},
    {{0.0, 0.1, 0.2, 0.30000000000000004, 0.4, 0.5, 0.6000000000000001, 0.7000000000000001, 0.8, 0.9, 1.0, 1.1},
     {2, 3, 2},
     ScalarType::Float64,
     "tensor([[[0.0000, 0.1000],\n"
     "         [0.2000, 0.3000],\n"
     "         [0.4000, 0.5000]],\n"
     "\n"
     "        [[0.6000, 0.7000],\n"
     "         [0.8000, 0.9000],\n"
     "         [1.0000, 1.1000]]], dtype=torch.float64)"},
    {{1e-08, 2e-08, 1e+20}, {3}, ScalarType::Float32, "tensor([1.0000e-08, 2.0000e-08, 1.0000e+20])"},
    {{0.3333333333333333}, {}, ScalarType::Float64, "tensor(0.3333, dtype=torch.float64)"},
    {{2.5e-05}, {}, ScalarType::Float32, "tensor(2.5000e-05)"},
    {{0.0,  1.5,  3.0,  4.5,  6.0,  7.5,  9.0,  10.5, 12.0, 13.5, 15.0, 16.5, 18.0, 19.5, 21.0,
      22.5, 24.0, 25.5, 27.0, 28.5, 30.0, 31.5, 33.0, 34.5, 36.0, 37.5, 39.0, 40.5, 42.0, 43.5},
     {30},
     ScalarType::Float32,
     "tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,\n"
     "        12.0000, 13.5000, 15.0000, 16.5000, 18.0000, 19.5000, 21.0000, 22.5000,\n"
     "        24.0000, 25.5000, 27.0000, 28.5000, 30.0000, 31.5000, 33.0000, 34.5000,\n"
     "        36.0000, 37.5000, 39.0000, 40.5000, 42.0000, 43.5000])"},
    {{0.0, 1.0001, 2.0002, 3.0003, 4.0004, 5.0005, 6.0006, 7.0007, 8.0008, 9.0009, 10.001, 11.0011, 12.0012, 13.0013,
      14.0014, 15.0015},
     {16},
     ScalarType::Float64,
     "tensor([ 0.0000,  1.0001,  2.0002,  3.0003,  4.0004,  5.0005,  6.0006,  7.0007,\n"
     "         8.0008,  9.0009, 10.0010, 11.0011, 12.0012, 13.0013, 14.0014, 15.0015],\n"
     "       dtype=torch.float64)"},
    {{0.0, 1.0001, 2.0002, 3.0003, 4.0004, 5.0005, 6.0006, 7.0007, 8.0008, 9.0009, 10.001, 11.0011, 12.0012, 13.0013,
      14.0014, 15.0015, 16.0016},
     {17},
     ScalarType::Float64,
     "tensor([ 0.0000,  1.0001,  2.0002,  3.0003,  4.0004,  5.0005,  6.0006,  7.0007,\n"
     "         8.0008,  9.0009, 10.0010, 11.0011, 12.0012, 13.0013, 14.0014, 15.0015,\n"
     "        16.0016], dtype=torch.float64)"},
    {{0.0,       100000.5,  200001.0,  300001.5,  400002.0,  500002.5,  600003.0,  700003.5,  800004.0,  900004.5,
      1000005.0, 1100005.5, 1200006.0, 1300006.5, 1400007.0, 1500007.5, 1600008.0, 1700008.5, 1800009.0, 1900009.5},
     {4, 5},
     ScalarType::Float64,
     "tensor([[      0.0000,  100000.5000,  200001.0000,  300001.5000,  400002.0000],\n"
     "        [ 500002.5000,  600003.0000,  700003.5000,  800004.0000,  900004.5000],\n"
     "        [1000005.0000, 1100005.5000, 1200006.0000, 1300006.5000, 1400007.0000],\n"
     "        [1500007.5000, 1600008.0000, 1700008.5000, 1800009.0000, 1900009.5000]],\n"
     "       dtype=torch.float64)"},
    {{0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
      20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39},
     {40},
     ScalarType::Int32,
     "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n"
     "        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,\n"
     "        36, 37, 38, 39], dtype=torch.int32)"},
};

TEST(Print, MatchesPyTorch) {
  for (const PrintCase& c : kPrintCases) {
    Tensor t = make(c.values, c.shape, c.dtype);
    EXPECT_EQ(tensor_to_string(t), c.expected);
  }
}

std::vector<double> iota_values(int64_t n, double scale = 1.0, double shift = 0.0) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = double(i) * scale + shift;
  return v;
}

TEST(Print, Summarized) {
  EXPECT_EQ(tensor_to_string(arange_cpu(int64_t(2000), none, none)),
            "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])");
  EXPECT_EQ(tensor_to_string(make(iota_values(2000, 0.5), {50, 40}, ScalarType::Float32)),
            "tensor([[0.0000e+00, 5.0000e-01, 1.0000e+00,  ..., 1.8500e+01, 1.9000e+01,\n"
            "         1.9500e+01],\n"
            "        [2.0000e+01, 2.0500e+01, 2.1000e+01,  ..., 3.8500e+01, 3.9000e+01,\n"
            "         3.9500e+01],\n"
            "        [4.0000e+01, 4.0500e+01, 4.1000e+01,  ..., 5.8500e+01, 5.9000e+01,\n"
            "         5.9500e+01],\n"
            "        ...,\n"
            "        [9.4000e+02, 9.4050e+02, 9.4100e+02,  ..., 9.5850e+02, 9.5900e+02,\n"
            "         9.5950e+02],\n"
            "        [9.6000e+02, 9.6050e+02, 9.6100e+02,  ..., 9.7850e+02, 9.7900e+02,\n"
            "         9.7950e+02],\n"
            "        [9.8000e+02, 9.8050e+02, 9.8100e+02,  ..., 9.9850e+02, 9.9900e+02,\n"
            "         9.9950e+02]])");
  EXPECT_EQ(tensor_to_string(make(iota_values(1120), {8, 2, 70}, ScalarType::Int64)),
            "tensor([[[   0,    1,    2,  ...,   67,   68,   69],\n"
            "         [  70,   71,   72,  ...,  137,  138,  139]],\n"
            "\n"
            "        [[ 140,  141,  142,  ...,  207,  208,  209],\n"
            "         [ 210,  211,  212,  ...,  277,  278,  279]],\n"
            "\n"
            "        [[ 280,  281,  282,  ...,  347,  348,  349],\n"
            "         [ 350,  351,  352,  ...,  417,  418,  419]],\n"
            "\n"
            "        ...,\n"
            "\n"
            "        [[ 700,  701,  702,  ...,  767,  768,  769],\n"
            "         [ 770,  771,  772,  ...,  837,  838,  839]],\n"
            "\n"
            "        [[ 840,  841,  842,  ...,  907,  908,  909],\n"
            "         [ 910,  911,  912,  ...,  977,  978,  979]],\n"
            "\n"
            "        [[ 980,  981,  982,  ..., 1047, 1048, 1049],\n"
            "         [1050, 1051, 1052,  ..., 1117, 1118, 1119]]])");
  EXPECT_EQ(tensor_to_string(make(iota_values(1001, 0.25, -100), {1001}, ScalarType::Float64)),
            "tensor([-100.0000,  -99.7500,  -99.5000,  ...,  149.5000,  149.7500,\n"
            "         150.0000], dtype=torch.float64)");
  std::vector<double> b(1200);
  for (size_t i = 0; i < b.size(); ++i) b[i] = i % 3 == 0;
  EXPECT_EQ(tensor_to_string(make(b, {1200}, ScalarType::Bool)),
            "tensor([ True, False, False,  ...,  True, False, False])");
}

TEST(Print, NonContiguous) {
  Tensor base = make(iota_values(6), {2, 3}, ScalarType::Int64);
  Tensor t = make_view(base, {3, 2}, {1, 3}, 0);
  EXPECT_EQ(tensor_to_string(t), "tensor([[0, 3],\n        [1, 4],\n        [2, 5]])");
  Tensor col = make_view(base, {2}, {3}, 1);  // base[:, 1]
  EXPECT_EQ(tensor_to_string(col), "tensor([1, 4])");
}

struct FakeMeta : AutogradMetaInterface {
  bool requires_grad() const override { return true; }
};

TEST(Print, Suffixes) {
  Tensor t = make({1, 2}, {2}, ScalarType::Float32);
  t.impl()->set_autograd_meta(std::make_unique<FakeMeta>());
  EXPECT_EQ(tensor_to_string(t), "tensor([1., 2.], requires_grad=True)");

  // A "cuda" tensor over host memory: printing needs the backend's host copy.
  static float data[2] = {1, 2};
  Tensor dev = tensor_from_blob(data, {2}, {}, ScalarType::Float32, Device(DeviceType::CUDA, 0), nullptr, nullptr);
  expect_error([&] { tensor_to_string(dev); }, ErrorCode::Device, {"cuda:0"});
  set_print_host_copy(DeviceType::CUDA, [](const Tensor& x) {
    return tensor_from_blob(x.data_ptr(), x.sizes(), x.strides(), x.dtype(), Device(DeviceType::CPU), nullptr, nullptr);
  });
  EXPECT_EQ(tensor_to_string(dev), "tensor([1., 2.], device='cuda:0')");
  Tensor dev64 = tensor_from_blob(data, {0}, {}, ScalarType::Int64, Device(DeviceType::CUDA, 0), nullptr, nullptr);
  EXPECT_EQ(tensor_to_string(dev64), "tensor([], device='cuda:0', dtype=torch.int64)");
  set_print_host_copy(DeviceType::CUDA, nullptr);

  std::ostringstream os;
  os << make({3}, {}, ScalarType::Int64);
  EXPECT_EQ(os.str(), "tensor(3)");
  EXPECT_EQ(tensor_to_string(Tensor()), "tensor(undefined)");
}

}  // namespace
