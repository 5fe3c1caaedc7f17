// SPDX-License-Identifier: BSD-3-Clause
// tc::parallel_for and tensorc's worker pool (src/core/parallel.cpp): every
// index covered exactly once, small ranges serial, workers taking part,
// exceptions rethrown on the caller, nested calls serial, thread-count
// changes, several application threads at once, a forked child, and idle
// threads that sleep instead of spinning (after a loop and after a GEMM).
// Labelled "threads": tools/tsan.sh runs it under ThreadSanitizer (the pool's
// threads are std::threads, which TSan fully understands).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <mutex>
#include <set>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/parallel.h"
#include "tensorc_gen/ops.h"

namespace {

using namespace tc;

// Restores the thread budget after each test.
class Parallel : public ::testing::Test {
 protected:
  void SetUp() override { saved_ = get_num_threads(); }
  void TearDown() override { set_num_threads(saved_); }
  int saved_ = 1;
};

// Each index of [begin, end) counted once; returns the chunks seen.
struct Coverage {
  explicit Coverage(int64_t n) : hits(size_t(n)) {}
  std::vector<std::atomic<int>> hits;
  std::mutex mu;
  std::vector<std::pair<int64_t, int64_t>> chunks;
  std::set<std::thread::id> threads;
  void operator()(int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) hits[size_t(i)]++;
    std::lock_guard<std::mutex> g(mu);
    chunks.emplace_back(b, e);
    threads.insert(std::this_thread::get_id());
  }
  bool exact() const {
    for (const auto& h : hits)
      if (h.load() != 1) return false;
    return true;
  }
};

// Waits (at most `limit`, 10 s by default) until `count` reaches `n`: lets a chunk hold until
// others have started elsewhere, without hanging the test if they never do.
bool wait_for(const std::atomic<int>& count, int n, std::chrono::seconds limit = std::chrono::seconds(10)) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (count.load() < n) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::yield();
  }
  return true;
}

double process_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

TEST_F(Parallel, CoversTheRangeExactlyOnce) {
  for (int threads : {1, 2, 3, 4, 8}) {
    set_num_threads(threads);
    for (int64_t n : {int64_t(1), int64_t(2), int64_t(5), int64_t(7), int64_t(1000), int64_t(100003)}) {
      for (int64_t grain : {int64_t(0), int64_t(1), int64_t(2), int64_t(100), int64_t(32768)}) {
        Coverage cov(n);
        parallel_for(0, n, grain, [&](int64_t b, int64_t e) { cov(b, e); });
        EXPECT_TRUE(cov.exact()) << "threads " << threads << " n " << n << " grain " << grain;
        EXPECT_LE(cov.chunks.size(), size_t(threads));
        if (n <= grain || threads == 1) {
          ASSERT_EQ(cov.chunks.size(), 1u);
          EXPECT_EQ(cov.chunks[0], std::make_pair(int64_t(0), n));
          EXPECT_EQ(*cov.threads.begin(), std::this_thread::get_id());
        }
      }
    }
    // An offset range, and an empty one (f never called).
    Coverage cov(300);
    parallel_for(100, 300, 10, [&](int64_t b, int64_t e) { cov(b, e); });
    for (int64_t i = 0; i < 300; ++i) EXPECT_EQ(cov.hits[size_t(i)].load(), i >= 100 ? 1 : 0);
    int calls = 0;
    parallel_for(5, 5, 1, [&](int64_t, int64_t) { ++calls; });
    parallel_for(6, 5, 1, [&](int64_t, int64_t) { ++calls; });
    EXPECT_EQ(calls, 0);
  }
}

TEST_F(Parallel, ChunksCoverTheRange) {
  for (int threads : {1, 2, 4}) {
    set_num_threads(threads);
    for (int64_t chunks : {int64_t(1), int64_t(3), int64_t(16), int64_t(1000)}) {
      Coverage cov(100);
      parallel_chunks(0, 100, chunks, [&](int64_t b, int64_t e) { cov(b, e); });
      EXPECT_TRUE(cov.exact());
      // Chunks of ceil(100 / chunks) elements: 16 asked give 15 of 7.
      const size_t want =
          threads == 1 ? 1 : size_t((100 + (100 + chunks - 1) / chunks - 1) / ((100 + chunks - 1) / chunks));
      EXPECT_EQ(cov.chunks.size(), want) << chunks << " chunks";
    }
  }
}

TEST_F(Parallel, WorkersTakePart) {
  for (int threads : {2, 4}) {
    set_num_threads(threads);
    std::atomic<int> started{0};
    std::atomic<bool> all{true};
    Coverage cov(threads);
    // Every chunk waits until all have started: only possible when each
    // runs on its own thread.
    parallel_for(0, threads, 1, [&](int64_t b, int64_t e) {
      started++;
      if (!wait_for(started, threads)) all = false;
      cov(b, e);
    });
    EXPECT_TRUE(all.load());
    EXPECT_TRUE(cov.exact());
    EXPECT_EQ(cov.threads.size(), size_t(threads));
  }
}

TEST_F(Parallel, ThreadCountChanges) {
  for (int threads : {4, 2, 1, 3}) {
    set_num_threads(threads);
    EXPECT_EQ(get_num_threads(), threads);
    Coverage cov(1 << 16);
    parallel_for(0, 1 << 16, 1, [&](int64_t b, int64_t e) { cov(b, e); });
    EXPECT_TRUE(cov.exact());
    EXPECT_EQ(cov.chunks.size(), size_t(threads));
    EXPECT_LE(cov.threads.size(), size_t(threads));
  }
  EXPECT_THROW(set_num_threads(0), Error);
  EXPECT_THROW(set_num_threads(-1), Error);
}

TEST_F(Parallel, ExceptionsReachTheCaller) {
  set_num_threads(4);
  for (int64_t bad : {int64_t(0), int64_t(3), int64_t(99)}) {
    std::atomic<int> calls{0};
    try {
      parallel_for(0, 100, 1, [&](int64_t b, int64_t e) {
        calls++;
        if (b <= bad && bad < e) TC_FAIL(InvalidArgument, "chunk with ", bad);
      });
      ADD_FAILURE() << "no exception";
    } catch (const Error& err) {
      EXPECT_EQ(err.code(), ErrorCode::InvalidArgument);
      EXPECT_NE(err.message().find("chunk with " + std::to_string(bad)), std::string::npos) << err.message();
    }
    EXPECT_EQ(calls.load(), 4);  // the other chunks still ran
  }
  // Every chunk throws: one exception comes out.
  EXPECT_THROW(parallel_for(0, 100, 1, [](int64_t, int64_t) { throw std::runtime_error("all"); }), std::runtime_error);
  // The pool still works afterwards.
  Coverage cov(1000);
  parallel_for(0, 1000, 1, [&](int64_t b, int64_t e) { cov(b, e); });
  EXPECT_TRUE(cov.exact());
  EXPECT_FALSE(in_parallel_region());
}

TEST_F(Parallel, NestedCallsRunSerially) {
  set_num_threads(4);
  EXPECT_FALSE(in_parallel_region());
  std::atomic<int> outside{0}, inner_calls{0}, wrong_thread{0};
  std::vector<std::atomic<int>> hits(size_t(64 * 64));
  parallel_for(0, 64, 1, [&](int64_t b, int64_t e) {
    if (!in_parallel_region()) outside++;
    for (int64_t i = b; i < e; ++i) {
      const auto me = std::this_thread::get_id();
      parallel_for(0, 64, 1, [&](int64_t b2, int64_t e2) {
        inner_calls++;
        if (std::this_thread::get_id() != me) wrong_thread++;
        for (int64_t j = b2; j < e2; ++j) hits[size_t(i * 64 + j)]++;
      });
    }
  });
  EXPECT_EQ(outside.load(), 0);
  EXPECT_EQ(inner_calls.load(), 64);  // one serial call per outer index
  EXPECT_EQ(wrong_thread.load(), 0);
  for (const auto& h : hits) EXPECT_EQ(h.load(), 1);
  EXPECT_FALSE(in_parallel_region());
}

TEST_F(Parallel, SeveralApplicationThreadsAtOnce) {
  // One job holds the pool; the others run serially on their own thread.
  set_num_threads(2);
  constexpr int kCallers = 4, kIters = 200;
  std::atomic<int> wrong{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < kCallers; ++t)
    callers.emplace_back([&] {
      for (int it = 0; it < kIters; ++it) {
        Coverage cov(4096);
        parallel_for(0, 4096, 64, [&](int64_t b, int64_t e) { cov(b, e); });
        if (!cov.exact() || in_parallel_region()) wrong++;
      }
    });
  for (auto& c : callers) c.join();
  EXPECT_EQ(wrong.load(), 0);
}

// A forked child has none of the parent's threads: its parallel_for makes a
// pool of its own instead of waiting for workers that do not exist.
TEST_F(Parallel, WorksInAForkedChild) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "fork of a multi-threaded process under ThreadSanitizer";
#else
  set_num_threads(2);
  // The parent's pool exists and its worker has run a chunk. Forking while a
  // thread is still starting is unsafe under GCC 12's AddressSanitizer (no
  // fork handlers: the child inherits its thread registry locked, and its
  // first pthread_create hangs), so the worker must be past its start.
  std::atomic<int> warm_started{0};
  Coverage warm(2);
  parallel_for(0, 2, 1, [&](int64_t b, int64_t e) {
    warm_started++;
    wait_for(warm_started, 2, std::chrono::seconds(60));
    warm(b, e);
  });
  ASSERT_TRUE(warm.exact());
  ASSERT_EQ(warm.threads.size(), 2u) << "the parent's worker did not take part within 60 s";
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(150);  // a hang fails the test instead of stalling it
    // A thread the system refuses is an environment limit, not a pool bug:
    // the pool then runs the job on fewer threads, by design.
    try {
      std::thread([] {}).join();
    } catch (const std::system_error&) {
      _exit(3);
    }
    std::atomic<int> started{0};
    bool both = true;
    Coverage cov(2);
    parallel_for(0, 2, 1, [&](int64_t b, int64_t e) {
      started++;
      // Generous: on a loaded CI machine a new thread can wait long for a CPU.
      if (!wait_for(started, 2, std::chrono::seconds(60))) both = false;
      cov(b, e);
    });
    _exit(!cov.exact() ? 1 : !both || cov.threads.size() != 2 ? 2 : 0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "child killed, status " << status << " (SIGALRM: parallel_for hung)";
  switch (WEXITSTATUS(status)) {
    case 0: break;
    case 1: ADD_FAILURE() << "child's parallel_for did not cover its range exactly once"; break;
    case 2: ADD_FAILURE() << "child's pool ran the job on one thread: no worker took part within 60 s"; break;
    case 3: GTEST_SKIP() << "the system refused the child a thread (process or thread limit)";
    default: ADD_FAILURE() << "child exit status " << WEXITSTATUS(status);
  }
#endif
}

// CPU time the whole process uses while the calling thread sleeps `ms`.
double idle_cpu_ms(int ms) {
  double t0 = process_cpu_seconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  return (process_cpu_seconds() - t0) * 1e3;
}

TEST_F(Parallel, IdleWorkersSleep) {
  set_num_threads(2);
  for (int i = 0; i < 50; ++i) {
    Coverage cov(1 << 16);
    parallel_for(0, 1 << 16, 1, [&](int64_t b, int64_t e) { cov(b, e); });
  }
  // Spinning for the 200 ms would cost ~200 ms of CPU per idle thread.
  EXPECT_LT(idle_cpu_ms(200), 20.0);
}

TEST_F(Parallel, NoThreadSpinsAfterAGemm) {
  // BLIS's OpenMP threads would spin in libgomp after a multi-threaded call;
  // products run single-threaded BLIS calls on the pool instead.
  set_num_threads(2);
  Tensor a = tc::ones({384, 384}, ScalarType::Float32), b = tc::ones({384, 384}, ScalarType::Float32);
  for (int i = 0; i < 5; ++i) {
    Tensor c = tc::mm(a, b);
    ASSERT_EQ(read_element(c, 0).to_double(), 384.0);
  }
  EXPECT_LT(idle_cpu_ms(200), 20.0);
}

}  // namespace
