// SPDX-License-Identifier: BSD-3-Clause
// One operator: its schema, every kernel registered for it per key, and the
// dispatch table computed from them with ATen's precedence.
#pragma once
#include <array>
#include <atomic>
#include <list>
#include <mutex>
#include <string>

#include "dispatch/kernel.h"
#include "dispatch/schema/model.h"

namespace tc {

class Dispatcher;

// Whether per-op, per-key call counters are on (tc_dispatch_set_counting).
extern std::atomic<bool> g_dispatch_counting;

class OperatorEntry {
 public:
  OperatorEntry(schema::FunctionSchema schema, std::string debug);

  const schema::FunctionSchema& schema() const { return schema_; }
  const std::string& name() const { return name_; }  // "add.Tensor", "myops::myadd"
  const std::string& base_name() const { return schema_.name.name; }

  // The kernel for a call with key set ks (already masked by thread-local
  // sets). Throws NotImplemented naming the op and the key when none.
  const KernelFunction& lookup(DispatchKeySet ks) const {
    DispatchKey k = (ks - DispatchKeySet::from_bits(fallthrough_mask_)).highest();
    if (__builtin_expect(k == DispatchKey::Undefined || !table_[uint8_t(k)].valid(), 0)) return lookup_slow(ks);
    if (__builtin_expect(g_dispatch_counting.load(std::memory_order_relaxed), 0))
      counters_[uint8_t(k)].fetch_add(1, std::memory_order_relaxed);
    return table_[uint8_t(k)];
  }
  // The key whose kernel a call with key set ks runs: the highest one that is
  // not a fallthrough for this op (what a boxed kernel is told it serves).
  DispatchKey dispatch_key(DispatchKeySet ks) const {
    return (ks - DispatchKeySet::from_bits(fallthrough_mask_)).highest();
  }
  // Boxed call from outside the dispatcher (tc_op_call, a runtime-defined
  // op): the schema's device rules first, as the generated functions apply
  // them (every tensor on one device unless device_check is off; the first
  // tensor's device made current unless device_guard is off), then the key
  // set from the stack's tensors and the thread-local sets.
  void call_boxed(Stack* stack) const;
  // Boxed call with an explicit key set (redispatch from a boxed kernel).
  void call_boxed(DispatchKeySet ks, Stack* stack) const;

  // ops.yaml's device_check and device_guard (both on for ops defined at run time).
  void set_device_rules(bool device_check, bool device_guard) {
    device_check_ = device_check;
    device_guard_ = device_guard;
  }
  bool device_check() const { return device_check_; }
  bool device_guard() const { return device_guard_; }

  int64_t call_count(DispatchKey k) const { return counters_[uint8_t(k)].load(std::memory_order_relaxed); }
  void reset_counters();
  // The computed table, one line per runtime key with where it came from.
  std::string dump_table() const;

 private:
  friend class Dispatcher;
  struct Registration {
    KernelFunction fn;
    std::string debug;
  };
  // No kernel at the highest key: loads that key's backend library if it is
  // one not yet loaded (CUDA) and looks again, else fails with why.
  const KernelFunction& lookup_slow(DispatchKeySet ks) const;
  [[noreturn]] void missing(DispatchKeySet ks) const;
  // Recomputes table_ (caller holds the dispatcher lock).
  void recompute(const std::array<std::pair<KernelFunction, std::string>, kNumRuntimeKeys>& fallbacks);

  schema::FunctionSchema schema_;
  std::string name_;
  std::string debug_;
  std::array<std::list<Registration>, kNumKeys> registered_;  // front = newest, active
  std::array<KernelFunction, kNumRuntimeKeys> table_;
  std::array<std::string, kNumRuntimeKeys> table_source_;
  uint32_t fallthrough_mask_ = 0;
  bool device_check_ = true, device_guard_ = true;
  mutable std::array<std::atomic<int64_t>, kNumRuntimeKeys> counters_{};
};

}  // namespace tc
