// SPDX-License-Identifier: BSD-3-Clause
// The thread-local last error of the C ABI: set_error / set_op_error record
// it (never throwing), tc_last_error_* read it.
#include <cstring>
#include <string>

#include "capi/handles.h"

namespace tc::capi {
namespace {

struct LastError {
  tc_status code = TC_OK;
  std::string message;
  // Used instead of `message` when storing the real one ran out of memory.
  const char* fallback = nullptr;
};

thread_local LastError tls_last_error;

// Stores "prefix: message" (or just message when prefix is null). The text
// is built aside first, so `message` may point into the current last error.
tc_status record(tc_status code, const char* prefix, const char* message, size_t message_len) noexcept {
  LastError& e = tls_last_error;
  try {
    std::string text;
    if (prefix) {
      text.append(prefix);
      text.append(": ");
    }
    text.append(message, message_len);
    e.message.swap(text);
    e.fallback = nullptr;
  } catch (...) {
    e.message.clear();
    e.fallback = "out of memory while recording the error message";
  }
  e.code = code;
  return code;
}

// Whether `message` starts with `op` followed by ':', '(' or ' ', i.e.
// already names the op.
bool names_op(const std::string& message, const char* op) {
  size_t n = std::strlen(op);
  if (n == 0 || message.size() <= n || message.compare(0, n, op) != 0) return false;
  char c = message[n];
  return c == ':' || c == '(' || c == ' ' || c == '.';
}

}  // namespace

tc_status set_error(ErrorCode code, const std::string& message) {
  return record(static_cast<tc_status>(code), nullptr, message.data(), message.size());
}

tc_status set_op_error(const char* op_qualified, const char* op_base, ErrorCode code, const std::string& message) {
  bool prefix = op_qualified && !(names_op(message, op_qualified) || (op_base && names_op(message, op_base)));
  return record(static_cast<tc_status>(code), prefix ? op_qualified : nullptr, message.data(), message.size());
}

}  // namespace tc::capi

extern "C" {

TC_API tc_status tc_last_error_code(void) { return tc::capi::tls_last_error.code; }

TC_API const char* tc_last_error_message(void) {
  const auto& e = tc::capi::tls_last_error;
  return e.fallback ? e.fallback : e.message.c_str();
}

TC_API void tc_error_clear(void) {
  auto& e = tc::capi::tls_last_error;
  e.code = TC_OK;
  e.message.clear();
  e.fallback = nullptr;
}

TC_API tc_status tc_error_set(tc_status code, const char* message) {
  if (code == TC_OK) {
    tc_error_clear();
    return TC_OK;
  }
  if (!message) message = "";
  return tc::capi::record(code, nullptr, message, std::strlen(message));
}

TC_API const char* tc_status_name(tc_status code) { return tc::error_code_name(static_cast<tc::ErrorCode>(code)); }

}  // extern "C"

void tc::capi::write_string(char* buf, size_t capacity, size_t* needed, const std::string& s, const char* fn) {
  TC_CHECK_ARG(buf || capacity == 0, fn, ": argument 'buf' is NULL but 'capacity' is ", capacity);
  if (capacity > 0) {
    const size_t n = s.size() < capacity - 1 ? s.size() : capacity - 1;
    std::memcpy(buf, s.data(), n);
    buf[n] = '\0';
  }
  if (needed) *needed = s.size() + 1;
}

void tc::capi::throw_callback_status(tc_status st, const std::string& who) {
  std::string msg = tc_last_error_code() == st ? tc_last_error_message() : "";
  if (msg.empty()) msg = who + " failed with status " + std::to_string(int(st)) + " (" + tc_status_name(st) + ")";
  const int code = st >= 1 && st <= 8 ? int(st) : int(tc::ErrorCode::Runtime);
  throw tc::Error(static_cast<tc::ErrorCode>(code), msg);
}
