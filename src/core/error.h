// SPDX-License-Identifier: BSD-3-Clause
// Errors inside the library are C++ exceptions carrying one of the C ABI's
// fixed status categories; the C ABI layer catches them at the boundary.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace tc {

// Values equal the C ABI's tc_status codes (append-only).
enum class ErrorCode : int {
  Ok = 0,
  InvalidArgument = 1,  // bad value or shape (Python: ValueError)
  Type = 2,             // wrong dtype or argument type (TypeError)
  Index = 3,            // dim or index out of range (IndexError)
  OutOfMemory = 4,      // allocation failed or size overflow (MemoryError)
  NotImplemented = 5,   // no kernel for this op / key / dtype (NotImplementedError)
  Runtime = 6,          // a valid request that failed while running (RuntimeError)
  Device = 7,           // tensors on the wrong or different devices (RuntimeError)
  Internal = 8,         // a bug in tensorc
};

const char* error_code_name(ErrorCode c) noexcept;

class Error : public std::exception {
 public:
  Error(ErrorCode code, std::string msg) : code_(code), msg_(std::move(msg)) {}
  ErrorCode code() const noexcept { return code_; }
  const char* what() const noexcept override { return msg_.c_str(); }
  const std::string& message() const noexcept { return msg_; }

 private:
  ErrorCode code_;
  std::string msg_;
};

namespace detail {
inline void str_append(std::ostringstream&) {}
template <class T, class... R>
void str_append(std::ostringstream& os, const T& v, const R&... rest) {
  os << v;
  str_append(os, rest...);
}
}  // namespace detail

// Concatenates anything streamable; used only on error paths.
template <class... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  detail::str_append(os, args...);
  return os.str();
}

[[noreturn]] void throw_error(ErrorCode code, std::string msg);

}  // namespace tc

// TC_CHECK(cond, Code, "op: argument 'x' expected ..., got ", value)
#define TC_CHECK(cond, code, ...)                                                                       \
  do {                                                                                                  \
    if (__builtin_expect(!(cond), 0)) ::tc::throw_error(::tc::ErrorCode::code, ::tc::str(__VA_ARGS__)); \
  } while (0)
#define TC_CHECK_ARG(cond, ...) TC_CHECK(cond, InvalidArgument, __VA_ARGS__)
#define TC_CHECK_TYPE(cond, ...) TC_CHECK(cond, Type, __VA_ARGS__)
#define TC_CHECK_INDEX(cond, ...) TC_CHECK(cond, Index, __VA_ARGS__)
#define TC_INTERNAL_ASSERT(cond, ...) TC_CHECK(cond, Internal, "internal error: ", #cond, " ", ##__VA_ARGS__)
#define TC_FAIL(code, ...) ::tc::throw_error(::tc::ErrorCode::code, ::tc::str(__VA_ARGS__))
