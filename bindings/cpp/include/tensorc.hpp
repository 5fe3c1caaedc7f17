// SPDX-License-Identifier: BSD-3-Clause
// tensorc.hpp — the header-only C++17 wrapper over tensorc's C ABI.
//
//   #include <tensorc.hpp>
//   tensorc::Tensor x = tensorc::randn({2, 3});
//   tensorc::Tensor y = (x * 2).sum({1});
//
// It includes only tensorc.h (and the generated op surface, tensorc_ops.hpp)
// and links only libtensorc. See docs/cpp.md.
//  - tensorc/core.hpp      errors, ScalarType, Device, Scalar, ArrayRef, Generator
//  - tensorc/tensor.hpp    Tensor, the index types; includes tensorc_ops.hpp,
//                          every schema op (generated from schema/ops.yaml)
//  - tensorc/accessor.hpp  t.accessor<T, N>()
//  - tensorc/operators.hpp indexing, operators
//  - tensorc/creation.hpp  tensor(), from_data(), from_blob()
//  - tensorc/autograd.hpp  grad mode guards, autograd::grad, custom functions, gradcheck
//  - tensorc/device.hpp    device runtime, Stream, Event, DeviceGuard, StreamGuard
//  - tensorc/amp.hpp       AutocastGuard (mixed precision)
//  - tensorc/library.hpp   the dispatcher: Library (ops and kernels in C++),
//                          call_op, IValue, Include/ExcludeDispatchKeyGuard
#ifndef TENSORC_HPP
#define TENSORC_HPP

#if __cplusplus < 201703L
#error "tensorc.hpp needs C++17"
#endif

#include "tensorc/core.hpp"
#include "tensorc/tensor.hpp"
#include "tensorc/accessor.hpp"
#include "tensorc/operators.hpp"
#include "tensorc/creation.hpp"
#include "tensorc/autograd.hpp"
#include "tensorc/device.hpp"
#include "tensorc/amp.hpp"
#include "tensorc/library.hpp"
#include "tensorc/jit.hpp"

#endif  // TENSORC_HPP
