/* SPDX-License-Identifier: BSD-3-Clause */
/* errors.i: C ABI statuses become Python exceptions.
 *
 * tensorc/_errors.py registers one class per status (each subclasses
 * tensorc.Error and the matching built-in). A Python exception raised inside a
 * callback tensorc runs (a custom Function's forward or backward, a deleter)
 * is kept here while the status travels back through C, and the call that
 * started it re-raises that very exception instead of a mapped one. */
%{
#define TCPY_N_STATUS 9
static PyObject* tcpy_error_classes[TCPY_N_STATUS];

/* The exception a Python callback raised, waiting to be re-raised by the
 * wrapper that called into tensorc on this thread. Callbacks run with the
 * GIL held, on the calling thread, so one slot per interpreter suffices for
 * the single-threaded case; a thread-local slot keeps threads apart. */
static __thread PyObject* tcpy_pending_type = NULL;
static __thread PyObject* tcpy_pending_value = NULL;
static __thread PyObject* tcpy_pending_tb = NULL;

/* Moves the current Python exception into the slot (replacing an older one). */
static void tcpy_stash_exception(void) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  Py_XDECREF(tcpy_pending_type);
  Py_XDECREF(tcpy_pending_value);
  Py_XDECREF(tcpy_pending_tb);
  tcpy_pending_type = type;
  tcpy_pending_value = value;
  tcpy_pending_tb = tb;
}

static void tcpy_raise_status(tc_status status) {
  if (tcpy_pending_type) {
    PyErr_Restore(tcpy_pending_type, tcpy_pending_value, tcpy_pending_tb);
    tcpy_pending_type = tcpy_pending_value = tcpy_pending_tb = NULL;
    return;
  }
  PyObject* cls = (status > 0 && status < TCPY_N_STATUS) ? tcpy_error_classes[status] : NULL;
  if (!cls) cls = PyExc_RuntimeError;
  PyErr_SetString(cls, tc_last_error_message());
}
%}
