// SPDX-License-Identifier: BSD-3-Clause
#include "structured/linalg.h"

#include <string>

#include "core/error.h"

namespace tc::structured {
namespace {

void check_rank(const char* op, const char* arg, const Tensor& t, int64_t rank) {
  TC_CHECK_ARG(t.defined(), op, ": argument '", arg, "' is an undefined tensor");
  TC_CHECK_ARG(t.dim() == rank, op, ": argument '", arg, "' expected a ", rank, "-D tensor, got ", t.dim(), "-D");
}

// "mm: argument 'mat2' has the wrong shape: self and mat2 shapes cannot be
// multiplied (2x3 and 4x5)"; a and b are the operands named `names`.
void check_inner(const char* op, const char* names, const Tensor& a, const Tensor& b) {
  const int64_t nd = a.dim();
  if (a.sizes()[size_t(nd - 1)] == b.sizes()[size_t(nd - 2)]) return;
  auto shape = [](const Tensor& t) {
    std::string s;
    for (int64_t d = 0; d < t.dim(); ++d) s += (d ? "x" : "") + std::to_string(t.sizes()[size_t(d)]);
    return s;
  };
  TC_FAIL(InvalidArgument, op, ": argument 'mat2' has the wrong shape: ", names, " shapes cannot be multiplied (",
          shape(a), " and ", shape(b), ")");
}

}  // namespace

DimVector mm_meta(const Tensor& self, const Tensor& mat2) {
  check_rank("mm", "self", self, 2);
  check_rank("mm", "mat2", mat2, 2);
  TC_CHECK_TYPE(self.dtype() == mat2.dtype(), "mm: expected self and mat2 to have the same dtype, but got ",
                self.dtype(), " != ", mat2.dtype());
  check_inner("mm", "self and mat2", self, mat2);
  return DimVector{self.sizes()[0], mat2.sizes()[1]};
}

DimVector bmm_meta(const Tensor& self, const Tensor& mat2) {
  check_rank("bmm", "self", self, 3);
  check_rank("bmm", "mat2", mat2, 3);
  TC_CHECK_TYPE(self.dtype() == mat2.dtype(), "bmm: expected self and mat2 to have the same dtype, but got ",
                self.dtype(), " != ", mat2.dtype());
  TC_CHECK_ARG(self.sizes()[0] == mat2.sizes()[0], "bmm: argument 'mat2' expected batch size ", self.sizes()[0],
               ", got ", mat2.sizes()[0]);
  check_inner("bmm", "self and mat2", self, mat2);
  return DimVector{self.sizes()[0], self.sizes()[1], mat2.sizes()[2]};
}

DimVector addmm_meta(const Tensor& self, const Tensor& mat1, const Tensor& mat2) {
  TC_CHECK_ARG(self.defined(), "addmm: argument 'self' is an undefined tensor");
  check_rank("addmm", "mat1", mat1, 2);
  check_rank("addmm", "mat2", mat2, 2);
  TC_CHECK_TYPE(self.dtype() == mat1.dtype() && mat1.dtype() == mat2.dtype(),
                "addmm: expected self, mat1 and mat2 to have the same dtype, but got ", self.dtype(), ", ",
                mat1.dtype(), " and ", mat2.dtype());
  check_inner("addmm", "mat1 and mat2", mat1, mat2);
  DimVector target{mat1.sizes()[0], mat2.sizes()[1]};
  bool ok = self.dim() <= 2;
  for (int64_t d = 0; ok && d < self.dim(); ++d) {
    const int64_t sz = self.sizes()[size_t(d)], want = target[size_t(d + 2 - self.dim())];
    ok = sz == want || sz == 1;
  }
  TC_CHECK_ARG(ok, "addmm: argument 'self' of shape ", self.sizes(), " cannot be broadcast to the product's shape ",
               target.ref());
  return target;
}

void addmm_out_meta(const Tensor& self, IntArrayRef shape, Tensor& out) {
  TC_CHECK_ARG(out.defined(), "addmm: argument 'out' is an undefined tensor");
  TC_CHECK_TYPE(out.dtype() == self.dtype(), "addmm: argument 'out' expected dtype ", self.dtype(), ", got ",
                out.dtype());
  if (!out.sizes().equals(shape)) {
    TC_CHECK_ARG(out.numel() == 0, "addmm: argument 'out' expected shape ", shape, " (or an empty tensor), got ",
                 out.sizes());
    out.impl()->resize_contiguous(shape);
  }
}

}  // namespace tc::structured
