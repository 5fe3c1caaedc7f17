// SPDX-License-Identifier: BSD-3-Clause
// The libffi bridge between boxed calls (a Stack) and kernels written in C
// with an operator's natural C signature:
//   tc_status fn(<outputs>, <arguments in schema order>)
// outputs: tc_tensor* (Tensor), tc_tensor_list* (Tensor[]), int64_t* / double* /
//          bool* / tc_scalar* (int / float / bool / Scalar); mutable Tensor(a!)
//          returns alias an argument and have no output.
// arguments: tc_tensor (Tensor, Tensor?: NULL = None), const tc_tensor* + size_t
//          (Tensor[]), int64_t / double / bool / tc_scalar / tc_dtype / tc_device /
//          const char* (required values), const T* (optional values: NULL = None),
//          const int64_t* + size_t (int[]), const bool* + size_t (bool[]),
//          tc_generator (Generator?). Defaults are always filled in by the caller.
#pragma once
#include <memory>

#include "dispatch/kernel.h"
#include "dispatch/schema/model.h"

namespace tc {

// A boxed KernelFunction that calls `fn` through libffi. Throws
// InvalidArgument when the schema has a type the bridge cannot pass.
KernelFunction make_ffi_kernel(const schema::FunctionSchema& schema, void (*fn)(void));

}  // namespace tc
