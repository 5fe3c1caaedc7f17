/* SPDX-License-Identifier: BSD-3-Clause */
/* core_api.i: the hand-written part of the C ABI, as the Python package uses
 * it. These functions take and return Python objects and keep the GIL, except
 * around calls that may run long (backward, copies), which release it. */
%{
/* ---- registration by the Python package -------------------------------- */
static PyObject* set_result_type(PyObject* cls) {
  if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject*)cls, &TensorBase_Type)) {
    PyErr_SetString(PyExc_TypeError, "set_result_type: expected a subclass of TensorBase");
    return NULL;
  }
  PyTypeObject* previous = tcpy_result_type;
  tcpy_result_type = (PyTypeObject*)Py_NewRef(cls);
  if (previous != &TensorBase_Type) Py_DECREF(previous);
  Py_RETURN_NONE;
}

static PyObject* set_error_classes(PyObject* classes) {
  if (!PyTuple_Check(classes) || PyTuple_GET_SIZE(classes) != TCPY_N_STATUS) {
    PyErr_Format(PyExc_TypeError, "set_error_classes: expected a tuple of %d classes", TCPY_N_STATUS);
    return NULL;
  }
  for (int i = 0; i < TCPY_N_STATUS; i++) {
    PyObject* c = PyTuple_GET_ITEM(classes, i);
    Py_INCREF(c);
    Py_XSETREF(tcpy_error_classes[i], c);
  }
  Py_RETURN_NONE;
}

/* The Python operators behind the C fast path of + - * / @ (TensorBase_binary),
 * a tuple (add, sub, mul, truediv, matmul) of callables f(left, right). */
static PyObject* set_slow_operators(PyObject* ops) {
  if (!PyTuple_Check(ops) || PyTuple_GET_SIZE(ops) != TCPY_N_OPS) {
    PyErr_Format(PyExc_TypeError, "set_slow_operators: expected a tuple of %d callables", TCPY_N_OPS);
    return NULL;
  }
  for (int i = 0; i < TCPY_N_OPS; i++) {
    PyObject* f = PyTuple_GET_ITEM(ops, i);
    Py_INCREF(f);
    Py_XSETREF(tcpy_slow_ops[i], f);
  }
  Py_RETURN_NONE;
}

static PyObject* version_string(void) { return PyUnicode_FromString(tc_version_string()); }

/* ---- helpers ------------------------------------------------------------- */
static tc_tensor tcpy_handle(PyObject* o, const char* fn) {
  tc_tensor t = NULL;
  if (tcpy_tensor_arg(o, &t, fn, "self")) return NULL;
  if (!t) PyErr_Format(PyExc_TypeError, "%s: expected a Tensor, not None", fn);
  return t;
}
static PyObject* tcpy_check(tc_status st) {
  if (st != TC_OK) {
    tcpy_raise_status(st);
    return NULL;
  }
  Py_RETURN_NONE;
}
/* Reads a string tensorc writes snprintf-style. */
typedef tc_status (*tcpy_string_fn)(char*, size_t, size_t*, tc_tensor);
static PyObject* tcpy_read_string(tcpy_string_fn fn, tc_tensor t) {
  char small[256];
  size_t needed = 0;
  tc_status st = fn(small, sizeof small, &needed, t);
  if (st != TC_OK) return tcpy_check(st);
  if (needed <= sizeof small) return PyUnicode_FromString(small);
  char* big = (char*)PyMem_Malloc(needed);
  if (!big) return PyErr_NoMemory();
  st = fn(big, needed, &needed, t);
  PyObject* r = st == TC_OK ? PyUnicode_FromString(big) : tcpy_check(st);
  PyMem_Free(big);
  return r;
}
static PyObject* tcpy_int_tuple(const int64_t* v, size_t n) {
  PyObject* t = PyTuple_New((Py_ssize_t)n);
  for (size_t i = 0; t && i < n; i++) {
    PyObject* x = PyLong_FromLongLong(v[i]);
    if (!x) {
      Py_CLEAR(t);
      break;
    }
    PyTuple_SET_ITEM(t, (Py_ssize_t)i, x);
  }
  return t;
}
typedef tc_status (*tcpy_dims_fn)(int64_t*, size_t, size_t*, tc_tensor);
static PyObject* tcpy_dims(tcpy_dims_fn fn, PyObject* self, const char* name) {
  tc_tensor t = tcpy_handle(self, name);
  if (!t) return NULL;
  int64_t small[16];
  size_t n = 0;
  tc_status st = fn(small, 16, &n, t);
  if (st != TC_OK) return tcpy_check(st);
  if (n <= 16) return tcpy_int_tuple(small, n);
  int64_t* big = (int64_t*)PyMem_Malloc(n * sizeof(int64_t));
  if (!big) return PyErr_NoMemory();
  st = fn(big, n, &n, t);
  PyObject* r = st == TC_OK ? tcpy_int_tuple(big, n) : tcpy_check(st);
  PyMem_Free(big);
  return r;
}
static PyObject* tcpy_scalar_to_py(tc_scalar s) {
  switch (s.tag) {
    case TC_SCALAR_BOOL: return PyBool_FromLong(s.u.b);
    case TC_SCALAR_INT: return PyLong_FromLongLong(s.u.i);
    default: return PyFloat_FromDouble(s.u.f);
  }
}

/* ---- tensor metadata ----------------------------------------------------- */
static PyObject* tensor_shape(PyObject* self) { return tcpy_dims(tc_tensor_sizes, self, "Tensor.shape"); }
static PyObject* tensor_strides(PyObject* self) { return tcpy_dims(tc_tensor_strides, self, "Tensor.stride"); }

#define TCPY_GETTER(NAME, CTYPE, CFN, TOPY)                    \
  static PyObject* NAME(PyObject* self) {                      \
    tc_tensor t = tcpy_handle(self, #NAME);                    \
    if (!t) return NULL;                                       \
    CTYPE v;                                                   \
    tc_status st = CFN(&v, t);                                 \
    if (st != TC_OK) return tcpy_check(st);                    \
    return TOPY;                                               \
  }
TCPY_GETTER(tensor_dtype, tc_dtype, tc_tensor_dtype, PyLong_FromLong(v))
TCPY_GETTER(tensor_dim, int64_t, tc_tensor_dim, PyLong_FromLongLong(v))
TCPY_GETTER(tensor_numel, int64_t, tc_tensor_numel, PyLong_FromLongLong(v))
TCPY_GETTER(tensor_storage_offset, int64_t, tc_tensor_storage_offset, PyLong_FromLongLong(v))
TCPY_GETTER(tensor_is_contiguous, bool, tc_tensor_is_contiguous, PyBool_FromLong(v))
TCPY_GETTER(tensor_data_ptr, void*, tc_tensor_data_ptr, PyLong_FromVoidPtr(v))
TCPY_GETTER(tensor_version, uint32_t, tc_tensor_version, PyLong_FromUnsignedLong(v))
TCPY_GETTER(tensor_use_count, int64_t, tc_tensor_use_count, PyLong_FromLongLong(v))
TCPY_GETTER(tensor_requires_grad, bool, tc_tensor_requires_grad, PyBool_FromLong(v))
TCPY_GETTER(tensor_is_leaf, bool, tc_tensor_is_leaf, PyBool_FromLong(v))
TCPY_GETTER(tensor_item, tc_scalar, tc_tensor_item, tcpy_scalar_to_py(v))
TCPY_GETTER(tensor_device, tc_device, tc_tensor_device, Py_BuildValue("(ii)", (int)v.type, (int)v.index))
TCPY_GETTER(tensor_grad, tc_tensor, tc_tensor_grad, v ? tcpy_wrap(v) : (Py_INCREF(Py_None), Py_None))
TCPY_GETTER(tensor_detach, tc_tensor, tc_tensor_detach, tcpy_wrap(v))
TCPY_GETTER(tensor_is_pinned, bool, tc_tensor_is_pinned, PyBool_FromLong(v))
TCPY_GETTER(tensor_pin_memory, tc_tensor, tc_tensor_pin_memory, tcpy_wrap(v))

static PyObject* tensor_repr(PyObject* self) {
  tc_tensor t = tcpy_handle(self, "Tensor.__repr__");
  return t ? tcpy_read_string(tc_tensor_to_string, t) : NULL;
}
static PyObject* tensor_grad_fn_name(PyObject* self) {
  tc_tensor t = tcpy_handle(self, "Tensor.grad_fn");
  return t ? tcpy_read_string(tc_tensor_grad_fn_name, t) : NULL;
}

static PyObject* tensor_set_requires_grad(PyObject* self, bool on) {
  tc_tensor t = tcpy_handle(self, "Tensor.requires_grad_");
  return t ? tcpy_check(tc_tensor_set_requires_grad(t, on)) : NULL;
}
static PyObject* tensor_set_grad(PyObject* self, PyObject* grad) {
  tc_tensor t = tcpy_handle(self, "Tensor.grad"), g = NULL;
  if (!t || tcpy_tensor_arg(grad, &g, "Tensor.grad", "grad")) return NULL;
  return tcpy_check(tc_tensor_set_grad(t, g));
}
static PyObject* tensor_retain_grad(PyObject* self) {
  tc_tensor t = tcpy_handle(self, "Tensor.retain_grad");
  return t ? tcpy_check(tc_tensor_retain_grad(t)) : NULL;
}
static PyObject* tensor_detach_(PyObject* self) {
  tc_tensor t = tcpy_handle(self, "Tensor.detach_");
  return t ? tcpy_check(tc_tensor_detach_(t)) : NULL;
}

/* A new instance of `cls` (a Tensor subclass) sharing self's tensor. */
static PyObject* tensor_as_subclass(PyObject* self, PyObject* cls) {
  tc_tensor t = tcpy_handle(self, "Tensor.as_subclass");
  if (!t) return NULL;
  if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject*)cls, &TensorBase_Type)) {
    PyErr_SetString(PyExc_TypeError, "Tensor.as_subclass: cls must be a subclass of tensorc.Tensor");
    return NULL;
  }
  tc_tensor_retain(t);
  return tcpy_wrap_as(t, (PyTypeObject*)cls);
}

/* Points self (a TensorBase, empty or not) at other's tensor: the legacy
 * Tensor(...) constructor fills a new object, Tensor.data = x swaps the
 * memory of a live one (nn.Module._apply keeps parameters' identity). */
static PyObject* tensor_set_handle(PyObject* self, PyObject* other) {
  if (!tcpy_is_tensor(self)) {
    PyErr_SetString(PyExc_TypeError, "tensor_set_handle: self must be a Tensor");
    return NULL;
  }
  tc_tensor o = tcpy_handle(other, "Tensor.data");
  if (!o) return NULL;
  tc_tensor_retain(o);
  tc_tensor old = ((TensorBaseObject*)self)->handle;
  ((TensorBaseObject*)self)->handle = o;
  tc_tensor_release(old); /* NULL for an empty one */
  Py_RETURN_NONE;
}

/* ---- autograd ------------------------------------------------------------ */
static PyObject* tensor_backward(PyObject* self, PyObject* grad, bool retain_graph, bool create_graph) {
  tc_tensor t = tcpy_handle(self, "Tensor.backward"), g = NULL;
  if (!t || tcpy_tensor_arg(grad, &g, "Tensor.backward", "gradient")) return NULL;
  tc_status st;
  tc_tensor_retain(t); /* held while the GIL is released (see typemaps.i, tc_tensor) */
  tc_tensor_retain(g);
  Py_BEGIN_ALLOW_THREADS
  st = tc_tensor_backward(t, g, retain_graph, create_graph);
  tc_tensor_release(t);
  tc_tensor_release(g);
  Py_END_ALLOW_THREADS
  return tcpy_check(st);
}

/* The handles of a sequence of tensors (None: NULL), each retained: free
 * with tcpy_release_tensor_list. */
static tc_tensor* tcpy_handles(PyObject* seq, Py_ssize_t* n, const char* fn, const char* arg) {
  tc_tensor* data = NULL;
  size_t len = 0;
  if (tcpy_tensor_list_arg(seq, &data, &len, fn, arg)) return NULL;
  *n = (Py_ssize_t)len;
  return data;
}

static PyObject* autograd_backward(PyObject* tensors, PyObject* grads, bool retain_graph, bool create_graph) {
  Py_ssize_t n = 0, ng = 0;
  tc_tensor* ts = tcpy_handles(tensors, &n, "autograd.backward", "tensors");
  if (!ts) return NULL;
  tc_tensor* gs = NULL;
  if (grads != Py_None) {
    gs = tcpy_handles(grads, &ng, "autograd.backward", "grad_tensors");
    if (!gs || ng != n) {
      if (gs) PyErr_Format(PyExc_ValueError, "autograd.backward: got %zd tensors but %zd grad_tensors", n, ng);
      tcpy_release_tensor_list(ts, (size_t)n);
      tcpy_release_tensor_list(gs, (size_t)ng);
      return NULL;
    }
  }
  tc_status st;
  Py_BEGIN_ALLOW_THREADS
  st = tc_autograd_backward(ts, (size_t)n, gs, retain_graph, create_graph);
  Py_END_ALLOW_THREADS
  tcpy_release_tensor_list(ts, (size_t)n);
  tcpy_release_tensor_list(gs, (size_t)ng);
  return tcpy_check(st);
}

static PyObject* autograd_grad(PyObject* outputs, PyObject* inputs, PyObject* grad_outputs, bool retain_graph,
                               bool create_graph, bool allow_unused) {
  Py_ssize_t no = 0, ni = 0, ng = 0;
  PyObject* result = NULL;
  tc_tensor *os = NULL, *is = NULL, *gs = NULL, *res = NULL;
  os = tcpy_handles(outputs, &no, "autograd.grad", "outputs");
  if (!os) goto done;
  is = tcpy_handles(inputs, &ni, "autograd.grad", "inputs");
  if (!is) goto done;
  if (grad_outputs != Py_None) {
    gs = tcpy_handles(grad_outputs, &ng, "autograd.grad", "grad_outputs");
    if (!gs) goto done;
    if (ng != no) {
      PyErr_Format(PyExc_ValueError, "autograd.grad: got %zd outputs but %zd grad_outputs", no, ng);
      goto done;
    }
  }
  res = (tc_tensor*)PyMem_Calloc((size_t)(ni ? ni : 1), sizeof(tc_tensor));
  if (!res) {
    PyErr_NoMemory();
    goto done;
  }
  {
    tc_status st;
    Py_BEGIN_ALLOW_THREADS
    st = tc_autograd_grad(res, os, (size_t)no, is, (size_t)ni, gs, retain_graph, create_graph, allow_unused);
    Py_END_ALLOW_THREADS
    if (st != TC_OK) {
      tcpy_check(st);
      goto done;
    }
  }
  result = PyTuple_New(ni);
  for (Py_ssize_t i = 0; i < ni; i++) {
    PyObject* g = res[i] ? tcpy_wrap(res[i]) : (Py_INCREF(Py_None), Py_None);
    res[i] = NULL;
    if (!g || !result) {
      Py_XDECREF(g);
      continue; /* keep releasing the rest */
    }
    PyTuple_SET_ITEM(result, i, g);
  }
  if (PyErr_Occurred()) Py_CLEAR(result);
done:
  tcpy_release_tensor_list(os, (size_t)no);
  tcpy_release_tensor_list(is, (size_t)ni);
  tcpy_release_tensor_list(gs, (size_t)ng);
  PyMem_Free(res);
  return result;
}

static PyObject* grad_mode_is_enabled(void) {
  bool on = true;
  tc_grad_mode_is_enabled(&on);
  return PyBool_FromLong(on);
}
static PyObject* grad_mode_set_enabled(bool on) { return tcpy_check(tc_grad_mode_set_enabled(on)); }
static PyObject* grad_mode_push(bool on) { return tcpy_check(tc_grad_mode_push(on)); }
static PyObject* grad_mode_pop(void) { return tcpy_check(tc_grad_mode_pop()); }

/* ---- autocast ---------------------------------------------------------------- */
static PyObject* autocast_push(int device_type, int dtype, bool enabled, bool cache_enabled) {
  tc_autocast_state s;
  s.device_type = device_type;
  s.dtype = dtype;
  s.enabled = enabled;
  s.cache_enabled = cache_enabled;
  return tcpy_check(tc_autocast_push(&s));
}
static PyObject* autocast_pop(int device_type) { return tcpy_check(tc_autocast_pop(device_type)); }
/* (enabled, dtype code, cache_enabled) of this thread's state for device_type. */
static PyObject* autocast_get(int device_type) {
  tc_autocast_state s;
  tc_status st = tc_autocast_get(&s, device_type);
  if (st != TC_OK) return tcpy_check(st);
  return Py_BuildValue("(OiO)", s.enabled ? Py_True : Py_False, (int)s.dtype, s.cache_enabled ? Py_True : Py_False);
}

/* ---- tracing ------------------------------------------------------------------ */
static tc_graph tcpy_graph(PyObject* cap) { return (tc_graph)PyCapsule_GetPointer(cap, "tensorc.graph"); }
static void tcpy_graph_free(PyObject* cap) { tc_graph_release(tcpy_graph(cap)); }
static PyObject* tcpy_graph_capsule(tc_status st, tc_graph g) {
  if (st != TC_OK) return tcpy_check(st);
  PyObject* cap = PyCapsule_New(g, "tensorc.graph", tcpy_graph_free);
  if (!cap) tc_graph_release(g);
  return cap;
}
typedef tc_status (*tcpy_graph_string_fn)(char*, size_t, size_t*, tc_graph);
static PyObject* tcpy_graph_string(tcpy_graph_string_fn fn, PyObject* cap) {
  tc_graph g = tcpy_graph(cap);
  if (!g) return NULL;
  size_t needed = 0;
  tc_status st = fn(NULL, 0, &needed, g);
  if (st != TC_OK) return tcpy_check(st);
  char* buf = (char*)PyMem_Malloc(needed + 1);
  if (!buf) return PyErr_NoMemory();
  st = fn(buf, needed + 1, &needed, g);
  PyObject* r = st == TC_OK ? PyUnicode_FromString(buf) : tcpy_check(st);
  PyMem_Free(buf);
  return r;
}
static PyObject* trace_begin(void) { return tcpy_check(tc_trace_begin()); }
static PyObject* trace_abort(void) { return tcpy_check(tc_trace_abort()); }
static PyObject* trace_input(PyObject* t) {
  tc_tensor h = tcpy_handle(t, "jit.trace");
  return h ? tcpy_check(tc_trace_input(h)) : NULL;
}
static PyObject* trace_end(PyObject* outputs) {
  Py_ssize_t n = 0;
  tc_tensor* hs = tcpy_handles(outputs, &n, "jit.trace", "outputs");
  if (PyErr_Occurred()) {
    tc_trace_abort();
    return NULL;
  }
  tc_graph g = NULL;
  tc_status st;
  /* Without the GIL: tensorc may take its registry lock, under which a replaced
   * Python kernel is released (which takes the GIL). */
  Py_BEGIN_ALLOW_THREADS
  st = tc_trace_end(&g, hs, (size_t)n);
  Py_END_ALLOW_THREADS
  tcpy_release_tensor_list(hs, (size_t)n);
  return tcpy_graph_capsule(st, g);
}
/* (inputs, outputs, nodes, [warnings]) of a graph. */
static PyObject* graph_info(PyObject* cap) {
  tc_graph g = tcpy_graph(cap);
  if (!g) return NULL;
  size_t ni = 0, no = 0, nn = 0, nw = 0;
  tc_status st = tc_graph_info(&ni, &no, &nn, &nw, g);
  if (st != TC_OK) return tcpy_check(st);
  PyObject* warnings = PyList_New((Py_ssize_t)nw);
  for (size_t i = 0; warnings && i < nw; ++i) {
    const char* m = NULL;
    tc_graph_warning(&m, g, i);
    PyObject* w = PyUnicode_FromString(m ? m : "");
    if (!w) Py_CLEAR(warnings);
    else PyList_SET_ITEM(warnings, (Py_ssize_t)i, w);
  }
  if (!warnings) return NULL;
  return Py_BuildValue("(nnnN)", (Py_ssize_t)ni, (Py_ssize_t)no, (Py_ssize_t)nn, warnings);
}
static PyObject* graph_text(PyObject* cap) { return tcpy_graph_string(tc_graph_text, cap); }
static PyObject* graph_to_json(PyObject* cap) { return tcpy_graph_string(tc_graph_to_json, cap); }
static PyObject* graph_from_json(PyObject* text) {
  Py_ssize_t len = 0;
  const char* s = PyUnicode_AsUTF8AndSize(text, &len);
  if (!s) return NULL;
  tc_graph g = NULL;
  tc_status st;
  Py_BEGIN_ALLOW_THREADS /* as trace_end: op lookups take the registry lock */
  st = tc_graph_from_json(&g, s, (size_t)len);
  Py_END_ALLOW_THREADS
  return tcpy_graph_capsule(st, g);
}
static PyObject* graph_run(PyObject* cap, PyObject* inputs) {
  tc_graph g = tcpy_graph(cap);
  if (!g) return NULL;
  size_t no = 0;
  tc_status st = tc_graph_info(NULL, &no, NULL, NULL, g);
  if (st != TC_OK) return tcpy_check(st);
  Py_ssize_t ni = 0;
  tc_tensor* is = tcpy_handles(inputs, &ni, "jit graph", "inputs");
  if (PyErr_Occurred()) return NULL;
  tc_tensor* outs = (tc_tensor*)PyMem_Calloc(no ? no : 1, sizeof(tc_tensor));
  if (!outs) {
    tcpy_release_tensor_list(is, (size_t)ni);
    return PyErr_NoMemory();
  }
  size_t n = 0;
  Py_BEGIN_ALLOW_THREADS
  st = tc_graph_run(outs, no, &n, g, is, (size_t)ni);
  Py_END_ALLOW_THREADS
  tcpy_release_tensor_list(is, (size_t)ni);
  PyObject* result = st == TC_OK ? PyTuple_New((Py_ssize_t)n) : tcpy_check(st);
  for (size_t i = 0; i < n; ++i) {
    PyObject* t = tcpy_wrap(outs[i]); /* consumes the reference */
    if (result && t) PyTuple_SET_ITEM(result, (Py_ssize_t)i, t);
    else Py_XDECREF(t);
  }
  PyMem_Free(outs);
  if (PyErr_Occurred()) Py_CLEAR(result);
  return result;
}

/* ---- generators and threads --------------------------------------------- */
static void tcpy_generator_free(PyObject* cap) {
  tc_generator_release((tc_generator)PyCapsule_GetPointer(cap, "tensorc.generator"));
}
static PyObject* tcpy_generator_capsule(tc_generator g) {
  PyObject* cap = PyCapsule_New(g, "tensorc.generator", tcpy_generator_free);
  if (!cap) tc_generator_release(g);
  return cap;
}
static PyObject* generator_create(unsigned long long seed) {
  tc_generator g = NULL;
  tc_status st = tc_generator_create(&g, (uint64_t)seed);
  return st == TC_OK ? tcpy_generator_capsule(g) : tcpy_check(st);
}
static PyObject* generator_default(void) {
  tc_generator g = NULL;
  tc_status st = tc_generator_default(&g);
  return st == TC_OK ? tcpy_generator_capsule(g) : tcpy_check(st);
}
static PyObject* generator_seed(PyObject* cap) {
  tc_generator g = (tc_generator)PyCapsule_GetPointer(cap, "tensorc.generator");
  if (!g) return NULL;
  uint64_t seed = 0;
  tc_status st = tc_generator_seed(&seed, g);
  return st == TC_OK ? PyLong_FromUnsignedLongLong(seed) : tcpy_check(st);
}
static PyObject* generator_set_seed(PyObject* cap, unsigned long long seed) {
  tc_generator g = (tc_generator)PyCapsule_GetPointer(cap, "tensorc.generator");
  return g ? tcpy_check(tc_generator_set_seed(g, (uint64_t)seed)) : NULL;
}
static PyObject* manual_seed(unsigned long long seed) { return tcpy_check(tc_manual_seed((uint64_t)seed)); }
static PyObject* set_num_threads(int n) { return tcpy_check(tc_set_num_threads(n)); }
static PyObject* get_num_threads(void) {
  int n = 1;
  tc_status st = tc_get_num_threads(&n);
  return st == TC_OK ? PyLong_FromLong(n) : tcpy_check(st);
}
/* Devices: None when available, else the reason as a string (no exception). */
static PyObject* device_unavailable_reason(int device_type) {
  if (tc_device_check(device_type) == TC_OK) Py_RETURN_NONE;
  return PyUnicode_FromString(tc_last_error_message());
}
static PyObject* device_count(int device_type) {
  int n = 0;
  tc_status st = tc_device_count(&n, device_type);
  return st == TC_OK ? PyLong_FromLong(n) : tcpy_check(st);
}
static PyObject* device_current(int device_type) {
  int n = 0;
  tc_status st = tc_device_current(&n, device_type);
  return st == TC_OK ? PyLong_FromLong(n) : tcpy_check(st);
}
static PyObject* device_set_current(int device_type, int index) {
  return tcpy_check(tc_device_set_current(device_type, index));
}
static PyObject* device_synchronize(int device_type, int index) {
  tc_device d;
  d.type = device_type;
  d.index = index;
  tc_status st;
  Py_BEGIN_ALLOW_THREADS st = tc_device_synchronize(d);
  Py_END_ALLOW_THREADS return tcpy_check(st);
}
static PyObject* device_memory_stat(int device_type, int index, int which) {
  tc_device d;
  d.type = device_type;
  d.index = index;
  int64_t v = 0;
  tc_status st = tc_device_memory_stat(&v, d, which);
  return st == TC_OK ? PyLong_FromLongLong((long long)v) : tcpy_check(st);
}
static PyObject* device_reset_peak_memory_stats(int device_type, int index) {
  tc_device d;
  d.type = device_type;
  d.index = index;
  return tcpy_check(tc_device_reset_peak_memory_stats(d));
}
static PyObject* device_empty_cache(int device_type) { return tcpy_check(tc_device_empty_cache(device_type)); }
static PyObject* cuda_matmul_allow_tf32(void) {
  bool on = false;
  tc_status st = tc_cuda_matmul_allow_tf32(&on);
  return st == TC_OK ? PyBool_FromLong(on) : tcpy_check(st);
}
static PyObject* cuda_matmul_set_allow_tf32(bool allow) { return tcpy_check(tc_cuda_matmul_set_allow_tf32(allow)); }
/* Streams travel as (device_type, index, id) tuples; events as capsules that
 * release their tc_event. */
static PyObject* tcpy_stream_tuple(tc_status st, const tc_stream* s) {
  if (st != TC_OK) return tcpy_check(st);
  return Py_BuildValue("(iiK)", (int)s->device.type, (int)s->device.index, (unsigned long long)s->id);
}
static tc_stream tcpy_stream(int device_type, int index, unsigned long long id) {
  tc_stream s;
  s.device.type = device_type;
  s.device.index = index;
  s.id = (uint64_t)id;
  return s;
}
static PyObject* stream_create(int device_type, int index, int priority) {
  tc_stream s;
  tc_device d;
  d.type = device_type;
  d.index = index;
  return tcpy_stream_tuple(tc_stream_create(&s, d, priority), &s);
}
static PyObject* stream_default(int device_type, int index) {
  tc_stream s;
  tc_device d;
  d.type = device_type;
  d.index = index;
  return tcpy_stream_tuple(tc_stream_default(&s, d), &s);
}
static PyObject* stream_current(int device_type, int index) {
  tc_stream s;
  tc_device d;
  d.type = device_type;
  d.index = index;
  return tcpy_stream_tuple(tc_stream_current(&s, d), &s);
}
static PyObject* stream_from_external(int device_type, int index, unsigned long long handle) {
  tc_stream s;
  tc_device d;
  d.type = device_type;
  d.index = index;
  return tcpy_stream_tuple(tc_stream_from_external(&s, d, (uint64_t)handle), &s);
}
static PyObject* stream_set_current(int device_type, int index, unsigned long long id) {
  return tcpy_check(tc_stream_set_current(tcpy_stream(device_type, index, id)));
}
static PyObject* stream_synchronize(int device_type, int index, unsigned long long id) {
  tc_status st;
  Py_BEGIN_ALLOW_THREADS st = tc_stream_synchronize(tcpy_stream(device_type, index, id));
  Py_END_ALLOW_THREADS return tcpy_check(st);
}
static PyObject* stream_query(int device_type, int index, unsigned long long id) {
  bool done = false;
  tc_status st = tc_stream_query(&done, tcpy_stream(device_type, index, id));
  return st == TC_OK ? PyBool_FromLong(done) : tcpy_check(st);
}
static tc_event tcpy_event(PyObject* cap) { return (tc_event)PyCapsule_GetPointer(cap, "tensorc.event"); }
static void tcpy_event_free(PyObject* cap) { tc_event_release(tcpy_event(cap)); }
static PyObject* event_create(bool enable_timing) {
  tc_event e = NULL;
  tc_status st = tc_event_create(&e, enable_timing);
  if (st != TC_OK) return tcpy_check(st);
  PyObject* cap = PyCapsule_New(e, "tensorc.event", tcpy_event_free);
  if (!cap) tc_event_release(e);
  return cap;
}
static PyObject* event_record(PyObject* cap, int device_type, int index, unsigned long long id) {
  tc_event e = tcpy_event(cap);
  return e ? tcpy_check(tc_event_record(e, tcpy_stream(device_type, index, id))) : NULL;
}
static PyObject* stream_wait_event(int device_type, int index, unsigned long long id, PyObject* cap) {
  tc_event e = tcpy_event(cap);
  return e ? tcpy_check(tc_stream_wait_event(tcpy_stream(device_type, index, id), e)) : NULL;
}
static PyObject* event_query(PyObject* cap) {
  tc_event e = tcpy_event(cap);
  if (!e) return NULL;
  bool done = false;
  tc_status st = tc_event_query(&done, e);
  return st == TC_OK ? PyBool_FromLong(done) : tcpy_check(st);
}
static PyObject* event_synchronize(PyObject* cap) {
  tc_event e = tcpy_event(cap);
  if (!e) return NULL;
  tc_status st;
  Py_BEGIN_ALLOW_THREADS st = tc_event_synchronize(e);
  Py_END_ALLOW_THREADS return tcpy_check(st);
}
static PyObject* event_elapsed_time(PyObject* start, PyObject* end) {
  tc_event a = tcpy_event(start), b = a ? tcpy_event(end) : NULL;
  if (!a || !b) return NULL;
  double ms = 0;
  tc_status st = tc_event_elapsed_time(&ms, a, b);
  return st == TC_OK ? PyFloat_FromDouble(ms) : tcpy_check(st);
}
static PyObject* tensor_record_stream(PyObject* self, int device_type, int index, unsigned long long id) {
  tc_tensor t = tcpy_handle(self, "Tensor.record_stream");
  return t ? tcpy_check(tc_tensor_record_stream(t, tcpy_stream(device_type, index, id))) : NULL;
}
%}

/* What SWIG wraps from above (GIL kept: they handle Python objects). */
%nothread;
PyObject* set_result_type(PyObject* cls);
PyObject* set_error_classes(PyObject* classes);
PyObject* set_slow_operators(PyObject* ops);
PyObject* version_string(void);
PyObject* tensor_shape(PyObject* self);
PyObject* tensor_strides(PyObject* self);
PyObject* tensor_repr(PyObject* self);
PyObject* tensor_grad_fn_name(PyObject* self);
PyObject* tensor_set_requires_grad(PyObject* self, bool on);
PyObject* tensor_set_grad(PyObject* self, PyObject* grad);
PyObject* tensor_retain_grad(PyObject* self);
PyObject* tensor_detach_(PyObject* self);
PyObject* tensor_as_subclass(PyObject* self, PyObject* cls);
PyObject* tensor_set_handle(PyObject* self, PyObject* other);
PyObject* tensor_backward(PyObject* self, PyObject* grad, bool retain_graph, bool create_graph);
PyObject* autograd_backward(PyObject* tensors, PyObject* grads, bool retain_graph, bool create_graph);
PyObject* autograd_grad(PyObject* outputs, PyObject* inputs, PyObject* grad_outputs, bool retain_graph,
                               bool create_graph, bool allow_unused);
PyObject* grad_mode_is_enabled(void);
PyObject* grad_mode_set_enabled(bool on);
PyObject* grad_mode_push(bool on);
PyObject* grad_mode_pop(void);
PyObject* autocast_push(int device_type, int dtype, bool enabled, bool cache_enabled);
PyObject* autocast_pop(int device_type);
PyObject* autocast_get(int device_type);
PyObject* trace_begin(void);
PyObject* trace_abort(void);
PyObject* trace_input(PyObject* t);
PyObject* trace_end(PyObject* outputs);
PyObject* graph_info(PyObject* cap);
PyObject* graph_text(PyObject* cap);
PyObject* graph_to_json(PyObject* cap);
PyObject* graph_from_json(PyObject* text);
PyObject* graph_run(PyObject* cap, PyObject* inputs);
PyObject* generator_create(unsigned long long seed);
PyObject* generator_default(void);
PyObject* generator_seed(PyObject* cap);
PyObject* generator_set_seed(PyObject* cap, unsigned long long seed);
PyObject* manual_seed(unsigned long long seed);
PyObject* set_num_threads(int n);
PyObject* get_num_threads(void);
PyObject* device_unavailable_reason(int device_type);
PyObject* device_count(int device_type);
PyObject* device_current(int device_type);
PyObject* device_set_current(int device_type, int index);
PyObject* device_synchronize(int device_type, int index);
PyObject* device_memory_stat(int device_type, int index, int which);
PyObject* device_reset_peak_memory_stats(int device_type, int index);
PyObject* device_empty_cache(int device_type);
PyObject* cuda_matmul_allow_tf32(void);
PyObject* cuda_matmul_set_allow_tf32(bool allow);
PyObject* stream_create(int device_type, int index, int priority);
PyObject* stream_default(int device_type, int index);
PyObject* stream_current(int device_type, int index);
PyObject* stream_from_external(int device_type, int index, unsigned long long handle);
PyObject* stream_set_current(int device_type, int index, unsigned long long id);
PyObject* stream_synchronize(int device_type, int index, unsigned long long id);
PyObject* stream_query(int device_type, int index, unsigned long long id);
PyObject* stream_wait_event(int device_type, int index, unsigned long long id, PyObject* cap);
PyObject* event_create(bool enable_timing);
PyObject* event_record(PyObject* cap, int device_type, int index, unsigned long long id);
PyObject* event_query(PyObject* cap);
PyObject* event_synchronize(PyObject* cap);
PyObject* event_elapsed_time(PyObject* start, PyObject* end);
PyObject* tensor_record_stream(PyObject* self, int device_type, int index, unsigned long long id);
PyObject* tensor_dtype(PyObject* self);
PyObject* tensor_dim(PyObject* self);
PyObject* tensor_numel(PyObject* self);
PyObject* tensor_storage_offset(PyObject* self);
PyObject* tensor_is_contiguous(PyObject* self);
PyObject* tensor_data_ptr(PyObject* self);
PyObject* tensor_version(PyObject* self);
PyObject* tensor_use_count(PyObject* self);
PyObject* tensor_requires_grad(PyObject* self);
PyObject* tensor_is_leaf(PyObject* self);
PyObject* tensor_item(PyObject* self);
PyObject* tensor_device(PyObject* self);
PyObject* tensor_grad(PyObject* self);
PyObject* tensor_detach(PyObject* self);
PyObject* tensor_is_pinned(PyObject* self);
PyObject* tensor_pin_memory(PyObject* self);
%thread;
