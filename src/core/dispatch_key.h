// SPDX-License-Identifier: BSD-3-Clause
// Dispatch keys live beside the tensor (as in c10) because every TensorImpl
// carries the key set the dispatcher reads on the hot path; the dispatcher
// floor owns what the keys mean.
#pragma once
#include <cstdint>

namespace tc {

// Runtime keys, low to high priority. Values are the C ABI's tc_dispatch_key codes.
enum class DispatchKey : uint8_t {
  CPU = 0,
  CUDA = 1,
  PrivateUse1 = 2,  // the out-of-tree backend
  Autograd = 3,
  Tracer = 4,
  Autocast = 5,
  Batched = 6,
  // Alias keys: only for registration, expanded to runtime keys.
  CompositeExplicitAutograd = 7,
  CompositeImplicitAutograd = 8,
  Undefined = 255,
};
constexpr int kNumRuntimeKeys = 7;
constexpr int kNumKeys = 9;

const char* dispatch_key_name(DispatchKey k);
inline bool is_backend_key(DispatchKey k) { return uint8_t(k) <= uint8_t(DispatchKey::PrivateUse1); }
inline bool is_alias_key(DispatchKey k) {
  return k == DispatchKey::CompositeExplicitAutograd || k == DispatchKey::CompositeImplicitAutograd;
}

class DispatchKeySet {
 public:
  constexpr DispatchKeySet() = default;
  constexpr explicit DispatchKeySet(DispatchKey k) : bits_(uint32_t(1) << uint8_t(k)) {}
  static constexpr DispatchKeySet from_bits(uint32_t b) {
    DispatchKeySet s;
    s.bits_ = b;
    return s;
  }
  constexpr uint32_t bits() const { return bits_; }
  constexpr bool has(DispatchKey k) const { return bits_ & (uint32_t(1) << uint8_t(k)); }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr DispatchKeySet operator|(DispatchKeySet o) const { return from_bits(bits_ | o.bits_); }
  constexpr DispatchKeySet operator&(DispatchKeySet o) const { return from_bits(bits_ & o.bits_); }
  constexpr DispatchKeySet operator-(DispatchKeySet o) const { return from_bits(bits_ & ~o.bits_); }
  DispatchKeySet add(DispatchKey k) const { return *this | DispatchKeySet(k); }
  DispatchKeySet remove(DispatchKey k) const { return *this - DispatchKeySet(k); }
  // The keys of lower priority than k: where a kernel at k redispatches to.
  constexpr DispatchKeySet below(DispatchKey k) const { return from_bits(bits_ & ((uint32_t(1) << uint8_t(k)) - 1)); }
  // Highest-priority key, Undefined if empty.
  DispatchKey highest() const { return bits_ ? DispatchKey(31 - __builtin_clz(bits_)) : DispatchKey::Undefined; }
  bool operator==(DispatchKeySet o) const { return bits_ == o.bits_; }

 private:
  uint32_t bits_ = 0;
};

}  // namespace tc
