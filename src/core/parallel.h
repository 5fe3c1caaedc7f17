// SPDX-License-Identifier: BSD-3-Clause
// One thread budget for the whole library. Parallel loops run on OpenMP's
// pool, the same pool Debian's BLIS (OpenMP build) uses, so tensorc's loops and
// GEMM never stack two pools on the same cores; set_num_threads sets both.
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
// when the range is larger than grain and more than one thread is allowed.
// Exceptions thrown by f are rethrown on the calling thread (the first one).
void parallel_for(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& f);

}  // namespace tc
