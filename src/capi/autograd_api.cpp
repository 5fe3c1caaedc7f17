// SPDX-License-Identifier: BSD-3-Clause
// The autograd part of the C ABI (include/tensorc.h, "autograd").
#include <cstring>

#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "autograd/gradcheck.h"
#include "autograd/variable.h"
#include "capi/handles.h"

using tc::capi::Borrowed;
using tc::capi::new_handle;
namespace ag = tc::autograd;

namespace {

ag::variable_list handle_list(const tc_tensor* hs, size_t n, const char* fn, const char* arg, bool allow_null) {
  TC_CHECK_ARG(hs || n == 0, fn, ": argument '", arg, "' is NULL but its length is ", n);
  ag::variable_list out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    TC_CHECK_ARG(hs[i] || allow_null, fn, ": argument '", arg, "' holds NULL at index ", i);
    out.push_back(hs[i] ? tc::capi::to_tensor(hs[i]) : tc::Tensor());
  }
  return out;
}

}  // namespace

TC_API tc_status tc_tensor_requires_grad(bool* out, tc_tensor t) {
  constexpr const char* fn = "tc_tensor_requires_grad";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(t, fn, "t");
  *out = Borrowed(t).get().requires_grad();
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_set_requires_grad(tc_tensor t, bool requires_grad) {
  constexpr const char* fn = "tc_tensor_set_requires_grad";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(t, fn, "t");
  ag::set_requires_grad(Borrowed(t).get(), requires_grad);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_grad(tc_tensor* out, tc_tensor t) {
  constexpr const char* fn = "tc_tensor_grad";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(t, fn, "t");
  *out = new_handle(ag::grad(Borrowed(t).get()));
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_set_grad(tc_tensor t, tc_tensor grad) {
  constexpr const char* fn = "tc_tensor_set_grad";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(t, fn, "t");
  ag::set_grad(Borrowed(t).get(), grad ? tc::capi::to_tensor(grad) : tc::Tensor());
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_is_leaf(bool* out, tc_tensor t) {
  constexpr const char* fn = "tc_tensor_is_leaf";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(t, fn, "t");
  *out = ag::is_leaf(Borrowed(t).get());
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_retain_grad(tc_tensor t) {
  constexpr const char* fn = "tc_tensor_retain_grad";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(t, fn, "t");
  ag::retain_grad(Borrowed(t).get());
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_grad_fn_name(char* buf, size_t capacity, size_t* needed, tc_tensor t) {
  constexpr const char* fn = "tc_tensor_grad_fn_name";
  TC_CAPI_BEGIN
  TC_CHECK_ARG(buf || capacity == 0, fn, ": argument 'buf' is NULL but 'capacity' is ", capacity);
  TC_CAPI_NULL_CHECK(t, fn, "t");
  const auto& node = ag::grad_fn(Borrowed(t).get());
  tc::capi::write_string(buf, capacity, needed, node ? node->name() : "", fn);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_detach(tc_tensor* out, tc_tensor t) {
  constexpr const char* fn = "tc_tensor_detach";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(t, fn, "t");
  *out = new_handle(ag::detach(Borrowed(t).get()));
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_detach_(tc_tensor t) {
  constexpr const char* fn = "tc_tensor_detach_";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(t, fn, "t");
  ag::detach_(Borrowed(t).get());
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_backward(tc_tensor t, tc_tensor grad, bool retain_graph, bool create_graph) {
  constexpr const char* fn = "tc_tensor_backward";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(t, fn, "t");
  ag::variable_list grads;
  if (grad) grads.push_back(tc::capi::to_tensor(grad));
  ag::backward({tc::capi::to_tensor(t)}, grads, retain_graph, create_graph);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_autograd_backward(const tc_tensor* tensors, size_t n, const tc_tensor* grad_tensors,
                                      bool retain_graph, bool create_graph) {
  constexpr const char* fn = "tc_autograd_backward";
  TC_CAPI_BEGIN
  TC_CHECK_ARG(n > 0, fn, ": argument 'n' is 0; expected at least one tensor");
  ag::variable_list roots = handle_list(tensors, n, fn, "tensors", false);
  ag::variable_list grads = grad_tensors ? handle_list(grad_tensors, n, fn, "grad_tensors", true) : ag::variable_list{};
  ag::backward(roots, grads, retain_graph, create_graph);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_autograd_grad(tc_tensor* out_grads, const tc_tensor* outputs, size_t n_outputs,
                                  const tc_tensor* inputs, size_t n_inputs, const tc_tensor* grad_outputs,
                                  bool retain_graph, bool create_graph, bool allow_unused) {
  constexpr const char* fn = "tc_autograd_grad";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out_grads, fn, "out_grads");
  TC_CHECK_ARG(n_outputs > 0, fn, ": argument 'n_outputs' is 0; expected at least one tensor");
  ag::variable_list outs = handle_list(outputs, n_outputs, fn, "outputs", false);
  ag::variable_list ins = handle_list(inputs, n_inputs, fn, "inputs", false);
  ag::variable_list gos =
      grad_outputs ? handle_list(grad_outputs, n_outputs, fn, "grad_outputs", true) : ag::variable_list{};
  ag::variable_list result = ag::grad(outs, ins, gos, retain_graph, create_graph, allow_unused);
  for (size_t i = 0; i < n_inputs; ++i) out_grads[i] = new_handle(std::move(result[i]));
  TC_CAPI_END(fn)
}

TC_API tc_status tc_grad_mode_is_enabled(bool* out) {
  constexpr const char* fn = "tc_grad_mode_is_enabled";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  *out = ag::GradMode::is_enabled();
  TC_CAPI_END(fn)
}

TC_API tc_status tc_grad_mode_set_enabled(bool enabled) {
  ag::GradMode::set_enabled(enabled);
  return TC_OK;
}

TC_API tc_status tc_grad_mode_push(bool enabled) {
  constexpr const char* fn = "tc_grad_mode_push";
  TC_CAPI_BEGIN
  ag::push_grad_mode(enabled);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_grad_mode_pop(void) {
  constexpr const char* fn = "tc_grad_mode_pop";
  TC_CAPI_BEGIN
  TC_CHECK(ag::pop_grad_mode(), Runtime, fn, ": no grad mode was pushed on this thread");
  TC_CAPI_END(fn)
}

namespace {

tc_status run_gradcheck(bool* ok, tc_gradcheck_fn fn, void* user_data, const tc_tensor* inputs, size_t n,
                        const tc_gradcheck_options* opts, const char* name, bool second_order) {
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(ok, name, "ok");
  TC_CAPI_NULL_CHECK(fn, name, "fn");
  ag::GradcheckOptions o;
  if (opts) {
    TC_CHECK_ARG(opts->size >= sizeof(tc_gradcheck_options), name, ": argument 'opts' has size ", opts->size,
                 ", expected sizeof(tc_gradcheck_options) = ", sizeof(tc_gradcheck_options));
    o.eps = opts->eps;
    o.atol = opts->atol;
    o.rtol = opts->rtol;
    TC_CHECK_ARG(o.eps > 0 && o.atol >= 0 && o.rtol >= 0, name,
                 ": argument 'opts' expected eps > 0 and non-negative tolerances");
  }
  ag::variable_list xs = handle_list(inputs, n, name, "inputs", false);
  auto call = [fn, user_data](const ag::variable_list& in) {
    std::vector<tc_tensor> hs;
    for (const tc::Tensor& t : in) hs.push_back(reinterpret_cast<tc_tensor>(t.impl()));
    tc_tensor out = nullptr;
    tc_status st = fn(&out, hs.data(), hs.size(), user_data);
    tc::Tensor r = out ? tc::Tensor(tc::intrusive_ptr<tc::TensorImpl>::adopt(tc::capi::impl_of(out))) : tc::Tensor();
    if (st != TC_OK) {
      std::string msg = tc_last_error_code() == st ? tc_last_error_message() : "the function failed";
      throw tc::Error(static_cast<tc::ErrorCode>(st >= 1 && st <= 8 ? int(st) : 6), msg);
    }
    TC_CHECK(r.defined(), Runtime, "gradcheck: the function returned TC_OK but no output");
    return ag::variable_list{r};
  };
  const std::string failure = second_order ? ag::gradgradcheck(call, xs, o) : ag::gradcheck(call, xs, o);
  *ok = failure.empty();
  TC_CHECK(failure.empty(), Runtime, failure);
  TC_CAPI_END(name)
}

}  // namespace

TC_API tc_status tc_gradcheck(bool* ok, tc_gradcheck_fn fn, void* user_data, const tc_tensor* inputs, size_t n,
                              const tc_gradcheck_options* opts) {
  return run_gradcheck(ok, fn, user_data, inputs, n, opts, "tc_gradcheck", false);
}

TC_API tc_status tc_gradgradcheck(bool* ok, tc_gradcheck_fn fn, void* user_data, const tc_tensor* inputs, size_t n,
                                  const tc_gradcheck_options* opts) {
  return run_gradcheck(ok, fn, user_data, inputs, n, opts, "tc_gradgradcheck", true);
}
