// SPDX-License-Identifier: BSD-3-Clause
// The driver table's GEMM: cublasGemmStridedBatchedEx_64 on a handle of the
// calling thread for its current device, or cublasLtMatmul with a bias
// epilogue (addmm's broadcast bias added as the product is written). Handles are made once per device
// and thread and go back to a shared pool when the thread ends (cuBLAS
// handles are costly to create and must not be shared by threads at once).
// Each (handle, stream) pair has its own workspace, as in PyTorch: cuBLAS's
// default workspace belongs to the handle, so GEMMs of one thread on two
// streams would otherwise share it while both run.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cuda/driver/elementwise.h"

namespace tc::cuda {
namespace {

constexpr int kMaxDevices = 64;

struct HandlePool {
  std::mutex mu;
  std::vector<cublasHandle_t> free[kMaxDevices];
};
// Never destroyed: threads may end after static destruction has begun.
HandlePool& pool() {
  static HandlePool* p = new HandlePool;
  return *p;
}

struct ThreadHandles {
  cublasHandle_t h[kMaxDevices] = {};
  ~ThreadHandles() {
    std::lock_guard<std::mutex> lock(pool().mu);
    for (int d = 0; d < kMaxDevices; ++d)
      if (h[d]) pool().free[d].push_back(h[d]);
  }
};

int status_code(cublasStatus_t s) { return s == CUBLAS_STATUS_SUCCESS ? 0 : kCublasErrorBase + int(s); }

// The workspace of (handle, stream): 32 MiB on Hopper and later, 8 MiB
// before (PyTorch's defaults), made on first use and kept for the process
// (handles and tensorc's streams are never destroyed either).
int workspace_for(cublasHandle_t h, cudaStream_t stream, int dev, void** out, size_t* bytes) {
  static std::mutex mu;
  static auto* spaces = new std::map<std::pair<cublasHandle_t, cudaStream_t>, std::pair<void*, size_t>>;
  std::lock_guard<std::mutex> lock(mu);
  auto it = spaces->find({h, stream});
  if (it == spaces->end()) {
    int major = 0;
    if (const cudaError_t e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev); e != cudaSuccess)
      return int(e);
    const size_t n = size_t(major >= 9 ? 32 : 8) << 20;
    void* p = nullptr;
    if (const cudaError_t e = cudaMalloc(&p, n); e != cudaSuccess) {
      cudaGetLastError();  // an allocation failure is not sticky
      return int(e);
    }
    it = spaces->emplace(std::make_pair(h, stream), std::make_pair(p, n)).first;
  }
  *out = it->second.first;
  *bytes = it->second.second;
  return 0;
}

// The calling thread's handle for the current device, bound to `stream` and
// that pair's workspace (cublasSetStream resets the workspace, so both are
// set on every call).
int handle_for(cudaStream_t stream, cublasHandle_t* out, void** space_out = nullptr, size_t* bytes_out = nullptr) {
  thread_local ThreadHandles mine;
  int dev = 0;
  if (const cudaError_t e = cudaGetDevice(&dev); e != cudaSuccess) return int(e);
  if (dev < 0 || dev >= kMaxDevices) return int(cudaErrorInvalidDevice);
  if (!mine.h[dev]) {
    {
      std::lock_guard<std::mutex> lock(pool().mu);
      if (!pool().free[dev].empty()) {
        mine.h[dev] = pool().free[dev].back();
        pool().free[dev].pop_back();
      }
    }
    if (!mine.h[dev])
      if (const cublasStatus_t s = cublasCreate(&mine.h[dev]); s != CUBLAS_STATUS_SUCCESS) {
        mine.h[dev] = nullptr;
        return status_code(s);
      }
  }
  *out = mine.h[dev];
  if (const cublasStatus_t s = cublasSetStream(*out, stream); s != CUBLAS_STATUS_SUCCESS) return status_code(s);
  void* space = nullptr;
  size_t bytes = 0;
  if (const int e = workspace_for(*out, stream, dev, &space, &bytes)) return e;
  if (space_out) *space_out = space, *bytes_out = bytes;
  return status_code(cublasSetWorkspace(*out, space, bytes));
}

bool data_type(int dtype, cudaDataType* t) {
  switch (dtype) {
    case kFloat32: *t = CUDA_R_32F; return true;
    case kFloat64: *t = CUDA_R_64F; return true;
    case kFloat16: *t = CUDA_R_16F; return true;
    case kBFloat16: *t = CUDA_R_16BF; return true;
    default: return false;
  }
}

static_assert(kGemmEpilogueUnsupported == kCublasErrorBase + int(CUBLAS_STATUS_NOT_SUPPORTED));

// Destroys cuBLASLt descriptors when the call ends, however it ends.
struct LtDescs {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  ~LtDescs() {
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (d) cublasLtMatrixLayoutDestroy(d);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (op) cublasLtMatmulDescDestroy(op);
  }
};

// The largest power of two up to 256 that divides the address.
uint32_t alignment(const void* p) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  uint32_t n = 1;
  while (n < 256 && a % (2 * n) == 0) n *= 2;
  return n;
}

// D = alpha * op(A) @ op(B) + bias (bias[i] added to row i of column-major
// D), one matrix, through cuBLASLt on the handle's workspace. A cuBLAS handle
// is a cuBLASLt handle too. kGemmEpilogueUnsupported when cuBLASLt offers no
// algorithm for the shapes, so the caller can take the plain path.
int gemm_bias(const GemmArgs* g, cudaDataType type, cublasComputeType_t compute, const void* alpha, const void* zero,
              Stream stream) {
  const cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);
  cublasHandle_t h = nullptr;
  void* space = nullptr;
  size_t bytes = 0;
  if (const int e = handle_for(s, &h, &space, &bytes)) return e;
  const cublasLtHandle_t lt = reinterpret_cast<cublasLtHandle_t>(h);
  const cudaDataType scale = g->dtype == kFloat64 ? CUDA_R_64F : CUDA_R_32F;
  const cublasOperation_t ta = g->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t tb = g->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
  LtDescs d;
#define TC_LT(call) \
  if (const cublasStatus_t st = (call); st != CUBLAS_STATUS_SUCCESS) return status_code(st)
  TC_LT(cublasLtMatmulDescCreate(&d.op, compute, scale));
  TC_LT(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  TC_LT(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  TC_LT(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue));
  TC_LT(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &g->bias, sizeof g->bias));
  // Stored shapes: op(A) is m x k, so A is k x m when transposed; likewise B.
  TC_LT(cublasLtMatrixLayoutCreate(&d.a, type, g->trans_a ? g->k : g->m, g->trans_a ? g->m : g->k, g->lda));
  TC_LT(cublasLtMatrixLayoutCreate(&d.b, type, g->trans_b ? g->n : g->k, g->trans_b ? g->k : g->n, g->ldb));
  TC_LT(cublasLtMatrixLayoutCreate(&d.d, type, g->m, g->n, g->ldc));
  TC_LT(cublasLtMatmulPreferenceCreate(&d.pref));
  TC_LT(cublasLtMatmulPreferenceSetAttribute(d.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &bytes, sizeof bytes));
  // The operands' real alignment: cuBLASLt otherwise assumes 256 bytes and may
  // pick a kernel that faults on a sliced view (as PyTorch learned).
  const uint32_t align_a = alignment(g->a), align_b = alignment(g->b), align_c = alignment(g->c);
  TC_LT(cublasLtMatmulPreferenceSetAttribute(d.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &align_a,
                                             sizeof align_a));
  TC_LT(cublasLtMatmulPreferenceSetAttribute(d.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &align_b,
                                             sizeof align_b));
  TC_LT(cublasLtMatmulPreferenceSetAttribute(d.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &align_c,
                                             sizeof align_c));
  TC_LT(cublasLtMatmulPreferenceSetAttribute(d.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &align_c,
                                             sizeof align_c));
  cublasLtMatmulHeuristicResult_t heuristic = {};
  int found = 0;
  const cublasStatus_t searched =
      cublasLtMatmulAlgoGetHeuristic(lt, d.op, d.a, d.b, d.d, d.d, d.pref, 1, &heuristic, &found);
  if (searched == CUBLAS_STATUS_NOT_SUPPORTED || (searched == CUBLAS_STATUS_SUCCESS && found == 0))
    return kGemmEpilogueUnsupported;
  TC_LT(searched);
  TC_LT(cublasLtMatmul(lt, d.op, alpha, g->a, d.a, g->b, d.b, zero, g->c, d.d, g->c, d.d, &heuristic.algo, space, bytes,
                       s));
#undef TC_LT
  return 0;
}

}  // namespace

int gemm(const GemmArgs* g, Stream stream) {
  cudaDataType type;
  if (!data_type(g->dtype, &type) || g->m < 0 || g->n < 0 || g->k < 0 || g->batch < 0)
    return int(cudaErrorInvalidValue);
  if (g->m == 0 || g->n == 0 || g->batch == 0) return 0;
  if (g->bias && (g->batch != 1 || g->beta != 0)) return int(cudaErrorInvalidValue);
  // cuBLASLt's bias epilogue reads the vector in 16-byte pieces.
  if (g->bias && alignment(g->bias) < 16) return kGemmEpilogueUnsupported;
  cublasHandle_t h = nullptr;
  if (const int e = handle_for(reinterpret_cast<cudaStream_t>(stream), &h)) return e;
  const cublasOperation_t ta = g->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t tb = g->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  // float64 scales in double; the others (float32 and the half types, which
  // accumulate in float32) in float.
  const double alpha_d = g->alpha, beta_d = g->beta;
  const float alpha_f = float(g->alpha), beta_f = float(g->beta);
  const bool dbl = g->dtype == kFloat64;
  const cublasComputeType_t compute = dbl                                     ? CUBLAS_COMPUTE_64F
                                      : g->dtype == kFloat32 && g->allow_tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                                              : CUBLAS_COMPUTE_32F;
  const void* alpha = dbl ? static_cast<const void*>(&alpha_d) : &alpha_f;
  const void* beta = dbl ? static_cast<const void*>(&beta_d) : &beta_f;
  if (g->bias) return gemm_bias(g, type, compute, alpha, beta, stream);
  return status_code(cublasGemmStridedBatchedEx_64(h, ta, tb, g->m, g->n, g->k, alpha, g->a, type, g->lda, g->stride_a,
                                                   g->b, type, g->ldb, g->stride_b, beta, g->c, type, g->ldc,
                                                   g->stride_c, g->batch, compute, CUBLAS_GEMM_DEFAULT));
}

const char* cublas_error_string(int code) {
  const cublasStatus_t s = cublasStatus_t(code - kCublasErrorBase);
  thread_local std::string text;
  text = std::string(cublasGetStatusName(s)) + " (" + cublasGetStatusString(s) + ")";
  return text.c_str();
}

}  // namespace tc::cuda
