// SPDX-License-Identifier: BSD-3-Clause
#include "cpu/isa.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tc::cpu {

#if TC_HAVE_ISA_VARIANTS
Isa detect_isa() {
  Isa best = __builtin_cpu_supports("x86-64-v4")   ? Isa::Avx512
             : __builtin_cpu_supports("x86-64-v3") ? Isa::Avx2
                                                   : Isa::Baseline;
  const char* cap = std::getenv("TC_CPU_CAPABILITY");
  if (cap == nullptr || *cap == '\0') return best;
  Isa asked = best;
  if (std::strcmp(cap, "default") == 0)
    asked = Isa::Baseline;
  else if (std::strcmp(cap, "avx2") == 0)
    asked = Isa::Avx2;
  else if (std::strcmp(cap, "avx512") == 0)
    asked = Isa::Avx512;
  else
    std::fprintf(stderr, "tensorc: TC_CPU_CAPABILITY=%s ignored (expected default, avx2 or avx512)\n", cap);
  // A cap, never more than the CPU runs.
  return asked < best ? asked : best;
}
Isa detect_streaming_isa() {
  const Isa best = isa();
  const char* cap = std::getenv("TC_CPU_CAPABILITY");
  if (cap != nullptr && *cap != '\0') return best;  // asked for: used everywhere
  if (best == Isa::Avx512 && __builtin_cpu_is("amd") && __builtin_cpu_is("amdfam19h")) return Isa::Avx2;
  return best;
}
#else
Isa detect_isa() { return Isa::Baseline; }
#endif

}  // namespace tc::cpu
