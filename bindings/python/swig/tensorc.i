/* SPDX-License-Identifier: BSD-3-Clause */
/* tensorc.i: the SWIG module tensorc._C, the package's only way into the
 * library. It wraps the C ABI and nothing else:
 *   tensor_type.i  the TensorBase type every Python tensor is
 *   errors.i       statuses -> the package's exception classes
 *   typemaps.i     Python values -> C arguments, results -> Python
 *   core_api.i     the hand-written C API (metadata, autograd, generators)
 *   interop.i      NumPy buffers and DLPack capsules
 *   function.i     custom autograd functions written in Python
 *   library.i      the dispatcher: ops, kernels and fallbacks in Python
 *   ops.i          (generated) every op entry point of tensorc_ops.h
 * Built with -threads: each op wrapper releases the GIL around its C call. */
%module(package="tensorc", threads="1") _C

%{
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>
#include <string.h>
#include <tensorc.h>
#include <dlpack/dlpack.h>
%}

%include <stdint.i>
typedef unsigned long size_t;

/* The C ABI's types, as SWIG needs to know them. */
typedef int32_t tc_status;
typedef int32_t tc_dtype;
typedef struct tc_tensor_s* tc_tensor;
typedef struct tc_generator_s* tc_generator;
typedef struct tc_tensor_list_s* tc_tensor_list;
typedef struct tc_scalar tc_scalar;
typedef struct tc_device tc_device;
#define TC_API
#define TENSORC_H

%include "tensor_type.i"
%include "errors.i"
%include "typemaps.i"
%include "core_api.i"
%include "interop.i"
%include "function.i"
%include "library.i"

%thread;
%include "ops.i"
