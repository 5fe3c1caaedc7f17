// SPDX-License-Identifier: BSD-3-Clause
// Instruction-set selection for hot CPU loops.
//
// The library is built for the x86-64 baseline (SSE2) so it loads on any
// x86-64 machine. Loops whose speed depends on vector width are compiled again
// for x86-64-v3 (AVX2, FMA, F16C) and x86-64-v4 (AVX-512), and the best copy
// the CPU supports is chosen when the library loads:
//   - TC_CPU_CLONES on a function: GCC's target_clones (an ifunc resolver picks
//     the copy once); the function's inlined callees are compiled per copy too.
//   - cpu::isa() for code that must pick its own vector width explicitly (GCC
//     vector types have a fixed size whatever the target).
// TC_NO_CPU_CLONES builds one copy only (e.g. for tools that do not support
// ifuncs).
#pragma once

namespace tc::cpu {

enum class Isa { Baseline, Avx2, Avx512 };

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(TC_NO_CPU_CLONES)
#define TC_CPU_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define TC_TARGET_AVX2 __attribute__((target("arch=x86-64-v3")))
#define TC_TARGET_AVX512 __attribute__((target("arch=x86-64-v4")))
#define TC_HAVE_ISA_VARIANTS 1

// The widest variant this CPU runs, decided once.
inline Isa isa() {
  static const Isa best = __builtin_cpu_supports("x86-64-v4")   ? Isa::Avx512
                          : __builtin_cpu_supports("x86-64-v3") ? Isa::Avx2
                                                                : Isa::Baseline;
  return best;
}
#else
#define TC_CPU_CLONES
#define TC_HAVE_ISA_VARIANTS 0
inline Isa isa() { return Isa::Baseline; }
#endif

}  // namespace tc::cpu
