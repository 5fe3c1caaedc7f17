// SPDX-License-Identifier: BSD-3-Clause
#include "core/shape.h"

#include "core/error.h"

namespace tc {

std::ostream& operator<<(std::ostream& os, IntArrayRef a) {
  os << "[";
  for (size_t i = 0; i < a.size(); ++i) os << (i ? ", " : "") << a[i];
  return os << "]";
}

int64_t checked_numel(IntArrayRef sizes, const char* op) {
  int64_t n = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    TC_CHECK_ARG(sizes[i] >= 0, op, ": argument 'size' expected non-negative sizes, got ", sizes);
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    TC_CHECK(!__builtin_mul_overflow(n, sizes[i], &n), OutOfMemory, op, ": argument 'size' ", sizes,
             " has more elements than fit in int64");
  }
  return n;
}

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector st(sizes.size());
  int64_t s = 1;
  for (int64_t i = int64_t(sizes.size()) - 1; i >= 0; --i) {
    st[i] = s;
    // Only an empty tensor's sizes can overflow here (checked_numel refuses
    // the rest); its strides are never walked, so saturating is enough.
    if (__builtin_mul_overflow(s, sizes[i] > 1 ? sizes[i] : 1, &s)) s = INT64_MAX;
  }
  return st;
}

bool storage_nbytes(IntArrayRef sizes, IntArrayRef strides, int64_t offset, int64_t itemsize, int64_t* nbytes) {
  *nbytes = 0;
  for (int64_t s : sizes)
    if (s == 0) return true;
  int64_t extent = 1, term = 0;
  if (__builtin_add_overflow(extent, offset, &extent)) return false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (__builtin_mul_overflow(sizes[i] - 1, strides[i], &term) || __builtin_add_overflow(extent, term, &extent))
      return false;
  }
  return !__builtin_mul_overflow(extent, itemsize, nbytes);
}

int64_t checked_storage_nbytes(IntArrayRef sizes, IntArrayRef strides, int64_t itemsize, const char* op,
                               const char* arg) {
  for (int64_t s : strides)
    TC_CHECK_ARG(s >= 0, op, ": argument '", arg, "' expected non-negative strides, got ", strides);
  int64_t nbytes = 0;
  TC_CHECK(storage_nbytes(sizes, strides, 0, itemsize, &nbytes), OutOfMemory, op, ": argument '", arg, "' ", strides,
           " with sizes ", sizes, " needs more bytes than fit in int64");
  return nbytes;
}

bool compute_is_contiguous(IntArrayRef sizes, IntArrayRef strides) {
  // Empty first: an empty tensor's other sizes may overflow when multiplied.
  for (int64_t s : sizes)
    if (s == 0) return true;
  int64_t expected = 1;
  for (int64_t i = int64_t(sizes.size()) - 1; i >= 0; --i) {
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= sizes[i];  // a non-empty tensor's numel fits int64
  }
  return true;
}

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op, const char* arg) {
  int64_t n = ndim > 0 ? ndim : 1;
  TC_CHECK_INDEX(dim >= -n && dim < n, op, ": argument '", arg, "' (", dim, ") is out of range: expected a value in [",
                 -n, ", ", n - 1, "]");
  return dim < 0 ? dim + n : dim;
}

DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op) {
  size_t n = a.size() > b.size() ? a.size() : b.size();
  DimVector out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    TC_CHECK_ARG(da == db || da == 1 || db == 1, op, ": shapes ", a, " and ", b, " cannot be broadcast together (size ",
                 da, " vs ", db, " at dim ", i, ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

DimVector broadcast_strides(IntArrayRef sizes, IntArrayRef strides, IntArrayRef target) {
  DimVector out(target.size(), 0);
  size_t off = target.size() - sizes.size();
  for (size_t i = 0; i < sizes.size(); ++i) out[off + i] = (sizes[i] == 1 && target[off + i] != 1) ? 0 : strides[i];
  return out;
}

uint64_t dim_mask(IntArrayRef dims, int64_t ndim, const char* op) {
  TC_CHECK_INDEX(ndim <= 64, op, ": tensors of more than 64 dims are not supported");
  if (dims.empty()) return ndim == 0 ? 0 : (ndim == 64 ? ~uint64_t(0) : (uint64_t(1) << ndim) - 1);
  uint64_t m = 0;
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, ndim, op, "dim");
    TC_CHECK_ARG(!(m & (uint64_t(1) << w)), op, ": argument 'dim' has dim ", w, " more than once");
    m |= uint64_t(1) << w;
  }
  return m;
}

}  // namespace tc
