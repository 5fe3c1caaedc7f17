// SPDX-License-Identifier: BSD-3-Clause
// The contract between libtensorc's CUDA backend (src/cuda/*.cpp, compiled
// into libtensorc, no CUDA headers) and libtensorc_cuda.so
// (src/cuda/driver/, the only code linked to the CUDA runtime): a table of
// plain functions that libtensorc loads on the first CUDA use. Every entry
// returns a cudaError_t value (0: success) that error_string() names, never
// throws, and runs on the calling thread's current device. Plain types only,
// so libtensorc exports nothing to the driver library and the driver library
// nothing but tc_cuda_driver_open.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tc::cuda {

// tensorc's dtype codes (ScalarType in core/dtype.h; src/cuda/pointwise.cpp
// static_asserts that they agree), repeated for the driver library.
enum DtypeCode : int { kBool = 0, kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64 };

constexpr int kMaxDims = 16;
constexpr int kMaxOperands = 4;            // an output and up to three inputs (where)
constexpr int kErrorMemoryAllocation = 2;  // cudaErrorMemoryAllocation
constexpr int kErrorNotReady = 600;        // cudaErrorNotReady

// Up to kMaxOperands operands walked over one shape (innermost dim last),
// strides in bytes, size-1 dims dropped and mergeable dims merged.
struct Geometry {
  int ndim = 0;
  int64_t numel = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kMaxOperands][kMaxDims] = {};  // [operand][dim]
};

// The element-wise ops of the pointwise loop. Binary: out = a + alpha * b,
// a * b, a / b, comparisons. Unary: out = f(a), as the CPU loops of the same
// names.
enum class PointwiseOp : int {
  Add,
  Mul,
  Div,
  Abs,
  Sign,
  Floor,
  Ceil,
  Round,
  Trunc,
  Exp,
  Expm1,
  Log,
  Log1p,
  Log2,
  Log10,
  Sqrt,
  Rsqrt,
  Reciprocal,
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Asinh,
  Acosh,
  Atanh,
  Sinh,
  Cosh,
  Tanh,
  Sigmoid,
  Erf,
  Neg,
  Relu,
  ThresholdBackward,  // out = b <= alpha ? 0 : a (a: grad_output, b: self, alpha: the threshold)
  SigmoidBackward,    // out = a * (1 - b) * b (b: sigmoid's output)
  TanhBackward,       // out = a * (1 - b * b) (b: tanh's output)
  Maximum,            // NaN-propagating for floating types
  Minimum,
  Eq,  // comparisons: 1 or 0 in the compute type, stored as the output's dtype
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  Fmod,        // C's fmod; integers: truncated division's remainder (a zero divisor was refused before)
  Remainder,   // Python's %: the sign of the divisor
  BitwiseAnd,  // integers and bool (int64 compute)
  BitwiseOr,
  BitwiseXor,
  Gelu,          // x/2 (1 + erf(x / sqrt 2))
  GeluTanh,      // x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  GeluBackward,  // a * d gelu(b) / db (a: grad_output, b: self)
  GeluTanhBackward,
  DivTrunc,   // a / b rounded toward 0; integers: C's division (b == -1 negates, wrapping)
  DivFloor,   // Python's a // b (floating: from fmod, as ATen); integers: floor division
  Pow,        // floating: pow; integers: by squaring, wrapping; negative exponents as ATen (0, or +-1 for bases +-1)
  PowNumber,  // Pow with a number exponent: floating, pow(a, alpha); integers, b
  PowExact,   // PowNumber for alpha 2, 3, 0.5, -0.5, -1 or -2, by exact formulas (a * a...), as the CPU
  Atan2,
  Where,  // three inputs: out = a != 0 ? b : c, the selected value copied unchanged (-0.0, NaN)
  Count
};

// One pointwise launch: operand 0 is the output, 1 (and 2, 3) the inputs. Each
// tensor operand is read or written in its own dtype (tensorc dtype codes)
// and converted to and from `compute` per element; an operand whose data is
// null is a host value instead (a number or a CPU scalar), already in the
// compute dtype.
struct PointwiseArgs {
  int op = 0;       // a PointwiseOp
  int compute = 0;  // float32, float64 or int64 (every integer dtype and bool)
  int common = 0;   // the iteration's common dtype: each input is rounded to it first, as the CPU casts it
  int noperands = 0;
  char* data[kMaxOperands] = {};
  int dtype[kMaxOperands] = {};
  double fvalue[kMaxOperands] = {};     // host values, floating compute
  long long ivalue[kMaxOperands] = {};  // host values, int64 compute
  double alpha = 1;                     // Add's alpha, floating compute
  long long ialpha = 1;                 // Add's alpha, int64 compute
};

// The reductions of the reduce loop.
enum class ReduceOp : int { Sum, Prod, Max, Min, All, Any, Count };

// One reduction pass: out[o * splits + s] = op over the reduced elements of
// output o in chunk s (elements [s * chunk, (s + 1) * chunk) in the plan's
// order), times `scale` (mean's 1 / count) when splits == 1. Input element
// (o, r): o row-major over kept_sizes, r over red_sizes (innermost last),
// byte offset sum(index * stride). The input is read in in_dtype and
// accumulated in `compute` (float32, float64 or int64); out is contiguous,
// written in out_dtype (a split pass writes compute-dtype partials that a
// second pass with splits == 1 reduces). columns: one thread per output
// reads its elements in turn (outputs side by side in memory) instead of a
// block per output (reduced elements side by side).
struct ReduceArgs {
  int op = 0;  // a ReduceOp
  int compute = 0;
  int in_dtype = 0, out_dtype = 0;
  const char* in = nullptr;
  char* out = nullptr;
  int64_t num_out = 0, red_numel = 0;
  int64_t splits = 1, chunk = 0;
  bool columns = false;
  double scale = 1;
  int kept_ndim = 0, red_ndim = 0;
  int64_t kept_sizes[kMaxDims] = {}, kept_strides[kMaxDims] = {};
  int64_t red_sizes[kMaxDims] = {}, red_strides[kMaxDims] = {};
};

// gather's loop over a geometry of three operands: out (0), self with its
// stride along `dim` zeroed (1), index (2, int64): each element of out is the
// element of self `index * dim_stride` bytes further. Indices were checked
// against dim_size before the launch; an index outside it reads element 0.
struct GatherArgs {
  char* out = nullptr;
  const char* self = nullptr;
  const char* index = nullptr;
  int elem_size = 0;
  int64_t dim_stride = 0;  // bytes
  int64_t dim_size = 0;
};

// scatter over a geometry of three operands: out with its stride along `dim`
// zeroed (0), the source value (1; data null: `value`), index (2, int64).
// Element i of the geometry goes to out `index * dim_stride` bytes further:
// assigned (Assign: with repeated indices one of the writes wins) or added
// (Add: atomically, src * alpha in out's compute type; bool adds as "or").
// Indices were checked against dim_size before the launch; one outside it is
// skipped.
enum class ScatterReduce : int { Assign, Add, Count };
struct ScatterArgs {
  char* out = nullptr;
  const char* src = nullptr;
  const char* index = nullptr;
  int dtype = 0;           // out's dtype code
  int src_dtype = 0;       // src's, converted per element
  int reduce = 0;          // a ScatterReduce
  int64_t dim_stride = 0;  // bytes
  int64_t dim_size = 0;
  double value = 0, alpha = 1;       // floating out
  long long ivalue = 0, ialpha = 1;  // integral or bool out
};

// The random fills (src/core/philox.h says what element i draws).
enum class RandomKind : int { Uniform, Normal, Bernoulli, Integer, Fraction, Count };

// Fills operand 0 of a one-operand geometry in row-major order of the
// tensor's logical shape (element i is the i-th of that order) from the
// Philox stream (key, counter): Uniform a + b * u with `digits` mantissa
// digits; Normal a + b * z; Bernoulli 1 where u < a, else 0. Accumulates in
// float64 for float64 outputs, else float32; stored in `dtype`. Integer:
// randint's philox::integer (low, range, words), in int64; Fraction:
// philox::fraction (bernoulli's draw against a tensor of probabilities).
struct RandomArgs {
  int kind = 0;  // a RandomKind
  int dtype = 0;
  int digits = 24;
  uint64_t key = 0, counter = 0;
  double a = 0, b = 1;
  int64_t low = 0;
  uint64_t range = 1;
  int words = 1;
  char* data = nullptr;
};

// arange and linspace (src/structured/range.h) into a contiguous output of
// n elements of `dtype`. arange: start + step * i, in int64 (istart, istep)
// when integral, else in double; linspace: the symmetric formula from start
// (a) to end (z) by step, accumulated in double or float.
struct RangeArgs {
  int dtype = 0;
  bool linspace = false;
  bool integral = false;
  bool in_double = true;
  long long istart = 0, istep = 0;
  double start = 0, step = 0, end = 0;
  int64_t n = 0;
  char* data = nullptr;
};

// Inclusive prefix sums along the middle dim of a contiguous [outer, size,
// inner] tensor: out and in both of `dtype` (the result's), summed in the
// compute type (float for float16 / bfloat16 and float32, double, long long
// wrapping for integers).
struct ScanArgs {
  int dtype = 0;
  int64_t outer = 1, size = 1, inner = 1;
  const char* in = nullptr;
  char* out = nullptr;
};

// A stable sort of each of `segments` contiguous runs of `segment_size` keys
// (CUB's segmented sort), carrying int64 values: keys of dtype `dtype` (int64,
// float32 or float64), ascending or descending; offsets holds segments + 1 run
// starts (i * segment_size). Called first with temp null for the workspace
// size (*temp_bytes), then with a workspace of that size.
struct SortArgs {
  int dtype = 0;
  bool descending = false;
  int64_t segments = 0, segment_size = 0;
  const char* keys_in = nullptr;
  char* keys_out = nullptr;
  const long long* values_in = nullptr;
  long long* values_out = nullptr;
  const long long* offsets = nullptr;
};

// One (batched) matrix product in cuBLAS's column-major terms:
//   C[i] = alpha * op(A[i]) @ op(B[i]) + beta * C[i],  i < batch,
// op(X) = X, or X transposed when trans_X; op(A) is m x k, op(B) k x n, C
// m x n; lda/ldb/ldc are the leading dimensions and stride_* the distance
// between batch matrices, in elements. Every matrix has `dtype` (float32,
// float64, float16 or bfloat16; the half types accumulate in float32).
// allow_tf32: float32 may run on TF32 tensor cores.
struct GemmArgs {
  int dtype = 0;
  bool trans_a = false, trans_b = false;
  int64_t m = 0, n = 0, k = 0;
  const void* a = nullptr;
  int64_t lda = 1, stride_a = 0;
  const void* b = nullptr;
  int64_t ldb = 1, stride_b = 0;
  void* c = nullptr;
  int64_t ldc = 1, stride_c = 0;
  int64_t batch = 1;
  double alpha = 1, beta = 0;
  bool allow_tf32 = false;
  // With batch 1 and beta 0 only: bias[i] (c's dtype, contiguous) is added to
  // row i of the column-major c in cuBLASLt's epilogue, as c is written.
  const void* bias = nullptr;
};
// cuBLAS statuses are returned as kCublasErrorBase + status, so that
// error_string can tell them from CUDA's codes.
constexpr int kCublasErrorBase = 100000;
// gemm with a bias: cuBLASLt has no algorithm for it (CUBLAS_STATUS_NOT_SUPPORTED);
// the caller adds the bias another way.
constexpr int kGemmEpilogueUnsupported = kCublasErrorBase + 15;

using Stream = uintptr_t;  // a cudaStream_t; 0 is the legacy default stream
using Event = uintptr_t;   // a cudaEvent_t

struct DriverApi {
  int (*device_count)(int* n);
  int (*get_device)(int* device);
  int (*set_device)(int device);
  int (*malloc)(void** ptr, size_t nbytes);  // kErrorMemoryAllocation when full (error cleared)
  int (*free)(void* ptr);
  // Page-locked host memory (cudaHostAlloc, portable: every device copies
  // from it asynchronously) and its release.
  int (*host_alloc)(void** ptr, size_t nbytes);
  int (*host_free)(void* ptr);
  int (*mem_info)(size_t* free_bytes, size_t* total_bytes);
  int (*event_record)(Event* event, Stream stream);  // creates and records
  int (*event_query)(Event event);                   // 0 done, kErrorNotReady pending
  int (*event_destroy)(Event event);
  int (*device_synchronize)();
  int (*stream_synchronize)(Stream stream);
  // Streams and events behind tc_stream_* / tc_event_*. A created stream is
  // non-blocking (no implicit order with the legacy default stream, as
  // PyTorch's pool streams); priority: lower is higher, within
  // stream_priority_range's [greatest, least].
  int (*stream_create)(Stream* stream, int priority);
  int (*stream_query)(Stream stream);  // 0 done, kErrorNotReady pending
  int (*stream_wait_event)(Stream stream, Event event);
  int (*stream_priority_range)(int* least, int* greatest);
  int (*event_create)(Event* event, bool timing);
  int (*event_record_on)(Event event, Stream stream);  // records an event made by event_create
  int (*event_synchronize)(Event event);
  int (*event_elapsed_ms)(float* ms, Event start, Event end);
  int (*memcpy_async)(void* dst, const void* src, size_t n, Stream stream);  // any direction (UVA)
  int (*memcpy_peer_async)(void* dst, int dst_device, const void* src, int src_device, size_t n, Stream stream);
  // Every element of operand 0 set to the elem_size-byte pattern `bits`.
  int (*launch_fill)(char* data, int elem_size, uint64_t bits, const Geometry* g, Stream stream);
  // dst (operand 0) = src (operand 1) converted between tensorc dtype codes
  // as C++ casts do, bool as != 0.
  int (*launch_copy)(char* dst, int dst_dtype, const char* src, int src_dtype, const Geometry* g, Stream stream);
  // The pointwise loop over g (ATen's GPU element loop: grid-stride, 32-bit
  // indexing when offsets fit, dynamic casting).
  int (*launch_pointwise)(const PointwiseArgs* args, const Geometry* g, Stream stream);
  // gather (GatherArgs) over g.
  int (*launch_gather)(const GatherArgs* args, const Geometry* g, Stream stream);
  // scatter, index_copy, index_add (ScatterArgs) over g.
  int (*launch_scatter)(const ScatterArgs* args, const Geometry* g, Stream stream);
  // One reduction pass (ReduceArgs).
  int (*launch_reduce)(const ReduceArgs* args, Stream stream);
  // A random fill (RandomArgs) over g.
  int (*launch_random)(const RandomArgs* args, const Geometry* g, Stream stream);
  // arange / linspace (RangeArgs).
  int (*launch_range)(const RangeArgs* args, Stream stream);
  // cumsum (ScanArgs).
  int (*launch_scan)(const ScanArgs* args, Stream stream);
  // sort (SortArgs): temp null asks for the workspace's size.
  int (*sort_pairs)(const SortArgs* args, void* temp, size_t* temp_bytes, Stream stream);
  // The GEMM above on cuBLAS (a handle per device and thread, on `stream`).
  int (*gemm)(const GemmArgs* args, Stream stream);
  // "cudaErrorName (text)" or "CUBLAS_STATUS_NAME (text)" for a code returned above.
  const char* (*error_string)(int code);
};

// The layout this header gives the table and its argument structs, folded
// into one number: both libraries compute it, and tc_cuda_driver_open
// refuses a caller built from another layout, even of the same version.
constexpr uint64_t driver_layout() {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the sizes and enum counts
  const uint64_t parts[] = {sizeof(DriverApi),
                            sizeof(Geometry),
                            sizeof(PointwiseArgs),
                            sizeof(ReduceArgs),
                            sizeof(GatherArgs),
                            sizeof(ScatterArgs),
                            sizeof(RandomArgs),
                            sizeof(RangeArgs),
                            sizeof(ScanArgs),
                            sizeof(SortArgs),
                            sizeof(GemmArgs),
                            uint64_t(PointwiseOp::Count),
                            uint64_t(ReduceOp::Count),
                            uint64_t(RandomKind::Count),
                            uint64_t(ScatterReduce::Count),
                            uint64_t(kMaxOperands),
                            uint64_t(kMaxDims)};
  for (uint64_t p : parts) h = (h ^ p) * 1099511628211ull;
  return h;
}
// Evaluated at compile time (the multiplications wrap on purpose).
constexpr uint64_t kDriverLayout = driver_layout();

}  // namespace tc::cuda

// Exported by libtensorc_cuda.so: checks that `version` is its own, that a
// driver and a device answer; on success *api points at its table (static),
// else returns nonzero with the reason in why.
using tc_cuda_driver_open_fn = int (*)(const char* version, const tc::cuda::DriverApi** api, char* why, size_t why_cap);
