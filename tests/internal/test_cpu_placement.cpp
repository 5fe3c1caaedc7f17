// SPDX-License-Identifier: BSD-3-Clause
// Where CPU work lands: the CPU allocator's block placement (large blocks on
// 2 MiB boundaries for transparent huge pages, shared by sizes that round to
// the same pages) and the vector-ISA choice of cpu/isa.h
// (TC_CPU_CAPABILITY caps it; streaming loops never use wider vectors than
// compute-bound ones).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/allocator.h"
#include "core/error.h"
#include "cpu/isa.h"

namespace {

using namespace tc;

uintptr_t addr(const DataPtr& p) { return reinterpret_cast<uintptr_t>(p.data); }

TEST(CpuAllocator, LargeBlocksStartOnHugePageBoundaries) {
  cpu_allocator_empty_cache();
  constexpr size_t kMiB = size_t(1) << 20;
  DataPtr big = cpu_allocator()->allocate(5 * kMiB + 1);
  ASSERT_NE(big.data, nullptr);
  EXPECT_EQ(addr(big) % (2 * kMiB), 0u);
  // Below 4 MiB: 64-byte alignment only (no 2 MiB rounding of medium blocks).
  DataPtr medium = cpu_allocator()->allocate(kMiB + 3);
  EXPECT_EQ(addr(medium) % 64, 0u);
  DataPtr small = cpu_allocator()->allocate(100);
  EXPECT_EQ(addr(small) % 64, 0u);
  // The block is whole 2 MiB pages: all 6 MiB are usable.
  static_cast<char*>(big.data)[6 * kMiB - 1] = 1;
  // Freed, it serves any size that rounds to the same 6 MiB.
  void* first = big.data;
  big.clear();
  DataPtr again = cpu_allocator()->allocate(6 * kMiB - 64);
  EXPECT_EQ(again.data, first);
  cpu_allocator_empty_cache();
}

TEST(CpuAllocator, HugeRequestsAreOutOfMemoryNotAWrap) {
  // Rounding up to whole 2 MiB pages must not wrap around to a small size.
  for (size_t n : {SIZE_MAX - 100, SIZE_MAX - (size_t(1) << 20), SIZE_MAX / 2 + 1}) {
    try {
      DataPtr p = cpu_allocator()->allocate(n);
      ADD_FAILURE() << "allocated " << n << " bytes";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::OutOfMemory) << e.what();
    }
  }
}

#if TC_HAVE_ISA_VARIANTS
cpu::Isa widest() {
  return __builtin_cpu_supports("x86-64-v4")   ? cpu::Isa::Avx512
         : __builtin_cpu_supports("x86-64-v3") ? cpu::Isa::Avx2
                                               : cpu::Isa::Baseline;
}

cpu::Isa detect_with(const char* value) {
  const char* saved = std::getenv("TC_CPU_CAPABILITY");
  std::string keep = saved ? saved : "";
  if (value)
    setenv("TC_CPU_CAPABILITY", value, 1);
  else
    unsetenv("TC_CPU_CAPABILITY");
  cpu::Isa got = cpu::detect_isa();
  if (saved)
    setenv("TC_CPU_CAPABILITY", keep.c_str(), 1);
  else
    unsetenv("TC_CPU_CAPABILITY");
  return got;
}

TEST(CpuIsa, CapabilityVariableCapsTheChoice) {
  const cpu::Isa w = widest();
  EXPECT_EQ(detect_with(nullptr), w);
  EXPECT_EQ(detect_with(""), w);
  EXPECT_EQ(detect_with("default"), cpu::Isa::Baseline);
  EXPECT_EQ(detect_with("avx2"), w < cpu::Isa::Avx2 ? w : cpu::Isa::Avx2);
  EXPECT_EQ(detect_with("avx512"), w);  // never more than the CPU runs
  EXPECT_EQ(detect_with("sse9"), w);    // unknown: ignored, with a warning
}
#endif

TEST(CpuIsa, StreamingLoopsAreNeverWider) {
  EXPECT_LE(int(cpu::streaming_isa()), int(cpu::isa()));
  // A capability asked for is used by every loop; an unknown value is ignored everywhere.
  const char* cap = std::getenv("TC_CPU_CAPABILITY");
  const std::string asked = cap ? cap : "";
  if (asked == "default" || asked == "avx2" || asked == "avx512") {
    EXPECT_EQ(cpu::streaming_isa(), cpu::isa());
  }
}

}  // namespace
