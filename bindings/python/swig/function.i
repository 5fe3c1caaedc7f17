/* SPDX-License-Identifier: BSD-3-Clause */
/* function.i: custom autograd functions written in Python
 * (tensorc.autograd.Function, tensorc/autograd/function.py).
 *
 * One tc_function per Function subclass (function_create), made with
 * tc_function_create_values so forward may return non-tensor values too.
 * Like the C++ wrapper (bindings/cpp/include/tensorc/autograd.hpp):
 *   - function_apply records the call in a thread-local "current forward"
 *     and calls tc_function_apply_values with the GIL released; tensorc then
 *     calls the forward trampoline synchronously on this thread, which runs
 *     ctx._call_forward(args) in Python.
 *   - the Python ctx object is the call's state (tc_function_ctx_set_state),
 *     so it lives exactly as long as the graph node that recorded the call,
 *     and the backward trampoline finds it there.
 *   - while a callback runs, ctx._handle is a capsule holding the
 *     tc_function_ctx (valid only during that callback); the ctx methods
 *     (save_for_backward...) go through it. It is marked dead afterwards, so
 *     a ctx kept past its callbacks fails cleanly instead of using a stale
 *     pointer.
 * Callbacks may be entered with the GIL released (apply and backward release
 * it), so each takes it with PyGILState_Ensure, as does the state destructor.
 * A Python exception in a callback is stashed (errors.i) and the callback
 * returns an error status; the wrapper that called into tensorc re-raises it
 * through tcpy_raise_status, with its own type and message. */
%{
/* At most this many values from one forward (as the C++ wrapper). */
#define TCPY_MAX_FUNCTION_OUTPUTS 64

static const char* const TCPY_FUNCTION_CAPSULE = "tensorc.function";
static const char* const TCPY_CTX_CAPSULE = "tensorc.function_ctx";
/* The context of a ctx capsule whose callback has returned. */
static int tcpy_ctx_dead;

/* The apply() in progress on this thread. */
typedef struct {
  PyObject* ctx;     /* borrowed */
  PyObject* args;    /* borrowed tuple */
  PyObject* values;  /* new reference: the tuple forward returned */
} tcpy_forward_call;
static __thread tcpy_forward_call* tcpy_current_forward = NULL;

/* What one call keeps from forward to backward; tensorc owns it. */
typedef struct {
  PyObject* ctx;
  size_t n_outputs; /* how many values forward returned */
} tcpy_call_state;

static void tcpy_call_state_destroy(void* p) {
  tcpy_call_state* s = (tcpy_call_state*)p;
  if (!s) return;
  /* A graph freed while the interpreter shuts down: nothing to run Python
   * code in any more, so the ctx is left to the process's end. */
  if (s->ctx && Py_IsInitialized()) {
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb); /* a __del__ run here must not eat a pending exception */
    Py_DECREF(s->ctx);
    PyErr_Restore(type, value, tb);
    PyGILState_Release(gil);
  }
  PyMem_RawFree(s);
}

/* Stashes the current Python exception for the wrapper that called into
 * tensorc and returns the status that carries it there. The message is for
 * C callers that see the status without the stash. */
static tc_status tcpy_callback_failed(const char* what) {
  char msg[512];
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  PyObject* text = value ? PyObject_Str(value) : NULL;
  const char* utf8 = text ? PyUnicode_AsUTF8(text) : NULL;
  if (!utf8) PyErr_Clear();
  snprintf(msg, sizeof msg, "%s raised %s: %s", what, type ? ((PyTypeObject*)type)->tp_name : "an exception",
           utf8 ? utf8 : "");
  Py_XDECREF(text);
  PyErr_Restore(type, value, tb);
  tcpy_stash_exception();
  return tc_error_set(TC_ERROR_RUNTIME, msg);
}

/* Makes `c` usable through ctx._handle for the length of one callback. */
static PyObject* tcpy_ctx_open(PyObject* ctx, tc_function_ctx c) {
  PyObject* cap = PyCapsule_New(c, TCPY_CTX_CAPSULE, NULL);
  if (!cap) return NULL;
  if (PyObject_SetAttrString(ctx, "_handle", cap) < 0) {
    Py_DECREF(cap);
    return NULL;
  }
  return cap;
}
/* Ends it: the capsule is dead even if the user kept a reference to it.
 * Keeps any pending exception. */
static void tcpy_ctx_close(PyObject* ctx, PyObject* cap) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyCapsule_SetContext(cap, &tcpy_ctx_dead);
  if (PyObject_SetAttrString(ctx, "_handle", Py_None) < 0) PyErr_Clear();
  Py_DECREF(cap);
  PyErr_Restore(type, value, tb);
}

static tc_status tcpy_run_forward(tc_value* outputs, size_t n_outputs, tc_function_ctx c) {
  tcpy_forward_call* call = tcpy_current_forward;
  if (!call) return tc_error_set(TC_ERROR_INTERNAL, "tensorc.autograd.Function: no forward in progress on this thread");
  tcpy_call_state* state = (tcpy_call_state*)PyMem_RawCalloc(1, sizeof *state);
  if (!state) return tc_error_set(TC_ERROR_OUT_OF_MEMORY, "tensorc.autograd.Function: out of memory");
  Py_INCREF(call->ctx);
  state->ctx = call->ctx;
  tc_status st = tc_function_ctx_set_state(c, state, tcpy_call_state_destroy);
  if (st != TC_OK) {
    tcpy_call_state_destroy(state);
    return st;
  }
  PyObject* cap = tcpy_ctx_open(call->ctx, c);
  if (!cap) return tcpy_callback_failed("forward");
  static PyObject* name = NULL;
  if (!name && !(name = PyUnicode_InternFromString("_call_forward"))) {
    tcpy_ctx_close(call->ctx, cap);
    return tcpy_callback_failed("forward");
  }
  PyObject* values = PyObject_CallMethodObjArgs(call->ctx, name, call->args, NULL);
  tcpy_ctx_close(call->ctx, cap);
  if (!values) return tcpy_callback_failed("forward");
  if (!PyTuple_Check(values) || (size_t)PyTuple_GET_SIZE(values) > n_outputs) {
    if (PyTuple_Check(values))
      PyErr_Format(PyExc_RuntimeError, "%s.forward returned %zd values; at most %d are supported",
                   Py_TYPE(call->ctx)->tp_name, PyTuple_GET_SIZE(values), TCPY_MAX_FUNCTION_OUTPUTS);
    else
      PyErr_SetString(PyExc_TypeError, "FunctionCtx._call_forward must return a tuple");
    Py_DECREF(values);
    return tcpy_callback_failed("forward");
  }
  /* Tensors go to tensorc (new references); other values stay in Python:
   * function_apply puts them back in place, so they may be any object. */
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(values); i++) {
    PyObject* v = PyTuple_GET_ITEM(values, i);
    if (tcpy_is_tensor(v) && ((TensorBaseObject*)v)->handle) {
      tc_tensor h = ((TensorBaseObject*)v)->handle;
      tc_tensor_retain(h);
      outputs[i].tag = TC_VALUE_TENSOR;
      outputs[i].u.tensor = h;
    }
  }
  state->n_outputs = (size_t)PyTuple_GET_SIZE(values);
  Py_XSETREF(call->values, values);
  return TC_OK;
}

static tc_status tcpy_function_forward(tc_value* outputs, size_t n_outputs, tc_function_ctx c, const tc_value* inputs,
                                       size_t n_inputs, void* payload) {
  (void)inputs, (void)n_inputs, (void)payload; /* Python forward gets the original arguments */
  PyGILState_STATE gil = PyGILState_Ensure();
  tc_status st = tcpy_run_forward(outputs, n_outputs, c);
  PyGILState_Release(gil);
  return st;
}

static tc_status tcpy_run_backward(tc_tensor* grad_inputs, size_t n_inputs, tc_function_ctx c,
                                   const tc_tensor* grad_outputs, size_t n_outputs) {
  void* p = NULL;
  tc_status st = tc_function_ctx_state(&p, c);
  if (st != TC_OK) return st;
  tcpy_call_state* state = (tcpy_call_state*)p;
  if (!state || !state->ctx)
    return tc_error_set(TC_ERROR_INTERNAL, "tensorc.autograd.Function: backward found no context from forward");
  PyObject* ctx = state->ctx;
  const size_t n = state->n_outputs < n_outputs ? state->n_outputs : n_outputs;
  PyObject* grads = PyTuple_New((Py_ssize_t)n);
  if (!grads) return tcpy_callback_failed("backward");
  for (size_t j = 0; j < n; j++) {
    PyObject* g;
    if (grad_outputs[j]) {
      tc_tensor_retain(grad_outputs[j]); /* borrowed from tensorc: the Python tensor owns a new reference */
      g = tcpy_wrap(grad_outputs[j]);
      if (!g) {
        Py_DECREF(grads);
        return tcpy_callback_failed("backward");
      }
    } else {
      g = Py_NewRef(Py_None); /* a non-tensor output */
    }
    PyTuple_SET_ITEM(grads, (Py_ssize_t)j, g);
  }
  PyObject* cap = tcpy_ctx_open(ctx, c);
  if (!cap) {
    Py_DECREF(grads);
    return tcpy_callback_failed("backward");
  }
  static PyObject* name = NULL;
  PyObject* result = NULL;
  if (name || (name = PyUnicode_InternFromString("_call_backward")))
    result = PyObject_CallMethodObjArgs(ctx, name, grads, NULL);
  tcpy_ctx_close(ctx, cap);
  Py_DECREF(grads);
  if (!result) return tcpy_callback_failed("backward");
  /* _call_backward checked count and types; these checks guard the C side. */
  if (!PyTuple_Check(result) || (size_t)PyTuple_GET_SIZE(result) > n_inputs) {
    PyErr_Format(PyExc_RuntimeError, "%s: backward returned more gradients than the %zu inputs",
                 Py_TYPE(ctx)->tp_name, n_inputs);
    Py_DECREF(result);
    return tcpy_callback_failed("backward");
  }
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(result); i++) {
    PyObject* g = PyTuple_GET_ITEM(result, i);
    if (g == Py_None) continue;
    if (!tcpy_is_tensor(g) || !((TensorBaseObject*)g)->handle) {
      PyErr_Format(PyExc_TypeError, "%s: backward returned a %s as gradient %zd; expected a Tensor or None",
                   Py_TYPE(ctx)->tp_name, Py_TYPE(g)->tp_name, i);
      for (Py_ssize_t k = 0; k < i; k++) {
        tc_tensor_release(grad_inputs[k]);
        grad_inputs[k] = NULL;
      }
      Py_DECREF(result);
      return tcpy_callback_failed("backward");
    }
    tc_tensor_retain(((TensorBaseObject*)g)->handle);
    grad_inputs[i] = ((TensorBaseObject*)g)->handle;
  }
  Py_DECREF(result);
  return TC_OK;
}

static tc_status tcpy_function_backward(tc_tensor* grad_inputs, size_t n_inputs, tc_function_ctx c,
                                        const tc_tensor* grad_outputs, size_t n_outputs, void* payload) {
  (void)payload;
  PyGILState_STATE gil = PyGILState_Ensure();
  tc_status st = tcpy_run_backward(grad_inputs, n_inputs, c, grad_outputs, n_outputs);
  PyGILState_Release(gil);
  return st;
}

static void tcpy_function_capsule_free(PyObject* cap) {
  /* Graphs that recorded the function keep its definition alive on their own. */
  tc_function_release((tc_function)PyCapsule_GetPointer(cap, TCPY_FUNCTION_CAPSULE));
}

/* function_create(name) -> a capsule owning a tc_function whose node is
 * "<name>Backward". The Python side keeps one per Function subclass. */
static PyObject* function_create(const char* name) {
  tc_function f = NULL;
  tc_status st = tc_function_create_values(&f, name, tcpy_function_forward, tcpy_function_backward, NULL, NULL);
  if (st != TC_OK) return tcpy_check(st);
  PyObject* cap = PyCapsule_New(f, TCPY_FUNCTION_CAPSULE, tcpy_function_capsule_free);
  if (!cap) tc_function_release(f);
  return cap;
}

/* function_apply(function, ctx, args) -> the tuple of values forward
 * returned, tensors carrying their history. Every argument is one input
 * position; tensors are the differentiable ones. */
static PyObject* function_apply(PyObject* fn, PyObject* ctx, PyObject* args) {
  tc_function f = (tc_function)PyCapsule_GetPointer(fn, TCPY_FUNCTION_CAPSULE);
  if (!f) return NULL;
  if (!PyTuple_Check(args)) {
    PyErr_SetString(PyExc_TypeError, "function_apply: args must be a tuple");
    return NULL;
  }
  const Py_ssize_t n = PyTuple_GET_SIZE(args);
  tc_value* inputs = (tc_value*)PyMem_Calloc((size_t)(n ? n : 1), sizeof(tc_value));
  if (!inputs) return PyErr_NoMemory();
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject* a = PyTuple_GET_ITEM(args, i);
    if (tcpy_is_tensor(a) && ((TensorBaseObject*)a)->handle) {
      inputs[i].tag = TC_VALUE_TENSOR;
      inputs[i].u.tensor = ((TensorBaseObject*)a)->handle;
      tc_tensor_retain(inputs[i].u.tensor); /* held for the call (see typemaps.i, tc_tensor) */
    } else {
      inputs[i].tag = TC_VALUE_NONE; /* not differentiable; forward gets the object itself */
    }
  }
  tc_value outputs[TCPY_MAX_FUNCTION_OUTPUTS];
  memset(outputs, 0, sizeof outputs); /* TC_VALUE_NONE */
  tcpy_forward_call call = {ctx, args, NULL};
  tcpy_forward_call* previous = tcpy_current_forward; /* a forward may apply another function */
  tcpy_current_forward = &call;
  tc_status st;
  Py_BEGIN_ALLOW_THREADS
  st = tc_function_apply_values(outputs, TCPY_MAX_FUNCTION_OUTPUTS, f, inputs, (size_t)n);
  Py_END_ALLOW_THREADS
  tcpy_current_forward = previous;
  for (Py_ssize_t i = 0; i < n; i++)
    if (inputs[i].tag == TC_VALUE_TENSOR) tc_tensor_release(inputs[i].u.tensor);
  PyMem_Free(inputs);
  if (st != TC_OK || !call.values) {
    Py_XDECREF(call.values);
    if (st == TC_OK) {
      tc_values_release(outputs, TCPY_MAX_FUNCTION_OUTPUTS);
      PyErr_SetString(PyExc_SystemError, "function_apply: forward did not run");
      return NULL;
    }
    return tcpy_check(st);
  }
  const Py_ssize_t m = PyTuple_GET_SIZE(call.values);
  PyObject* result = PyTuple_New(m);
  for (Py_ssize_t i = 0; i < m; i++) {
    PyObject* given = PyTuple_GET_ITEM(call.values, i);
    PyObject* v;
    if (outputs[i].tag == TC_VALUE_TENSOR) {
      tc_tensor h = outputs[i].u.tensor;
      outputs[i].tag = TC_VALUE_NONE;
      /* A handle is the tensor itself (tc_tensor_retain returns no new
       * pointer): when tensorc kept forward's tensor (a new result, or an
       * input marked dirty) the Python object forward returned is the result,
       * subclass and identity included; otherwise (an input returned as is
       * gets a fresh alias) a new one wraps tensorc's. */
      if (tcpy_is_tensor(given) && ((TensorBaseObject*)given)->handle == h) {
        tc_tensor_release(h);
        v = Py_NewRef(given);
      } else {
        v = tcpy_wrap(h);
      }
    } else {
      v = Py_NewRef(given);
    }
    if (!v || !result) {
      Py_XDECREF(v);
      continue; /* keep taking ownership of the rest */
    }
    PyTuple_SET_ITEM(result, i, v);
  }
  tc_values_release(outputs, TCPY_MAX_FUNCTION_OUTPUTS); /* nothing left, unless forward's tuple shrank */
  Py_DECREF(call.values);
  if (PyErr_Occurred()) Py_CLEAR(result);
  return result;
}

/* ---- the ctx methods, through the capsule in ctx._handle ---------------- */
static tc_function_ctx tcpy_ctx_arg(PyObject* cap, const char* fn) {
  if (!PyCapsule_IsValid(cap, TCPY_CTX_CAPSULE) || PyCapsule_GetContext(cap) == &tcpy_ctx_dead) {
    PyErr_Clear();
    PyErr_Format(PyExc_RuntimeError,
                 "%s: the context can only be used while its function's forward or backward runs", fn);
    return NULL;
  }
  return (tc_function_ctx)PyCapsule_GetPointer(cap, TCPY_CTX_CAPSULE);
}

typedef tc_status (*tcpy_ctx_tensors_fn)(tc_function_ctx, const tc_tensor*, size_t);
static PyObject* tcpy_ctx_tensors(tcpy_ctx_tensors_fn fn, PyObject* cap, PyObject* tensors, const char* name) {
  tc_function_ctx c = tcpy_ctx_arg(cap, name);
  if (!c) return NULL;
  Py_ssize_t n = 0;
  tc_tensor* hs = tcpy_handles(tensors, &n, name, "tensors"); /* None entries: NULL */
  if (!hs) return NULL;
  tc_status st = fn(c, hs, (size_t)n);
  tcpy_release_tensor_list(hs, (size_t)n);
  return tcpy_check(st);
}
static PyObject* function_ctx_save_for_backward(PyObject* cap, PyObject* tensors) {
  return tcpy_ctx_tensors(tc_function_ctx_save_for_backward, cap, tensors, "FunctionCtx.save_for_backward");
}
static PyObject* function_ctx_mark_dirty(PyObject* cap, PyObject* tensors) {
  return tcpy_ctx_tensors(tc_function_ctx_mark_dirty, cap, tensors, "FunctionCtx.mark_dirty");
}
static PyObject* function_ctx_mark_non_differentiable(PyObject* cap, PyObject* tensors) {
  return tcpy_ctx_tensors(tc_function_ctx_mark_non_differentiable, cap, tensors,
                          "FunctionCtx.mark_non_differentiable");
}

static PyObject* function_ctx_saved_tensors(PyObject* cap) {
  tc_function_ctx c = tcpy_ctx_arg(cap, "FunctionCtx.saved_tensors");
  if (!c) return NULL;
  size_t n = 0;
  tc_status st = tc_function_ctx_saved_tensors(NULL, 0, &n, c);
  if (st != TC_OK) return tcpy_check(st);
  tc_tensor* hs = (tc_tensor*)PyMem_Calloc(n ? n : 1, sizeof(tc_tensor));
  if (!hs) return PyErr_NoMemory();
  st = tc_function_ctx_saved_tensors(hs, n, &n, c);
  if (st != TC_OK) {
    PyMem_Free(hs);
    return tcpy_check(st);
  }
  PyObject* result = PyTuple_New((Py_ssize_t)n);
  for (size_t i = 0; i < n; i++) {
    PyObject* t = hs[i] ? tcpy_wrap(hs[i]) : Py_NewRef(Py_None); /* tcpy_wrap consumes the reference */
    if (!t || !result) {
      Py_XDECREF(t);
      continue;
    }
    PyTuple_SET_ITEM(result, (Py_ssize_t)i, t);
  }
  PyMem_Free(hs);
  if (PyErr_Occurred()) Py_CLEAR(result);
  return result;
}

/* function_ctx_needs_input_grad(cap, n) -> a tuple of n bools. */
static PyObject* function_ctx_needs_input_grad(PyObject* cap, int64_t n) {
  tc_function_ctx c = tcpy_ctx_arg(cap, "FunctionCtx.needs_input_grad");
  if (!c) return NULL;
  PyObject* result = PyTuple_New((Py_ssize_t)n);
  if (!result) return NULL;
  for (int64_t i = 0; i < n; i++) {
    bool b = false;
    tc_status st = tc_function_ctx_needs_input_grad(&b, c, (size_t)i);
    if (st != TC_OK) {
      Py_DECREF(result);
      return tcpy_check(st);
    }
    PyTuple_SET_ITEM(result, (Py_ssize_t)i, PyBool_FromLong(b));
  }
  return result;
}
%}

%nothread;
PyObject* function_create(const char* name);
PyObject* function_apply(PyObject* fn, PyObject* ctx, PyObject* args);
PyObject* function_ctx_save_for_backward(PyObject* cap, PyObject* tensors);
PyObject* function_ctx_mark_dirty(PyObject* cap, PyObject* tensors);
PyObject* function_ctx_mark_non_differentiable(PyObject* cap, PyObject* tensors);
PyObject* function_ctx_saved_tensors(PyObject* cap);
PyObject* function_ctx_needs_input_grad(PyObject* cap, int64_t n);
%thread;
