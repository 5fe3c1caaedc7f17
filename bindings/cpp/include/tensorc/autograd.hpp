// SPDX-License-Identifier: BSD-3-Clause
// tensorc C++ wrapper: grad mode guards, autograd::grad/backward, custom
// functions (a C++ class like torch::autograd::Function<T>, or lambdas), and
// gradcheck. Part of the header-only wrapper over the C ABI; include <tensorc.hpp>.
//
// Exceptions thrown by C++ callbacks (forward, backward, gradcheck's function)
// never cross the C ABI: the trampoline catches them, keeps them on the thread
// and returns an error status; the wrapper call that failed because of it
// (apply, backward, grad, gradcheck) rethrows the original exception.
#pragma once

#include <algorithm>
#include <any>
#include <cstdlib>
#include <functional>
#include <string>
#include <typeinfo>
#include <unordered_map>

#if defined(__GNUC__) || defined(__clang__)
#include <cxxabi.h>
#endif

#include "tensorc/tensor.hpp"

namespace tensorc {

// ---- grad mode ------------------------------------------------------------------------

struct GradMode {
  static bool is_enabled() {
    bool on = false;
    detail::check(tc_grad_mode_is_enabled(&on));
    return on;
  }
  static void set_enabled(bool enabled) { detail::check(tc_grad_mode_set_enabled(enabled)); }
};

// Sets this thread's grad mode for a scope and restores it after.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) { detail::check(tc_grad_mode_push(enabled)); }
  ~AutoGradMode() { tc_grad_mode_pop(); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;
};
// torch::NoGradGuard: no recording in this scope.
struct NoGradGuard : AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};
// Recording on in this scope (inside a no-grad region).
struct EnableGradGuard : AutoGradMode {
  EnableGradGuard() : AutoGradMode(true) {}
};

namespace autograd {

using variable_list = std::vector<Tensor>;

namespace detail {
inline std::vector<tc_tensor> handles(const variable_list& v) {
  std::vector<tc_tensor> h;
  h.reserve(v.size());
  for (const Tensor& t : v) h.push_back(t.get());
  return h;
}
}  // namespace detail

// torch::autograd::grad: the gradients of sum(outputs * grad_outputs) with
// respect to inputs; .grad is not touched. An input the outputs do not depend
// on is an error, or an undefined tensor with allow_unused.
inline variable_list grad(const variable_list& outputs, const variable_list& inputs,
                          const variable_list& grad_outputs = {}, std::optional<bool> retain_graph = std::nullopt,
                          bool create_graph = false, bool allow_unused = false) {
  if (!grad_outputs.empty() && grad_outputs.size() != outputs.size())
    throw InvalidArgumentError("tensorc::autograd::grad: " + std::to_string(grad_outputs.size()) +
                               " grad_outputs for " + std::to_string(outputs.size()) + " outputs");
  std::vector<tc_tensor> outs = detail::handles(outputs), ins = detail::handles(inputs),
                         gos = detail::handles(grad_outputs);
  // The C call writes straight into the Tensors (one handle each, undefined
  // until then): nothing is allocated after it, so no reference can leak.
  variable_list r(inputs.size());
  tensorc::detail::check(tc_autograd_grad(reinterpret_cast<tc_tensor*>(r.data()), outs.data(), outs.size(), ins.data(),
                                          ins.size(), gos.empty() ? nullptr : gos.data(),
                                          retain_graph.value_or(create_graph), create_graph, allow_unused));
  return r;
}

// torch::autograd::backward: accumulates into the leaves' .grad.
inline void backward(const variable_list& tensors, const variable_list& grad_tensors = {},
                     std::optional<bool> retain_graph = std::nullopt, bool create_graph = false) {
  if (!grad_tensors.empty() && grad_tensors.size() != tensors.size())
    throw InvalidArgumentError("tensorc::autograd::backward: " + std::to_string(grad_tensors.size()) +
                               " grad_tensors for " + std::to_string(tensors.size()) + " tensors");
  std::vector<tc_tensor> ts = detail::handles(tensors), gs = detail::handles(grad_tensors);
  tensorc::detail::check(tc_autograd_backward(ts.data(), ts.size(), gs.empty() ? nullptr : gs.data(),
                                              retain_graph.value_or(create_graph), create_graph));
}

// ---- custom functions ----------------------------------------------------------------------

namespace detail {
// What one call keeps from forward to backward (owned by tensorc through
// tc_function_ctx_set_state: freed with the call's graph).
struct CallState {
  std::unordered_map<std::string, std::any> saved_data;
  size_t n_outputs = 0;
};
}  // namespace detail

// The context of one call of a custom function, as torch::autograd::AutogradContext.
class AutogradContext {
 public:
  // Forward only: tensors backward will need (checked against in-place changes).
  void save_for_backward(const variable_list& to_save) {
    std::vector<tc_tensor> h = detail::handles(to_save);
    tensorc::detail::check(tc_function_ctx_save_for_backward(ctx_, h.data(), h.size()));
  }
  // Forward only: inputs forward modified in place.
  void mark_dirty(const variable_list& inputs) {
    std::vector<tc_tensor> h = detail::handles(inputs);
    tensorc::detail::check(tc_function_ctx_mark_dirty(ctx_, h.data(), h.size()));
  }
  // Forward only: outputs that get no gradient.
  void mark_non_differentiable(const variable_list& outputs) {
    std::vector<tc_tensor> h = detail::handles(outputs);
    tensorc::detail::check(tc_function_ctx_mark_non_differentiable(ctx_, h.data(), h.size()));
  }
  // Backward only: the saved tensors (an error if one changed in place since).
  variable_list get_saved_variables() const {
    size_t n = 0;
    tensorc::detail::check(tc_function_ctx_saved_tensors(nullptr, 0, &n, ctx_));
    variable_list r(n);  // written straight into the Tensors: nothing to leak after the call
    tensorc::detail::check(tc_function_ctx_saved_tensors(reinterpret_cast<tc_tensor*>(r.data()), r.size(), &n, ctx_));
    r.resize(std::min(n, r.size()));
    return r;
  }
  // Whether forward argument `index` (counting every argument after ctx) needs a gradient.
  bool needs_input_grad(size_t index) const {
    bool b = false;
    tensorc::detail::check(tc_function_ctx_needs_input_grad(&b, ctx_, index));
    return b;
  }
  tc_function_ctx handle() const noexcept { return ctx_; }

  // Non-tensor values for backward: ctx->saved_data["k"] = 2.0; std::any_cast<double>(...).
  std::unordered_map<std::string, std::any>& saved_data;

  AutogradContext(tc_function_ctx ctx, detail::CallState* state) : saved_data(state->saved_data), ctx_(ctx) {}
  AutogradContext(const AutogradContext&) = delete;
  AutogradContext& operator=(const AutogradContext&) = delete;

 private:
  tc_function_ctx ctx_;
};

namespace detail {

using BackwardFn = std::function<variable_list(AutogradContext*, variable_list)>;

// At most this many outputs from a forward that returns a variable_list.
constexpr size_t kMaxOutputs = 64;

// The forward of the apply() in progress on this thread: tensorc calls the
// forward trampoline synchronously inside tc_function_apply_values.
struct ForwardCall {
  virtual ~ForwardCall() = default;
  virtual void run(AutogradContext* ctx, tc_value* outputs, size_t n_outputs) = 0;
  size_t n_outputs = 0;
};
inline thread_local ForwardCall* current_forward = nullptr;

inline tc_status forward_trampoline(tc_value* outputs, size_t n_outputs, tc_function_ctx c, const tc_value*, size_t,
                                    void*) noexcept {
  try {
    ForwardCall* call = current_forward;
    if (!call) return tc_error_set(TC_ERROR_INTERNAL, "tensorc C++ custom function: no forward in progress");
    auto* state = new CallState;
    tc_status st = tc_function_ctx_set_state(c, state, [](void* p) noexcept { delete static_cast<CallState*>(p); });
    if (st != TC_OK) {
      delete state;
      return st;
    }
    AutogradContext ctx(c, state);
    call->run(&ctx, outputs, n_outputs);
    state->n_outputs = call->n_outputs;
    return TC_OK;
  } catch (...) {
    return tensorc::detail::stash_current_exception();
  }
}

inline tc_status run_backward(const BackwardFn& fn, tc_tensor* grad_inputs, size_t n_inputs, tc_function_ctx c,
                              const tc_tensor* grad_outputs, size_t n_outputs) noexcept {
  try {
    void* p = nullptr;
    tensorc::detail::check(tc_function_ctx_state(&p, c));
    CallState fallback;
    CallState* state = p ? static_cast<CallState*>(p) : &fallback;
    const size_t n = p ? std::min(state->n_outputs, n_outputs) : n_outputs;
    variable_list go;
    go.reserve(n);
    for (size_t i = 0; i < n; ++i) go.push_back(Tensor::borrow(grad_outputs[i]));
    AutogradContext ctx(c, state);
    variable_list gi = fn(&ctx, std::move(go));
    if (gi.size() != n_inputs)
      throw RuntimeError("function backward returned an incorrect number of gradients (expected " +
                         std::to_string(n_inputs) + ", got " + std::to_string(gi.size()) + ")");
    for (size_t i = 0; i < n_inputs; ++i) grad_inputs[i] = gi[i].release();
    return TC_OK;
  } catch (...) {
    return tensorc::detail::stash_current_exception();
  }
}

template <class Fwd>
struct ForwardCallImpl final : ForwardCall {
  explicit ForwardCallImpl(Fwd& f) : fwd(f) {}
  void run(AutogradContext* ctx, tc_value* outputs, size_t cap) override {
    auto put = [&](size_t i, Tensor t) {
      if (i >= cap)
        throw RuntimeError("tensorc custom function: forward returned more than " + std::to_string(cap) + " outputs");
      if (t.defined()) {
        outputs[i].tag = TC_VALUE_TENSOR;
        outputs[i].u.tensor = t.release();
      }
    };
    auto r = fwd(ctx);
    if constexpr (std::is_same_v<decltype(r), Tensor>) {
      put(0, std::move(r));
      n_outputs = 1;
    } else {
      static_assert(std::is_same_v<decltype(r), variable_list>,
                    "a custom function's forward returns a Tensor or a variable_list");
      for (size_t i = 0; i < r.size(); ++i) put(i, std::move(r[i]));
      n_outputs = r.size();
    }
  }
  Fwd& fwd;
};

template <class A>
tc_value box_input(const A& a) {
  tc_value v;
  std::memset(&v, 0, sizeof v);
  if constexpr (std::is_same_v<std::decay_t<A>, Tensor>) {
    v.tag = TC_VALUE_TENSOR;
    v.u.tensor = a.get();
  } else {
    v.tag = TC_VALUE_NONE;  // not differentiable: the C++ forward gets the value itself
  }
  return v;
}

// Runs fwd(ctx) as the forward of `f` on the given arguments: Tensor
// arguments are its differentiable inputs, in order; every argument counts as
// one input position (needs_input_grad, backward's result).
template <class Fwd, class... Args>
auto apply(tc_function f, Fwd&& fwd, const Args&... args) {
  using R = std::decay_t<decltype(fwd(std::declval<AutogradContext*>()))>;
  std::array<tc_value, sizeof...(Args) + 1> inputs{box_input(args)..., tc_value{}};
  const size_t cap = std::is_same_v<R, Tensor> ? 1 : kMaxOutputs;
  std::vector<tc_value> outs(cap);
  for (tc_value& v : outs) v.tag = TC_VALUE_NONE;
  variable_list owned(cap);  // allocated before the call: owning the outputs after it cannot fail
  ForwardCallImpl<std::remove_reference_t<Fwd>> call(fwd);
  ForwardCall* previous = current_forward;
  current_forward = &call;
  const tc_status st = tc_function_apply_values(outs.data(), cap, f, inputs.data(), sizeof...(Args));
  current_forward = previous;
  tensorc::detail::check(st);
  // Own every output first (no allocation), then build the result.
  for (size_t i = 0; i < cap; ++i)
    if (outs[i].tag == TC_VALUE_TENSOR) owned[i] = Tensor::adopt(outs[i].u.tensor);
  owned.resize(std::min(cap, call.n_outputs));  // shrinking: no allocation
  if constexpr (std::is_same_v<R, Tensor>) {
    return std::move(owned.at(0));
  } else {
    return owned;
  }
}

inline std::string demangle(const char* name) {
#if defined(__GNUC__) || defined(__clang__)
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (d) {
    std::string s(d);
    std::free(d);
    return s;
  }
#endif
  return name;
}

// A tc_function handle shared by copies (released with the last one; graphs
// that recorded it keep the definition alive on their own).
using FunctionHandle = std::shared_ptr<tc_function_s>;

inline FunctionHandle make_function(const std::string& name, BackwardFn backward) {
  // The payload is destroyed on failure only after throw_error read the
  // message (destroying the callable runs user code).
  auto payload = std::make_unique<BackwardFn>(std::move(backward));
  tc_function f = nullptr;
  const tc_status st = tc_function_create_values(
      &f, name.c_str(), &forward_trampoline,
      [](tc_tensor* gi, size_t ni, tc_function_ctx c, const tc_tensor* go, size_t no, void* p) noexcept {
        return run_backward(*static_cast<BackwardFn*>(p), gi, ni, c, go, no);
      },
      payload.get(), [](void* p) noexcept { delete static_cast<BackwardFn*>(p); });
  if (st != TC_OK) tensorc::detail::throw_error(st);
  payload.release();  // tensorc's now: payload_destroy deletes it
  // shared_ptr's constructor releases f itself if it cannot allocate.
  return FunctionHandle(f, &tc_function_release);
}

}  // namespace detail

// A custom function written as a class, like torch::autograd::Function<T>:
//
//   struct Square : tensorc::autograd::Function<Square> {
//     static Tensor forward(AutogradContext* ctx, const Tensor& x) { ctx->save_for_backward({x}); return x * x; }
//     static variable_list backward(AutogradContext* ctx, variable_list g) {
//       return {2 * ctx->get_saved_variables()[0] * g[0]};
//     }
//   };
//   Tensor y = Square::apply(x);
//
// forward runs with grad mode off and returns a Tensor or a variable_list;
// backward gets one gradient per output and returns one per forward argument
// (undefined for non-tensor arguments). The node is named "<T>Backward"
// unless T has `static constexpr const char* name`.
template <class T>
struct Function {
  template <class... Args>
  static auto apply(Args&&... args) {
    auto fwd = [&](AutogradContext* ctx) { return T::forward(ctx, std::forward<Args>(args)...); };
    return detail::apply(handle(), fwd, args...);
  }
  // The definition, made on first use and shared by every call.
  static tc_function handle() {
    static const detail::FunctionHandle f = detail::make_function(
        function_name(0), [](AutogradContext* ctx, variable_list g) { return T::backward(ctx, std::move(g)); });
    return f.get();
  }

 private:
  template <class U = T>
  static auto function_name(int) -> decltype(std::string(U::name)) {
    return U::name;
  }
  static std::string function_name(long) { return detail::demangle(typeid(T).name()); }
};

// A custom function from two lambdas:
//   LambdaFunction square("Square",
//       [](AutogradContext* ctx, const Tensor& x) { ctx->save_for_backward({x}); return x * x; },
//       [](AutogradContext* ctx, variable_list g) { return variable_list{2 * ctx->get_saved_variables()[0] * g[0]}; });
//   Tensor y = square.apply(x);
template <class Forward>
class LambdaFunction {
 public:
  template <class Backward>
  LambdaFunction(const std::string& name, Forward forward, Backward backward)
      : forward_(std::move(forward)), f_(detail::make_function(name, detail::BackwardFn(std::move(backward)))) {}
  template <class... Args>
  auto apply(Args&&... args) const {
    auto fwd = [&](AutogradContext* ctx) { return forward_(ctx, std::forward<Args>(args)...); };
    return detail::apply(f_.get(), fwd, args...);
  }
  template <class... Args>
  auto operator()(Args&&... args) const {
    return apply(std::forward<Args>(args)...);
  }

 private:
  Forward forward_;
  detail::FunctionHandle f_;
};
template <class Forward, class Backward>
LambdaFunction(const std::string&, Forward, Backward) -> LambdaFunction<Forward>;
template <class Forward, class Backward>
LambdaFunction(const char*, Forward, Backward) -> LambdaFunction<Forward>;

// ---- gradcheck ------------------------------------------------------------------------------

struct GradcheckOptions {
  double eps = 1e-6;
  double atol = 1e-5;
  double rtol = 1e-3;
};

namespace detail {
using GradcheckFn = std::function<Tensor(const variable_list&)>;
inline tc_status gradcheck_trampoline(tc_tensor* out, const tc_tensor* inputs, size_t n, void* user) noexcept {
  try {
    variable_list in;
    in.reserve(n);
    for (size_t i = 0; i < n; ++i) in.push_back(Tensor::borrow(inputs[i]));
    *out = (*static_cast<const GradcheckFn*>(user))(in).release();
    return TC_OK;
  } catch (...) {
    return tensorc::detail::stash_current_exception();
  }
}
inline bool run_gradcheck(bool second_order, const GradcheckFn& fn, const variable_list& inputs,
                          const GradcheckOptions& o) {
  std::vector<tc_tensor> h = handles(inputs);
  tc_gradcheck_options opts{sizeof(tc_gradcheck_options), o.eps, o.atol, o.rtol};
  bool ok = false;
  auto* run = second_order ? &tc_gradgradcheck : &tc_gradcheck;
  tensorc::detail::check(run(&ok, &gradcheck_trampoline, const_cast<GradcheckFn*>(&fn), h.data(), h.size(), &opts));
  return ok;
}
}  // namespace detail

// Compares fn's gradients for the inputs that require grad (float64, CPU)
// with finite differences. Returns true, or throws RuntimeError naming the
// first mismatch; an exception from fn comes back as itself.
inline bool gradcheck(const std::function<Tensor(const variable_list&)>& fn, const variable_list& inputs,
                      const GradcheckOptions& options = {}) {
  return detail::run_gradcheck(false, fn, inputs, options);
}
// The same for second derivatives.
inline bool gradgradcheck(const std::function<Tensor(const variable_list&)>& fn, const variable_list& inputs,
                          const GradcheckOptions& options = {}) {
  return detail::run_gradcheck(true, fn, inputs, options);
}

}  // namespace autograd

// libtorch spellings: torch::autograd::Function, AutogradContext, variable_list.
using autograd::AutogradContext;
using autograd::variable_list;

}  // namespace tensorc
