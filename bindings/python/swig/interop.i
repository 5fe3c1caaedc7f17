/* SPDX-License-Identifier: BSD-3-Clause */
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
  int64_t numel = 1, nbytes = 0;
  int overflow = 0;
  for (size_t i = 0; i < ndim; i++) overflow |= dims[i] < 0 || __builtin_mul_overflow(numel, dims[i], &numel);
  overflow |= __builtin_mul_overflow(numel, (int64_t)item, &nbytes);
  if (st == TC_OK && (overflow || view.len != nbytes)) {
    PyBuffer_Release(&view);
    PyMem_Free(sizes.data);
    if (overflow)
      PyErr_SetString(PyExc_ValueError, "tensor_from_buffer: the shape has a negative size or overflows int64");
    else
      PyErr_Format(PyExc_ValueError, "tensor_from_buffer: the buffer has %zd bytes, the shape needs %lld",
                   view.len, (long long)nbytes);
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
  tc_tensor_retain(t); /* held while the GIL is released */
  Py_BEGIN_ALLOW_THREADS
  st = tc_tensor_copy_to_buffer(PyBytes_AS_STRING(bytes), (size_t)numel * item, t);
  tc_tensor_release(t);
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

/* ---- NumPy zero-copy: a tensor over a buffer exporter's memory -----------
 * The tensor holds a buffer export (PyObject_GetBuffer) of the array for its
 * whole life: the export keeps the array alive and stops NumPy from resizing
 * it under the tensor. tensorc may drop its last reference on any thread, with
 * or without the GIL, so the deleter takes the GIL itself. */
%{
static void tcpy_release_lent_buffer(void* data, void* ctx) {
  (void)data;
  /* After interpreter shutdown the array's memory went with it: nothing to do. */
  if (!Py_IsInitialized()) return;
  PyGILState_STATE gil = PyGILState_Ensure();
  PyBuffer_Release((Py_buffer*)ctx);
  PyGILState_Release(gil);
  PyMem_RawFree(ctx);
}

/* A tensor of `dtype` sharing the memory of `owner` (a NumPy array, or any
 * strided buffer exporter whose item size matches). Strides of dimensions
 * that do not matter (size 1, or an empty array) are replaced by the compact
 * ones, so a reversed length-1 view is still accepted. _interop.from_numpy
 * checks the strides first with the same rules; the checks here guard other
 * callers. */
static PyObject* tensor_share_buffer(PyObject* owner, int dtype) {
  size_t item = 0;
  tc_status st = tc_dtype_size(&item, dtype);
  if (st != TC_OK) return tcpy_check(st);
  Py_buffer* view = (Py_buffer*)PyMem_RawMalloc(sizeof *view);
  if (!view) return PyErr_NoMemory();
  if (PyObject_GetBuffer(owner, view, PyBUF_RECORDS_RO) < 0) {
    PyMem_RawFree(view);
    return NULL;
  }
  size_t ndim = (size_t)view->ndim;
  int64_t* sizes = (int64_t*)PyMem_Malloc((ndim ? ndim : 1) * 2 * sizeof(int64_t));
  int64_t* strides = sizes ? sizes + ndim : NULL;
  if (!sizes) {
    PyErr_NoMemory();
    goto fail;
  }
  if ((size_t)view->itemsize != item) {
    PyErr_Format(PyExc_ValueError, "from_numpy: argument 'ndarray' has %zd-byte items, the dtype needs %zu",
                 view->itemsize, item);
    goto fail;
  }
  int64_t numel = 1;
  for (size_t i = 0; i < ndim; i++) {
    sizes[i] = view->shape[i];
    numel *= sizes[i];
  }
  int64_t compact = 1;
  for (size_t k = ndim; k-- > 0;) {
    Py_ssize_t bytes = view->strides ? view->strides[k] : (Py_ssize_t)(compact * (int64_t)item);
    if (numel == 0 || sizes[k] == 1) {
      strides[k] = compact;
    } else if (bytes < 0) {
      PyErr_SetString(PyExc_ValueError,
                      "from_numpy: argument 'ndarray' has a negative stride, and tensors with negative strides are "
                      "not supported (make a copy of the array with array.copy() first)");
      goto fail;
    } else if (bytes % (Py_ssize_t)item != 0) {
      PyErr_Format(PyExc_ValueError,
                   "from_numpy: argument 'ndarray' has a stride of %zd bytes, not a multiple of the element size "
                   "(%zu bytes); copy the array (array.copy()) to make its memory regular",
                   bytes, item);
      goto fail;
    } else {
      strides[k] = (int64_t)(bytes / (Py_ssize_t)item);
    }
    compact *= sizes[k] ? sizes[k] : 1;
  }
  tc_tensor t = NULL;
  st = tc_tensor_from_blob(&t, view->buf, dtype, sizes, strides, ndim, tc_device_cpu(), tcpy_release_lent_buffer,
                           view);
  PyMem_Free(sizes);
  if (st != TC_OK) {
    PyBuffer_Release(view);
    PyMem_RawFree(view);
    return tcpy_check(st);
  }
  return tcpy_wrap(t); /* from here the tensor owns `view` */
fail:
  PyMem_Free(sizes);
  PyBuffer_Release(view);
  PyMem_RawFree(view);
  return NULL;
}
%}

/* ---- DLPack capsules -------------------------------------------------------
 * The unversioned protocol NumPy 1.24 and torch 1.13 speak: a PyCapsule named
 * "dltensor" holding a DLManagedTensor*. The consumer renames it to
 * "used_dltensor" and from then on owns the DLManagedTensor; a capsule nobody
 * consumed calls the deleter itself when it dies. */
%{
static void tcpy_dlpack_capsule_destructor(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, "dltensor")) return; /* consumed: the consumer owns it now */
  DLManagedTensor* m = (DLManagedTensor*)PyCapsule_GetPointer(capsule, "dltensor");
  if (m && m->deleter) m->deleter(m);
}

/* A "dltensor" capsule sharing the memory of `self`. */
static PyObject* tensor_to_dlpack_capsule(PyObject* self) {
  tc_tensor t = tcpy_handle(self, "Tensor.__dlpack__");
  if (!t) return NULL;
  DLManagedTensor* m = NULL;
  tc_status st = tc_tensor_to_dlpack(&m, t);
  if (st != TC_OK) return tcpy_check(st);
  PyObject* capsule = PyCapsule_New(m, "dltensor", tcpy_dlpack_capsule_destructor);
  if (!capsule && m->deleter) m->deleter(m);
  return capsule;
}

/* The producer's deleter may touch Python objects (NumPy's drops a reference
 * to the array) while tensorc may release the tensor without the GIL, so the
 * imported DLManagedTensor is wrapped in one whose deleter takes the GIL. */
static void tcpy_foreign_dlpack_deleter(DLManagedTensor* self) {
  DLManagedTensor* producer = (DLManagedTensor*)self->manager_ctx;
  PyMem_RawFree(self);
  if (!producer->deleter || !Py_IsInitialized()) return;
  PyGILState_STATE gil = PyGILState_Ensure();
  producer->deleter(producer);
  PyGILState_Release(gil);
}

/* A tensor over the memory a "dltensor" capsule describes; consumes the capsule. */
static PyObject* tensor_from_dlpack_capsule(PyObject* capsule) {
  if (!PyCapsule_CheckExact(capsule)) {
    PyErr_Format(PyExc_TypeError, "from_dlpack: argument 'ext_tensor' must be a DLPack capsule, not %s",
                 Py_TYPE(capsule)->tp_name);
    return NULL;
  }
  if (PyCapsule_IsValid(capsule, "used_dltensor")) {
    PyErr_SetString(PyExc_ValueError,
                    "from_dlpack: argument 'ext_tensor' is a DLPack capsule that was already consumed "
                    "(a capsule can be used only once; call __dlpack__() again for a new one)");
    return NULL;
  }
  if (!PyCapsule_IsValid(capsule, "dltensor")) {
    const char* name = PyCapsule_GetName(capsule);
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "from_dlpack: argument 'ext_tensor' is a capsule named '%s', not a DLPack "
                 "capsule named 'dltensor'", name ? name : "(null)");
    return NULL;
  }
  DLManagedTensor* producer = (DLManagedTensor*)PyCapsule_GetPointer(capsule, "dltensor");
  DLManagedTensor* wrapper = (DLManagedTensor*)PyMem_RawMalloc(sizeof *wrapper);
  if (!wrapper) return PyErr_NoMemory();
  wrapper->dl_tensor = producer->dl_tensor;
  wrapper->manager_ctx = producer;
  wrapper->deleter = tcpy_foreign_dlpack_deleter;
  /* Renamed first: once tensorc owns the producer's tensor, the capsule must
   * never call its deleter. On failure the producer keeps it, and the name. */
  if (PyCapsule_SetName(capsule, "used_dltensor") < 0) {
    PyMem_RawFree(wrapper);
    return NULL;
  }
  tc_tensor t = NULL;
  tc_status st = tc_tensor_from_dlpack(&t, wrapper);
  if (st != TC_OK) {
    PyMem_RawFree(wrapper);
    PyCapsule_SetName(capsule, "dltensor");
    return tcpy_check(st);
  }
  return tcpy_wrap(t);
}
%}

%nothread;
PyObject* tensor_share_buffer(PyObject* owner, int dtype);
PyObject* tensor_to_dlpack_capsule(PyObject* self);
PyObject* tensor_from_dlpack_capsule(PyObject* capsule);
%thread;
