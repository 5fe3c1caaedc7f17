/* tensor_type.i: the C type every Python tensor is an instance of.
 *
 * TensorBase holds one tc_tensor handle (one strong reference). Python's
 * tensorc.Tensor subclasses it, and the wrappers create results directly as
 * instances of the registered class (tcpy_wrap), so an op's result costs one
 * allocation and no __init__ call. This mirrors torch._C.TensorBase. */
%{
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

static PyTypeObject TensorBase_Type = {
  PyVarObject_HEAD_INIT(NULL, 0)
  .tp_name = "tensorc._C.TensorBase",
  .tp_basicsize = sizeof(TensorBaseObject),
  .tp_dealloc = TensorBase_dealloc,
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

%init %{
  if (PyType_Ready(&TensorBase_Type) < 0) return NULL;
  Py_INCREF(&TensorBase_Type);
  PyModule_AddObject(m, "TensorBase", (PyObject*)&TensorBase_Type);
%}
