// SPDX-License-Identifier: BSD-3-Clause
#include "core/parallel.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>

#include "core/error.h"

namespace tc {
namespace {

std::atomic<int> g_num_threads{0};

int initial_threads() {
  if (const char* e = std::getenv("TC_NUM_THREADS")) {
    int n = std::atoi(e);
    if (n > 0) return n;
  }
  return std::max(1, omp_get_num_procs());
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
  omp_set_num_threads(n);
  if (g_blas_threads_hook) g_blas_threads_hook(n);
}

bool in_parallel_region() { return omp_in_parallel(); }

void parallel_for(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& f) {
  if (begin >= end) return;
  int64_t range = end - begin;
  int nt = get_num_threads();
  if (nt <= 1 || range <= grain || omp_in_parallel()) {
    f(begin, end);
    return;
  }
  int64_t max_chunks = (range + grain - 1) / std::max<int64_t>(grain, 1);
  int threads = int(std::min<int64_t>(nt, max_chunks));
  std::exception_ptr err;
  std::mutex err_mu;
#pragma omp parallel num_threads(threads)
  {
    int tid = omp_get_thread_num(), n = omp_get_num_threads();
    int64_t chunk = (range + n - 1) / n;
    int64_t b = begin + tid * chunk, e = std::min(end, b + chunk);
    if (b < e) {
      try {
        f(b, e);
      } catch (...) {
        std::lock_guard<std::mutex> g(err_mu);
        if (!err) err = std::current_exception();
      }
    }
  }
  if (err) std::rethrow_exception(err);
}

}  // namespace tc
