/* SPDX-License-Identifier: BSD-3-Clause */
/* typemaps.i: how each C type of the op surface reads a Python value.
 *
 * Conversions are strict where PyTorch is (a str is not an int), and every
 * error names the C function and the argument. Optional values arrive as
 * pointers in the C ABI: None passes NULL (the schema default). */
%{
static const char* tcpy_type_name(PyObject* o) { return Py_TYPE(o)->tp_name; }

static int tcpy_int_arg(PyObject* o, int64_t* out, const char* fn, const char* arg) {
  if (PyBool_Check(o) || PyFloat_Check(o) || !PyIndex_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s: argument '%s' must be an int, not %s", fn, arg, tcpy_type_name(o));
    return -1;
  }
  PyObject* i = PyNumber_Index(o);
  if (!i) return -1;
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
  Py_DECREF(i);
  if (overflow) {
    PyErr_Format(PyExc_OverflowError, "%s: argument '%s' does not fit in int64", fn, arg);
    return -1;
  }
  if (v == -1 && PyErr_Occurred()) return -1;
  *out = (int64_t)v;
  return 0;
}

static int tcpy_float_arg(PyObject* o, double* out, const char* fn, const char* arg) {
  if (PyBool_Check(o) || !(PyFloat_Check(o) || PyIndex_Check(o) || PyNumber_Check(o)) || PyUnicode_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s: argument '%s' must be a float, not %s", fn, arg, tcpy_type_name(o));
    return -1;
  }
  double v = PyFloat_AsDouble(o);
  if (v == -1.0 && PyErr_Occurred()) return -1;
  *out = v;
  return 0;
}

static int tcpy_bool_arg(PyObject* o, bool* out, const char* fn, const char* arg) {
  if (!(PyBool_Check(o) || PyLong_Check(o) || (PyNumber_Check(o) && !PyFloat_Check(o)))) {
    PyErr_Format(PyExc_TypeError, "%s: argument '%s' must be a bool, not %s", fn, arg, tcpy_type_name(o));
    return -1;
  }
  int v = PyObject_IsTrue(o);
  if (v < 0) return -1;
  *out = v != 0;
  return 0;
}

/* Scalar: a Python bool, int or float (NumPy's too), or a one-element tensor.
 * A 0-dim tensor travels as itself (TC_SCALAR_TENSOR): where the op has a
 * Tensor overload for it the value stays on its device; otherwise the C ABI
 * reads it. Another one-element tensor is read here. */
static int tcpy_scalar_arg(PyObject* o, tc_scalar* out, const char* fn, const char* arg) {
  memset(out, 0, sizeof *out);
  if (PyBool_Check(o)) {
    out->tag = TC_SCALAR_BOOL;
    out->u.b = (o == Py_True);
    return 0;
  }
  if (PyFloat_Check(o)) {
    out->tag = TC_SCALAR_FLOAT;
    out->u.f = PyFloat_AS_DOUBLE(o);
    return 0;
  }
  if (PyLong_Check(o) || (PyIndex_Check(o) && !tcpy_is_tensor(o))) {
    out->tag = TC_SCALAR_INT;
    return tcpy_int_arg(o, &out->u.i, fn, arg);
  }
  if (tcpy_is_tensor(o)) {
    tc_tensor t = ((TensorBaseObject*)o)->handle;
    int64_t dim = -1;
    if (t && tc_tensor_dim(&dim, t) == TC_OK && dim == 0) {
      *out = tc_scalar_from_tensor(t); /* borrowed: o outlives the call */
      return 0;
    }
    if (t && tc_tensor_item(out, t) == TC_OK) return 0;
    PyErr_Format(PyExc_ValueError, "%s: argument '%s' must be a number or a one-element Tensor", fn, arg);
    return -1;
  }
  if (PyNumber_Check(o) && !PyUnicode_Check(o)) { /* e.g. numpy.float32 */
    out->tag = TC_SCALAR_FLOAT;
    return tcpy_float_arg(o, &out->u.f, fn, arg);
  }
  PyErr_Format(PyExc_TypeError, "%s: argument '%s' must be a number (bool, int or float), not %s", fn, arg,
               tcpy_type_name(o));
  return -1;
}

/* ScalarType: a tensorc.dtype (its _code) or a raw code. */
static int tcpy_dtype_arg(PyObject* o, tc_dtype* out, const char* fn, const char* arg) {
  PyObject* code = NULL;
  if (PyLong_Check(o) && !PyBool_Check(o)) {
    code = o;
    Py_INCREF(code);
  } else {
    code = PyObject_GetAttrString(o, "_code");
    if (!code || !PyLong_Check(code)) {
      Py_XDECREF(code);
      PyErr_Clear();
      PyErr_Format(PyExc_TypeError, "%s: argument '%s' must be a tensorc.dtype, not %s", fn, arg,
                   tcpy_type_name(o));
      return -1;
    }
  }
  long v = PyLong_AsLong(code);
  Py_DECREF(code);
  if (v == -1 && PyErr_Occurred()) return -1;
  if (v < INT32_MIN || v > INT32_MAX) {
    PyErr_Format(PyExc_OverflowError, "%s: argument '%s': dtype code %ld is out of range", fn, arg, v);
    return -1;
  }
  *out = (tc_dtype)v;
  return 0;
}

/* Device: a tensorc.device (its _c_device pair) or a (type, index) pair. */
static int tcpy_device_arg(PyObject* o, tc_device* out, const char* fn, const char* arg) {
  PyObject* pair = PyTuple_Check(o) ? (Py_INCREF(o), o) : PyObject_GetAttrString(o, "_c_device");
  if (!pair || !PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
    Py_XDECREF(pair);
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s: argument '%s' must be a tensorc.device, not %s", fn, arg,
                 tcpy_type_name(o));
    return -1;
  }
  long type = PyLong_AsLong(PyTuple_GET_ITEM(pair, 0));
  long index = type == -1 && PyErr_Occurred() ? 0 : PyLong_AsLong(PyTuple_GET_ITEM(pair, 1));
  Py_DECREF(pair);
  if (PyErr_Occurred()) return -1;
  if (type < INT32_MIN || type > INT32_MAX || index < INT32_MIN || index > INT32_MAX) {
    PyErr_Format(PyExc_OverflowError, "%s: argument '%s': device (%ld, %ld) is out of range", fn, arg, type, index);
    return -1;
  }
  out->type = (int32_t)type;
  out->index = (int32_t)index;
  return 0;
}

/* Generator?: None or a tensorc.Generator (its _c handle capsule). */
static int tcpy_generator_arg(PyObject* o, tc_generator* out, const char* fn, const char* arg) {
  *out = NULL;
  if (o == Py_None) return 0;
  PyObject* cap = PyObject_GetAttrString(o, "_c");
  if (!cap || !PyCapsule_IsValid(cap, "tensorc.generator")) {
    Py_XDECREF(cap);
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s: argument '%s' must be a tensorc.Generator or None, not %s", fn, arg,
                 tcpy_type_name(o));
    return -1;
  }
  *out = (tc_generator)PyCapsule_GetPointer(cap, "tensorc.generator");
  Py_DECREF(cap);
  return 0;
}

/* A list argument's storage: small lists live on the stack. */
#define TCPY_SMALL_LIST 16
typedef struct {
  int64_t small[TCPY_SMALL_LIST];
  int64_t* data;
} tcpy_int_buf;

/* int[] (and int[N]): an int or a sequence of ints. None gives data NULL (for
 * int[]?); an empty sequence gives a non-NULL pointer and length 0. */
static int tcpy_int_list_arg(PyObject* o, tcpy_int_buf* buf, const int64_t** data, size_t* len, const char* fn,
                             const char* arg) {
  buf->data = NULL;
  if (o == Py_None) {
    *data = NULL;
    *len = 0;
    return 0;
  }
  if (PyIndex_Check(o) && !tcpy_is_tensor(o)) {
    if (tcpy_int_arg(o, &buf->small[0], fn, arg)) return -1;
    *data = buf->small;
    *len = 1;
    return 0;
  }
  if (PyUnicode_Check(o) || !PySequence_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s: argument '%s' must be a sequence of ints, not %s", fn, arg,
                 tcpy_type_name(o));
    return -1;
  }
  PyObject* seq = PySequence_Fast(o, "");
  if (!seq) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  int64_t* dst = buf->small;
  if (n > TCPY_SMALL_LIST) {
    dst = buf->data = (int64_t*)PyMem_Malloc((size_t)n * sizeof(int64_t));
    if (!dst) {
      Py_DECREF(seq);
      PyErr_NoMemory();
      return -1;
    }
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    if (tcpy_int_arg(PySequence_Fast_GET_ITEM(seq, i), &dst[i], fn, arg)) {
      PyMem_Free(buf->data);
      buf->data = NULL;
      Py_DECREF(seq);
      return -1;
    }
  }
  Py_DECREF(seq);
  *data = dst;
  *len = (size_t)n;
  return 0;
}

/* bool[N]: a sequence of bools. */
static int tcpy_bool_list_arg(PyObject* o, bool* small, size_t cap, size_t* len, const char* fn, const char* arg) {
  PyObject* seq = PySequence_Fast(o, "");
  if (!seq || (size_t)PySequence_Fast_GET_SIZE(seq) > cap) {
    Py_XDECREF(seq);
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s: argument '%s' must be a sequence of at most %zu bools", fn, arg, cap);
    return -1;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  for (Py_ssize_t i = 0; i < n; i++) {
    if (tcpy_bool_arg(PySequence_Fast_GET_ITEM(seq, i), &small[i], fn, arg)) {
      Py_DECREF(seq);
      return -1;
    }
  }
  Py_DECREF(seq);
  *len = (size_t)n;
  return 0;
}

/* Tensor[] and Tensor?[]: a sequence of tensors (None entries give NULL). */
static int tcpy_tensor_list_arg(PyObject* o, tc_tensor** data, size_t* len, const char* fn, const char* arg) {
  *data = NULL;
  if (tcpy_is_tensor(o) || PyUnicode_Check(o) || !PySequence_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s: argument '%s' must be a sequence of Tensors, not %s", fn, arg,
                 tcpy_type_name(o));
    return -1;
  }
  PyObject* seq = PySequence_Fast(o, "");
  if (!seq) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  tc_tensor* dst = (tc_tensor*)PyMem_Malloc((size_t)(n ? n : 1) * sizeof(tc_tensor));
  if (!dst) {
    Py_DECREF(seq);
    PyErr_NoMemory();
    return -1;
  }
  /* Each handle is retained: the sequence may be a temporary that holds the
   * only references, and Python code run later (another argument's
   * __index__, a thread while the GIL is released) may drop the tensors. */
  for (Py_ssize_t i = 0; i < n; i++) {
    if (tcpy_tensor_arg(PySequence_Fast_GET_ITEM(seq, i), &dst[i], fn, arg)) {
      while (i-- > 0) tc_tensor_release(dst[i]);
      PyMem_Free(dst);
      Py_DECREF(seq);
      return -1;
    }
    tc_tensor_retain(dst[i]);
  }
  Py_DECREF(seq);
  *data = dst;
  *len = (size_t)n;
  return 0;
}

/* Releases what tcpy_tensor_list_arg made (NULL is fine). */
static void tcpy_release_tensor_list(tc_tensor* data, size_t n) {
  if (!data) return;
  for (size_t i = 0; i < n; i++) tc_tensor_release(data[i]);
  PyMem_Free(data);
}

/* A tensor list result: a tuple of tensors, as PyTorch returns from split
 * and unbind (the list handle is consumed). */
static PyObject* tcpy_wrap_list(tc_tensor_list l) {
  size_t n = 0;
  tc_tensor_list_size(&n, l);
  PyObject* list = PyTuple_New((Py_ssize_t)n);
  for (size_t i = 0; list && i < n; i++) {
    tc_tensor t = NULL;
    tc_tensor_list_get(&t, l, i);
    PyObject* item = tcpy_wrap(t);
    if (!item) Py_CLEAR(list);
    else PyTuple_SET_ITEM(list, (Py_ssize_t)i, item);
  }
  tc_tensor_list_release(l);
  return list;
}
%}

/* ---- statuses ---------------------------------------------------------- */
%typemap(out) tc_status {
  if ($1 != TC_OK) {
    tcpy_raise_status($1);
    SWIG_fail;
  }
  $result = SWIG_Py_Void();
}

/* ---- tensors ----------------------------------------------------------- */
/* Held for the call: the Python object may lose its handle (t.data = x) or
 * die while later arguments are read or while the GIL is released. */
%typemap(in) tc_tensor {
  if (tcpy_tensor_arg($input, &$1, "$symname", "$1_name")) SWIG_fail;
  tc_tensor_retain($1);
}
%typemap(freearg) tc_tensor { tc_tensor_release($1); }
/* A result: a new reference, wrapped as tensorc.Tensor. */
%typemap(in, numinputs=0) tc_tensor* (tc_tensor temp = NULL) { $1 = &temp; }
%typemap(argout) tc_tensor* {
  PyObject* o = tcpy_wrap(temp$argnum);
  temp$argnum = NULL;
  if (!o) {
    Py_XDECREF($result); /* an earlier result of this call */
    $result = NULL;
    SWIG_fail;
  }
  $result = SWIG_Python_AppendOutput($result, o);
}
%typemap(freearg) tc_tensor* { tc_tensor_release(temp$argnum); }

%typemap(in, numinputs=0) tc_tensor_list* (tc_tensor_list temp = NULL) { $1 = &temp; }
%typemap(argout) tc_tensor_list* {
  PyObject* o = tcpy_wrap_list(temp$argnum);
  temp$argnum = NULL;
  if (!o) {
    Py_XDECREF($result); /* an earlier result of this call */
    $result = NULL;
    SWIG_fail;
  }
  $result = SWIG_Python_AppendOutput($result, o);
}
%typemap(freearg) tc_tensor_list* { tc_tensor_list_release(temp$argnum); }

%typemap(in) (const tc_tensor* TENSORS, size_t TENSORS_LEN) {
  if (tcpy_tensor_list_arg($input, (tc_tensor**)&$1, &$2, "$symname", "$1_name")) SWIG_fail;
}
%typemap(freearg) (const tc_tensor* TENSORS, size_t TENSORS_LEN) { tcpy_release_tensor_list((tc_tensor*)$1, $2); }
/* An input list, not a result (SWIG would otherwise take `const tc_tensor*`
 * for the result pointer above). */
%typemap(argout) (const tc_tensor* TENSORS, size_t TENSORS_LEN) ""

/* ---- numbers ----------------------------------------------------------- */
%typemap(in) int64_t { if (tcpy_int_arg($input, &$1, "$symname", "$1_name")) SWIG_fail; }
%typemap(in) double { if (tcpy_float_arg($input, &$1, "$symname", "$1_name")) SWIG_fail; }
%typemap(in) bool { if (tcpy_bool_arg($input, &$1, "$symname", "$1_name")) SWIG_fail; }
%typemap(in) tc_scalar { if (tcpy_scalar_arg($input, &$1, "$symname", "$1_name")) SWIG_fail; }
%typemap(in) tc_dtype { if (tcpy_dtype_arg($input, &$1, "$symname", "$1_name")) SWIG_fail; }
%typemap(in) tc_device { if (tcpy_device_arg($input, &$1, "$symname", "$1_name")) SWIG_fail; }
%typemap(in) tc_generator { if (tcpy_generator_arg($input, &$1, "$symname", "$1_name")) SWIG_fail; }

/* Optional values: None is NULL. */
%define TCPY_OPTIONAL(CTYPE, READ)
%typemap(in) const CTYPE* (CTYPE temp) {
  if ($input == Py_None) {
    $1 = NULL;
  } else {
    if (READ($input, &temp, "$symname", "$1_name")) SWIG_fail;
    $1 = &temp;
  }
}
%enddef
TCPY_OPTIONAL(int64_t, tcpy_int_arg)
TCPY_OPTIONAL(double, tcpy_float_arg)
TCPY_OPTIONAL(bool, tcpy_bool_arg)
TCPY_OPTIONAL(tc_scalar, tcpy_scalar_arg)
TCPY_OPTIONAL(tc_dtype, tcpy_dtype_arg)
TCPY_OPTIONAL(tc_device, tcpy_device_arg)

/* ---- lists, applied by name in the generated ops.i --------------------- */
/* `heap` starts NULL: freearg also runs when an earlier argument failed. */
%typemap(in) (const int64_t* INTS, size_t INTS_LEN) (tcpy_int_buf buf, int64_t* heap = NULL) {
  int rc = tcpy_int_list_arg($input, &buf, (const int64_t**)&$1, &$2, "$symname", "$1_name");
  heap = buf.data;
  if (rc) SWIG_fail;
}
%typemap(freearg) (const int64_t* INTS, size_t INTS_LEN) { PyMem_Free(heap$argnum); }

%typemap(in) (const bool* BOOLS, size_t BOOLS_LEN) (bool buf[8]) {
  if (tcpy_bool_list_arg($input, buf, 8, &$2, "$symname", "$1_name")) SWIG_fail;
  $1 = buf;
}
