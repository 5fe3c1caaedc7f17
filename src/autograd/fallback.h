// SPDX-License-Identifier: BSD-3-Clause
#pragma once

namespace tc {
class Dispatcher;
namespace autograd {
// Registers the boxed Autograd fallback (see fallback.cpp).
void register_autograd_fallback(Dispatcher& d);
}  // namespace autograd
}  // namespace tc
