#include "cpu/reduce_copy.h"

#include <cstring>
#include <type_traits>

#include "core/parallel.h"
#include "core/shape.h"

namespace tc::cpu {
namespace {

template <class T> constexpr bool kReduced = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// Numeric conversion as PyTorch's static_cast_with_inter_type: half types go
// through float, anything to bool is "!= 0".
template <class To, class From> inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) return v;
  else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (kReduced<From>) return float(v) != 0.0f;
    else return v != From(0);
  } else if constexpr (kReduced<From>) return To(float(v));
  else if constexpr (kReduced<To>) return To(float(v));
  else return static_cast<To>(v);
}

// Drops size-1 dims and merges dims that are contiguous in both tensors, so
// most copies become one long inner loop.
struct CopyShape {
  DimVector sizes, dst, src;
};
CopyShape coalesce2(IntArrayRef sizes, IntArrayRef dst, IntArrayRef src) {
  CopyShape c;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 1) continue;
    size_t n = c.sizes.size();
    if (n && c.dst[n - 1] == dst[i] * sizes[i] && c.src[n - 1] == src[i] * sizes[i]) {
      c.sizes[n - 1] *= sizes[i];
      c.dst[n - 1] = dst[i];
      c.src[n - 1] = src[i];
    } else {
      c.sizes.push_back(sizes[i]);
      c.dst.push_back(dst[i]);
      c.src.push_back(src[i]);
    }
  }
  if (c.sizes.empty()) {
    c.sizes.push_back(1);
    c.dst.push_back(0);
    c.src.push_back(0);
  }
  return c;
}

template <class To, class From>
void copy_loop(const CopyShape& c, To* dst, const From* src) {
  const size_t nd = c.sizes.size();
  const int64_t inner = c.sizes[nd - 1], sd = c.dst[nd - 1], ss = c.src[nd - 1];
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < nd; ++i) rows *= c.sizes[i];
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(inner, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      int64_t od = 0, os = 0, rem = r;
      for (size_t i = nd - 1; i-- > 0;) {
        int64_t idx = rem % c.sizes[i];
        rem /= c.sizes[i];
        od += idx * c.dst[i];
        os += idx * c.src[i];
      }
      To* d = dst + od;
      const From* s = src + os;
      if (sd == 1 && ss == 1) {
        if constexpr (std::is_same_v<To, From>) std::memcpy(d, s, size_t(inner) * sizeof(To));
        else for (int64_t j = 0; j < inner; ++j) d[j] = convert<To>(s[j]);
      } else {
        for (int64_t j = 0; j < inner; ++j) d[j * sd] = convert<To>(s[j * ss]);
      }
    }
  });
}

}  // namespace

void copy_strided(const Tensor& dst, const Tensor& src) {
  TC_INTERNAL_ASSERT(dst.sizes().equals(src.sizes()), "copy_strided: sizes differ");
  if (dst.numel() == 0) return;
  CopyShape c = coalesce2(dst.sizes(), dst.strides(), src.strides());
  TC_DISPATCH_ALL_TYPES_AND_BOOL(dst.dtype(), "copy", [&] {
    using to_t = scalar_t;
    TC_DISPATCH_ALL_TYPES_AND_BOOL(src.dtype(), "copy", [&] {
      copy_loop<to_t, scalar_t>(c, dst.data_ptr<to_t>(), src.data_ptr<scalar_t>());
    });
  });
}

Tensor contiguous_as(const Tensor& src, ScalarType dtype) {
  if (src.is_contiguous() && src.dtype() == dtype) return src;
  Tensor out = empty_tensor(src.sizes(), dtype, src.device());
  copy_strided(out, src);
  return out;
}

}  // namespace tc::cpu
