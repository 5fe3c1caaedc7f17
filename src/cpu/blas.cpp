// SPDX-License-Identifier: BSD-3-Clause
// mm / bmm / addmm on the CPU. float32/float64 go to BLIS's typed expert API
// (bli_?gemm_ex), which takes row and column strides, so transposed and
// sliced views need no copy; float16/bfloat16 compute in float32; integers
// use a plain loop (PyTorch supports integer mm on CPU).
//
// Kernel choice: Debian's BLIS 0.9 picks its sub-configuration from CPUID
// and often misses the best one: AVX2 "haswell" kernels on AVX-512 VMs whose
// FMA-unit count it cannot probe, "generic" C kernels on CPUs newer than it
// knows (AMD family 1Ah: 36 vs 200 GFLOP/s). When BLIS is linked statically
// its internal context table (bli_gks_lookup_id) is reachable and each call
// picks: skx (AVX-512) kernels for large products on AVX-512 CPUs, haswell
// kernels, whose "sup" small-matrix path is fastest, for small ones. AMD
// family 19h (Zen 4) is the exception for large products: its AVX-512 runs on
// 256-bit units, and BLIS's own zen3 context (AVX2 kernels, blocks sized for
// Zen's caches) ran the MLP training step 11% faster than skx there. With the
// shared libblis.so that table is hidden, so at load time tensorc asks BLIS
// for skx through BLIS_ARCH_TYPE instead (only when the CPU has AVX-512 and
// the variable is unset). TC_BLIS_ARCH=default keeps BLIS's own choice;
// TC_BLIS_ARCH=<name> (skx, zen3, haswell...) uses that context for every
// product the CPU can run it for.
#include "cpu/blas.h"

#include <blis.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "core/parallel.h"
#include "core/sanitize.h"
#include "core/shape.h"
#include "cpu/isa.h"
#include "cpu/reduce_copy.h"
#include "structured/linalg.h"

// Internal to BLIS: defined in libblis.a, not exported by libblis.so. Weak
// and hidden: resolved only when BLIS is linked into tensorc itself.
extern "C" cntx_t** bli_gks_lookup_id(arch_t id) __attribute__((weak, visibility("hidden")));

namespace tc {
void register_blas_threads_hook(void (*hook)(int));  // core/parallel.cpp
}

namespace tc::cpu {
namespace {

bool cpu_has_avx512() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
}
bool cpu_has_avx2() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
bool keep_blis_default() {
  const char* e = std::getenv("TC_BLIS_ARCH");
  return (e && std::strcmp(e, "default") == 0) || std::getenv("BLIS_ARCH_TYPE") != nullptr;
}
// The architecture TC_BLIS_ARCH names, or -1 (unset, "default", unknown).
int blis_arch_asked() {
  const char* e = std::getenv("TC_BLIS_ARCH");
  if (!e || !*e || std::strcmp(e, "default") == 0) return -1;
  for (int id = 0; id < int(BLIS_NUM_ARCHS); ++id)
    if (std::strcmp(bli_arch_string(arch_t(id)), e) == 0) return id;
  return -1;
}

struct Contexts {
  cntx_t* large = nullptr;  // nullptr: BLIS's default context
  cntx_t* small = nullptr;
  const char* name = "default";
};

std::atomic<bool> g_blis_ready{false};
std::atomic<bool> g_force_default{false};

// BLIS aborts the process when one of its own allocations fails
// (bli_malloc_align), and no abort may cross the C ABI. Its pack buffers come
// from a pool that grows only on the first GEMMs of a context at a new thread
// count (and bli_init allocates its tables once). Those calls first reserve
// as much as the pool may take, plus room to spare; if that fails, the GEMM
// is an OutOfMemory error before BLIS runs. Later calls cost nothing extra.
constexpr size_t kBlisInitReserve = size_t(64) << 20;

void reserve_or_throw(size_t bytes, const char* what) {
  void* p = std::malloc(bytes);
  TC_CHECK(p != nullptr, OutOfMemory, "gemm: out of memory reserving ", bytes, " bytes for ", what);
  std::free(p);
}

const Contexts& contexts() {
  // A throw leaves ctx uninitialised: the next call tries again.
  static const Contexts ctx = [] {
    reserve_or_throw(kBlisInitReserve, "BLIS's first use");
    Contexts c;
    bli_init();  // before any arch query: BLIS 0.9 aborts if BLIS_ARCH_TYPE is read first
    c.name = bli_arch_string(bli_arch_query_id());
    if (bli_gks_lookup_id && !keep_blis_default()) {
      auto nat = [](arch_t id) -> cntx_t* {
        cntx_t** p = bli_gks_lookup_id(id);
        return p ? p[BLIS_NAT] : nullptr;
      };
      if (cpu_has_avx2()) c.small = nat(BLIS_ARCH_HASWELL);
      const int asked = blis_arch_asked();
      const bool runs_asked = asked == int(BLIS_ARCH_SKX) ? cpu_has_avx512() : cpu_has_avx2();
      if (asked >= 0 && runs_asked && nat(arch_t(asked))) {
        c.large = c.small = nat(arch_t(asked));
        c.name = bli_arch_string(arch_t(asked));
      } else if (avx512_on_256bit_units() && bli_arch_query_id() == BLIS_ARCH_ZEN3) {
        // BLIS's own choice for large products (c.large stays nullptr).
      } else if (cpu_has_avx512() && nat(BLIS_ARCH_SKX)) {
        c.large = nat(BLIS_ARCH_SKX);
        c.name = "skx";
      } else if (c.small && bli_arch_query_id() == BLIS_ARCH_GENERIC) {
        c.large = c.small;
        c.name = "haswell";
      }
    }
    bli_thread_set_num_threads(get_num_threads());
    g_blis_ready = true;
    return c;
  }();
  return ctx;
}

// tc::set_num_threads also sets BLIS's global count (per call we pass an
// explicit rntm anyway); BLIS is left uninitialised until first use.
void blas_threads_hook(int n) {
  if (g_blis_ready) bli_thread_set_num_threads(n);
}

[[maybe_unused]] const bool g_registered = [] {
#ifdef BLIS_CONFIG_SKX
  if (!bli_gks_lookup_id && cpu_has_avx512() && !avx512_on_256bit_units() && !keep_blis_default())
    setenv("BLIS_ARCH_TYPE", std::to_string(int(BLIS_ARCH_SKX)).c_str(), 0);
#endif
  register_blas_threads_hook(&blas_threads_hook);
  return true;
}();

// Products below this many multiply-adds run a plain loop: BLIS's per-call
// setup costs microseconds.
constexpr int64_t kTinyGemm = 4096;
// Below this, one thread (a parallel region costs more than it saves) and
// the small-matrix context.
constexpr int64_t kSmallGemm = int64_t(96) * 96 * 96;
// A product is split over threads in blocks of C at least this many rows or
// columns wide, rounded to a multiple of kBlockAlign (whole micro-tiles of
// BLIS's kernels: 6x16, 32x12, 16x14...).
constexpr int64_t kMinBlock = 64;
constexpr int64_t kBlockAlign = 32;

// Integer products and sums wrap modulo 2^64 (below).
template <class T, class Acc>
TC_NO_SANITIZE_INTEGER void gemm_loop(int64_t m, int64_t n, int64_t k, Acc alpha, const T* a, int64_t rsa, int64_t csa,
                                      const T* b, int64_t rsb, int64_t csb, Acc beta, T* c, int64_t rsc, int64_t csc) {
  if constexpr (std::is_floating_point_v<T>) {
    if (csb == 1 && csc == 1) {  // row-major B and C: the inner loop vectorises over j
      for (int64_t i = 0; i < m; ++i) {
        T* cr = c + i * rsc;
        for (int64_t j = 0; j < n; ++j) cr[j] = beta == T(0) ? T(0) : beta * cr[j];
        for (int64_t l = 0; l < k; ++l) {
          const T av = alpha * a[i * rsa + l * csa];
          const T* br = b + l * rsb;
          for (int64_t j = 0; j < n; ++j) cr[j] += av * br[j];
        }
      }
      return;
    }
  }
  // Integer products wrap like PyTorch's: compute in unsigned 64-bit.
  using W = std::conditional_t<std::is_integral_v<Acc>, uint64_t, Acc>;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      W acc = 0;
      for (int64_t l = 0; l < k; ++l) acc += W(a[i * rsa + l * csa]) * W(b[l * rsb + j * csb]);
      T* cp = c + i * rsc + j * csc;
      W r = W(alpha) * acc;
      if (beta != Acc(0)) r += W(beta) * W(*cp);
      *cp = T(Acc(r));
    }
  }
}

inline void blis_gemm(int64_t m, int64_t n, int64_t k, float* al, float* A, MatRef a, float* B, MatRef b, float* be,
                      float* C, MatRef c, cntx_t* cntx, rntm_t* rntm) {
  bli_sgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, m, n, k, al, A, a.rs, a.cs, B, b.rs, b.cs, be, C, c.rs, c.cs, cntx,
               rntm);
}
inline void blis_gemm(int64_t m, int64_t n, int64_t k, double* al, double* A, MatRef a, double* B, MatRef b, double* be,
                      double* C, MatRef c, cntx_t* cntx, rntm_t* rntm) {
  bli_dgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, m, n, k, al, A, a.rs, a.cs, B, b.rs, b.cs, be, C, c.rs, c.cs, cntx,
               rntm);
}

template <class T>
void reserve_pack_memory(cntx_t* cntx, int nthreads) {
  // One high-water mark per (context, dtype): the largest thread count seen.
  static std::atomic<int> warm[3];
  const Contexts& c = contexts();
  std::atomic<int>& mark = warm[cntx == c.small ? 0 : cntx == c.large ? 1 : 2];
  if (mark.load(std::memory_order_relaxed) >= nthreads) return;
  cntx_t* cx = cntx ? cntx : bli_gks_query_cntx();
  const num_t dt = std::is_same_v<T, float> ? BLIS_FLOAT : BLIS_DOUBLE;
  const size_t mc = size_t(bli_cntx_get_blksz_max_dt(dt, BLIS_MC, cx));
  const size_t kc = size_t(bli_cntx_get_blksz_max_dt(dt, BLIS_KC, cx));
  const size_t nc = size_t(bli_cntx_get_blksz_max_dt(dt, BLIS_NC, cx));
  // Each thread may pack a block of A and a panel of B; double it for the
  // pool's own bookkeeping and for the small allocations around the call.
  reserve_or_throw(2 * size_t(nthreads) * (mc * kc + kc * nc) * sizeof(T) + (size_t(1) << 20), "GEMM packing buffers");
  int cur = mark.load(std::memory_order_relaxed);
  while (cur < nthreads && !mark.compare_exchange_weak(cur, nthreads)) {}
}

template <class T>
void gemm_typed(int64_t m, int64_t n, int64_t k, double alpha, MatRef a, MatRef b, double beta, MatRef c) {
  T* A = static_cast<T*>(a.data);
  T* B = static_cast<T*>(b.data);
  T* C = static_cast<T*>(c.data);
  const int64_t work = m * n * k;
  if (work <= kTinyGemm) {
    gemm_loop<T, T>(m, n, k, T(alpha), A, a.rs, a.cs, B, b.rs, b.cs, T(beta), C, c.rs, c.cs);
    return;
  }
  const Contexts& ctx = contexts();
  auto context_for = [&](int64_t w) -> cntx_t* {
    return g_force_default ? nullptr : w < kSmallGemm && ctx.small ? ctx.small : ctx.large;
  };
  auto call = [&](int64_t mm, int64_t nn, T* Ab, T* Bb, T* Cb, cntx_t* cntx) {
    rntm_t rntm;
    bli_rntm_init(&rntm);
    bli_rntm_set_num_threads(1, &rntm);
    T al = T(alpha), be = T(beta);
    blis_gemm(mm, nn, k, &al, Ab, a, Bb, b, &be, Cb, c, cntx, &rntm);
  };
  // Every BLIS call runs on one thread. BLIS's own threads (OpenMP) wait for
  // each other in barriers that spin without limit, so a multi-threaded GEMM
  // on CPUs shared with other work crawls (parallel.h). A product worth
  // threads is cut along C's longer side into one block per thread, each a
  // single-threaded call; the pool's threads claim the blocks.
  const int nt = in_parallel_region() || work < kSmallGemm ? 1 : get_num_threads();
  const bool split_n = n >= m;
  const int64_t d = split_n ? n : m;
  int64_t blocks = std::min<int64_t>(nt, d / kMinBlock);
  if (blocks <= 1) {
    cntx_t* cntx = context_for(work);
    reserve_pack_memory<T>(cntx, 1);
    call(m, n, A, B, C, cntx);
    return;
  }
  int64_t step = (d + blocks - 1) / blocks;
  step = (step + kBlockAlign - 1) / kBlockAlign * kBlockAlign;  // whole micro-tiles
  blocks = (d + step - 1) / step;
  cntx_t* cntx = context_for(work / blocks);
  reserve_pack_memory<T>(cntx, int(blocks));
  parallel_chunks(0, blocks, blocks, [&](int64_t b0, int64_t b1) {
    const int64_t lo = b0 * step, hi = std::min(d, b1 * step);
    if (split_n)
      call(m, hi - lo, A, B + lo * b.cs, C + lo * c.cs, cntx);
    else
      call(hi - lo, n, A + lo * a.rs, B, C + lo * c.rs, cntx);
  });
}

}  // namespace

const char* blas_arch_name() { return contexts().name; }
int blas_num_threads() {
  contexts();
  return int(bli_thread_get_num_threads());
}
void blas_force_default_arch(bool on) { g_force_default = on; }

void gemm(ScalarType dtype, int64_t m, int64_t n, int64_t k, double alpha, MatRef a, MatRef b, double beta, MatRef c) {
  if (m == 0 || n == 0) return;
  if (dtype == ScalarType::Float32)
    gemm_typed<float>(m, n, k, alpha, a, b, beta, c);
  else if (dtype == ScalarType::Float64)
    gemm_typed<double>(m, n, k, alpha, a, b, beta, c);
  else
    TC_FAIL(Internal, "gemm: ", dtype, " must be staged as float32");
}

}  // namespace tc::cpu

namespace tc::native {
namespace {

using cpu::MatRef;

// BLIS's stride rule (bli_check_matrix_strides): positive strides, and the
// larger one must step over a whole row/column, so views that overlap
// (expanded dims) are rejected. A size-1 dim's stride is free: normalise it.
bool blis_strides(int64_t rows, int64_t cols, int64_t& rs, int64_t& cs) {
  if (rows <= 1 && cols <= 1) {
    rs = cs = 1;
    return true;
  }
  if (rows == 1) rs = cs * cols;
  if (cols == 1) cs = rs * rows;
  if (rs <= 0 || cs <= 0) return false;
  if (rs == 1) return cs >= rows;
  if (cs == 1) return rs >= cols;
  if (rs < cs) return rows * rs <= cs;
  if (cs < rs) return cols * cs <= rs;
  return false;
}

// Batched operand: t is 3-D (batch, rows, cols). Copies to contiguous when
// BLIS cannot read the strides as they are.
struct Operand {
  Tensor t;
  int64_t bs, rs, cs;
  char* base;
  size_t es;
  MatRef at(int64_t b) const { return {base + b * bs * int64_t(es), rs, cs}; }
};
Operand operand(const Tensor& t3) {
  Operand o;
  o.t = t3;
  int64_t rows = t3.sizes()[1], cols = t3.sizes()[2];
  o.rs = t3.strides()[1];
  o.cs = t3.strides()[2];
  if (!blis_strides(rows, cols, o.rs, o.cs)) {
    o.t = cpu::contiguous_of(t3);
    o.rs = o.t.strides()[1];
    o.cs = o.t.strides()[2];
    blis_strides(rows, cols, o.rs, o.cs);
  }
  o.bs = o.t.strides()[0];
  o.base = static_cast<char*>(o.t.data_ptr());
  o.es = o.t.element_size();
  return o;
}

Tensor as_batch(const Tensor& t2) {
  return make_view(t2, {1, t2.sizes()[0], t2.sizes()[1]}, {0, t2.strides()[0], t2.strides()[1]}, t2.storage_offset());
}

// c[b] <- alpha * a[b] @ b[b] + beta * c[b] for 3-D tensors of one dtype;
// c must be writable with valid strides (the callers allocate it).
void batched_product(const char* op, const Tensor& a, const Tensor& b, const Scalar& alpha, const Scalar& beta,
                     const Tensor& c) {
  const ScalarType dt = c.dtype();
  const int64_t B = c.sizes()[0], m = c.sizes()[1], n = c.sizes()[2], k = a.sizes()[2];
  TC_CHECK_TYPE(dt != ScalarType::Bool, op, ": unsupported dtype ", dt);
  if (B == 0 || m == 0 || n == 0) return;
  if (is_reduced_float(dt)) {
    // Staged through float32: the products accumulate in float32 like PyTorch's.
    Tensor cf = empty_tensor(c.sizes(), ScalarType::Float32);
    if (beta.to_double() != 0) cpu::copy_strided(cf, c);
    batched_product(op, cpu::contiguous_as(a, ScalarType::Float32), cpu::contiguous_as(b, ScalarType::Float32), alpha,
                    beta, cf);
    cpu::copy_strided(c, cf);
    return;
  }
  Operand A = operand(a), Bm = operand(b);
  int64_t rsc = c.strides()[1], csc = c.strides()[2];
  TC_INTERNAL_ASSERT(blis_strides(m, n, rsc, csc), "output strides");
  Operand C{c, c.strides()[0], rsc, csc, static_cast<char*>(c.data_ptr()), c.element_size()};
  const int64_t work = m * n * std::max<int64_t>(k, 1);
  auto one = [&](int64_t i) {
    MatRef ci = C.at(i);
    if (k == 0) {  // an empty sum: C <- beta * C (beta == 0 writes zeros)
      TC_DISPATCH_ALL_TYPES(dt, op, [&] {
        scalar_t* p = static_cast<scalar_t*>(ci.data);
        for (int64_t r = 0; r < m; ++r)
          for (int64_t s = 0; s < n; ++s) {
            scalar_t& v = p[r * ci.rs + s * ci.cs];
            v = beta.to_double() == 0 ? scalar_t(0) : scalar_t(beta.to<scalar_t>() * v);
          }
      });
      return;
    }
    if (dt == ScalarType::Float32 || dt == ScalarType::Float64) {
      cpu::gemm(dt, m, n, k, alpha.to_double(), A.at(i), Bm.at(i), beta.to_double(), ci);
      return;
    }
    TC_DISPATCH_INTEGRAL_TYPES(dt, op, [&] {
      MatRef ai = A.at(i), bi = Bm.at(i);
      cpu::gemm_loop<scalar_t, int64_t>(m, n, k, alpha.to_int(), static_cast<const scalar_t*>(ai.data), ai.rs, ai.cs,
                                        static_cast<const scalar_t*>(bi.data), bi.rs, bi.cs, beta.to_int(),
                                        static_cast<scalar_t*>(ci.data), ci.rs, ci.cs);
    });
  };
  // Many small products: spread the batch over threads (each product then
  // runs single-threaded); large ones use BLIS's own threading.
  if (B > 1 && work < cpu::kSmallGemm) {
    parallel_for(0, B, std::max<int64_t>(1, cpu::kSmallGemm / work), [&](int64_t b0, int64_t b1) {
      for (int64_t i = b0; i < b1; ++i) one(i);
    });
  } else {
    for (int64_t i = 0; i < B; ++i) one(i);
  }
}

// out (m x n, valid strides) <- beta * broadcast(self) + alpha * mat1 @ mat2.
void addmm_into(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha,
                const Tensor& out, bool out_holds_self) {
  bool use_self = beta.to_double() != 0;
  if (use_self && !out_holds_self) {
    DimVector target{out.sizes()[0], out.sizes()[1]};
    Tensor expanded =
        make_view(self, target, broadcast_strides(self.sizes(), self.strides(), target), self.storage_offset());
    cpu::copy_strided(out, expanded);
  }
  batched_product("addmm", as_batch(mat1), as_batch(mat2), alpha, use_self ? beta : Scalar(int64_t(0)), as_batch(out));
}

}  // namespace

Tensor mm_cpu(const Tensor& self, const Tensor& mat2) {
  Tensor out = empty_tensor(structured::mm_meta(self, mat2), self.dtype());
  batched_product("mm", as_batch(self), as_batch(mat2), Scalar(int64_t(1)), Scalar(int64_t(0)), as_batch(out));
  return out;
}

Tensor bmm_cpu(const Tensor& self, const Tensor& mat2) {
  Tensor out = empty_tensor(structured::bmm_meta(self, mat2), self.dtype());
  batched_product("bmm", self, mat2, Scalar(int64_t(1)), Scalar(int64_t(0)), out);
  return out;
}

Tensor addmm_cpu(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  Tensor out = empty_tensor(structured::addmm_meta(self, mat1, mat2), self.dtype());
  addmm_into(self, mat1, mat2, beta, alpha, out, false);
  return out;
}

Tensor& addmm_out_cpu(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                      const Scalar& alpha, Tensor& out) {
  const DimVector shape = structured::addmm_meta(self, mat1, mat2);
  structured::addmm_out_meta(self, shape, out);
  const int64_t m = shape[0], n = shape[1];
  // Write in place unless out shares memory with an operand (then through a
  // temporary); out being self itself is the in-place addmm_ case.
  const auto* st = out.storage().get();
  bool is_self = self.storage().get() == st && self.sizes().equals(out.sizes()) &&
                 self.strides().equals(out.strides()) && self.storage_offset() == out.storage_offset();
  bool shares = mat1.storage().get() == st || mat2.storage().get() == st || (!is_self && self.storage().get() == st);
  int64_t rs = out.strides()[0], cs = out.strides()[1];
  if (!shares && blis_strides(m, n, rs, cs)) {
    addmm_into(self, mat1, mat2, beta, alpha, out, is_self);
  } else {
    Tensor tmp = addmm_cpu(self, mat1, mat2, beta, alpha);
    cpu::copy_strided(out, tmp);
  }
  out.bump_version();
  return out;
}

}  // namespace tc::native
