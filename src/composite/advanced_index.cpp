// SPDX-License-Identifier: BSD-3-Clause
// Advanced indexing, NumPy's rules as PyTorch applies them: index.Tensor
// (x[i, :, j]) and index_put (x[i, :, j] = v), decomposed into views and the
// slice ops of cpu/index.cpp (CompositeImplicitAutograd: autograd comes from
// permute, reshape, expand, index_select, index_add and index_copy).
//
//   - Each entry of `indices` is None (take the whole dim), an int64/int32
//     tensor (positions; negative ones count from the end), or a bool/uint8
//     mask, which stands for as many dims as it has (its nonzero coordinates).
//   - The index tensors broadcast to one shape B. The result is B in place of
//     the indexed dims when those are adjacent, else B first; the other dims
//     follow in order.
//
// How: permute the indexed dims to the front, merge them into one dim, turn
// the indices into positions in that merged dim (checked against each dim's
// size), and take or write those slices.
#include <optional>
#include <vector>

#include "core/error.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "tensorc_gen/ops.h"
#include "tensorc_gen/native_functions.h"  // checks these definitions against the schema

namespace tc::native {
namespace {

// What index.Tensor and index_put share: where the indexed dims are and the
// merged positions of every indexed element.
struct IndexPlan {
  std::vector<int64_t> perm;  // indexed dims first, then the others in order
  DimVector broadcast;        // B, the shape of the index tensors
  DimVector rest;             // sizes of the dims not indexed, in order
  int64_t merged = 1;         // product of the indexed dims' sizes
  int64_t insert_at = 0;      // where B goes in the result
  Tensor positions;           // int64, shape B: positions in the merged dim
  bool any = false;           // false: every entry is None
};

// Replaces each mask by one index tensor per dim it covers and pads with
// None to self.dim(). Checks kinds, mask shapes and the number of indices.
std::vector<std::optional<Tensor>> expand_masks(const char* op, const Tensor& self,
                                                const std::vector<std::optional<Tensor>>& indices) {
  std::vector<std::optional<Tensor>> out;
  int64_t d = 0;  // the dim of self the next entry indexes
  for (size_t i = 0; i < indices.size(); ++i) {
    const std::optional<Tensor>& ix = indices[i];
    if (!ix || !ix->defined()) {
      out.emplace_back(std::nullopt);
      ++d;
      continue;
    }
    const ScalarType t = ix->dtype();
    if (t == ScalarType::Bool || t == ScalarType::UInt8) {
      TC_CHECK_INDEX(d + ix->dim() <= self.dim(), op, ": argument 'indices' has a mask at entry ", i, " covering ",
                     ix->dim(), " dims from dim ", d, ", but self has ", self.dim(), " dims");
      for (int64_t k = 0; k < ix->dim(); ++k)
        TC_CHECK_INDEX(ix->size(k) == self.size(d + k), op, ": argument 'indices' has a mask of shape ", ix->sizes(),
                       " at entry ", i, " that does not match self's shape ", self.sizes(), " at dim ", d + k);
      const Tensor mask = t == ScalarType::Bool ? *ix : tc::ne(*ix, Scalar(int64_t(0)));
      const Tensor coords = tc::nonzero(mask);  // [count, mask.dim()]
      for (int64_t k = 0; k < ix->dim(); ++k) out.emplace_back(tc::select(coords, 1, k));
      d += ix->dim();
    } else {
      TC_CHECK_TYPE(t == ScalarType::Int64 || t == ScalarType::Int32, op, ": argument 'indices' entry ", i,
                    " has dtype ", t, ", expected an int64, int32, bool or uint8 tensor");
      out.emplace_back(*ix);
      ++d;
    }
  }
  TC_CHECK_INDEX(d <= self.dim(), op, ": argument 'indices' has ", d, " indices for a tensor of ", self.dim(), " dims");
  while (int64_t(out.size()) < self.dim()) out.emplace_back(std::nullopt);
  return out;
}

IndexPlan plan_index(const char* op, const Tensor& self, const std::vector<std::optional<Tensor>>& raw) {
  const std::vector<std::optional<Tensor>> indices = expand_masks(op, self, raw);
  IndexPlan p;
  std::vector<int64_t> indexed;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (indices[size_t(d)]) {
      indexed.push_back(d);
      p.broadcast = p.any ? broadcast_shapes(p.broadcast, indices[size_t(d)]->sizes(), op)
                          : DimVector(indices[size_t(d)]->sizes());
      p.any = true;
    }
  }
  if (!p.any) return p;
  bool adjacent = true;
  for (size_t k = 1; k < indexed.size(); ++k) adjacent &= indexed[k] == indexed[k - 1] + 1;
  p.insert_at = adjacent ? indexed[0] : 0;
  p.perm = indexed;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (indices[size_t(d)]) continue;
    p.perm.push_back(d);
    p.rest.push_back(self.size(d));
  }
  // positions = sum over indexed dims of (index, wrapped) * (stride in the merged dim).
  const int64_t count = checked_numel(p.broadcast, op);
  p.positions = empty_tensor(p.broadcast, ScalarType::Int64, Device(DeviceType::CPU));
  int64_t* pos = p.positions.data_ptr<int64_t>();
  for (int64_t i = 0; i < count; ++i) pos[i] = 0;
  for (size_t k = 0; k < indexed.size(); ++k) {
    const int64_t size = self.size(indexed[k]);
    const Tensor ix = tc::contiguous(tc::to(tc::expand(*indices[size_t(indexed[k])], p.broadcast), ScalarType::Int64));
    const int64_t* v = ix.data_ptr<int64_t>();
    for (int64_t i = 0; i < count; ++i) {
      TC_CHECK_INDEX(v[i] >= -size && v[i] < size, op, ": index ", v[i], " is out of bounds for dim ", indexed[k],
                     " with size ", size);
      pos[i] = pos[i] * size + (v[i] < 0 ? v[i] + size : v[i]);
    }
  }
  for (int64_t d : indexed) p.merged *= self.size(d);
  return p;
}

// self with the indexed dims permuted to the front and merged: [merged, rest...].
Tensor merged_view(const Tensor& self, const IndexPlan& p) {
  DimVector shape{p.merged};
  for (int64_t s : p.rest) shape.push_back(s);
  return tc::reshape(tc::permute(self, p.perm), shape);
}

// The order that takes [B..., rest...] to the result's [rest[:at], B..., rest[at:]].
std::vector<int64_t> result_order(const IndexPlan& p) {
  const int64_t nb = int64_t(p.broadcast.size()), nr = int64_t(p.rest.size());
  std::vector<int64_t> order;
  for (int64_t r = 0; r < p.insert_at; ++r) order.push_back(nb + r);
  for (int64_t b = 0; b < nb; ++b) order.push_back(b);
  for (int64_t r = p.insert_at; r < nr; ++r) order.push_back(nb + r);
  return order;
}

DimVector front_shape(const IndexPlan& p) {  // [B..., rest...]
  DimVector s(p.broadcast);
  for (int64_t r : p.rest) s.push_back(r);
  return s;
}

}  // namespace

Tensor index_Tensor(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  const IndexPlan p = plan_index("index", self, indices);
  if (!p.any) return tc::clone(self);
  const Tensor taken = tc::index_select(merged_view(self, p), 0, tc::reshape(p.positions, {-1}));
  const Tensor front = tc::reshape(taken, front_shape(p));
  return p.insert_at ? tc::permute(front, result_order(p)) : front;
}

Tensor index_put(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                 bool accumulate) {
  const char* op = "index_put";
  TC_CHECK_TYPE(values.dtype() == self.dtype(), op, ": argument 'values' expected dtype ", self.dtype(),
                " (self's), got ", values.dtype());
  const IndexPlan p = plan_index(op, self, indices);
  if (!p.any) return accumulate ? tc::add(self, values) : tc::clone(tc::expand(values, self.sizes()));
  // values broadcast to the shape self[indices] has, then brought to [B..., rest...].
  const std::vector<int64_t> order = result_order(p);
  const DimVector front = front_shape(p);
  DimVector result_shape;
  for (int64_t o : order) result_shape.push_back(front[size_t(o)]);
  TC_CHECK_ARG(values.dim() <= int64_t(result_shape.size()), op, ": argument 'values' of shape ", values.sizes(),
               " cannot broadcast to the indexed shape ", result_shape);
  broadcast_shapes(values.sizes(), result_shape, op);  // throws, naming the op, unless values fit
  Tensor v = tc::expand(values, result_shape);
  if (p.insert_at) {
    std::vector<int64_t> inverse(order.size());
    for (size_t i = 0; i < order.size(); ++i) inverse[size_t(order[i])] = int64_t(i);
    v = tc::permute(v, inverse);
  }
  DimVector slices{checked_numel(p.broadcast, op)};
  for (int64_t r : p.rest) slices.push_back(r);
  v = tc::reshape(v, slices);
  const Tensor pos = tc::reshape(p.positions, {-1});
  const Tensor base = merged_view(self, p);
  const Tensor written = accumulate ? tc::index_add(base, 0, pos, v) : tc::index_copy(base, 0, pos, v);
  // Back to self's layout: unmerge, then undo the permutation.
  DimVector permuted;
  for (int64_t d : p.perm) permuted.push_back(self.size(d));
  std::vector<int64_t> undo(p.perm.size());
  for (size_t i = 0; i < p.perm.size(); ++i) undo[size_t(p.perm[i])] = int64_t(i);
  return tc::permute(tc::reshape(written, permuted), undo);
}

Tensor& index_put_(Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                   bool accumulate) {
  return self.copy_(tc::index_put(self, indices, values, accumulate));
}

}  // namespace tc::native
