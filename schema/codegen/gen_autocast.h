// SPDX-License-Identifier: BSD-3-Clause
// The Autocast kernels the generator writes from ops.yaml's `autocast:`.
#pragma once
#include <string>

#include "codegen/gen_common.h"

namespace tc::codegen {

// Whether op gets an Autocast kernel: a functional op with a policy.
bool has_autocast(const OpInfo& op);
std::string autocast_kernel_name(const OpInfo& op);  // "autocast_mm"
// The kernel's definition (in namespace tc::autocast::generated).
std::string gen_autocast_kernel(const OpInfo& op);

}  // namespace tc::codegen
