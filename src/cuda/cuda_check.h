// SPDX-License-Identifier: BSD-3-Clause
// CUDA runtime errors as tc::Error: every runtime call and every kernel
// launch is checked, and a failure becomes a status with the CUDA error's
// name and text, never an abort.
#pragma once
#include <cuda_runtime_api.h>

#include "core/error.h"

namespace tc::cuda {

// Throws Error(Runtime) "<what>: <call> failed: <name> (<text>)".
[[noreturn]] void throw_cuda_error(cudaError_t err, const char* what, const char* call);

}  // namespace tc::cuda

// TC_CUDA_CHECK(cudaMemcpyAsync(...), "copy_");
#define TC_CUDA_CHECK(expr, what)                                                             \
  do {                                                                                        \
    const cudaError_t tc_cuda_err_ = (expr);                                                  \
    if (tc_cuda_err_ != cudaSuccess) ::tc::cuda::throw_cuda_error(tc_cuda_err_, what, #expr); \
  } while (0)

// After a kernel launch: a bad configuration or a fault already pending.
#define TC_CUDA_CHECK_LAUNCH(what) TC_CUDA_CHECK(cudaGetLastError(), what)
