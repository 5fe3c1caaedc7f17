// SPDX-License-Identifier: BSD-3-Clause
// Whether two strided layouts over one storage share memory. Used by the
// loop planner before it writes an output that an input may also occupy.
#pragma once
#include <cstdint>

#include "core/dims.h"

namespace tc {

// A tensor's geometry inside its storage, in elements from the storage start.
struct MemLayout {
  int64_t offset;     // storage offset, in elements
  IntArrayRef sizes;  // sizes and strides (elements, non-negative)
  IntArrayRef strides;
  int64_t itemsize;  // bytes per element
};

enum class Overlap : int8_t { None, Shared, Unknown };

// Whether some element of `a` and some element of `b` share a byte: byte
// ranges first, then where they meet an exact search over index digits.
// Unknown when that search would be long (callers then read through a copy,
// so the answer can cost a copy, never a wrong value).
Overlap memory_overlap(const MemLayout& a, const MemLayout& b);

}  // namespace tc
