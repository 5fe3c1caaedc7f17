// SPDX-License-Identifier: BSD-3-Clause
// The generated op surface (tensorc_ops.hpp): free functions and methods,
// schema defaults as C++ defaults, overloads, optional and list arguments,
// tuple and list results, in-place and out variants.
#include <gtest/gtest.h>

#include <tensorc.hpp>

#include <cmath>
#include <type_traits>

using namespace tensorc;

namespace {
template <class T>
std::vector<T> vals(const Tensor& t) {
  return t.contiguous().to_vector<T>();
}
}  // namespace

TEST(Ops, DefaultsAndOverloads) {
  Tensor a = tensor({1.0f, 2.0f}), b = tensor({10.0f, 20.0f});
  EXPECT_EQ(vals<float>(add(a, b)), (std::vector<float>{11, 22}));     // alpha defaults to 1
  EXPECT_EQ(vals<float>(add(a, b, 2)), (std::vector<float>{21, 42}));  // alpha given
  EXPECT_EQ(vals<float>(add(a, 3)), (std::vector<float>{4, 5}));       // add.Scalar
  EXPECT_EQ(vals<float>(a.add(b, 0.5)), (std::vector<float>{6, 12}));  // the method
  EXPECT_EQ(vals<float>(sub(b, a, 2)), (std::vector<float>{8, 16}));
  EXPECT_EQ(vals<float>(div(b, tensor({3.0f, 3.0f}), "floor")), (std::vector<float>{3, 6}));  // str? argument
  EXPECT_EQ(vals<float>(div(b, 3.0, std::nullopt)), vals<float>(b / 3.0));
  EXPECT_EQ(vals<float>(pow(a, 2)), (std::vector<float>{1, 4}));
  EXPECT_EQ(vals<float>(pow(2, a)), (std::vector<float>{2, 4}));  // pow.Scalar (Scalar self)
  EXPECT_EQ(vals<float>(clamp(b, 12, std::nullopt)), (std::vector<float>{12, 20}));
  EXPECT_EQ(vals<float>(clamp(b, std::nullopt, 15)), (std::vector<float>{10, 15}));
  EXPECT_EQ(vals<float>(clamp(b, tensor({11.0f, 0.0f}), tensor({12.0f, 5.0f}))), (std::vector<float>{11, 5}));
  EXPECT_EQ(vals<float>(b.clamp_min(15)), (std::vector<float>{15, 20}));
  EXPECT_EQ(vals<float>(gelu(a, "tanh")).size(), 2u);
  EXPECT_EQ(vals<float>(round(tensor({1.26f}), 1)), (std::vector<float>{1.3f}));
}

TEST(Ops, ReductionsWithIntLists) {
  Tensor t = arange(6, kFloat32).view({2, 3});
  EXPECT_EQ(t.sum().item<float>(), 15);
  EXPECT_EQ(vals<float>(t.sum(1)), (std::vector<float>{3, 12}));  // a single int is a list of one
  EXPECT_EQ(vals<float>(t.sum({0})), (std::vector<float>{3, 5, 7}));
  EXPECT_EQ(t.sum({0, 1}).item<float>(), 15);
  EXPECT_EQ(t.sum({1}, true).sizes(), (std::vector<int64_t>{2, 1}));      // keepdim
  EXPECT_EQ(t.sum(OptionalIntArrayRef(std::nullopt)).item<float>(), 15);  // None: every dim
  EXPECT_EQ(t.sum(kFloat64).scalar_type(), kFloat64);                     // sum(self, *, dtype)
  std::vector<int64_t> dims{0};
  EXPECT_EQ(vals<float>(sum(t, dims)), (std::vector<float>{3, 5, 7}));
  EXPECT_EQ(t.mean().item<float>(), 2.5);
  EXPECT_EQ(vals<float>(t.amax()), (std::vector<float>{5}));  // int[1] dim=[]: all
  EXPECT_EQ(vals<float>(t.amax(1)), (std::vector<float>{2, 5}));
  EXPECT_EQ(vals<int64_t>(t.argmax(1)), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(t.argmax().item<int64_t>(), 5);
  EXPECT_NEAR(t.var(true).item<float>(), 3.5f, 1e-5);
  // Calls C++ default arguments cannot express (var(self, unbiased=True) and
  // var.correction(self, dim=None, ...) share their first parameter): an
  // overload for the first op in schema order, as the schema resolves them.
  EXPECT_NEAR(var(t).item<float>(), 3.5f, 1e-5);
  EXPECT_NEAR(t.var().item<float>(), 3.5f, 1e-5);
  EXPECT_NEAR(t.std().item<float>(), std::sqrt(3.5f), 1e-5);
  // var.dim(self, dim): unbiased=True, keepdim=False. (A braced `{1}` would
  // pick var(self, bool unbiased): C++ prefers int -> bool to a user-defined
  // conversion, as in libtorch; spell the list's type.)
  EXPECT_NEAR(var(t, IntArrayRef{1}).sum().item<float>(), 2.0f, 1e-5);
  EXPECT_EQ(t.std(std::vector<int64_t>{0}).sizes(), std::vector<int64_t>{3});
  EXPECT_NEAR(var(t, std::nullopt, 0).item<float>(), 35.0f / 12.0f, 1e-5);  // correction=0
  EXPECT_TRUE(t.any().item<bool>());
  EXPECT_EQ(vals<bool>(all(t, 1)), (std::vector<bool>{false, true}));
}

TEST(Ops, TupleResults) {
  Tensor t = tensor({3.0f, 9.0f, 1.0f, 4.0f}).view({2, 2});
  auto [values, indices] = t.max(1);
  EXPECT_EQ(vals<float>(values), (std::vector<float>{9, 4}));
  EXPECT_EQ(vals<int64_t>(indices), (std::vector<int64_t>{1, 1}));
  std::tuple<Tensor, Tensor> mn = min(t, 0, true);
  EXPECT_EQ(std::get<0>(mn).sizes(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(t.max().item<float>(), 9);
  static_assert(std::is_same_v<decltype(max(t, 0)), std::tuple<Tensor, Tensor>>);
}

TEST(Ops, ListResultsAndArguments) {
  Tensor t = arange(10);
  std::vector<Tensor> parts = t.split(4);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[2].numel(), 2);
  std::vector<Tensor> sized = t.split_with_sizes({3, 7});
  EXPECT_EQ(sized[1].numel(), 7);
  std::vector<Tensor> chunks = t.view({2, 5}).chunk(5, 1);
  EXPECT_EQ(chunks.size(), 5u);
  EXPECT_EQ(t.view({2, 5}).unbind().size(), 2u);
  EXPECT_EQ(vals<int64_t>(cat(parts)), vals<int64_t>(t));
  EXPECT_EQ(cat({t, t}, 0).numel(), 20);
  EXPECT_EQ(stack({t, t}, 1).sizes(), (std::vector<int64_t>{10, 2}));
  EXPECT_EQ(stack(chunks).sizes(), (std::vector<int64_t>{5, 2, 1}));
}

TEST(Ops, ViewsShapesAndConversions) {
  Tensor t = arange(6, kFloat32);
  EXPECT_EQ(t.view({2, -1}).sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.reshape({3, 2}).t().sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.view({2, 3}).permute({1, 0}).sizes(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(t.unsqueeze(0).squeeze(0).sizes(), std::vector<int64_t>{6});
  EXPECT_EQ(t.view({1, 6, 1}).squeeze().sizes(), std::vector<int64_t>{6});
  EXPECT_EQ(t.view({2, 3}).flatten().sizes(), std::vector<int64_t>{6});
  EXPECT_EQ(vals<float>(t.slice(0, 1, 5, 2)), (std::vector<float>{1, 3}));
  EXPECT_EQ(vals<float>(t.narrow(0, 2, 2)), (std::vector<float>{2, 3}));
  EXPECT_EQ(t.expand({2, 6}).sizes(), (std::vector<int64_t>{2, 6}));
  EXPECT_EQ(t.to(kFloat64).scalar_type(), kFloat64);
  EXPECT_EQ(t.to(kInt64).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(t.to(Device(kCPU), kInt32).scalar_type(), kInt32);
  EXPECT_EQ(t.to(kCPU).get(), t.get());  // hand-written to(Device): nothing to change, the same tensor
  EXPECT_EQ(t.to(kCPU, false, true).scalar_type(), kFloat32);  // copy=true: a new tensor of the same dtype
  EXPECT_NE(t.to(kCPU, false, true).get(), t.get());
  EXPECT_EQ(_to_copy(t, kFloat64, kCPU).scalar_type(), kFloat64);
  Tensor v = t.view({2, 3});
  EXPECT_EQ(v.to(v).get(), v.get());  // to.other with nothing to change: the same tensor
}

TEST(Ops, Factories) {
  EXPECT_EQ(zeros({2, 3}).scalar_type(), kFloat32);
  EXPECT_EQ(ones({2}, kInt64).sum().item<int64_t>(), 2);
  EXPECT_EQ(full({2}, 7).scalar_type(), kInt64);
  EXPECT_EQ(full({2}, 7.5).scalar_type(), kFloat32);
  EXPECT_EQ(full({2}, true).scalar_type(), kBool);
  EXPECT_EQ(empty({3, 0}).numel(), 0);
  EXPECT_EQ(eye(3).sum().item<float>(), 3);
  EXPECT_EQ(eye(2, 3).sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(vals<int64_t>(arange(2, 8, 3)), (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(vals<int64_t>(arange(2, 5)), (std::vector<int64_t>{2, 3, 4}));  // arange.start, the rest defaulted
  EXPECT_EQ(arange(0.0, 1.0, 0.25).numel(), 4);
  EXPECT_EQ(linspace(0, 1, 5).numel(), 5);
  EXPECT_EQ(zeros_like(eye(2), kInt64).scalar_type(), kInt64);
  EXPECT_EQ(full_like(eye(2), 3).sum().item<float>(), 12);
  EXPECT_EQ(randperm(5).sum().item<int64_t>(), 10);
}

TEST(Ops, InPlaceAndOutVariants) {
  Tensor t = ones({3});
  static_assert(std::is_same_v<decltype(t.add_(1)), Tensor&>);
  static_assert(std::is_same_v<decltype(add_out(t, t, t)), Tensor&>);
  const uint32_t v0 = t.version();
  t.add_(1).mul_(3);  // chained on the returned reference
  EXPECT_EQ(vals<float>(t), (std::vector<float>{6, 6, 6}));
  EXPECT_GT(t.version(), v0);
  t.zero_();
  EXPECT_EQ(t.sum().item<float>(), 0);
  t.fill_(2).sqrt_();
  EXPECT_FLOAT_EQ(t[0].item<float>(), std::sqrt(2.0f));
  Tensor out = empty({0});
  mul_out(out, tensor({1.0f, 2.0f}), tensor({3.0f, 4.0f}));
  EXPECT_EQ(vals<float>(out), (std::vector<float>{3, 8}));
  sum_out(out, ones({2, 2}), {1});
  EXPECT_EQ(vals<float>(out), (std::vector<float>{2, 2}));
  Tensor u = empty({2}).uniform_(2, 3);
  EXPECT_TRUE((u >= 2).all().item<bool>());
  Generator g(1);
  Tensor n1 = empty({4}).normal_(0, 1, g);
  g.set_current_seed(1);
  Tensor n2 = empty({4}).normal_(0, 1, g);
  EXPECT_EQ(n1.to_vector<float>(), n2.to_vector<float>());
  EXPECT_EQ(empty({3}).bernoulli_(1.0).sum().item<float>(), 3);
}

TEST(Ops, WhereMatmulAndNN) {
  Tensor c = tensor({true, false}), a = tensor({1.0f, 2.0f}), b = tensor({3.0f, 4.0f});
  EXPECT_EQ(vals<float>(where(c, a, b)), (std::vector<float>{1, 4}));
  EXPECT_EQ(vals<float>(a.where(c, b)), (std::vector<float>{1, 4}));  // method: self is not first
  Tensor m = arange(6, kFloat32).view({2, 3});
  EXPECT_EQ(m.matmul(m.t()).sizes(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(vals<float>(mm(m, m.t())), (std::vector<float>{5, 14, 14, 50}));
  EXPECT_EQ(vals<float>(addmm(ones({2, 2}), m, m.t(), 0.5, 2)), (std::vector<float>{10.5, 28.5, 28.5, 100.5}));
  Tensor logits = tensor({2.0f, 0.0f, 0.0f, 2.0f}).view({2, 2});
  Tensor target = tensor(std::vector<int64_t>{0, 1});
  const float ce = cross_entropy_loss(logits, target).item<float>();
  EXPECT_NEAR(ce, std::log(1 + std::exp(-2.0f)), 1e-5);
  EXPECT_NEAR(cross_entropy_loss(logits, target, std::nullopt, Reduction::Sum).item<float>(), 2 * ce, 1e-5);
  EXPECT_NEAR(softmax(logits, 1).sum().item<float>(), 2.0f, 1e-5);
  EXPECT_EQ(log_softmax(logits, 1, kFloat64).scalar_type(), kFloat64);
  Tensor x = randn({4, 3}), w = randn({5, 3});
  EXPECT_EQ(linear(x, w).sizes(), (std::vector<int64_t>{4, 5}));  // Tensor? bias = None
  Tensor ln = layer_norm(x, {3}, ones({3}), zeros({3}));
  EXPECT_NEAR(ln.mean().item<float>(), 0.0f, 1e-5);
  auto [y, mean, rstd] = native_layer_norm(x, {3}, std::nullopt, std::nullopt, 1e-5);
  auto [gx, gw, gb] = native_layer_norm_backward(ones({4, 3}), x, {3}, mean, rstd, ones({3}), zeros({3}),
                                                 {true, false, true});  // bool[3]
  EXPECT_TRUE(gx.defined());
  EXPECT_FALSE(gw.defined());  // masked off: an undefined tensor
  EXPECT_TRUE(gb.defined());
  EXPECT_EQ(dropout(x, 0.5, false).get() != nullptr, true);
  EXPECT_EQ(vals<float>(dropout(x, 0.0, true)), vals<float>(x));
  EXPECT_EQ(embedding(eye(3), tensor(std::vector<int64_t>{2, 0})).sizes(), (std::vector<int64_t>{2, 3}));
}
