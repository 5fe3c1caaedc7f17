// SPDX-License-Identifier: BSD-3-Clause
#include "core/overlap.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace tc {
namespace {

// Floor and ceiling division for any signs (b != 0).
int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t ceil_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}

// One index digit of either layout: it adds d * step bytes, 0 <= d <= max.
// Steps of `b` are negated, so a shared byte is a digit choice whose sum
// falls in [lo, hi].
struct Digit {
  int64_t step, max;
};

struct Search {
  std::vector<Digit> digits;      // by |step|, largest first
  std::vector<int64_t> rest_min;  // smallest sum the digits from k on can add
  std::vector<int64_t> rest_max;  // largest
  int64_t lo, hi;
  int64_t budget = 1 << 14;  // nodes visited before giving up

  // 1: found, 0: none, -1: out of budget.
  int run(size_t k, int64_t sum) {
    if (--budget < 0) return -1;
    if (k == digits.size()) return sum >= lo && sum <= hi;
    const Digit& g = digits[k];
    // d must leave room for the later digits to land in [lo, hi].
    const int64_t want_lo = lo - sum - rest_max[k + 1], want_hi = hi - sum - rest_min[k + 1];
    int64_t d0, d1;
    if (g.step > 0) {
      d0 = ceil_div(want_lo, g.step);
      d1 = floor_div(want_hi, g.step);
    } else {
      d0 = ceil_div(want_hi, g.step);
      d1 = floor_div(want_lo, g.step);
    }
    d0 = std::max<int64_t>(d0, 0);
    d1 = std::min(d1, g.max);
    for (int64_t d = d0; d <= d1; ++d) {
      int r = run(k + 1, sum + d * g.step);
      if (r != 0) return r;
    }
    return 0;
  }
};

// Byte extent of a layout's elements: [first, last] start bytes.
void byte_range(const MemLayout& m, int64_t* first, int64_t* last) {
  *first = m.offset * m.itemsize;
  *last = *first;
  for (size_t i = 0; i < m.sizes.size(); ++i) *last += (m.sizes[i] - 1) * m.strides[i] * m.itemsize;
}

bool empty(const MemLayout& m) {
  for (int64_t s : m.sizes)
    if (s == 0) return true;
  return false;
}

}  // namespace

// Callers pass layouts that fit their storage, so every byte offset below
// fits int64 (storage sizes are checked in bytes when storages are made).
Overlap memory_overlap(const MemLayout& a, const MemLayout& b) {
  if (empty(a) || empty(b)) return Overlap::None;
  int64_t a0, a1, b0, b1;
  byte_range(a, &a0, &a1);
  byte_range(b, &b0, &b1);
  if (a1 + a.itemsize <= b0 || b1 + b.itemsize <= a0) return Overlap::None;
  // Element x of a (bytes [x, x + ia)) meets element y of b iff
  // -ib < x - y < ia, i.e. sum(a digits) - sum(b digits) in [lo, hi].
  Search s;
  s.lo = b0 - a0 - a.itemsize + 1;
  s.hi = b0 - a0 + b.itemsize - 1;
  for (size_t i = 0; i < a.sizes.size(); ++i)
    if (a.sizes[i] > 1 && a.strides[i] != 0) s.digits.push_back({a.strides[i] * a.itemsize, a.sizes[i] - 1});
  for (size_t i = 0; i < b.sizes.size(); ++i)
    if (b.sizes[i] > 1 && b.strides[i] != 0) s.digits.push_back({-b.strides[i] * b.itemsize, b.sizes[i] - 1});
  std::sort(s.digits.begin(), s.digits.end(),
            [](const Digit& x, const Digit& y) { return std::llabs(x.step) > std::llabs(y.step); });
  const size_t n = s.digits.size();
  s.rest_min.assign(n + 1, 0);
  s.rest_max.assign(n + 1, 0);
  for (int64_t k = int64_t(n) - 1; k >= 0; --k) {
    const int64_t reach = s.digits[k].step * s.digits[k].max;
    s.rest_min[k] = s.rest_min[k + 1] + std::min<int64_t>(reach, 0);
    s.rest_max[k] = s.rest_max[k + 1] + std::max<int64_t>(reach, 0);
  }
  const int found = s.run(0, 0);
  return found > 0 ? Overlap::Shared : found == 0 ? Overlap::None : Overlap::Unknown;
}

}  // namespace tc
