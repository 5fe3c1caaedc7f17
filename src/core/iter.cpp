// SPDX-License-Identifier: BSD-3-Clause
#include "core/iter.h"

#include <cstring>
#include <type_traits>

#include "core/device_hooks.h"
#include "core/overlap.h"
#include "core/promotion.h"
#include "core/shape.h"

namespace tc {
namespace {

// element_size() without the out-of-line call: the planner asks often.
constexpr int8_t kElementSize[kNumScalarTypes] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
inline int64_t elem_size(ScalarType t) { return kElementSize[int(t)]; }

// IntArrayRef::equals goes through memcmp; shapes are short.
inline bool same_sizes(IntArrayRef a, IntArrayRef b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------
// Configuration

void TensorIter::bad_operand_order() const {
  TC_FAIL(Internal, "internal error: ", op_, ": more than ", kMaxOperands,
          " operands, or an output added after an input");
}

// ---------------------------------------------------------------------------
// build()

void TensorIter::build() {
  compute_device();
  compute_shape();
  compute_dtypes();
  prepare_outputs();
  check_overlap();
  convert_inputs();
  // Every check has passed: only now may a caller's output change shape.
  IntArrayRef bshape(bshape_, size_t(bndim_));
  for (int i = 0; i < nouts_; ++i)
    if (ops_[i].resize) ops_[i].out->impl()->resize_contiguous(bshape);
  if (!try_contiguous_layout()) general_layout();
}

// The iteration's device: that of the first tensor operand that is not a
// 0-dim CPU input (those are scalars and mix with any device, as in PyTorch),
// CPU when there is none. Every other tensor must be on it.
void TensorIter::compute_device() {
  int first = -1;
  device_ = Device(DeviceType::CPU);
  for (int i = 0; i < nops_; ++i) {
    const Operand& o = ops_[i];
    if (o.is_number) continue;
    const Tensor* t = o.is_output ? o.out : o.tensor;
    if (o.is_output && !t->defined()) continue;
    TC_CHECK_ARG(t->defined(), op_, ": expected a defined tensor for input ", i - nouts_);
    if (!o.is_output && t->dim() == 0 && t->is_cpu()) continue;
    if (first < 0) {
      first = i;
      device_ = t->device();
      continue;
    }
    if (__builtin_expect(t->device() == device_, 1)) continue;
    auto role = [&](int k) { return k < nouts_ ? "output " : "input "; };
    auto index = [&](int k) { return k < nouts_ ? k : k - nouts_; };
    TC_FAIL(Device, op_, ": expected all tensors to be on the same device, but found at least two devices, ", device_,
            " (", role(first), index(first), ") and ", t->device(), " (", role(i), index(i), ")");
  }
}

// Broadcast shape over the inputs (and over defined outputs when they are not
// resized). Also sizes the geometry buffers.
void TensorIter::compute_shape() {
  auto participates = [&](const Operand& o) -> const Tensor* {
    if (o.is_number) return nullptr;
    if (!o.is_output) return o.tensor;
    return (!resize_outputs_ && o.out->defined()) ? o.out : nullptr;
  };
  int nd = 0;
  for (int i = 0; i < nops_; ++i)
    if (const Tensor* t = participates(ops_[i])) nd = std::max(nd, int(t->dim()));
  bndim_ = nd;
  const int cap = std::max(nd, 1);
  const size_t need = size_t(cap) * size_t(4 + nops_);
  int64_t* buf = inline_;
  if (need > sizeof(inline_) / sizeof(int64_t)) {
    heap_.reset(new int64_t[need]);
    buf = heap_.get();
  }
  bshape_ = buf;
  shape_ = buf + cap;
  orig_ = buf + 2 * cap;
  scratch_ = buf + 3 * cap;
  strides_ = buf + 4 * cap;

  // Common case first: every participating tensor has the same shape.
  const Tensor* first = nullptr;
  bool all_same = true;
  for (int i = 0; i < nops_ && all_same; ++i) {
    const Tensor* t = participates(ops_[i]);
    if (!t) continue;
    if (!first)
      first = t;
    else
      all_same = same_sizes(t->sizes(), first->sizes());
  }
  if (first && all_same) {
    for (int d = 0; d < nd; ++d) bshape_[d] = first->sizes()[size_t(d)];
    numel_ = first->numel();
    return;
  }
  for (int d = 0; d < nd; ++d) bshape_[d] = 1;
  for (int i = 0; i < nops_; ++i) {
    const Tensor* t = participates(ops_[i]);
    if (!t) continue;
    IntArrayRef sz = t->sizes();
    const int off = nd - int(sz.size());
    for (size_t j = 0; j < sz.size(); ++j) {
      int64_t& b = bshape_[off + int(j)];
      if (b == sz[j] || sz[j] == 1) continue;
      if (b == 1) {
        b = sz[j];
        continue;
      }
      // Mismatch: let the shared helper phrase the error.
      broadcast_shapes(IntArrayRef(bshape_, size_t(nd)), sz, op_);
      TC_FAIL(InvalidArgument, op_, ": shapes cannot be broadcast together");
    }
  }
  numel_ = checked_numel(IntArrayRef(bshape_, size_t(nd)), op_);
}

void TensorIter::compute_dtypes() {
  if (compute_ != ScalarType::Undefined) {
    common_ = compute_;
  } else if (promote_) {
    ResultTypeState st;
    for (int i = nouts_; i < nops_; ++i) {
      const Operand& o = ops_[i];
      if (o.fixed != ScalarType::Undefined) continue;
      if (o.is_number)
        st.add(o.number);
      else
        st.add(*o.tensor);
    }
    common_ = st.result();
    if (int_to_float_ && common_ != ScalarType::Undefined && !is_floating(common_)) common_ = ScalarType::Float32;
  }
  ScalarType first_input = ScalarType::Undefined;
  for (int i = nouts_; i < nops_; ++i) {
    Operand& o = ops_[i];
    if (o.fixed != ScalarType::Undefined)
      o.dtype = o.fixed;
    else if (common_ != ScalarType::Undefined)
      o.dtype = common_;
    else if (o.is_number)  // a number keeps full precision when nothing else decides
      o.dtype = o.number.is_floating_point() ? ScalarType::Float64
                : o.number.is_integral()     ? ScalarType::Int64
                                             : ScalarType::Bool;
    else
      o.dtype = o.tensor->dtype();
    if (first_input == ScalarType::Undefined) first_input = o.dtype;
  }
  // A device loop reads each tensor in its own dtype and converts per
  // element (ATen's dynamic casting): no converted copies on the device.
  // CPU scalars of a device iteration stay in the compute dtype: the loop
  // receives them by value.
  if (!device_.is_cpu())
    for (int i = nouts_; i < nops_; ++i)
      if (!ops_[i].is_number && !ops_[i].tensor->is_cpu()) ops_[i].dtype = ops_[i].tensor->dtype();
  for (int i = 0; i < nouts_; ++i) {
    Operand& o = ops_[i];
    const bool defined = o.out->defined();
    ScalarType loop = out_dtype_ != ScalarType::Undefined ? out_dtype_
                      : common_ != ScalarType::Undefined  ? common_
                      : defined                           ? o.out->dtype()
                                                          : first_input;
    TC_INTERNAL_ASSERT(loop != ScalarType::Undefined, "(", op_, ": no dtype for output ", i, ")");
    o.dtype = loop;
    if (!defined) {
      o.kind = OutKind::Allocate;
    } else if (o.out->dtype() != loop) {
      TC_CHECK_TYPE(!check_cast_ || can_cast(loop, o.out->dtype()), op_, ": result type ", loop,
                    " can't be cast to the desired output type ", o.out->dtype());
      if (device_.is_cpu()) {
        o.kind = OutKind::Temp;
      } else {
        o.dtype = o.out->dtype();  // the device loop converts as it writes
      }
    }
  }
}

// Shape checks for defined outputs. An out= of another shape is resized
// (after every check) only when it is empty, as PyTorch's resize_output
// prefers; a non-empty one of the wrong shape is an error, never resized
// silently, and an output that is also an input never changes shape.
void TensorIter::prepare_outputs() {
  IntArrayRef bshape(bshape_, size_t(bndim_));
  for (int i = 0; i < nouts_; ++i) {
    Operand& o = ops_[i];
    if (o.kind == OutKind::Allocate || same_sizes(o.out->sizes(), bshape)) continue;
    bool is_input = false;
    for (int j = nouts_; j < nops_; ++j)
      if (ops_[j].tensor && ops_[j].tensor->is_same(*o.out)) is_input = true;
    TC_CHECK_ARG(resize_outputs_ && !is_input, op_, ": output with shape ", o.out->sizes(),
                 " doesn't match the broadcast shape ", bshape);
    TC_CHECK_ARG(o.out->numel() == 0, op_, ": argument 'out' has shape ", o.out->sizes(), " but the result has shape ",
                 bshape, " (pass an empty tensor to have it resized)");
    o.resize = true;
  }
}

namespace {

bool same_layout(const Tensor& a, const Tensor& b) {
  return a.data_ptr() == b.data_ptr() && a.dtype() == b.dtype() && same_sizes(a.sizes(), b.sizes()) &&
         same_sizes(a.strides(), b.strides());
}

}  // namespace

// Writing through an output that aliases itself is refused, as PyTorch does,
// and so is an input that shares memory with a written output other than
// element for element (x.add_(x.T), out= over part of an input): the result
// would depend on the loop's order. When the exact search gives up, the
// input is read through a copy instead. Outputs still to be resized are
// checked in the contiguous layout they will get.
void TensorIter::check_overlap() {
  IntArrayRef bshape(bshape_, size_t(bndim_));
  DimVector resized_strides;
  for (int i = 0; i < nouts_; ++i) {
    const Operand& o = ops_[i];
    if (o.kind == OutKind::Allocate) continue;
    const Tensor& out = *o.out;
    for (int64_t d = 0; check_self_overlap_ && !o.resize && d < out.dim(); ++d) {
      TC_CHECK_ARG(!(out.sizes()[size_t(d)] > 1 && out.strides()[size_t(d)] == 0), op_,
                   ": unsupported operation: more than one element of the written-to tensor refers to a single "
                   "memory location. Please clone() the tensor before performing the operation.");
    }
    MemLayout w{out.storage_offset(), out.sizes(), out.strides(), int64_t(out.element_size())};
    if (o.resize) {
      resized_strides = contiguous_strides(bshape);
      w.sizes = bshape;
      w.strides = resized_strides;
    }
    for (int j = nouts_; j < nops_; ++j) {
      Operand& in_op = ops_[j];
      const Tensor* in = in_op.tensor;
      if (in_op.is_number || in->storage().get() != out.storage().get()) continue;
      if (!o.resize && (in->is_same(out) || same_layout(*in, out))) continue;  // element for element
      MemLayout r{in->storage_offset(), in->sizes(), in->strides(), int64_t(in->element_size())};
      const Overlap ov = memory_overlap(w, r);
      TC_CHECK_ARG(ov != Overlap::Shared, op_,
                   ": unsupported operation: some elements of the input tensor and the written-to tensor refer "
                   "to a single memory location. Please clone() the tensor before performing the operation.");
      if (ov == Overlap::Unknown) in_op.aliased = true;
    }
  }
}

// One-element inputs (and numbers) become a stride-0 value in the loop dtype;
// larger inputs of another dtype are cast into a temporary.
void TensorIter::convert_inputs() {
  for (int i = nouts_; i < nops_; ++i) {
    Operand& o = ops_[i];
    if (o.is_number) {
      write_scalar(o.buf, o.dtype, o.number);
      o.data = reinterpret_cast<char*>(o.buf);
      o.stride0 = true;
      continue;
    }
    const Tensor& t = *o.tensor;
    if (!device_.is_cpu()) {
      if (t.is_cpu()) {  // a 0-dim CPU tensor: a value the device loop takes from the host
        write_scalar(o.buf, o.dtype, read_scalar(t.data_ptr(), t.dtype()));
        o.data = reinterpret_cast<char*>(o.buf);
        o.stride0 = true;
        continue;
      }
      // Device memory is never read here (no host synchronisation), not even
      // one element, and not copied: where the overlap check could not
      // decide, the op is refused instead of computed through a copy.
      TC_CHECK_ARG(!o.aliased, op_,
                   ": unsupported operation: an input shares memory with the written-to tensor in a way that "
                   "cannot be checked on ",
                   device_, ". Please clone() the tensor before performing the operation.");
      o.data = static_cast<char*>(t.data_ptr());
      continue;
    }
    if (t.numel() == 1) {
      // Copied, not pointed at: the output may be this very element.
      o.stride0 = true;
      if (t.dtype() == o.dtype)
        std::memcpy(o.buf, t.data_ptr(), size_t(elem_size(o.dtype)));
      else
        write_scalar(o.buf, o.dtype, read_scalar(t.data_ptr(), t.dtype()));
      o.data = reinterpret_cast<char*>(o.buf);
    } else if (t.dtype() != o.dtype || o.aliased) {
      o.temp = empty_tensor(t.sizes(), o.dtype);
      cast_copy(o.temp, t, op_);
      o.data = static_cast<char*>(o.temp.data_ptr());
    } else {
      o.data = static_cast<char*>(t.data_ptr());
    }
  }
}

// The tensor whose memory the loop reads or writes for operand `o`, or null
// when that is not a caller-visible layout yet (numbers, outputs to allocate).
const Tensor* TensorIter::loop_tensor(const Operand& o) const {
  if (o.stride0) return nullptr;
  if (o.is_output) return o.kind == OutKind::Direct ? o.out : nullptr;
  return o.temp.defined() ? &o.temp : o.tensor;
}

// Everything dense and of the broadcast shape: one flat run.
bool TensorIter::try_contiguous_layout() {
  IntArrayRef bshape(bshape_, size_t(bndim_));
  for (int i = 0; i < nops_; ++i) {
    const Tensor* t = loop_tensor(ops_[i]);
    if (t && !(t->is_contiguous() && same_sizes(t->sizes(), bshape))) return false;
  }
  ndim_ = 1;
  shape_[0] = numel_;
  orig_[0] = 0;
  for (int i = 0; i < nops_; ++i) {
    Operand& o = ops_[i];
    if (o.is_output && o.kind != OutKind::Direct) {
      DeviceGuard guard(device_);  // allocators allocate on the current device
      Tensor t = empty_tensor(bshape, o.dtype, device_);
      o.data = static_cast<char*>(t.data_ptr());
      if (o.kind == OutKind::Allocate) {
        *o.out = std::move(t);
      } else {
        o.temp = std::move(t);
        needs_finish_ = true;
      }
    } else if (o.is_output) {
      o.data = static_cast<char*>(o.out->data_ptr());
    }
    strides_[i] = o.stride0 ? 0 : elem_size(o.dtype);
  }
  return true;
}

void TensorIter::general_layout() {
  // bndim_ >= 1 here: with zero dims every operand is one dense element.
  ndim_ = bndim_;
  for (int k = 0; k < ndim_; ++k) {
    orig_[k] = ndim_ - 1 - k;
    shape_[k] = bshape_[orig_[k]];
  }
  for (int i = 0; i < nops_; ++i) {
    Operand& o = ops_[i];
    const Tensor* t = loop_tensor(o);
    if (!t) {
      for (int k = 0; k < ndim_; ++k) strides_[k * nops_ + i] = 0;
      continue;
    }
    if (o.is_output) o.data = static_cast<char*>(t->data_ptr());
    const int64_t es = elem_size(o.dtype);
    const int off = bndim_ - int(t->dim());
    for (int k = 0; k < ndim_; ++k) {
      const int td = int(orig_[k]) - off;
      int64_t s = 0;
      if (td >= 0) {
        const int64_t sz = t->sizes()[size_t(td)];
        // A size-1 dim's stride (and any stride of an empty tensor) is never
        // walked and may be huge: 0 keeps the byte stride from overflowing.
        s = (sz == 1 || numel_ == 0) ? 0 : t->strides()[size_t(td)] * es;
      }
      strides_[k * nops_ + i] = s;
    }
  }
  reorder_dims();
  for (int i = 0; i < nouts_; ++i)
    if (ops_[i].kind != OutKind::Direct) allocate_in_iteration_order(ops_[i]);
  coalesce();
}

// ATen's reorder_dimensions: an insertion sort putting the dim with the
// smallest stride innermost, outputs' layout first, broadcast dims neutral.
void TensorIter::reorder_dims() {
  if (ndim_ <= 1) return;
  int64_t* perm = scratch_;
  for (int k = 0; k < ndim_; ++k) perm[k] = k;
  auto should_swap = [&](int64_t d0, int64_t d1) -> int {
    for (int i = 0; i < nops_; ++i) {
      const Operand& o = ops_[i];
      if (o.stride0 || (o.is_output && o.kind != OutKind::Direct)) continue;
      const int64_t s0 = strides_[d0 * nops_ + i], s1 = strides_[d1 * nops_ + i];
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (shape_[d0] > shape_[d1]) return 1;
    }
    return 0;
  };
  bool changed = false;
  for (int i = 1; i < ndim_; ++i) {
    int d1 = i;
    for (int d0 = i - 1; d0 >= 0; --d0) {
      const int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
        changed = true;
      } else if (c < 0) {
        break;
      }
    }
  }
  if (!changed) return;
  // Apply perm: new dim k takes old dim perm[k]. ndim_ is small; use a
  // temporary copy on the stack when it fits.
  int64_t tmp_inline[kInlineDims * (2 + kMaxOperands)];
  std::unique_ptr<int64_t[]> tmp_heap;
  const size_t need = size_t(ndim_) * size_t(2 + nops_);
  int64_t* tmp = tmp_inline;
  if (need > sizeof(tmp_inline) / sizeof(int64_t)) {
    tmp_heap.reset(new int64_t[need]);
    tmp = tmp_heap.get();
  }
  std::memcpy(tmp, shape_, sizeof(int64_t) * size_t(ndim_));
  std::memcpy(tmp + ndim_, orig_, sizeof(int64_t) * size_t(ndim_));
  std::memcpy(tmp + 2 * ndim_, strides_, sizeof(int64_t) * size_t(ndim_ * nops_));
  for (int k = 0; k < ndim_; ++k) {
    const int64_t p = perm[k];
    shape_[k] = tmp[p];
    orig_[k] = tmp[ndim_ + p];
    for (int i = 0; i < nops_; ++i) strides_[k * nops_ + i] = tmp[2 * ndim_ + p * nops_ + i];
  }
}

// A new output dense in iteration order, so it matches the inputs' layout
// (a transposed input gives a transposed output, as in PyTorch).
void TensorIter::allocate_in_iteration_order(Operand& o) {
  int64_t running = 1;
  for (int k = 0; k < ndim_; ++k) {
    scratch_[orig_[k]] = running;
    running *= std::max<int64_t>(shape_[k], 1);
  }
  DeviceGuard guard(device_);  // allocators allocate on the current device
  Tensor t = empty_strided_tensor(IntArrayRef(bshape_, size_t(bndim_)), IntArrayRef(scratch_, size_t(bndim_)), o.dtype,
                                  device_);
  const int64_t es = elem_size(o.dtype);
  const int i = int(&o - ops_);
  for (int k = 0; k < ndim_; ++k) strides_[k * nops_ + i] = scratch_[orig_[k]] * es;
  o.data = static_cast<char*>(t.data_ptr());
  if (o.kind == OutKind::Allocate) {
    *o.out = std::move(t);
  } else {
    o.temp = std::move(t);
    needs_finish_ = true;
  }
}

// Merge neighbouring dims that every operand walks as one (ATen's coalesce).
void TensorIter::coalesce() {
  // Nothing runs over an empty iteration, whose sizes may overflow when merged.
  if (ndim_ <= 1 || numel_ == 0) return;
  auto can_merge = [&](int d0, int d1) {
    if (shape_[d0] == 1 || shape_[d1] == 1) return true;
    for (int i = 0; i < nops_; ++i) {
      int64_t span = 0;  // checked: an empty tensor may carry any strides
      if (__builtin_mul_overflow(shape_[d0], strides_[d0 * nops_ + i], &span) || span != strides_[d1 * nops_ + i])
        return false;
    }
    return true;
  };
  auto copy_strides = [&](int dst, int src) {
    for (int i = 0; i < nops_; ++i) strides_[dst * nops_ + i] = strides_[src * nops_ + i];
  };
  int prev = 0;
  for (int d = 1; d < ndim_; ++d) {
    if (can_merge(prev, d)) {
      if (shape_[prev] == 1) copy_strides(prev, d);
      shape_[prev] *= shape_[d];
    } else {
      ++prev;
      if (prev != d) {
        copy_strides(prev, d);
        shape_[prev] = shape_[d];
      }
    }
  }
  ndim_ = prev + 1;
}

void TensorIter::finish() {
  needs_finish_ = false;
  for (int i = 0; i < nouts_; ++i) {
    Operand& o = ops_[i];
    if (o.kind != OutKind::Temp || !o.temp.defined()) continue;
    cast_copy(*o.out, o.temp, op_);
    o.temp = Tensor();
  }
}

void TensorIter::device_loop_on_host() const {
  TC_FAIL(Internal, "internal error: ", op_, ": a CPU loop was run over tensors on ", device_);
}

bool TensorIter::is_scalar(int op) const {
  if (ops_[op].stride0) return true;
  for (int d = 0; d < ndim_; ++d)
    if (strides_[d * nops_ + op] != 0) return false;
  return true;
}

bool TensorIter::is_contiguous() const {
  if (ndim_ != 1) return false;
  for (int i = 0; i < nops_; ++i) {
    const int64_t s = strides_[i];
    if (s != 0 && s != elem_size(ops_[i].dtype)) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Casting

namespace {

template <class T>
constexpr bool is_reduced_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// PyTorch's element conversion (c10::convert): reduced floats go through
// float; floating -> small integers through int64 (so -1.0 -> uint8 is 255);
// anything -> bool is "!= 0".
template <class D, class S>
inline D convert(S v) {
  if constexpr (std::is_same_v<D, S>) {
    return v;
  } else if constexpr (is_reduced_v<S>) {
    return convert<D, float>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<D, bool>) {
    return v != S(0);
  } else if constexpr (is_reduced_v<D>) {
    return D(static_cast<float>(v));
  } else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D> && sizeof(D) < 4) {
    return static_cast<D>(static_cast<int64_t>(v));
  } else {
    return static_cast<D>(v);
  }
}

using CastFn = CastLoopFn;

template <class D, class S>
void cast_typed(char* dst, int64_t ds, const char* src, int64_t ss, int64_t n) {
  if constexpr (std::is_same_v<D, S>) {
    if (ds == int64_t(sizeof(D)) && ss == int64_t(sizeof(S))) {
      std::memmove(dst, src, size_t(n) * sizeof(D));
      return;
    }
  }
  if (ds == int64_t(sizeof(D)) && ss == int64_t(sizeof(S))) {
    D* d = reinterpret_cast<D*>(dst);
    const S* s = reinterpret_cast<const S*>(src);
    for (int64_t i = 0; i < n; ++i) d[i] = convert<D, S>(s[i]);
  } else if (ds == int64_t(sizeof(D)) && ss == 0) {
    D* d = reinterpret_cast<D*>(dst);
    const D v = convert<D, S>(*reinterpret_cast<const S*>(src));
    for (int64_t i = 0; i < n; ++i) d[i] = v;
  } else {
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<D*>(dst + i * ds) = convert<D, S>(*reinterpret_cast<const S*>(src + i * ss));
  }
}

template <class D>
CastFn cast_fn_from(ScalarType src) {
  CastFn fn = nullptr;
  TC_DISPATCH_ALL_TYPES_AND_BOOL(src, "cast", [&] { fn = &cast_typed<D, scalar_t>; });
  return fn;
}

}  // namespace

CastLoopFn cast_loop_fn(ScalarType dst, ScalarType src) {
  CastFn fn = nullptr;
  TC_DISPATCH_ALL_TYPES_AND_BOOL(dst, "cast", [&] { fn = cast_fn_from<scalar_t>(src); });
  return fn;
}

void cast_copy(const Tensor& dst, const Tensor& src, const char* op) {
  Tensor out = dst;
  TensorIter it(op);
  it.add_output(out).add_input(src).resize_outputs(false).check_output_cast(false);
  it.build();
  const CastFn fn = cast_loop_fn(out.dtype(), src.dtype());
  it.for_each([fn](char** data, const int64_t* s, int64_t n) { fn(data[0], s[0], data[1], s[1], n); });
}

}  // namespace tc
