// SPDX-License-Identifier: BSD-3-Clause
#include "dispatch/dispatcher.h"

#include "dispatch/schema/parser.h"

namespace tc {

Dispatcher& Dispatcher::singleton() {
  // Leaked on purpose: kernels in other libraries may run during static
  // destruction. Built-ins register once, on first use, so static
  // initialisation order across files and libraries never matters.
  static Dispatcher* d = [] {
    auto* disp = new Dispatcher();
    // Tracer and Autocast pass on every op they have no kernel for, so turning
    // one on never breaks an op it does not handle; a layer's own fallback
    // (tc_library_fallback) replaces this. Batched does not: an op without a
    // batching rule must not run on the physical tensor as if unbatched.
    for (DispatchKey k : {DispatchKey::Tracer, DispatchKey::Autocast})
      disp->register_fallback(k, KernelFunction::make_fallthrough(), "the layer's default: fallthrough");
    register_builtin_ops(*disp);
    return disp;
  }();
  return *d;
}

OperatorEntry& Dispatcher::def(std::string_view schema_text, std::string debug) {
  auto parsed = schema::parse_schema(schema_text);
  if (auto* err = std::get_if<schema::SchemaError>(&parsed))
    TC_FAIL(InvalidArgument, "def: invalid schema '", schema_text, "': [", err->rule, "] ", err->message, " (column ",
            err->column, ")");
  return def(std::get<schema::FunctionSchema>(std::move(parsed)), std::move(debug));
}

OperatorEntry& Dispatcher::def(schema::FunctionSchema schema, std::string debug) {
  std::lock_guard<std::recursive_mutex> g(mu_);
  std::string name = schema.name.qualified();
  TC_CHECK_ARG(ops_.find(name) == ops_.end(), "def: operator '", name, "' is already defined");
  auto entry = std::make_unique<OperatorEntry>(std::move(schema), std::move(debug));
  entry->recompute(fallbacks_);
  OperatorEntry& ref = *entry;
  ops_.emplace(std::move(name), std::move(entry));
  return ref;
}

OperatorEntry* Dispatcher::find(std::string_view qualified_name) {
  std::lock_guard<std::recursive_mutex> g(mu_);
  auto it = ops_.find(std::string(qualified_name));
  return it == ops_.end() ? nullptr : it->second.get();
}

OperatorEntry& Dispatcher::find_or_throw(std::string_view qualified_name) {
  OperatorEntry* e = find(qualified_name);
  TC_CHECK(e != nullptr, NotImplemented, "no operator named '", qualified_name, "'");
  return *e;
}

void Dispatcher::register_kernel(OperatorEntry& op, DispatchKey key, KernelFunction fn, std::string debug) {
  TC_CHECK_ARG(uint8_t(key) < kNumKeys, "register_kernel: invalid dispatch key ", int(key));
  std::lock_guard<std::recursive_mutex> g(mu_);
  op.registered_[uint8_t(key)].push_front({std::move(fn), std::move(debug)});
  op.recompute(fallbacks_);
}

void Dispatcher::register_fallback(DispatchKey key, KernelFunction fn, std::string debug) {
  TC_CHECK_ARG(uint8_t(key) < kNumRuntimeKeys, "register_fallback: argument 'key' must be a runtime key, got ",
               dispatch_key_name(key));
  std::lock_guard<std::recursive_mutex> g(mu_);
  fallbacks_[uint8_t(key)] = {std::move(fn), std::move(debug)};
  recompute_all();
}

void Dispatcher::recompute_all() {
  for (auto& kv : ops_) kv.second->recompute(fallbacks_);
}

std::vector<std::string> Dispatcher::operator_names() {
  std::lock_guard<std::recursive_mutex> g(mu_);
  std::vector<std::string> names;
  for (auto& kv : ops_) names.push_back(kv.first);
  return names;
}

void Dispatcher::reset_counters() {
  std::lock_guard<std::recursive_mutex> g(mu_);
  for (auto& kv : ops_) kv.second->reset_counters();
}

DispatchKeySet key_set_of_stack(const Stack& stack, size_t nargs) {
  DispatchKeySet ks;
  size_t n = nargs < stack.size() ? nargs : stack.size();
  for (size_t i = 0; i < n; ++i) {
    const IValue& v = stack[i];
    switch (v.tag()) {
      case IValue::Tag::Tensor: ks = ks | v.to_tensor().key_set(); break;
      case IValue::Tag::TensorList:
        for (const Tensor& t : v.to_tensor_list())
          if (t.defined()) ks = ks | t.key_set();
        break;
      case IValue::Tag::OptionalTensorList:
        for (const auto& t : v.to_optional_tensor_list())
          if (t && t->defined()) ks = ks | t->key_set();
        break;
      case IValue::Tag::Device: ks = ks.add(backend_key_for(v.to_device().type)); break;
      default: break;
    }
  }
  return ks;
}

}  // namespace tc
