// SPDX-License-Identifier: BSD-3-Clause
// Reference counts across the binding boundary, exactly: every copy retains
// once, every move steals, every destruction releases once. A missing
// release shows as a count too high (and a leak under LeakSanitizer); an
// extra release as a count too low (and a use-after-free under ASan).
#include <gtest/gtest.h>

#include <tensorc.hpp>

#include <map>
#include <utility>

using tensorc::Tensor;

namespace {
Tensor fresh() { return tensorc::ones({2, 2}); }
}  // namespace

TEST(RefCount, FreshResultHasOneReference) {
  Tensor a = fresh();
  EXPECT_EQ(a.use_count(), 1);
  EXPECT_EQ(Tensor().use_count(), 0);
}

TEST(RefCount, CopyConstructRetains) {
  Tensor a = fresh();
  {
    Tensor b = a;
    EXPECT_EQ(a.get(), b.get());
    EXPECT_EQ(a.use_count(), 2);
  }
  EXPECT_EQ(a.use_count(), 1);
}

TEST(RefCount, MoveConstructSteals) {
  Tensor a = fresh();
  tc_tensor h = a.get();
  Tensor b = std::move(a);
  EXPECT_FALSE(a.defined());  // NOLINT(bugprone-use-after-move): moved-from is undefined
  EXPECT_EQ(b.get(), h);
  EXPECT_EQ(b.use_count(), 1);
}

TEST(RefCount, CopyAssignReleasesTheOldAndRetainsTheNew) {
  Tensor a = fresh(), b = fresh();
  Tensor keep_b = b;  // watch b's tensor through a second handle
  EXPECT_EQ(keep_b.use_count(), 2);
  b = a;
  EXPECT_EQ(keep_b.use_count(), 1);
  EXPECT_EQ(a.use_count(), 2);
  EXPECT_EQ(b.get(), a.get());
}

TEST(RefCount, MoveAssignReleasesTheOldAndSteals) {
  Tensor a = fresh(), b = fresh();
  Tensor keep_b = b;
  tc_tensor h = a.get();
  b = std::move(a);
  EXPECT_EQ(keep_b.use_count(), 1);
  EXPECT_EQ(b.get(), h);
  EXPECT_EQ(b.use_count(), 1);
  EXPECT_FALSE(a.defined());  // NOLINT
}

TEST(RefCount, SelfAssignment) {
  Tensor a = fresh();
  Tensor& alias = a;
  a = alias;  // copy self-assignment
  EXPECT_EQ(a.use_count(), 1);
  a = std::move(alias);  // move self-assignment leaves it intact
  EXPECT_TRUE(a.defined());
  EXPECT_EQ(a.use_count(), 1);
  Tensor b = a;
  b = a;  // same tensor, two handles
  EXPECT_EQ(a.use_count(), 2);
}

TEST(RefCount, AssignUndefined) {
  Tensor a = fresh();
  Tensor b = a;
  b = Tensor();
  EXPECT_FALSE(b.defined());
  EXPECT_EQ(a.use_count(), 1);
  Tensor c;
  c = Tensor();  // undefined over undefined
  EXPECT_FALSE(c.defined());
}

TEST(RefCount, Swap) {
  Tensor a = fresh(), b = tensorc::zeros({3});
  tc_tensor ha = a.get(), hb = b.get();
  std::swap(a, b);
  EXPECT_EQ(a.get(), hb);
  EXPECT_EQ(b.get(), ha);
  EXPECT_EQ(a.use_count(), 1);
  EXPECT_EQ(b.use_count(), 1);
  swap(a, b);  // the ADL overload
  EXPECT_EQ(a.get(), ha);
  EXPECT_EQ(a.use_count(), 1);
}

TEST(RefCount, AdoptBorrowRelease) {
  Tensor a = fresh();
  Tensor b = Tensor::borrow(a.get());
  EXPECT_EQ(a.use_count(), 2);
  tc_tensor h = b.release();
  EXPECT_FALSE(b.defined());
  EXPECT_EQ(a.use_count(), 2);  // the released handle still holds its reference
  Tensor c = Tensor::adopt(h);  // and hands it over without a retain
  EXPECT_EQ(a.use_count(), 2);
  c = Tensor();
  EXPECT_EQ(a.use_count(), 1);
}

TEST(RefCount, OpResultsAndInputs) {
  Tensor a = fresh(), b = fresh();
  {
    Tensor c = a + b;
    Tensor d = tensorc::add(a, b, 2);
    Tensor e = a.mul(b);
    EXPECT_EQ(c.use_count(), 1);
    EXPECT_EQ(d.use_count(), 1);
    EXPECT_EQ(e.use_count(), 1);
    EXPECT_EQ(a.use_count(), 1);  // inputs are borrowed
    EXPECT_EQ(b.use_count(), 1);
  }
  // A chain of temporaries releases every intermediate.
  Tensor r = ((a + b) * 2 - 1).sum();
  EXPECT_EQ(r.use_count(), 1);
  EXPECT_EQ(a.use_count(), 1);
}

TEST(RefCount, InPlaceReturnsSelfWithoutANewReference) {
  Tensor a = fresh();
  Tensor& r = a.add_(1);
  EXPECT_EQ(&r, &a);
  EXPECT_EQ(a.use_count(), 1);
  Tensor& r2 = tensorc::mul_(a, 2);
  EXPECT_EQ(&r2, &a);
  a += 1;
  a *= a;
  EXPECT_EQ(a.use_count(), 1);
  Tensor out = tensorc::empty({0});
  Tensor& r3 = tensorc::add_out(out, a, a);
  EXPECT_EQ(&r3, &out);
  EXPECT_EQ(out.use_count(), 1);
}

TEST(RefCount, ViewsHoldTheirBase) {
  Tensor a = tensorc::arange(6).view({2, 3});
  const int64_t base = a.use_count();
  {
    Tensor row = a[0];
    EXPECT_EQ(row.use_count(), 1);
    EXPECT_GE(a.use_count(), base);
  }
  EXPECT_EQ(a.use_count(), base);
}

TEST(RefCount, ListResults) {
  Tensor a = tensorc::arange(8);
  EXPECT_EQ(a.use_count(), 1);
  {
    std::vector<Tensor> parts = tensorc::split(a, 2);
    ASSERT_EQ(parts.size(), 4u);
    for (const Tensor& p : parts) EXPECT_EQ(p.use_count(), 1);
    const int64_t with_views = a.use_count();
    EXPECT_GE(with_views, 1);
    parts.pop_back();
    EXPECT_LE(a.use_count(), with_views);
  }
  EXPECT_EQ(a.use_count(), 1);  // every view released, nothing twice
}

TEST(RefCount, ListArguments) {
  Tensor a = fresh(), b = fresh();
  Tensor c = tensorc::cat({a, b});  // a braced list copies (retains) for the call only
  EXPECT_EQ(a.use_count(), 1);
  EXPECT_EQ(b.use_count(), 1);
  std::vector<Tensor> v{a, b};
  EXPECT_EQ(a.use_count(), 2);
  Tensor s = tensorc::stack(v);  // a vector is passed without copies
  EXPECT_EQ(a.use_count(), 2);
  v.clear();
  EXPECT_EQ(a.use_count(), 1);
  EXPECT_EQ(c.use_count(), 1);
  EXPECT_EQ(s.use_count(), 1);
}

TEST(RefCount, OptionalArguments) {
  Tensor x = tensorc::randn({4, 3}), w = tensorc::randn({2, 3}), b = tensorc::randn({2});
  Tensor y = tensorc::linear(x, w, b);
  EXPECT_EQ(b.use_count(), 1);
  EXPECT_EQ(w.use_count(), 1);
  EXPECT_EQ(y.use_count(), 1);
}

TEST(RefCount, TupleResults) {
  Tensor a = tensorc::randn({3, 4});
  auto [values, indices] = tensorc::max(a, 1);
  EXPECT_EQ(values.use_count(), 1);
  EXPECT_EQ(indices.use_count(), 1);
  EXPECT_EQ(a.use_count(), 1);
}

TEST(RefCount, Grad) {
  Tensor w = tensorc::ones({3}).requires_grad_();
  EXPECT_EQ(w.use_count(), 1);
  {
    Tensor loss = (w * w).sum();
    EXPECT_GT(w.use_count(), 1);  // the graph saved w
    loss.backward();
  }
  EXPECT_EQ(w.use_count(), 1);  // graph freed with loss
  Tensor g = w.grad();
  EXPECT_EQ(g.use_count(), 2);  // w's .grad and this handle
  {
    Tensor g2 = w.grad();
    EXPECT_EQ(g2.get(), g.get());
    EXPECT_EQ(g.use_count(), 3);
  }
  EXPECT_EQ(g.use_count(), 2);
  w.set_grad(Tensor());
  EXPECT_EQ(g.use_count(), 1);
  EXPECT_FALSE(w.grad().defined());
}

TEST(RefCount, AutogradGradResults) {
  Tensor x = tensorc::ones({2}).requires_grad_();
  Tensor y = (x * 3).sum();
  auto gs = tensorc::autograd::grad({y}, {x});
  ASSERT_EQ(gs.size(), 1u);
  EXPECT_EQ(gs[0].use_count(), 1);
  EXPECT_EQ(gs[0].to_vector<float>(), (std::vector<float>{3, 3}));
}

TEST(RefCount, ContainersOfTensors) {
  Tensor a = fresh();
  {
    std::vector<Tensor> v(5, a);
    EXPECT_EQ(a.use_count(), 6);
    v.reserve(100);  // reallocation moves: no change
    EXPECT_EQ(a.use_count(), 6);
    std::map<int, Tensor> m;
    m[1] = a;
    m.emplace(2, std::move(v[0]));
    EXPECT_EQ(a.use_count(), 7);
    std::optional<Tensor> o = a;
    EXPECT_EQ(a.use_count(), 8);
  }
  EXPECT_EQ(a.use_count(), 1);
}

TEST(RefCount, FromBlobDeleterRunsOnceWithTheLastReference) {
  int calls = 0;
  float data[4] = {1, 2, 3, 4};
  {
    Tensor t = tensorc::from_blob(data, {4}, [&](void* p) {
      EXPECT_EQ(p, data);
      ++calls;
    });
    Tensor view = t.index({tensorc::indexing::Slice(1, 3)});
    t = Tensor();
    EXPECT_EQ(calls, 0);  // the view keeps the memory
    EXPECT_EQ(view.to_vector<float>(), (std::vector<float>{2, 3}));
  }
  EXPECT_EQ(calls, 1);
}
