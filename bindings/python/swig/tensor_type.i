/* SPDX-License-Identifier: BSD-3-Clause */
/* tensor_type.i: the C type every Python tensor is an instance of.
 *
 * TensorBase holds one tc_tensor handle (one strong reference). Python's
 * tensorc.Tensor subclasses it, and the wrappers create results directly as
 * instances of the registered class (tcpy_wrap), so an op's result costs one
 * allocation and no __init__ call. This mirrors torch._C.TensorBase. */
%{
static void tcpy_raise_status(tc_status status);
static PyObject* tcpy_wrap(tc_tensor h);

typedef struct {
  PyObject_HEAD
  tc_tensor handle; /* NULL only for a TensorBase made by __new__ and never filled */
} TensorBaseObject;

static PyTypeObject TensorBase_Type;
/* The class results are created as: tensorc.Tensor once registered. */
static PyTypeObject* tcpy_result_type = &TensorBase_Type;

static void TensorBase_dealloc(PyObject* self) {
  tc_tensor h = ((TensorBaseObject*)self)->handle;
  ((TensorBaseObject*)self)->handle = NULL;
  tc_tensor_release(h);
  Py_TYPE(self)->tp_free(self);
}

/* ---- operators: a C fast path for the common cases --------------------
 * a + b on two plain tensorc.Tensor objects, or a tensor and a Python int or
 * float, calls the op here: a Python-level __add__ would cost a frame and the
 * generated function's argument handling on every arithmetic expression.
 * Anything else (subclasses, __tensorc_function__ types, NumPy scalars,
 * reflected forms that are not commutative...) goes to the Python operator
 * registered by tensorc/_operators.py, which has the full rules. */
enum { TCPY_OP_ADD, TCPY_OP_SUB, TCPY_OP_MUL, TCPY_OP_DIV, TCPY_OP_MATMUL, TCPY_N_OPS };
static PyObject* tcpy_slow_ops[TCPY_N_OPS];

static PyObject* tcpy_plain_types; /* below: registered plain subclasses (nn.Parameter) */
/* A tensor whose ops need no __tensorc_function__ check: tensorc.Tensor itself
 * or a registered plain subclass. */
static int tcpy_is_plain(PyObject* o) {
  PyTypeObject* t = Py_TYPE(o);
  if (t != tcpy_result_type) {
    if (!tcpy_plain_types || !PyType_IsSubtype(t, &TensorBase_Type)) return 0;
    int found = PySet_Contains(tcpy_plain_types, (PyObject*)t);
    if (found < 0) PyErr_Clear(); /* an odd metaclass: take the slow path, which reports */
    if (found != 1) return 0;
  }
  return ((TensorBaseObject*)o)->handle != NULL;
}
static int tcpy_plain_number(PyObject* o, tc_scalar* s) {
  memset(s, 0, sizeof *s);
  if (PyFloat_CheckExact(o)) {
    s->tag = TC_SCALAR_FLOAT;
    s->u.f = PyFloat_AS_DOUBLE(o);
    return 1;
  }
  if (PyLong_CheckExact(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow || (v == -1 && PyErr_Occurred())) {
      PyErr_Clear();
      return 0; /* the slow path reports it */
    }
    s->tag = TC_SCALAR_INT;
    s->u.i = v;
    return 1;
  }
  return 0;
}
static PyObject* tcpy_finish(tc_status st, tc_tensor out) {
  if (st != TC_OK) {
    tcpy_raise_status(st);
    return NULL;
  }
  return tcpy_wrap(out);
}
static PyObject* tcpy_slow(int op, PyObject* l, PyObject* r) {
  if (!tcpy_slow_ops[op]) Py_RETURN_NOTIMPLEMENTED;
  return PyObject_CallFunctionObjArgs(tcpy_slow_ops[op], l, r, NULL);
}

static PyObject* TensorBase_binary(int op, PyObject* l, PyObject* r) {
  tc_tensor out = NULL;
  tc_status st;
  tc_scalar s;
  /* Handles are held while the GIL is released: another thread may replace
   * a Python tensor's handle (t.data = x) meanwhile. */
  if (tcpy_is_plain(l) && tcpy_is_plain(r)) {
    tc_tensor a = ((TensorBaseObject*)l)->handle, b = ((TensorBaseObject*)r)->handle;
    tc_tensor_retain(a);
    tc_tensor_retain(b);
    Py_BEGIN_ALLOW_THREADS
    switch (op) {
      case TCPY_OP_ADD: st = tc_add_Tensor(&out, a, b, NULL); break;
      case TCPY_OP_SUB: st = tc_sub_Tensor(&out, a, b, NULL); break;
      case TCPY_OP_MUL: st = tc_mul_Tensor(&out, a, b); break;
      case TCPY_OP_DIV: st = tc_div_Tensor(&out, a, b); break;
      default: st = tc_matmul(&out, a, b); break;
    }
    tc_tensor_release(a);
    tc_tensor_release(b);
    Py_END_ALLOW_THREADS
    return tcpy_finish(st, out);
  }
  if (op != TCPY_OP_MATMUL && tcpy_is_plain(l) && tcpy_plain_number(r, &s)) {
    tc_tensor a = ((TensorBaseObject*)l)->handle;
    tc_tensor_retain(a);
    Py_BEGIN_ALLOW_THREADS
    switch (op) {
      case TCPY_OP_ADD: st = tc_add_Scalar(&out, a, s, NULL); break;
      case TCPY_OP_SUB: st = tc_sub_Scalar(&out, a, s, NULL); break;
      case TCPY_OP_MUL: st = tc_mul_Scalar(&out, a, s); break;
      default: st = tc_div_Scalar(&out, a, s); break;
    }
    tc_tensor_release(a);
    Py_END_ALLOW_THREADS
    return tcpy_finish(st, out);
  }
  if ((op == TCPY_OP_ADD || op == TCPY_OP_MUL || op == TCPY_OP_SUB) && tcpy_is_plain(r) && tcpy_plain_number(l, &s)) {
    tc_tensor b = ((TensorBaseObject*)r)->handle;
    tc_tensor_retain(b);
    Py_BEGIN_ALLOW_THREADS
    switch (op) {
      case TCPY_OP_ADD: st = tc_add_Scalar(&out, b, s, NULL); break;
      case TCPY_OP_MUL: st = tc_mul_Scalar(&out, b, s); break;
      default: st = tc_rsub_Scalar(&out, b, s, NULL); break;
    }
    tc_tensor_release(b);
    Py_END_ALLOW_THREADS
    return tcpy_finish(st, out);
  }
  return tcpy_slow(op, l, r);
}
static PyObject* TensorBase_add(PyObject* l, PyObject* r) { return TensorBase_binary(TCPY_OP_ADD, l, r); }
static PyObject* TensorBase_sub(PyObject* l, PyObject* r) { return TensorBase_binary(TCPY_OP_SUB, l, r); }
static PyObject* TensorBase_mul(PyObject* l, PyObject* r) { return TensorBase_binary(TCPY_OP_MUL, l, r); }
static PyObject* TensorBase_div(PyObject* l, PyObject* r) { return TensorBase_binary(TCPY_OP_DIV, l, r); }
static PyObject* TensorBase_matmul(PyObject* l, PyObject* r) { return TensorBase_binary(TCPY_OP_MATMUL, l, r); }

static PyNumberMethods TensorBase_as_number = {
  .nb_add = TensorBase_add,
  .nb_subtract = TensorBase_sub,
  .nb_multiply = TensorBase_mul,
  .nb_true_divide = TensorBase_div,
  .nb_matrix_multiply = TensorBase_matmul,
};

static PyTypeObject TensorBase_Type = {
  PyVarObject_HEAD_INIT(NULL, 0)
  .tp_name = "tensorc._C.TensorBase",
  .tp_basicsize = sizeof(TensorBaseObject),
  .tp_dealloc = TensorBase_dealloc,
  .tp_as_number = &TensorBase_as_number,
  .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
  .tp_doc = "The C base of tensorc.Tensor: one handle to a tensorc tensor.",
  .tp_new = PyType_GenericNew,
};

/* A new instance of the result class owning `h` (consumed, even on failure). */
static PyObject* tcpy_wrap_as(tc_tensor h, PyTypeObject* type) {
  PyObject* o = type->tp_alloc(type, 0);
  if (!o) {
    tc_tensor_release(h);
    return NULL;
  }
  ((TensorBaseObject*)o)->handle = h;
  return o;
}
static PyObject* tcpy_wrap(tc_tensor h) { return tcpy_wrap_as(h, tcpy_result_type); }

static int tcpy_is_tensor(PyObject* o) { return PyObject_TypeCheck(o, &TensorBase_Type); }

/* Reads a tensor argument; returns 0 on success, -1 with a TypeError set.
 * None gives NULL: the C ABI then names the argument if it is required. */
static int tcpy_tensor_arg(PyObject* o, tc_tensor* out, const char* fn, const char* arg) {
  if (o == Py_None) {
    *out = NULL;
    return 0;
  }
  if (!tcpy_is_tensor(o)) {
    PyErr_Format(PyExc_TypeError, "%s: argument '%s' must be a Tensor, not %s", fn, arg, Py_TYPE(o)->tp_name);
    return -1;
  }
  *out = ((TensorBaseObject*)o)->handle;
  if (!*out) {
    PyErr_Format(PyExc_ValueError, "%s: argument '%s' is an uninitialised Tensor", fn, arg);
    return -1;
  }
  return 0;
}
%}

%{
/* ---- fast functions: tensorc.add(a, b) and friends ----------------------
 * A FastBinary object stands in for the generated Python function of a hot
 * binary op (add, sub, mul, div, matmul). Called with two plain tensors, or a
 * plain tensor and a Python number, it calls the C op itself; any other call
 * (keywords, subclasses, overrides, other types) goes to the generated
 * function, kept as __wrapped__ (inspect.signature follows it). */
typedef struct {
  PyObject_HEAD
  int op;
  PyObject* wrapped;
  PyObject* dict;
} FastBinaryObject;

static PyObject* FastBinary_call(PyObject* self, PyObject* args, PyObject* kwargs) {
  FastBinaryObject* f = (FastBinaryObject*)self;
  if ((!kwargs || PyDict_GET_SIZE(kwargs) == 0) && PyTuple_GET_SIZE(args) == 2) {
    PyObject *l = PyTuple_GET_ITEM(args, 0), *r = PyTuple_GET_ITEM(args, 1);
    tc_scalar s;
    if (tcpy_is_plain(l) && (tcpy_is_plain(r) || (f->op != TCPY_OP_MATMUL && tcpy_plain_number(r, &s))))
      return TensorBase_binary(f->op, l, r); /* takes the same two fast cases */
  }
  return PyObject_Call(f->wrapped, args, kwargs);
}

static void FastBinary_dealloc(PyObject* self) {
  FastBinaryObject* f = (FastBinaryObject*)self;
  PyObject_GC_UnTrack(self);
  Py_CLEAR(f->wrapped);
  Py_CLEAR(f->dict);
  Py_TYPE(self)->tp_free(self);
}
static int FastBinary_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(((FastBinaryObject*)self)->wrapped);
  Py_VISIT(((FastBinaryObject*)self)->dict);
  return 0;
}
static PyObject* FastBinary_repr(PyObject* self) {
  return PyUnicode_FromFormat("<function %R (C fast path)>", ((FastBinaryObject*)self)->wrapped);
}
static PyObject* FastBinary_get(PyObject* self, PyObject* obj, PyObject* type) {
  /* Bound like a Python function when stored on a class. */
  if (!obj || obj == Py_None) return Py_NewRef(self);
  return PyMethod_New(self, obj);
}

static PyTypeObject FastBinary_Type = {
  PyVarObject_HEAD_INIT(NULL, 0)
  .tp_name = "tensorc._C.FastBinary",
  .tp_basicsize = sizeof(FastBinaryObject),
  .tp_dealloc = FastBinary_dealloc,
  .tp_call = FastBinary_call,
  .tp_repr = FastBinary_repr,
  .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
  .tp_traverse = FastBinary_traverse,
  .tp_descr_get = FastBinary_get,
  .tp_dictoffset = offsetof(FastBinaryObject, dict),
  .tp_getattro = PyObject_GenericGetAttr,
  .tp_setattro = PyObject_GenericSetAttr,
  .tp_doc = "A generated op function with a C fast path for plain tensors and numbers.",
};

/* fast_binary(op_name, wrapped) -> a FastBinary carrying wrapped's metadata. */
static PyObject* tcpy_fast_binary(PyObject* self, PyObject* args) {
  const char* name;
  PyObject* wrapped;
  if (!PyArg_ParseTuple(args, "sO:fast_binary", &name, &wrapped)) return NULL;
  static const char* names[TCPY_N_OPS] = {"add", "sub", "mul", "div", "matmul"};
  int op = -1;
  for (int i = 0; i < TCPY_N_OPS; i++)
    if (strcmp(name, names[i]) == 0) op = i;
  if (op < 0) {
    PyErr_Format(PyExc_ValueError, "fast_binary: no fast path for '%s'", name);
    return NULL;
  }
  FastBinaryObject* f = PyObject_GC_New(FastBinaryObject, &FastBinary_Type);
  if (!f) return NULL;
  f->op = op;
  f->wrapped = Py_NewRef(wrapped);
  f->dict = PyDict_New();
  PyObject_GC_Track((PyObject*)f);
  if (!f->dict || PyDict_SetItemString(f->dict, "__wrapped__", wrapped) < 0) {
    Py_DECREF(f);
    return NULL;
  }
  static const char* copied[] = {"__name__", "__qualname__", "__doc__", "__module__"};
  for (int i = 0; i < 4; i++) {
    PyObject* v = PyObject_GetAttrString(wrapped, copied[i]);
    if (!v) {
      PyErr_Clear();
      continue;
    }
    int rc = PyDict_SetItemString(f->dict, copied[i], v);
    Py_DECREF(v);
    if (rc < 0) {
      Py_DECREF(f);
      return NULL;
    }
  }
  return (PyObject*)f;
}

/* ---- the __tensorc_function__ pre-check ---------------------------------
 * needs_override_check(*values) is False when every value is a plain tensor,
 * a Python number/str/None, a type in the registered plain set (tensorc's
 * own subclasses such as Parameter), or a list/tuple of those: then no
 * argument can override the call and the generated function skips the
 * protocol. It runs on every op call, hence C and METH_FASTCALL. */
static PyObject* tcpy_plain_types = NULL; /* a set, registered by _override_protocol.py */

static int tcpy_value_is_plain(PyObject* o, int depth) {
  PyTypeObject* t = Py_TYPE(o);
  if (t == tcpy_result_type || o == Py_None || t == &PyFloat_Type || t == &PyLong_Type || t == &PyBool_Type ||
      t == &PyUnicode_Type)
    return 1;
  if ((t == &PyList_Type || t == &PyTuple_Type) && depth == 0) {
    /* The length is re-read and each item held: a metaclass's __eq__ run by
     * the set lookup may change the list. */
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(o); i++) {
      PyObject* item = Py_NewRef(PySequence_Fast_GET_ITEM(o, i));
      int plain = tcpy_value_is_plain(item, 1);
      Py_DECREF(item);
      if (plain <= 0) return plain;
    }
    return 1;
  }
  return tcpy_plain_types ? PySet_Contains(tcpy_plain_types, (PyObject*)t) : 0; /* -1: an error is set */
}

static PyObject* tcpy_needs_override_check(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  for (Py_ssize_t i = 0; i < nargs; i++) {
    int plain = tcpy_value_is_plain(args[i], 0);
    if (plain < 0) return NULL;
    if (!plain) Py_RETURN_TRUE;
  }
  Py_RETURN_FALSE;
}

static PyObject* tcpy_set_plain_types(PyObject* self, PyObject* set) {
  if (!PySet_Check(set)) {
    PyErr_SetString(PyExc_TypeError, "set_plain_types: expected a set");
    return NULL;
  }
  Py_INCREF(set);
  Py_XSETREF(tcpy_plain_types, set);
  Py_RETURN_NONE;
}

static PyMethodDef tcpy_fast_methods[] = {
  {"needs_override_check", (PyCFunction)(void (*)(void))tcpy_needs_override_check, METH_FASTCALL,
   "needs_override_check(*values): whether any value could define __tensorc_function__."},
  {"set_plain_types", tcpy_set_plain_types, METH_O, "set_plain_types(set): types that never override."},
  {"fast_binary", tcpy_fast_binary, METH_VARARGS, "fast_binary(name, function): see FastBinary."},
  {NULL, NULL, 0, NULL}};
%}

%init %{
  if (PyModule_AddFunctions(m, tcpy_fast_methods) < 0) return NULL;
  if (PyType_Ready(&TensorBase_Type) < 0) return NULL;
  if (PyType_Ready(&FastBinary_Type) < 0) return NULL;
  Py_INCREF(&TensorBase_Type);
  PyModule_AddObject(m, "TensorBase", (PyObject*)&TensorBase_Type);
  Py_INCREF(&FastBinary_Type);
  PyModule_AddObject(m, "FastBinary", (PyObject*)&FastBinary_Type);
%}
