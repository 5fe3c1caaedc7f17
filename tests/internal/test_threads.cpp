// SPDX-License-Identifier: BSD-3-Clause
// Autograd from several threads at once: forward-only ops on one shared leaf,
// concurrent backward into one shared leaf (through the C++ surface and the C
// ABI), concurrent backward through a shared non-leaf with retain_graph, and
// separate graphs per thread. Gradients are sums of integer-valued float64
// terms, so the expected values are exact: one lost update fails the test.
//
// Built and run under ThreadSanitizer by tools/tsan.sh. Its tensors are far
// below the parallel grain and the tests set one OpenMP thread, so no OpenMP
// region runs and every thread here is a std::thread TSan fully understands:
// no suppressions are needed, and any report is a real race.
#include <gtest/gtest.h>
#include <tensorc.h>

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "autograd/variable.h"
#include "capi/handles.h"
#include "core/parallel.h"
#include "tensorc_gen/ops.h"
#include "autograd_fixtures.h"

namespace {

using namespace tc;
namespace ag = tc::autograd;
using tc::fixtures::leaf;

constexpr int kThreads = 8;

double at(const Tensor& t, int64_t i) { return read_element(t, i).to_double(); }

// Runs body(thread_index) on kThreads threads that start together (each
// waits until all exist), and joins them. Failures inside a thread are
// counted and reported here: gtest assertions are per thread.
void run_threads(const std::function<void(int)>& body, int n = kThreads) {
  std::atomic<int> waiting{n};
  std::vector<std::thread> threads;
  for (int t = 0; t < n; ++t)
    threads.emplace_back([&, t] {
      waiting.fetch_sub(1);
      while (waiting.load() > 0) std::this_thread::yield();
      body(t);
    });
  for (auto& th : threads) th.join();
}

class Threads : public ::testing::Test {
 protected:
  void SetUp() override { tc::set_num_threads(1); }
};

// (a) Every op on a shared leaf that requires grad records a node whose edge
// is the leaf's AccumulateGrad, made on first use and cached in the leaf's
// autograd meta. Threads doing this at once must share one accumulator and
// never see a half-written cache.
TEST_F(Threads, ForwardOnlyOnSharedLeaf) {
  Tensor x = leaf({1, 2, 3, 4}, {4});
  constexpr int kIters = 400;
  std::atomic<int> wrong{0};
  std::vector<Tensor> kept(kThreads);  // one graph per thread, alive until the end
  run_threads([&](int t) {
    for (int i = 0; i < kIters; ++i) {
      // sum((x + 1) * x) = 2 + 6 + 12 + 20 = 40
      Tensor s = tc::sum(tc::mul(tc::add(x, Scalar(1.0)), x));
      Tensor v = tc::select(x, 0, t % 4);  // a view of the leaf
      if (at(s, 0) != 40 || !s.requires_grad() || !v.requires_grad() || at(v, 0) != t % 4 + 1) wrong++;
      if (i == kIters / 2) kept[size_t(t)] = tc::mul(x, x);
    }
  });
  EXPECT_EQ(wrong.load(), 0);
  // The graphs kept alive at the same time all point at one accumulator.
  const ag::Node* acc = ag::grad_fn(kept[0])->next_edge(0).function.get();
  ASSERT_NE(acc, nullptr);
  EXPECT_EQ(acc->name(), "AccumulateGrad");
  for (int t = 0; t < kThreads; ++t)
    for (size_t e = 0; e < 2; ++e)
      EXPECT_EQ(ag::grad_fn(kept[size_t(t)])->next_edge(e).function.get(), acc) << "thread " << t;
  EXPECT_FALSE(ag::grad(x).defined());  // forward only: nothing accumulated
}

// (b) Each thread builds its own graph from the shared leaf and runs
// backward; every gradient lands in the leaf's one .grad. Half the threads
// go through the C ABI, and one more thread reads .grad through the C ABI
// meanwhile (the handle, not the values, which backward changes in place).
TEST_F(Threads, ConcurrentBackwardIntoSharedLeaf) {
  // Big enough that additions into .grad from two threads overlap in time,
  // still far below the parallel grain.
  constexpr int64_t kN = 2048;
  std::vector<double> xs(kN);
  for (int64_t j = 0; j < kN; ++j) xs[size_t(j)] = double(j % 7);
  Tensor x = leaf(xs, {kN});
  tc_tensor xh = tc::capi::new_handle(x);
  constexpr int kIters = 250;
  std::atomic<int> failures{0};
  std::atomic<bool> done{false};
  std::thread reader([&] {
    while (!done.load()) {
      tc_tensor g = nullptr;
      if (tc_tensor_grad(&g, xh) != TC_OK) failures++;
      if (g) {
        if (capi::impl_of(g)->numel() != kN) failures++;
        tc_tensor_release(g);
      }
      std::this_thread::yield();
    }
  });
  run_threads([&](int t) {
    const double c = t + 1;
    for (int i = 0; i < kIters; ++i) {
      // d/dx sum(c * x + x * x) = c + 2x
      Tensor loss = tc::sum(tc::add(tc::mul(x, Scalar(c)), tc::mul(x, x)));
      if (t % 2 == 0) {
        ag::backward({loss}, {}, false, false);
      } else {
        tc_tensor lh = tc::capi::new_handle(loss);
        if (tc_tensor_backward(lh, nullptr, false, false) != TC_OK) failures++;
        tc_tensor_release(lh);
      }
    }
  });
  done = true;
  reader.join();
  EXPECT_EQ(failures.load(), 0) << tc_last_error_message();
  Tensor g = ag::grad(x);
  ASSERT_TRUE(g.defined());
  // Sum over threads t of kIters * ((t + 1) + 2x).
  const double sum_c = kThreads * (kThreads + 1) / 2.0;
  int64_t wrong = 0;
  for (int64_t j = 0; j < kN; ++j) {
    const double want = kIters * (sum_c + 2 * kThreads * xs[size_t(j)]);
    if (at(g, j) != want && wrong++ < 5) ADD_FAILURE() << "element " << j << ": " << at(g, j) << ", expected " << want;
  }
  EXPECT_EQ(wrong, 0) << "elements with a lost update";
  tc_tensor_release(xh);
}

// .grad replaced while backward accumulates: set_grad and grad take the same
// per-tensor lock as the accumulation, so every handle read is whole and the
// final value is one a serial order gives.
TEST_F(Threads, SetGradWhileAccumulating) {
  Tensor x = leaf({1, 2}, {2});
  constexpr int kIters = 200;
  std::atomic<int> failures{0};
  run_threads(
      [&](int t) {
        for (int i = 0; i < kIters; ++i) {
          if (t == 0) {
            ag::set_grad(x, (i % 2) ? Tensor() : tc::zeros({2}, ScalarType::Float64));
          } else if (t == 1) {
            Tensor g = ag::grad(x);
            if (g.defined() && g.numel() != 2) failures++;
          } else {
            ag::backward({tc::sum(tc::mul(x, Scalar(3.0)))}, {}, false, false);
          }
        }
      },
      4);
  EXPECT_EQ(failures.load(), 0);
  ag::set_grad(x, Tensor());
  ag::backward({tc::sum(tc::mul(x, Scalar(3.0)))}, {}, false, false);
  EXPECT_EQ(at(ag::grad(x), 0), 3);
  EXPECT_EQ(at(ag::grad(x), 1), 3);
}

// A non-leaf shared by every thread: its node runs in several graph tasks at
// once (retain_graph keeps its saved tensors), and its retained grad gets a
// gradient from each of them.
TEST_F(Threads, ConcurrentBackwardThroughSharedNonLeaf) {
  const std::vector<double> xs{1, 2, 3};
  Tensor x = leaf(xs, {3});
  Tensor h = tc::mul(x, x);  // dh/dx = 2x, saved x
  ag::retain_grad(h);
  constexpr int kIters = 150;
  run_threads([&](int t) {
    for (int i = 0; i < kIters; ++i) {
      // d/dh sum(h * 3) = 3, so d/dx = 6x
      ag::backward({tc::sum(tc::mul(h, Scalar(3.0)))}, {}, true, false);
    }
  });
  const double n = double(kThreads) * kIters;
  for (int64_t j = 0; j < 3; ++j) {
    EXPECT_EQ(at(ag::grad(x), j), n * 6 * xs[j]) << "element " << j;
    EXPECT_EQ(at(ag::grad(h), j), n * 3) << "element " << j;
  }
}

// (c) Separate graphs per thread: nothing is shared but the library's own
// state (dispatcher, allocator, sequence numbers).
TEST_F(Threads, SeparateGraphsPerThread) {
  constexpr int kIters = 200;
  std::atomic<int> wrong{0};
  run_threads([&](int t) {
    const double base = 10 * t;
    Tensor w = leaf({base + 1, base + 2, base + 3}, {3});
    for (int i = 0; i < kIters; ++i) {
      Tensor h = tc::mul(w, w);
      ag::retain_grad(h);
      Tensor loss = tc::sum(tc::mul(h, tc::select(w, 0, 0)));  // sum(w * w) * w0
      ag::backward({loss}, {}, false, false);
      // d/dw_j = 2 w_j w0 (+ sum(w * w) for j = 0), accumulated i + 1 times.
      const Tensor g = ag::grad(w);
      const double w0 = base + 1, sq = (base + 1) * (base + 1) + (base + 2) * (base + 2) + (base + 3) * (base + 3);
      for (int64_t j = 0; j < 3; ++j) {
        const double wj = base + 1 + double(j);
        const double want = (i + 1) * (2 * wj * w0 + (j == 0 ? sq : 0));
        if (at(g, j) != want) wrong++;
        if (at(ag::grad(h), j) != w0) wrong++;
      }
    }
    ag::set_grad(w, Tensor());
    {
      ag::AutoGradMode no_grad(false);
      if (tc::mul(w, w).requires_grad()) wrong++;
    }
  });
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
