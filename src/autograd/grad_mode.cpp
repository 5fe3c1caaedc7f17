// SPDX-License-Identifier: BSD-3-Clause
#include "autograd/grad_mode.h"

#include <vector>

namespace tc::autograd {
namespace {
thread_local bool t_grad_enabled = true;
thread_local std::vector<bool> t_saved_modes;
}  // namespace

bool GradMode::is_enabled() { return t_grad_enabled; }
void GradMode::set_enabled(bool enabled) { t_grad_enabled = enabled; }

void push_grad_mode(bool enabled) {
  t_saved_modes.push_back(t_grad_enabled);
  t_grad_enabled = enabled;
}

bool pop_grad_mode() {
  if (t_saved_modes.empty()) return false;
  t_grad_enabled = t_saved_modes.back();
  t_saved_modes.pop_back();
  return true;
}

}  // namespace tc::autograd
