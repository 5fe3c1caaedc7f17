// SPDX-License-Identifier: BSD-3-Clause
// Instruction-set selection for hot CPU loops.
//
// The library is built for the x86-64 baseline (SSE2) so it loads on any
// x86-64 machine. Loops whose speed depends on vector width are compiled again
// for x86-64-v3 (AVX2, FMA, F16C) and x86-64-v4 (AVX-512): TC_TARGET_AVX2 /
// TC_TARGET_AVX512 on copies of a function (or of a template's instantiation:
// their inlined callees are compiled per copy too), and a switch on
// cpu::isa() or cpu::streaming_isa() calls one. A plain switch rather than
// GCC's target_clones: the choice depends on more than CPUID feature bits
// (the environment, the CPU's vector datapath width) and differs between
// loops. TC_NO_CPU_CLONES builds one copy only.
#pragma once

namespace tc::cpu {

enum class Isa { Baseline, Avx2, Avx512 };

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(TC_NO_CPU_CLONES)
#define TC_TARGET_AVX2 __attribute__((target("arch=x86-64-v3")))
#define TC_TARGET_AVX512 __attribute__((target("arch=x86-64-v4")))
#define TC_HAVE_ISA_VARIANTS 1

// The variant this process uses, decided once (isa.cpp): the widest the CPU
// runs, capped by the environment variable TC_CPU_CAPABILITY=default|avx2|
// avx512 when set (PyTorch's ATEN_CPU_CAPABILITY, with its values; another
// value is ignored, with a warning on stderr).
Isa detect_isa();
inline Isa isa() {
  static const Isa chosen = detect_isa();
  return chosen;
}

// The variant for memory-bound loops (a cheap function of each element
// streamed from and to memory): isa(), except on AMD family 19h (Zen 4),
// whose AVX-512 runs on 256-bit units: there AVX2 streams faster (16M-element
// add_out 6.3 ms against 7.5 ms, sum 1.8 against 2.3 ms), while compute-bound
// loops (exp, tanh) still run 1.5x faster with AVX-512. A TC_CPU_CAPABILITY
// value decides this one too.
Isa detect_streaming_isa();
inline Isa streaming_isa() {
  static const Isa chosen = detect_streaming_isa();
  return chosen;
}
#else
#define TC_HAVE_ISA_VARIANTS 0
inline Isa isa() { return Isa::Baseline; }
inline Isa streaming_isa() { return Isa::Baseline; }
#endif

// True on CPUs whose AVX-512 runs on 256-bit units (AMD family 19h, Zen 4):
// 512-bit code gains no throughput there, and streams slower.
bool avx512_on_256bit_units();

}  // namespace tc::cpu
