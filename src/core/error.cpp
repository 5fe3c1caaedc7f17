// SPDX-License-Identifier: BSD-3-Clause
#include "core/error.h"

namespace tc {

const char* error_code_name(ErrorCode c) noexcept {
  switch (c) {
    case ErrorCode::Ok: return "ok";
    case ErrorCode::InvalidArgument: return "invalid argument";
    case ErrorCode::Type: return "type error";
    case ErrorCode::Index: return "index error";
    case ErrorCode::OutOfMemory: return "out of memory";
    case ErrorCode::NotImplemented: return "not implemented";
    case ErrorCode::Runtime: return "runtime error";
    case ErrorCode::Device: return "device error";
    case ErrorCode::Internal: return "internal error";
  }
  return "unknown error";
}

void throw_error(ErrorCode code, std::string msg) { throw Error(code, std::move(msg)); }

}  // namespace tc
