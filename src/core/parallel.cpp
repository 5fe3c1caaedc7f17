// SPDX-License-Identifier: BSD-3-Clause
// tensorc's own pool of worker threads (see parallel.h for the policy).
//
// One job at a time: the thread that takes the pool's run lock publishes a
// Job and a job word (serial << 16 | helpers wanted), runs chunks itself,
// closes the job (word 0) and waits until no worker is inside it. A worker
// enters by counting itself in `inside_` and then checking that the word
// still names its job; the caller closes and then reads `inside_`. Both
// pairs are sequentially consistent, so either the caller sees the worker
// and waits for it, or the worker sees the job closed and leaves without
// touching it: the Job can live on the caller's stack.
//
// Waiting, on both sides, is a bounded spin and then a condition variable.
// A sleeper announces itself (a seq_cst flag) before it checks its condition
// under the mutex; the waker changes the condition (seq_cst) before it reads
// the flag, and takes the mutex before notifying: no wake-up is lost.
#include "core/parallel.h"

#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <strings.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "core/error.h"

namespace tc {
namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

inline int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::atomic<int> g_num_threads{0};
thread_local bool t_in_pool = false;  // running a chunk of a parallel_for (caller or worker)

// CPUs this process may run on (its affinity mask), like omp_get_num_procs.
int available_cpus() {
  static const int n = [] {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, int(CPU_COUNT(&set)));
    return std::max(1, int(std::thread::hardware_concurrency()));
  }();
  return n;
}

int initial_threads() {
  if (const char* e = std::getenv("TC_NUM_THREADS")) {
    int n = std::atoi(e);
    if (n > 0) return n;
  }
  return available_cpus();
}

// How long an idle thread spins before it sleeps.
constexpr int64_t kSpinNs = 50'000;
int64_t spin_budget_ns(int participants) {
  static const bool passive = [] {
    const char* e = std::getenv("OMP_WAIT_POLICY");
    return e && strcasecmp(e, "passive") == 0;
  }();
  // More threads than CPUs: a spinning thread would take the CPU from the
  // one it waits for.
  if (passive || participants > available_cpus()) return 0;
  return kSpinNs;
}

using Fn = std::function<void(int64_t, int64_t)>;

// One parallel_for: chunk c covers [begin + c * chunk, ...) clipped to end;
// participants claim chunks in order until none is left.
struct Job {
  const Fn* f;
  int64_t begin, end, chunk, nchunks;
  std::atomic<int64_t> next{0};
  std::mutex err_mu;
  std::exception_ptr err;

  void run_chunks() {
    for (;;) {
      const int64_t c = next.fetch_add(1, std::memory_order_relaxed);
      if (c >= nchunks) return;
      const int64_t b = begin + c * chunk, e = std::min(end, b + chunk);
      if (b >= e) continue;
      try {
        (*f)(b, e);
      } catch (...) {
        std::lock_guard<std::mutex> g(err_mu);
        if (!err) err = std::current_exception();  // the first one is rethrown
      }
    }
  }
};

class Pool {
 public:
  // Runs job on this thread and up to `helpers` workers. False, with nothing
  // run, when another thread's job holds the pool.
  bool run(Job& job, int helpers) {
    std::unique_lock<std::mutex> run_lock(run_mu_, std::try_to_lock);
    if (!run_lock.owns_lock()) return false;
    helpers = grow(helpers);
    const int64_t spin = spin_budget_ns(helpers + 1);
    if (helpers > 0) {
      job_ = &job;
      spin_ns_.store(spin, std::memory_order_relaxed);
      caller_cpu_.store(sched_getcpu(), std::memory_order_relaxed);
      word_.store((++serial_ << 16) | uint64_t(helpers), std::memory_order_seq_cst);
      bool any_asleep = false;
      for (int i = 0; i < helpers && !any_asleep; ++i) any_asleep = slots_[size_t(i)]->asleep.load();
      if (any_asleep) {
        std::lock_guard<std::mutex> g(mu_);
        for (int i = 0; i < helpers; ++i)
          if (slots_[size_t(i)]->asleep.load()) slots_[size_t(i)]->cv.notify_one();
      }
    }
    job.run_chunks();
    if (helpers > 0) {
      word_.store(0, std::memory_order_seq_cst);  // closed: late workers leave
      wait_until_empty(spin);
      job_ = nullptr;
    }
    return true;
  }

 private:
  struct Slot {
    std::condition_variable cv;
    std::atomic<bool> asleep{false};
  };

  static bool wanted(uint64_t word, uint64_t seen, int index) {
    return word != 0 && (word >> 16) != seen && index < int(word & 0xffff);
  }

  // Makes sure `want` workers exist (called under run_mu_); returns how many
  // do (fewer if the system refuses threads: the job then runs on fewer).
  int grow(int want) {
    want = std::min(want, 0xffff);
    if (int(threads_.size()) >= want) return want;
    // Workers take no asynchronous signals: those go to the program's threads.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    try {
      while (int(threads_.size()) < want) {
        slots_.push_back(std::make_unique<Slot>());
        Slot* slot = slots_.back().get();
        const int index = int(threads_.size());
        threads_.emplace_back([this, slot, index] { worker(*slot, index); });
      }
    } catch (...) {  // no thread (std::system_error) or no memory: fewer workers
      slots_.resize(threads_.size());
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return std::min(want, int(threads_.size()));
  }

  void worker(Slot& slot, int index) {
    t_in_pool = true;   // everything a worker runs is inside a parallel_for
    uint64_t seen = 0;  // serial of the last job this worker looked at
    for (;;) {
      const uint64_t word = wait_for_job(slot, index, seen);
      seen = word >> 16;
      inside_.fetch_add(1, std::memory_order_seq_cst);
      if (word_.load(std::memory_order_seq_cst) == word) job_->run_chunks();
      if (inside_.fetch_sub(1, std::memory_order_seq_cst) == 1 && caller_asleep_.load()) {
        std::lock_guard<std::mutex> g(mu_);
        done_cv_.notify_one();
      }
    }
  }

  uint64_t wait_for_job(Slot& slot, int index, uint64_t& seen) {
    auto ready = [&](uint64_t& word) {
      word = word_.load(std::memory_order_seq_cst);
      if (word != 0 && (word >> 16) != seen && index >= int(word & 0xffff)) seen = word >> 16;  // not for us
      return wanted(word, seen, index);
    };
    uint64_t word = 0;
    const int64_t spin = spin_ns_.load(std::memory_order_relaxed);
    if (spin > 0) {
      // No spinning on the CPU of the thread that will publish the next job:
      // that would only delay it. (On a loaded machine the scheduler often
      // wakes a worker onto its waker's CPU.)
      const int64_t t0 = now_ns();
      for (int k = 1;; ++k) {
        if (ready(word)) return word;
        if (k % 16 == 0 && (now_ns() - t0 > spin || sched_getcpu() == caller_cpu_.load(std::memory_order_relaxed)))
          break;
        cpu_relax();
      }
    }
    std::unique_lock<std::mutex> lk(mu_);
    slot.asleep.store(true);
    slot.cv.wait(lk, [&] { return ready(word); });
    slot.asleep.store(false);
    return word;
  }

  void wait_until_empty(int64_t spin) {
    if (inside_.load() == 0) return;
    if (spin > 0) {
      const int64_t t0 = now_ns();
      for (int k = 1;; ++k) {
        if (inside_.load() == 0) return;
        if (k % 16 == 0 && now_ns() - t0 > spin) break;
        cpu_relax();
      }
    }
    std::unique_lock<std::mutex> lk(mu_);
    caller_asleep_.store(true);
    done_cv_.wait(lk, [&] { return inside_.load() == 0; });
    caller_asleep_.store(false);
  }

  std::mutex run_mu_;  // held by the thread whose job runs
  uint64_t serial_ = 0;
  Job* job_ = nullptr;
  std::atomic<uint64_t> word_{0};  // the open job: serial << 16 | helpers; 0 when none
  std::atomic<int64_t> spin_ns_{0};
  std::atomic<int> caller_cpu_{-1};  // where the last job's caller ran
  std::atomic<int> inside_{0};       // workers inside the open job (or checking it)
  std::atomic<bool> caller_asleep_{false};
  std::mutex mu_;  // sleeping and waking
  std::condition_variable done_cv_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<std::thread> threads_;
};

// The pool is made on first use and never destroyed: its workers sleep
// through exit (joining them from a static destructor could deadlock). A
// forked child starts without the parent's workers: it forgets the pool and
// makes its own.
std::atomic<Pool*> g_pool{nullptr};

Pool& pool() {
  Pool* p = g_pool.load(std::memory_order_acquire);
  if (p) return *p;
  static const bool registered = [] {
    pthread_atfork(nullptr, nullptr, [] { g_pool.store(nullptr); });
    return true;
  }();
  (void)registered;
  auto fresh = std::make_unique<Pool>();  // no threads yet: cheap to throw away
  Pool* expected = nullptr;
  if (g_pool.compare_exchange_strong(expected, fresh.get())) return *fresh.release();
  return *expected;
}

// Hook set by the BLIS-backed matmul so GEMM follows the same budget.
void (*g_blas_threads_hook)(int) = nullptr;

}  // namespace

void register_blas_threads_hook(void (*hook)(int)) {
  g_blas_threads_hook = hook;
  if (hook) hook(get_num_threads());
}

int get_num_threads() {
  int n = g_num_threads.load(std::memory_order_relaxed);
  if (n == 0) {
    n = initial_threads();
    g_num_threads.store(n, std::memory_order_relaxed);
  }
  return n;
}

void set_num_threads(int n) {
  TC_CHECK_ARG(n >= 1, "set_num_threads: argument 'n' expected >= 1, got ", n);
  g_num_threads.store(n, std::memory_order_relaxed);
  if (g_blas_threads_hook) g_blas_threads_hook(n);
}

bool in_parallel_region() { return t_in_pool || omp_in_parallel(); }

void parallel_chunks(int64_t begin, int64_t end, int64_t chunks, const Fn& f) {
  if (begin >= end) return;
  const int64_t range = end - begin;
  chunks = std::max<int64_t>(1, std::min(chunks, range));
  const int threads = int(std::min<int64_t>(get_num_threads(), chunks));
  if (threads <= 1 || in_parallel_region()) {
    f(begin, end);
    return;
  }
  Job job;
  job.f = &f;
  job.begin = begin;
  job.end = end;
  job.chunk = (range + chunks - 1) / chunks;
  job.nchunks = chunks;
  t_in_pool = true;
  bool ran = false;
  try {
    ran = pool().run(job, threads - 1);
  } catch (...) {
    t_in_pool = false;
    throw;
  }
  t_in_pool = false;
  if (!ran) {  // another thread's job holds the pool: this one runs here, serially
    f(begin, end);
    return;
  }
  if (job.err) std::rethrow_exception(job.err);
}

void parallel_for(int64_t begin, int64_t end, int64_t grain, const Fn& f) {
  if (begin >= end) return;
  const int64_t range = end - begin;
  const int nt = get_num_threads();
  if (nt <= 1 || range <= grain || in_parallel_region()) {
    f(begin, end);
    return;
  }
  const int64_t max_chunks = (range + std::max<int64_t>(grain, 1) - 1) / std::max<int64_t>(grain, 1);
  parallel_chunks(begin, end, std::min<int64_t>(nt, max_chunks), f);
}

}  // namespace tc
