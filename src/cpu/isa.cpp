// SPDX-License-Identifier: BSD-3-Clause
#include "cpu/isa.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tc::cpu {

#if TC_HAVE_ISA_VARIANTS
namespace {

// TC_CPU_CAPABILITY when set to a known value; warns once on stderr (at the
// first isa() call) about an unknown one, which is then ignored.
bool capability_asked(Isa* asked) {
  const char* cap = std::getenv("TC_CPU_CAPABILITY");
  if (cap == nullptr || *cap == '\0') return false;
  if (std::strcmp(cap, "default") == 0)
    *asked = Isa::Baseline;
  else if (std::strcmp(cap, "avx2") == 0)
    *asked = Isa::Avx2;
  else if (std::strcmp(cap, "avx512") == 0)
    *asked = Isa::Avx512;
  else
    return false;
  return true;
}

}  // namespace

bool avx512_on_256bit_units() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_is("amd") && __builtin_cpu_is("amdfam19h");
}

Isa detect_isa() {
  const Isa best = __builtin_cpu_supports("x86-64-v4")   ? Isa::Avx512
                   : __builtin_cpu_supports("x86-64-v3") ? Isa::Avx2
                                                         : Isa::Baseline;
  Isa asked = best;
  if (!capability_asked(&asked)) {
    const char* cap = std::getenv("TC_CPU_CAPABILITY");
    if (cap != nullptr && *cap != '\0')
      std::fprintf(stderr, "tensorc: TC_CPU_CAPABILITY=%s ignored (expected default, avx2 or avx512)\n", cap);
    return best;
  }
  return asked < best ? asked : best;  // a cap, never more than the CPU runs
}

Isa detect_streaming_isa() {
  Isa asked;
  if (capability_asked(&asked)) return isa();  // asked for: used everywhere
  return isa() == Isa::Avx512 && avx512_on_256bit_units() ? Isa::Avx2 : isa();
}
#else
Isa detect_isa() { return Isa::Baseline; }
bool avx512_on_256bit_units() { return false; }
#endif

}  // namespace tc::cpu
