// SPDX-License-Identifier: BSD-3-Clause
// The hand-written part of the wrapper: metadata, creation, data access,
// indexing, operators, printing and errors.
#include <gtest/gtest.h>

#include <tensorc.hpp>

#include <cstdint>
#include <sstream>

using namespace tensorc;
using namespace tensorc::indexing;

namespace {
template <class T>
std::vector<T> vals(const Tensor& t) {
  return t.contiguous().to_vector<T>();
}
}  // namespace

TEST(Tensor, Metadata) {
  Tensor t = zeros({2, 3}, kFloat64);
  EXPECT_TRUE(t.defined());
  EXPECT_EQ(t.dim(), 2);
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(t.size(-1), 3);
  EXPECT_EQ(t.stride(0), 3);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.scalar_type(), kFloat64);
  EXPECT_EQ(t.dtype(), ScalarType::Float64);
  EXPECT_EQ(t.element_size(), 8u);
  EXPECT_EQ(t.device(), Device(kCPU));
  EXPECT_TRUE(t.is_cpu());
  EXPECT_FALSE(t.is_cuda());
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_FALSE(t.t().is_contiguous());
  EXPECT_EQ(t.t().strides(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(t[1].storage_offset(), 3);
  Tensor big = zeros({1, 1, 1, 1, 1, 1, 1, 1, 1, 2});  // more dims than the inline buffer
  EXPECT_EQ(big.sizes().size(), 10u);
  EXPECT_EQ(big.sizes().back(), 2);
}

TEST(Tensor, CreationFromData) {
  Tensor a = tensor({1.0f, 2.0f, 3.0f});
  EXPECT_EQ(a.scalar_type(), kFloat32);
  EXPECT_EQ(a.sizes(), std::vector<int64_t>{3});
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{1, 2, 3}));
  Tensor b = tensor(std::vector<int64_t>{4, 5});
  EXPECT_EQ(b.scalar_type(), kInt64);
  Tensor c = tensor({true, false});
  EXPECT_EQ(c.scalar_type(), kBool);
  const double raw[6] = {1, 2, 3, 4, 5, 6};
  Tensor d = from_data(raw, {2, 3});
  EXPECT_EQ(d.scalar_type(), kFloat64);
  EXPECT_EQ(d.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(vals<double>(d.t()), (std::vector<double>{1, 4, 2, 5, 3, 6}));
}

TEST(Tensor, FromBlobSharesMemory) {
  float data[6] = {0, 1, 2, 3, 4, 5};
  Tensor t = from_blob(data, {2, 3});
  EXPECT_EQ(t.data_ptr(), static_cast<void*>(data));
  t.add_(1);
  EXPECT_EQ(data[5], 6.0f);
  Tensor s = from_blob(data, {3, 2}, {1, 3});  // strided: the transpose
  EXPECT_EQ(vals<float>(s), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  int64_t ints[2] = {7, 8};
  Tensor i = from_blob(ints, {2}, kInt64);
  EXPECT_EQ(i.sum().item<int64_t>(), 15);
  EXPECT_THROW(from_blob(data, {2, 3}, {1}), InvalidArgumentError);
}

TEST(Tensor, FromBlobDeleterNotCalledOnFailure) {
  bool called = false;
  float x = 0;
  EXPECT_THROW(from_blob(&x, {-1}, [&](void*) { called = true; }), InvalidArgumentError);
  EXPECT_FALSE(called);
  {
    auto* heap = new std::vector<double>(3, 2.0);
    Tensor t = from_blob(
        heap->data(), {3}, [heap](void*) { delete heap; }, kFloat64);
    EXPECT_DOUBLE_EQ(t.sum().item<double>(), 6.0);
  }  // freed by the deleter (LeakSanitizer checks)
}

TEST(Tensor, ItemAndScalar) {
  EXPECT_EQ(full({}, 2.5).item<double>(), 2.5);
  EXPECT_EQ(full({1, 1}, 7, kInt64).item<int64_t>(), 7);
  EXPECT_EQ(full({1}, 7, kInt64).item<float>(), 7.0f);
  Scalar s = tensor({true}).item();
  EXPECT_TRUE(s.is_boolean());
  EXPECT_TRUE(s.toBool());
  EXPECT_THROW(ones({2}).item(), InvalidArgumentError);
  EXPECT_TRUE(Scalar(3).is_integral());
  EXPECT_TRUE(Scalar(3u).is_integral());
  EXPECT_TRUE(Scalar(int8_t(3)).is_integral());
  EXPECT_TRUE(Scalar(3.0f).is_floating_point());
  EXPECT_TRUE(Scalar(false).is_boolean());
  EXPECT_EQ(Scalar(2.75).to<int>(), 2);
}

TEST(Tensor, DataPtrAndToVectorCheckTheDtype) {
  Tensor t = ones({2}, kFloat32);
  EXPECT_NE(t.data_ptr<float>(), nullptr);
  EXPECT_THROW(t.data_ptr<double>(), TypeError);
  EXPECT_THROW(t.to_vector<int64_t>(), TypeError);
}

TEST(Tensor, Accessor) {
  Tensor t = arange(12, kFloat32).view({3, 4});
  auto a = t.accessor<float, 2>();
  EXPECT_EQ(a.size(0), 3);
  EXPECT_EQ(a.size(1), 4);
  EXPECT_EQ(a[2][3], 11.0f);
  a[1][2] = -1.0f;  // writes through
  EXPECT_EQ(t[1][2].item<float>(), -1.0f);
  // Strides: the transpose reads the same memory.
  Tensor tt = t.t();
  auto b = tt.accessor<float, 2>();
  EXPECT_EQ(b.stride(0), 1);
  EXPECT_EQ(b[2][1], -1.0f);
  float sum = 0;
  for (int64_t i = 0; i < b.size(0); ++i)
    for (int64_t j = 0; j < b.size(1); ++j) sum += b[i][j];
  EXPECT_EQ(sum, t.sum().item<float>());
  Tensor cube = arange(24, kInt64).view({2, 3, 4});
  auto c = cube.accessor<int64_t, 3>();  // (on a temporary it would not compile: it would dangle)
  EXPECT_EQ(c[1][2][3], 23);
  // Checked once: dtype, dim.
  EXPECT_THROW((t.accessor<double, 2>()), TypeError);
  EXPECT_THROW((t.accessor<float, 3>()), InvalidArgumentError);
}

TEST(Tensor, Printing) {
  std::ostringstream os;
  os << tensor({1.0f, 2.0f}) << ' ' << kFloat64 << ' ' << Device(kCPU) << ' ' << Device(kCUDA, 1) << ' ' << Scalar(3)
     << ' ' << IntArrayRef({2, 3});
  EXPECT_EQ(os.str(), "tensor([1., 2.]) float64 cpu cuda:1 3 [2, 3]");
  EXPECT_EQ(Tensor().to_string(), "[ Tensor (undefined) ]");
  // Longer than the first buffer: the retry path.
  std::string long_text = ones({100}).to_string();
  EXPECT_GT(long_text.size(), 256u);
  EXPECT_EQ(long_text.rfind("tensor([1., 1.", 0), 0u);
}

TEST(Tensor, Indexing) {
  Tensor t = arange(24).view({2, 3, 4});
  EXPECT_EQ(t[1].sizes(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(t[1][2][3].item<int64_t>(), 23);
  EXPECT_EQ(t.index({Slice(), 0}).sizes(), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(t.index({Slice(), 0, None}).sizes(), (std::vector<int64_t>{2, 1, 4}));
  EXPECT_EQ(t.index({Ellipsis, 1}).sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.index({"...", 1}).sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.index({None, Ellipsis, None}).sizes(), (std::vector<int64_t>{1, 2, 3, 4, 1}));
  EXPECT_EQ(t.index({1, Slice(1, None), Slice(None, None, 2)}).sizes(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(vals<int64_t>(t.index({1, Slice(1, None), Slice(None, None, 2)})), (std::vector<int64_t>{16, 18, 20, 22}));
  EXPECT_EQ(t.index({-1, -1, -1}).item<int64_t>(), 23);
  EXPECT_EQ(vals<int64_t>(t.index({0, 0, Slice(-2)})), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.index({}).sizes(), t.sizes());
  EXPECT_THROW(t.index({0, 0, 0, 0}), IndexError);
  EXPECT_THROW(t.index({Ellipsis, 0, Ellipsis}), IndexError);
  EXPECT_THROW(t[5], IndexError);
  EXPECT_THROW(t.index({"..x"}), InvalidArgumentError);
}

TEST(Tensor, IndexAssignment) {
  Tensor t = zeros({2, 3});
  t.index({Slice(), 0}) = 5;  // a Scalar into a view
  t[1].index({2}) = 7.5;
  t.index_put_({0, Slice(1, None)}, tensor({1.0f, 2.0f}));
  t.index_put_({1, 1}, -1);
  EXPECT_EQ(vals<float>(t), (std::vector<float>{5, 1, 2, 5, -1, 7.5}));
  t.index({Slice(), Slice(1, 2)}) = full({2, 1}, 9.0);  // a Tensor into a view (copy_)
  EXPECT_EQ(vals<float>(t), (std::vector<float>{5, 9, 2, 5, 9, 7.5}));
  // Assigning to a variable rebinds it; data is untouched.
  Tensor u = t;
  u = zeros({1});
  EXPECT_EQ(t.numel(), 6);
}

TEST(Tensor, Operators) {
  Tensor a = tensor({1.0f, 2.0f, 3.0f}), b = tensor({4.0f, 5.0f, 6.0f});
  EXPECT_EQ(vals<float>(a + b), (std::vector<float>{5, 7, 9}));
  EXPECT_EQ(vals<float>(a - b), (std::vector<float>{-3, -3, -3}));
  EXPECT_EQ(vals<float>(a * b), (std::vector<float>{4, 10, 18}));
  EXPECT_EQ(vals<float>(b / a), (std::vector<float>{4, 2.5, 2}));
  EXPECT_EQ(vals<float>(a + 1), (std::vector<float>{2, 3, 4}));
  EXPECT_EQ(vals<float>(1 + a), (std::vector<float>{2, 3, 4}));
  EXPECT_EQ(vals<float>(10 - a), (std::vector<float>{9, 8, 7}));
  EXPECT_EQ(vals<float>(a - 1.5), (std::vector<float>{-0.5, 0.5, 1.5}));
  EXPECT_EQ(vals<float>(2 * a), (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(vals<float>(a * 2u), (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(vals<float>(a / 2), (std::vector<float>{0.5, 1, 1.5}));
  EXPECT_EQ(vals<float>(6 / a), (std::vector<float>{6, 3, 2}));
  EXPECT_EQ(vals<float>(-a), (std::vector<float>{-1, -2, -3}));
  EXPECT_EQ(vals<float>(b % a), (std::vector<float>{0, 1, 0}));
  EXPECT_EQ(vals<bool>(a == 2), (std::vector<bool>{false, true, false}));
  EXPECT_EQ(vals<bool>(a != b), (std::vector<bool>{true, true, true}));
  EXPECT_EQ(vals<bool>(a < 2), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(vals<bool>(2 < a), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(vals<bool>(a <= b), (std::vector<bool>{true, true, true}));
  EXPECT_EQ(vals<bool>(a > 2), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(vals<bool>(a >= 2), (std::vector<bool>{false, true, true}));
  EXPECT_EQ(vals<bool>(2 >= a), (std::vector<bool>{true, true, false}));
  Tensor i = tensor(std::vector<int64_t>{6, 3}), j = tensor(std::vector<int64_t>{3, 5});
  EXPECT_EQ(vals<int64_t>(i & j), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(vals<int64_t>(i | 1), (std::vector<int64_t>{7, 3}));
  EXPECT_EQ(vals<int64_t>(i ^ j), (std::vector<int64_t>{5, 6}));
  EXPECT_EQ(vals<int64_t>(~i), (std::vector<int64_t>{-7, -4}));
  Tensor c = a.clone();
  c += b;
  c -= 1;
  c *= 2;
  c /= a;
  EXPECT_EQ(vals<float>(c), (std::vector<float>{8, 6, 16.0f / 3.0f}));
  c += c;  // aliasing operands
  EXPECT_FLOAT_EQ(c[0].item<float>(), 16.0f);
}

TEST(Tensor, Errors) {
  Tensor a = ones({2, 3}), b = ones({4});
  try {
    (void)(a + b);
    FAIL() << "expected an exception";
  } catch (const InvalidArgumentError& e) {
    EXPECT_EQ(e.code(), Status::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("add"), std::string::npos) << e.what();
  }
  EXPECT_THROW(a.size(5), IndexError);
  EXPECT_THROW(a.transpose(0, 7), IndexError);
  EXPECT_THROW(a.stride(-3), IndexError);
  EXPECT_THROW(ones({2}, kInt64).requires_grad_(), TypeError);
  EXPECT_THROW(Tensor().dim(), InvalidArgumentError);  // an undefined tensor is a NULL handle
  EXPECT_THROW(Tensor() + a, InvalidArgumentError);
  // Every category derives Error, which derives std::runtime_error.
  try {
    a.view({7});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(e.code(), Status::Ok);
    EXPECT_STRNE(status_name(e.code()), "ok");
  }
  try {
    (void)a.matmul(a);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()), "");
  }
}

TEST(Tensor, Generators) {
  Generator g(42);
  Tensor a = randn({5}, g), b;
  g.set_current_seed(42);
  b = randn({5}, g);
  EXPECT_EQ(a.to_vector<float>(), b.to_vector<float>());
  EXPECT_EQ(g.current_seed(), 42u);
  manual_seed(3);
  Tensor c = rand({4});
  manual_seed(3);
  EXPECT_EQ(c.to_vector<float>(), rand({4}).to_vector<float>());
  Generator copy = g;  // shares the generator
  EXPECT_EQ(copy.get(), g.get());
  EXPECT_EQ(Generator::default_generator().current_seed(), 3u);
}

TEST(Tensor, AdvancedIndexing) {
  Tensor t = arange(12).view({3, 4});
  Tensor rows = tensor(std::vector<int64_t>{2, 0});
  EXPECT_EQ(t.index({rows}).sizes(), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(vals<int64_t>(t.index({rows, 1})), (std::vector<int64_t>{9, 1}));
  EXPECT_EQ(vals<int64_t>(t.index({Slice(), rows})), (std::vector<int64_t>{2, 0, 6, 4, 10, 8}));  // dim 1
  EXPECT_EQ(vals<int64_t>(t.index({t > 8})), (std::vector<int64_t>{9, 10, 11}));                  // a bool mask
  EXPECT_EQ(vals<int64_t>(t.index({Slice(1, None), tensor({true, false, false, true})})),
            (std::vector<int64_t>{4, 7, 8, 11}));
  // Writes through index_put_ (an advanced index gives a copy, so assigning to it would not).
  Tensor u = zeros({3, 4}, kInt64);
  u.index_put_({u.eq(0).logical_and(t.remainder(2).eq(0))}, 1);  // scalar into a mask
  EXPECT_EQ(u.sum().item<int64_t>(), 6);
  u.index_put_({Slice(), rows}, full({3, 2}, 7, kInt64));  // a tensor of values
  EXPECT_EQ(vals<int64_t>(u.index({0})), (std::vector<int64_t>{7, 0, 7, 0}));
  // Copies and assignment of index lists keep exact reference counts.
  EXPECT_EQ(rows.use_count(), 1);
  {
    std::vector<indexing::TensorIndex> ix{Slice(), rows};
    EXPECT_EQ(rows.use_count(), 2);
    std::vector<indexing::TensorIndex> copy = ix;
    EXPECT_EQ(rows.use_count(), 3);
    copy[1] = 0;
    EXPECT_EQ(rows.use_count(), 2);
    EXPECT_EQ(t.index(ix).sizes(), (std::vector<int64_t>{3, 2}));
  }
  EXPECT_EQ(rows.use_count(), 1);
  EXPECT_THROW(t.index({rows, rows, rows}), IndexError);
}
