// SPDX-License-Identifier: BSD-3-Clause
// Custom functions from C (include/tensorc.h, "custom functions"): the C
// callbacks wrapped around tc::autograd::apply_function.
#include <memory>
#include <string>

#include "autograd/custom_function.h"
#include "capi/handles.h"

using tc::capi::new_handle;
namespace ag = tc::autograd;

struct tc_function_s {
  std::shared_ptr<const ag::FunctionDef> def;
  tc_function_forward_fn forward = nullptr;  // one of the two forwards
  tc_function_forward_values_fn forward_values = nullptr;
  void* user_data = nullptr;
};

namespace {

tc_function_ctx to_handle(ag::FunctionCtx& ctx) { return reinterpret_cast<tc_function_ctx>(&ctx); }
ag::FunctionCtx& from_handle(tc_function_ctx h) { return *reinterpret_cast<ag::FunctionCtx*>(h); }

tc_tensor borrowed(const tc::Tensor& t) { return reinterpret_cast<tc_tensor>(t.impl()); }

ag::variable_list handles_to_tensors(const tc_tensor* hs, size_t n, const char* fn) {
  TC_CHECK_ARG(hs || n == 0, fn, ": argument 'tensors' is NULL but 'n' is ", n);
  ag::variable_list out;
  for (size_t i = 0; i < n; ++i) out.push_back(hs[i] ? tc::capi::to_tensor(hs[i]) : tc::Tensor());
  return out;
}

}  // namespace

namespace {

// The shared part of tc_function_create and tc_function_create_values.
tc_function make_function(const char* fn, tc_function* out, const char* name, bool forward_given,
                          tc_function_backward_fn backward, void* user_data, void (*user_data_free)(void*)) {
  TC_CHECK_ARG(out, fn, ": argument 'out' is NULL (expected a valid pointer or handle)");
  TC_CHECK_ARG(name, fn, ": argument 'name' is NULL (expected a valid pointer or handle)");
  TC_CHECK_ARG(forward_given, fn, ": argument 'forward' is NULL (expected a valid pointer or handle)");
  TC_CHECK_ARG(backward, fn, ": argument 'backward' is NULL (expected a valid pointer or handle)");
  auto def = std::make_shared<ag::FunctionDef>();
  def->name = name;
  const std::string who = std::string(name) + " backward";
  def->backward = [backward, user_data, who](ag::FunctionCtx& ctx, const ag::variable_list& grads) {
    // One entry per forward output; NULL for a non-tensor output.
    std::vector<tc_tensor> go;
    if (ctx.tensor_output_positions.empty()) {
      for (const tc::Tensor& g : grads) go.push_back(borrowed(g));
    } else {
      go.assign(ctx.total_outputs, nullptr);
      for (size_t j = 0; j < grads.size() && j < ctx.tensor_output_positions.size(); ++j)
        go[ctx.tensor_output_positions[j]] = borrowed(grads[j]);
    }
    std::vector<tc_tensor> gi(ctx.num_inputs(), nullptr);
    tc_status st = backward(gi.data(), gi.size(), to_handle(ctx), go.data(), go.size(), user_data);
    ag::variable_list result;
    for (tc_tensor h : gi)  // adopt every reference the callback handed over, even on failure
      result.push_back(h ? tc::Tensor(tc::intrusive_ptr<tc::TensorImpl>::adopt(tc::capi::impl_of(h))) : tc::Tensor());
    if (st != TC_OK) tc::capi::throw_callback_status(st, who);
    return result;
  };
  auto* handle = new tc_function_s;
  if (user_data_free) def->on_destroy = [user_data, user_data_free] { user_data_free(user_data); };
  // The definition (and so the user_data) outlives the handle while graphs use it.
  handle->def = std::move(def);
  handle->user_data = user_data;
  return handle;
}

ag::variable_list by_position(const tc_value* inputs, size_t n_inputs) {
  ag::variable_list out;
  for (size_t i = 0; i < n_inputs; ++i) {
    const bool tensor = inputs[i].tag == TC_VALUE_TENSOR && inputs[i].u.tensor;
    out.push_back(tensor ? tc::capi::to_tensor(inputs[i].u.tensor) : tc::Tensor());
  }
  return out;
}

}  // namespace

TC_API tc_status tc_function_create(tc_function* out, const char* name, tc_function_forward_fn forward,
                                    tc_function_backward_fn backward, void* user_data, void (*user_data_free)(void*)) {
  constexpr const char* fn = "tc_function_create";
  TC_CAPI_BEGIN
  tc_function f = make_function(fn, out, name, forward != nullptr, backward, user_data, user_data_free);
  f->forward = forward;
  *out = f;
  TC_CAPI_END(fn)
}

TC_API tc_status tc_function_create_values(tc_function* out, const char* name, tc_function_forward_values_fn forward,
                                           tc_function_backward_fn backward, void* user_data,
                                           void (*user_data_free)(void*)) {
  constexpr const char* fn = "tc_function_create_values";
  TC_CAPI_BEGIN
  tc_function f = make_function(fn, out, name, forward != nullptr, backward, user_data, user_data_free);
  f->forward_values = forward;
  *out = f;
  TC_CAPI_END(fn)
}

TC_API void tc_function_release(tc_function f) { delete f; }

namespace {

// Runs either kind of forward under apply_function; returns one value per
// output, tensors as new references. Throws on any error (nothing leaks).
std::vector<tc_value> apply_impl(tc_function f, const tc_value* inputs, size_t n_inputs, size_t n_outputs) {
  const std::string& name = f->def->name;
  std::vector<tc_value> values(n_outputs);
  for (tc_value& v : values) v.tag = TC_VALUE_NONE;
  auto run = [&](ag::FunctionCtx& ctx) {
    ag::variable_list tensors;
    if (f->forward) {  // a tensor-only forward
      std::vector<tc_tensor> outs(n_outputs, nullptr);
      tc_status st = f->forward(outs.data(), n_outputs, to_handle(ctx), inputs, n_inputs, f->user_data);
      for (size_t i = 0; i < n_outputs; ++i) {
        values[i].tag = outs[i] ? TC_VALUE_TENSOR : TC_VALUE_NONE;
        values[i].u.tensor = outs[i];
      }
      if (st != TC_OK) {
        for (tc_tensor h : outs) tc_tensor_release(h);
        tc::capi::throw_callback_status(st, name + " forward");
      }
      for (size_t i = 0; i < n_outputs; ++i)
        if (!outs[i]) {
          for (tc_tensor h : outs) tc_tensor_release(h);
          TC_FAIL(Runtime, name, ": forward left output ", i, " of ", n_outputs, " NULL");
        }
    } else {
      tc_status st = f->forward_values(values.data(), n_outputs, to_handle(ctx), inputs, n_inputs, f->user_data);
      if (st != TC_OK) {
        tc_values_release(values.data(), values.size());
        tc::capi::throw_callback_status(st, name + " forward");
      }
    }
    ctx.total_outputs = n_outputs;
    for (size_t i = 0; i < n_outputs; ++i) {
      const int32_t tag = values[i].tag;
      const bool by_value = tag == TC_VALUE_NONE || tag == TC_VALUE_INT || tag == TC_VALUE_FLOAT ||
                            tag == TC_VALUE_BOOL || tag == TC_VALUE_SCALAR || tag == TC_VALUE_DTYPE ||
                            tag == TC_VALUE_DEVICE;
      if (tag == TC_VALUE_TENSOR && values[i].u.tensor) {
        ctx.tensor_output_positions.push_back(i);
        // The tensor moves into the list apply_function returns.
        tensors.push_back(tc::Tensor(tc::intrusive_ptr<tc::TensorImpl>::adopt(tc::capi::impl_of(values[i].u.tensor))));
        values[i].u.tensor = nullptr;
      } else if (!by_value) {
        tc_values_release(values.data(), values.size());
        TC_FAIL(Type, name, ": forward output ", i, " has tag ", tag,
                "; expected a tensor or a by-value int, float, bool, scalar, dtype, device or none");
      }
    }
    return tensors;
  };
  ag::variable_list result = ag::apply_function(f->def, by_position(inputs, n_inputs), run);
  // Tensors back into their positions (aliases of inputs may have been replaced).
  size_t j = 0;
  for (size_t i = 0; i < n_outputs; ++i)
    if (values[i].tag == TC_VALUE_TENSOR) values[i].u.tensor = new_handle(std::move(result[j++]));
  return values;
}

}  // namespace

TC_API tc_status tc_function_apply(tc_tensor* outputs, size_t n_outputs, tc_function f, const tc_value* inputs,
                                   size_t n_inputs) {
  constexpr const char* fn = "tc_function_apply";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(outputs, fn, "outputs");
  TC_CAPI_NULL_CHECK(f, fn, "f");
  TC_CHECK_ARG(inputs || n_inputs == 0, fn, ": argument 'inputs' is NULL but 'n_inputs' is ", n_inputs);
  TC_CHECK_ARG(f->forward, fn,
               ": argument 'f' was made by tc_function_create_values; call it with "
               "tc_function_apply_values");
  std::vector<tc_value> values = apply_impl(f, inputs, n_inputs, n_outputs);
  for (size_t i = 0; i < n_outputs; ++i) outputs[i] = values[i].u.tensor;  // all tensors: checked in apply_impl
  TC_CAPI_END(fn)
}

TC_API tc_status tc_function_apply_values(tc_value* outputs, size_t n_outputs, tc_function f, const tc_value* inputs,
                                          size_t n_inputs) {
  constexpr const char* fn = "tc_function_apply_values";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(outputs, fn, "outputs");
  TC_CAPI_NULL_CHECK(f, fn, "f");
  TC_CHECK_ARG(inputs || n_inputs == 0, fn, ": argument 'inputs' is NULL but 'n_inputs' is ", n_inputs);
  std::vector<tc_value> values = apply_impl(f, inputs, n_inputs, n_outputs);
  for (size_t i = 0; i < n_outputs; ++i) outputs[i] = values[i];
  TC_CAPI_END(fn)
}

TC_API tc_status tc_function_ctx_save_for_backward(tc_function_ctx ctx, const tc_tensor* tensors, size_t n) {
  constexpr const char* fn = "tc_function_ctx_save_for_backward";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(ctx, fn, "ctx");
  from_handle(ctx).save_for_backward(handles_to_tensors(tensors, n, fn));
  TC_CAPI_END(fn)
}

TC_API tc_status tc_function_ctx_saved_tensors(tc_tensor* out, size_t capacity, size_t* n, tc_function_ctx ctx) {
  constexpr const char* fn = "tc_function_ctx_saved_tensors";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(n, fn, "n");
  TC_CAPI_NULL_CHECK(ctx, fn, "ctx");
  TC_CHECK_ARG(out || capacity == 0, fn, ": argument 'out' is NULL but 'capacity' is ", capacity);
  ag::variable_list saved = from_handle(ctx).saved_tensors();
  *n = saved.size();
  if (saved.size() <= capacity)
    for (size_t i = 0; i < saved.size(); ++i) out[i] = new_handle(std::move(saved[i]));
  TC_CAPI_END(fn)
}

TC_API tc_status tc_function_ctx_mark_dirty(tc_function_ctx ctx, const tc_tensor* tensors, size_t n) {
  constexpr const char* fn = "tc_function_ctx_mark_dirty";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(ctx, fn, "ctx");
  from_handle(ctx).mark_dirty(handles_to_tensors(tensors, n, fn));
  TC_CAPI_END(fn)
}

TC_API tc_status tc_function_ctx_mark_non_differentiable(tc_function_ctx ctx, const tc_tensor* tensors, size_t n) {
  constexpr const char* fn = "tc_function_ctx_mark_non_differentiable";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(ctx, fn, "ctx");
  from_handle(ctx).mark_non_differentiable(handles_to_tensors(tensors, n, fn));
  TC_CAPI_END(fn)
}

TC_API tc_status tc_function_ctx_needs_input_grad(bool* out, tc_function_ctx ctx, size_t index) {
  constexpr const char* fn = "tc_function_ctx_needs_input_grad";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(ctx, fn, "ctx");
  const ag::FunctionCtx& c = from_handle(ctx);
  TC_CHECK_INDEX(index < c.num_inputs(), fn, ": argument 'index' is ", index, " but the function has ", c.num_inputs(),
                 " inputs");
  *out = c.needs_input_grad(index);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_function_ctx_set_state(tc_function_ctx ctx, void* state, void (*destroy)(void*)) {
  constexpr const char* fn = "tc_function_ctx_set_state";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(ctx, fn, "ctx");
  from_handle(ctx).set_state(state, destroy);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_function_ctx_state(void** out, tc_function_ctx ctx) {
  constexpr const char* fn = "tc_function_ctx_state";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(ctx, fn, "ctx");
  *out = from_handle(ctx).state();
  TC_CAPI_END(fn)
}
