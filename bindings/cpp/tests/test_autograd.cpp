// SPDX-License-Identifier: BSD-3-Clause
// Autograd through the wrapper: backward, grad, guards, autograd::grad,
// custom functions (class and lambdas), exceptions thrown in callbacks.
#include <gtest/gtest.h>

#include <tensorc.hpp>

#include <cmath>
#include <stdexcept>
#include <string>
#include <thread>

using namespace tensorc;
using tensorc::autograd::AutogradContext;
using tensorc::autograd::variable_list;

namespace {
template <class T>
std::vector<T> vals(const Tensor& t) {
  return t.contiguous().to_vector<T>();
}
}  // namespace

TEST(Autograd, BackwardAndGrad) {
  Tensor w = tensor({1.0f, 2.0f, 3.0f}).requires_grad_();
  EXPECT_TRUE(w.requires_grad());
  EXPECT_TRUE(w.is_leaf());
  EXPECT_FALSE(w.grad().defined());
  Tensor y = (w * w).sum();
  EXPECT_FALSE(y.is_leaf());
  EXPECT_EQ(y.grad_fn_name(), "SumBackward0");
  EXPECT_EQ(w.grad_fn_name(), "");
  y.backward();
  EXPECT_EQ(vals<float>(w.grad()), (std::vector<float>{2, 4, 6}));
  (w * 2).sum().backward();  // accumulates
  EXPECT_EQ(vals<float>(w.grad()), (std::vector<float>{4, 6, 8}));
  w.set_grad(Tensor());
  EXPECT_FALSE(w.grad().defined());
  Tensor z = w * 3;
  z.backward(ones({3}));  // an explicit gradient for a non-scalar root
  EXPECT_EQ(vals<float>(w.grad()), (std::vector<float>{3, 3, 3}));
}

TEST(Autograd, RetainGraphAndErrors) {
  Tensor w = tensor({2.0f}).requires_grad_();
  Tensor y = (w * w).sum();
  y.backward(Tensor(), true);
  y.backward();  // the graph was retained
  EXPECT_EQ(vals<float>(w.grad()), (std::vector<float>{8}));
  EXPECT_THROW(y.backward(), RuntimeError);                // freed now
  EXPECT_THROW(ones({2}).sum().backward(), RuntimeError);  // nothing requires grad
}

TEST(Autograd, RetainGradDetachAndVersions) {
  Tensor w = tensor({1.0f, 2.0f}).requires_grad_();
  Tensor h = w * 2;
  h.retain_grad();
  h.sum().backward();
  EXPECT_EQ(vals<float>(h.grad()), (std::vector<float>{1, 1}));
  Tensor d = h.detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_EQ(d.data_ptr(), h.data_ptr());
  Tensor e = w * 1;
  e.detach_();
  EXPECT_FALSE(e.requires_grad());
  // Modifying a saved tensor in place makes backward fail with a clear error.
  Tensor a = tensor({1.0f, 2.0f}).requires_grad_();
  Tensor b = a * 1;
  Tensor c = (b * b).sum();
  {
    NoGradGuard ng;
    b.add_(1);
  }
  EXPECT_THROW(c.backward(), RuntimeError);
}

TEST(Autograd, GradModeGuards) {
  Tensor w = ones({2}).requires_grad_();
  EXPECT_TRUE(GradMode::is_enabled());
  {
    NoGradGuard ng;
    EXPECT_FALSE(GradMode::is_enabled());
    EXPECT_FALSE((w * 2).requires_grad());
    {
      EnableGradGuard eg;
      EXPECT_TRUE((w * 2).requires_grad());
    }
    EXPECT_FALSE(GradMode::is_enabled());
    {
      AutoGradMode on(true);
      EXPECT_TRUE(GradMode::is_enabled());
    }
  }
  EXPECT_TRUE(GradMode::is_enabled());
  // Restored on exceptions too.
  try {
    NoGradGuard ng;
    throw std::runtime_error("x");
  } catch (const std::runtime_error&) {}
  EXPECT_TRUE(GradMode::is_enabled());
}

TEST(Autograd, FunctionalGrad) {
  Tensor x = tensor({1.0f, 2.0f}).requires_grad_(), y = tensor({3.0f, 4.0f}).requires_grad_();
  Tensor out = (x * y).sum();
  variable_list g = autograd::grad({out}, {x, y}, {}, true);
  EXPECT_EQ(vals<float>(g[0]), (std::vector<float>{3, 4}));
  EXPECT_EQ(vals<float>(g[1]), (std::vector<float>{1, 2}));
  EXPECT_FALSE(x.grad().defined());  // .grad untouched
  // Higher order: d/dx sum(x^3) = 3x^2, d2 = 6x.
  Tensor cube = (x * x * x).sum();
  variable_list g1 = autograd::grad({cube}, {x}, {}, std::nullopt, true);
  EXPECT_TRUE(g1[0].requires_grad());
  variable_list g2 = autograd::grad({g1[0].sum()}, {x});
  EXPECT_EQ(vals<float>(g2[0]), (std::vector<float>{6, 12}));
  // Unused inputs.
  Tensor unused = ones({1}).requires_grad_();
  Tensor s = (x * 2).sum();
  EXPECT_THROW(autograd::grad({s}, {unused}, {}, true), RuntimeError);
  variable_list gu = autograd::grad({s}, {x, unused}, {}, false, false, true);
  EXPECT_TRUE(gu[0].defined());
  EXPECT_FALSE(gu[1].defined());
  EXPECT_THROW(autograd::grad({s, s}, {x}, {ones({})}), InvalidArgumentError);
  // Several roots with autograd::backward.
  Tensor p = (x * 2).sum(), q = (x * 3).sum();
  autograd::backward({p, q});
  EXPECT_EQ(vals<float>(x.grad()), (std::vector<float>{5, 5}));
}

// ---- custom functions ----

struct MulConstant : autograd::Function<MulConstant> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, double k) {
    EXPECT_FALSE(GradMode::is_enabled());  // forward runs without recording
    ctx->saved_data["k"] = k;
    return x * k;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    const double k = std::any_cast<double>(ctx->saved_data["k"]);
    return {g[0] * k, Tensor()};  // none for the double
  }
};

struct Square : autograd::Function<Square> {
  static constexpr const char* name = "MySquare";
  static Tensor forward(AutogradContext* ctx, const Tensor& x) {
    ctx->save_for_backward({x});
    return x * x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    Tensor x = ctx->get_saved_variables()[0];
    return {g[0] * 2 * x};
  }
};

struct SplitMinMax : autograd::Function<SplitMinMax> {  // two outputs, one non-differentiable
  static variable_list forward(AutogradContext* ctx, const Tensor& a, const Tensor& b) {
    Tensor sum = a + b, mask = a > b;
    ctx->mark_non_differentiable({mask});
    ctx->saved_data["needs"] = std::make_pair(ctx->needs_input_grad(0), ctx->needs_input_grad(1));
    return {sum, mask};
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    auto needs = std::any_cast<std::pair<bool, bool>>(ctx->saved_data["needs"]);
    EXPECT_EQ(needs.first, ctx->needs_input_grad(0));
    EXPECT_EQ(needs.second, ctx->needs_input_grad(1));
    EXPECT_EQ(g.size(), 2u);
    return {needs.first ? g[0] : Tensor(), needs.second ? g[0] * 10 : Tensor()};
  }
};

struct InPlaceDouble : autograd::Function<InPlaceDouble> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    x.mul_(2);
    ctx->mark_dirty({x});
    return x;
  }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0] * 2}; }
};

struct ThrowsInForward : autograd::Function<ThrowsInForward> {
  static Tensor forward(AutogradContext*, const Tensor&) { throw std::out_of_range("forward went wrong"); }
  static variable_list backward(AutogradContext*, variable_list g) { return g; }
};

struct ThrowsInBackward : autograd::Function<ThrowsInBackward> {
  struct Custom {
    int code;
  };
  static Tensor forward(AutogradContext*, const Tensor& x) { return x * 1; }
  static variable_list backward(AutogradContext*, variable_list) { throw Custom{42}; }
};

struct OpFailsInBackward : autograd::Function<OpFailsInBackward> {
  static Tensor forward(AutogradContext*, const Tensor& x) { return x * 1; }
  static variable_list backward(AutogradContext*, variable_list g) {
    return {g[0].view({7, 7})};  // a tensorc error inside the callback
  }
};

struct WrongGradCount : autograd::Function<WrongGradCount> {
  static Tensor forward(AutogradContext*, const Tensor& x) { return x * 1; }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0], g[0]}; }
};

TEST(CustomFunction, ClassWithSavedData) {
  Tensor x = tensor({1.0f, 2.0f}).requires_grad_();
  Tensor y = MulConstant::apply(x, 3.0);
  EXPECT_EQ(vals<float>(y), (std::vector<float>{3, 6}));
  EXPECT_TRUE(y.requires_grad());
  EXPECT_NE(y.grad_fn_name().find("MulConstant"), std::string::npos) << y.grad_fn_name();
  y.sum().backward();
  EXPECT_EQ(vals<float>(x.grad()), (std::vector<float>{3, 3}));
}

TEST(CustomFunction, SaveForBackwardAndName) {
  Tensor x = tensor({3.0f}).requires_grad_();
  Tensor y = Square::apply(x);
  EXPECT_EQ(y.grad_fn_name(), "MySquareBackward");
  y.backward();
  EXPECT_EQ(vals<float>(x.grad()), (std::vector<float>{6}));
  // Without inputs that require grad, no node: a plain result.
  Tensor z = Square::apply(tensor({2.0f}));
  EXPECT_FALSE(z.requires_grad());
  EXPECT_EQ(z.item<float>(), 4);
}

TEST(CustomFunction, SecondOrderThroughSavedTensors) {
  Tensor x = tensor({3.0f}).requires_grad_();
  Tensor y = Square::apply(x);
  variable_list g = autograd::grad({y}, {x}, {}, std::nullopt, true);
  EXPECT_EQ(g[0].item<float>(), 6);
  variable_list gg = autograd::grad({g[0]}, {x});
  EXPECT_EQ(gg[0].item<float>(), 2);
}

TEST(CustomFunction, SeveralOutputsNonDifferentiableAndNeedsInputGrad) {
  Tensor a = tensor({1.0f, 5.0f}).requires_grad_(), b = tensor({2.0f, 3.0f});
  variable_list out = SplitMinMax::apply(a, b);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(vals<bool>(out[1]), (std::vector<bool>{false, true}));
  EXPECT_FALSE(out[1].requires_grad());
  EXPECT_TRUE(out[0].requires_grad());
  out[0].sum().backward();
  EXPECT_EQ(vals<float>(a.grad()), (std::vector<float>{1, 1}));
  Tensor b2 = tensor({2.0f, 3.0f}).requires_grad_();
  variable_list out2 = SplitMinMax::apply(tensor({1.0f, 1.0f}), b2);
  out2[0].sum().backward();
  EXPECT_EQ(vals<float>(b2.grad()), (std::vector<float>{10, 10}));
}

TEST(CustomFunction, MarkDirty) {
  Tensor leaf = tensor({1.0f, 2.0f}).requires_grad_();
  Tensor x = leaf * 1;  // a non-leaf may be modified in place
  Tensor y = InPlaceDouble::apply(x);
  EXPECT_EQ(vals<float>(x), (std::vector<float>{2, 4}));
  EXPECT_EQ(y.data_ptr(), x.data_ptr());
  y.sum().backward();
  EXPECT_EQ(vals<float>(leaf.grad()), (std::vector<float>{2, 2}));
}

TEST(CustomFunction, Lambdas) {
  int backward_calls = 0;
  autograd::LambdaFunction cube(
      "Cube",
      [](AutogradContext* ctx, const Tensor& x) {
        ctx->save_for_backward({x});
        return x * x * x;
      },
      [&backward_calls](AutogradContext* ctx, variable_list g) {
        ++backward_calls;
        Tensor x = ctx->get_saved_variables()[0];
        return variable_list{g[0] * 3 * x * x};
      });
  Tensor x = tensor({2.0f}).requires_grad_();
  Tensor y = cube.apply(x);
  EXPECT_EQ(y.item<float>(), 8);
  EXPECT_EQ(y.grad_fn_name(), "CubeBackward");
  y.backward();
  EXPECT_EQ(x.grad().item<float>(), 12);
  EXPECT_EQ(backward_calls, 1);
  Tensor z = cube(x);  // operator() is apply
  EXPECT_EQ(z.item<float>(), 8);
}

TEST(CustomFunction, GraphOutlivesTheLambdaFunction) {
  Tensor x = tensor({2.0f}).requires_grad_();
  Tensor y;
  {
    autograd::LambdaFunction twice(
        "Twice", [](AutogradContext*, const Tensor& t) { return t * 2; },
        [](AutogradContext*, variable_list g) { return variable_list{g[0] * 2}; });
    y = twice.apply(x);
  }  // the graph keeps the definition (and its backward) alive
  y.backward();
  EXPECT_EQ(x.grad().item<float>(), 2);
}

TEST(CustomFunction, ExceptionInForwardComesBackAsItself) {
  Tensor x = tensor({1.0f}).requires_grad_();
  try {
    ThrowsInForward::apply(x);
    FAIL() << "expected std::out_of_range";
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "forward went wrong");
  }
  // The library is fine afterwards, grad mode restored, and a later,
  // unrelated error is not mistaken for the old exception.
  EXPECT_TRUE(GradMode::is_enabled());
  EXPECT_THROW(ones({2}).view({3}), Error);
  EXPECT_EQ(Square::apply(tensor({3.0f})).item<float>(), 9);
}

TEST(CustomFunction, ExceptionInBackwardComesBackAsItself) {
  Tensor x = tensor({1.0f}).requires_grad_();
  Tensor y = ThrowsInBackward::apply(x);
  try {
    y.backward();
    FAIL() << "expected ThrowsInBackward::Custom";
  } catch (const ThrowsInBackward::Custom& c) {
    EXPECT_EQ(c.code, 42);
  }
  // Through autograd::grad too.
  Tensor y2 = ThrowsInBackward::apply(x);
  EXPECT_THROW(autograd::grad({y2}, {x}), ThrowsInBackward::Custom);
}

TEST(CustomFunction, TensorcErrorInBackwardKeepsItsCategory) {
  Tensor x = tensor({1.0f}).requires_grad_();
  Tensor y = OpFailsInBackward::apply(x);
  try {
    y.backward();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("view"), std::string::npos) << e.what();
  }
  Tensor z = WrongGradCount::apply(x);
  try {
    z.backward();
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("incorrect number of gradients"), std::string::npos) << e.what();
  }
}

TEST(CustomFunction, NestedApplyInForward) {
  autograd::LambdaFunction outer(
      "Outer", [](AutogradContext*, const Tensor& t) { return Square::apply(t) + 1; },
      [](AutogradContext*, variable_list g) { return variable_list{g[0] * 5}; });
  Tensor x = tensor({2.0f}).requires_grad_();
  Tensor y = outer.apply(x);
  EXPECT_EQ(y.item<float>(), 5);
  y.backward();
  EXPECT_EQ(x.grad().item<float>(), 5);
}

TEST(Gradcheck, PassesFailsAndRethrows) {
  Tensor a = randn({3}, std::nullopt, kFloat64).requires_grad_();
  Tensor b = randn({3}, std::nullopt, kFloat64).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck([](const variable_list& in) { return (in[0] * in[1]).sin().sum(); }, {a, b}));
  EXPECT_TRUE(autograd::gradcheck([](const variable_list& in) { return Square::apply(in[0]); }, {a}));
  EXPECT_TRUE(autograd::gradgradcheck([](const variable_list& in) { return (in[0] * in[0] * in[0]).sum(); }, {a}));
  autograd::LambdaFunction wrong(
      "Wrong", [](AutogradContext*, const Tensor& t) { return t * 2; },
      [](AutogradContext*, variable_list g) { return variable_list{g[0] * 3}; });
  EXPECT_THROW(autograd::gradcheck([&](const variable_list& in) { return wrong.apply(in[0]); }, {a}), RuntimeError);
  EXPECT_THROW(autograd::gradcheck([](const variable_list&) -> Tensor { throw std::logic_error("in fn"); }, {a}),
               std::logic_error);
}

TEST(CustomFunction, CallbackExceptionsStayOnTheirThread) {
  // Each thread's exception comes back on that thread; grad mode is per thread.
  std::vector<std::string> seen(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([i, &seen] {
      autograd::LambdaFunction fails(
          "Fails",
          [i](AutogradContext*, const Tensor&) -> Tensor { throw std::runtime_error("thread " + std::to_string(i)); },
          [](AutogradContext*, variable_list g) { return g; });
      NoGradGuard ng;
      for (int k = 0; k < 50; ++k) {
        try {
          fails.apply(ones({1}));
        } catch (const std::runtime_error& e) {
          seen[size_t(i)] = e.what();
        }
      }
    });
  for (auto& t : threads) t.join();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(seen[size_t(i)], "thread " + std::to_string(i));
  EXPECT_TRUE(GradMode::is_enabled());
}
