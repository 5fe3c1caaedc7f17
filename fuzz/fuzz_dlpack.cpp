// SPDX-License-Identifier: BSD-3-Clause
// DLPack import of fuzzed metadata (ndim, shape, strides, dtype, device,
// byte offset) over a buffer the fuzzer owns. Import must accept or refuse
// cleanly; the deleter runs exactly once after a successful import (when the
// last reference goes) and never after a refused one. An accepted tensor
// whose elements lie inside the buffer is then read through a few ops.
#include <dlpack/dlpack.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "fuzz_input.h"
#include "tensorc.h"

namespace {

int g_deleted = 0;
void count_delete(DLManagedTensor*) { ++g_deleted; }

alignas(64) unsigned char g_buffer[512];

// Bytes from data to one past the last element, or -1 when the layout
// reaches outside [0, kBuffer) or anything overflows.
long long reach(const DLTensor& d) {
  long long elem = (d.dtype.bits / 8) * (d.dtype.lanes ? d.dtype.lanes : 1), last = 0;
  for (int i = 0; i < d.ndim; ++i) {
    const long long s = d.shape[i];
    if (s == 0) return 0;
    if (s < 0 || s > 512) return -1;
    const long long st = d.strides ? d.strides[i] : 1;
    if (st < 0 || st > 512) return -1;
    last += (s - 1) * (d.strides ? st : 1);
  }
  if (!d.strides) {
    long long n = 1;
    for (int i = 0; i < d.ndim; ++i) n *= d.shape[i];
    last = n - 1;
  }
  if (d.byte_offset > sizeof g_buffer) return -1;
  const long long end = (long long)d.byte_offset + (last + 1) * elem;
  return end <= (long long)sizeof g_buffer ? end : -1;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tc_fuzz::Input in(data, size);
  int64_t shape[8], strides[8];
  DLManagedTensor m{};
  DLTensor& d = m.dl_tensor;
  d.ndim = int(int8_t(in.byte())) % 9;
  for (int i = 0; i < 8; ++i) shape[i] = in.byte() < 220 ? in.byte() % 6 : in.small_or_extreme();
  for (int i = 0; i < 8; ++i) strides[i] = in.byte() < 220 ? in.byte() % 8 : in.small_or_extreme();
  d.shape = in.byte() % 16 ? shape : nullptr;
  d.strides = in.byte() % 2 ? strides : nullptr;
  const uint8_t kBool = 6;  // DLPack's kDLBool, missing from older headers
  const uint8_t codes[] = {kDLInt, kDLUInt, kDLFloat, kDLBfloat, kBool, kDLComplex, 7};
  d.dtype.code = codes[in.byte() % 7];
  const uint8_t bits[] = {1, 8, 16, 32, 64, 128};
  d.dtype.bits = bits[in.byte() % 6];
  d.dtype.lanes = in.byte() % 8 ? 1 : in.byte() % 4;
  d.device.device_type = in.byte() % 8 ? kDLCPU : DLDeviceType(in.byte() % 16);
  d.device.device_id = 0;
  d.byte_offset = in.byte() % 8 ? in.byte() % 64 : uint64_t(in.i64());
  d.data = in.byte() % 16 ? static_cast<void*>(g_buffer) : nullptr;
  // Contents: whatever the fuzzer says; bool imports must refuse bytes > 1.
  for (size_t i = 0; i < sizeof g_buffer; ++i) g_buffer[i] = in.empty() ? uint8_t(i % 2) : in.byte();
  m.deleter = &count_delete;
  // Only layouts inside the buffer may be handed over: anything else would be
  // the caller breaking DLPack's contract, not tensorc's to detect.
  if (d.ndim >= 0 && (d.shape || d.ndim == 0) && reach(d) < 0) return 0;
  g_deleted = 0;
  tc_tensor t = nullptr;
  const tc_status st = tc_tensor_from_dlpack(&t, &m);
  if (st != TC_OK) {
    if (t || g_deleted) {
      std::fprintf(stderr, "refused import left a tensor or ran the deleter\n");
      std::abort();
    }
    return 0;
  }
  tc_tensor s = nullptr;
  if (tc_sum(&s, t, nullptr) == TC_OK) tc_tensor_release(s);
  char buf[256];
  size_t needed = 0;
  tc_tensor_to_string(buf, sizeof buf, &needed, t);
  DLManagedTensor* back = nullptr;
  if (tc_tensor_to_dlpack(&back, t) == TC_OK) back->deleter(back);
  if (g_deleted) {
    std::fprintf(stderr, "deleter ran while a tensor still held the memory\n");
    std::abort();
  }
  tc_tensor_release(t);
  if (g_deleted != 1) {
    std::fprintf(stderr, "deleter ran %d times after the last release\n", g_deleted);
    std::abort();
  }
  return 0;
}
