/* SPDX-License-Identifier: BSD-3-Clause */
/* library.i: the dispatcher for Python (tensorc.library, tensorc.ops):
 * operators defined at run time, kernels and fallbacks written in Python,
 * boxed calls by name, redispatch, and the thread's included / excluded keys.
 *
 * Values cross as tc_value arrays. Python -> C is driven by a hint string
 * from the op's schema (tensorc/library.py), one character per value:
 *   t Tensor   T Tensor[]   i int   I int[]   f float   F float[]
 *   b bool     B bool[]     s Scalar   S str   d ScalarType   D Device
 *   g Generator   ? anything else (read by its Python type)
 * and None is TC_VALUE_NONE whatever the hint. C -> Python gives plain
 * objects (dtype codes, (type, index) device pairs, generator capsules) that
 * library.py turns into tensorc objects by the same schema.
 *
 * A kernel's user_data is a strong reference to a Python callable (library.py
 * wraps the user's function in one), dropped by user_data_free with the GIL,
 * when tensorc lets go of the registration. The trampoline runs
 * callable(ctx_capsule, args_tuple) -> (values_tuple, hints). It takes the GIL
 * itself: kernels run wherever the op is called, from a C thread too, and op
 * calls from Python release the GIL. A Python exception in a kernel is
 * stashed (function.i, tcpy_callback_failed) so the Python call that reached
 * tensorc re-raises that very exception; a C caller sees an error status with
 * "<op>: kernel failed: <where> raised <Type>: <message>".
 *
 * Registrations release the GIL while tensorc holds its registry lock: a
 * replaced kernel's user_data_free takes the GIL under that lock, so a thread
 * that holds the GIL must never wait for the lock. */
%{
static const char* const TCPY_DISPATCH_CTX_CAPSULE = "tensorc.dispatch_ctx";
/* The context of a ctx capsule whose kernel has returned. */
static int tcpy_dispatch_ctx_dead;

static const char* tcpy_key_name(tc_dispatch_key k) {
  static const char* const names[] = {"CPU",      "CUDA",    "PrivateUse1",
                                      "Autograd", "Tracer",  "Autocast",
                                      "Batched",  "CompositeExplicitAutograd", "CompositeImplicitAutograd"};
  return k >= 0 && k < (tc_dispatch_key)(sizeof names / sizeof names[0]) ? names[k] : "?";
}

/* ---- Python -> tc_value ---------------------------------------------------- */
/* What a converted value holds (retained tensors, list storage), freed with
 * tcpy_values_clear; an owned value (a result handed to tensorc) is taken
 * out of the array first. */
static void tcpy_value_clear(tc_value* v) {
  switch (v->tag) {
    case TC_VALUE_TENSOR: tc_tensor_release(v->u.tensor); break;
    case TC_VALUE_SCALAR:
      if (v->u.scalar.tag == TC_SCALAR_TENSOR) tc_tensor_release(v->u.scalar.u.t);
      break;
    case TC_VALUE_TENSOR_LIST: tcpy_release_tensor_list((tc_tensor*)v->u.tensors.data, v->u.tensors.len); break;
    case TC_VALUE_INT_LIST: PyMem_Free((void*)v->u.ints.data); break;
    case TC_VALUE_FLOAT_LIST: PyMem_Free((void*)v->u.floats.data); break;
    case TC_VALUE_BOOL_LIST: PyMem_Free((void*)v->u.bools.data); break;
    case TC_VALUE_LIST_HANDLE: tc_tensor_list_release(v->u.list); break;
    default: break;
  }
  v->tag = TC_VALUE_NONE;
}
static void tcpy_values_clear(tc_value* v, size_t n) {
  if (!v) return;
  for (size_t i = 0; i < n; i++) tcpy_value_clear(&v[i]);
}

typedef int (*tcpy_item_fn)(PyObject*, void*, const char*, const char*);
static int tcpy_int_item(PyObject* o, void* out, const char* fn, const char* arg) {
  return tcpy_int_arg(o, (int64_t*)out, fn, arg);
}
static int tcpy_float_item(PyObject* o, void* out, const char* fn, const char* arg) {
  return tcpy_float_arg(o, (double*)out, fn, arg);
}
static int tcpy_bool_item(PyObject* o, void* out, const char* fn, const char* arg) {
  return tcpy_bool_arg(o, (bool*)out, fn, arg);
}
/* A sequence read item by item into a PyMem block (non-NULL, even when empty). */
static void* tcpy_read_list(PyObject* o, size_t item_size, tcpy_item_fn read, size_t* len, const char* fn,
                            const char* arg) {
  if (PyUnicode_Check(o) || tcpy_is_tensor(o) || !PySequence_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s: argument '%s' must be a sequence, not %s", fn, arg, Py_TYPE(o)->tp_name);
    return NULL;
  }
  PyObject* seq = PySequence_Fast(o, "");
  if (!seq) return NULL;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  char* data = (char*)PyMem_Malloc((size_t)(n ? n : 1) * item_size);
  if (!data) {
    Py_DECREF(seq);
    PyErr_NoMemory();
    return NULL;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    if (read(PySequence_Fast_GET_ITEM(seq, i), data + (size_t)i * item_size, fn, arg)) {
      PyMem_Free(data);
      Py_DECREF(seq);
      return NULL;
    }
  }
  Py_DECREF(seq);
  *len = (size_t)n;
  return data;
}

/* The hint of a value given where the schema says nothing useful. */
static char tcpy_guess_hint(PyObject* o) {
  if (tcpy_is_tensor(o)) return 't';
  if (PyBool_Check(o)) return 'b';
  if (PyLong_Check(o)) return 'i';
  if (PyFloat_Check(o)) return 'f';
  if (PyUnicode_Check(o)) return 'S';
  if (PyList_Check(o) || PyTuple_Check(o)) {
    PyObject* first = PySequence_Size(o) > 0 ? PySequence_GetItem(o, 0) : NULL;
    PyErr_Clear();
    char h = 'I'; /* an empty list: int[] */
    if (first) {
      if (first == Py_None || tcpy_is_tensor(first)) h = 'T';
      else if (PyBool_Check(first)) h = 'B';
      else if (PyFloat_Check(first)) h = 'F';
      Py_DECREF(first);
    }
    return h;
  }
  if (PyObject_HasAttrString(o, "_code")) return 'd';
  if (PyObject_HasAttrString(o, "_c_device")) return 'D';
  if (PyObject_HasAttrString(o, "_c")) return 'g';
  if (PyNumber_Check(o)) return 's';
  return '?';
}

/* Reads o as the hint says into *v (TC_VALUE_NONE first). 0, or -1 with a
 * Python exception set. What *v holds is released by tcpy_value_clear. */
static int tcpy_value_arg(PyObject* o, char hint, tc_value* v, const char* fn, const char* arg) {
  memset(v, 0, sizeof *v);
  if (o == Py_None) return 0;
  if (hint == '?') hint = tcpy_guess_hint(o);
  switch (hint) {
    case 't': {
      tc_tensor t = NULL;
      if (tcpy_tensor_arg(o, &t, fn, arg)) return -1;
      tc_tensor_retain(t); /* held for the call: the GIL may be released */
      v->tag = TC_VALUE_TENSOR;
      v->u.tensor = t;
      return 0;
    }
    case 'T': {
      tc_tensor* data = NULL;
      size_t len = 0;
      if (tcpy_tensor_list_arg(o, &data, &len, fn, arg)) return -1; /* each element retained */
      v->tag = TC_VALUE_TENSOR_LIST;
      v->u.tensors.data = data;
      v->u.tensors.len = len;
      return 0;
    }
    case 'i':
      v->tag = TC_VALUE_INT;
      return tcpy_int_arg(o, &v->u.i, fn, arg);
    case 'I': {
      if (PyIndex_Check(o) && !tcpy_is_tensor(o)) { /* int[N] takes a bare int, as the C ABI does */
        v->tag = TC_VALUE_INT;
        return tcpy_int_arg(o, &v->u.i, fn, arg);
      }
      size_t len = 0;
      int64_t* data = (int64_t*)tcpy_read_list(o, sizeof(int64_t), tcpy_int_item, &len, fn, arg);
      if (!data) return -1;
      v->tag = TC_VALUE_INT_LIST;
      v->u.ints.data = data;
      v->u.ints.len = len;
      return 0;
    }
    case 'f':
      v->tag = TC_VALUE_FLOAT;
      return tcpy_float_arg(o, &v->u.f, fn, arg);
    case 'F': {
      size_t len = 0;
      double* data = (double*)tcpy_read_list(o, sizeof(double), tcpy_float_item, &len, fn, arg);
      if (!data) return -1;
      v->tag = TC_VALUE_FLOAT_LIST;
      v->u.floats.data = data;
      v->u.floats.len = len;
      return 0;
    }
    case 'b':
      v->tag = TC_VALUE_BOOL;
      return tcpy_bool_arg(o, &v->u.b, fn, arg);
    case 'B': {
      size_t len = 0;
      bool* data = (bool*)tcpy_read_list(o, sizeof(bool), tcpy_bool_item, &len, fn, arg);
      if (!data) return -1;
      v->tag = TC_VALUE_BOOL_LIST;
      v->u.bools.data = data;
      v->u.bools.len = len;
      return 0;
    }
    case 's':
      if (tcpy_scalar_arg(o, &v->u.scalar, fn, arg)) return -1;
      if (v->u.scalar.tag == TC_SCALAR_TENSOR) tc_tensor_retain(v->u.scalar.u.t); /* borrowed from o */
      v->tag = TC_VALUE_SCALAR;
      return 0;
    case 'S': {
      if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s: argument '%s' must be a str, not %s", fn, arg, Py_TYPE(o)->tp_name);
        return -1;
      }
      const char* s = PyUnicode_AsUTF8(o); /* lives as long as o, which the caller's tuple holds */
      if (!s) return -1;
      v->tag = TC_VALUE_STRING;
      v->u.str = s;
      return 0;
    }
    case 'd':
      v->tag = TC_VALUE_DTYPE;
      return tcpy_dtype_arg(o, &v->u.dtype, fn, arg);
    case 'D':
      v->tag = TC_VALUE_DEVICE;
      return tcpy_device_arg(o, &v->u.device, fn, arg);
    case 'g':
      v->tag = TC_VALUE_GENERATOR;
      return tcpy_generator_arg(o, &v->u.generator, fn, arg);
    default:
      PyErr_Format(PyExc_TypeError, "%s: argument '%s': cannot pass a %s to an operator", fn, arg,
                   Py_TYPE(o)->tp_name);
      return -1;
  }
}

/* values[i] read with hints[i] ('?' past the end of hints) into a new array of
 * len(values) tc_values; free it with tcpy_values_clear + PyMem_Free. */
static tc_value* tcpy_values_from_py(PyObject* values, PyObject* hints, size_t* n, const char* fn) {
  if (!PyTuple_Check(values) || !PyUnicode_Check(hints)) {
    PyErr_Format(PyExc_TypeError, "%s: expected a tuple of values and a str of hints", fn);
    return NULL;
  }
  Py_ssize_t nh = 0;
  const char* h = PyUnicode_AsUTF8AndSize(hints, &nh);
  if (!h) return NULL;
  const Py_ssize_t nv = PyTuple_GET_SIZE(values);
  tc_value* v = (tc_value*)PyMem_Calloc((size_t)(nv ? nv : 1), sizeof(tc_value));
  if (!v) {
    PyErr_NoMemory();
    return NULL;
  }
  for (Py_ssize_t i = 0; i < nv; i++) {
    char arg[32];
    snprintf(arg, sizeof arg, "%zd", i);
    if (tcpy_value_arg(PyTuple_GET_ITEM(values, i), i < nh ? h[i] : '?', &v[i], fn, arg)) {
      tcpy_values_clear(v, (size_t)i);
      PyMem_Free(v);
      return NULL;
    }
  }
  *n = (size_t)nv;
  return v;
}

/* ---- tc_value -> Python ---------------------------------------------------- */
/* Borrowed values (a kernel's arguments): tensors get their own reference. */
static PyObject* tcpy_value_to_py(const tc_value* v) {
  switch (v->tag) {
    case TC_VALUE_NONE: Py_RETURN_NONE;
    case TC_VALUE_TENSOR:
      if (!v->u.tensor) Py_RETURN_NONE;
      tc_tensor_retain(v->u.tensor);
      return tcpy_wrap(v->u.tensor);
    case TC_VALUE_INT: return PyLong_FromLongLong(v->u.i);
    case TC_VALUE_FLOAT: return PyFloat_FromDouble(v->u.f);
    case TC_VALUE_BOOL: return PyBool_FromLong(v->u.b);
    case TC_VALUE_SCALAR:
      if (v->u.scalar.tag == TC_SCALAR_TENSOR) {
        tc_tensor_retain(v->u.scalar.u.t);
        return tcpy_wrap(v->u.scalar.u.t);
      }
      return tcpy_scalar_to_py(v->u.scalar);
    case TC_VALUE_STRING: return PyUnicode_FromString(v->u.str ? v->u.str : "");
    case TC_VALUE_INT_LIST:
    case TC_VALUE_FLOAT_LIST:
    case TC_VALUE_BOOL_LIST:
    case TC_VALUE_TENSOR_LIST: {
      const size_t n = v->tag == TC_VALUE_INT_LIST     ? v->u.ints.len
                       : v->tag == TC_VALUE_FLOAT_LIST ? v->u.floats.len
                       : v->tag == TC_VALUE_BOOL_LIST  ? v->u.bools.len
                                                       : v->u.tensors.len;
      PyObject* list = PyList_New((Py_ssize_t)n);
      for (size_t i = 0; list && i < n; i++) {
        PyObject* item;
        if (v->tag == TC_VALUE_INT_LIST) {
          item = PyLong_FromLongLong(v->u.ints.data[i]);
        } else if (v->tag == TC_VALUE_FLOAT_LIST) {
          item = PyFloat_FromDouble(v->u.floats.data[i]);
        } else if (v->tag == TC_VALUE_BOOL_LIST) {
          item = PyBool_FromLong(v->u.bools.data[i]);
        } else if (v->u.tensors.data[i]) {
          tc_tensor_retain(v->u.tensors.data[i]);
          item = tcpy_wrap(v->u.tensors.data[i]);
        } else {
          item = Py_NewRef(Py_None);
        }
        if (!item) Py_CLEAR(list);
        else PyList_SET_ITEM(list, (Py_ssize_t)i, item);
      }
      return list;
    }
    case TC_VALUE_DTYPE: return PyLong_FromLong(v->u.dtype);
    case TC_VALUE_DEVICE: return Py_BuildValue("(ii)", (int)v->u.device.type, (int)v->u.device.index);
    case TC_VALUE_GENERATOR:
      if (!v->u.generator) Py_RETURN_NONE;
      /* Borrowed for the call (the C ABI has no generator retain): no
       * destructor; library.py takes it from the Generator when the kernel ends. */
      return PyCapsule_New(v->u.generator, "tensorc.generator", NULL);
    default: PyErr_Format(PyExc_TypeError, "tensorc.library: a value with unknown tag %d", (int)v->tag); return NULL;
  }
}

/* Owned results (of tc_op_call, redispatch) as a tuple, taking every
 * reference out of outs[0..n) even on failure. */
static PyObject* tcpy_results_to_py(tc_value* outs, size_t n) {
  PyObject* result = PyTuple_New((Py_ssize_t)n);
  for (size_t i = 0; i < n; i++) {
    PyObject* o;
    if (outs[i].tag == TC_VALUE_TENSOR) {
      o = outs[i].u.tensor ? tcpy_wrap(outs[i].u.tensor) : Py_NewRef(Py_None); /* consumes */
    } else if (outs[i].tag == TC_VALUE_LIST_HANDLE) {
      o = tcpy_wrap_list(outs[i].u.list); /* consumes */
    } else {
      o = tcpy_value_to_py(&outs[i]);
      tcpy_value_clear(&outs[i]);
    }
    outs[i].tag = TC_VALUE_NONE;
    if (!o || !result) {
      Py_XDECREF(o);
      continue; /* keep taking ownership of the rest */
    }
    PyTuple_SET_ITEM(result, (Py_ssize_t)i, o);
  }
  if (PyErr_Occurred()) Py_CLEAR(result);
  return result;
}

/* ---- the kernel trampoline ------------------------------------------------- */
/* A kernel's results, (values_tuple, hints) from library.py, into outs as new
 * references. All or nothing. */
static int tcpy_kernel_results(PyObject* result, tc_value* outs, size_t cap, size_t* n_outs, const char* fn) {
  PyObject *values = NULL, *hints = NULL;
  if (!PyTuple_Check(result) || !PyArg_ParseTuple(result, "O!U", &PyTuple_Type, &values, &hints)) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s: the kernel wrapper must return (tuple, str)", fn);
    return -1;
  }
  size_t n = 0;
  tc_value* v = tcpy_values_from_py(values, hints, &n, fn);
  if (!v) return -1;
  if (n > cap) {
    tcpy_values_clear(v, n);
    PyMem_Free(v);
    PyErr_Format(PyExc_RuntimeError, "%s: the kernel returned %zu values; the op has room for %zu", fn, n, cap);
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    if (v[i].tag == TC_VALUE_TENSOR_LIST) { /* Tensor[] leaves as a list handle */
      tc_tensor_list l = NULL;
      tc_status st = tc_tensor_list_create(&l, (const tc_tensor*)v[i].u.tensors.data, v[i].u.tensors.len);
      tcpy_value_clear(&v[i]);
      if (st != TC_OK) {
        PyErr_Format(PyExc_TypeError, "%s: result %zu: %s", fn, i, tc_last_error_message());
        tcpy_values_clear(v, n);
        PyMem_Free(v);
        return -1;
      }
      v[i].tag = TC_VALUE_LIST_HANDLE;
      v[i].u.list = l;
    } else if (v[i].tag == TC_VALUE_SCALAR && v[i].u.scalar.tag == TC_SCALAR_TENSOR) {
      tc_tensor t = v[i].u.scalar.u.t; /* a result outlives the tensor: read the number */
      tc_status st = tc_tensor_item(&v[i].u.scalar, t);
      tc_tensor_release(t);
      if (st != TC_OK) {
        v[i].tag = TC_VALUE_NONE;
        PyErr_Format(PyExc_TypeError, "%s: result %zu: %s", fn, i, tc_last_error_message());
        tcpy_values_clear(v, n);
        PyMem_Free(v);
        return -1;
      }
    } else if (v[i].tag != TC_VALUE_NONE && v[i].tag != TC_VALUE_TENSOR && v[i].tag != TC_VALUE_INT &&
               v[i].tag != TC_VALUE_FLOAT && v[i].tag != TC_VALUE_BOOL && v[i].tag != TC_VALUE_SCALAR &&
               v[i].tag != TC_VALUE_DTYPE) {
      /* tensorc reads the results after this returns, when list storage is gone */
      PyErr_Format(PyExc_TypeError, "%s: result %zu: an operator cannot return a %s", fn, i,
                   Py_TYPE(PyTuple_GET_ITEM(values, (Py_ssize_t)i))->tp_name);
      tcpy_values_clear(v, n);
      PyMem_Free(v);
      return -1;
    }
  }
  memcpy(outs, v, n * sizeof(tc_value)); /* retained tensors and list handles become the outputs */
  PyMem_Free(v);
  *n_outs = n;
  return 0;
}

static tc_status tcpy_run_kernel(tc_dispatch_ctx ctx, const tc_value* args, size_t nargs, tc_value* outs,
                                 size_t outs_cap, size_t* n_outs, PyObject* callable) {
  const char* op = NULL;
  tc_dispatch_key key = -1;
  tc_dispatch_ctx_info(&op, &key, ctx);
  char where[256];
  snprintf(where, sizeof where, "Python kernel of %s for %s", op ? op : "?", tcpy_key_name(key));
  PyObject* values = PyTuple_New((Py_ssize_t)nargs);
  if (!values) return tcpy_callback_failed(where);
  for (size_t i = 0; i < nargs; i++) {
    PyObject* o = tcpy_value_to_py(&args[i]);
    if (!o) {
      Py_DECREF(values);
      return tcpy_callback_failed(where);
    }
    PyTuple_SET_ITEM(values, (Py_ssize_t)i, o);
  }
  PyObject* cap = PyCapsule_New(ctx, TCPY_DISPATCH_CTX_CAPSULE, NULL);
  if (!cap) {
    Py_DECREF(values);
    return tcpy_callback_failed(where);
  }
  PyObject* result = PyObject_CallFunctionObjArgs(callable, cap, values, NULL);
  /* The ctx dies with this call even if Python kept the capsule. */
  PyCapsule_SetContext(cap, &tcpy_dispatch_ctx_dead);
  Py_DECREF(cap);
  Py_DECREF(values);
  if (!result) return tcpy_callback_failed(where);
  int rc = tcpy_kernel_results(result, outs, outs_cap, n_outs, where);
  Py_DECREF(result);
  return rc ? tcpy_callback_failed(where) : TC_OK;
}

static tc_status tcpy_library_kernel(tc_dispatch_ctx ctx, const tc_value* args, size_t nargs, tc_value* outs,
                                     size_t outs_cap, size_t* n_outs, void* user_data) {
  *n_outs = 0;
  if (!Py_IsInitialized())
    return tc_error_set(TC_ERROR_RUNTIME, "tensorc.library: a Python kernel was called after the interpreter ended");
  PyGILState_STATE gil = PyGILState_Ensure();
  tc_status st = tcpy_run_kernel(ctx, args, nargs, outs, outs_cap, n_outs, (PyObject*)user_data);
  PyGILState_Release(gil);
  return st;
}

/* user_data_free: drops the registration's reference to the callable. */
static void tcpy_library_kernel_free(void* user_data) {
  /* A registration replaced while the interpreter shuts down: nothing to run
   * Python code in any more, so the callable is left to the process's end. */
  if (!user_data || !Py_IsInitialized()) return;
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb); /* a __del__ run here must not eat a pending exception */
  Py_DECREF((PyObject*)user_data);
  PyErr_Restore(type, value, tb);
  PyGILState_Release(gil);
}

/* ---- what SWIG wraps ------------------------------------------------------- */
static PyObject* library_def(const char* schema) {
  tc_status st;
  Py_BEGIN_ALLOW_THREADS
  st = tc_library_def(schema);
  Py_END_ALLOW_THREADS
  return tcpy_check(st);
}

/* library_impl(op, key, callable): registers callable(ctx, args) as the
 * boxed kernel of op for key (a runtime or alias key code). */
static PyObject* library_impl(const char* op, int key, PyObject* callable) {
  if (!PyCallable_Check(callable)) {
    PyErr_SetString(PyExc_TypeError, "library_impl: the kernel must be callable");
    return NULL;
  }
  Py_INCREF(callable); /* the registration's reference, for user_data_free */
  tc_status st;
  Py_BEGIN_ALLOW_THREADS
  st = tc_library_impl_boxed(op, key, tcpy_library_kernel, callable, tcpy_library_kernel_free);
  Py_END_ALLOW_THREADS
  if (st != TC_OK) Py_DECREF(callable); /* refused: user_data stays ours */
  return tcpy_check(st);
}

/* library_fallback(key, callable or None): None registers a fallthrough. */
static PyObject* library_fallback(int key, PyObject* callable) {
  const bool through = callable == Py_None;
  if (!through && !PyCallable_Check(callable)) {
    PyErr_SetString(PyExc_TypeError, "library_fallback: the fallback must be callable or None");
    return NULL;
  }
  if (!through) Py_INCREF(callable);
  tc_status st;
  Py_BEGIN_ALLOW_THREADS
  if (through)
    st = tc_library_fallback(key, NULL, NULL, NULL);
  else
    st = tc_library_fallback(key, tcpy_library_kernel, callable, tcpy_library_kernel_free);
  Py_END_ALLOW_THREADS
  if (st != TC_OK && !through) Py_DECREF(callable);
  return tcpy_check(st);
}

/* An op's outputs: a tuple with one value per return. */
#define TCPY_MAX_OP_RESULTS 16
typedef tc_status (*tcpy_boxed_call_fn)(tc_value*, size_t, size_t*, const void*, const tc_value*, size_t);
static PyObject* tcpy_boxed_call(tcpy_boxed_call_fn call, const void* target, PyObject* values, PyObject* hints,
                                 const char* fn) {
  size_t nargs = 0;
  tc_value* args = tcpy_values_from_py(values, hints, &nargs, fn);
  if (!args) return NULL;
  tc_value outs[TCPY_MAX_OP_RESULTS];
  memset(outs, 0, sizeof outs);
  size_t n = 0;
  tc_status st;
  Py_BEGIN_ALLOW_THREADS
  st = call(outs, TCPY_MAX_OP_RESULTS, &n, target, args, nargs);
  Py_END_ALLOW_THREADS
  tcpy_values_clear(args, nargs);
  PyMem_Free(args);
  if (st != TC_OK) return tcpy_check(st);
  return tcpy_results_to_py(outs, n);
}
static tc_status tcpy_op_call(tc_value* outs, size_t cap, size_t* n, const void* op, const tc_value* args,
                              size_t nargs) {
  return tc_op_call(outs, cap, n, (const char*)op, args, nargs);
}
static tc_status tcpy_redispatch(tc_value* outs, size_t cap, size_t* n, const void* ctx, const tc_value* args,
                                 size_t nargs) {
  return tc_dispatch_redispatch(outs, cap, n, (tc_dispatch_ctx)ctx, args, nargs);
}

/* library_call(op, values, hints) -> tuple: tc_op_call, GIL released. */
static PyObject* library_call(const char* op, PyObject* values, PyObject* hints) {
  return tcpy_boxed_call(tcpy_op_call, op, values, hints, op);
}

static tc_dispatch_ctx tcpy_dispatch_ctx(PyObject* cap, const char* fn) {
  if (!PyCapsule_IsValid(cap, TCPY_DISPATCH_CTX_CAPSULE) || PyCapsule_GetContext(cap) == &tcpy_dispatch_ctx_dead) {
    PyErr_Clear();
    PyErr_Format(PyExc_RuntimeError, "%s: the call can only be used while its kernel runs", fn);
    return NULL;
  }
  return (tc_dispatch_ctx)PyCapsule_GetPointer(cap, TCPY_DISPATCH_CTX_CAPSULE);
}

/* library_redispatch(ctx, values, hints) -> tuple: the next kernel below the
 * ctx's key. */
static PyObject* library_redispatch(PyObject* cap, PyObject* values, PyObject* hints) {
  tc_dispatch_ctx ctx = tcpy_dispatch_ctx(cap, "DispatchCall.redispatch");
  if (!ctx) return NULL;
  return tcpy_boxed_call(tcpy_redispatch, ctx, values, hints, "DispatchCall.redispatch");
}

/* library_ctx_info(ctx) -> (op name, key code). */
static PyObject* library_ctx_info(PyObject* cap) {
  tc_dispatch_ctx ctx = tcpy_dispatch_ctx(cap, "DispatchCall");
  if (!ctx) return NULL;
  const char* op = NULL;
  tc_dispatch_key key = -1;
  tc_status st = tc_dispatch_ctx_info(&op, &key, ctx);
  if (st != TC_OK) return tcpy_check(st);
  return Py_BuildValue("(si)", op, (int)key);
}

typedef tc_status (*tcpy_op_string_fn)(char*, size_t, size_t*, const char*);
/* The GIL is released: tensorc's registry lock is taken (see the top). */
static PyObject* tcpy_op_string(tcpy_op_string_fn fn, const char* op) {
  size_t needed = 0;
  tc_status st;
  Py_BEGIN_ALLOW_THREADS
  st = fn(NULL, 0, &needed, op);
  Py_END_ALLOW_THREADS
  if (st != TC_OK) return tcpy_check(st);
  char* buf = (char*)PyMem_Malloc(needed + 1);
  if (!buf) return PyErr_NoMemory();
  Py_BEGIN_ALLOW_THREADS
  st = fn(buf, needed + 1, &needed, op);
  Py_END_ALLOW_THREADS
  PyObject* r = st == TC_OK ? PyUnicode_FromString(buf) : tcpy_check(st);
  PyMem_Free(buf);
  return r;
}
static PyObject* library_op_schema(const char* op) { return tcpy_op_string(tc_op_schema, op); }
static PyObject* library_op_table(const char* op) { return tcpy_op_string(tc_op_dump_table, op); }

/* dispatch_tls_push(include, exclude) -> the (included, excluded) bit sets
 * as they were; -1: no key. */
static PyObject* dispatch_tls_push(int include, int exclude) {
  tc_dispatch_tls_state saved;
  tc_status st = tc_dispatch_tls_push(&saved, include, exclude);
  if (st != TC_OK) return tcpy_check(st);
  return Py_BuildValue("(kk)", (unsigned long)saved.included, (unsigned long)saved.excluded);
}
static PyObject* dispatch_tls_restore(unsigned long included, unsigned long excluded) {
  tc_dispatch_tls_state s;
  s.included = (uint32_t)included;
  s.excluded = (uint32_t)excluded;
  if (s.included != included || s.excluded != excluded) {
    PyErr_SetString(PyExc_ValueError, "dispatch_tls_restore: key sets out of range");
    return NULL;
  }
  return tcpy_check(tc_dispatch_tls_restore(&s));
}
%}

%nothread;
PyObject* library_def(const char* schema);
PyObject* library_impl(const char* op, int key, PyObject* callable);
PyObject* library_fallback(int key, PyObject* callable);
PyObject* library_call(const char* op, PyObject* values, PyObject* hints);
PyObject* library_redispatch(PyObject* cap, PyObject* values, PyObject* hints);
PyObject* library_ctx_info(PyObject* cap);
PyObject* library_op_schema(const char* op);
PyObject* library_op_table(const char* op);
PyObject* dispatch_tls_push(int include, int exclude);
PyObject* dispatch_tls_restore(unsigned long included, unsigned long excluded);
%thread;
