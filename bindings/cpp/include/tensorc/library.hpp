// SPDX-License-Identifier: BSD-3-Clause
// tensorc C++ wrapper: the dispatcher. Operators defined at run time and
// kernels written in C++ (a Library, in the spirit of torch::Library), boxed
// values (IValue), calling any op by name, calling the next kernel from
// inside one, and scoped dispatch key sets (Include/ExcludeDispatchKeyGuard).
// Part of the header-only wrapper over the C ABI; include <tensorc.hpp>.
//
// Every kernel reaches tensorc as a boxed C kernel (tc_library_impl_boxed):
// a trampoline converts the tc_value arguments to C++ values, runs the
// callable and converts its results back. An exception thrown by a kernel
// never crosses the C ABI: the trampoline catches it and returns an error
// status with its message; the wrapper call that then fails (call_op,
// DispatchCall::redispatch) rethrows the original exception.
#pragma once

#include <deque>
#include <initializer_list>
#include <tuple>
#include <variant>

#include "tensorc/tensor.hpp"

namespace tensorc {

// ---- dispatch keys ----------------------------------------------------------------

// The C ABI's dispatch keys (tc_dispatch_key). A call runs the kernel of the
// highest key in its key set; the two Composite keys are alias keys, for
// registration only.
enum class DispatchKey : int32_t {
  CPU = TC_KEY_CPU,
  CUDA = TC_KEY_CUDA,
  PrivateUse1 = TC_KEY_PRIVATEUSE1,
  Autograd = TC_KEY_AUTOGRAD,
  Tracer = TC_KEY_TRACER,
  Autocast = TC_KEY_AUTOCAST,
  Batched = TC_KEY_BATCHED,
  CompositeExplicitAutograd = TC_KEY_COMPOSITE_EXPLICIT_AUTOGRAD,
  CompositeImplicitAutograd = TC_KEY_COMPOSITE_IMPLICIT_AUTOGRAD,
};

inline const char* to_string(DispatchKey k) noexcept {
  switch (k) {
    case DispatchKey::CPU: return "CPU";
    case DispatchKey::CUDA: return "CUDA";
    case DispatchKey::PrivateUse1: return "PrivateUse1";
    case DispatchKey::Autograd: return "Autograd";
    case DispatchKey::Tracer: return "Tracer";
    case DispatchKey::Autocast: return "Autocast";
    case DispatchKey::Batched: return "Batched";
    case DispatchKey::CompositeExplicitAutograd: return "CompositeExplicitAutograd";
    case DispatchKey::CompositeImplicitAutograd: return "CompositeImplicitAutograd";
  }
  return "unknown dispatch key";
}
inline std::ostream& operator<<(std::ostream& os, DispatchKey k) { return os << to_string(k); }

// ---- thread-local key sets -----------------------------------------------------------

// This thread's included and excluded keys, which every dispatch on this
// thread applies (an excluded key wins over an included one).
struct LocalDispatchKeySet {
  uint32_t included = 0;
  uint32_t excluded = 0;
  bool is_included(DispatchKey k) const noexcept { return (included >> static_cast<int32_t>(k)) & 1u; }
  bool is_excluded(DispatchKey k) const noexcept { return (excluded >> static_cast<int32_t>(k)) & 1u; }
};

inline LocalDispatchKeySet local_dispatch_key_set() {
  tc_dispatch_tls_state s{};
  detail::check(tc_dispatch_tls_push(&s, -1, -1));  // adds nothing: reads the sets
  return LocalDispatchKeySet{s.included, s.excluded};
}

namespace detail {
// Adds every key for a scope; *saved gets the sets as they were. All or
// nothing: a key that is refused puts the sets back before throwing.
inline void push_keys(tc_dispatch_tls_state* saved, std::initializer_list<DispatchKey> keys, bool include) {
  check(tc_dispatch_tls_push(saved, -1, -1));
  for (DispatchKey k : keys) {
    tc_dispatch_tls_state ignored{};
    const auto code = static_cast<tc_dispatch_key>(k);
    const tc_status st = tc_dispatch_tls_push(&ignored, include ? code : -1, include ? -1 : code);
    if (st != TC_OK) {
      std::string msg = tc_last_error_message();
      tc_dispatch_tls_restore(saved);
      throw_status(static_cast<Status>(st), msg);
    }
  }
}
}  // namespace detail

// Within its scope, on this thread, dispatch skips `key` (c10's
// ExcludeDispatchKeyGuard): a kernel that has done its part excludes its key
// and calls the op again. The destructor puts back the sets as they were, so
// an inner guard never clears what an outer scope set. Guards end in reverse
// order of construction (scopes do); they are neither copyable nor movable.
//   { tensorc::ExcludeDispatchKeyGuard g(tensorc::DispatchKey::Autocast); ... }
// Throws InvalidArgumentError for an alias key.
class ExcludeDispatchKeyGuard {
 public:
  explicit ExcludeDispatchKeyGuard(DispatchKey key) { detail::push_keys(&saved_, {key}, false); }
  explicit ExcludeDispatchKeyGuard(std::initializer_list<DispatchKey> keys) { detail::push_keys(&saved_, keys, false); }
  ~ExcludeDispatchKeyGuard() { tc_dispatch_tls_restore(&saved_); }
  ExcludeDispatchKeyGuard(const ExcludeDispatchKeyGuard&) = delete;
  ExcludeDispatchKeyGuard& operator=(const ExcludeDispatchKeyGuard&) = delete;

 private:
  tc_dispatch_tls_state saved_{};
};

// Within its scope, on this thread, every dispatch includes `key` (c10's
// IncludeDispatchKeyGuard): turns on a layer such as Tracer for calls whose
// tensors do not carry it. Same rules as ExcludeDispatchKeyGuard.
class IncludeDispatchKeyGuard {
 public:
  explicit IncludeDispatchKeyGuard(DispatchKey key) { detail::push_keys(&saved_, {key}, true); }
  explicit IncludeDispatchKeyGuard(std::initializer_list<DispatchKey> keys) { detail::push_keys(&saved_, keys, true); }
  ~IncludeDispatchKeyGuard() { tc_dispatch_tls_restore(&saved_); }
  IncludeDispatchKeyGuard(const IncludeDispatchKeyGuard&) = delete;
  IncludeDispatchKeyGuard& operator=(const IncludeDispatchKeyGuard&) = delete;

 private:
  tc_dispatch_tls_state saved_{};
};

// ---- boxed values --------------------------------------------------------------------

// A generator argument: the handle, and a reference that keeps it alive when
// the value was made from a Generator (an argument tensorc passes to a kernel
// is only borrowed for the call).
struct GeneratorValue {
  tc_generator handle = nullptr;
  std::optional<Generator> owner;
};

// One boxed value, as the dispatcher passes arguments and results (c10's
// IValue): None, Tensor, int, float, bool, Scalar, string, int[], float[],
// bool[], Tensor[] (undefined entries for Tensor?[]), ScalarType, Device or
// Generator. Owns what it holds (tensors are retained), except a Scalar held
// by a tensor and a generator that a kernel received, which stay borrowed
// for the call.
class IValue {
 public:
  enum class Tag {
    None,
    Tensor,
    Int,
    Double,
    Bool,
    Scalar,
    String,
    IntList,
    DoubleList,
    BoolList,
    TensorVector,  // Tensor[] (not TensorList: GCC -Wshadow takes it for the alias)
    ScalarType,
    Device,
    Generator
  };

  IValue() noexcept = default;
  IValue(std::nullopt_t) noexcept {}               // NOLINT: implicit
  IValue(Tensor t) noexcept : v_(std::move(t)) {}  // NOLINT
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  IValue(T i) : v_(checked_int64(i)) {}  // NOLINT
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  IValue(T d) noexcept : v_(static_cast<double>(d)) {}            // NOLINT
  IValue(bool b) noexcept : v_(b) {}                              // NOLINT
  IValue(Scalar s) noexcept : v_(s) {}                            // NOLINT
  IValue(std::string s) noexcept : v_(std::move(s)) {}            // NOLINT
  IValue(const char* s) : v_(std::string(s)) {}                   // NOLINT
  IValue(std::string_view s) : v_(std::string(s)) {}              // NOLINT
  IValue(std::vector<int64_t> l) noexcept : v_(std::move(l)) {}   // NOLINT
  IValue(IntArrayRef l) : v_(l.vec()) {}                          // NOLINT
  IValue(std::vector<double> l) noexcept : v_(std::move(l)) {}    // NOLINT
  IValue(ArrayRef<double> l) : v_(l.vec()) {}                     // NOLINT
  IValue(std::vector<bool> l) noexcept : v_(std::move(l)) {}      // NOLINT
  IValue(std::vector<Tensor> l) noexcept : v_(std::move(l)) {}    // NOLINT
  IValue(TensorList l) : v_(l.vec()) {}                           // NOLINT
  IValue(ScalarType t) noexcept : v_(t) {}                        // NOLINT
  IValue(Device d) noexcept : v_(d) {}                            // NOLINT
  IValue(const Generator& g) : v_(GeneratorValue{g.get(), g}) {}  // NOLINT
  IValue(GeneratorValue g) noexcept : v_(std::move(g)) {}         // NOLINT
  template <class T>
  IValue(const std::optional<T>& o) : IValue() {  // NOLINT
    if (o) *this = IValue(*o);
  }

  Tag tag() const noexcept { return static_cast<Tag>(v_.index()); }
  const char* tag_name() const noexcept {
    static const char* const names[] = {"None",  "Tensor",  "int",    "float",    "bool",       "Scalar", "str",
                                        "int[]", "float[]", "bool[]", "Tensor[]", "ScalarType", "Device", "Generator"};
    return names[v_.index()];
  }
  bool isNone() const noexcept { return tag() == Tag::None; }
  bool isTensor() const noexcept { return tag() == Tag::Tensor; }
  bool isInt() const noexcept { return tag() == Tag::Int; }
  bool isDouble() const noexcept { return tag() == Tag::Double; }
  bool isBool() const noexcept { return tag() == Tag::Bool; }
  bool isScalar() const noexcept { return tag() == Tag::Scalar; }
  bool isString() const noexcept { return tag() == Tag::String; }
  bool isIntList() const noexcept { return tag() == Tag::IntList; }
  bool isDoubleList() const noexcept { return tag() == Tag::DoubleList; }
  bool isBoolList() const noexcept { return tag() == Tag::BoolList; }
  bool isTensorList() const noexcept { return tag() == Tag::TensorVector; }
  bool isScalarType() const noexcept { return tag() == Tag::ScalarType; }
  bool isDevice() const noexcept { return tag() == Tag::Device; }
  bool isGenerator() const noexcept { return tag() == Tag::Generator; }

  // The value; a TypeError names both types when it holds another one.
  const Tensor& toTensor() const& { return get<Tensor>("Tensor"); }
  Tensor toTensor() && { return std::move(get<Tensor>("Tensor")); }
  int64_t toInt() const { return get<int64_t>("int"); }
  // An int reads as a float too (the schema's `float` takes one).
  double toDouble() const { return isInt() ? static_cast<double>(toInt()) : get<double>("float"); }
  bool toBool() const { return get<bool>("bool"); }
  // A number of any kind reads as a Scalar.
  Scalar toScalar() const {
    switch (tag()) {
      case Tag::Int: return Scalar(toInt());
      case Tag::Double: return Scalar(std::get<double>(v_));
      case Tag::Bool: return Scalar(toBool());
      default: return get<Scalar>("Scalar");
    }
  }
  const std::string& toStringRef() const { return get<std::string>("str"); }
  const std::vector<int64_t>& toIntVector() const { return get<std::vector<int64_t>>("int[]"); }
  const std::vector<double>& toDoubleVector() const { return get<std::vector<double>>("float[]"); }
  const std::vector<bool>& toBoolList() const { return get<std::vector<bool>>("bool[]"); }
  const std::vector<Tensor>& toTensorVector() const& { return get<std::vector<Tensor>>("Tensor[]"); }
  std::vector<Tensor> toTensorVector() && { return std::move(get<std::vector<Tensor>>("Tensor[]")); }
  ScalarType toScalarType() const { return get<ScalarType>("ScalarType"); }
  Device toDevice() const { return get<Device>("Device"); }
  const GeneratorValue& toGenerator() const { return get<GeneratorValue>("Generator"); }

  // The value as a kernel parameter type (see Library::impl): Tensor,
  // std::optional<T>, integers, floating point, bool, Scalar, std::string,
  // std::string_view, std::vector<int64_t> / IntArrayRef, std::vector<double>
  // / ArrayRef<double>, std::vector<bool>, std::vector<Tensor> / TensorList,
  // ScalarType, Device, IValue. Views point into this IValue.
  template <class T>
  T to() const;

 private:
  template <class T>
  static int64_t checked_int64(T i) {
    if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(int64_t)) {
      if (i > static_cast<T>(std::numeric_limits<int64_t>::max()))
        throw InvalidArgumentError("tensorc::IValue: the unsigned value " + std::to_string(i) + " does not fit int64");
    }
    return static_cast<int64_t>(i);
  }
  template <class T>
  const T& get(const char* want) const {
    if (const T* p = std::get_if<T>(&v_)) return *p;
    throw TypeError(std::string("tensorc::IValue: expected a value of type ") + want + ", got " + tag_name());
  }
  template <class T>
  T& get(const char* want) {
    return const_cast<T&>(static_cast<const IValue*>(this)->get<T>(want));
  }

  std::variant<std::monostate, Tensor, int64_t, double, bool, Scalar, std::string, std::vector<int64_t>,
               std::vector<double>, std::vector<bool>, std::vector<Tensor>, ScalarType, Device, GeneratorValue>
      v_;
};

// The arguments or results of a boxed call, in schema order.
using Stack = std::vector<IValue>;

namespace detail {
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_tuple : std::false_type {};
template <class... T>
struct is_tuple<std::tuple<T...>> : std::true_type {};
}  // namespace detail

template <class T>
T IValue::to() const {
  if constexpr (std::is_same_v<T, IValue>) {
    return *this;
  } else if constexpr (detail::is_optional<T>::value) {
    if (isNone() || (isTensor() && !toTensor().defined())) return std::nullopt;
    return T(to<typename T::value_type>());
  } else if constexpr (std::is_same_v<T, Tensor>) {
    return isNone() ? Tensor() : toTensor();  // Tensor? as an undefined tensor
  } else if constexpr (std::is_same_v<T, bool>) {
    return toBool();
  } else if constexpr (std::is_integral_v<T>) {
    const int64_t i = toInt();
    if (i < int64_t(std::numeric_limits<T>::min()) || (i > 0 && uint64_t(i) > uint64_t(std::numeric_limits<T>::max())))
      throw RuntimeError("tensorc::IValue: the int " + std::to_string(i) + " does not fit the kernel's parameter type");
    return static_cast<T>(i);
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(toDouble());
  } else if constexpr (std::is_same_v<T, Scalar>) {
    return toScalar();
  } else if constexpr (std::is_same_v<T, std::string>) {
    return toStringRef();
  } else if constexpr (std::is_same_v<T, std::string_view>) {
    return std::string_view(toStringRef());
  } else if constexpr (std::is_same_v<T, std::vector<int64_t>> || std::is_same_v<T, IntArrayRef>) {
    return T(toIntVector());
  } else if constexpr (std::is_same_v<T, std::vector<double>> || std::is_same_v<T, ArrayRef<double>>) {
    return T(toDoubleVector());
  } else if constexpr (std::is_same_v<T, std::vector<bool>>) {
    return toBoolList();
  } else if constexpr (std::is_same_v<T, std::vector<Tensor>> || std::is_same_v<T, TensorList>) {
    return T(toTensorVector());
  } else if constexpr (std::is_same_v<T, ScalarType>) {
    return toScalarType();
  } else if constexpr (std::is_same_v<T, Device>) {
    return toDevice();
  } else if constexpr (std::is_same_v<T, GeneratorValue>) {
    return toGenerator();
  } else {
    static_assert(sizeof(T) == 0, "tensorc::IValue::to<T>: T is not a type a boxed value converts to");
  }
}

namespace detail {

// ---- between IValue and tc_value ----

// tc_values that borrow from a Stack (valid while both live).
class BorrowedValues {
 public:
  explicit BorrowedValues(const Stack& stack) {
    values_.reserve(stack.size());
    for (const IValue& v : stack) values_.push_back(borrow(v));
  }
  const tc_value* data() const noexcept { return values_.data(); }
  size_t size() const noexcept { return values_.size(); }

 private:
  tc_value borrow(const IValue& v) {
    tc_value c;
    std::memset(&c, 0, sizeof c);
    switch (v.tag()) {
      case IValue::Tag::None: c.tag = TC_VALUE_NONE; break;
      case IValue::Tag::Tensor:
        c.tag = TC_VALUE_TENSOR;  // an undefined tensor is NULL: None where Tensor? allows
        c.u.tensor = v.toTensor().get();
        break;
      case IValue::Tag::Int:
        c.tag = TC_VALUE_INT;
        c.u.i = v.toInt();
        break;
      case IValue::Tag::Double:
        c.tag = TC_VALUE_FLOAT;
        c.u.f = v.toDouble();
        break;
      case IValue::Tag::Bool:
        c.tag = TC_VALUE_BOOL;
        c.u.b = v.toBool();
        break;
      case IValue::Tag::Scalar:
        c.tag = TC_VALUE_SCALAR;
        c.u.scalar = v.toScalar().c();
        break;
      case IValue::Tag::String:
        c.tag = TC_VALUE_STRING;
        c.u.str = v.toStringRef().c_str();
        break;
      case IValue::Tag::IntList:
        c.tag = TC_VALUE_INT_LIST;
        c.u.ints.data = v.toIntVector().data();
        c.u.ints.len = v.toIntVector().size();
        break;
      case IValue::Tag::DoubleList:
        c.tag = TC_VALUE_FLOAT_LIST;
        c.u.floats.data = v.toDoubleVector().data();
        c.u.floats.len = v.toDoubleVector().size();
        break;
      case IValue::Tag::BoolList: {
        const std::vector<bool>& l = v.toBoolList();  // packed bits: copied out as bools
        bools_.emplace_back(new bool[l.empty() ? 1 : l.size()]);
        for (size_t i = 0; i < l.size(); ++i) bools_.back()[i] = l[i];
        c.tag = TC_VALUE_BOOL_LIST;
        c.u.bools.data = bools_.back().get();
        c.u.bools.len = l.size();
        break;
      }
      case IValue::Tag::TensorVector:
        c.tag = TC_VALUE_TENSOR_LIST;
        c.u.tensors.data = handles(v.toTensorVector());
        c.u.tensors.len = v.toTensorVector().size();
        break;
      case IValue::Tag::ScalarType:
        c.tag = TC_VALUE_DTYPE;
        c.u.dtype = to_c(v.toScalarType());
        break;
      case IValue::Tag::Device:
        c.tag = TC_VALUE_DEVICE;
        c.u.device = to_c(v.toDevice());
        break;
      case IValue::Tag::Generator:
        c.tag = TC_VALUE_GENERATOR;
        c.u.generator = v.toGenerator().handle;
        break;
    }
    return c;
  }

  std::vector<tc_value> values_;
  std::deque<std::unique_ptr<bool[]>> bools_;
};

// A borrowed argument as an IValue (tensors retained; a generator and a
// tensor-held Scalar stay borrowed).
inline IValue from_borrowed(const tc_value& v, size_t index) {
  auto tensor_or_none = [](tc_tensor h) { return h ? IValue(Tensor::borrow(h)) : IValue(); };
  switch (v.tag) {
    case TC_VALUE_NONE: return IValue();
    case TC_VALUE_TENSOR: return tensor_or_none(v.u.tensor);
    case TC_VALUE_INT: return IValue(v.u.i);
    case TC_VALUE_FLOAT: return IValue(v.u.f);
    case TC_VALUE_BOOL: return IValue(v.u.b);
    case TC_VALUE_SCALAR: return IValue(Scalar(v.u.scalar));
    case TC_VALUE_STRING: return IValue(std::string(v.u.str ? v.u.str : ""));
    case TC_VALUE_INT_LIST: return IValue(std::vector<int64_t>(v.u.ints.data, v.u.ints.data + v.u.ints.len));
    case TC_VALUE_FLOAT_LIST: return IValue(std::vector<double>(v.u.floats.data, v.u.floats.data + v.u.floats.len));
    case TC_VALUE_BOOL_LIST: return IValue(std::vector<bool>(v.u.bools.data, v.u.bools.data + v.u.bools.len));
    case TC_VALUE_TENSOR_LIST: {
      std::vector<Tensor> l;
      l.reserve(v.u.tensors.len);
      for (size_t i = 0; i < v.u.tensors.len; ++i)
        l.push_back(v.u.tensors.data[i] ? Tensor::borrow(v.u.tensors.data[i]) : Tensor());
      return IValue(std::move(l));
    }
    case TC_VALUE_DTYPE: return IValue(static_cast<ScalarType>(v.u.dtype));
    case TC_VALUE_DEVICE: return IValue(from_c(v.u.device));
    case TC_VALUE_GENERATOR: return v.u.generator ? IValue(GeneratorValue{v.u.generator, std::nullopt}) : IValue();
    default:
      throw TypeError("tensorc: boxed argument " + std::to_string(index) + " has the unknown value tag " +
                      std::to_string(v.tag));
  }
}

inline Stack from_borrowed(const tc_value* args, size_t n) {
  Stack s;
  s.reserve(n);
  for (size_t i = 0; i < n; ++i) s.push_back(from_borrowed(args[i], i));
  return s;
}

// Takes ownership of the outputs of a C call (tc_op_call, redispatch). Every
// handle is owned before anything can throw; what is left is released.
inline Stack take_outputs(tc_value* outs, size_t n) {
  struct ReleaseRest {
    tc_value* v;
    size_t n;
    ~ReleaseRest() { tc_values_release(v, n); }
  } rest{outs, n};
  Stack s;
  s.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const tc_value v = outs[i];
    outs[i].tag = TC_VALUE_NONE;  // ours from here on
    switch (v.tag) {
      case TC_VALUE_TENSOR: s.emplace_back(Tensor::adopt(v.u.tensor)); break;
      case TC_VALUE_LIST_HANDLE: s.emplace_back(adopt_list(v.u.list)); break;
      default: s.push_back(from_borrowed(v, i)); break;
    }
  }
  return s;
}

// A result of a C++ kernel into tensorc's output slot (a new reference for a
// tensor). Only values that own nothing on the C++ side can cross: the
// dispatcher reads the outputs after the kernel returned.
inline void put_output(IValue&& v, tc_value* outs, size_t cap, size_t* n_outs) {
  if (*n_outs >= cap)
    throw RuntimeError("tensorc kernel: returned more than the " + std::to_string(cap) + " values the op can take");
  tc_value c;
  std::memset(&c, 0, sizeof c);
  switch (v.tag()) {
    case IValue::Tag::None: c.tag = TC_VALUE_NONE; break;
    case IValue::Tag::Tensor:
      c.tag = TC_VALUE_TENSOR;
      c.u.tensor = std::move(v).toTensor().release();
      break;
    case IValue::Tag::TensorVector: {
      const std::vector<Tensor>& l = v.toTensorVector();
      for (const Tensor& t : l)
        if (!t.defined()) throw RuntimeError("tensorc kernel: a returned Tensor[] holds an undefined tensor");
      check(tc_tensor_list_create(&c.u.list, handles(l), l.size()));
      c.tag = TC_VALUE_LIST_HANDLE;
      break;
    }
    case IValue::Tag::Int:
      c.tag = TC_VALUE_INT;
      c.u.i = v.toInt();
      break;
    case IValue::Tag::Double:
      c.tag = TC_VALUE_FLOAT;
      c.u.f = v.toDouble();
      break;
    case IValue::Tag::Bool:
      c.tag = TC_VALUE_BOOL;
      c.u.b = v.toBool();
      break;
    case IValue::Tag::Scalar:
      if (v.toScalar().is_tensor())
        throw TypeError("tensorc kernel: cannot return a Scalar held by a tensor; return the tensor");
      c.tag = TC_VALUE_SCALAR;
      c.u.scalar = v.toScalar().c();
      break;
    case IValue::Tag::ScalarType:
      c.tag = TC_VALUE_DTYPE;
      c.u.dtype = to_c(v.toScalarType());
      break;
    case IValue::Tag::Device:
      c.tag = TC_VALUE_DEVICE;
      c.u.device = to_c(v.toDevice());
      break;
    default:
      throw TypeError(std::string("tensorc kernel: cannot return a value of type ") + v.tag_name() +
                      " (its storage would not outlive the kernel)");
  }
  outs[*n_outs] = c;
  ++*n_outs;  // counted at once: on a later failure tensorc releases it
}

template <class R>
void put_results(R&& r, tc_value* outs, size_t cap, size_t* n_outs) {
  using D = std::decay_t<R>;
  if constexpr (std::is_same_v<D, Stack>) {
    for (IValue& v : r) put_output(std::move(v), outs, cap, n_outs);
  } else if constexpr (is_tuple<D>::value) {
    std::apply([&](auto&... e) { (put_output(IValue(std::move(e)), outs, cap, n_outs), ...); }, r);
  } else {
    put_output(IValue(std::forward<R>(r)), outs, cap, n_outs);
  }
}

template <class R, size_t... I>
R tuple_from_stack(const Stack& r, std::index_sequence<I...>) {
  return R(r[I].template to<std::tuple_element_t<I, R>>()...);
}

// A Stack of results as the C++ type a caller asked for.
template <class R>
R unpack_results(Stack&& r, const char* what) {
  auto need = [&](size_t n) {
    if (r.size() != n)
      throw RuntimeError(std::string(what) + ": the op returned " + std::to_string(r.size()) + " values, not " +
                         std::to_string(n));
  };
  if constexpr (std::is_void_v<R>) {
    (void)need;
  } else if constexpr (std::is_same_v<R, Stack>) {
    (void)need;
    return std::move(r);
  } else if constexpr (is_tuple<R>::value) {
    need(std::tuple_size_v<R>);
    return tuple_from_stack<R>(r, std::make_index_sequence<std::tuple_size_v<R>>{});
  } else {
    need(1);
    return r[0].template to<R>();
  }
}

// At most this many results from one boxed call (tc_op_call's outs_cap).
constexpr size_t kMaxReturns = 64;

// ---- registration ----

// tensorc's user_data_free for a registered payload: runs once, when the
// registration is replaced (never for a registration that failed).
template <class P>
void destroy_payload(void* p) noexcept {
  delete static_cast<P*>(p);
}

}  // namespace detail

// ---- a call in progress ------------------------------------------------------------------

// The call a kernel is running for: its op, its key, its arguments as tensorc
// passed them, and the way to the next kernel. Valid only during the kernel.
class DispatchCall {
 public:
  DispatchCall(tc_dispatch_ctx ctx, const tc_value* args, size_t nargs) noexcept
      : ctx_(ctx), args_(args), nargs_(nargs) {}
  DispatchCall(const DispatchCall&) = delete;
  DispatchCall& operator=(const DispatchCall&) = delete;

  // The qualified name ("add.Tensor", "myops::myadd"), owned by tensorc.
  const char* op_name() const {
    const char* name = nullptr;
    detail::check(tc_dispatch_ctx_info(&name, nullptr, ctx_));
    return name;
  }
  // The key this kernel runs for (a fallback learns which layer it is).
  DispatchKey key() const {
    tc_dispatch_key k = -1;
    detail::check(tc_dispatch_ctx_info(nullptr, &k, ctx_));
    return static_cast<DispatchKey>(k);
  }
  size_t num_arguments() const noexcept { return nargs_; }
  // The arguments, converted (schema order; defaults filled in).
  Stack arguments() const { return detail::from_borrowed(args_, nargs_); }
  const tc_value* raw_arguments() const noexcept { return args_; }
  tc_dispatch_ctx handle() const noexcept { return ctx_; }

  // Calls the kernel below this one's key with the arguments as received.
  Stack redispatch() const { return run(args_, nargs_); }
  // ... with other arguments (schema order).
  Stack redispatch(const Stack& args) const {
    detail::BorrowedValues b(args);
    return run(b.data(), b.size());
  }
  // ... typed: call.redispatch<Tensor>(self, other).
  template <class R, class... A>
  R redispatch(const A&... args) const {
    return detail::unpack_results<R>(redispatch(Stack{IValue(args)...}), "tensorc::DispatchCall::redispatch");
  }

 private:
  Stack run(const tc_value* args, size_t n) const {
    std::array<tc_value, detail::kMaxReturns> outs{};
    size_t n_outs = 0;
    detail::check(tc_dispatch_redispatch(outs.data(), outs.size(), &n_outs, ctx_, args, n));
    return detail::take_outputs(outs.data(), n_outs);
  }

  tc_dispatch_ctx ctx_;
  const tc_value* args_;
  size_t nargs_;
};

// ---- calling an op by name -------------------------------------------------------------

// Calls any operator by name ("add.Tensor", "sum", "myops::myadd") with
// boxed arguments in schema order; trailing ones may be left out for their
// defaults. Tensor[] results come back as a std::vector<Tensor>.
inline Stack call_op(std::string_view op, const Stack& args) {
  const std::string name(op);
  detail::BorrowedValues b(args);
  std::array<tc_value, detail::kMaxReturns> outs{};
  size_t n_outs = 0;
  detail::check(tc_op_call(outs.data(), outs.size(), &n_outs, name.c_str(), b.data(), b.size()));
  return detail::take_outputs(outs.data(), n_outs);
}
// Typed: Tensor y = call_op<Tensor>("myops::myadd", a, b);
// R: void, Tensor, std::tuple<...>, Stack or any type IValue::to<R> gives.
template <class R, class... A>
R call_op(std::string_view op, const A&... args) {
  return detail::unpack_results<R>(call_op(op, Stack{IValue(args)...}), "tensorc::call_op");
}

// The schema of an op ("myops::myadd(Tensor self, Tensor other) -> Tensor").
inline std::string op_schema(std::string_view op) {
  const std::string name(op);
  return detail::c_string([&](char* b, size_t c, size_t* n) { return tc_op_schema(b, c, n, name.c_str()); });
}
// Where each runtime key's kernel of an op comes from, one line per key.
inline std::string op_dump_table(std::string_view op) {
  const std::string name(op);
  return detail::c_string([&](char* b, size_t c, size_t* n) { return tc_op_dump_table(b, c, n, name.c_str()); });
}

// ---- kernels ---------------------------------------------------------------------------

namespace detail {

// The parameter and return types of a callable with one call signature.
template <class F>
struct callable_traits : callable_traits<decltype(&F::operator())> {};
template <class R, class... A>
struct callable_traits<R(A...)> {
  using result = R;
  using params = std::tuple<A...>;
};
template <class R, class... A>
struct callable_traits<R (*)(A...)> : callable_traits<R(A...)> {};
template <class R, class... A>
struct callable_traits<R (*)(A...) noexcept> : callable_traits<R(A...)> {};
template <class C, class R, class... A>
struct callable_traits<R (C::*)(A...)> : callable_traits<R(A...)> {};
template <class C, class R, class... A>
struct callable_traits<R (C::*)(A...) const> : callable_traits<R(A...)> {};
template <class C, class R, class... A>
struct callable_traits<R (C::*)(A...) noexcept> : callable_traits<R(A...)> {};
template <class C, class R, class... A>
struct callable_traits<R (C::*)(A...) const noexcept> : callable_traits<R(A...)> {};

template <class Params>
struct takes_call : std::false_type {};
template <class First, class... Rest>
struct takes_call<std::tuple<First, Rest...>> : std::is_same<std::decay_t<First>, DispatchCall> {};

template <class Tuple, size_t Skip, class Seq>
struct drop_front_impl;
template <class Tuple, size_t Skip, size_t... I>
struct drop_front_impl<Tuple, Skip, std::index_sequence<I...>> {
  using type = std::tuple<std::decay_t<std::tuple_element_t<I + Skip, Tuple>>...>;
};
// The value types a kernel's C++ parameters are made from (past DispatchCall).
template <class Tuple, size_t Skip>
using arg_values =
    typename drop_front_impl<Tuple, Skip, std::make_index_sequence<std::tuple_size_v<Tuple> - Skip>>::type;

// A kernel with C++ parameters: `R f([const DispatchCall&,] Args...)`.
template <class F>
struct TypedKernel {
  using Traits = callable_traits<F>;
  static constexpr bool kTakesCall = takes_call<typename Traits::params>::value;
  using Values = arg_values<typename Traits::params, kTakesCall ? 1 : 0>;
  static constexpr size_t kArity = std::tuple_size_v<Values>;

  void run(const DispatchCall& call, tc_value* outs, size_t cap, size_t* n_outs) {
    if (call.num_arguments() != kArity)
      throw TypeError(std::string(call.op_name()) + ": the C++ kernel takes " + std::to_string(kArity) +
                      " arguments, the call has " + std::to_string(call.num_arguments()));
    const Stack args = call.arguments();  // views made below point into it
    Values values = convert(args, std::make_index_sequence<kArity>{});
    auto invoke = [&](auto&... v) -> decltype(auto) {
      if constexpr (kTakesCall)
        return fn(call, v...);
      else
        return fn(v...);
    };
    if constexpr (std::is_void_v<typename Traits::result>)
      std::apply(invoke, values);
    else
      put_results(std::apply(invoke, values), outs, cap, n_outs);
  }

  template <size_t... I>
  static Values convert(const Stack& args, std::index_sequence<I...>) {
    return Values(args[I].template to<std::tuple_element_t<I, Values>>()...);
  }

  F fn;
};

// A boxed kernel: `R f(const DispatchCall&, Stack&)` or `R f(const DispatchCall&)`
// (which reads call.arguments() itself, or forwards them with call.redispatch()).
template <class F>
struct BoxedKernel {
  void run(const DispatchCall& call, tc_value* outs, size_t cap, size_t* n_outs) {
    if constexpr (std::is_invocable_v<F&, const DispatchCall&, Stack&>) {
      Stack args = call.arguments();
      using R = std::invoke_result_t<F&, const DispatchCall&, Stack&>;
      if constexpr (std::is_void_v<R>)
        fn(call, args);
      else
        put_results(fn(call, args), outs, cap, n_outs);
    } else {
      static_assert(std::is_invocable_v<F&, const DispatchCall&>,
                    "a boxed kernel is callable as f(const DispatchCall&, Stack&) or f(const DispatchCall&)");
      using R = std::invoke_result_t<F&, const DispatchCall&>;
      if constexpr (std::is_void_v<R>)
        fn(call);
      else
        put_results(fn(call), outs, cap, n_outs);
    }
  }
  F fn;
};

template <class K>
tc_status kernel_trampoline(tc_dispatch_ctx ctx, const tc_value* args, size_t nargs, tc_value* outs, size_t cap,
                            size_t* n_outs, void* user_data) noexcept {
  size_t written = 0;
  try {
    DispatchCall call(ctx, args, nargs);
    static_cast<K*>(user_data)->run(call, outs, cap, &written);
    *n_outs = written;
    return TC_OK;
  } catch (...) {
    *n_outs = written;  // tensorc releases what was already written
    return stash_current_exception();
  }
}

// Hands a kernel to tensorc: `reg(trampoline, payload, destroy)` is the C
// registration call. The payload belongs to tensorc once the call succeeds.
template <class K, class Register>
void register_kernel(K kernel, Register&& reg) {
  auto payload = std::make_unique<K>(std::move(kernel));
  const tc_status st = reg(&kernel_trampoline<K>, static_cast<void*>(payload.get()), &destroy_payload<K>);
  if (st == TC_OK) payload.release();
  check(st);  // on failure the payload is destroyed after the message was read
}

}  // namespace detail

// ---- Library ---------------------------------------------------------------------------

// Defines operators and registers kernels for one namespace, like
// torch::Library:
//
//   tensorc::Library lib("myops", tensorc::Library::Kind::Def);
//   lib.def("myadd(Tensor self, Tensor other, float alpha=1.0) -> Tensor");
//   lib.impl("myadd", tensorc::DispatchKey::CPU,
//            [](const Tensor& a, const Tensor& b, double alpha) { return a + b * alpha; });
//   Tensor y = tensorc::call_op<Tensor>("myops::myadd", x, x);
//
// Names without "::" are taken in the library's namespace; "aten" is the
// namespace of tensorc's built-in operators ("add.Tensor"). Registrations are
// process-wide and permanent: the Library object is only the means to make
// them, and its destruction undoes nothing. A newer kernel for the same op and
// key takes precedence over an older one. Registration is thread-safe, but
// do it before other threads call the ops it changes. Failures throw the
// matching Error (a malformed schema, an op defined twice, an unknown op).
class Library {
 public:
  // Def: may define ops and register kernels. Fragment: the same, for a
  // namespace that another Library also defines ops in. Impl: kernels and
  // fallbacks only (for ops defined elsewhere), usually for one key.
  enum class Kind { Def, Impl, Fragment };

  static constexpr const char* kBuiltinNamespace = "aten";

  explicit Library(std::string ns, Kind kind = Kind::Def, std::optional<DispatchKey> key = std::nullopt)
      : ns_(std::move(ns)), kind_(kind), key_(key) {
    if (ns_.empty() || ns_.find(':') != std::string::npos)
      throw InvalidArgumentError("tensorc::Library: the namespace '" + ns_ + "' is empty or holds ':'");
  }

  const std::string& ns() const noexcept { return ns_; }
  Kind kind() const noexcept { return kind_; }
  std::optional<DispatchKey> key() const noexcept { return key_; }

  // The op name in this library's namespace: "myadd" -> "myops::myadd".
  std::string qualified_name(std::string_view name) const {
    const size_t colons = name.find("::");
    if (colons == std::string_view::npos)
      return ns_ == kBuiltinNamespace ? std::string(name) : ns_ + "::" + std::string(name);
    if (name.substr(0, colons) != ns_)
      throw InvalidArgumentError("tensorc::Library: '" + std::string(name) + "' is not in the library's namespace '" +
                                 ns_ + "'");
    return std::string(name);
  }

  // Defines an op from its schema: "myadd(Tensor self, Tensor other) -> Tensor".
  Library& def(std::string_view schema) {
    if (kind_ == Kind::Impl)
      throw InvalidArgumentError("tensorc::Library: an Impl library for '" + ns_ + "' cannot define ops");
    size_t start = 0;
    while (start < schema.size() && (schema[start] == ' ' || schema[start] == '\t' || schema[start] == '\n')) ++start;
    const size_t paren = schema.find('(', start);
    const std::string_view name = schema.substr(start, paren == std::string_view::npos ? paren : paren - start);
    const std::string text =
        qualified_name(name) + std::string(paren == std::string_view::npos ? "" : schema.substr(paren));
    detail::check(tc_library_def(text.c_str()));
    return *this;
  }
  // Defines an op and registers `f` for CompositeImplicitAutograd (torch's
  // m.def(schema, fn)): every backend runs it, and autograd goes through the
  // ops it calls.
  template <class F>
  Library& def(std::string_view schema, F&& f) {
    def(schema);
    const size_t start = schema.find_first_not_of(" \t\n");
    const size_t end = schema.find('(', start);
    return impl(schema.substr(start, end - start), DispatchKey::CompositeImplicitAutograd, std::forward<F>(f));
  }

  // Registers a C++ kernel for op `name` and `key` (a runtime or alias key).
  // `f` is a function or a lambda with one call signature:
  //   R f([const DispatchCall& call,] Args... args)
  // Args, in schema order (defaults filled in): const Tensor& (undefined for
  // None), std::optional<T>, int64_t (or another integer type), double, bool,
  // Scalar, std::string / std::string_view, std::vector<int64_t> /
  // IntArrayRef, std::vector<double>, std::vector<bool>, std::vector<Tensor>
  // / TensorList, ScalarType, Device, IValue. R: void, Tensor,
  // std::tuple<Tensor, ...>, std::vector<Tensor> (Tensor[]), int64_t, double,
  // bool, Scalar, ScalarType, IValue or Stack (one IValue per return).
  // `f` is copied to the heap and lives as long as the registration; it may
  // run on any thread, several at once.
  template <class F>
  Library& impl(std::string_view name, DispatchKey key, F&& f) {
    register_kernel(name, key, detail::TypedKernel<std::decay_t<F>>{std::forward<F>(f)});
    return *this;
  }
  // The same for the library's key.
  template <class F>
  Library& impl(std::string_view name, F&& f) {
    return impl(name, required_key("impl"), std::forward<F>(f));
  }

  // Registers a boxed kernel: `R f(const DispatchCall& call, Stack& args)`
  // or `R f(const DispatchCall& call)`, R as for impl (Stack for any results).
  template <class F>
  Library& impl_boxed(std::string_view name, DispatchKey key, F&& f) {
    register_kernel(name, key, detail::BoxedKernel<std::decay_t<F>>{std::forward<F>(f)});
    return *this;
  }

  // Registers a boxed fallback for a runtime key: it runs for every op that
  // has no kernel of its own for `key`, and usually ends with
  // call.redispatch(...). A newer fallback replaces the older one, whose
  // callable is then destroyed.
  template <class F>
  Library& fallback(DispatchKey key, F&& f) {
    using K = detail::BoxedKernel<std::decay_t<F>>;
    detail::register_kernel(K{std::forward<F>(f)}, [&](tc_boxed_kernel fn, void* data, void (*free_fn)(void*)) {
      return tc_library_fallback(static_cast<tc_dispatch_key>(key), fn, data, free_fn);
    });
    return *this;
  }
  template <class F>
  Library& fallback(F&& f) {
    return fallback(required_key("fallback"), std::forward<F>(f));
  }
  // Makes `key` a fallthrough for every op without a kernel of its own for
  // it: the key is skipped (Tracer's and Autocast's default).
  static void fallthrough(DispatchKey key) {
    detail::check(tc_library_fallback(static_cast<tc_dispatch_key>(key), nullptr, nullptr, nullptr));
  }

 private:
  DispatchKey required_key(const char* what) const {
    if (!key_)
      throw InvalidArgumentError(std::string("tensorc::Library::") + what + ": the library for '" + ns_ +
                                 "' has no dispatch key; pass one");
    return *key_;
  }
  template <class K>
  void register_kernel(std::string_view name, DispatchKey key, K kernel) {
    const std::string op = qualified_name(name);
    detail::register_kernel(std::move(kernel), [&](tc_boxed_kernel fn, void* data, void (*free_fn)(void*)) {
      return tc_library_impl_boxed(op.c_str(), static_cast<tc_dispatch_key>(key), fn, data, free_fn);
    });
  }

  std::string ns_;
  Kind kind_;
  std::optional<DispatchKey> key_;
};

namespace detail {
// Runs a TENSORC_LIBRARY block when the program (or library) is loaded.
struct StaticLibraryInit {
  StaticLibraryInit(const char* ns, Library::Kind kind, std::optional<DispatchKey> key, void (*init)(Library&)) {
    Library lib(ns, kind, key);
    init(lib);
  }
};
}  // namespace detail

}  // namespace tensorc

#define TENSORC_LIBRARY_CONCAT_(a, b) a##b
#define TENSORC_LIBRARY_CONCAT(a, b) TENSORC_LIBRARY_CONCAT_(a, b)
#define TENSORC_LIBRARY_BLOCK_(ns, kind, key, m, uid)                                                     \
  static void TENSORC_LIBRARY_CONCAT(tensorc_library_init_, uid)(::tensorc::Library&);                    \
  static const ::tensorc::detail::StaticLibraryInit TENSORC_LIBRARY_CONCAT(tensorc_library_static_, uid)( \
      #ns, ::tensorc::Library::Kind::kind, key, &TENSORC_LIBRARY_CONCAT(tensorc_library_init_, uid));     \
  static void TENSORC_LIBRARY_CONCAT(tensorc_library_init_, uid)(::tensorc::Library & m)

// Static registration, run when the program or shared library is loaded
// (an exception thrown there ends the program):
//   TENSORC_LIBRARY(myops, m) { m.def("myadd(Tensor self, Tensor other) -> Tensor"); }
//   TENSORC_LIBRARY_IMPL(myops, CPU, m) { m.impl("myadd", [](const Tensor& a, const Tensor& b) { return a + b; }); }
#define TENSORC_LIBRARY(ns, m) TENSORC_LIBRARY_BLOCK_(ns, Def, std::nullopt, m, __COUNTER__)
#define TENSORC_LIBRARY_FRAGMENT(ns, m) TENSORC_LIBRARY_BLOCK_(ns, Fragment, std::nullopt, m, __COUNTER__)
#define TENSORC_LIBRARY_IMPL(ns, key, m) TENSORC_LIBRARY_BLOCK_(ns, Impl, ::tensorc::DispatchKey::key, m, __COUNTER__)
