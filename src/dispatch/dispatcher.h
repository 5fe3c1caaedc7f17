// SPDX-License-Identifier: BSD-3-Clause
// The operator registry. Built-in operators and kernels are registered when
// the singleton is first used (generated register_ops.cpp); backends in other
// shared libraries and runtime-defined operators register later, any time.
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "dispatch/operator_entry.h"
#include "dispatch/tls.h"

namespace tc {

class Dispatcher {
 public:
  static Dispatcher& singleton();

  // Defines an operator from its schema text. Throws InvalidArgument on a
  // malformed schema or one already defined.
  OperatorEntry& def(std::string_view schema_text, std::string debug);
  OperatorEntry& def(schema::FunctionSchema schema, std::string debug);
  // "add.Tensor", "add" (default overload), "myops::myadd". nullptr if absent.
  OperatorEntry* find(std::string_view qualified_name);
  OperatorEntry& find_or_throw(std::string_view qualified_name);

  // Registers a kernel for a runtime or alias key; the newest wins.
  void register_kernel(OperatorEntry& op, DispatchKey key, KernelFunction fn, std::string debug);
  // A boxed fallback used for every op that has no kernel for `key`.
  void register_fallback(DispatchKey key, KernelFunction fn, std::string debug);

  std::vector<std::string> operator_names();
  void reset_counters();

 private:
  Dispatcher() = default;
  void recompute_all();  // caller holds mu_

  std::recursive_mutex mu_;
  std::unordered_map<std::string, std::unique_ptr<OperatorEntry>> ops_;
  std::array<std::pair<KernelFunction, std::string>, kNumRuntimeKeys> fallbacks_;
};

// The key set of a call: union of the tensors' keys plus the thread-local
// included set, minus the excluded set.
inline DispatchKeySet mask_tls(DispatchKeySet ks) {
  const LocalDispatchKeySet& l = local_dispatch_key_set();
  return (ks | l.included) - l.excluded;
}
DispatchKeySet key_set_of_stack(const Stack& stack, size_t nargs);

// Registers every built-in operator and kernel (generated).
void register_builtin_ops(Dispatcher& d);

}  // namespace tc
