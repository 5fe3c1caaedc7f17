// SPDX-License-Identifier: BSD-3-Clause
// Reductions, cat/stack and the BLAS kernels, called directly (no dispatch):
// hand-computed values, reference loops over logical indices on contiguous,
// transposed and sliced inputs, accuracy, empty tensors and error paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/parallel.h"
#include "core/sanitize.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "cpu/blas.h"
#include "cpu/reduce_copy.h"
#include "tensorc_gen/native_functions.h"

using namespace tc;
namespace N = tc::native;
using Dims = std::vector<int64_t>;
using Vals = std::vector<double>;
constexpr ScalarType F32 = ScalarType::Float32, F64 = ScalarType::Float64, I64 = ScalarType::Int64,
                     I32 = ScalarType::Int32, U8 = ScalarType::UInt8, B1 = ScalarType::Bool, F16 = ScalarType::Float16,
                     BF16 = ScalarType::BFloat16;
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---- helpers -----------------------------------------------------------------

Tensor make(const Vals& v, const Dims& sizes, ScalarType dt) {
  Tensor t = empty_tensor(sizes, dt);
  EXPECT_EQ(int64_t(v.size()), t.numel());
  char* p = static_cast<char*>(t.data_ptr());
  for (size_t i = 0; i < v.size(); ++i) write_scalar(p + i * t.element_size(), dt, Scalar(v[i]));
  return t;
}

// Deterministic pseudo-random values; integers for integral dtypes.
TC_NO_SANITIZE_INTEGER Tensor random(const Dims& sizes, ScalarType dt, uint64_t seed) {
  int64_t n = checked_numel(sizes, "random");
  Vals v(static_cast<size_t>(n));
  uint64_t s = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (auto& x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    double u = double(s >> 11) / double(1ull << 53);  // [0, 1)
    if (dt == B1)
      x = u < 0.5;
    else if (dt == U8)
      x = std::floor(u * 10);
    else if (is_integral(dt, false))
      x = std::floor(u * 21) - 10;
    else
      x = std::round((u * 8 - 4) * 64) / 64;  // exact in half types
  }
  return make(v, sizes, dt);
}

Vals values(const Tensor& t) {
  Vals v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[size_t(i)] = read_element(t, i).to_double();
  return v;
}

Tensor permute(const Tensor& t, const Dims& order) {
  DimVector sz, st;
  for (int64_t d : order) {
    sz.push_back(t.sizes()[size_t(d)]);
    st.push_back(t.strides()[size_t(d)]);
  }
  return make_view(t, sz, st, t.storage_offset());
}
Tensor transposed(const Tensor& t) { return permute(t, {1, 0}); }
// Every `step`-th element along dim 0 (a sliced, non-contiguous view).
Tensor every(const Tensor& t, int64_t step) {
  DimVector sz(t.sizes()), st(t.strides());
  sz[0] = (sz[0] + step - 1) / step;
  st[0] *= step;
  return make_view(t, sz, st, t.storage_offset());
}

void expect_shape(const Tensor& t, const Dims& shape) { EXPECT_EQ(t.sizes().vec(), shape); }

void expect_values(const Tensor& t, const Vals& want, double rtol = 0, double atol = 0) {
  Vals got = values(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "at " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], atol + rtol * std::fabs(want[i])) << "at " << i;
    }
  }
}

// Groups the input values by output position (kept dims, row-major): the
// reference every reduction is checked against.
std::vector<Vals> groups(const Tensor& t, uint64_t mask) {
  int64_t nd = t.dim(), nout = 1;
  for (int64_t d = 0; d < nd; ++d)
    if (!((mask >> d) & 1)) nout *= t.sizes()[size_t(d)];
  std::vector<Vals> g(static_cast<size_t>(nout));
  Vals v = values(t);
  for (int64_t i = 0; i < t.numel(); ++i) {
    int64_t rem = i, o = 0, mul = 1;
    for (int64_t d = nd - 1; d >= 0; --d) {
      int64_t sz = t.sizes()[size_t(d)], idx = rem % sz;
      rem /= sz;
      if (!((mask >> d) & 1)) {
        o += idx * mul;
        mul *= sz;
      }
    }
    g[size_t(o)].push_back(v[size_t(i)]);
  }
  return g;
}
uint64_t mask_of(const Tensor& t, const Dims& dims) { return dim_mask(dims, t.dim(), "test"); }

template <class F>
Vals map_groups(const std::vector<Vals>& g, F f) {
  Vals out;
  for (const Vals& x : g) out.push_back(f(x));
  return out;
}
double ref_sum(const Vals& x) {
  long double s = 0;
  for (double v : x) s += v;
  return double(s);
}
double ref_var(const Vals& x, double correction) {
  long double m = 0, m2 = 0;
  for (double v : x) m += v;
  m /= x.size();
  for (double v : x) m2 += (v - m) * (v - m);
  return double(m2 / std::max(0.0, double(x.size()) - correction));
}

template <class F>
ErrorCode error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return ErrorCode::Ok;
}
template <class F>
std::string message_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

// Inputs in several layouts over the same logical values.
std::vector<Tensor> layouts(const Tensor& base2d) {
  Tensor t = cpu::contiguous_of(transposed(base2d));  // storage transposed
  return {base2d, transposed(t), every(base2d, 2)};
}

// ---- sum / mean / prod --------------------------------------------------------

TEST(Sum, HandComputed) {
  Tensor x = make({1, 2, 3, 4, 5, 6}, {2, 3}, F32);
  expect_values(N::sum_cpu(x, std::nullopt), {21});
  expect_shape(N::sum_cpu(x, std::nullopt), {});
  expect_values(N::sum_dim_cpu(x, Dims{0}, false, std::nullopt), {5, 7, 9});
  expect_values(N::sum_dim_cpu(x, Dims{-1}, false, std::nullopt), {6, 15});
  Tensor k = N::sum_dim_cpu(x, Dims{1}, true, std::nullopt);
  expect_shape(k, {2, 1});
  expect_values(k, {6, 15});
  expect_shape(N::sum_dim_cpu(x, Dims{0, 1}, true, std::nullopt), {1, 1});
  expect_values(N::sum_dim_cpu(x, Dims{}, false, std::nullopt), {21});  // [] = all dims
  expect_values(N::sum_dim_cpu(x, std::nullopt, false, std::nullopt), {21});
  expect_values(N::sum_dim_cpu(transposed(x), Dims{0}, false, std::nullopt), {6, 15});
}

TEST(Sum, DtypeRules) {
  EXPECT_EQ(N::sum_cpu(make({1, 2}, {2}, I32), std::nullopt).dtype(), I64);
  Tensor b = N::sum_cpu(make({1, 0, 1, 1}, {4}, B1), std::nullopt);
  EXPECT_EQ(b.dtype(), I64);
  expect_values(b, {3});
  Tensor u = N::sum_cpu(make({200, 200}, {2}, U8), std::nullopt);
  EXPECT_EQ(u.dtype(), I64);
  expect_values(u, {400});  // no uint8 wrap: accumulates in int64
  EXPECT_EQ(N::sum_cpu(make({1, 2}, {2}, F16), std::nullopt).dtype(), F16);
  Tensor d = N::sum_cpu(make({0.1, 0.2}, {2}, F32), F64);
  EXPECT_EQ(d.dtype(), F64);
  expect_values(d, {double(0.1f) + double(0.2f)});
  Tensor f = N::sum_dim_cpu(make({1, 2, 3, 4}, {2, 2}, I64), Dims{0}, false, F32);
  EXPECT_EQ(f.dtype(), F32);
  expect_values(f, {4, 6});
  Tensor i32 = N::sum_cpu(make({1, 2, 3}, {3}, I64), I32);
  EXPECT_EQ(i32.dtype(), I32);
  expect_values(i32, {6});
}

TEST(Sum, MatchesReferenceInEveryLayoutAndDtype) {
  for (ScalarType dt : {F32, F64, I32, I64, U8, B1, F16, BF16}) {
    for (const Tensor& x : layouts(random({37, 53}, dt, 1))) {
      for (Dims dims : {Dims{0}, Dims{1}, Dims{0, 1}, Dims{-1}}) {
        for (bool keep : {false, true}) {
          Tensor s = N::sum_dim_cpu(x, dims, keep, std::nullopt);
          double tol = is_reduced_float(dt) ? 2e-2 : 1e-5;
          expect_values(s, map_groups(groups(x, mask_of(x, dims)), ref_sum), tol, tol);
        }
      }
    }
  }
}

TEST(Sum, ExpandedInputsAndBoolDtype) {
  Tensor row = make({1, 2, 3}, {1, 3}, F32);
  Tensor ex = make_view(row, {4, 3}, {0, 1}, 0);  // zero stride along dim 0
  expect_values(N::sum_dim_cpu(ex, Dims{0}, false, std::nullopt), {4, 8, 12});
  expect_values(N::sum_dim_cpu(ex, Dims{1}, false, std::nullopt), {6, 6, 6, 6});
  expect_values(N::amax_cpu(ex, Dims{}, false), {3});
  Tensor b = N::sum_cpu(make({0, 2, 0}, {3}, I32), B1);
  EXPECT_EQ(b.dtype(), B1);
  expect_values(b, {1});
}

TEST(Sum, ThreeDimsAnySubset) {
  Tensor base = random({6, 7, 8}, F64, 2);
  for (const Tensor& x : {base, permute(cpu::contiguous_of(permute(base, {2, 0, 1})), {1, 2, 0})}) {
    for (Dims dims : {Dims{0}, Dims{1}, Dims{2}, Dims{0, 2}, Dims{2, 0}, Dims{1, 2}, Dims{0, 1}, Dims{-3, -1}}) {
      Tensor s = N::sum_dim_cpu(x, dims, false, std::nullopt);
      expect_values(s, map_groups(groups(x, mask_of(x, dims)), ref_sum), 1e-12, 1e-12);
    }
  }
}

TEST(Sum, LongRowsColumnsAndThreads) {
  // Long reductions cross the slab size in both loop orders; results must be
  // identical with 1 and 2 threads (fixed slabs, ordered combination).
  int saved = get_num_threads();
  for (const Dims& shape : {Dims{3, 150001}, Dims{150001, 3}, Dims{300001}, Dims{2, 70001, 3}}) {
    Tensor x = random(shape, F32, 3);
    for (Dims dims : {Dims{0}, Dims{-1}, Dims{}}) {
      set_num_threads(1);
      Tensor a = N::sum_dim_cpu(x, dims, false, std::nullopt);
      set_num_threads(2);
      Tensor b = N::sum_dim_cpu(x, dims, false, std::nullopt);
      EXPECT_EQ(values(a), values(b));
      expect_values(a, map_groups(groups(x, mask_of(x, dims)), ref_sum), 1e-5, 1e-3);
    }
  }
  set_num_threads(saved);
}

TEST(Sum, AccurateFloat32) {
  // Naive float accumulation of 1e7 x 0.1f drifts by ~9%; pairwise stays exact to ~1e-6.
  const int64_t n = 10000000;
  Tensor x = empty_tensor({n}, F32);
  std::fill(x.data_ptr<float>(), x.data_ptr<float>() + n, 0.1f);
  double want = double(0.1f) * double(n);
  EXPECT_NEAR(N::sum_cpu(x, std::nullopt).item<double>(), want, 1e-3 * want);
  EXPECT_NEAR(N::mean_cpu(x, std::nullopt).item<double>(), double(0.1f), 1e-3 * 0.1);
  // Column sums (vertical loop) of 2 x 5e6.
  Tensor cols = make_view(x, {n / 2, 2}, {2, 1}, 0);
  Tensor s = N::sum_dim_cpu(cols, Dims{0}, false, std::nullopt);
  expect_values(s, {want / 2, want / 2}, 1e-3);
  // Half accumulates in float.
  Tensor h = empty_tensor({100000}, F16);
  std::fill(h.data_ptr<Half>(), h.data_ptr<Half>() + 100000, Half(0.1f));
  EXPECT_NEAR(N::sum_cpu(h, F32).item<double>(), 100000 * double(float(Half(0.1f))), 1.0);
}

TEST(Sum, EmptyTensors) {
  Tensor e = empty_tensor({0}, F32);
  expect_values(N::sum_cpu(e, std::nullopt), {0});
  Tensor e2 = empty_tensor({0, 3}, I32);
  Tensor s0 = N::sum_dim_cpu(e2, Dims{0}, false, std::nullopt);
  expect_shape(s0, {3});
  expect_values(s0, {0, 0, 0});
  expect_shape(N::sum_dim_cpu(e2, Dims{1}, false, std::nullopt), {0});
  expect_values(N::prod_cpu(e, std::nullopt), {1});
  EXPECT_TRUE(std::isnan(N::mean_cpu(e, std::nullopt).item<double>()));
}

TEST(Sum, ZeroDimAndDimErrors) {
  Tensor z = make({5}, {}, F32);
  expect_values(N::sum_dim_cpu(z, Dims{0}, false, std::nullopt), {5});
  expect_values(N::sum_dim_cpu(z, Dims{-1}, true, std::nullopt), {5});
  expect_shape(N::sum_dim_cpu(z, Dims{0}, true, std::nullopt), {});
  EXPECT_EQ(error_of([&] { N::sum_dim_cpu(z, Dims{1}, false, std::nullopt); }), ErrorCode::Index);
  Tensor x = random({2, 3}, F32, 4);
  EXPECT_EQ(error_of([&] { N::sum_dim_cpu(x, Dims{2}, false, std::nullopt); }), ErrorCode::Index);
  EXPECT_EQ(error_of([&] { N::sum_dim_cpu(x, Dims{-3}, false, std::nullopt); }), ErrorCode::Index);
  EXPECT_EQ(error_of([&] { N::sum_dim_cpu(x, Dims{1, -1}, false, std::nullopt); }), ErrorCode::InvalidArgument);
  std::string m = message_of([&] { N::sum_dim_cpu(x, Dims{5}, false, std::nullopt); });
  EXPECT_NE(m.find("sum"), std::string::npos) << m;
  EXPECT_NE(m.find("dim"), std::string::npos) << m;
  EXPECT_EQ(error_of([&] { N::prod_dim_cpu(x, 2, false, std::nullopt); }), ErrorCode::Index);
}

TEST(Mean, ValuesAndDtypes) {
  Tensor x = make({1, 2, 3, 4, 5, 6}, {2, 3}, F32);
  expect_values(N::mean_cpu(x, std::nullopt), {3.5});
  expect_values(N::mean_dim_cpu(x, Dims{0}, false, std::nullopt), {2.5, 3.5, 4.5});
  expect_values(N::mean_dim_cpu(transposed(x), Dims{1}, true, std::nullopt), {2.5, 3.5, 4.5});
  Tensor i = make({1, 2}, {2}, I64);
  EXPECT_EQ(error_of([&] { N::mean_cpu(i, std::nullopt); }), ErrorCode::Type);
  EXPECT_NE(message_of([&] { N::mean_cpu(i, std::nullopt); }).find("mean"), std::string::npos);
  EXPECT_EQ(error_of([&] { N::mean_cpu(x, I64); }), ErrorCode::Type);
  Tensor m = N::mean_cpu(i, F64);
  EXPECT_EQ(m.dtype(), F64);
  expect_values(m, {1.5});
  Tensor h = make({1, 2, 4}, {3}, BF16);
  EXPECT_EQ(N::mean_cpu(h, std::nullopt).dtype(), BF16);
  expect_values(N::mean_cpu(h, std::nullopt), {7.0 / 3}, 1e-2);
  for (const Tensor& r : layouts(random({9, 11}, F64, 5)))
    expect_values(N::mean_dim_cpu(r, Dims{0}, false, std::nullopt),
                  map_groups(groups(r, mask_of(r, {0})), [](const Vals& v) { return ref_sum(v) / v.size(); }), 1e-12);
}

TEST(Prod, ValuesAndDtypes) {
  Tensor x = make({1, 2, 3, 4, 5, 6}, {2, 3}, I32);
  Tensor p = N::prod_cpu(x, std::nullopt);
  EXPECT_EQ(p.dtype(), I64);
  expect_values(p, {720});
  expect_values(N::prod_dim_cpu(x, 0, false, std::nullopt), {4, 10, 18});
  Tensor k = N::prod_dim_cpu(transposed(x), -1, true, std::nullopt);
  expect_shape(k, {3, 1});
  expect_values(k, {4, 10, 18});
  Tensor f = N::prod_dim_cpu(make({0.5, 4, 2, 3}, {2, 2}, F32), 1, false, F64);
  EXPECT_EQ(f.dtype(), F64);
  expect_values(f, {2, 6});
  EXPECT_EQ(N::prod_cpu(make({1, 1}, {2}, B1), std::nullopt).dtype(), I64);
}

// ---- max / min / arg ------------------------------------------------------------

TEST(MinMax, FullAndAmax) {
  Tensor x = make({3, -1, 7, 2, 7, -5}, {2, 3}, F32);
  expect_values(N::max_cpu(x), {7});
  expect_values(N::min_cpu(x), {-5});
  EXPECT_EQ(N::max_cpu(x).dtype(), F32);
  expect_values(N::amax_cpu(x, Dims{0}, false), {3, 7, 7});
  expect_values(N::amin_cpu(x, Dims{1}, true), {-1, -5});
  expect_shape(N::amin_cpu(x, Dims{1}, true), {2, 1});
  expect_values(N::amax_cpu(x, Dims{}, false), {7});
  expect_values(N::amax_cpu(x, Dims{0, 1}, false), {7});
  Tensor i = make({3, -1, 7, 2}, {4}, I64);
  EXPECT_EQ(N::amax_cpu(i, Dims{0}, false).dtype(), I64);
  expect_values(N::amin_cpu(i, Dims{0}, false), {-1});
  expect_values(N::max_cpu(make({0, 1, 0}, {3}, B1)), {1});
  expect_values(N::min_cpu(make({0, 1, 0}, {3}, B1)), {0});
}

TEST(MinMax, NaNPropagates) {
  Vals v(100, 1.0);
  v[63] = kNaN;
  for (ScalarType dt : {F32, F64, F16}) {
    Tensor x = make(v, {100}, dt);
    EXPECT_TRUE(std::isnan(N::max_cpu(x).item<double>()));
    EXPECT_TRUE(std::isnan(N::min_cpu(x).item<double>()));
    Tensor x2 = make_view(x, {10, 10}, {10, 1}, 0);
    expect_values(N::amax_cpu(x2, Dims{1}, false), {1, 1, 1, 1, 1, 1, kNaN, 1, 1, 1});
    expect_values(N::amin_cpu(x2, Dims{0}, false), {1, 1, 1, kNaN, 1, 1, 1, 1, 1, 1});
    auto [vals, idx] = N::max_dim_cpu(x2, 0, false);
    expect_values(vals, {1, 1, 1, kNaN, 1, 1, 1, 1, 1, 1});
    EXPECT_EQ(values(idx)[3], 6);
    EXPECT_EQ(N::argmax_cpu(x, std::nullopt, false).item<int64_t>(), 63);
    EXPECT_EQ(N::argmin_cpu(x, std::nullopt, false).item<int64_t>(), 63);
  }
}

TEST(MinMax, MatchesReference) {
  for (ScalarType dt : {F32, F64, I32, U8, F16, BF16}) {
    for (const Tensor& x : layouts(random({31, 45}, dt, 6))) {
      for (Dims dims : {Dims{0}, Dims{1}, Dims{0, 1}}) {
        auto g = groups(x, mask_of(x, dims));
        expect_values(N::amax_cpu(x, dims, false),
                      map_groups(g, [](const Vals& v) { return *std::max_element(v.begin(), v.end()); }));
        expect_values(N::amin_cpu(x, dims, false),
                      map_groups(g, [](const Vals& v) { return *std::min_element(v.begin(), v.end()); }));
      }
      for (int64_t d : {0, 1}) {
        auto g = groups(x, mask_of(x, {d}));
        auto [mx, imx] = N::max_dim_cpu(x, d, false);
        auto [mn, imn] = N::min_dim_cpu(x, d, false);
        EXPECT_EQ(imx.dtype(), I64);
        Vals want_i, want_j;
        for (const Vals& v : g) {
          want_i.push_back(double(std::max_element(v.begin(), v.end()) - v.begin()));  // first max
          want_j.push_back(double(std::min_element(v.begin(), v.end()) - v.begin()));
        }
        expect_values(imx, want_i);
        expect_values(imn, want_j);
        expect_values(N::argmax_cpu(x, d, false), want_i);
        expect_values(N::argmin_cpu(x, d, true), want_j);
        expect_values(mx, map_groups(g, [](const Vals& v) { return *std::max_element(v.begin(), v.end()); }));
      }
    }
  }
}

TEST(MinMax, ArgmaxFlattenedAndTies) {
  Tensor x = make({1, 9, 3, 9, 0, -2}, {2, 3}, F32);
  EXPECT_EQ(N::argmax_cpu(x, std::nullopt, false).item<int64_t>(), 1);              // first of the ties
  EXPECT_EQ(N::argmax_cpu(transposed(x), std::nullopt, false).item<int64_t>(), 1);  // [[1,9],[9,0],[3,-2]]
  EXPECT_EQ(N::argmin_cpu(transposed(x), std::nullopt, false).item<int64_t>(), 5);
  Tensor k = N::argmax_cpu(x, std::nullopt, true);
  expect_shape(k, {1, 1});
  EXPECT_EQ(k.item<int64_t>(), 1);
  auto [v, i] = N::max_dim_cpu(x, -1, true);
  expect_shape(v, {2, 1});
  expect_values(v, {9, 9});
  expect_values(i, {1, 0});
  EXPECT_EQ(N::argmax_cpu(make({4}, {}, F32), std::nullopt, false).item<int64_t>(), 0);
  EXPECT_EQ(N::argmax_cpu(make({4}, {}, F32), 0, false).item<int64_t>(), 0);
  EXPECT_EQ(error_of([&] { N::argmax_cpu(make({1, 0}, {2}, B1), std::nullopt, false); }), ErrorCode::Type);
}

TEST(MinMax, EmptyErrors) {
  Tensor e = empty_tensor({0, 3}, F32);
  EXPECT_EQ(error_of([&] { N::max_cpu(e); }), ErrorCode::InvalidArgument);
  EXPECT_NE(message_of([&] { N::max_cpu(e); }).find("max"), std::string::npos);
  EXPECT_EQ(error_of([&] { N::amax_cpu(e, Dims{0}, false); }), ErrorCode::Index);
  EXPECT_NE(message_of([&] { N::amin_cpu(e, Dims{0}, false); }).find("amin"), std::string::npos);
  expect_shape(N::amax_cpu(e, Dims{1}, false), {0});
  EXPECT_EQ(error_of([&] { N::max_dim_cpu(e, 0, false); }), ErrorCode::Index);
  expect_shape(std::get<1>(N::min_dim_cpu(e, 1, false)), {0});
  EXPECT_EQ(error_of([&] { N::argmax_cpu(e, std::nullopt, false); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_of([&] { N::argmin_cpu(e, 0, false); }), ErrorCode::Index);
  EXPECT_EQ(error_of([&] { N::max_dim_cpu(make({1}, {1}, F32), 1, false); }), ErrorCode::Index);
}

TEST(MinMax, LongReductions) {
  Tensor x = random({200003}, F32, 7);
  x.data_ptr<float>()[123456] = 100;
  x.data_ptr<float>()[150000] = 100;
  EXPECT_EQ(N::argmax_cpu(x, std::nullopt, false).item<int64_t>(), 123456);
  expect_values(N::max_cpu(x), {100});
  Tensor cols = make_view(x, {100001, 2}, {2, 1}, 0);  // 123456 = row 61728, col 0
  auto [v, i] = N::max_dim_cpu(cols, 0, false);
  EXPECT_EQ(values(i)[0], 61728);
  EXPECT_EQ(values(v)[0], 100);
}

// ---- any / all -------------------------------------------------------------------

TEST(Logical, AnyAll) {
  Tensor x = make({0, 0, 1, 0, 2, 3}, {2, 3}, F32);
  Tensor a = N::any_cpu(x);
  EXPECT_EQ(a.dtype(), B1);
  expect_values(a, {1});
  expect_values(N::all_cpu(x), {0});
  expect_values(N::any_dim_cpu(x, 0, false), {0, 1, 1});
  expect_values(N::all_dim_cpu(x, 1, true), {0, 0});
  expect_values(N::all_dims_cpu(x, Dims{0}, false), {0, 0, 1});
  expect_values(N::any_dims_cpu(transposed(x), std::nullopt, false), {1});
  EXPECT_EQ(N::any_cpu(make({0, 5}, {2}, U8)).dtype(), U8);
  expect_values(N::any_cpu(make({kNaN}, {1}, F32)), {1});
  expect_values(N::all_cpu(make({1, 1}, {2}, B1)), {1});
  expect_values(N::any_cpu(empty_tensor({0}, F32)), {0});
  expect_values(N::all_cpu(empty_tensor({0}, F32)), {1});
  for (const Tensor& r : layouts(random({17, 19}, I32, 8))) {
    for (int64_t d : {0, 1}) {
      auto g = groups(r, mask_of(r, {d}));
      expect_values(N::any_dim_cpu(r, d, false), map_groups(g, [](const Vals& v) {
                      return double(std::any_of(v.begin(), v.end(), [](double e) { return e != 0; }));
                    }));
      expect_values(N::all_dim_cpu(r, d, false), map_groups(g, [](const Vals& v) {
                      return double(std::all_of(v.begin(), v.end(), [](double e) { return e != 0; }));
                    }));
    }
  }
}

// ---- var / std -------------------------------------------------------------------

TEST(VarStd, HandComputed) {
  Tensor x = make({1, 2, 3, 4}, {4}, F32);
  expect_values(N::var_cpu(x, true), {5.0 / 3}, 1e-6);
  expect_values(N::var_cpu(x, false), {1.25}, 1e-6);
  expect_values(N::std_cpu(x, true), {std::sqrt(5.0 / 3)}, 1e-6);
  expect_values(N::var_correction_cpu(x, std::nullopt, Scalar(2.5), false), {5.0 / 1.5}, 1e-6);
  expect_values(N::var_correction_cpu(x, std::nullopt, std::nullopt, false), {5.0 / 3}, 1e-6);
  Tensor m = make({1, 2, 3, 4, 6, 8}, {2, 3}, F64);
  expect_values(N::var_dim_cpu(m, Dims{1}, true, false), {1, 4}, 1e-12);
  expect_values(N::std_dim_cpu(m, Dims{0}, false, true), {1.5, 2, 2.5}, 1e-12);
  expect_shape(N::std_dim_cpu(m, Dims{0}, false, true), {1, 3});
  EXPECT_TRUE(std::isnan(N::var_cpu(make({3}, {1}, F32), true).item<double>()));  // 0 / 0
  EXPECT_TRUE(std::isinf(N::var_correction_cpu(make({1, 3}, {2}, F32), std::nullopt, Scalar(3), false).item<double>()));
  EXPECT_TRUE(std::isnan(N::var_cpu(empty_tensor({0}, F32), true).item<double>()));
  EXPECT_EQ(error_of([&] { N::var_cpu(make({1, 2}, {2}, I64), true); }), ErrorCode::Type);
  EXPECT_EQ(error_of([&] { N::std_dim_cpu(m, Dims{2}, true, false); }), ErrorCode::Index);
}

TEST(VarStd, MatchesReferenceAndIsAccurate) {
  for (ScalarType dt : {F32, F64, F16}) {
    for (const Tensor& x : layouts(random({41, 1300}, dt, 9))) {
      for (Dims dims : {Dims{0}, Dims{1}, Dims{0, 1}}) {
        auto g = groups(x, mask_of(x, dims));
        double tol = dt == F16 ? 2e-3 : 1e-5;
        expect_values(N::var_dim_cpu(x, dims, true, false), map_groups(g, [](const Vals& v) { return ref_var(v, 1); }),
                      tol);
        expect_values(N::std_correction_cpu(x, dims, Scalar(0), false),
                      map_groups(g, [](const Vals& v) { return std::sqrt(ref_var(v, 0)); }), tol);
      }
    }
  }
  // A large offset: single-pass sum-of-squares in float would lose everything.
  Tensor big = random({300000}, F32, 10);
  float* p = big.data_ptr<float>();
  for (int64_t i = 0; i < 300000; ++i) p[i] = 1e4f + p[i] / 64;
  double want = ref_var(values(big), 1);
  expect_values(N::var_cpu(big, true), {want}, 1e-5);
  Tensor cols = make_view(big, {100000, 3}, {3, 1}, 0);
  expect_values(N::var_dim_cpu(cols, Dims{0}, true, false),
                map_groups(groups(cols, 1), [](const Vals& v) { return ref_var(v, 1); }), 1e-5);
}

// ---- cat / stack -----------------------------------------------------------------

TEST(Cat, ValuesDimsAndPromotion) {
  Tensor a = make({1, 2, 3, 4}, {2, 2}, F32), b = make({5, 6}, {1, 2}, F32);
  Tensor c0 = N::cat_cpu({a, b}, 0);
  expect_shape(c0, {3, 2});
  expect_values(c0, {1, 2, 3, 4, 5, 6});
  Tensor c1 = N::cat_cpu({a, transposed(make({5, 6, 7, 8}, {2, 2}, F32))}, -1);
  expect_shape(c1, {2, 4});
  expect_values(c1, {1, 2, 5, 7, 3, 4, 6, 8});
  Tensor p = N::cat_cpu({make({1, 2}, {2}, I32), make({0.5}, {1}, F64)}, 0);
  EXPECT_EQ(p.dtype(), F64);
  expect_values(p, {1, 2, 0.5});
  Tensor big = random({64, 33}, F64, 11);
  Tensor cat = N::cat_cpu({every(big, 2), big}, 0);
  Vals want = values(every(big, 2)), rest = values(big);
  want.insert(want.end(), rest.begin(), rest.end());
  expect_values(cat, want);
}

TEST(Cat, LegacyEmptySkipAndErrors) {
  Tensor a = make({1, 2, 3, 4}, {2, 2}, F32);
  Tensor skipped = N::cat_cpu({empty_tensor({0}, F64), a, empty_tensor({0}, F32)}, 1);
  expect_shape(skipped, {2, 2});
  EXPECT_EQ(skipped.dtype(), F64);  // skipped tensors still take part in promotion
  expect_shape(N::cat_cpu({empty_tensor({0}, F32), empty_tensor({0}, F32)}, 0), {0});
  expect_shape(N::cat_cpu({empty_tensor({0, 2}, F32), a}, 0), {2, 2});
  EXPECT_EQ(error_of([&] { N::cat_cpu({}, 0); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_of([&] { N::cat_cpu({make({1}, {}, F32)}, 0); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_of([&] { N::cat_cpu({a, make({1, 2}, {2}, F32)}, 0); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_of([&] { N::cat_cpu({a, a}, 2); }), ErrorCode::Index);
  std::string m = message_of([&] { N::cat_cpu({a, a, make({1, 2, 3}, {1, 3}, F32)}, 0); });
  EXPECT_NE(m.find("cat"), std::string::npos) << m;
  EXPECT_NE(m.find("tensor number 2"), std::string::npos) << m;
  EXPECT_NE(m.find("expected size 2 but got size 3"), std::string::npos) << m;
}

TEST(Stack, ValuesAndErrors) {
  Tensor a = make({1, 2, 3}, {3}, F32), b = make({4, 5, 6}, {3}, I64);
  Tensor s0 = N::stack_cpu({a, b}, 0);
  expect_shape(s0, {2, 3});
  EXPECT_EQ(s0.dtype(), F32);
  expect_values(s0, {1, 2, 3, 4, 5, 6});
  Tensor s1 = N::stack_cpu({a, b}, -1);
  expect_shape(s1, {3, 2});
  expect_values(s1, {1, 4, 2, 5, 3, 6});
  Tensor m = make({1, 2, 3, 4}, {2, 2}, F64);
  Tensor s2 = N::stack_cpu({m, transposed(m)}, 1);
  expect_shape(s2, {2, 2, 2});
  expect_values(s2, {1, 2, 1, 3, 3, 4, 2, 4});
  Tensor z = N::stack_cpu({make({7}, {}, F32), make({8}, {}, F32)}, 0);
  expect_shape(z, {2});
  expect_values(z, {7, 8});
  expect_shape(N::stack_cpu({empty_tensor({0}, F32), empty_tensor({0}, F32)}, 0), {2, 0});
  EXPECT_EQ(error_of([&] { N::stack_cpu({a, make({1, 2}, {2}, F32)}, 0); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_of([&] { N::stack_cpu({a, a}, 2); }), ErrorCode::Index);
  EXPECT_EQ(error_of([&] { N::stack_cpu({}, 0); }), ErrorCode::InvalidArgument);
}

// ---- mm / bmm / addmm --------------------------------------------------------------

Vals naive_mm(const Tensor& a, const Tensor& b) {
  int64_t m = a.sizes()[0], k = a.sizes()[1], n = b.sizes()[1];
  Vals av = values(a), bv = values(b), c(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      long double s = 0;
      for (int64_t l = 0; l < k; ++l) s += (long double)av[size_t(i * k + l)] * bv[size_t(l * n + j)];
      c[size_t(i * n + j)] = double(s);
    }
  return c;
}

// a(m x k) in several layouts: contiguous, transposed storage, every other row.
std::vector<Tensor> mat_layouts(int64_t rows, int64_t cols, ScalarType dt, uint64_t seed) {
  Tensor base = random({rows, cols}, dt, seed);
  Tensor wide = random({2 * rows, cols}, dt, seed + 1);
  return {base, transposed(cpu::contiguous_of(transposed(base))), every(wide, 2)};
}

TEST(Mm, MatchesNaiveInEveryLayout) {
  // Tiny (plain loop), small (BLIS small-matrix path) and large (threaded) products.
  for (const Dims& mkn : {Dims{3, 4, 5}, Dims{37, 29, 41}, Dims{150, 170, 130}, Dims{1, 300, 1}, Dims{300, 1, 200}}) {
    for (ScalarType dt : {F32, F64}) {
      auto as = mat_layouts(mkn[0], mkn[1], dt, 20);
      auto bs = mat_layouts(mkn[1], mkn[2], dt, 30);
      for (const Tensor& a : as)
        for (const Tensor& b : bs) {
          Tensor c = N::mm_cpu(a, b);
          expect_shape(c, {mkn[0], mkn[2]});
          EXPECT_EQ(c.dtype(), dt);
          expect_values(c, naive_mm(a, b), dt == F32 ? 1e-5 : 1e-12, dt == F32 ? 1e-3 : 1e-10);
        }
    }
  }
}

TEST(Mm, OtherDtypesAndEdgeShapes) {
  for (ScalarType dt : {I32, I64, U8}) {
    Tensor a = random({5, 7}, dt, 40), b = random({7, 3}, dt, 41);
    Tensor c = N::mm_cpu(transposed(cpu::contiguous_of(transposed(a))), b);
    EXPECT_EQ(c.dtype(), dt);
    Vals want = naive_mm(a, b);
    if (dt == U8)
      for (double& w : want) w = double(uint8_t(int64_t(w)));
    expect_values(c, want);
  }
  for (ScalarType dt : {F16, BF16}) {
    Tensor a = random({20, 30}, dt, 42), b = random({30, 10}, dt, 43);
    Tensor c = N::mm_cpu(a, b);
    EXPECT_EQ(c.dtype(), dt);
    expect_values(c, naive_mm(a, b), 1e-2, 0.5);
  }
  Tensor z = N::mm_cpu(empty_tensor({3, 0}, F32), empty_tensor({0, 4}, F32));  // k = 0: zeros
  expect_values(z, Vals(12, 0.0));
  expect_shape(N::mm_cpu(empty_tensor({0, 5}, F32), random({5, 4}, F32, 44)), {0, 4});
  // Expanded (zero-stride) operands are copied before BLIS sees them.
  Tensor row = random({1, 64}, F32, 45);
  Tensor expanded = make_view(row, {64, 64}, {0, 1}, 0);
  Tensor b = random({64, 64}, F32, 46);
  expect_values(N::mm_cpu(expanded, b), naive_mm(expanded, b), 1e-5, 1e-4);
}

TEST(Mm, Errors) {
  Tensor a = random({2, 3}, F32, 50), b = random({4, 5}, F32, 51);
  EXPECT_EQ(error_of([&] { N::mm_cpu(a, b); }), ErrorCode::InvalidArgument);
  std::string m = message_of([&] { N::mm_cpu(a, b); });
  EXPECT_NE(m.find("mm: argument 'mat2'"), std::string::npos) << m;
  EXPECT_NE(m.find("self and mat2 shapes cannot be multiplied (2x3 and 4x5)"), std::string::npos) << m;
  EXPECT_EQ(error_of([&] { N::mm_cpu(random({2, 3, 4}, F32, 52), b); }), ErrorCode::InvalidArgument);
  EXPECT_NE(message_of([&] { N::mm_cpu(a, random({3}, F32, 53)); }).find("2-D"), std::string::npos);
  Tensor d = random({3, 2}, F64, 54);
  EXPECT_EQ(error_of([&] { N::mm_cpu(a, d); }), ErrorCode::Type);
  std::string t = message_of([&] { N::mm_cpu(a, d); });
  EXPECT_NE(t.find("float32"), std::string::npos) << t;
  EXPECT_NE(t.find("float64"), std::string::npos) << t;
  EXPECT_EQ(error_of([&] { N::mm_cpu(make({1}, {1, 1}, B1), make({1}, {1, 1}, B1)); }), ErrorCode::Type);
}

TEST(Bmm, MatchesNaivePerBatch) {
  for (const Dims& bmkn : {Dims{4, 3, 5, 2}, Dims{3, 70, 60, 50}, Dims{64, 8, 8, 8}}) {
    int64_t B = bmkn[0], m = bmkn[1], k = bmkn[2], n = bmkn[3];
    Tensor a = random({B, m, k}, F32, 60);
    Tensor bt = cpu::contiguous_of(permute(random({B, k, n}, F32, 61), {0, 2, 1}));  // [B, n, k]
    Tensor b = permute(bt, {0, 2, 1});                                               // transposed view
    Tensor c = N::bmm_cpu(a, b);
    expect_shape(c, {B, m, n});
    for (int64_t i = 0; i < B; ++i) {
      auto slice = [&](const Tensor& t, int64_t r, int64_t cl) {
        return make_view(t, {r, cl}, {t.strides()[1], t.strides()[2]}, t.storage_offset() + i * t.strides()[0]);
      };
      expect_values(slice(c, m, n), naive_mm(slice(a, m, k), slice(b, k, n)), 1e-5, 1e-3);
    }
  }
  EXPECT_EQ(error_of([&] {
              N::bmm_cpu(random({2, 3, 4}, F32, 62), random({3, 4, 5}, F32, 63));
            }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(error_of([&] {
              N::bmm_cpu(random({2, 3, 4}, F32, 62), random({2, 5, 5}, F32, 63));
            }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(error_of([&] {
              N::bmm_cpu(random({3, 4}, F32, 62), random({4, 5}, F32, 63));
            }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(error_of([&] { N::bmm_cpu(random({2, 3, 4}, F32, 62), random({2, 4, 5}, F64, 63)); }), ErrorCode::Type);
}

TEST(Addmm, BetaAlphaBroadcastAndOut) {
  Tensor m1 = random({40, 30}, F64, 70), m2 = random({30, 20}, F64, 71);
  Vals prod = naive_mm(m1, m2);
  Tensor bias = random({20}, F64, 72);
  Vals bv = values(bias);
  Tensor r = N::addmm_cpu(bias, m1, transposed(cpu::contiguous_of(transposed(m2))), Scalar(0.5), Scalar(2));
  Vals want(prod.size());
  for (size_t i = 0; i < prod.size(); ++i) want[i] = 0.5 * bv[i % 20] + 2 * prod[i];
  expect_values(r, want, 1e-12, 1e-10);
  // beta = 0 ignores self entirely, NaN included.
  Tensor nan_self = make(Vals(800, kNaN), {40, 20}, F64);
  expect_values(N::addmm_cpu(nan_self, m1, m2, Scalar(0), Scalar(1)), prod, 1e-12, 1e-10);
  expect_values(
      N::addmm_cpu(make({1}, {}, F64), m1, m2, Scalar(1), Scalar(1)),
      [&] {
        Vals w = prod;
        for (double& x : w) x += 1;
        return w;
      }(),
      1e-12, 1e-10);
  Tensor i = N::addmm_cpu(make({1, 2}, {1, 2}, I64), make({1, 2, 3, 4}, {2, 2}, I64), make({1, 0, 0, 1}, {2, 2}, I64),
                          Scalar(int64_t(2)), Scalar(int64_t(3)));
  expect_values(i, {5, 10, 11, 16});
  EXPECT_EQ(error_of([&] { N::addmm_cpu(random({3}, F64, 73), m1, m2, 1, 1); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_of([&] { N::addmm_cpu(random({20}, F32, 73), m1, m2, 1, 1); }), ErrorCode::Type);

  // out=: preallocated, empty (resized), self itself (addmm_), aliasing an operand.
  Tensor out = empty_tensor({40, 20}, F64);
  uint32_t v0 = out.version();
  N::addmm_out_cpu(bias, m1, m2, Scalar(1), Scalar(1), out);
  EXPECT_GT(out.version(), v0);
  for (size_t k = 0; k < prod.size(); ++k) want[k] = bv[k % 20] + prod[k];
  expect_values(out, want, 1e-12, 1e-10);
  Tensor empty = empty_tensor({0}, F64);
  N::addmm_out_cpu(bias, m1, m2, Scalar(1), Scalar(1), empty);
  expect_shape(empty, {40, 20});
  expect_values(empty, want, 1e-12, 1e-10);
  Tensor self = cpu::contiguous_of(out);
  Vals sv = values(self);
  N::addmm_out_cpu(self, m1, m2, Scalar(2), Scalar(1), self);
  for (size_t k = 0; k < prod.size(); ++k) want[k] = 2 * sv[k] + prod[k];
  expect_values(self, want, 1e-12, 1e-10);
  Tensor sq = random({20, 20}, F64, 74);
  Vals sqv = naive_mm(sq, sq);
  N::addmm_out_cpu(sq, sq, sq, Scalar(0), Scalar(1), sq);  // out aliases both operands
  expect_values(sq, sqv, 1e-12, 1e-10);
  Tensor wrong = empty_tensor({3, 3}, F64);
  EXPECT_EQ(error_of([&] { N::addmm_out_cpu(bias, m1, m2, 1, 1, wrong); }), ErrorCode::InvalidArgument);
}

TEST(Blas, ArchitectureAndThreadBudget) {
  std::string arch = cpu::blas_arch_name();
  EXPECT_FALSE(arch.empty());
  std::printf("BLIS sub-configuration for large products: %s\n", arch.c_str());
  int saved = get_num_threads();
  set_num_threads(1);
  EXPECT_EQ(cpu::blas_num_threads(), 1);
  set_num_threads(3);
  EXPECT_EQ(cpu::blas_num_threads(), 3);
  set_num_threads(saved);
  EXPECT_EQ(cpu::blas_num_threads(), saved);
}
