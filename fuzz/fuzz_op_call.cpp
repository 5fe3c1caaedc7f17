// SPDX-License-Identifier: BSD-3-Clause
// Any built-in operator, called by name through tc_op_call with fuzzed
// arguments: tensors of every dtype, shape and layout (contiguous, transposed,
// expanded, sliced, empty), numbers at the int64 and float edges, lists,
// dtypes and devices. A tensor result that requires grad is then summed and
// backpropagated. Errors are statuses; a crash, a sanitizer report, a leak or
// an in-place op that fails after changing its tensor is a finding.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "fuzz_input.h"
#include "tensorc.h"

namespace {

const char* const kOps[] = {
#include "fuzz_op_names.inc"
};
constexpr size_t kNumOps = sizeof(kOps) / sizeof(kOps[0]);

struct Arena {  // everything one input made, released at the end
  std::vector<tc_tensor> tensors;
  std::vector<std::vector<int64_t>> int_lists;
  std::vector<std::vector<bool>> bool_lists;
  std::vector<std::vector<double>> float_lists;
  std::vector<std::vector<tc_tensor>> tensor_lists;
  ~Arena() {
    for (tc_tensor t : tensors) tc_tensor_release(t);
  }
  tc_tensor keep(tc_tensor t) {
    if (t) tensors.push_back(t);
    return t;
  }
};

const tc_dtype kDtypes[] = {TC_FLOAT32, TC_FLOAT64, TC_INT64, TC_INT32,   TC_BOOL,
                            TC_UINT8,   TC_INT8,    TC_INT16, TC_FLOAT16, TC_BFLOAT16};

// A small tensor in one of several layouts, or NULL (for Tensor? arguments).
tc_tensor make_tensor(tc_fuzz::Input& in, Arena& a) {
  const uint8_t kind = in.byte();
  if (kind % 16 == 15) return nullptr;
  const tc_dtype dt = kDtypes[in.byte() % 10];
  const size_t ndim = in.byte() % 4;
  int64_t sizes[4];
  int64_t n = 1;
  for (size_t d = 0; d < ndim; ++d) n *= (sizes[d] = in.byte() % 5);
  // Values 0, 1, 2 (remainders of arange): valid for every dtype, bool included.
  tc_tensor base = nullptr;
  if (tc_full(&base, sizes, ndim, tc_scalar_float(0.0), &dt, nullptr) != TC_OK) return nullptr;
  a.keep(base);
  tc_tensor filled = nullptr;
  if (tc_arange(&filled, tc_scalar_int(n), nullptr, nullptr) == TC_OK) {
    a.keep(filled);
    tc_tensor shaped = nullptr;
    if (tc_reshape(&shaped, filled, sizes, ndim) == TC_OK) {
      a.keep(shaped);
      tc_tensor r = nullptr;
      if (tc_remainder_Scalar(&r, shaped, tc_scalar_int(3)) == TC_OK) {
        a.keep(r);
        tc_copy_inplace(base, r, nullptr);
      }
    }
  }
  tc_tensor t = base;
  switch ((kind >> 4) % 5) {
    case 1: {  // transposed
      tc_tensor v = nullptr;
      if (ndim >= 2 && tc_transpose_int(&v, t, 0, 1) == TC_OK) t = a.keep(v);
      break;
    }
    case 2: {  // expanded along a new leading dim
      int64_t esz[5] = {3};
      for (size_t d = 0; d < ndim; ++d) esz[d + 1] = sizes[d];
      tc_tensor u = nullptr, v = nullptr;
      if (tc_unsqueeze(&u, t, 0) == TC_OK && tc_expand(&v, a.keep(u), esz, ndim + 1, nullptr) == TC_OK) t = a.keep(v);
      break;
    }
    case 3: {  // a strided slice
      tc_tensor v = nullptr;
      int64_t start = 0, end = INT64_MAX, step = 2;
      if (ndim >= 1 && tc_slice_Tensor(&v, t, nullptr, &start, &end, &step) == TC_OK) t = a.keep(v);
      break;
    }
    default: break;
  }
  if ((kind & 0x80) && (dt == TC_FLOAT32 || dt == TC_FLOAT64)) {
    tc_tensor leaf = nullptr;
    if (tc_clone(&leaf, t) == TC_OK) {
      a.keep(leaf);
      if (tc_tensor_set_requires_grad(leaf, true) == TC_OK) t = leaf;
    }
  }
  return t;
}

tc_value make_value(tc_fuzz::Input& in, Arena& a) {
  tc_value v{};
  switch (in.byte() % 12) {
    case 0:
    case 1:
    case 2:
    case 3:
      v.tag = TC_VALUE_TENSOR;
      v.u.tensor = make_tensor(in, a);
      if (!v.u.tensor) v.tag = TC_VALUE_NONE;
      break;
    case 4:
      v.tag = TC_VALUE_INT;
      v.u.i = in.small_or_extreme();
      break;
    case 5:
      v.tag = TC_VALUE_FLOAT;
      v.u.f = in.number();
      break;
    case 6:
      v.tag = TC_VALUE_BOOL;
      v.u.b = in.byte() & 1;
      break;
    case 7: {
      const uint8_t k = in.byte() % 3;
      v.tag = TC_VALUE_SCALAR;
      v.u.scalar = k == 0   ? tc_scalar_int(in.small_or_extreme())
                   : k == 1 ? tc_scalar_float(in.number())
                            : tc_scalar_bool(in.byte() & 1);
      break;
    }
    case 8: {
      auto& l = a.int_lists.emplace_back();
      const size_t n = in.byte() % 5;
      for (size_t i = 0; i < n; ++i) l.push_back(in.small_or_extreme());
      v.tag = TC_VALUE_INT_LIST;
      v.u.ints.data = l.data();
      v.u.ints.len = l.size();
      break;
    }
    case 9: {
      auto& l = a.tensor_lists.emplace_back();
      const size_t n = in.byte() % 4;
      for (size_t i = 0; i < n; ++i) l.push_back(make_tensor(in, a));
      v.tag = TC_VALUE_TENSOR_LIST;
      v.u.tensors.data = l.data();
      v.u.tensors.len = l.size();
      break;
    }
    case 10:
      v.tag = TC_VALUE_DTYPE;
      v.u.dtype = tc_dtype(int8_t(in.byte()) % 13);
      break;
    default: v.tag = TC_VALUE_NONE; break;
  }
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  tc_set_num_threads(1);  // deterministic runs; threading has its own tests
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tc_fuzz::Input in(data, size);
  const char* op = kOps[in.u16() % kNumOps];
  Arena arena;
  tc_value args[8];
  const size_t nargs = in.byte() % 9;
  for (size_t i = 0; i < nargs; ++i) args[i] = make_value(in, arena);
  // An in-place op that fails must leave its first tensor unchanged.
  uint32_t v_before = 0;
  const bool first_is_tensor = nargs > 0 && args[0].tag == TC_VALUE_TENSOR;
  if (first_is_tensor) tc_tensor_version(&v_before, args[0].u.tensor);
  tc_value outs[8];
  size_t n_outs = 0;
  const tc_status st = tc_op_call(outs, 8, &n_outs, op, args, nargs);
  if (st != TC_OK) {
    uint32_t v_after = 0;
    if (first_is_tensor && tc_tensor_version(&v_after, args[0].u.tensor) == TC_OK && v_after != v_before) {
      std::fprintf(stderr, "%s failed (%s) but bumped its first tensor's version\n", op, tc_last_error_message());
      std::abort();
    }
    if (!tc_last_error_message() || !*tc_last_error_message()) {
      std::fprintf(stderr, "%s failed with status %d and no message\n", op, int(st));
      std::abort();
    }
    return 0;
  }
  for (size_t i = 0; i < n_outs; ++i) {
    if (outs[i].tag != TC_VALUE_TENSOR || !outs[i].u.tensor) continue;
    bool rg = false;
    tc_tensor_requires_grad(&rg, outs[i].u.tensor);
    char buf[256];
    size_t needed = 0;
    tc_tensor_to_string(buf, sizeof buf, &needed, outs[i].u.tensor);
    if (!rg) continue;
    tc_tensor s = nullptr;
    if (tc_sum(&s, outs[i].u.tensor, nullptr) == TC_OK) {
      tc_tensor_backward(s, nullptr, false, false);
      tc_tensor_release(s);
    }
  }
  tc_values_release(outs, n_outs);
  return 0;
}
