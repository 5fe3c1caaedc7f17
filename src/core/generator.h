// SPDX-License-Identifier: BSD-3-Clause
// Random number generator state. Counter-based (Philox4x32-10): a seed plus an
// offset fully determine the stream, so the same seed gives the same numbers
// whatever the thread count, and parallel kernels can split the stream.
//
// Stream layout: the key is the seed; counter value c yields four 32-bit words
// (lanes 0..3). A kernel reserves the counters it needs up front, then element
// i reads fixed words derived from i alone, so any chunking of the element
// range produces the same numbers.
#pragma once
#include <cstdint>
#include <mutex>

#include "core/intrusive_ptr.h"

namespace tc {

// The seed PyTorch's default CPU generator starts from.
constexpr uint64_t kDefaultRngSeed = 67280421310721ULL;

// A consistent (key, first counter) pair handed to one kernel call.
struct PhiloxState {
  uint64_t key = 0;
  uint64_t counter = 0;
};

class GeneratorImpl : public RefCounted {
 public:
  explicit GeneratorImpl(uint64_t seed) : seed_(seed) {}
  uint64_t seed() const;
  void set_seed(uint64_t seed);  // also resets the offset to 0
  uint64_t offset() const;
  void set_offset(uint64_t offset);  // to replay a stream (get/set state)
  // Reserves n counter values (each yields four 32-bit random numbers) and
  // returns the first; thread-safe.
  uint64_t reserve(uint64_t n);
  // As reserve, also returning the seed read under the same lock, so a
  // concurrent set_seed never mixes an old key with a new offset.
  PhiloxState reserve_state(uint64_t n);

 private:
  mutable std::mutex mu_;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

class Generator {
 public:
  Generator() = default;
  explicit Generator(intrusive_ptr<GeneratorImpl> impl) : impl_(std::move(impl)) {}
  static Generator create(uint64_t seed) { return Generator(make_intrusive<GeneratorImpl>(seed)); }
  bool defined() const { return bool(impl_); }
  GeneratorImpl* impl() const { return impl_.get(); }
  GeneratorImpl* operator->() const { return impl_.get(); }
  GeneratorImpl* unsafe_release() { return impl_.release_ownership(); }

 private:
  intrusive_ptr<GeneratorImpl> impl_;
};

// The process-wide default CPU generator (seeded once from a fixed default,
// reseeded by manual_seed). Usable during static initialisation; never
// destroyed, so random ops in static destructors stay valid.
Generator& default_generator();
// Reseeds the default generator (offset back to 0), like torch.manual_seed.
void manual_seed(uint64_t seed);
// The generator a kernel should use: `gen` when given and defined, else the default.
GeneratorImpl* generator_or_default(const Generator* gen);

// Philox4x32-10: four 32-bit outputs for (counter, key).
struct Philox4x32 {
  // 64-bit counter in words 0..1 (words 2..3 zero), 64-bit key.
  static void generate(uint64_t counter, uint64_t key, uint32_t out[4]);
  // The full-width block function (128-bit counter, 64-bit key), as in Random123.
  static void block(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);
  // generate() for counters counter .. counter + n - 1 into out[4 * n], faster
  // per block than one call each.
  static void generate_blocks(uint64_t counter, uint64_t key, int64_t n, uint32_t* out);
};

}  // namespace tc
