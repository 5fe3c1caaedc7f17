// SPDX-License-Identifier: BSD-3-Clause
// TC_NO_SANITIZE_INTEGER marks one function whose arithmetic wraps on purpose
// (a hash, a counter-based RNG): clang's integer checks that are not
// undefined behaviour (unsigned wraparound, implicit conversions that change
// a value; tools/intsan.sh) skip it. Signed overflow, shifts out of range and
// division by zero stay checked. Nothing under GCC, which has no such checks.
#pragma once

#if defined(__clang__)
#define TC_NO_SANITIZE_INTEGER \
  __attribute__((no_sanitize("unsigned-integer-overflow", "unsigned-shift-base", "implicit-conversion")))
#else
#define TC_NO_SANITIZE_INTEGER
#endif
