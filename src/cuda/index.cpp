// SPDX-License-Identifier: BSD-3-Clause
// The index ops on CUDA: gather and index_select (the driver's gather loop),
// scatter, scatter_add, index_copy and index_add (its scatter loop, atomic
// for the adds), and embedding's backward (an index_add). The CPU's argument
// rules are shared through structured/index.h; indices are checked on the
// device (one reduction and a read of two numbers; the exact message comes
// from the CPU's check). index_select is a gather whose index varies along
// `dim` only; index_copy / index_add are scatters whose index does. The
// writing ops fill a fresh contiguous copy of self, as on the CPU, so a
// failed call leaves nothing half-written. Where an index repeats, scatter
// and index_copy keep one of the writes (which one is unspecified on CUDA).
#include "core/shape.h"
#include "cpu/index_util.h"
#include "cuda/runtime.h"
#include "structured/index.h"
#include "tensorc_gen/native_functions.h"
#include "tensorc_gen/ops.h"

namespace tc::native {
namespace {

// Every index in [0, bound), checked where the indices live; an offender is
// reported by the CPU's check of a host copy, which names its position.
void check_index_values(const char* op, const Tensor& index, int64_t bound, bool allow_int32,
                        const char* arg = "index") {
  if (index.numel() == 0) return;
  const int64_t lo = tc::amin(index).item().to_int(), hi = tc::amax(index).item().to_int();
  if (lo >= 0 && hi < bound) return;
  cpu::checked_indices(op, arg, tc::_to_copy(index, std::nullopt, Device(DeviceType::CPU)), bound, allow_int32);
  TC_FAIL(Internal, "internal error: ", op, ": indices in [", lo, ", ", hi, "] passed the check against ", bound);
}

// Three operands walked over `shape` (byte strides each), size-1 dims
// dropped and dims all three walk contiguously merged. NotImplemented naming
// `op` beyond the driver's kMaxDims.
cuda::Geometry three_operand_geometry(const char* op, IntArrayRef shape, const DimVector& s0, const DimVector& s1,
                                      const DimVector& s2) {
  TC_CHECK(int64_t(shape.size()) <= cuda::kMaxDims, NotImplemented, op, ": CUDA index loops take at most ",
           cuda::kMaxDims, " dims, got ", shape.size());
  cuda::Geometry g;
  g.numel = 1;
  int n = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    const int64_t size = shape[d];
    g.numel *= size;
    if (size == 1) continue;
    if (n > 0 && g.strides[0][n - 1] == s0[d] * size && g.strides[1][n - 1] == s1[d] * size &&
        g.strides[2][n - 1] == s2[d] * size) {
      g.sizes[n - 1] *= size;  // the outer dim walks on into this one
    } else {
      g.sizes[n++] = size;
    }
    g.strides[0][n - 1] = s0[d];
    g.strides[1][n - 1] = s1[d];
    g.strides[2][n - 1] = s2[d];
  }
  g.ndim = n;
  return g;
}

// out (contiguous, `shape`) = self at `index` along dim; `index_strides` are
// the index's element strides over out's shape (0 where it repeats).
void launch_gather(const char* op, const Tensor& self, int64_t dim, const Tensor& index, IntArrayRef index_strides,
                   Tensor& out) {
  const int64_t es = int64_t(self.element_size());
  DimVector out_bytes(size_t(out.dim())), self_bytes(size_t(out.dim())), index_bytes(size_t(out.dim()));
  for (int64_t d = 0; d < out.dim(); ++d) {
    out_bytes[size_t(d)] = out.stride(d) * es;
    self_bytes[size_t(d)] = d == dim || self.dim() == 0 ? 0 : self.stride(d) * es;
    index_bytes[size_t(d)] = index_strides[size_t(d)] * 8;
  }
  const cuda::Geometry g = three_operand_geometry(op, out.sizes(), out_bytes, self_bytes, index_bytes);
  cuda::GatherArgs a;
  a.out = static_cast<char*>(out.data_ptr());
  a.self = static_cast<const char*>(self.data_ptr());
  a.index = static_cast<const char*>(index.data_ptr());
  a.elem_size = int(es);
  a.dim_stride = self.dim() ? self.stride(dim) * es : 0;
  a.dim_size = self.dim() ? self.size(dim) : 1;
  const int dev = out.device().index;
  const cuda::DriverApi& drv = cuda::driver(op);
  cuda::DeviceGuard guard(dev);
  cuda::check(drv.launch_gather(&a, &g, cuda::current_stream(dev)), op, "the gather kernel's launch");
}

// The index as int64 on self's device: a 0-dim CPU index may come with a
// CUDA self (it counts as a scalar in the device check), and the kernel reads
// device memory only.
Tensor device_index(const Tensor& index, const Tensor& self) {
  if (index.dtype() == ScalarType::Int64 && index.device() == self.device()) return index;
  return tc::_to_copy(index, ScalarType::Int64, self.device());
}

// Element strides of t over `nd` dims, `dim`'s zeroed when skip_dim (the
// index supplies that coordinate); all zeros unless t has nd dims.
DimVector walk_strides(const Tensor& t, int64_t nd, int64_t dim, bool skip_dim) {
  DimVector s(size_t(nd), 0);
  if (t.dim() == nd)
    for (int64_t d = 0; d < nd; ++d) s[size_t(d)] = skip_dim && d == dim ? 0 : t.stride(d);
  return s;
}

// out (self's contiguous copy, on its device) receives, for every position p
// of `shape`, src at p (or `value`) at p's out position moved along dim to
// index[p]: assigned or added (times alpha). Element strides per operand.
void launch_scatter(const char* op, Tensor& out, int64_t dim, IntArrayRef shape, IntArrayRef out_strides,
                    const Tensor* src, IntArrayRef src_strides, const Tensor& idx, IntArrayRef index_strides,
                    cuda::ScatterReduce reduce, const Scalar& value, const Scalar& alpha) {
  const int64_t es_out = int64_t(out.element_size()), es_src = src ? int64_t(src->element_size()) : 0;
  const size_t nd = shape.size();
  DimVector out_bytes(nd), src_bytes(nd), index_bytes(nd);
  for (size_t d = 0; d < nd; ++d) {
    out_bytes[d] = out_strides[d] * es_out;
    src_bytes[d] = src ? src_strides[d] * es_src : 0;
    index_bytes[d] = index_strides[d] * 8;
  }
  const cuda::Geometry g = three_operand_geometry(op, shape, out_bytes, src_bytes, index_bytes);
  if (g.numel == 0) return;
  cuda::ScatterArgs a;
  a.out = static_cast<char*>(out.data_ptr());
  a.src = src ? static_cast<const char*>(src->data_ptr()) : nullptr;
  a.index = static_cast<const char*>(idx.data_ptr());
  a.dtype = int(out.dtype());
  a.src_dtype = src ? int(src->dtype()) : a.dtype;
  a.reduce = int(reduce);
  a.dim_stride = out.dim() ? out.stride(dim) * es_out : 0;
  a.dim_size = out.dim() ? out.size(dim) : 1;
  if (is_floating(out.dtype())) {
    a.value = value.to_double();
    a.alpha = alpha.to_double();
  } else {
    // A bool out takes value != 0 (0.5 is true), as the CPU's value.to<bool>().
    a.ivalue = out.dtype() == ScalarType::Bool || value.is_bool() ? int64_t(value.to_bool()) : value.to_int();
    a.ialpha = alpha.is_bool() ? int64_t(alpha.to_bool()) : alpha.to_int();
  }
  const int dev = out.device().index;
  const cuda::DriverApi& drv = cuda::driver(op);
  cuda::DeviceGuard guard(dev);
  cuda::check(drv.launch_scatter(&a, &g, cuda::current_stream(dev)), op, "the scatter kernel's launch");
}

// A fresh contiguous copy of self on its device: what the writing ops fill.
Tensor contiguous_copy(const Tensor& self) {
  Tensor out = cuda::empty_on(self.sizes(), self.dtype(), self.device());
  return tc::copy_(out, self);
}

void check_same_device(const char* op, const char* arg, const Tensor& t, const Tensor& self) {
  TC_CHECK(t.device() == self.device(), Device, op, ": argument '", arg, "' is on ", t.device(),
           ", expected self's device ", self.device());
}

Tensor scatter_impl(const char* op, const Tensor& self, int64_t dim_, const Tensor& index, const Tensor* src,
                    const Scalar& value, cuda::ScatterReduce reduce) {
  const int64_t dim = wrap_dim(dim_, self.dim(), op);
  structured::check_element_index(op, self, dim, index, src);
  TC_CHECK_TYPE(index.dtype() == ScalarType::Int64, op, ": argument 'index' expected an int64 tensor, got ",
                index.dtype());
  if (src) check_same_device(op, "src", *src, self);
  check_index_values(op, index, self.dim() ? self.size(dim) : 1, false);
  Tensor out = contiguous_copy(self);
  if (index.numel() == 0) return out;
  const Tensor idx = device_index(index, self);
  const int64_t nd = idx.dim();
  launch_scatter(op, out, dim, idx.sizes(), walk_strides(out, nd, dim, true).ref(), src,
                 src ? walk_strides(*src, nd, dim, false).ref() : IntArrayRef(), idx,
                 walk_strides(idx, nd, dim, false).ref(), reduce, value, Scalar(int64_t(1)));
  return out;
}

// index_copy / index_add: slices of source go to positions `index` of dim.
Tensor index_write(const char* op, const Tensor& self, int64_t dim_, const Tensor& index, const Tensor& source,
                   bool allow_int32, cuda::ScatterReduce reduce, const Scalar& alpha) {
  const int64_t dim = wrap_dim(dim_, self.dim(), op);
  structured::check_slice_source(op, self, dim, index, source);
  const bool ok = index.dtype() == ScalarType::Int64 || (allow_int32 && index.dtype() == ScalarType::Int32);
  TC_CHECK_TYPE(ok, op, ": argument 'index' expected an int64", allow_int32 ? " or int32" : "", " tensor, got ",
                index.dtype());
  check_same_device(op, "source", source, self);
  check_index_values(op, index, self.dim() ? self.size(dim) : 1, allow_int32);
  Tensor out = contiguous_copy(self);
  if (index.numel() == 0 || out.numel() == 0) return out;
  const Tensor idx = device_index(index, self);
  const int64_t nd = source.dim();
  // The index varies along dim only (a 0-dim self: along the source's one dim).
  DimVector index_strides(size_t(nd), 0);
  if (nd > 0) index_strides[size_t(self.dim() ? dim : 0)] = idx.dim() ? idx.stride(0) : 0;
  launch_scatter(op, out, dim, source.sizes(), walk_strides(out, nd, dim, true).ref(), &source, source.strides(), idx,
                 index_strides.ref(), reduce, Scalar(int64_t(0)), alpha);
  return out;
}

}  // namespace

Tensor gather_cuda(const Tensor& self, int64_t dim_, const Tensor& index, bool sparse_grad) {
  const char* op = "gather";
  TC_CHECK(!sparse_grad, NotImplemented, op, ": argument 'sparse_grad' = True (sparse gradients) is not supported");
  const int64_t dim = wrap_dim(dim_, self.dim(), op);
  structured::check_element_index(op, self, dim, index, nullptr);
  TC_CHECK_TYPE(index.dtype() == ScalarType::Int64, op, ": argument 'index' expected an int64 tensor, got ",
                index.dtype());
  check_index_values(op, index, self.dim() ? self.size(dim) : 1, false);
  Tensor out = cuda::empty_on(index.sizes(), self.dtype(), self.device());
  if (out.numel() == 0) return out;
  const Tensor idx = device_index(index, self);
  launch_gather(op, self, dim, idx, idx.strides(), out);
  return out;
}

Tensor index_select_cuda(const Tensor& self, int64_t dim_, const Tensor& index) {
  const char* op = "index_select";
  int64_t dim = 0;
  const DimVector shape = structured::index_select_shape(op, self, dim_, index, &dim);
  TC_CHECK_TYPE(index.dtype() == ScalarType::Int64 || index.dtype() == ScalarType::Int32, op,
                ": argument 'index' expected an int64 or int32 tensor, got ", index.dtype());
  check_index_values(op, index, self.dim() ? self.size(dim) : 1, true);
  const Tensor idx = device_index(index, self);
  Tensor out = cuda::empty_on(shape, self.dtype(), self.device());
  if (out.numel() == 0) return out;
  // The index along dim, the same for every other coordinate.
  DimVector index_strides(shape.size(), 0);
  if (!shape.empty()) index_strides[size_t(self.dim() ? dim : 0)] = idx.dim() ? idx.stride(0) : 0;
  launch_gather(op, self, self.dim() ? dim : 0, idx, index_strides.ref(), out);
  return out;
}

}  // namespace tc::native

namespace tc::native {

Tensor scatter_src_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl("scatter", self, dim, index, &src, Scalar(int64_t(0)), cuda::ScatterReduce::Assign);
}
Tensor scatter_value_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return scatter_impl("scatter", self, dim, index, nullptr, value, cuda::ScatterReduce::Assign);
}
Tensor scatter_add_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl("scatter_add", self, dim, index, &src, Scalar(int64_t(0)), cuda::ScatterReduce::Add);
}

Tensor index_copy_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  return index_write("index_copy", self, dim, index, source, false, cuda::ScatterReduce::Assign, Scalar(int64_t(1)));
}
Tensor index_add_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  const char* op = "index_add";
  structured::check_slice_source(op, self, wrap_dim(dim, self.dim(), op), index, source);  // first, as on the CPU
  TC_CHECK_TYPE(self.dtype() != ScalarType::Bool, op, ": argument 'self' of dtype bool is not supported");
  TC_CHECK_TYPE(is_floating(self.dtype()) || !alpha.is_floating_point(), op, ": argument 'alpha' is a float (",
                alpha.to_double(), ") but self is ", self.dtype());
  return index_write(op, self, dim, index, source, true, cuda::ScatterReduce::Add, alpha);
}

// The gradient of embedding's weight: each row of grad_output added into the
// row its index names (index_add, in float32 for float16 / bfloat16 as the
// CPU's sums), except rows of padding_idx; scale_grad_by_freq divides each
// by how often its index occurs. Composed of dispatched ops.
Tensor embedding_dense_backward_cuda(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                     int64_t padding_idx, bool scale_grad_by_freq) {
  const char* name = "embedding_dense_backward";
  TC_CHECK_ARG(num_weights >= 0, name, ": argument 'num_weights' expected a non-negative count, got ", num_weights);
  TC_CHECK_TYPE(is_floating(grad_output.dtype()), name,
                ": argument 'grad_output' expected a floating point tensor, got ", grad_output.dtype());
  TC_CHECK_ARG(grad_output.dim() >= 1, name, ": argument 'grad_output' expected at least 1 dim, got 0-dim");
  const bool int_ok = indices.dtype() == ScalarType::Int64 || indices.dtype() == ScalarType::Int32;
  TC_CHECK_TYPE(int_ok, name, ": argument 'indices' expected an int64 or int32 tensor, got ", indices.dtype());
  check_index_values(name, indices, num_weights, true, "indices");
  const int64_t D = grad_output.size(-1), n = indices.numel();
  TC_CHECK_ARG(grad_output.numel() == n * D, name, ": argument 'grad_output' expected indices.shape + [", D, "] (",
               n * D, " elements), got shape ", grad_output.sizes());
  const ScalarType dt = grad_output.dtype();
  const bool reduced = dt == ScalarType::Float16 || dt == ScalarType::BFloat16;
  const ScalarType acc = reduced ? ScalarType::Float32 : dt;
  const Device device = grad_output.device();
  if (n == 0 || D == 0) return tc::zeros({num_weights, D}, dt, device);
  const int64_t rows_shape[2] = {n, D}, flat[1] = {n};
  Tensor rows = tc::reshape(grad_output, IntArrayRef(rows_shape, 2));
  if (reduced) rows = tc::_to_copy(rows, acc);
  const Tensor idx = tc::_to_copy(tc::reshape(indices, IntArrayRef(flat, 1)), ScalarType::Int64, device);
  const Tensor zero = tc::zeros(IntArrayRef(), acc, Device(DeviceType::CPU));  // a host scalar
  if (padding_idx >= 0 && padding_idx < num_weights)  // rows of padding_idx give nothing (not even NaN)
    rows = tc::where(tc::unsqueeze(tc::ne(idx, Scalar(padding_idx)), 1), rows, zero);
  if (scale_grad_by_freq) {
    const Tensor counts = tc::index_add(tc::zeros({num_weights}, acc, device), 0, idx,
                                        tc::ones(IntArrayRef(flat, 1), acc, device), Scalar(int64_t(1)));
    rows = tc::mul(rows, tc::unsqueeze(tc::reciprocal(tc::index_select(counts, 0, idx)), 1));
  }
  const Tensor grad_weight = tc::index_add(tc::zeros({num_weights, D}, acc, device), 0, idx, rows, Scalar(int64_t(1)));
  return reduced ? tc::_to_copy(grad_weight, dt) : grad_weight;
}

// nonzero, composed of dispatched ops: the non-zero mask, its count (read
// back: the result's size depends on it, as in PyTorch), each hit's output
// row from a cumsum of the mask, the flat positions scattered to their rows
// (misses go to a spare slot past the end), then the coordinates.
Tensor nonzero_cuda(const Tensor& self) {
  const int64_t n = self.numel(), nd = self.dim();
  const Device device = self.device();
  const int64_t flat_shape[1] = {n};
  const Tensor hit = tc::reshape(tc::ne(self, Scalar(int64_t(0))), IntArrayRef(flat_shape, 1));
  const int64_t count = n == 0 ? 0 : tc::sum(hit).item().to_int();
  if (count == 0 || nd == 0) return tc::empty({count, nd}, ScalarType::Int64, device);
  const Tensor rows = tc::sub(tc::cumsum(hit, 0, ScalarType::Int64), Scalar(int64_t(1)));
  const Tensor spare = tc::full(IntArrayRef(), Scalar(count), ScalarType::Int64, Device(DeviceType::CPU));
  const Tensor positions = tc::arange(Scalar(n), ScalarType::Int64, device);
  Tensor flat = tc::zeros({count + 1}, ScalarType::Int64, device);
  flat = tc::narrow(tc::scatter(flat, 0, tc::where(hit, rows, spare), positions), 0, 0, count);
  std::vector<Tensor> columns(static_cast<size_t>(nd));
  for (int64_t d = nd - 1; d >= 0; --d) {
    const Scalar size(self.size(d));
    columns[size_t(d)] = tc::remainder(flat, size);
    flat = tc::floor_divide(flat, size);
  }
  return tc::stack(columns, 1);
}

}  // namespace tc::native
