// SPDX-License-Identifier: BSD-3-Clause
// The dispatcher through the wrapper: ops defined in C++ with typed and boxed
// kernels, calls by name, exceptions in kernels, fallbacks that redispatch,
// scoped include/exclude guards, and the lifetime of registered callables.
// Registrations are process-wide: every test uses its own op namespace, and
// a test that registers a fallback puts the key's fallthrough back.
#include <gtest/gtest.h>

#include <tensorc.hpp>

#include <atomic>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

using namespace tensorc;

namespace {
std::vector<float> vals(const Tensor& t) { return t.contiguous().to_vector<float>(); }

// Puts a key's fallthrough back when a test ends, even a failing one.
struct FallthroughAtExit {
  explicit FallthroughAtExit(DispatchKey k) : key(k) {}
  ~FallthroughAtExit() { Library::fallthrough(key); }
  DispatchKey key;
};
}  // namespace

// Registered when the test binary loads.
TENSORC_LIBRARY(cpplib_static, m) { m.def("twice(Tensor self) -> Tensor"); }
TENSORC_LIBRARY_IMPL(cpplib_static, CPU, m) {
  m.impl("twice", [](const Tensor& x) { return x * 2; });
}

TEST(Library, TypedKernelCalledByName) {
  Library lib("cpplib_typed", Library::Kind::Def);
  lib.def("axpy(Tensor x, Tensor y, float alpha=2.0, *, int repeat=1) -> Tensor");
  lib.impl("axpy", DispatchKey::CPU, [](const Tensor& x, const Tensor& y, double alpha, int64_t repeat) {
    Tensor r = y;
    for (int64_t i = 0; i < repeat; ++i) r = r + x * alpha;
    return r;
  });
  EXPECT_EQ(op_schema("cpplib_typed::axpy"),
            "cpplib_typed::axpy(Tensor x, Tensor y, float alpha=2.0, *, int repeat=1) -> Tensor");
  EXPECT_NE(op_dump_table("cpplib_typed::axpy").find("CPU: kernel registered for CPU"), std::string::npos);

  Tensor x = tensor({1.0f, 2.0f, 3.0f}), y = tensor({10.0f, 20.0f, 30.0f});
  // Typed call, defaults filled in by the dispatcher.
  EXPECT_EQ(vals(call_op<Tensor>("cpplib_typed::axpy", x, y)), (std::vector<float>{12, 24, 36}));
  EXPECT_EQ(vals(call_op<Tensor>("cpplib_typed::axpy", x, y, 0.5, 3)), (std::vector<float>{11.5f, 23, 34.5f}));
  // Boxed call.
  Stack out = call_op("cpplib_typed::axpy", {x, y, -1.0});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_TRUE(out[0].isTensor());
  EXPECT_EQ(vals(out[0].toTensor()), (std::vector<float>{9, 18, 27}));

  // Straight through the C ABI, as a C caller would.
  tc_value args[2], outs[2];
  std::memset(args, 0, sizeof args);
  args[0].tag = args[1].tag = TC_VALUE_TENSOR;
  args[0].u.tensor = x.get();
  args[1].u.tensor = y.get();
  size_t n = 0;
  ASSERT_EQ(tc_op_call(outs, 2, &n, "cpplib_typed::axpy", args, 2), TC_OK);
  ASSERT_EQ(n, 1u);
  ASSERT_EQ(outs[0].tag, TC_VALUE_TENSOR);
  EXPECT_EQ(vals(Tensor::adopt(outs[0].u.tensor)), (std::vector<float>{12, 24, 36}));

  // A wrong argument type is the op's TypeError, not a crash.
  EXPECT_THROW(call_op<Tensor>("cpplib_typed::axpy", x, y, "two"), TypeError);
}

TEST(Library, SeveralReturnsListsAndScalars) {
  Library lib("cpplib_multi");
  lib.def("split2(Tensor self, int[] sizes) -> (Tensor, Tensor, int)");
  lib.def("parts(Tensor self, int n) -> Tensor[]");
  lib.def("stats(Tensor self) -> (float, bool)");
  lib.impl("split2", DispatchKey::CompositeExplicitAutograd, [](const Tensor& x, IntArrayRef sizes) {
    return std::make_tuple(x * double(sizes[0]), x * double(sizes[1]), int64_t(sizes.size()));
  });
  lib.impl("parts", DispatchKey::CPU, [](const Tensor& x, int n) {
    std::vector<Tensor> r;
    for (int i = 0; i < n; ++i) r.push_back(x + i);
    return r;
  });
  lib.impl("stats", DispatchKey::CPU,
           [](const Tensor& x) { return std::make_tuple(x.sum().item<double>(), x.numel() > 2); });

  Tensor x = tensor({1.0f, 2.0f});
  auto [a, b, count] =
      call_op<std::tuple<Tensor, Tensor, int64_t>>("cpplib_multi::split2", x, std::vector<int64_t>{3, 5});
  EXPECT_EQ(vals(a), (std::vector<float>{3, 6}));
  EXPECT_EQ(vals(b), (std::vector<float>{5, 10}));
  EXPECT_EQ(count, 2);
  std::vector<Tensor> parts = call_op<std::vector<Tensor>>("cpplib_multi::parts", x, 3);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(vals(parts[2]), (std::vector<float>{3, 4}));
  auto [sum, big] = call_op<std::tuple<double, bool>>("cpplib_multi::stats", x);
  EXPECT_EQ(sum, 3.0);
  EXPECT_FALSE(big);
}

TEST(Library, StaticRegistrationRanAtLoad) {
  EXPECT_EQ(vals(call_op<Tensor>("cpplib_static::twice", tensor({1.5f}))), (std::vector<float>{3}));
}

TEST(Library, NamespacesAndKinds) {
  Library lib("cpplib_ns");
  EXPECT_EQ(lib.qualified_name("f"), "cpplib_ns::f");
  EXPECT_EQ(lib.qualified_name("cpplib_ns::f.out"), "cpplib_ns::f.out");
  EXPECT_THROW(lib.qualified_name("other::f"), InvalidArgumentError);
  EXPECT_EQ(Library("aten", Library::Kind::Impl).qualified_name("add.Tensor"), "add.Tensor");
  EXPECT_THROW(Library("bad::ns"), InvalidArgumentError);

  lib.def("f(Tensor self) -> Tensor", [](const Tensor& x) { return x + 1; });  // CompositeImplicitAutograd
  EXPECT_EQ(vals(call_op<Tensor>("cpplib_ns::f", tensor({1.0f}))), (std::vector<float>{2}));
  try {
    lib.def("f(Tensor self) -> Tensor");
    FAIL() << "a second definition must throw";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("already defined"), std::string::npos) << e.what();
  }
  EXPECT_THROW(lib.def("g(Tensor self, Blob b) -> Tensor"), InvalidArgumentError);
  EXPECT_THROW(lib.impl("nope", DispatchKey::CPU, [](const Tensor& x) { return x; }), NotImplementedError);
  EXPECT_THROW(lib.impl("f", [](const Tensor& x) { return x; }), InvalidArgumentError);  // no key
  Library impl_only("cpplib_ns", Library::Kind::Impl, DispatchKey::CPU);
  EXPECT_THROW(impl_only.def("h(Tensor self) -> Tensor"), InvalidArgumentError);
  impl_only.impl("f", [](const Tensor& x) { return x + 10; });  // the library's key; newer than the composite
  EXPECT_EQ(vals(call_op<Tensor>("cpplib_ns::f", tensor({1.0f}))), (std::vector<float>{11}));
}

TEST(Library, KernelExceptionBecomesAnErrorStatus) {
  Library lib("cpplib_throw");
  lib.def("boom(Tensor self) -> Tensor");
  lib.def("typed_boom(Tensor self) -> Tensor");
  lib.impl("boom", DispatchKey::CPU, [](const Tensor&) -> Tensor { throw std::runtime_error("kernel exploded 42"); });
  lib.impl("typed_boom", DispatchKey::CPU,
           [](const Tensor&) -> Tensor { throw IndexError("index 7 is past the end"); });
  Tensor x = tensor({1.0f});

  // Through the C ABI: a status and the message, and the process goes on.
  tc_value arg, outs[1];
  std::memset(&arg, 0, sizeof arg);
  arg.tag = TC_VALUE_TENSOR;
  arg.u.tensor = x.get();
  size_t n = 0;
  EXPECT_EQ(tc_op_call(outs, 1, &n, "cpplib_throw::boom", &arg, 1), TC_ERROR_RUNTIME);
  EXPECT_NE(std::string(tc_last_error_message()).find("kernel exploded 42"), std::string::npos)
      << tc_last_error_message();
  EXPECT_NE(std::string(tc_last_error_message()).find("cpplib_throw::boom"), std::string::npos);
  EXPECT_EQ(n, 0u);
  // A tensorc::Error keeps its category.
  EXPECT_EQ(tc_op_call(outs, 1, &n, "cpplib_throw::typed_boom", &arg, 1), TC_ERROR_INDEX);
  EXPECT_NE(std::string(tc_last_error_message()).find("index 7 is past the end"), std::string::npos);

  // Through the wrapper: the original exception comes back.
  try {
    call_op<Tensor>("cpplib_throw::boom", x);
    FAIL() << "call_op must throw";
  } catch (const Error&) {
    FAIL() << "expected the kernel's own std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "kernel exploded 42");
  }
  EXPECT_THROW(call_op<Tensor>("cpplib_throw::typed_boom", x), IndexError);
  // Still usable afterwards.
  EXPECT_EQ(vals(x + 1), (std::vector<float>{2}));
}

TEST(Library, WrongResultsAreErrors) {
  Library lib("cpplib_results");
  lib.def("two(Tensor self) -> (Tensor, Tensor)");
  lib.impl_boxed("two", DispatchKey::CPU, [](const DispatchCall&, Stack& args) {
    return Stack{args[0], IValue(std::string("a string cannot cross"))};
  });
  try {
    call_op("cpplib_results::two", Stack{tensor({1.0f})});
    FAIL() << "a string result must be refused";
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot return a value of type str"), std::string::npos) << e.what();
  }
}

TEST(Library, FallbackCountsAndRedispatchesUnderIncludeGuard) {
  FallthroughAtExit restore(DispatchKey::Tracer);
  auto seen = std::make_shared<std::atomic<int>>(0);
  auto last_op = std::make_shared<std::string>();
  Library lib("cpplib_fallback", Library::Kind::Impl, DispatchKey::Tracer);
  lib.fallback([seen, last_op](const DispatchCall& call, Stack& args) {
    EXPECT_EQ(call.key(), DispatchKey::Tracer);
    ++*seen;
    *last_op = call.op_name();
    return call.redispatch(args);
  });
  Tensor a = tensor({1.0f, 2.0f}), b = tensor({10.0f, 20.0f});
  Tensor sum = a + b;
  EXPECT_EQ(seen->load(), 0);  // no tensor carries Tracer: the layer is off
  Tensor traced_sum, traced_product;
  {
    // Only the calls under test dispatch in this scope (reading values does too).
    IncludeDispatchKeyGuard on(DispatchKey::Tracer);
    traced_sum = a + b;
    EXPECT_EQ(seen->load(), 1);
    EXPECT_EQ(*last_op, "add.Tensor");
    traced_product = call_op<Tensor>("mul.Tensor", a, b);
    EXPECT_EQ(seen->load(), 2);
    EXPECT_EQ(*last_op, "mul.Tensor");
    EXPECT_TRUE(local_dispatch_key_set().is_included(DispatchKey::Tracer));
  }
  EXPECT_FALSE(local_dispatch_key_set().is_included(DispatchKey::Tracer));
  Tensor after = a + b;
  EXPECT_EQ(seen->load(), 2);  // the guard's scope ended: the fallback no longer runs
  EXPECT_EQ(vals(sum), (std::vector<float>{11, 22}));
  EXPECT_EQ(vals(traced_sum), (std::vector<float>{11, 22}));
  EXPECT_EQ(vals(traced_product), (std::vector<float>{10, 40}));
  EXPECT_EQ(vals(after), (std::vector<float>{11, 22}));
}

TEST(Library, FallbackForwardingRawArgumentsAndTypedRedispatch) {
  FallthroughAtExit restore(DispatchKey::Tracer);
  std::atomic<int> seen{0};
  Library lib("cpplib_raw");
  lib.fallback(DispatchKey::Tracer, [&seen](const DispatchCall& call) {
    ++seen;
    return call.redispatch();  // the arguments as received, unconverted
  });
  // A kernel on Tracer for one op: scales the result, calling the next
  // kernel typed, and says which key it ran for.
  lib.def("scaled(Tensor self, float k) -> Tensor");
  lib.impl("scaled", DispatchKey::CPU, [](const Tensor& x, double k) { return x * k; });
  lib.impl("scaled", DispatchKey::Tracer, [](const DispatchCall& call, const Tensor& x, double k) {
    EXPECT_EQ(call.key(), DispatchKey::Tracer);
    // The layer's work is done: the ops it calls skip it.
    ExcludeDispatchKeyGuard done(DispatchKey::Tracer);
    return call.redispatch<Tensor>(x, k) + 100;
  });
  Tensor x = tensor({1.0f, 2.0f});
  Tensor plain = call_op<Tensor>("cpplib_raw::scaled", x, 3.0), traced, diff;
  {
    IncludeDispatchKeyGuard on(DispatchKey::Tracer);
    traced = call_op<Tensor>("cpplib_raw::scaled", x, 3.0);
    EXPECT_EQ(seen.load(), 0);  // the op's own Tracer kernel ran, not the fallback
    diff = x - x;
    EXPECT_EQ(seen.load(), 1);
  }
  EXPECT_EQ(vals(plain), (std::vector<float>{3, 6}));
  EXPECT_EQ(vals(traced), (std::vector<float>{103, 106}));
  EXPECT_EQ(vals(diff), (std::vector<float>{0, 0}));
}

TEST(Library, ExceptionThroughRedispatchComesBackAsItself) {
  FallthroughAtExit restore(DispatchKey::Tracer);
  Library lib("cpplib_nested");
  lib.def("fails(Tensor self) -> Tensor");
  lib.impl("fails", DispatchKey::CPU, [](const Tensor&) -> Tensor { throw std::out_of_range("deep failure"); });
  int fallback_saw_error = 0;
  lib.fallback(DispatchKey::Tracer, [&](const DispatchCall& call, Stack& args) {
    try {
      return call.redispatch(args);
    } catch (const std::out_of_range&) {
      ++fallback_saw_error;
      throw;
    }
  });
  Tensor x = tensor({1.0f});
  IncludeDispatchKeyGuard on(DispatchKey::Tracer);
  EXPECT_THROW(call_op<Tensor>("cpplib_nested::fails", x), std::out_of_range);
  EXPECT_EQ(fallback_saw_error, 1);
}

TEST(Library, NestedExcludeGuardsKeepTheOuterExclusion) {
  FallthroughAtExit restore(DispatchKey::Tracer);
  std::atomic<int> seen{0};
  Library lib("cpplib_guards");
  lib.fallback(DispatchKey::Tracer, [&seen](const DispatchCall& call) {
    ++seen;
    return call.redispatch();
  });
  Tensor a = tensor({1.0f});
  IncludeDispatchKeyGuard on(DispatchKey::Tracer);
  a + a;
  EXPECT_EQ(seen.load(), 1);
  {
    ExcludeDispatchKeyGuard outer(DispatchKey::Tracer);
    {
      ExcludeDispatchKeyGuard inner(DispatchKey::Tracer);
      a + a;
      EXPECT_EQ(seen.load(), 1);
    }
    // A blunt tc_dispatch_tls_exclude(Tracer, false) here would have
    // re-enabled the layer; the inner guard restored the outer state.
    EXPECT_TRUE(local_dispatch_key_set().is_excluded(DispatchKey::Tracer));
    a + a;
    EXPECT_EQ(seen.load(), 1);
  }
  EXPECT_FALSE(local_dispatch_key_set().is_excluded(DispatchKey::Tracer));
  a + a;
  EXPECT_EQ(seen.load(), 2);
}

TEST(Library, GuardsAreThreadLocalAndRejectAliasKeys) {
  {
    ExcludeDispatchKeyGuard g({DispatchKey::Autocast, DispatchKey::Tracer});
    EXPECT_TRUE(local_dispatch_key_set().is_excluded(DispatchKey::Autocast));
    EXPECT_TRUE(local_dispatch_key_set().is_excluded(DispatchKey::Tracer));
    bool other_thread_excluded = true;
    std::thread([&] { other_thread_excluded = local_dispatch_key_set().is_excluded(DispatchKey::Autocast); }).join();
    EXPECT_FALSE(other_thread_excluded);
  }
  EXPECT_FALSE(local_dispatch_key_set().is_excluded(DispatchKey::Autocast));
  const LocalDispatchKeySet before = local_dispatch_key_set();
  try {
    // Tracer is pushed, then the alias key is refused: the guard puts back the state.
    IncludeDispatchKeyGuard g({DispatchKey::Tracer, DispatchKey::CompositeExplicitAutograd});
    FAIL() << "an alias key must be refused";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("'include'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(local_dispatch_key_set().included, before.included);
}

namespace {
// Counts its live copies: the registration's copy must go when it is replaced.
struct Tracked {
  explicit Tracked(std::shared_ptr<int> c) : count(std::move(c)) { ++*count; }
  Tracked(const Tracked& o) : count(o.count) { ++*count; }
  Tracked(Tracked&& o) noexcept : count(o.count) { ++*count; }
  ~Tracked() { --*count; }
  std::shared_ptr<int> count;
};
}  // namespace

TEST(Library, ReplacedFallbackDestroysItsCallable) {
  FallthroughAtExit restore(DispatchKey::Tracer);
  auto live = std::make_shared<int>(0);
  auto calls = std::make_shared<int>(0);
  {
    Tracked t(live);
    Library lib("cpplib_lifetime");
    lib.fallback(DispatchKey::Tracer, [t, calls](const DispatchCall& call) {
      ++*calls;
      return call.redispatch();
    });
  }
  EXPECT_EQ(*live, 1);  // the Library is gone; the registered callable is not
  {
    IncludeDispatchKeyGuard on(DispatchKey::Tracer);
    Tensor a = tensor({1.0f});
    a + a;
  }
  EXPECT_EQ(*calls, 1);
  Library::fallthrough(DispatchKey::Tracer);  // replaces it: user_data_free runs
  EXPECT_EQ(*live, 0);
  EXPECT_EQ(calls.use_count(), 1);

  // A refused registration (an alias key) destroys its copy before throwing.
  {
    Tracked t(live);
    EXPECT_THROW(Library("cpplib_lifetime")
                     .fallback(DispatchKey::CompositeImplicitAutograd,
                               [t](const DispatchCall& call) { return call.redispatch(); }),
                 InvalidArgumentError);
    EXPECT_EQ(*live, 1);
  }
  EXPECT_EQ(*live, 0);
}

TEST(Library, KernelsRunOnManyThreads) {
  Library lib("cpplib_threads");
  lib.def("inc(Tensor self) -> Tensor");
  lib.impl("inc", DispatchKey::CPU, [](const Tensor& x) { return x + 1; });
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&ok, i] {
      for (int k = 0; k < 50; ++k) {
        Tensor y = call_op<Tensor>("cpplib_threads::inc", tensor({float(i)}));
        if (y.item<float>() == float(i + 1)) ++ok;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 200);
}
