// SPDX-License-Identifier: BSD-3-Clause
// Benchmark 3: square GEMM, float32 and float64, tensorc's tc_mm against
// libtorch's at::mm and against BLIS called directly (bli_?gemm_ex) with its
// AVX-512 "skx" kernels, at the thread count given by --threads.
//
// Which kernels: Debian's BLIS 0.9 picks its sub-configuration from CPUID and
// often misses the best one (haswell AVX2 kernels on AVX-512 VMs, generic C
// kernels on CPUs newer than it knows, e.g. AMD family 1Ah). tensorc links the
// shared libblis.so, whose context table (bli_gks_lookup_id) is hidden, so it
// asks for skx through BLIS_ARCH_TYPE at load time (src/cpu/blas.cpp). The
// direct-BLIS contestant uses the same approach (same libblis.so, same env
// variable, or the table itself when BLIS is linked statically), so it is the
// floor of what tensorc's GEMM can reach.
//
// libtorch on Debian calls the reference BLAS interface (sgemm_/dgemm_,
// DT_NEEDED libblas.so.3, which the alternatives system points at a BLIS-openmp
// copy). In a process that also loads tensorc, the dynamic linker binds
// libtorch's sgemm_/dgemm_ to libblis.so.4 (loaded earlier, through tensorc,
// and it exports the BLAS names too; check with LD_DEBUG=bindings). So here
// at::mm runs on the very same BLIS instance as tensorc and the direct calls:
// skx kernels, and the thread count tensorc gives BLIS (tc_set_num_threads
// sets BLIS's global count). The column measures libtorch's own overhead
// around the same kernels. libtorch as Debian ships it, alone in a process,
// is measured by bench_gemm_torch_alone (BLIS's own CPUID choice of kernels).
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <blis.h>

#include <cmath>
#include <sstream>

#include <tensorc.h>

#include "bench_common.h"

using bench::Contestant;

// Internal to BLIS: defined in libblis.a, not exported by libblis.so.
extern "C" cntx_t** bli_gks_lookup_id(arch_t id) __attribute__((weak));

namespace {

bool cpu_has_avx512() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
}

cntx_t* g_cntx = nullptr;  // nullptr: the global (BLIS_ARCH_TYPE-selected) context
std::string g_blis_arch;

void setup_blis() {
#ifdef BLIS_CONFIG_SKX
  if (cpu_has_avx512()) setenv("BLIS_ARCH_TYPE", std::to_string(int(BLIS_ARCH_SKX)).c_str(), 0);
#endif
  bli_init();
  g_blis_arch = bli_arch_string(bli_arch_query_id());
#ifdef BLIS_CONFIG_SKX
  if (bli_gks_lookup_id && cpu_has_avx512()) {
    cntx_t** p = bli_gks_lookup_id(BLIS_ARCH_SKX);
    if (p && p[BLIS_NAT]) {
      g_cntx = p[BLIS_NAT];
      g_blis_arch = "skx";
    }
  }
#endif
}

void blis_gemm(int64_t n, const float* a, const float* b, float* c, rntm_t* rntm) {
  float one = 1, zero = 0;
  bli_sgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, n, n, n, &one, const_cast<float*>(a), n, 1, const_cast<float*>(b),
               n, 1, &zero, c, n, 1, g_cntx, rntm);
}
void blis_gemm(int64_t n, const double* a, const double* b, double* c, rntm_t* rntm) {
  double one = 1, zero = 0;
  bli_dgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, n, n, n, &one, const_cast<double*>(a), n, 1,
               const_cast<double*>(b), n, 1, &zero, c, n, 1, g_cntx, rntm);
}

template <class T>
double max_rel_err(const T* x, const T* y, int64_t n) {
  double e = 0;
  for (int64_t i = 0; i < n; ++i) {
    double d = std::fabs(double(x[i]) - double(y[i])) / std::max(1.0, std::fabs(double(y[i])));
    if (!(d <= e)) e = d;
  }
  return e;
}

std::string gflops(const Contestant& c, double flop) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.1f (%.1f–%.1f)", flop / c.med() * 1e-9, flop / c.hi() * 1e-9, flop / c.lo() * 1e-9);
  return buf;
}

template <class T>
void bench_size(int64_t n, int threads) {
  constexpr bool f32 = std::is_same_v<T, float>;
  const at::ScalarType st = f32 ? at::kFloat : at::kDouble;
  const tc_dtype dt = f32 ? TC_FLOAT32 : TC_FLOAT64;
  const int64_t shape[2] = {n, n};
  at::Tensor pa = at::rand({n, n}, st) - 0.5, pb = at::rand({n, n}, st) - 0.5;
  at::Tensor pc = at::empty({n, n}, st);
  tc_tensor ta = nullptr, tb = nullptr;
  TC_OK_OR_DIE(tc_tensor_from_data(&ta, pa.data_ptr<T>(), dt, shape, 2));
  TC_OK_OR_DIE(tc_tensor_from_data(&tb, pb.data_ptr<T>(), dt, shape, 2));
  // BLIS gets its own copies of the inputs, like tensorc.
  std::vector<T> ba(pa.data_ptr<T>(), pa.data_ptr<T>() + n * n), bb(pb.data_ptr<T>(), pb.data_ptr<T>() + n * n);
  T* bc = pc.data_ptr<T>();
  rntm_t rntm;
  bli_rntm_init(&rntm);
  bli_rntm_set_num_threads(threads, &rntm);

  // Correctness: tensorc against BLIS and against libtorch.
  {
    tc_tensor c = nullptr;
    TC_OK_OR_DIE(tc_mm(&c, ta, tb));
    void* p = nullptr;
    TC_OK_OR_DIE(tc_tensor_data_ptr(&p, c));
    blis_gemm(n, ba.data(), bb.data(), bc, &rntm);
    at::Tensor want = at::mm(pa, pb);
    const double tol = f32 ? 1e-4 : 1e-10;
    double e1 = max_rel_err(static_cast<T*>(p), bc, n * n),
           e2 = max_rel_err(static_cast<T*>(p), want.data_ptr<T>(), n * n);
    if (!(e1 <= tol && e2 <= tol)) {
      std::fprintf(stderr, "bench_gemm: tc_mm disagrees (n=%lld: vs BLIS %g, vs at::mm %g)\n", (long long)n, e1, e2);
      std::exit(3);
    }
    tc_tensor_release(c);
  }

  std::vector<Contestant> cs{{"tensorc",
                              [&] {
                                tc_tensor c = nullptr;
                                tc_mm(&c, ta, tb);
                                tc_tensor_release(c);
                              }},
                             {"libtorch", [&] { at::Tensor c = at::mm(pa, pb); }},
                             {"blis", [&] { blis_gemm(n, ba.data(), bb.data(), bc, &rntm); }}};
  bench::run(cs);
  const double flop = 2.0 * double(n) * double(n) * double(n);
  std::printf("| %cgemm %lld | %s | %s | %s | %s | %s |\n", f32 ? 's' : 'd', (long long)n, gflops(cs[0], flop).c_str(),
              gflops(cs[1], flop).c_str(), gflops(cs[2], flop).c_str(),
              bench::fmt_ratio(bench::ratio(cs[1], cs[0])).c_str(),
              bench::fmt_ratio(bench::ratio(cs[2], cs[0])).c_str());
  std::fflush(stdout);
  tc_tensor_release(ta);
  tc_tensor_release(tb);
}

std::vector<int64_t> parse_sizes(const std::string& s) {
  std::vector<int64_t> v;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) v.push_back(std::stoll(item));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = bench::arg_int(argc, argv, "--threads", 1);
  const std::vector<int64_t> sizes = parse_sizes(bench::arg_str(argc, argv, "--sizes", "256,512,1024,2048"));
  const std::string dtypes = bench::arg_str(argc, argv, "--dtypes", "float32,float64");

  setup_blis();
  TC_OK_OR_DIE(tc_set_num_threads(threads));
  at::set_num_threads(threads);
  at::manual_seed(0);
  {
    // Initialise BLIS through tensorc, then libtorch (both end up in libblis.so.4).
    const int64_t shape[2] = {128, 128};
    tc_tensor e = nullptr, c = nullptr;
    TC_OK_OR_DIE(tc_ones(&e, shape, 2, nullptr, nullptr));
    TC_OK_OR_DIE(tc_mm(&c, e, e));
    tc_tensor_release(c);
    tc_tensor_release(e);
    (void)at::mm(at::ones({128, 128}), at::ones({128, 128}));
  }

  std::printf(
      "| %d thread%s, GFLOP/s (spread) | tensorc tc_mm | libtorch at::mm (same BLIS) | BLIS %s direct | "
      "at::mm/tensorc | BLIS/tensorc |\n",
      threads, threads == 1 ? "" : "s", g_blis_arch.c_str());
  std::printf("|---|---|---|---|---|---|\n");
  for (int64_t n : sizes) {
    if (dtypes.find("float32") != std::string::npos) bench_size<float>(n, threads);
  }
  for (int64_t n : sizes) {
    if (dtypes.find("float64") != std::string::npos) bench_size<double>(n, threads);
  }
  return 0;
}
