// SPDX-License-Identifier: BSD-3-Clause
// tensorc C++ wrapper: errors, dtypes, devices, Scalar, ArrayRef, Generator.
// Part of the header-only wrapper over the C ABI; include <tensorc.hpp>.
#pragma once

#include <tensorc.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__GNUC__) || defined(__clang__)
#define TENSORC_LIKELY(x) __builtin_expect(!!(x), 1)
#define TENSORC_NOINLINE __attribute__((noinline, cold))
#else
#define TENSORC_LIKELY(x) (x)
#define TENSORC_NOINLINE
#endif

namespace tensorc {

// ---- errors -----------------------------------------------------------------

// The C ABI's status categories (tc_status).
enum class Status : int32_t {
  Ok = TC_OK,
  InvalidArgument = TC_ERROR_INVALID_ARGUMENT,
  Type = TC_ERROR_TYPE,
  Index = TC_ERROR_INDEX,
  OutOfMemory = TC_ERROR_OUT_OF_MEMORY,
  NotImplemented = TC_ERROR_NOT_IMPLEMENTED,
  Runtime = TC_ERROR_RUNTIME,
  Device = TC_ERROR_DEVICE,
  Internal = TC_ERROR_INTERNAL,
};

inline const char* status_name(Status s) noexcept { return tc_status_name(static_cast<tc_status>(s)); }

// Every failing call throws a subclass of Error matching its status, with the
// library's message (which names the op and the argument).
class Error : public std::runtime_error {
 public:
  Error(Status code, const std::string& message) : std::runtime_error(message), code_(code) {}
  Status code() const noexcept { return code_; }

 private:
  Status code_;
};

#define TENSORC_ERROR_CLASS(Name, Code)                                         \
  class Name : public Error {                                                   \
   public:                                                                      \
    explicit Name(const std::string& message) : Error(Status::Code, message) {} \
  };
TENSORC_ERROR_CLASS(InvalidArgumentError, InvalidArgument)
TENSORC_ERROR_CLASS(TypeError, Type)
TENSORC_ERROR_CLASS(IndexError, Index)
TENSORC_ERROR_CLASS(OutOfMemoryError, OutOfMemory)
TENSORC_ERROR_CLASS(NotImplementedError, NotImplemented)
TENSORC_ERROR_CLASS(RuntimeError, Runtime)
TENSORC_ERROR_CLASS(DeviceError, Device)
TENSORC_ERROR_CLASS(InternalError, Internal)
#undef TENSORC_ERROR_CLASS
using ValueError = InvalidArgumentError;  // c10's name

namespace detail {

// An exception thrown by a C++ callback (custom function, deleter-less
// callbacks, gradcheck function) while tensorc was calling it: kept here,
// on the thread that ran the callback, until the wrapper call that made
// tensorc run the callback fails and rethrows it. `marker` is the message
// handed to the C ABI, so a stale entry (a failure tensorc swallowed) is
// never rethrown for an unrelated error.
struct PendingException {
  std::exception_ptr exception;
  std::string marker;
};
inline thread_local PendingException pending_exception;

[[noreturn]] inline void throw_status(Status code, const std::string& msg) {
  switch (code) {
    case Status::InvalidArgument: throw InvalidArgumentError(msg);
    case Status::Type: throw TypeError(msg);
    case Status::Index: throw IndexError(msg);
    case Status::OutOfMemory: throw OutOfMemoryError(msg);
    case Status::NotImplemented: throw NotImplementedError(msg);
    case Status::Runtime: throw RuntimeError(msg);
    case Status::Device: throw DeviceError(msg);
    case Status::Internal: throw InternalError(msg);
    default: throw Error(code, msg);
  }
}

// The failure path of every wrapper call: rethrows the callback's exception
// when that is what failed, else throws the matching Error.
[[noreturn]] TENSORC_NOINLINE inline void throw_error(tc_status st) {
  std::string msg = tc_last_error_message();
  PendingException& p = pending_exception;
  if (p.exception) {
    std::exception_ptr e = std::move(p.exception);
    p.exception = nullptr;
    if (msg.find(p.marker) != std::string::npos) std::rethrow_exception(e);
  }
  if (msg.empty()) msg = std::string("tensorc call failed: ") + tc_status_name(st);
  throw_status(static_cast<Status>(st), msg);
}

inline void check(tc_status st) {
  if (!TENSORC_LIKELY(st == TC_OK)) throw_error(st);
}

// Call inside a catch block of a callback invoked by tensorc: keeps the
// exception for rethrow and reports it to the C ABI as a status + message.
inline tc_status stash_current_exception() noexcept {
  tc_status code = TC_ERROR_RUNTIME;
  std::string msg;
  try {
    throw;
  } catch (const Error& e) {
    code = static_cast<tc_status>(e.code());
    msg = e.what();
  } catch (const std::exception& e) {
    msg = e.what();
  } catch (...) {
    msg = "unknown C++ exception in a callback";
  }
  if (msg.empty()) msg = "C++ exception in a callback";
  try {
    pending_exception.marker = msg;
    pending_exception.exception = std::current_exception();
  } catch (...) {}
  return tc_error_set(code == TC_OK ? TC_ERROR_RUNTIME : code, msg.c_str());
}

}  // namespace detail

// ---- dtypes -------------------------------------------------------------------

enum class ScalarType : int32_t {
  Bool = TC_BOOL,
  UInt8 = TC_UINT8,
  Int8 = TC_INT8,
  Int16 = TC_INT16,
  Int32 = TC_INT32,
  Int64 = TC_INT64,
  Float16 = TC_FLOAT16,
  BFloat16 = TC_BFLOAT16,
  Float32 = TC_FLOAT32,
  Float64 = TC_FLOAT64,
};
using Dtype = ScalarType;
// libtorch's spellings.
constexpr ScalarType kBool = ScalarType::Bool, kUInt8 = ScalarType::UInt8, kByte = ScalarType::UInt8,
                     kInt8 = ScalarType::Int8, kChar = ScalarType::Int8, kInt16 = ScalarType::Int16,
                     kShort = ScalarType::Int16, kInt32 = ScalarType::Int32, kInt = ScalarType::Int32,
                     kInt64 = ScalarType::Int64, kLong = ScalarType::Int64, kFloat16 = ScalarType::Float16,
                     kHalf = ScalarType::Float16, kBFloat16 = ScalarType::BFloat16, kFloat32 = ScalarType::Float32,
                     kFloat = ScalarType::Float32, kFloat64 = ScalarType::Float64, kDouble = ScalarType::Float64;

inline const char* to_string(ScalarType t) noexcept { return tc_dtype_name(static_cast<tc_dtype>(t)); }
inline std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << to_string(t); }
inline size_t element_size(ScalarType t) {
  size_t n = 0;
  detail::check(tc_dtype_size(&n, static_cast<tc_dtype>(t)));
  return n;
}
inline bool is_floating_point(ScalarType t) noexcept {
  return t == kFloat16 || t == kBFloat16 || t == kFloat32 || t == kFloat64;
}

// The dtype of a C++ element type: scalar_type_of<float> == kFloat32.
template <class T>
struct CppTypeToScalarType;
#define TENSORC_DTYPE_OF(T, D)             \
  template <>                              \
  struct CppTypeToScalarType<T> {          \
    static constexpr ScalarType value = D; \
  };
TENSORC_DTYPE_OF(bool, kBool)
TENSORC_DTYPE_OF(uint8_t, kUInt8)
TENSORC_DTYPE_OF(int8_t, kInt8)
TENSORC_DTYPE_OF(int16_t, kInt16)
TENSORC_DTYPE_OF(int32_t, kInt32)
TENSORC_DTYPE_OF(int64_t, kInt64)
TENSORC_DTYPE_OF(float, kFloat32)
TENSORC_DTYPE_OF(double, kFloat64)
#undef TENSORC_DTYPE_OF
template <class T>
constexpr ScalarType scalar_type_of = CppTypeToScalarType<std::remove_cv_t<T>>::value;

// ---- devices --------------------------------------------------------------------

// Device type codes equal DLPack's.
enum class DeviceType : int32_t { CPU = TC_DEVICE_CPU, CUDA = TC_DEVICE_CUDA, PrivateUse1 = TC_DEVICE_PRIVATEUSE1 };
constexpr DeviceType kCPU = DeviceType::CPU, kCUDA = DeviceType::CUDA, kPrivateUse1 = DeviceType::PrivateUse1;

class Device {
 public:
  // index -1: the current device of that type (ignored for the CPU).
  Device(DeviceType type, int32_t index = -1) noexcept : type_(type), index_(index) {}  // NOLINT: implicit
  DeviceType type() const noexcept { return type_; }
  int32_t index() const noexcept { return index_; }
  bool has_index() const noexcept { return index_ >= 0; }
  bool is_cpu() const noexcept { return type_ == DeviceType::CPU; }
  bool is_cuda() const noexcept { return type_ == DeviceType::CUDA; }
  bool operator==(const Device& o) const noexcept { return type_ == o.type_ && (is_cpu() || index_ == o.index_); }
  bool operator!=(const Device& o) const noexcept { return !(*this == o); }

 private:
  DeviceType type_;
  int32_t index_;
};

inline std::ostream& operator<<(std::ostream& os, DeviceType t) {
  switch (t) {
    case DeviceType::CPU: return os << "cpu";
    case DeviceType::CUDA: return os << "cuda";
    case DeviceType::PrivateUse1: return os << "privateuseone";
  }
  return os << "device" << static_cast<int32_t>(t);
}
inline std::ostream& operator<<(std::ostream& os, const Device& d) {
  os << d.type();
  if (!d.is_cpu() && d.has_index()) os << ':' << d.index();
  return os;
}

namespace detail {
inline tc_dtype to_c(ScalarType t) noexcept { return static_cast<tc_dtype>(t); }
inline tc_device to_c(const Device& d) noexcept {
  tc_device c;
  c.type = static_cast<int32_t>(d.type());
  c.index = d.index();
  return c;
}
inline Device from_c(tc_device d) noexcept { return Device(static_cast<DeviceType>(d.type), d.index); }
}  // namespace detail

// ---- Scalar -----------------------------------------------------------------------

// A number passed to ops: bool, integer (int64) or floating (double), from
// any arithmetic C++ type. An unsigned value above INT64_MAX has no exact
// representation and throws InvalidArgumentError (as Python's overflow does)
// instead of wrapping to a negative number.
class Scalar {
  template <class T>
  static constexpr bool may_overflow_int64 =
      std::is_integral_v<T>&& std::is_unsigned_v<T> && !std::is_same_v<T, bool> && sizeof(T) >= sizeof(int64_t);

 public:
  Scalar() noexcept : Scalar(int64_t(0)) {}
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  Scalar(T v) noexcept(!may_overflow_int64<T>) {  // NOLINT: implicit, like c10::Scalar
    std::memset(&s_, 0, sizeof s_);
    if constexpr (std::is_same_v<T, bool>) {
      s_.tag = TC_SCALAR_BOOL;
      s_.u.b = v;
    } else if constexpr (std::is_integral_v<T>) {
      if constexpr (may_overflow_int64<T>) {
        if (v > static_cast<T>(std::numeric_limits<int64_t>::max()))
          throw InvalidArgumentError("tensorc::Scalar: the unsigned value " + std::to_string(v) +
                                     " does not fit int64, the widest integer a Scalar holds");
      }
      s_.tag = TC_SCALAR_INT;
      s_.u.i = static_cast<int64_t>(v);
    } else {
      s_.tag = TC_SCALAR_FLOAT;
      s_.u.f = static_cast<double>(v);
    }
  }
  explicit Scalar(const tc_scalar& s) noexcept : s_(s) {}
  // A Scalar held by a 0-dim tensor on any device (TC_SCALAR_TENSOR). Where
  // the op has a Tensor overload for the argument (add, mul, clamp, fill_,
  // pow, the comparisons...) the value stays on the device and nothing
  // synchronises; elsewhere the op reads it with item(). Borrows the tensor:
  // keep it alive while this Scalar is used.
  template <class TensorT>
  static Scalar from_tensor(const TensorT& t) noexcept {
    return Scalar(tc_scalar_from_tensor(t.get()));
  }

  const tc_scalar& c() const noexcept { return s_; }
  bool is_boolean() const noexcept { return s_.tag == TC_SCALAR_BOOL; }
  bool is_integral() const noexcept { return s_.tag == TC_SCALAR_INT; }
  bool is_floating_point() const noexcept { return s_.tag == TC_SCALAR_FLOAT; }
  bool is_tensor() const noexcept { return s_.tag == TC_SCALAR_TENSOR; }

  // The value as T, checked like c10::Scalar::to: a value T cannot hold (out
  // of range, or NaN/inf to an integer) throws RuntimeError instead of
  // wrapping (or being undefined behaviour, for a double to an integer).
  // To bool: whether it is non-zero.
  template <class T>
  T to() const {
    static_assert(std::is_arithmetic_v<T>, "Scalar::to<T>: T must be an arithmetic type");
    if (is_tensor())
      throw InvalidArgumentError("tensorc::Scalar::to: this Scalar is held by a tensor; read it with Tensor::item()");
    using L = std::numeric_limits<T>;
    if constexpr (std::is_same_v<T, bool>) {
      switch (s_.tag) {
        case TC_SCALAR_BOOL: return s_.u.b;
        case TC_SCALAR_INT: return s_.u.i != 0;
        default: return s_.u.f != 0;
      }
    } else if constexpr (std::is_integral_v<T>) {
      if (s_.tag == TC_SCALAR_BOOL) return static_cast<T>(s_.u.b);
      if (s_.tag == TC_SCALAR_INT) {
        const int64_t i = s_.u.i;
        const bool fits = std::is_signed_v<T> ? (i >= int64_t(L::min()) && i <= int64_t(L::max()))
                                              : (i >= 0 && uint64_t(i) <= uint64_t(L::max()));
        if (!fits) overflow<T>(i);
        return static_cast<T>(i);
      }
      const double f = s_.u.f;
      // [lo, hi) with hi = 2^digits exact; NaN fails both comparisons.
      const double hi = std::ldexp(1.0, L::digits);
      const bool fits = std::is_signed_v<T> ? (f >= -hi && f < hi) : (f > -1.0 && f < hi);
      if (!fits) overflow<T>(f);
      return static_cast<T>(f);
    } else {
      if (s_.tag == TC_SCALAR_BOOL) return static_cast<T>(s_.u.b);
      if (s_.tag == TC_SCALAR_INT) return static_cast<T>(s_.u.i);
      const double f = s_.u.f;
      if (std::isfinite(f) && std::fabs(f) > double(L::max())) overflow<T>(f);
      return static_cast<T>(f);
    }
  }
  double toDouble() const { return to<double>(); }
  int64_t toLong() const { return to<int64_t>(); }
  bool toBool() const { return to<bool>(); }

 private:
  template <class T, class V>
  [[noreturn]] TENSORC_NOINLINE static void overflow(V value) {
    std::ostringstream v;
    v.precision(17);
    v << value;
    std::string type;
    if constexpr (std::is_floating_point_v<T>)
      type = sizeof(T) == sizeof(float) ? "float" : sizeof(T) == sizeof(double) ? "double" : "long double";
    else
      type = std::string(std::is_signed_v<T> ? "int" : "uint") + std::to_string(8 * sizeof(T)) + "_t";
    throw RuntimeError("tensorc::Scalar::to: the value " + v.str() + " cannot be converted to " + type +
                       " without overflow");
  }
  tc_scalar s_;
};

inline std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  if (s.is_tensor()) return os << "Scalar(tensor)";
  if (s.is_boolean()) return os << (s.toBool() ? "true" : "false");
  if (s.is_integral()) return os << s.toLong();
  return os << s.toDouble();
}

// ---- ArrayRef -------------------------------------------------------------------

// A non-owning view of contiguous values, like c10::ArrayRef: valid for the
// full expression that built it (braced lists included).
template <class T>
class ArrayRef {
 public:
  constexpr ArrayRef() noexcept = default;
  constexpr ArrayRef(const T* data, size_t size) noexcept : data_(data), size_(size) {}
  constexpr ArrayRef(const T* begin, const T* end) noexcept : data_(begin), size_(size_t(end - begin)) {}
  constexpr ArrayRef(const T& one) noexcept : data_(&one), size_(1) {}  // NOLINT: implicit
  template <class A>
  ArrayRef(const std::vector<T, A>& v) noexcept : data_(v.data()), size_(v.size()) {}  // NOLINT
  template <size_t N>
  constexpr ArrayRef(const std::array<T, N>& a) noexcept : data_(a.data()), size_(N) {}  // NOLINT
  template <size_t N>
  constexpr ArrayRef(const T (&a)[N]) noexcept : data_(a), size_(N) {}  // NOLINT
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  constexpr ArrayRef(std::initializer_list<T> il) noexcept  // NOLINT
      : data_(il.begin() == il.end() ? nullptr : il.begin()), size_(il.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

  constexpr const T* data() const noexcept { return data_; }
  constexpr size_t size() const noexcept { return size_; }
  constexpr bool empty() const noexcept { return size_ == 0; }
  constexpr const T* begin() const noexcept { return data_; }
  constexpr const T* end() const noexcept { return data_ + size_; }
  constexpr const T& operator[](size_t i) const noexcept { return data_[i]; }
  constexpr const T& front() const noexcept { return data_[0]; }
  constexpr const T& back() const noexcept { return data_[size_ - 1]; }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }
  bool equals(ArrayRef o) const {
    if (size_ != o.size_) return false;
    for (size_t i = 0; i < size_; ++i)
      if (!(data_[i] == o.data_[i])) return false;
    return true;
  }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};
using IntArrayRef = ArrayRef<int64_t>;

inline std::ostream& operator<<(std::ostream& os, IntArrayRef a) {
  os << '[';
  for (size_t i = 0; i < a.size(); ++i) os << (i ? ", " : "") << a[i];
  return os << ']';
}

// An optional list (`int[]?` in the schema): None, or a list that may be empty.
template <class T>
class OptionalArrayRef {
 public:
  constexpr OptionalArrayRef() noexcept = default;
  constexpr OptionalArrayRef(std::nullopt_t) noexcept {}                       // NOLINT: implicit
  constexpr OptionalArrayRef(ArrayRef<T> r) noexcept : ref_(r), has_(true) {}  // NOLINT
  OptionalArrayRef(const std::optional<ArrayRef<T>>& o) noexcept               // NOLINT
      : ref_(o ? *o : ArrayRef<T>()), has_(o.has_value()) {}
  template <class A>
  OptionalArrayRef(const std::vector<T, A>& v) noexcept : ref_(v), has_(true) {}              // NOLINT
  constexpr OptionalArrayRef(std::initializer_list<T> il) noexcept : ref_(il), has_(true) {}  // NOLINT
  constexpr OptionalArrayRef(const T& one) noexcept : ref_(one), has_(true) {}                // NOLINT

  constexpr bool has_value() const noexcept { return has_; }
  constexpr explicit operator bool() const noexcept { return has_; }
  constexpr const ArrayRef<T>& operator*() const noexcept { return ref_; }
  constexpr const ArrayRef<T>* operator->() const noexcept { return &ref_; }

 private:
  ArrayRef<T> ref_;
  bool has_ = false;
};
using OptionalIntArrayRef = OptionalArrayRef<int64_t>;

namespace detail {
// A list's data for a C parameter where NULL means None or the default: an
// empty list must still be a non-NULL pointer.
template <class T>
const T* list_data(ArrayRef<T> a) noexcept {
  static const T empty_list_marker{};
  return a.data() ? a.data() : &empty_list_marker;
}
}  // namespace detail

// The `reduction` of the loss ops (at::Reduction).
namespace Reduction {
enum Reduction : int64_t { None = 0, Mean = 1, Sum = 2 };
}  // namespace Reduction

// ---- random generators ----------------------------------------------------------------

// A Philox generator; copies share it (like at::Generator).
class Generator {
 public:
  explicit Generator(uint64_t seed) {
    tc_generator g = nullptr;
    detail::check(tc_generator_create(&g, seed));
    g_.reset(g, &tc_generator_release);
  }
  // The process-wide default generator.
  static Generator default_generator() {
    tc_generator g = nullptr;
    detail::check(tc_generator_default(&g));
    return Generator(g);
  }
  tc_generator get() const noexcept { return g_.get(); }
  void set_current_seed(uint64_t seed) { detail::check(tc_generator_set_seed(get(), seed)); }
  uint64_t current_seed() const {
    uint64_t s = 0;
    detail::check(tc_generator_seed(&s, get()));
    return s;
  }

 private:
  explicit Generator(tc_generator g) : g_(g, &tc_generator_release) {}
  std::shared_ptr<tc_generator_s> g_;
};

// Reseeds the default generator.
inline void manual_seed(uint64_t seed) { detail::check(tc_manual_seed(seed)); }

inline void set_num_threads(int n) { detail::check(tc_set_num_threads(n)); }
inline int get_num_threads() {
  int n = 0;
  detail::check(tc_get_num_threads(&n));
  return n;
}

// The library's version ("0.1.0"), which may differ from the header's TC_VERSION_STRING.
inline const char* version() noexcept { return tc_version_string(); }

}  // namespace tensorc
