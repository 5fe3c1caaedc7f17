// SPDX-License-Identifier: BSD-3-Clause
// Embedding kernels: embedding (a row gather, index_select on dim 0 of a 2-D
// weight, for indices of any shape) and embedding_dense_backward (the
// scatter-add of the gradient rows into a num_weights x D gradient), with
// ATen's semantics:
//   - indices are int64 or int32, each in [0, num_weights) (else IndexError);
//   - padding_idx rows receive no gradient (-1: none; the forward ignores it);
//   - scale_grad_by_freq divides each row's gradient by its index's count.
// embedding is registered as CompositeExplicitAutograd like ATen's: on the
// CPU it gathers rows itself; on another device it is index_select of the
// flattened indices, reshaped.
// The backward splits the weight rows over threads: each thread scans every
// index and accumulates the ones it owns, so no two threads write one row
// and the sums do not depend on the thread count.
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/parallel.h"
#include "core/tensor.h"
#include "cpu/index_util.h"
#include "cpu/loops.h"
#include "tensorc_gen/native_functions.h"  // checks the kernels match the schema
#include "tensorc_gen/ops.h"

namespace tc::native {

using cpu::opmath_t;

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool scale_grad_by_freq,
                 bool sparse) {
  const char* name = "embedding";
  TC_CHECK(!sparse, NotImplemented, name, ": argument 'sparse' = True (sparse gradients) is not supported");
  TC_CHECK_ARG(weight.dim() == 2, name,
               ": argument 'weight' expected a 2-D tensor (num_embeddings, embedding_dim), got ", weight.dim(), "-D");
  const int64_t rows = weight.size(0), D = weight.size(1);
  if (!weight.is_cpu() || !indices.is_cpu()) {
    const bool int_ok = indices.dtype() == ScalarType::Int64 || indices.dtype() == ScalarType::Int32;
    TC_CHECK_TYPE(int_ok, name, ": argument 'indices' expected an int64 or int32 tensor, got ", indices.dtype());
    const int64_t flat[1] = {indices.numel()};
    DimVector shape(indices.sizes());
    shape.push_back(D);
    const Tensor idx =
        indices.device() == weight.device() ? indices : tc::_to_copy(indices, std::nullopt, weight.device());
    return tc::reshape(tc::index_select(weight, 0, tc::reshape(idx, IntArrayRef(flat, 1))), shape.ref());
  }
  const Tensor idx = cpu::checked_indices(name, "indices", indices, rows, true);
  DimVector shape(indices.sizes());
  shape.push_back(D);
  Tensor out = empty_tensor(shape, weight.dtype(), weight.device());
  const int64_t n = idx.numel();
  if (n == 0 || D == 0) return out;
  const Tensor w = weight.contiguous();
  const size_t row_bytes = size_t(D) * w.element_size();
  const char* src = static_cast<const char*>(w.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  const int64_t* ip = idx.data_ptr<int64_t>();
  parallel_for(0, n, std::max<int64_t>(1, kGrainSize / D), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      std::memcpy(dst + size_t(i) * row_bytes, src + size_t(ip[i]) * row_bytes, row_bytes);
  });
  return out;
}

Tensor embedding_dense_backward_cpu(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                    int64_t padding_idx, bool scale_grad_by_freq) {
  const char* name = "embedding_dense_backward";
  TC_CHECK_ARG(num_weights >= 0, name, ": argument 'num_weights' expected a non-negative count, got ", num_weights);
  TC_CHECK_TYPE(is_floating(grad_output.dtype()), name,
                ": argument 'grad_output' expected a floating point tensor, got ", grad_output.dtype());
  TC_CHECK_ARG(grad_output.dim() >= 1, name, ": argument 'grad_output' expected at least 1 dim, got 0-dim");
  const int64_t D = grad_output.size(-1);
  const Tensor idx = cpu::checked_indices(name, "indices", indices, num_weights, true);
  const int64_t n = idx.numel();
  TC_CHECK_ARG(grad_output.numel() == n * D, name, ": argument 'grad_output' expected indices.shape + [", D, "] (",
               n * D, " elements), got shape ", grad_output.sizes());
  const ScalarType dt = grad_output.dtype();
  Tensor grad_weight = tc::zeros({num_weights, D}, dt, grad_output.device());
  if (n == 0 || D == 0) return grad_weight;
  const int64_t* ip = idx.data_ptr<int64_t>();
  std::vector<int64_t> counts;
  if (scale_grad_by_freq) {
    counts.assign(size_t(num_weights), 0);
    for (int64_t i = 0; i < n; ++i) ++counts[size_t(ip[i])];
  }
  const Tensor g = grad_output.contiguous();
  TC_DISPATCH_FLOATING_TYPES(dt, name, [&] {
    using acc = opmath_t<scalar_t>;
    const scalar_t* gp = g.data_ptr<scalar_t>();
    scalar_t* out = grad_weight.data_ptr<scalar_t>();
    // Rows owned by this thread accumulate in the compute type, then round once.
    const int64_t grain = n * D < kGrainSize ? num_weights : 1;  // every thread scans all n indices
    parallel_for(0, num_weights, grain, [&](int64_t b, int64_t e) {
      std::vector<acc> sums(size_t((e - b) * D), acc(0));
      for (int64_t i = 0; i < n; ++i) {
        const int64_t k = ip[i];
        if (k < b || k >= e || k == padding_idx) continue;
        const acc scale = scale_grad_by_freq ? acc(1) / acc(counts[size_t(k)]) : acc(1);
        acc* row = sums.data() + (k - b) * D;
        const scalar_t* gr = gp + i * D;
        for (int64_t j = 0; j < D; ++j) row[j] += acc(gr[j]) * scale;
      }
      for (int64_t j = 0, m = (e - b) * D; j < m; ++j) out[b * D + j] = scalar_t(sums[size_t(j)]);
    });
  });
  return grad_weight;
}

}  // namespace tc::native
