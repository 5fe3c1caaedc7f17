// SPDX-License-Identifier: BSD-3-Clause
// One thread budget for the whole library (get/set_num_threads; default: the
// CPUs in the process's affinity mask, or TC_NUM_THREADS).
//
// Parallel loops run on tensorc's own pool of worker threads, not on
// OpenMP's: libgomp's idle threads spin for milliseconds after every region
// (GOMP_SPINCOUNT; OMP_WAIT_POLICY is read once, when libgomp loads, so a
// library cannot change it), which on a machine whose CPUs are busy with
// other work takes those CPUs from the threads that have work. Here an idle
// worker, and a caller waiting for its workers, spins at most 50 µs and then
// sleeps on a condition variable; nothing spins when the budget is more
// threads than CPUs or with OMP_WAIT_POLICY=passive, and a worker does not
// spin on the CPU its caller last ran on. Chunks are claimed one by one, so a
// chunk whose worker has not started yet is run by whoever is free (the
// caller included) instead of being waited for.
//
// BLIS (the OpenMP build) spins in its own barriers inside a multi-threaded
// GEMM and leaves libgomp's threads spinning after it; src/cpu/blas.cpp runs
// each BLIS call single-threaded and splits large products over this pool.
//
// One job holds the pool at a time: a parallel_for that finds it busy (another
// application thread's loop) runs serially on its own thread. Calls made
// inside a chunk, or inside an OpenMP parallel region of the application, run
// serially too (in_parallel_region()).
#pragma once
#include <cstdint>
#include <functional>

namespace tc {

int get_num_threads();
void set_num_threads(int n);  // n >= 1
bool in_parallel_region();

// Below this many elements of simple work a loop stays on one thread.
constexpr int64_t kGrainSize = 32768;

// Calls f(begin, end) over disjoint chunks covering [begin, end), in parallel
// when the range is larger than grain and more than one thread is allowed:
// at most one chunk per thread, each at least `grain` long.
// Exceptions thrown by f are rethrown on the calling thread (the first one).
void parallel_for(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& f);

// Like parallel_for, with [begin, end) cut into `chunks` near-equal chunks
// that the threads claim one at a time: more chunks than threads balance work
// whose threads run at uneven speed (one sharing its CPU with another process
// takes fewer). Serially, f(begin, end) is one call.
void parallel_chunks(int64_t begin, int64_t end, int64_t chunks, const std::function<void(int64_t, int64_t)>& f);

}  // namespace tc
