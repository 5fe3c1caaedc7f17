// SPDX-License-Identifier: BSD-3-Clause
// Edge cases of the wrapper found in review: checked Scalar conversions,
// Scalar / Tensor, bool masks followed by more indices, error messages that
// must survive user code run on the failure path, accessor on rvalues, and
// references across custom-function outputs and saved tensors.
#include <gtest/gtest.h>

#include <tensorc.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

using namespace tensorc;
using namespace tensorc::indexing;

namespace {
template <class T>
std::vector<T> vals(const Tensor& t) {
  return t.contiguous().to_vector<T>();
}

// accessor() compiles on lvalues only (a temporary's accessor would dangle).
template <class T, class = void>
struct can_access : std::false_type {};
template <class T>
struct can_access<T, std::void_t<decltype(std::declval<T>().template accessor<float, 1>())>> : std::true_type {};
static_assert(can_access<Tensor&>::value && can_access<const Tensor&>::value, "accessor on an lvalue");
static_assert(!can_access<Tensor>::value && !can_access<Tensor&&>::value, "no accessor on a temporary");
static_assert(!can_access<const Tensor>::value && !can_access<const Tensor&&>::value,
              "no accessor on a const temporary");
}  // namespace

TEST(Scalar, FromEveryArithmeticType) {
  EXPECT_TRUE(Scalar(true).is_boolean());
  EXPECT_EQ(Scalar('a').toLong(), 97);
  EXPECT_EQ(Scalar(int8_t(-5)).toLong(), -5);
  EXPECT_EQ(Scalar(uint8_t(250)).toLong(), 250);
  EXPECT_EQ(Scalar(int16_t(-300)).toLong(), -300);
  EXPECT_EQ(Scalar(uint16_t(60000)).toLong(), 60000);
  EXPECT_EQ(Scalar(int32_t(-70000)).toLong(), -70000);
  EXPECT_EQ(Scalar(uint32_t(4000000000u)).toLong(), 4000000000LL);
  EXPECT_EQ(Scalar(std::numeric_limits<int64_t>::min()).toLong(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Scalar(uint64_t(INT64_MAX)).toLong(), INT64_MAX);
  EXPECT_TRUE(Scalar(2.5f).is_floating_point());
  EXPECT_EQ(Scalar(2.5).toDouble(), 2.5);
  EXPECT_EQ(Scalar(2.5L).toDouble(), 2.5);
  EXPECT_EQ(vals<int64_t>(tensor<int64_t>({1}) + uint64_t(3)), std::vector<int64_t>{4});
}

// A Scalar held by a 0-dim tensor: through the Tensor overload where one
// exists (promotion of a 0-dim tensor, a gradient), read as a number elsewhere.
TEST(Scalar, HeldByATensor) {
  Tensor half = scalar_tensor(0.5, kFloat64);
  Scalar s = Scalar::from_tensor(half);
  EXPECT_TRUE(s.is_tensor());
  EXPECT_THROW(s.toDouble(), InvalidArgumentError);
  Tensor sum = tensor<int32_t>({1, 2}) + s;
  EXPECT_EQ(sum.scalar_type(), kFloat64);
  EXPECT_EQ(vals<double>(sum), (std::vector<double>{1.5, 2.5}));
  EXPECT_EQ(vals<float>(full({2}, s)), (std::vector<float>{0.5f, 0.5f}));
  Tensor w = scalar_tensor(3.0).requires_grad_();
  (tensor<float>({1, 2}) * Scalar::from_tensor(w)).sum().backward();
  EXPECT_EQ(w.grad().item<float>(), 3.0f);
  EXPECT_THROW(full({2}, Scalar::from_tensor(w)), InvalidArgumentError);  // its gradient would be lost
}

TEST(Scalar, UnsignedAboveInt64MaxThrowsInsteadOfWrapping) {
  const uint64_t big = uint64_t(INT64_MAX) + 1;
  EXPECT_THROW(Scalar{big}, InvalidArgumentError);
  EXPECT_THROW(Scalar{std::numeric_limits<uint64_t>::max()}, InvalidArgumentError);
  Tensor t = tensor<int64_t>({1});
  EXPECT_THROW(t + big, InvalidArgumentError);  // not t + (-9223372036854775808)
  static_assert(noexcept(Scalar(1))&& noexcept(Scalar(1u))&& noexcept(Scalar(1.0)), "");
  static_assert(!noexcept(Scalar(uint64_t(1))), "");
}

TEST(Scalar, ToIsCheckedLikeC10) {
  EXPECT_EQ(full({}, 255, kInt64).item<uint8_t>(), 255);
  EXPECT_THROW(full({}, 256, kInt64).item<uint8_t>(), RuntimeError);
  EXPECT_THROW(full({}, -1, kInt64).item<uint32_t>(), RuntimeError);
  EXPECT_EQ(full({}, -128, kInt64).item<int8_t>(), -128);
  EXPECT_THROW(full({}, -129, kInt64).item<int8_t>(), RuntimeError);
  EXPECT_EQ(full({}, 2.75, kFloat64).item<int>(), 2);  // truncates, as static_cast
  EXPECT_EQ(full({}, -0.5, kFloat64).item<unsigned>(), 0u);
  EXPECT_THROW(full({}, NAN, kFloat32).item<int>(), RuntimeError);  // UB before
  EXPECT_THROW(full({}, INFINITY, kFloat32).item<int64_t>(), RuntimeError);
  EXPECT_THROW(full({}, 1e19, kFloat64).item<int64_t>(), RuntimeError);
  EXPECT_EQ(full({}, 1e19, kFloat64).item<uint64_t>(), uint64_t(1e19));
  EXPECT_THROW(full({}, 1e300, kFloat64).item<float>(), RuntimeError);
  EXPECT_TRUE(std::isinf(full({}, INFINITY, kFloat64).item<float>()));  // inf and NaN stay themselves
  EXPECT_TRUE(std::isnan(full({}, NAN, kFloat64).item<float>()));
  EXPECT_EQ(full({}, 0.25, kFloat64).item<bool>(), true);
  EXPECT_EQ(full({}, 0, kInt64).item<bool>(), false);
  EXPECT_EQ(full({}, true, kBool).item<int>(), 1);
  EXPECT_EQ(full({}, 3, kInt32).item<double>(), 3.0);
}

TEST(Operators, ScalarDividedByTensorIsADivision) {
  // a * (1 / b) rounds twice: 3 * (1 / 7.f) != 3 / 7.f.
  EXPECT_EQ(vals<float>(3 / full({1}, 7.0f)), std::vector<float>{3.0f / 7.0f});
  for (int a = 1; a < 20; ++a)
    for (int b = 1; b < 50; ++b)
      ASSERT_EQ((a / full({1}, float(b))).item<float>(), float(a) / float(b)) << a << "/" << b;
  EXPECT_EQ(vals<double>(1 / full({1}, 3.0, kFloat64)), std::vector<double>{1.0 / 3.0});
  // The dtype follows a Scalar's promotion, then div's true division.
  Tensor i = tensor<int64_t>({2, 4});
  EXPECT_EQ((3 / i).scalar_type(), kFloat32);
  EXPECT_EQ(vals<float>(3 / i), (std::vector<float>{1.5f, 0.75f}));
  EXPECT_EQ(vals<float>(2.5 / i), (std::vector<float>{1.25f, 0.625f}));
  EXPECT_EQ((1 / full({1}, 2.0, kFloat64)).scalar_type(), kFloat64);
  EXPECT_EQ(vals<float>(1 / tensor<bool>({true})), std::vector<float>{1.0f});
  // The gradient flows to the tensor.
  Tensor x = full({1}, 2.0, kFloat64).requires_grad_();
  (4 / x).sum().backward();
  EXPECT_EQ(x.grad().item<double>(), -1.0);  // -4 / x^2
}

TEST(Indexing, BoolMaskCoversItsDimsForTheIndicesAfterIt) {
  Tensor t = arange(24).reshape({2, 3, 4});
  Tensor m = ones({2, 3}, kBool);
  m.index_put_({0, 1}, false);
  // t[m, 0]: the mask covers dims 0 and 1, the 0 selects in dim 2.
  Tensor r = t.index({m, 0});
  EXPECT_EQ(r.sizes(), (std::vector<int64_t>{5}));
  EXPECT_EQ(vals<int64_t>(r), (std::vector<int64_t>{0, 8, 12, 16, 20}));
  EXPECT_EQ(t.index({m, Slice(1, None, 2)}).sizes(), (std::vector<int64_t>{5, 2}));
  EXPECT_EQ(t.index({m, Ellipsis}).sizes(), (std::vector<int64_t>{5, 4}));
  EXPECT_EQ(t.index({Ellipsis, ones({3, 4}, kBool)}).sizes(), (std::vector<int64_t>{2, 12}));
  // A mask, then an integer tensor index on the dim after it.
  Tensor idx = tensor<int64_t>({3});
  EXPECT_EQ(vals<int64_t>(t.index({m, idx})), (std::vector<int64_t>{3, 11, 15, 19, 23}));
  // And writing through the same indices.
  Tensor w = zeros({2, 3, 4});
  w.index_put_({m, 0}, 1);
  EXPECT_EQ(w.sum().item<float>(), 5);
  EXPECT_EQ(w.index({Slice(), Slice(), 0}).sum().item<float>(), 5);
}

TEST(Indexing, ZeroDimBoolMaskAddsADimAsInLibtorch) {
  Tensor t = arange(6).reshape({2, 3});
  const Tensor yes = full({}, true, kBool), no = full({}, false, kBool);
  EXPECT_EQ(t.index({yes}).sizes(), (std::vector<int64_t>{1, 2, 3}));  // t[True]
  EXPECT_EQ(t.index({no}).sizes(), (std::vector<int64_t>{0, 2, 3}));   // t[False]
  EXPECT_EQ(t.index({yes, 1}).sizes(), (std::vector<int64_t>{1, 3}));  // t[True, 1]
  EXPECT_EQ(vals<int64_t>(t.index({yes, 1})), (std::vector<int64_t>{3, 4, 5}));
  t.index_put_({no}, 7);
  EXPECT_EQ(t.sum().item<int64_t>(), 15);
  t.index_put_({yes, 0}, 7);
  EXPECT_EQ(vals<int64_t>(t), (std::vector<int64_t>{7, 7, 7, 3, 4, 5}));
  EXPECT_THROW(t.index({Slice(None, None, -1)}), InvalidArgumentError);  // libtorch: step must be positive
}

TEST(Errors, MessageSurvivesUserCodeOnTheFailurePath) {
  // Destroying the (uncalled) deleter runs user code, which may make C calls
  // that set the thread's last error: the exception must still carry
  // from_blob's own status and message, read before that.
  struct Clobber {
    bool* destroyed;
    bool* called;
    void operator()(void*) const { *called = true; }
  };
  bool destroyed = false, called = false;
  {
    auto deleter = [&destroyed, &called, guard = std::shared_ptr<void>(nullptr, [&destroyed](void*) {
                                           destroyed = true;
                                           tc_error_set(TC_ERROR_INTERNAL, "clobbered by a destructor");
                                         })](void*) { called = true; };
    float buf[2] = {1, 2};
    try {
      from_blob(buf, {-2}, std::move(deleter));
      FAIL() << "from_blob with a negative size must throw";
    } catch (const InvalidArgumentError& e) {
      EXPECT_EQ(std::string(e.what()).find("clobbered"), std::string::npos) << e.what();
    } catch (const Error& e) {
      FAIL() << "wrong category " << status_name(e.code()) << ": " << e.what();
    }
  }
  EXPECT_TRUE(destroyed);  // destroyed, once, without being called
  EXPECT_FALSE(called);
}

TEST(Autograd, SavedTensorsAndOutputsHoldOneReferenceEach) {
  Tensor x = full({2}, 3.0f).requires_grad_();
  int64_t in_backward = -1;
  autograd::LambdaFunction f(
      "Twice",
      [](AutogradContext* ctx, const Tensor& a) {
        ctx->save_for_backward({a});
        return variable_list{a * 2, Tensor(), a + 1};
      },
      [&](AutogradContext* ctx, variable_list g) {
        variable_list saved = ctx->get_saved_variables();
        EXPECT_EQ(saved.size(), 1u);
        in_backward = saved[0].use_count();
        return variable_list{g[0] * 2 + g[2]};
      });
  const int64_t before = x.use_count();
  variable_list out = f.apply(x);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].use_count(), 1);
  EXPECT_FALSE(out[1].defined());
  EXPECT_EQ(out[2].use_count(), 1);
  (out[0].sum() + out[2].sum()).backward();
  EXPECT_GE(in_backward, 2);  // ours plus the graph's
  EXPECT_EQ(vals<float>(x.grad()), (std::vector<float>{3, 3}));
  out.clear();
  EXPECT_EQ(x.use_count(), before);
}

TEST(Autograd, TooManyForwardOutputsIsAnErrorWithoutLeaks) {
  autograd::LambdaFunction many(
      "Many",
      [](AutogradContext*, const Tensor& a) {
        variable_list v;
        for (int i = 0; i < 65; ++i) v.push_back(a + i);
        return v;
      },
      [](AutogradContext*, variable_list g) { return variable_list{g[0]}; });
  Tensor x = ones({1}).requires_grad_();
  EXPECT_THROW(many.apply(x), RuntimeError);  // ASan: the 64 outputs written before the throw are released
  EXPECT_EQ(x.use_count(), 1);
}

namespace {
// libtorch's examples take Variables by value: apply() forwards an rvalue
// argument into the parameter, which releases it when forward returns; the
// input must still be alive for the graph tensorc records after forward.
struct ByValue : autograd::Function<ByValue> {
  static Tensor forward(AutogradContext* ctx, Tensor x, Tensor unused) {
    ctx->save_for_backward({x});
    unused = Tensor();
    return x * 2;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    return {g[0] * 2 + ctx->get_saved_variables()[0] * 0, Tensor()};
  }
};
}  // namespace

TEST(CustomFunction, RvalueArgumentsMovedIntoByValueParameters) {
  Tensor base = ones({2}).requires_grad_();
  Tensor y = ByValue::apply(base * 3, zeros({2}));  // both temporaries die inside apply
  EXPECT_EQ(vals<float>(y), (std::vector<float>{6, 6}));
  y.sum().backward();
  EXPECT_EQ(vals<float>(base.grad()), (std::vector<float>{6, 6}));
  y = Tensor();  // its graph holds base's gradient accumulator
  EXPECT_EQ(base.use_count(), 1);
}

// Autocast scopes: products in bfloat16 inside, float32 outside; a scope with
// enabled = false turns it off inside an enabled one; a bad dtype throws.
TEST(Autocast, GuardScopesNest) {
  Tensor a = ones({2, 3}), b = ones({3, 4});
  EXPECT_FALSE(AutocastGuard::is_enabled(kCPU));
  {
    AutocastGuard amp(kCPU);
    EXPECT_TRUE(AutocastGuard::is_enabled(kCPU));
    EXPECT_EQ(mm(a, b).scalar_type(), kBFloat16);
    {
      AutocastGuard off(kCPU, std::nullopt, false);
      EXPECT_EQ(mm(a, b).scalar_type(), kFloat32);
    }
    EXPECT_EQ(mm(a, b).scalar_type(), kBFloat16);
  }
  EXPECT_EQ(mm(a, b).scalar_type(), kFloat32);
  EXPECT_THROW(AutocastGuard(kCPU, kFloat32), InvalidArgumentError);
}
