// SPDX-License-Identifier: BSD-3-Clause
// Random generator handles. A tc_generator is a tc::GeneratorImpl* carrying
// exactly one strong reference, like a tc_tensor.
#include "capi/handles.h"

namespace {

tc::GeneratorImpl* gen_of(tc_generator g) { return reinterpret_cast<tc::GeneratorImpl*>(g); }
tc_generator new_generator_handle(tc::Generator&& g) { return reinterpret_cast<tc_generator>(g.unsafe_release()); }

}  // namespace

extern "C" {

TC_API tc_status tc_generator_create(tc_generator* out, uint64_t seed) {
  constexpr const char* fn = "tc_generator_create";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  *out = new_generator_handle(tc::Generator::create(seed));
  TC_CAPI_END(fn)
}

TC_API void tc_generator_release(tc_generator g) {
  if (g) gen_of(g)->release();
}

TC_API tc_status tc_generator_set_seed(tc_generator g, uint64_t seed) {
  constexpr const char* fn = "tc_generator_set_seed";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(g, fn, "g");
  gen_of(g)->set_seed(seed);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_generator_seed(uint64_t* out, tc_generator g) {
  constexpr const char* fn = "tc_generator_seed";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(g, fn, "g");
  *out = gen_of(g)->seed();
  TC_CAPI_END(fn)
}

TC_API tc_status tc_manual_seed(uint64_t seed) {
  constexpr const char* fn = "tc_manual_seed";
  TC_CAPI_BEGIN
  tc::manual_seed(seed);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_generator_default(tc_generator* out) {
  constexpr const char* fn = "tc_generator_default";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  tc::Generator g = tc::default_generator();  // a new reference
  *out = new_generator_handle(std::move(g));
  TC_CAPI_END(fn)
}

}  // extern "C"
