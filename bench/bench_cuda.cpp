// SPDX-License-Identifier: BSD-3-Clause
// GPU benchmark: tensorc's CUDA kernels against what the hardware and NVIDIA's
// libraries do directly, in one process, interleaved (A, B, A, B...), with
// CUDA events on the default stream:
//  - 64M float32 add_out / exp_out / fresh a + b against a device-to-device
//    cudaMemcpy of the same bytes (bandwidth: bytes read + written per second);
//  - sum of 64M float32 against the same copy's bandwidth;
//  - 4096^3 GEMM in float32, float16 and bfloat16 against cuBLAS called
//    directly (cublasGemmEx, the same math mode tensorc asks for);
//  - a 1-element add + release through the C ABI, and a caching-allocator
//    malloc + free of a cached block (wall time per call).
// Needs a CUDA device; says so and exits 77 without one.
// Options: --numel N (default 64M), --gemm N (default 4096), --trials N (default 7).
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <tensorc.h>

#include "bench_common.h"

namespace {

#define CUDA_OK(call)                                                                     \
  do {                                                                                    \
    cudaError_t e_ = (call);                                                              \
    if (e_ != cudaSuccess) {                                                              \
      std::fprintf(stderr, "bench_cuda: %s failed: %s\n", #call, cudaGetErrorString(e_)); \
      std::exit(2);                                                                       \
    }                                                                                     \
  } while (0)
#define CUBLAS_OK(call)                                                                      \
  do {                                                                                       \
    cublasStatus_t s_ = (call);                                                              \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                       \
      std::fprintf(stderr, "bench_cuda: %s failed: %s\n", #call, cublasGetStatusString(s_)); \
      std::exit(2);                                                                          \
    }                                                                                        \
  } while (0)

const tc_device kGpu = {TC_DEVICE_CUDA, 0};

tc_tensor gpu_tensor(std::vector<int64_t> shape, tc_dtype dt) {
  tc_tensor t = nullptr;
  TC_OK_OR_DIE(tc_randn(&t, shape.data(), shape.size(), nullptr, &dt, &kGpu));
  return t;
}

void* data_of(tc_tensor t) {
  void* p = nullptr;
  TC_OK_OR_DIE(tc_tensor_data_ptr(&p, t));
  return p;
}

// Seconds per call of f, timed with events around `reps` calls on the
// default stream (where tensorc's kernels run unless a stream is set).
double gpu_seconds(const std::function<void()>& f, int reps) {
  cudaEvent_t a, b;
  CUDA_OK(cudaEventCreate(&a));
  CUDA_OK(cudaEventCreate(&b));
  f();  // warm: the allocator's blocks, cuBLAS's handle and workspace
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaEventRecord(a, 0));
  for (int i = 0; i < reps; ++i) f();
  CUDA_OK(cudaEventRecord(b, 0));
  CUDA_OK(cudaEventSynchronize(b));
  float ms = 0;
  CUDA_OK(cudaEventElapsedTime(&ms, a, b));
  CUDA_OK(cudaEventDestroy(a));
  CUDA_OK(cudaEventDestroy(b));
  return double(ms) * 1e-3 / reps;
}

// Host wall time per call, the device synchronised at the end.
double wall_seconds(const std::function<void()>& f, int reps) {
  f();
  CUDA_OK(cudaDeviceSynchronize());
  const double t0 = bench::now_s();
  for (int i = 0; i < reps; ++i) f();
  CUDA_OK(cudaDeviceSynchronize());
  return (bench::now_s() - t0) / reps;
}

struct Pair {
  std::vector<double> tc, peer;
};

// Alternates the two contestants `trials` times.
Pair interleave(const std::function<double()>& tc, const std::function<double()>& peer, int trials) {
  Pair p;
  for (int i = 0; i < trials; ++i) {
    p.tc.push_back(tc());
    p.peer.push_back(peer());
  }
  return p;
}

double lo(std::vector<double> v) { return *std::min_element(v.begin(), v.end()); }
double hi(std::vector<double> v) { return *std::max_element(v.begin(), v.end()); }

// A row: the medians, and peer time / tensorc time (median and per-trial range).
void print_row(const std::string& name, const Pair& p, const char* peer_name, double bytes_or_flops, const char* unit) {
  std::vector<double> r;
  for (size_t i = 0; i < p.tc.size(); ++i) r.push_back(p.peer[i] / p.tc[i]);
  const double mt = bench::median(p.tc), mp = bench::median(p.peer);
  std::printf("| %s | %s | %s (%s) | %s | **%.2f** (%.2f–%.2f) |\n", name.c_str(), bench::fmt_time(mt).c_str(),
              bytes_or_flops > 0 ? bench::fmt_num(bytes_or_flops / mt / 1e9).c_str() : "-", unit, peer_name,
              bench::median(r), lo(r), hi(r));
  (void)mp;
}

}  // namespace

int main(int argc, char** argv) {
  if (tc_device_check(TC_DEVICE_CUDA) != TC_OK) {
    std::printf("bench_cuda: no usable CUDA device (%s): skipped\n", tc_last_error_message());
    return 77;
  }
  const int64_t n = bench::arg_int(argc, argv, "--numel", 64 << 20);
  const int64_t g = bench::arg_int(argc, argv, "--gemm", 4096);
  const int trials = bench::arg_int(argc, argv, "--trials", 7);
  cudaDeviceProp prop;
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s (%d SMs, %.0f GiB)\n\n", prop.name, prop.multiProcessorCount,
              double(prop.totalGlobalMem) / (1 << 30));

  // ---- memory-bound ops against a device-to-device copy ----
  std::printf("| %lldM float32 | tensorc | GB/s | peer | peer time / tensorc time, per byte |\n|---|---|---|---|---|\n",
              (long long)(n >> 20));
  const tc_dtype f32 = TC_FLOAT32;
  tc_tensor a = gpu_tensor({n}, f32), b = gpu_tensor({n}, f32), out = gpu_tensor({n}, f32);
  const double bytes = double(n) * 4;
  void* src = data_of(a);
  void* dst = data_of(out);
  // The copy moves 2 * bytes in memcpy_s; an op moving k * bytes is at the
  // copy's bandwidth when it takes k / 2 of that time.
  auto memcpy_s = [&] {
    return gpu_seconds([&] { CUDA_OK(cudaMemcpyAsync(dst, src, size_t(bytes), cudaMemcpyDeviceToDevice, 0)); }, 20);
  };
  auto scaled = [](std::function<double()> copy, double k) { return [copy, k] { return copy() * k / 2; }; };
  print_row("add_out",
            interleave([&] { return gpu_seconds([&] { TC_OK_OR_DIE(tc_add_out(out, a, b, nullptr)); }, 20); },
                       scaled(memcpy_s, 3), trials),
            "cudaMemcpy D2D", 3 * bytes, "read + write");
  print_row("exp_out",
            interleave([&] { return gpu_seconds([&] { TC_OK_OR_DIE(tc_exp_out(out, a)); }, 20); }, scaled(memcpy_s, 2),
                       trials),
            "cudaMemcpy D2D", 2 * bytes, "read + write");
  print_row("a + b (fresh output)",
            interleave(
                [&] {
                  return gpu_seconds(
                      [&] {
                        tc_tensor c = nullptr;
                        TC_OK_OR_DIE(tc_add_Tensor(&c, a, b, nullptr));
                        tc_tensor_release(c);
                      },
                      20);
                },
                scaled(memcpy_s, 3), trials),
            "cudaMemcpy D2D", 3 * bytes, "read + write");
  print_row("sum",
            interleave(
                [&] {
                  return gpu_seconds(
                      [&] {
                        tc_tensor s = nullptr;
                        TC_OK_OR_DIE(tc_sum(&s, a, nullptr));
                        tc_tensor_release(s);
                      },
                      20);
                },
                scaled(memcpy_s, 1), trials),
            "cudaMemcpy D2D", bytes, "read");
  for (tc_tensor t : {a, b, out}) tc_tensor_release(t);

  // ---- GEMM against cuBLAS ----
  std::printf("\n| %lld^3 GEMM | tensorc | TFLOP/s | peer | cuBLAS time / tensorc time |\n|---|---|---|---|---|\n",
              (long long)g);
  cublasHandle_t handle;
  CUBLAS_OK(cublasCreate(&handle));
  struct Kind {
    const char* name;
    tc_dtype dt;
    cudaDataType_t cuda_dt;
  };
  for (const Kind& k : {Kind{"float32", TC_FLOAT32, CUDA_R_32F}, Kind{"float16", TC_FLOAT16, CUDA_R_16F},
                        Kind{"bfloat16", TC_BFLOAT16, CUDA_R_16BF}}) {
    tc_tensor x = gpu_tensor({g, g}, k.dt), y = gpu_tensor({g, g}, k.dt), z = gpu_tensor({g, g}, k.dt);
    void *px = data_of(x), *py = data_of(y), *pz = data_of(z);
    const float one = 1, zero = 0;
    // Row-major z = x @ y is column-major z^T = y^T @ x^T; float32 accumulate,
    // no TF32 (tensorc's default), as tensorc asks cuBLAS.
    auto direct = [&] {
      CUBLAS_OK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, int(g), int(g), int(g), &one, py, k.cuda_dt, int(g), px,
                             k.cuda_dt, int(g), &zero, pz, k.cuda_dt, int(g), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    };
    const double flops = 2.0 * double(g) * double(g) * double(g);
    print_row(std::string("mm ") + k.name,
              interleave([&] { return gpu_seconds([&] { TC_OK_OR_DIE(tc_mm_out(z, x, y)); }, 5); },
                         [&] { return gpu_seconds(direct, 5); }, trials),
              "cublasGemmEx", flops / 1e3, "TFLOP/s");
    for (tc_tensor t : {x, y, z}) tc_tensor_release(t);
  }
  CUBLAS_OK(cublasDestroy(handle));

  // ---- per-call costs (host wall time; goals: add <= 6 us, cached malloc + free <= 0.5 us) ----
  std::printf("\n| per call | tensorc |\n|---|---|\n");
  tc_tensor one_a = gpu_tensor({1}, f32), one_b = gpu_tensor({1}, f32);
  std::vector<double> add_t, alloc_t;
  const int64_t block = 1 << 18;  // 1 MiB of float32: a cached block after the first call
  for (int i = 0; i < trials; ++i) {
    add_t.push_back(wall_seconds(
        [&] {
          tc_tensor c = nullptr;
          TC_OK_OR_DIE(tc_add_Tensor(&c, one_a, one_b, nullptr));
          tc_tensor_release(c);
        },
        20000));
    alloc_t.push_back(wall_seconds(
        [&] {
          tc_tensor c = nullptr;
          TC_OK_OR_DIE(tc_empty(&c, &block, 1, &f32, &kGpu));
          tc_tensor_release(c);
        },
        20000));
  }
  std::printf("| 1-element add + release, C ABI | %s (%s–%s) |\n", bench::fmt_time(bench::median(add_t)).c_str(),
              bench::fmt_time(lo(add_t)).c_str(), bench::fmt_time(hi(add_t)).c_str());
  std::printf("| empty(1 MiB) + release, cached block | %s (%s–%s) |\n",
              bench::fmt_time(bench::median(alloc_t)).c_str(), bench::fmt_time(lo(alloc_t)).c_str(),
              bench::fmt_time(hi(alloc_t)).c_str());
  tc_tensor_release(one_a);
  tc_tensor_release(one_b);
  return 0;
}
