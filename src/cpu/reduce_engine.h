// SPDX-License-Identifier: BSD-3-Clause
// The reduction engine: runs an Op over a ReducePlan, in one of two loop
// orders, in parallel, with results that do not depend on the thread count.
//
// An Op provides
//   in_t, acc_t                       element and accumulator types
//   acc_t identity()
//   acc_t row(const in_t* p, int64_t n, int64_t stride, int64_t first_index)
//                                     reduce n elements p[0], p[stride], ...
//   void  vertical(acc_t* acc, const in_t* p, int64_t w, int64_t stride_w, int64_t index)
//                                     acc[i] <- acc[i] (+) p[i * stride_w], i < w
//   acc_t combine(acc_t earlier, acc_t later)
//   void  write(int64_t out_index, acc_t)
// `first_index` / `index` count reduced elements in the plan's order (the
// position along the dim when one dim is reduced): index-tracking ops use it.
//
// Accuracy: partial results are combined by a pairwise cascade, so sums
// grow their error with log(n), not n. Determinism: long reductions are cut
// into fixed slabs whose partials combine in order, on any number of threads.
#pragma once
#include <algorithm>
#include <memory>

#include "core/parallel.h"
#include "structured/reduce_plan.h"

namespace tc::cpu {

// The plan is device-agnostic (structured/reduce_plan.h); the CPU kernels
// name it through tc::cpu.
using structured::check_nonempty_reduction;
using structured::make_reduce_plan;
using structured::reduce_mask;
using structured::reduce_mask_one;
using structured::ReducePlan;

constexpr int64_t kReduceSlab = int64_t(1) << 16;  // elements per partial of a long reduction
constexpr int64_t kVerticalBlock = 64;             // rows summed plainly before cascading
constexpr int64_t kVerticalBytes = 131072;         // accumulators per vertical unit (L2-resident)
constexpr int64_t kMaxVerticalSlabs = 16;          // bounds the partials kept for parallel slabs

// A growable array of accumulators (std::vector<bool> would not give a bool*).
template <class T>
class AccBuf {
 public:
  AccBuf() = default;
  explicit AccBuf(int64_t n) { resize(n); }
  void resize(int64_t n) {
    if (n <= n_) return;
    std::unique_ptr<T[]> p(new T[size_t(n)]());
    std::copy(p_.get(), p_.get() + n_, p.get());
    p_ = std::move(p);
    n_ = n;
  }
  T* data() { return p_.get(); }
  const T* data() const { return p_.get(); }
  T& operator[](int64_t i) { return p_[size_t(i)]; }
  int64_t size() const { return n_; }

 private:
  std::unique_ptr<T[]> p_;
  int64_t n_ = 0;
};

// Walks the offsets of a row-major multi-index over (sizes, strides).
class OffsetWalker {
 public:
  OffsetWalker(const int64_t* sizes, const int64_t* strides, size_t nd, int64_t start)
      : sizes_(sizes), strides_(strides), nd_(nd) {
    for (int64_t d = int64_t(nd) - 1; d >= 0; --d) {
      idx_[d] = start % sizes[d];
      start /= sizes[d];
      off_ += idx_[d] * strides[d];
    }
  }
  int64_t offset() const { return off_; }
  void next() {
    for (int64_t d = int64_t(nd_) - 1; d >= 0; --d) {
      off_ += strides_[d];
      if (++idx_[d] < sizes_[d]) return;
      off_ -= strides_[d] * sizes_[d];
      idx_[d] = 0;
    }
  }

 private:
  const int64_t* sizes_;
  const int64_t* strides_;
  size_t nd_;
  int64_t idx_[64];  // only the first nd_ entries are used
  int64_t off_ = 0;
};

// Pairwise combination of a sequence of partials: level k holds the
// combination of 2^k consecutive partials (a binary counter).
template <class Op>
class Cascade {
 public:
  using acc_t = typename Op::acc_t;
  void push(const Op& op, acc_t x) {
    int k = 0;
    while (used_ & (uint64_t(1) << k)) {
      x = op.combine(level_[k], x);
      used_ &= ~(uint64_t(1) << k);
      ++k;
    }
    level_[k] = x;
    used_ |= uint64_t(1) << k;
  }
  acc_t result(const Op& op) const {
    acc_t acc = op.identity();
    bool have = false;
    for (int k = 63; k >= 0; --k) {  // higher levels hold earlier partials
      if (!(used_ & (uint64_t(1) << k))) continue;
      acc = have ? op.combine(acc, level_[k]) : level_[k];
      have = true;
    }
    return acc;
  }

 private:
  acc_t level_[64];
  uint64_t used_ = 0;
};

// The same over arrays of `w` partials (vertical mode).
template <class Op>
class VecCascade {
 public:
  using acc_t = typename Op::acc_t;
  explicit VecCascade(int64_t w) : w_(w), carry_(w) {}
  void push(const Op& op, const acc_t* x) {
    std::copy(x, x + w_, carry_.data());
    int k = 0;
    while (used_ & (uint64_t(1) << k)) {
      const acc_t* l = levels_.data() + k * w_;
      for (int64_t i = 0; i < w_; ++i) carry_[i] = op.combine(l[i], carry_[i]);
      used_ &= ~(uint64_t(1) << k);
      ++k;
    }
    levels_.resize((k + 1) * w_);
    std::copy(carry_.data(), carry_.data() + w_, levels_.data() + k * w_);
    used_ |= uint64_t(1) << k;
  }
  void result(const Op& op, acc_t* out) const {
    bool have = false;
    for (int k = 63; k >= 0; --k) {
      if (!(used_ & (uint64_t(1) << k))) continue;
      const acc_t* l = levels_.data() + k * w_;
      for (int64_t i = 0; i < w_; ++i) out[i] = have ? op.combine(out[i], l[i]) : l[i];
      have = true;
    }
    if (!have) std::fill(out, out + w_, op.identity());
  }

 private:
  int64_t w_;
  AccBuf<acc_t> levels_, carry_;
  uint64_t used_ = 0;
};

namespace detail {

// Inner mode: each output reduces rows of the innermost reduced dim.
template <class Op>
typename Op::acc_t reduce_range(const Op& op, const typename Op::in_t* p, const ReducePlan& pl, int64_t e0,
                                int64_t e1) {
  const size_t nr = pl.red_sizes.size();
  const int64_t L = nr ? pl.red_sizes[nr - 1] : 1, s = nr ? pl.red_strides[nr - 1] : 1;
  int64_t j = e0 % L;
  OffsetWalker rows(pl.red_sizes.data(), pl.red_strides.data(), nr ? nr - 1 : 0, e0 / L);
  if (e1 - e0 <= L - j) return op.row(p + rows.offset() + j * s, e1 - e0, s, e0);
  Cascade<Op> c;
  for (int64_t e = e0; e < e1; j = 0, rows.next()) {
    int64_t len = std::min(L - j, e1 - e);
    c.push(op, op.row(p + rows.offset() + j * s, len, s, e));
    e += len;
  }
  return c.result(op);
}

template <class Op>
typename Op::acc_t reduce_output(const Op& op, const typename Op::in_t* p, const ReducePlan& pl) {
  const int64_t N = pl.red_numel;
  if (N <= kReduceSlab) return reduce_range(op, p, pl, 0, N);
  Cascade<Op> c;
  for (int64_t e = 0; e < N; e += kReduceSlab) c.push(op, reduce_range(op, p, pl, e, std::min(N, e + kReduceSlab)));
  return c.result(op);
}

template <class Op>
void run_inner(const Op& op, const typename Op::in_t* base, const ReducePlan& pl) {
  using acc_t = typename Op::acc_t;
  const int64_t N = pl.red_numel, num_out = pl.num_out;
  const size_t nk = pl.kept_sizes.size();
  const int64_t slabs = (N + kReduceSlab - 1) / kReduceSlab;
  const int nt = in_parallel_region() ? 1 : get_num_threads();
  if (slabs <= 1 || num_out >= 4 * int64_t(nt)) {
    int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(N, 1));
    parallel_for(0, num_out, grain, [&](int64_t o0, int64_t o1) {
      OffsetWalker out(pl.kept_sizes.data(), pl.kept_strides.data(), nk, o0);
      for (int64_t o = o0; o < o1; ++o, out.next()) op.write(o, reduce_output(op, base + out.offset(), pl));
    });
    return;
  }
  // Few long reductions: the slabs of each output run in parallel.
  AccBuf<acc_t> part(slabs);
  OffsetWalker out(pl.kept_sizes.data(), pl.kept_strides.data(), nk, 0);
  for (int64_t o = 0; o < num_out; ++o, out.next()) {
    const typename Op::in_t* p = base + out.offset();
    parallel_for(0, slabs, 1, [&](int64_t s0, int64_t s1) {
      for (int64_t sl = s0; sl < s1; ++sl)
        part[sl] = reduce_range(op, p, pl, sl * kReduceSlab, std::min(N, (sl + 1) * kReduceSlab));
    });
    Cascade<Op> c;
    for (int64_t sl = 0; sl < slabs; ++sl) c.push(op, part[sl]);
    op.write(o, c.result(op));
  }
}

// Vertical mode: the innermost kept dim is the fastest, so each reduced
// element updates a row of `w` accumulators (vectorisable across outputs).
template <class Op>
void vertical_block(const Op& op, const typename Op::in_t* p, const ReducePlan& pl, int64_t w, int64_t r0, int64_t r1,
                    typename Op::acc_t* acc) {
  // Rows r0..r1 into acc, walking the innermost reduced dim directly.
  const size_t nr = pl.red_sizes.size();
  const int64_t sw = pl.kept_strides[pl.kept_strides.size() - 1];
  const int64_t L = pl.red_sizes[nr - 1], s = pl.red_strides[nr - 1];
  OffsetWalker outer(pl.red_sizes.data(), pl.red_strides.data(), nr - 1, r0 / L);
  std::fill(acc, acc + w, op.identity());
  for (int64_t r = r0, j = r0 % L; r < r1; j = 0, outer.next()) {
    const typename Op::in_t* q = p + outer.offset();
    for (int64_t je = std::min(L, j + (r1 - r)); j < je; ++j, ++r) op.vertical(acc, q + j * s, w, sw, r);
  }
}

template <class Op>
void vertical_range(const Op& op, const typename Op::in_t* p, const ReducePlan& pl, int64_t w, int64_t r0, int64_t r1,
                    typename Op::acc_t* result) {
  using acc_t = typename Op::acc_t;
  if (r1 - r0 <= kVerticalBlock) return vertical_block(op, p, pl, w, r0, r1, result);
  AccBuf<acc_t> tmp(w);
  VecCascade<Op> c(w);
  for (int64_t r = r0; r < r1; r += kVerticalBlock) {
    vertical_block(op, p, pl, w, r, std::min(r1, r + kVerticalBlock), tmp.data());
    c.push(op, tmp.data());
  }
  c.result(op, result);
}

template <class Op>
void run_vertical(const Op& op, const typename Op::in_t* base, const ReducePlan& pl) {
  using acc_t = typename Op::acc_t;
  const int64_t N = pl.red_numel;
  const size_t nk = pl.kept_sizes.size();
  const int64_t W = pl.kept_sizes[nk - 1], sw = pl.kept_strides[nk - 1];
  // Rows of up to 128 KiB of accumulators: long contiguous runs of input per
  // row keep the hardware prefetcher and TLB happy (16 KiB strips ran at half speed).
  constexpr int64_t kVerticalWidth = std::max<int64_t>(64, kVerticalBytes / int64_t(sizeof(acc_t)));
  const int64_t nwb = (W + kVerticalWidth - 1) / kVerticalWidth, units = (pl.num_out / W) * nwb;
  // Rows per slab: a multiple of the block, about kReduceSlab elements, and
  // few enough slabs to keep their partials; fixed by the shape alone.
  const int64_t min_blocks = std::max<int64_t>(1, kReduceSlab / (std::min(W, kVerticalWidth) * kVerticalBlock));
  const int64_t cap_blocks = (N + kMaxVerticalSlabs * kVerticalBlock - 1) / (kMaxVerticalSlabs * kVerticalBlock);
  const int64_t slab_rows = std::max(min_blocks, cap_blocks) * kVerticalBlock;
  const int64_t slabs = (N + slab_rows - 1) / slab_rows;
  const int nt = in_parallel_region() ? 1 : get_num_threads();

  auto unit_ptr = [&](int64_t u, int64_t& w0, int64_t& wl) {
    int64_t o1 = u / nwb;
    w0 = (u % nwb) * kVerticalWidth;
    wl = std::min(kVerticalWidth, W - w0);
    OffsetWalker outer(pl.kept_sizes.data(), pl.kept_strides.data(), nk - 1, o1);
    return base + outer.offset() + w0 * sw;
  };
  auto finish = [&](int64_t u, int64_t w0, int64_t wl, const acc_t* acc) {
    int64_t o = (u / nwb) * W + w0;
    for (int64_t i = 0; i < wl; ++i) op.write(o + i, acc[i]);
  };
  auto unit_all = [&](const typename Op::in_t* p, int64_t wl, acc_t* acc) {
    if (slabs <= 1) return vertical_range(op, p, pl, wl, 0, N, acc);
    VecCascade<Op> c(wl);
    AccBuf<acc_t> part(wl);
    for (int64_t r = 0; r < N; r += slab_rows) {
      vertical_range(op, p, pl, wl, r, std::min(N, r + slab_rows), part.data());
      c.push(op, part.data());
    }
    c.result(op, acc);
  };

  if (slabs <= 1 || units >= 4 * int64_t(nt)) {
    int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(N * std::min(W, kVerticalWidth), 1));
    parallel_for(0, units, grain, [&](int64_t u0, int64_t u1) {
      AccBuf<acc_t> acc(std::min(W, kVerticalWidth));
      for (int64_t u = u0; u < u1; ++u) {
        int64_t w0, wl;
        const typename Op::in_t* p = unit_ptr(u, w0, wl);
        unit_all(p, wl, acc.data());
        finish(u, w0, wl, acc.data());
      }
    });
    return;
  }
  // Few units over many rows: slabs in parallel, combined in order.
  for (int64_t u = 0; u < units; ++u) {
    int64_t w0, wl;
    const typename Op::in_t* p = unit_ptr(u, w0, wl);
    AccBuf<acc_t> part(slabs * wl);
    parallel_for(0, slabs, 1, [&](int64_t s0, int64_t s1) {
      for (int64_t sl = s0; sl < s1; ++sl)
        vertical_range(op, p, pl, wl, sl * slab_rows, std::min(N, (sl + 1) * slab_rows), part.data() + sl * wl);
    });
    VecCascade<Op> c(wl);
    for (int64_t sl = 0; sl < slabs; ++sl) c.push(op, part.data() + sl * wl);
    AccBuf<acc_t> acc(wl);
    c.result(op, acc.data());
    finish(u, w0, wl, acc.data());
  }
}

}  // namespace detail

// Runs `op` over `base` (the input's data pointer) as planned.
template <class Op>
void run_reduction(const Op& op, const typename Op::in_t* base, const ReducePlan& pl) {
  if (pl.num_out == 0) return;
  if (pl.red_numel == 0) {
    parallel_for(0, pl.num_out, kGrainSize, [&](int64_t o0, int64_t o1) {
      for (int64_t o = o0; o < o1; ++o) op.write(o, op.identity());
    });
    return;
  }
  // Vertical when the innermost kept dim is the faster one (and wide enough
  // to amortise a pass), or when each output reduces only a few elements
  // (per-output calls would dominate).
  const size_t nk = pl.kept_sizes.size(), nr = pl.red_sizes.size();
  bool vertical = false;
  if (nk && nr) {
    const int64_t W = pl.kept_sizes[nk - 1];
    vertical = (pl.kept_strides[nk - 1] < pl.red_strides[nr - 1] && W >= 8) || (pl.red_numel <= 16 && W >= 64);
  }
  if (vertical)
    detail::run_vertical(op, base, pl);
  else
    detail::run_inner(op, base, pl);
}

}  // namespace tc::cpu
