// SPDX-License-Identifier: BSD-3-Clause
// The element-loop planner every pointwise kernel goes through (a small
// TensorIterator). Given outputs then inputs it
//   - broadcasts the input shapes (numpy rules),
//   - picks the computation dtype (PyTorch's result_type, when asked),
//   - converts inputs of another dtype (a one-element input into an inline
//     buffer, no allocation; a larger one through a cast copy),
//   - allocates undefined outputs (laid out like the inputs) or resizes out=
//     tensors, and routes outputs of another dtype through a temporary,
//   - orders dims innermost = smallest stride, coalesces dims that are
//     contiguous with each other in every operand, broadcasts by zero strides,
// and then runs a loop callback over 1-D runs:
//     loop(char** data, const int64_t* byte_strides, int64_t n)
// where data[i] / byte_strides[i] belong to operand i (outputs first).
//
// Usage (src/cpu/loops.h adds the typed cpu_kernel on top):
//   Tensor out;                                   // undefined: allocated
//   TensorIter it("add");
//   it.add_output(out).add_input(a).add_input(b).promote_inputs();
//   it.build();                                   // all checks happen here
//   cpu::cpu_kernel(it, [](float x, float y) -> float { return x + y; });
// The planner never bumps version counters: a kernel writing into a
// caller's tensor does that after for_each.
//
// Hot path: no heap allocation besides new outputs for <= kInlineDims dims and
// <= kMaxOperands operands, no std::function below the parallel threshold, and
// the loop is a template argument so kernels inline into it.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>

#include "core/parallel.h"
#include "core/tensor.h"

namespace tc {

class TensorIter {
 public:
  static constexpr int kMaxOperands = 6;
  static constexpr int kInlineDims = 8;

  // op_name prefixes every error ("add: ...").
  explicit TensorIter(const char* op_name) : op_(op_name) {}
  TensorIter(const TensorIter&) = delete;
  TensorIter& operator=(const TensorIter&) = delete;

  // ---- configuration (outputs first, then inputs) ----
  // An undefined `out` is allocated by build() and assigned to it; a defined
  // one is written in place (resized first if resize_outputs and its shape
  // differs). The reference must outlive the iterator. Tensors passed in are
  // borrowed: they must outlive the iterator too.
  TensorIter& add_output(Tensor& out) {
    push(true).out = &out;
    return *this;
  }
  // A tensor input; converted to the common dtype when one is computed.
  TensorIter& add_input(const Tensor& t) {
    push(false).tensor = &t;
    return *this;
  }
  // An input converted to (or kept as) `dtype`, outside type promotion
  // (e.g. where's bool condition).
  TensorIter& add_input(const Tensor& t, ScalarType dtype) {
    Operand& o = push(false);
    o.tensor = &t;
    o.fixed = dtype;
    return *this;
  }
  // A Python-style number: promotes as a wrapped number and is iterated with
  // stride 0 from an inline buffer (no tensor is made).
  TensorIter& add_scalar_input(const Scalar& s, ScalarType dtype = ScalarType::Undefined) {
    Operand& o = push(false);
    o.is_number = true;
    o.number = s;
    o.fixed = dtype;
    return *this;
  }

  // Convert inputs to their result_type (PyTorch's promotion rules).
  TensorIter& promote_inputs(bool v = true) {
    promote_ = v;
    return *this;
  }
  // With promote_inputs: an integral or bool common dtype becomes float32
  // (true division, sin of an int tensor).
  TensorIter& promote_integer_inputs_to_float(bool v = true) {
    int_to_float_ = v;
    return *this;
  }
  // The computation dtype, chosen by the kernel (overrides promotion).
  TensorIter& compute_dtype(ScalarType t) {
    compute_ = t;
    return *this;
  }
  // The dtype the loop writes (default: the computation dtype), e.g. Bool
  // for comparisons. Allocated outputs get this dtype.
  TensorIter& output_dtype(ScalarType t) {
    out_dtype_ = t;
    return *this;
  }
  // true (default, out= semantics): outputs take no part in broadcasting and
  // a defined output of another shape is resized. false (in-place, copy_):
  // outputs take part in broadcasting and must already have its shape.
  TensorIter& resize_outputs(bool v) {
    resize_outputs_ = v;
    return *this;
  }
  // true (default): a defined output must be able to hold the loop's output
  // dtype (can_cast), else a TypeError. copy_ turns this off.
  TensorIter& check_output_cast(bool v) {
    check_cast_ = v;
    return *this;
  }
  // true (default): an output whose elements share memory (an expanded
  // tensor) is refused. fill_/zero_ turn it off: one value everywhere is
  // harmless, and PyTorch allows it.
  TensorIter& check_internal_overlap(bool v) {
    check_self_overlap_ = v;
    return *this;
  }

  // Validates everything, then converts inputs, resizes and allocates outputs.
  // Nothing the caller can see is written before all checks have passed: a
  // failed build leaves every output as it was. An input that shares memory
  // with a written output other than element for element (x.add_(x.T)) is
  // refused as in PyTorch; where the exact check gives up it is read through
  // a copy, so results never depend on the loop's order.
  void build();

  // The op name errors start with (the loops' dtype dispatch names it too).
  const char* op_name() const { return op_; }

  // ---- results of build() ----
  int ntensors() const { return nops_; }
  int noutputs() const { return nouts_; }
  int ninputs() const { return nops_ - nouts_; }
  // The computation dtype (Undefined when neither promotion nor compute_dtype was asked).
  ScalarType common_dtype() const { return common_; }
  // The dtype operand i has inside the loop.
  ScalarType dtype(int i) const { return ops_[i].dtype; }
  // The device every tensor operand lives on (0-dim CPU inputs aside, which
  // act as scalars). Outputs build() allocates are made there. On a device
  // other than the CPU, each operand keeps its own dtype (dtype(i)) and the
  // device loop converts to and from common_dtype() per element; CPU scalars
  // are host values (on_host), converted to the compute dtype.
  Device device() const { return device_; }
  // True when operand i's data is a value in host memory (a number, a
  // one-element input copied out, a CPU scalar of a device iteration).
  bool on_host(int op) const { return ops_[op].data == reinterpret_cast<const char*>(ops_[op].buf); }
  // The caller-visible output i (allocated by build() if it was undefined).
  Tensor& output(int i = 0) const { return *ops_[i].out; }
  int64_t numel() const { return numel_; }
  // Iteration geometry after coalescing; dim 0 is the innermost.
  int ndim() const { return ndim_; }
  IntArrayRef shape() const { return IntArrayRef(shape_, size_t(ndim_)); }
  int64_t byte_stride(int op, int dim) const { return strides_[dim * nops_ + op]; }
  char* data(int op) const { return ops_[op].data; }
  // True when operand i is the same element everywhere (a number, a
  // one-element input, or all strides zero).
  bool is_scalar(int op) const;
  // True when the whole iteration is one 1-D run with every stride either
  // the element size or zero.
  bool is_contiguous() const;

  // Runs loop over every element: serially below `grain` elements, else
  // split over tc::parallel_for. Then copies temporaries back into outputs
  // of another dtype. Call once per build().
  // align > 1: threads' chunks start at multiples of `align` elements, for
  // loops whose values depend on how elements group into vectors (SLEEF
  // picks a path per vector), so that results do not depend on the thread count.
  template <class Loop>
  void for_each(Loop&& loop, int64_t grain = kGrainSize, int64_t align = 1) {
    if (__builtin_expect(!device_.is_cpu(), 0)) device_loop_on_host();
    if (numel_ > 0) {
      if (numel_ <= grain || get_num_threads() == 1) {
        serial_for_each(loop, 0, numel_);
      } else if (align <= 1) {
        parallel_for(0, numel_, grain, [&](int64_t b, int64_t e) { serial_for_each(loop, b, e); });
      } else {
        const int64_t units = (numel_ - 1) / align + 1;
        parallel_for(0, units, std::max<int64_t>(1, grain / align),
                     [&](int64_t b, int64_t e) { serial_for_each(loop, b * align, std::min(e * align, numel_)); });
      }
    }
    if (needs_finish_) finish();
  }

  // Runs loop over linear elements [begin, end) of the iteration space
  // (row-major in iteration order), on this thread. No write-back.
  template <class Loop>
  void serial_for_each(Loop& loop, int64_t begin, int64_t end) const {
    if (begin >= end) return;
    char* ptrs[kMaxOperands];
    const int n = nops_;
    if (ndim_ == 1) {
      for (int op = 0; op < n; ++op) ptrs[op] = ops_[op].data + begin * strides_[op];
      loop(ptrs, static_cast<const int64_t*>(strides_), end - begin);
      return;
    }
    // Multi-dim: a counter over the outer dims, one callback per inner run.
    int64_t counter_inline[kInlineDims];
    std::unique_ptr<int64_t[]> counter_heap;
    int64_t* counter = counter_inline;
    if (ndim_ > kInlineDims) {
      counter_heap.reset(new int64_t[size_t(ndim_)]);
      counter = counter_heap.get();
    }
    int64_t rem = begin;
    for (int op = 0; op < n; ++op) ptrs[op] = ops_[op].data;
    for (int d = 0; d < ndim_; ++d) {
      int64_t sz = shape_[d];
      counter[d] = rem % sz;
      rem /= sz;
      for (int op = 0; op < n; ++op) ptrs[op] += counter[d] * strides_[d * n + op];
    }
    const int64_t inner = shape_[0];
    const int64_t* s0 = strides_;
    int64_t pos = begin;
    while (pos < end) {
      int64_t run = inner - counter[0];
      if (run > end - pos) run = end - pos;
      loop(ptrs, s0, run);
      pos += run;
      if (pos >= end) break;
      // The run ended at the end of dim 0: rewind it and carry outward.
      for (int op = 0; op < n; ++op) ptrs[op] -= counter[0] * s0[op];
      counter[0] = 0;
      for (int d = 1; d < ndim_; ++d) {
        const int64_t* sd = strides_ + d * n;
        for (int op = 0; op < n; ++op) ptrs[op] += sd[op];
        if (++counter[d] < shape_[d]) break;
        for (int op = 0; op < n; ++op) ptrs[op] -= counter[d] * sd[op];
        counter[d] = 0;
      }
    }
  }

 private:
  enum class OutKind : int8_t { Direct, Allocate, Temp };
  struct Operand {
    const Tensor* tensor = nullptr;  // input: the caller's tensor (null for a number)
    Tensor* out = nullptr;           // output: the caller's slot
    Tensor temp;                     // converted input, or temp output of the loop dtype
    char* data = nullptr;
    ScalarType dtype = ScalarType::Undefined;  // dtype inside the loop
    ScalarType fixed = ScalarType::Undefined;  // input: forced dtype (no promotion)
    bool is_output = false;
    bool is_number = false;
    bool stride0 = false;  // iterated with stride 0 everywhere
    bool resize = false;   // output: resized to the broadcast shape once checks pass
    bool aliased = false;  // input: overlaps a written output, read through a copy
    OutKind kind = OutKind::Direct;
    Scalar number;
    alignas(8) unsigned char buf[8];  // a converted one-element input
  };

  Operand& push(bool is_output) {
    if (nops_ == kMaxOperands || (is_output && nops_ != nouts_)) bad_operand_order();
    Operand& o = ops_[nops_++];
    o.is_output = is_output;
    nouts_ += is_output;
    return o;
  }
  [[noreturn]] void bad_operand_order() const;
  void compute_device();
  void compute_shape();
  void compute_dtypes();
  void prepare_outputs();
  void check_overlap();
  void convert_inputs();
  bool try_contiguous_layout();
  void general_layout();
  void reorder_dims();
  void allocate_in_iteration_order(Operand& op);
  void coalesce();
  void finish();
  [[noreturn]] void device_loop_on_host() const;
  const Tensor* loop_tensor(const Operand& op) const;

  const char* op_;
  Operand ops_[kMaxOperands];
  int nops_ = 0, nouts_ = 0;
  bool promote_ = false, int_to_float_ = false, resize_outputs_ = true, check_cast_ = true;
  bool check_self_overlap_ = true;
  bool needs_finish_ = false;
  ScalarType compute_ = ScalarType::Undefined, out_dtype_ = ScalarType::Undefined;
  ScalarType common_ = ScalarType::Undefined;
  Device device_ = Device(DeviceType::CPU);

  // Geometry. bshape_: broadcast shape in tensor order (bndim_ dims).
  // shape_/orig_/strides_: iteration order, dim 0 innermost; orig_[k] is the
  // tensor dim of iteration dim k; strides_[k * nops_ + op] in bytes.
  int bndim_ = 0, ndim_ = 0;
  int64_t numel_ = 1;
  int64_t* bshape_ = nullptr;
  int64_t* shape_ = nullptr;
  int64_t* orig_ = nullptr;
  int64_t* strides_ = nullptr;
  int64_t* scratch_ = nullptr;  // one row of tensor-order scratch
  int64_t inline_[kInlineDims * (4 + kMaxOperands)];
  std::unique_ptr<int64_t[]> heap_;
};

// Converts n elements from src (byte stride ss) to dst (byte stride ds) with
// PyTorch's casting rules (float -> int truncates, through int64 for types
// narrower than 32 bits; anything -> bool is != 0). Contiguous same-dtype
// runs are a memmove. Look the function up once per kernel, call it per run.
using CastLoopFn = void (*)(char* dst, int64_t ds, const char* src, int64_t ss, int64_t n);
CastLoopFn cast_loop_fn(ScalarType dst, ScalarType src);

// dst <- src with broadcasting and any dtype conversion, no overlap or
// cast-safety checks (the planner's own conversions; copy_ adds the checks).
void cast_copy(const Tensor& dst, const Tensor& src, const char* op);

}  // namespace tc
