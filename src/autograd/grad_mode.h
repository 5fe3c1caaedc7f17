// SPDX-License-Identifier: BSD-3-Clause
// Grad mode: whether ops record the graph on this thread (thread-local, as
// in PyTorch). Guards restore the previous state.
#pragma once

namespace tc::autograd {

struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

// Sets grad mode for a scope (no_grad: AutoGradMode g(false)).
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : prev_(GradMode::is_enabled()) { GradMode::set_enabled(enabled); }
  ~AutoGradMode() { GradMode::set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};

struct NoGradGuard : AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};

// A stack of grad modes for callers without scopes (the C ABI's push/pop).
void push_grad_mode(bool enabled);
bool pop_grad_mode();  // false when the stack is empty

}  // namespace tc::autograd
