/* interop.i: tensors from and to Python buffers (NumPy), and DLPack. */
%{
/* A new tensor holding a copy of a C-contiguous buffer of `dtype` and `shape`. */
static PyObject* tensor_from_buffer(PyObject* buffer, int dtype, PyObject* shape) {
  tcpy_int_buf sizes;
  const int64_t* dims = NULL;
  size_t ndim = 0;
  if (tcpy_int_list_arg(shape, &sizes, &dims, &ndim, "tensor_from_buffer", "shape")) return NULL;
  Py_buffer view;
  if (PyObject_GetBuffer(buffer, &view, PyBUF_C_CONTIGUOUS) < 0) {
    PyMem_Free(sizes.data);
    return NULL;
  }
  size_t item = 0;
  tc_status st = tc_dtype_size(&item, dtype);
  int64_t numel = 1;
  for (size_t i = 0; i < ndim; i++) numel *= dims[i];
  if (st == TC_OK && (size_t)view.len != (size_t)numel * item) {
    PyBuffer_Release(&view);
    PyMem_Free(sizes.data);
    PyErr_Format(PyExc_ValueError, "tensor_from_buffer: the buffer has %zd bytes, the shape needs %lld",
                 view.len, (long long)(numel * (int64_t)item));
    return NULL;
  }
  tc_tensor t = NULL;
  if (st == TC_OK) {
    Py_BEGIN_ALLOW_THREADS
    st = tc_tensor_from_data(&t, view.buf, dtype, dims, ndim);
    Py_END_ALLOW_THREADS
  }
  PyBuffer_Release(&view);
  PyMem_Free(sizes.data);
  return st == TC_OK ? tcpy_wrap(t) : tcpy_check(st);
}

/* The elements of a CPU tensor in row-major order, as bytes. */
static PyObject* tensor_to_bytes(PyObject* self) {
  tc_tensor t = tcpy_handle(self, "Tensor.tolist");
  if (!t) return NULL;
  int64_t numel = 0;
  tc_dtype dtype = 0;
  size_t item = 0;
  tc_status st = tc_tensor_numel(&numel, t);
  if (st == TC_OK) st = tc_tensor_dtype(&dtype, t);
  if (st == TC_OK) st = tc_dtype_size(&item, dtype);
  if (st != TC_OK) return tcpy_check(st);
  PyObject* bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)((size_t)numel * item));
  if (!bytes) return NULL;
  Py_BEGIN_ALLOW_THREADS
  st = tc_tensor_copy_to_buffer(PyBytes_AS_STRING(bytes), (size_t)numel * item, t);
  Py_END_ALLOW_THREADS
  if (st != TC_OK) {
    Py_DECREF(bytes);
    return tcpy_check(st);
  }
  return bytes;
}
%}
%nothread;
PyObject* tensor_from_buffer(PyObject* buffer, int dtype, PyObject* shape);
PyObject* tensor_to_bytes(PyObject* self);
%thread;
