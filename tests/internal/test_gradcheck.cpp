// SPDX-License-Identifier: BSD-3-Clause
// Finite-difference checks (gradcheck / gradgradcheck) of every formula in
// schema/derivatives.yaml: one table of cases, each naming the entry it
// exercises. Pointwise ops and reductions also run on non-contiguous views,
// binary ops on broadcast shapes, and a few in-place variants on non-leaves.
// Coverage is enforced: every entry with a formula must have a case, and each
// case must actually reach that entry's backward node (the exact overload).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "autograd/engine.h"
#include "autograd/gradcheck.h"
#include "autograd/grad_mode.h"
#include "autograd/variable.h"
#include "codegen/derivatives.h"
#include "codegen/gen_common.h"
#include "codegen/native_functions.h"
#include "core/error.h"
#include "core/generator.h"
#include "cuda/runtime.h"
#include "tensorc_gen/ops.h"
#include "autograd_fixtures.h"

namespace {

using namespace tc;
namespace ag = tc::autograd;
using V = ag::variable_list;
using Vals = std::vector<double>;
using Op1 = std::function<Tensor(const Tensor&)>;
using Op2 = std::function<Tensor(const Tensor&, const Tensor&)>;

// ---- building inputs ----

using tc::fixtures::from;
using tc::fixtures::leaf;

// A (3,2) leaf whose transpose (a non-contiguous (2,3) view) holds `v` row-major.
Tensor transposed_leaf(const Vals& v) { return leaf({v[0], v[3], v[1], v[4], v[2], v[5]}, {3, 2}); }
Tensor T(const Tensor& x) { return tc::transpose(x, 0, 1); }

// A (2,6) leaf whose every-other-column slice (a non-contiguous (2,3) view) holds `v`.
Tensor strided_leaf(const Vals& v) {
  Vals w;
  for (double x : v) w.insert(w.end(), {x, x});
  return leaf(w, {2, 6});
}
Tensor S(const Tensor& x) { return tc::slice(x, 1, 0, 6, 2); }

// The device the cases run on: the CPU, or a CUDA device in
// EveryCaseOnCudaMatchesTheCpu. The constants a case builds or captures (on
// the CPU) go through on_device() to live beside its inputs.
Device g_case_device(DeviceType::CPU);
Tensor on_device(const Tensor& t) {
  return g_case_device.is_cpu() || !t.defined() ? t : tc::_to_copy(t, std::nullopt, g_case_device);
}

Vals head(const Vals& v, size_t n) { return Vals(v.begin(), v.begin() + long(n)); }
std::optional<Scalar> opt(double c) { return Scalar(c); }
std::optional<Tensor> opt(const Tensor& t) { return t; }

// Value sets for (2,3) inputs; chosen so that the ops below stay smooth:
// distinct (no ties between or across R and Q, also under broadcasting),
// away from 0, from integers and .5 (floor/round jumps) and from the clamp
// bounds; every R/Q ratio is at least 0.07 away from an integer.
const Vals R = {0.3, -0.7, 1.2, 0.4, -0.2, 0.9};    // any real
const Vals P = {0.3, 0.7, 1.2, 0.4, 0.2, 0.9};      // positive
const Vals U = {0.3, -0.7, 0.6, 0.4, -0.2, 0.8};    // |x| < 1
const Vals Q = {1.1, -0.4, 0.8, -0.6, 0.25, 0.65};  // second operand, nonzero
const Vals W = {0.2, 0.7, 0.4, 0.9, 0.1, 0.6};      // weights / probabilities in (0,1)

struct Case {
  std::string entry;  // the schema/derivatives.yaml entry it exercises
  std::string label;  // variant: layout, arguments
  V inputs;           // float64 leaves that require grad (plus constants)
  ag::DifferentiableFn fn;
  bool dense = true;         // no non-contiguous view inside (see SecondOrder)
  bool second_order = true;  // false: not for gradgradcheck (ties, see the notes)

  Case& strided() {
    dense = false;
    return *this;
  }
  Case& first_order_only() {
    second_order = false;
    return *this;
  }
};

struct Table {
  std::vector<Case> cases;

  Case& add(const std::string& entry, const std::string& label, V inputs, ag::DifferentiableFn fn) {
    cases.push_back({entry, label, std::move(inputs), std::move(fn)});
    return cases.back();
  }
  Case& add1(const std::string& entry, const std::string& label, Tensor x, Op1 op) {
    return add(entry, label, {x}, [op](const V& v) { return V{op(v[0])}; });
  }

  // Pointwise op or reduction of one tensor: a contiguous (2,3) input and a
  // transposed (3,2)->(2,3) view with the same logical values.
  void unary(const std::string& entry, const Vals& a, Op1 op, const std::string& note = "") {
    const std::string n = note.empty() ? "" : note + ", ";
    add1(entry, n + "contiguous", leaf(a, {2, 3}), op);
    add1(entry, n + "transposed view", transposed_leaf(a), [op](const Tensor& x) { return op(T(x)); }).strided();
  }

  // Binary op: same shapes, non-contiguous operands (transposed self, strided
  // slice other), and both broadcasts ((2,3) with (3), (2,1) with (2,3)).
  void binary(const std::string& entry, const Vals& a, const Vals& b, Op2 op, const std::string& note = "") {
    const std::string n = note.empty() ? "" : note + ", ";
    auto fn = [op](const V& v) { return V{op(v[0], v[1])}; };
    add(entry, n + "same shape", {leaf(a, {2, 3}), leaf(b, {2, 3})}, fn);
    add(entry, n + "non-contiguous", {transposed_leaf(a), strided_leaf(b)}, [op](const V& v) {
      return V{op(T(v[0]), S(v[1]))};
    }).strided();
    add(entry, n + "broadcast (2,3) with (3)", {leaf(a, {2, 3}), leaf(head(b, 3), {3})}, fn);
    add(entry, n + "broadcast (2,1) with (2,3)", {leaf(head(a, 2), {2, 1}), leaf(b, {2, 3})}, fn);
  }
};

std::vector<Case> build_cases() {
  Table t;

  // ---- copy / fill ----
  t.add("copy", "broadcast src", {leaf(R, {2, 3}), leaf(head(Q, 3), {3})},
        [](const V& v) { return V{tc::copy(v[0], v[1])}; });
  t.add("copy", "transposed src", {leaf(R, {2, 3}), transposed_leaf(Q)}, [](const V& v) {
     return V{tc::copy(v[0], T(v[1]))};
   }).strided();
  t.unary("fill.Scalar", R, [](const Tensor& x) { return tc::fill(x, Scalar(2.0)); });
  t.add("fill.Tensor", "0-dim value", {leaf(R, {2, 3}), leaf({0.7}, {})},
        [](const V& v) { return V{tc::fill(v[0], v[1])}; });
  t.add("fill.Tensor", "transposed self", {transposed_leaf(R), leaf({0.7}, {})}, [](const V& v) {
     return V{tc::fill(T(v[0]), v[1])};
   }).strided();

  // ---- unary pointwise ----
  t.unary("abs", R, [](const Tensor& x) { return tc::abs(x); });
  t.unary("neg", R, [](const Tensor& x) { return tc::neg(x); });
  t.unary("sign", R, [](const Tensor& x) { return tc::sign(x); });
  t.unary("relu", R, [](const Tensor& x) { return tc::relu(x); });
  t.unary("floor", R, [](const Tensor& x) { return tc::floor(x); });
  t.unary("ceil", R, [](const Tensor& x) { return tc::ceil(x); });
  t.unary("round", R, [](const Tensor& x) { return tc::round(x); });
  t.unary(
      "round.decimals", R, [](const Tensor& x) { return tc::round(x, int64_t(1)); }, "decimals=1");
  t.unary("trunc", R, [](const Tensor& x) { return tc::trunc(x); });
  t.unary("exp", R, [](const Tensor& x) { return tc::exp(x); });
  t.unary("expm1", R, [](const Tensor& x) { return tc::expm1(x); });
  t.unary("log", P, [](const Tensor& x) { return tc::log(x); });
  t.unary("log1p", R, [](const Tensor& x) { return tc::log1p(x); });
  t.unary("log2", P, [](const Tensor& x) { return tc::log2(x); });
  t.unary("log10", P, [](const Tensor& x) { return tc::log10(x); });
  t.unary("sqrt", P, [](const Tensor& x) { return tc::sqrt(x); });
  t.unary("rsqrt", P, [](const Tensor& x) { return tc::rsqrt(x); });
  t.unary("reciprocal", Q, [](const Tensor& x) { return tc::reciprocal(x); });
  t.unary("sin", R, [](const Tensor& x) { return tc::sin(x); });
  t.unary("cos", R, [](const Tensor& x) { return tc::cos(x); });
  t.unary("tan", R, [](const Tensor& x) { return tc::tan(x); });
  t.unary("asin", U, [](const Tensor& x) { return tc::asin(x); });
  t.unary("acos", U, [](const Tensor& x) { return tc::acos(x); });
  t.unary("atan", R, [](const Tensor& x) { return tc::atan(x); });
  t.unary("sinh", R, [](const Tensor& x) { return tc::sinh(x); });
  t.unary("asinh", R, [](const Tensor& x) { return tc::asinh(x); });
  t.unary("acosh", {1.3, 1.7, 2.2, 1.4, 1.2, 1.9}, [](const Tensor& x) { return tc::acosh(x); });
  t.unary("atanh", U, [](const Tensor& x) { return tc::atanh(x); });
  t.unary("cosh", R, [](const Tensor& x) { return tc::cosh(x); });
  t.unary("tanh", R, [](const Tensor& x) { return tc::tanh(x); });
  t.unary("sigmoid", R, [](const Tensor& x) { return tc::sigmoid(x); });
  t.unary("erf", R, [](const Tensor& x) { return tc::erf(x); });
  t.unary(
      "gelu", R, [](const Tensor& x) { return tc::gelu(x); }, "approximate=none");
  t.unary(
      "gelu", R, [](const Tensor& x) { return tc::gelu(x, "tanh"); }, "approximate=tanh");

  // ---- binary with a Scalar operand (pointwise in self) ----
  t.unary("add.Scalar", R, [](const Tensor& x) { return tc::add(x, Scalar(2.5), Scalar(1.5)); });
  t.unary("sub.Scalar", R, [](const Tensor& x) { return tc::sub(x, Scalar(2.5), Scalar(1.5)); });
  t.unary("rsub.Scalar", R, [](const Tensor& x) { return tc::rsub(x, Scalar(2.5), Scalar(1.5)); });
  t.unary("mul.Scalar", R, [](const Tensor& x) { return tc::mul(x, Scalar(-1.5)); });
  t.unary("div.Scalar", R, [](const Tensor& x) { return tc::div(x, Scalar(-1.5)); });
  t.unary(
      "div.Scalar_mode", R, [](const Tensor& x) { return tc::div(x, Scalar(-1.5), std::nullopt); }, "mode=None");
  t.unary(
      "div.Scalar_mode", R, [](const Tensor& x) { return tc::div(x, Scalar(0.55), "floor"); }, "mode=floor");
  t.unary("floor_divide.Scalar", R, [](const Tensor& x) { return tc::floor_divide(x, Scalar(0.55)); });
  t.unary(
      "pow.Tensor_Scalar", P, [](const Tensor& x) { return tc::pow(x, Scalar(2.5)); }, "exponent 2.5");
  t.unary(
      "pow.Tensor_Scalar", R, [](const Tensor& x) { return tc::pow(x, Scalar(3.0)); }, "exponent 3, negative base");
  t.unary(
      "pow.Tensor_Scalar", R, [](const Tensor& x) { return tc::pow(x, Scalar(0.0)); }, "exponent 0");
  t.unary(
      "pow.Scalar", R, [](const Tensor& x) { return tc::pow(Scalar(2.0), x); }, "base 2");
  t.unary(
      "pow.Scalar", R, [](const Tensor& x) { return tc::pow(Scalar(0.5), x); }, "base 0.5");
  t.unary("fmod.Scalar", R, [](const Tensor& x) { return tc::fmod(x, Scalar(0.55)); });
  t.unary("remainder.Scalar", R, [](const Tensor& x) { return tc::remainder(x, Scalar(0.55)); });

  // ---- binary Tensor-Tensor ----
  t.binary("add.Tensor", R, Q, [](const Tensor& a, const Tensor& b) { return tc::add(a, b, Scalar(2.0)); });
  t.binary("sub.Tensor", R, Q, [](const Tensor& a, const Tensor& b) { return tc::sub(a, b, Scalar(2.0)); });
  t.binary("rsub.Tensor", R, Q, [](const Tensor& a, const Tensor& b) { return tc::rsub(a, b, Scalar(2.0)); });
  t.binary("mul.Tensor", R, Q, [](const Tensor& a, const Tensor& b) { return tc::mul(a, b); });
  t.binary("div.Tensor", R, Q, [](const Tensor& a, const Tensor& b) { return tc::div(a, b); });
  t.binary(
      "div.Tensor_mode", R, Q, [](const Tensor& a, const Tensor& b) { return tc::div(a, b, std::nullopt); },
      "mode=None");
  t.binary(
      "div.Tensor_mode", R, Q, [](const Tensor& a, const Tensor& b) { return tc::div(a, b, "trunc"); }, "mode=trunc");
  t.binary(
      "div.Tensor_mode", R, Q, [](const Tensor& a, const Tensor& b) { return tc::div(a, b, "floor"); }, "mode=floor");
  t.binary("floor_divide", R, Q, [](const Tensor& a, const Tensor& b) { return tc::floor_divide(a, b); });
  t.binary("pow.Tensor_Tensor", P, Q, [](const Tensor& a, const Tensor& b) { return tc::pow(a, b); });
  t.binary("atan2", R, Q, [](const Tensor& a, const Tensor& b) { return tc::atan2(a, b); });
  t.binary("fmod.Tensor", R, Q, [](const Tensor& a, const Tensor& b) { return tc::fmod(a, b); });
  t.binary("remainder.Tensor", R, Q, [](const Tensor& a, const Tensor& b) { return tc::remainder(a, b); });
  t.binary("maximum", R, Q, [](const Tensor& a, const Tensor& b) { return tc::maximum(a, b); });
  t.binary("minimum", R, Q, [](const Tensor& a, const Tensor& b) { return tc::minimum(a, b); });
  // Deliberate ties: the gradient is split in half, which is what central
  // differences see at a tie of two.
  t.add("maximum", "ties", {leaf({0.3, 0.5}, {2}), leaf({0.3, 0.1}, {2})}, [](const V& v) {
     return V{tc::maximum(v[0], v[1])};
   }).first_order_only();
  t.add("minimum", "ties", {leaf({0.3, 0.5}, {2}), leaf({0.3, 0.1}, {2})}, [](const V& v) {
     return V{tc::minimum(v[0], v[1])};
   }).first_order_only();

  // ---- ternary: where, clamp, lerp ----
  const Tensor cond = from({1, 0, 0, 1, 1, 0}, {2, 3}, ScalarType::Bool);
  t.binary("where.self", R, Q, [cond](const Tensor& a, const Tensor& b) { return tc::where(on_device(cond), a, b); });
  t.unary(
      "clamp", R, [](const Tensor& x) { return tc::clamp(x, opt(-0.5), opt(1.0)); }, "min and max");
  t.unary(
      "clamp", R, [](const Tensor& x) { return tc::clamp(x, std::nullopt, opt(0.5)); }, "max only");
  const Tensor lo = from({-0.5, -0.3, -0.1}, {3}), hi = from({1.0}, {1});
  t.unary("clamp.Tensor", R,
          [lo, hi](const Tensor& x) { return tc::clamp(x, opt(on_device(lo)), opt(on_device(hi))); });
  t.unary("clamp_min", R, [](const Tensor& x) { return tc::clamp_min(x, Scalar(0.0)); });
  t.unary("clamp_min.Tensor", R, [lo](const Tensor& x) { return tc::clamp_min(x, on_device(lo)); });
  t.unary("clamp_max", R, [](const Tensor& x) { return tc::clamp_max(x, Scalar(0.5)); });
  t.unary("clamp_max.Tensor", R, [hi](const Tensor& x) { return tc::clamp_max(x, on_device(hi)); });
  t.binary("lerp.Scalar", R, Q, [](const Tensor& a, const Tensor& b) { return tc::lerp(a, b, Scalar(0.3)); });
  t.binary(
      "lerp.Tensor", R, Q,
      [](const Tensor& a, const Tensor& b) {
        return tc::lerp(a, b, on_device(from(W, {2, 3})));
      },
      "constant weight");
  t.add("lerp.Tensor", "all three differentiable", {leaf(R, {2, 3}), leaf(Q, {2, 3}), leaf(W, {2, 3})},
        [](const V& v) { return V{tc::lerp(v[0], v[1], v[2])}; });
  t.add("lerp.Tensor", "broadcast weight, transposed self",
        {transposed_leaf(R), leaf(Q, {2, 3}), leaf(head(W, 3), {3})},
        [](const V& v) { return V{tc::lerp(T(v[0]), v[1], v[2])}; })
      .strided();

  // ---- views ----
  t.add1("view", "(2,3) -> (3,2)", leaf(R, {2, 3}), [](const Tensor& x) { return tc::view(x, {3, 2}); });
  t.add1("view", "(2,3) -> (6)", leaf(R, {2, 3}), [](const Tensor& x) { return tc::view(x, {6}); });
  t.add1("alias", "", leaf(R, {2, 3}), [](const Tensor& x) { return tc::alias(x); });
  t.add1("expand", "(3) -> (2,3)", leaf(head(R, 3), {3}), [](const Tensor& x) { return tc::expand(x, {2, 3}); });
  t.add1("expand", "(2,1) -> (4,2,3)", leaf(head(R, 2), {2, 1}), [](const Tensor& x) {
    return tc::expand(x, {4, 2, 3});
  });
  t.add1("transpose.int", "", leaf(R, {2, 3}), [](const Tensor& x) { return tc::transpose(x, 0, 1); });
  t.add1("transpose.int", "negative dims", leaf(R, {1, 2, 3}), [](const Tensor& x) { return tc::transpose(x, -1, 0); });
  t.add1("t", "", leaf(R, {2, 3}), [](const Tensor& x) { return tc::t(x); });
  t.add1("permute", "", leaf(R, {2, 1, 3}), [](const Tensor& x) { return tc::permute(x, {2, 0, 1}); });
  t.add1("squeeze", "", leaf(R, {2, 1, 3}), [](const Tensor& x) { return tc::squeeze(x); });
  t.add1("squeeze.dim", "", leaf(R, {2, 1, 3}), [](const Tensor& x) { return tc::squeeze(x, int64_t(1)); });
  t.add1("squeeze.dims", "", leaf(R, {1, 2, 1, 3}), [](const Tensor& x) { return tc::squeeze(x, IntArrayRef{0, 2}); });
  t.add1("unsqueeze", "", leaf(R, {2, 3}), [](const Tensor& x) { return tc::unsqueeze(x, 1); });
  t.add1("unsqueeze", "negative dim", leaf(R, {2, 3}), [](const Tensor& x) { return tc::unsqueeze(x, -1); });
  t.add1("diagonal", "", leaf({0.3, -0.7, 1.2, 0.4, -0.2, 0.9, 0.5, 0.1, -0.3}, {3, 3}),
         [](const Tensor& x) { return tc::diagonal(x); });
  t.add1("diagonal", "offset 1, dims (1,0)", leaf(R, {2, 3}), [](const Tensor& x) { return tc::diagonal(x, 1, 1, 0); });
  t.add1("slice.Tensor", "step 2", leaf(R, {2, 3}), [](const Tensor& x) { return tc::slice(x, 1, 0, 3, 2); });
  t.add1("slice.Tensor", "open end, dim 0", leaf(R, {2, 3}),
         [](const Tensor& x) { return tc::slice(x, 0, 1, std::nullopt, 1); });
  t.add1("select.int", "", leaf(R, {2, 3}), [](const Tensor& x) { return tc::select(x, 1, 2); });
  t.add1("select.int", "negative index", leaf(R, {2, 3}), [](const Tensor& x) { return tc::select(x, 0, -1); });
  t.add("split.Tensor", "uneven pieces", {leaf(R, {2, 3})}, [](const V& v) { return tc::split(v[0], 2, 1); });
  t.add("split.Tensor", "one piece used", {leaf(R, {2, 3})}, [](const V& v) { return V{tc::split(v[0], 1, 0)[1]}; });
  t.add("split_with_sizes", "", {leaf(R, {2, 3})}, [](const V& v) { return tc::split_with_sizes(v[0], {1, 2}, 1); });
  t.add("unbind.int", "", {leaf(R, {2, 3})}, [](const V& v) { return tc::unbind(v[0], 1); });
  t.add("unbind.int", "one piece used", {leaf(R, {2, 3})}, [](const V& v) { return V{tc::unbind(v[0], 0)[0]}; });
  t.unary("clone", R, [](const Tensor& x) { return tc::clone(x); });
  t.unary("_to_copy", R, [](const Tensor& x) { return tc::_to_copy(x, ScalarType::Float64); });

  // ---- random: bernoulli's gradient is zero (a fixed seed keeps the draws fixed) ----
  t.unary("bernoulli", W, [](const Tensor& x) { return tc::bernoulli(x, Generator::create(1234)); });

  // ---- reductions ----
  t.unary("sum", R, [](const Tensor& x) { return tc::sum(x); });
  t.unary(
      "sum.dim_IntList", R, [](const Tensor& x) { return tc::sum(x, IntArrayRef{1}, false); }, "dim 1");
  t.unary(
      "sum.dim_IntList", R,
      [](const Tensor& x) {
        return tc::sum(x, IntArrayRef{0, -1}, true);
      },
      "dims (0,-1) keepdim");
  t.unary("mean", R, [](const Tensor& x) { return tc::mean(x); });
  t.unary(
      "mean.dim", R, [](const Tensor& x) { return tc::mean(x, IntArrayRef{0}, false); }, "dim 0");
  t.unary(
      "mean.dim", R, [](const Tensor& x) { return tc::mean(x, IntArrayRef{-1}, true); }, "dim -1 keepdim");
  t.unary("prod", R, [](const Tensor& x) { return tc::prod(x); });
  t.unary(
      "prod", {0.3, 0.0, 1.2, 0.4, -0.2, 0.9}, [](const Tensor& x) { return tc::prod(x); }, "one zero");
  t.unary(
      "prod", {0.3, 0.0, 1.2, 0.4, 0.0, 0.9}, [](const Tensor& x) { return tc::prod(x); }, "two zeros");
  t.unary(
      "prod", {0.0, 0.0, 1.2, 0.4, 0.0, 0.9}, [](const Tensor& x) { return tc::prod(x); }, "three zeros");
  t.unary(
      "prod.dim_int", R, [](const Tensor& x) { return tc::prod(x, 1, false); }, "dim 1");
  t.unary(
      "prod.dim_int", {0.3, 0.0, 1.2, 0.4, -0.2, 0.0}, [](const Tensor& x) { return tc::prod(x, 0, true); },
      "dim 0 keepdim, zeros");
  t.unary(
      "amax", R, [](const Tensor& x) { return tc::amax(x, IntArrayRef{1}, false); }, "dim 1");
  t.unary(
      "amax", R, [](const Tensor& x) { return tc::amax(x); }, "all dims");
  t.unary(
      "amin", R, [](const Tensor& x) { return tc::amin(x, IntArrayRef{0}, true); }, "dim 0 keepdim");
  t.unary("max", R, [](const Tensor& x) { return tc::max(x); });
  t.unary("min", R, [](const Tensor& x) { return tc::min(x); });
  t.add("max.dim", "dim 1", {leaf(R, {2, 3})}, [](const V& v) {
    auto [values, indices] = tc::max(v[0], 1, false);
    return V{values, indices};
  });
  t.add("max.dim", "transposed view, dim 0 keepdim", {transposed_leaf(R)}, [](const V& v) {
     return V{std::get<0>(tc::max(T(v[0]), 0, true))};
   }).strided();
  t.add("min.dim", "dim 0", {leaf(R, {2, 3})}, [](const V& v) { return V{std::get<0>(tc::min(v[0], 0, false))}; });
  t.add("min.dim", "transposed view, dim 1 keepdim", {transposed_leaf(R)}, [](const V& v) {
     return V{std::get<0>(tc::min(T(v[0]), 1, true))};
   }).strided();
  // Deliberate ties of two: shared evenly, as central differences see them.
  for (const char* e : {"amax", "max"}) {
    t.add1(e, "tie of two", leaf({0.3, 0.9, -0.2, 0.9}, {2, 2}), [e](const Tensor& x) {
       return std::string(e) == "max" ? tc::max(x) : tc::amax(x);
     }).first_order_only();
  }
  for (const char* e : {"amin", "min"}) {
    t.add1(e, "tie of two", leaf({0.3, -0.9, -0.2, -0.9}, {2, 2}), [e](const Tensor& x) {
       return std::string(e) == "min" ? tc::min(x) : tc::amin(x);
     }).first_order_only();
  }
  t.unary(
      "var", R, [](const Tensor& x) { return tc::var(x, true); }, "unbiased");
  t.unary(
      "var", R, [](const Tensor& x) { return tc::var(x, false); }, "biased");
  t.unary(
      "var.dim", R, [](const Tensor& x) { return tc::var(x, IntArrayRef{1}, true, false); }, "dim 1");
  t.unary(
      "var.dim", R, [](const Tensor& x) { return tc::var(x, IntArrayRef{0}, false, true); }, "dim 0 biased keepdim");
  t.unary(
      "var.correction", R, [](const Tensor& x) { return tc::var(x, IntArrayRef{1}, opt(0.0), false); },
      "dim 1 correction 0");
  t.unary(
      "var.correction", R, [](const Tensor& x) { return tc::var(x, std::nullopt, std::nullopt, true); },
      "all dims default correction keepdim");
  t.unary(
      "var.correction", R,
      [](const Tensor& x) {
        return tc::var(x, IntArrayRef{0, 1}, opt(2.0), false);
      },
      "dims (0,1) correction 2");
  t.unary(
      "std", R, [](const Tensor& x) { return tc::std(x, true); }, "unbiased");
  t.unary(
      "std.dim", R, [](const Tensor& x) { return tc::std(x, IntArrayRef{1}, false, true); }, "dim 1 biased keepdim");
  t.unary(
      "std.correction", R, [](const Tensor& x) { return tc::std(x, IntArrayRef{0}, opt(1.0), false); },
      "dim 0 correction 1");
  t.unary(
      "std.correction", R, [](const Tensor& x) { return tc::std(x, std::nullopt, opt(0.0), false); },
      "all dims correction 0");
  t.add("cat", "dim 1", {leaf(R, {2, 3}), leaf(head(Q, 4), {2, 2})}, [](const V& v) {
    return V{tc::cat({v[0], v[1]}, 1)};
  });
  t.add("cat", "transposed views, dim 0", {transposed_leaf(R), leaf(head(Q, 3), {1, 3})}, [](const V& v) {
     return V{tc::cat({T(v[0]), v[1]}, 0)};
   }).strided();
  t.add("cat", "legacy empty 1-d piece, dim -1", {leaf(R, {2, 3}), leaf({}, {0}), leaf(head(Q, 2), {2, 1})},
        [](const V& v) {
          return V{tc::cat({v[0], v[1], v[2]}, -1)};
        });
  t.add("stack", "dim 2", {leaf(R, {2, 3}), leaf(Q, {2, 3})}, [](const V& v) { return V{tc::stack({v[0], v[1]}, 2)}; });
  t.add("stack", "transposed views, dim 0", {transposed_leaf(R), strided_leaf(Q)}, [](const V& v) {
     return V{tc::stack({T(v[0]), S(v[1])}, 0)};
   }).strided();

  // ---- matrix products ----
  t.add("mm", "", {leaf(R, {2, 3}), leaf(Q, {3, 2})}, [](const V& v) { return V{tc::mm(v[0], v[1])}; });
  t.add("mm", "transposed operands", {transposed_leaf(R), leaf(Q, {2, 3})}, [](const V& v) {
     return V{tc::mm(T(v[0]), T(v[1]))};
   }).strided();
  t.add("bmm", "",
        {leaf({0.3, -0.7, 1.2, 0.4, -0.2, 0.9, 0.5, 0.1, -0.3, 0.8, -0.6, 0.2}, {2, 2, 3}),
         leaf({1.1, -0.4, 0.8, -0.6, 0.25, 0.65, 0.7, -0.1, 0.35, 0.45, -0.9, 0.15}, {2, 3, 2})},
        [](const V& v) { return V{tc::bmm(v[0], v[1])}; });
  t.add("bmm", "transposed mat2",
        {leaf({0.3, -0.7, 1.2, 0.4, -0.2, 0.9, 0.5, 0.1, -0.3, 0.8, -0.6, 0.2}, {2, 2, 3}),
         leaf({1.1, -0.4, 0.8, -0.6, 0.25, 0.65, 0.7, -0.1, 0.35, 0.45, -0.9, 0.15}, {2, 2, 3})},
        [](const V& v) { return V{tc::bmm(v[0], tc::transpose(v[1], 1, 2))}; })
      .strided();
  t.add("addmm", "broadcast self, beta and alpha", {leaf({0.5, -1.5}, {2}), leaf(R, {2, 3}), leaf(Q, {3, 2})},
        [](const V& v) { return V{tc::addmm(v[0], v[1], v[2], Scalar(0.5), Scalar(2.0))}; });
  t.add("addmm", "defaults, transposed mat1",
        {leaf({0.5, -1.5, 0.2, 0.7}, {2, 2}), transposed_leaf(R), leaf(Q, {3, 2})},
        [](const V& v) { return V{tc::addmm(v[0], T(v[1]), v[2])}; })
      .strided();

  // ---- in-place variants on a non-leaf (through the functional formula) ----
  // Second order only where the formula uses the result or other operands: an
  // in-place kernel saves `self` as a clone taken below autograd (a detached
  // copy), so the gradient is right but not differentiable through `self`.
  auto inplace = [&](const std::string& entry, const Vals& a, std::function<void(Tensor&)> op) -> Case& {
    return t.add1(entry, "in-place on a non-leaf", leaf(a, {2, 3}), [op](const Tensor& x) {
      Tensor y = tc::mul(x, Scalar(1.0));
      op(y);
      return y;
    });
  };
  inplace("exp", R, [](Tensor& y) { y.exp_(); });
  inplace("sqrt", P, [](Tensor& y) { y.sqrt_(); });
  inplace("zero_", R, [](Tensor& y) { y.zero_(); });
  inplace("pow.Tensor_Scalar", P, [](Tensor& y) { y.pow_(Scalar(2.5)); });
  inplace("sigmoid", R, [](Tensor& y) { y.sigmoid_(); });
  inplace("tanh", R, [](Tensor& y) { y.tanh_(); });
  inplace("div.Scalar", R, [](Tensor& y) { y.div_(Scalar(-1.5)); });
  inplace("clamp", R, [](Tensor& y) { y.clamp_(opt(-0.5), opt(1.0)); });
  inplace("log", P, [](Tensor& y) { y.log_(); });
  t.add("add.Tensor", "in-place on a non-leaf, alpha", {leaf(R, {2, 3}), leaf(Q, {2, 3})}, [](const V& v) {
    Tensor y = tc::mul(v[0], Scalar(1.0));
    y.add_(v[1], Scalar(-2.0));
    return V{y};
  });
  t.add("mul.Tensor", "in-place on a non-leaf, broadcast other", {leaf(R, {2, 3}), leaf(head(Q, 3), {3})},
        [](const V& v) {
          Tensor y = tc::mul(v[0], Scalar(1.0));
          y.mul_(v[1]);
          return V{y};
        });
  t.add("lerp.Tensor", "in-place on a non-leaf", {leaf(R, {2, 3}), leaf(Q, {2, 3}), leaf(W, {2, 3})}, [](const V& v) {
    Tensor y = tc::mul(v[0], Scalar(1.0));
    y.lerp_(v[1], v[2]);
    return V{y};
  });

  // ---- as_strided, unfold (overlapping windows), remainder(Scalar, Tensor), clamp bounds ----
  t.add1("as_strided", "overlapping windows", leaf(R, {2, 3}), [](const Tensor& x) {
    return tc::as_strided(x, {2, 2}, {1, 1}, int64_t(1));
  });
  t.add1("as_strided", "transposed geometry", leaf(R, {2, 3}), [](const Tensor& x) {
    return tc::as_strided(x, {3, 2}, {1, 3}, std::nullopt);
  });
  t.add1("unfold", "step < size", leaf(R, {2, 3}), [](const Tensor& x) { return tc::unfold(x, 1, 2, 1); });
  t.add1("unfold", "dim 0, step > size", leaf({0.3, -0.7, 1.2, 0.4, -0.2, 0.9, 1.1, -0.4}, {4, 2}),
         [](const Tensor& x) { return tc::unfold(x, 0, 1, 2); });
  t.add1("remainder.Scalar_Tensor", "", leaf(Q, {2, 3}), [](const Tensor& x) { return tc::remainder(Scalar(2.3), x); });
  t.add("clamp.Tensor", "tensor bounds", {leaf(R, {2, 3}), leaf({-0.5, -0.5, 0.0}, {3}), leaf({1.0, 0.2, 1.1}, {3})},
        [](const V& v) { return V{tc::clamp(v[0], opt(v[1]), opt(v[2]))}; });
  t.add("clamp_min.Tensor", "tensor bound", {leaf(R, {2, 3}), leaf({-0.5, -0.5, 0.0}, {3})},
        [](const V& v) { return V{tc::clamp_min(v[0], v[1])}; });
  t.add("clamp_max.Tensor", "tensor bound", {leaf(R, {2, 3}), leaf({1.0, 0.2, 1.1}, {3})},
        [](const V& v) { return V{tc::clamp_max(v[0], v[1])}; });

  // ---- neural-network ops ----
  for (int64_t dim : {1, 0}) {
    const std::string d = "dim=" + std::to_string(dim);
    t.unary(
        "_softmax", R, [dim](const Tensor& x) { return tc::_softmax(x, dim, false); }, d);
    t.unary(
        "_log_softmax", R, [dim](const Tensor& x) { return tc::_log_softmax(x, dim, false); }, d);
    t.add("_softmax_backward_data", d, {leaf(Q, {2, 3}), leaf(W, {2, 3})},
          [dim](const V& v) { return V{tc::_softmax_backward_data(v[0], v[1], dim, ScalarType::Float64)}; });
    t.add("_log_softmax_backward_data", d, {leaf(Q, {2, 3}), leaf(R, {2, 3})},
          [dim](const V& v) { return V{tc::_log_softmax_backward_data(v[0], v[1], dim, ScalarType::Float64)}; });
  }
  {
    const Tensor target = from({2, 0}, {2}, ScalarType::Int64);
    const Tensor class_weight = from({0.2, 0.7, 0.4}, {3});
    for (int64_t reduction : {0, 1, 2}) {
      const std::string r = "reduction=" + std::to_string(reduction);
      t.add("nll_loss_forward", r, {leaf(R, {2, 3})}, [=](const V& v) {
        return V{std::get<0>(tc::nll_loss_forward(v[0], on_device(target), std::nullopt, reduction, -100))};
      });
      t.add("nll_loss_forward", r + ", class weights, ignore_index", {leaf(R, {2, 3})}, [=](const V& v) {
        return V{std::get<0>(tc::nll_loss_forward(v[0], on_device(target), on_device(class_weight), reduction, 0))};
      });
      const Tensor total_weight = from({0.4 + 0.2}, {});
      const std::vector<int64_t> go_shape = reduction == 0 ? std::vector<int64_t>{2} : std::vector<int64_t>{};
      t.add("nll_loss_backward", r, {leaf(head(Q, reduction == 0 ? 2 : 1), go_shape), leaf(R, {2, 3})},
            [=](const V& v) {
              return V{tc::nll_loss_backward(v[0], v[1], on_device(target), on_device(class_weight), reduction, -100,
                                             on_device(total_weight))};
            });
      t.add("mse_loss", r, {leaf(R, {2, 3}), leaf(Q, {2, 3})},
            [=](const V& v) { return V{tc::mse_loss(v[0], v[1], reduction)}; });
      t.add("mse_loss", r + ", transposed", {transposed_leaf(R), leaf(Q, {2, 3})},
            [=](const V& v) { return V{tc::mse_loss(T(v[0]), v[1], reduction)}; });
      t.add(
          "mse_loss_backward", r,
          {leaf(head(Q, reduction == 0 ? 6 : 1), reduction == 0 ? std::vector<int64_t>{2, 3} : std::vector<int64_t>{}),
           leaf(R, {2, 3}), leaf(W, {2, 3})},
          [=](const V& v) { return V{tc::mse_loss_backward(v[0], v[1], v[2], reduction)}; });
      t.add("binary_cross_entropy_with_logits", r, {leaf(R, {2, 3}), leaf(W, {2, 3})}, [=](const V& v) {
        return V{tc::binary_cross_entropy_with_logits(v[0], v[1], std::nullopt, std::nullopt, reduction)};
      });
      t.add("binary_cross_entropy_with_logits", r + ", weight and pos_weight", {leaf(R, {2, 3}), leaf(W, {2, 3})},
            [=](const V& v) {
              return V{tc::binary_cross_entropy_with_logits(v[0], v[1], on_device(from({0.5, 2.0, 1.5}, {3})),
                                                            on_device(from({3.0, 0.5, 1.25}, {3})), reduction)};
            });
    }
  }
  // Dropout: the same seed before every call, so the mask is the same one.
  t.unary(
      "native_dropout", R,
      [](const Tensor& x) {
        tc::manual_seed(7);
        return std::get<0>(tc::native_dropout(x, 0.4, true));
      },
      "p=0.4");
  t.unary(
      "native_dropout", R, [](const Tensor& x) { return std::get<0>(tc::native_dropout(x, 0.4, false)); }, "eval");
  t.add("native_dropout_backward", "", {leaf(Q, {2, 3})}, [](const V& v) {
    return V{tc::native_dropout_backward(v[0], tc::gt(on_device(from(W, {2, 3})), Scalar(0.5)), 2.0)};
  });
  t.add("native_layer_norm", "weight and bias",
        {leaf(R, {2, 3}), leaf({0.5, 1.5, -1.0}, {3}), leaf({0.1, 0.2, 0.3}, {3})},
        [](const V& v) { return V{std::get<0>(tc::native_layer_norm(v[0], {3}, v[1], v[2], 1e-5))}; });
  t.add("native_layer_norm", "no affine, 2-d normalized shape", {leaf(R, {2, 3})}, [](const V& v) {
    return V{std::get<0>(tc::native_layer_norm(v[0], {2, 3}, std::nullopt, std::nullopt, 1e-5))};
  });
  t.add("native_layer_norm", "transposed input", {transposed_leaf(R), leaf({0.5, 1.5, -1.0}, {3})}, [](const V& v) {
     return V{std::get<0>(tc::native_layer_norm(T(v[0]), {3}, v[1], std::nullopt, 1e-5))};
   }).strided();
  {
    const Tensor indices = from({0, 2, 2, 3}, {2, 2}, ScalarType::Int64);
    const Vals table = {0.3, -0.7, 1.2, 0.4, -0.2, 0.9, 1.1, -0.4, 0.8, -0.6, 0.25, 0.65};
    t.add1("embedding", "", leaf(table, {4, 3}),
           [indices](const Tensor& w) { return tc::embedding(w, on_device(indices)); });
    // A padding_idx that no index hits (a hit row gets no gradient by design,
    // as scale_grad_by_freq rescales it: neither is the true derivative).
    t.add1("embedding", "unused padding_idx", leaf(table, {4, 3}),
           [indices](const Tensor& w) { return tc::embedding(w, on_device(indices), 1); });
  }
  // Indexing: repeated indices, so a position collects several gradients.
  {
    const Tensor rows = from({2, 0, 2}, {3}, ScalarType::Int64);
    const Tensor cols = from({1, 1}, {2}, ScalarType::Int64);
    t.unary(
        "index_select", R, [rows](const Tensor& x) { return tc::index_select(tc::t(x), 0, on_device(rows)); }, "dim 0");
    t.unary(
        "index_select", R, [cols](const Tensor& x) { return tc::index_select(x, -1, on_device(cols)); }, "dim -1");
    const Tensor distinct = from({2, 0}, {2}, ScalarType::Int64);  // index_copy: one write per slice
    t.add("index_copy", "dim 1", {leaf(R, {2, 3}), leaf(head(Q, 4), {2, 2})},
          [distinct](const V& v) { return V{tc::index_copy(v[0], 1, on_device(distinct), v[1])}; });
    t.add("index_copy", "dim 0, transposed self", {transposed_leaf(R), leaf(head(Q, 3), {1, 3})}, [](const V& v) {
       return V{tc::index_copy(T(v[0]), 0, on_device(from({1}, {1}, ScalarType::Int64)), v[1])};
     }).strided();
    t.add("index_add", "alpha 2, repeated index", {leaf(R, {2, 3}), leaf(Q, {2, 3})},
          [rows](const V& v) { return V{tc::index_add(v[0], 1, on_device(rows), v[1], Scalar(2.0))}; });
    const Tensor gidx = from({2, 0, 0, 1, 1, 2}, {2, 3}, ScalarType::Int64);
    t.unary(
        "gather", R, [gidx](const Tensor& x) { return tc::gather(x, 1, on_device(gidx)); }, "dim 1");
    t.add1("gather", "dim 0, index smaller than self", leaf(R, {2, 3}), [](const Tensor& x) {
      return tc::gather(x, 0, on_device(from({1, 0}, {1, 2}, ScalarType::Int64)));
    });
    const Tensor sidx = from({2, 0, 1, 1, 2, 0}, {2, 3}, ScalarType::Int64);  // a permutation per row
    t.add("scatter.src", "dim 1", {leaf(R, {2, 3}), leaf(Q, {2, 3})},
          [sidx](const V& v) { return V{tc::scatter(v[0], 1, on_device(sidx), v[1])}; });
    t.add("scatter.src", "src larger than index", {leaf(R, {2, 3}), leaf(Q, {2, 3})}, [](const V& v) {
      return V{tc::scatter(v[0], 0, on_device(from({1, 0}, {1, 2}, ScalarType::Int64)), v[1])};
    });
    t.unary("scatter.value", R, [](const Tensor& x) {
      return tc::scatter(x, 1, on_device(from({0, 2}, {2, 1}, ScalarType::Int64)), Scalar(0.5));
    });
    t.add("scatter_add", "repeated index", {leaf(R, {2, 3}), leaf(Q, {2, 3})},
          [gidx](const V& v) { return V{tc::scatter_add(v[0], 1, on_device(gidx), v[1])}; });
    t.add("scatter_add", "src larger than index", {leaf(R, {2, 3}), leaf(Q, {2, 3})}, [](const V& v) {
      return V{tc::scatter_add(v[0], 1, on_device(from({2, 2}, {1, 2}, ScalarType::Int64)), v[1])};
    });
  }
  t.unary(
      "flip", R, [](const Tensor& x) { return tc::flip(x, {1}); }, "dim 1");
  t.unary(
      "flip", R,
      [](const Tensor& x) {
        return tc::flip(x, {0, -1});
      },
      "both dims");
  t.unary(
      "cumsum", R, [](const Tensor& x) { return tc::cumsum(x, 1); }, "dim 1");
  t.unary(
      "cumsum", R, [](const Tensor& x) { return tc::cumsum(x, 0); }, "dim 0");
  t.unary(
      "sort", R, [](const Tensor& x) { return std::get<0>(tc::sort(x, 1)); }, "dim 1");
  t.unary(
      "sort", R, [](const Tensor& x) { return std::get<0>(tc::sort(x, 0, true)); }, "dim 0, descending");
  t.unary(
      "topk", R, [](const Tensor& x) { return std::get<0>(tc::topk(x, 2, 1)); }, "k 2");
  t.unary(
      "topk", R, [](const Tensor& x) { return std::get<0>(tc::topk(x, 1, 0, false)); }, "smallest");
  t.add("threshold_backward", "", {leaf(Q, {2, 3}), leaf(R, {2, 3})},
        [](const V& v) { return V{tc::threshold_backward(v[0], v[1], Scalar(0.0))}; });
  t.add("sigmoid_backward", "", {leaf(Q, {2, 3}), leaf(W, {2, 3})},
        [](const V& v) { return V{tc::sigmoid_backward(v[0], v[1])}; });
  t.add("tanh_backward", "", {leaf(Q, {2, 3}), leaf(U, {2, 3})},
        [](const V& v) { return V{tc::tanh_backward(v[0], v[1])}; });
  t.add("gelu_backward", "self constant", {leaf(Q, {2, 3})}, [](const V& v) {
    return V{tc::gelu_backward(v[0], on_device(from(R, {2, 3})))};
  });
  return t.cases;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> c = build_cases();
  return c;
}

// Entries also checked by gradgradcheck (every dense case of each, except
// those marked first_order_only). Not select/slice/diagonal: their backward
// (scatter_into_zeros) is deliberately not differentiable again.
const std::set<std::string> kSecondOrder = {
    // pointwise
    "abs", "neg", "exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "rsqrt", "reciprocal", "sin", "cos", "tan",
    "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid", "erf", "gelu", "relu",
    // binary, ternary
    "add.Tensor", "sub.Tensor", "rsub.Tensor", "mul.Tensor", "mul.Scalar", "div.Tensor", "div.Scalar",
    "div.Tensor_mode", "pow.Tensor_Tensor", "pow.Tensor_Scalar", "pow.Scalar", "atan2", "fmod.Tensor",
    "remainder.Tensor", "maximum", "minimum", "where.self", "clamp", "lerp.Scalar", "lerp.Tensor", "copy",
    // views, shapes
    "view", "expand", "transpose.int", "t", "permute", "squeeze.dim", "unsqueeze", "split.Tensor", "split_with_sizes",
    "unbind.int", "clone",
    // reductions
    "sum", "sum.dim_IntList", "mean", "mean.dim", "prod", "prod.dim_int", "amax", "max", "max.dim", "var", "var.dim",
    "var.correction", "std", "std.correction", "cat", "stack",
    // matrix products
    "mm", "bmm", "addmm",
    // neural-network ops
    "_softmax", "_log_softmax", "_softmax_backward_data", "_log_softmax_backward_data", "nll_loss_forward",
    "nll_loss_backward", "mse_loss", "mse_loss_backward", "binary_cross_entropy_with_logits", "native_dropout",
    "threshold_backward", "sigmoid_backward", "tanh_backward",
    // indexing
    "index_select", "index_copy", "index_add", "gather", "scatter.src", "scatter.value", "scatter_add", "asinh",
    "acosh", "atanh", "flip", "cumsum", "sort", "topk"};

std::string describe(const Case& c) { return c.entry + (c.label.empty() ? "" : " [" + c.label + "]"); }

TEST(Gradcheck, EveryCase) {
  for (const Case& c : cases()) {
    std::string r;
    try {
      r = ag::gradcheck(c.fn, c.inputs);
    } catch (const std::exception& e) {
      r = std::string("threw: ") + e.what();
    }
    EXPECT_EQ(r, "") << describe(c);
  }
}

// Dense cases only: the strided-slice layouts need slice's second derivative,
// which is not implemented.
TEST(Gradcheck, SecondOrder) {
  std::set<std::string> checked;
  for (const Case& c : cases()) {
    if (!kSecondOrder.count(c.entry) || !c.second_order || !c.dense) continue;
    checked.insert(c.entry);
    std::string r;
    try {
      r = ag::gradgradcheck(c.fn, c.inputs);
    } catch (const std::exception& e) {
      r = std::string("threw: ") + e.what();
    }
    EXPECT_EQ(r, "") << describe(c);
  }
  for (const std::string& e : kSecondOrder) EXPECT_TRUE(checked.count(e)) << e << " has no case for gradgradcheck";
  std::cout << "gradgradcheck covers " << checked.size() << " entries\n";
  RecordProperty("gradgradcheck_entries", int(checked.size()));
}

// ---- every case on CUDA ----

// The outputs that carry a gradient (floating), and one fixed gradient for
// each: 0.5, 0.6, ... in row-major order, built on the CPU.
V seeds_for(const V& outputs) {
  V seeds;
  for (const Tensor& o : outputs) {
    if (!o.defined() || !is_floating(o.dtype())) continue;
    std::vector<double> v(size_t(o.numel()));
    for (size_t i = 0; i < v.size(); ++i) v[i] = 0.5 + 0.1 * double(i % 13);
    seeds.push_back(from(v, o.sizes().vec(), o.dtype()));
  }
  return seeds;
}

// Forward values, then d(outputs)/d(inputs) for the seeds above; undefined
// where an input gets no gradient. Everything is returned on the CPU.
std::pair<V, V> values_and_gradients(const Case& c, const V& inputs) {
  tc::manual_seed(7);  // dropout's mask: the same draw on every device
  const V outputs = c.fn(inputs);
  V flowing, seeds;
  const V all_seeds = seeds_for(outputs);
  size_t k = 0;
  for (const Tensor& o : outputs) {
    if (!o.defined() || !is_floating(o.dtype())) continue;
    const Tensor& seed = all_seeds[k++];
    if (!ag::grad_fn(o)) continue;
    flowing.push_back(o);
    seeds.push_back(on_device(seed));
  }
  V wrt;
  for (const Tensor& x : inputs)
    if (x.requires_grad()) wrt.push_back(x);
  V grads = flowing.empty() ? V(wrt.size()) : ag::grad(flowing, wrt, seeds, false, false, true);
  auto host = [](const Tensor& t) { return t.defined() ? tc::_to_copy(t, std::nullopt, Device(DeviceType::CPU)) : t; };
  V values;
  for (const Tensor& o : outputs) values.push_back(host(ag::detach(o)));
  for (Tensor& g : grads) g = host(g);
  return {values, grads};
}

// "" when a and b hold the same shapes and values (NaN matches NaN), within
// float64's rounding of different libm implementations.
std::string compare(const V& got, const V& want, const char* what) {
  if (got.size() != want.size()) return std::string(what) + ": a different number of tensors";
  for (size_t i = 0; i < got.size(); ++i) {
    const Tensor &g = got[i], &w = want[i];
    if (g.defined() != w.defined()) return std::string(what) + " " + std::to_string(i) + ": defined on one device only";
    if (!g.defined()) continue;
    if (g.sizes() != w.sizes() || g.dtype() != w.dtype())
      return std::string(what) + " " + std::to_string(i) + ": shape or dtype differs";
    const Tensor gd = tc::_to_copy(g, ScalarType::Float64), wd = tc::_to_copy(w, ScalarType::Float64);
    const Tensor gc = tc::contiguous(gd), wc = tc::contiguous(wd);
    const double* p = static_cast<const double*>(gc.data_ptr());
    const double* q = static_cast<const double*>(wc.data_ptr());
    for (int64_t j = 0; j < gc.numel(); ++j) {
      const bool both_nan = std::isnan(p[j]) && std::isnan(q[j]);
      if (!both_nan && !(std::fabs(p[j] - q[j]) <= 1e-12 + 1e-10 * std::fabs(q[j])))
        return std::string(what) + " " + std::to_string(i) + ": element " + std::to_string(j) + " is " +
               std::to_string(p[j]) + ", the CPU's " + std::to_string(q[j]);
    }
  }
  return "";
}

// Every case on `device`: the forward values and the first-order gradients
// against the CPU's (which gradcheck verifies above), in float64, from the
// same inputs and constants. A case whose op has no kernel for the device yet
// (NotImplemented) goes into `missing`; any other error or difference fails.
// Returns how many cases were compared.
int compare_cases_on(Device device, std::set<std::string>* missing) {
  int compared = 0;
  for (const Case& c : cases()) {
    const auto [want_values, want_grads] = values_and_gradients(c, c.inputs);
    g_case_device = device;
    std::string r;
    try {
      V inputs;
      for (const Tensor& x : c.inputs) {
        Tensor y;
        {
          ag::NoGradGuard no_grad;
          y = tc::_to_copy(x, std::nullopt, device);
        }
        if (x.requires_grad()) ag::set_requires_grad(y, true);
        inputs.push_back(y);
      }
      const auto [values, grads] = values_and_gradients(c, inputs);
      r = compare(values, want_values, "output");
      if (r.empty()) r = compare(grads, want_grads, "gradient of input");
      ++compared;
    } catch (const Error& e) {
      if (e.code() == ErrorCode::NotImplemented)
        missing->insert(c.entry);
      else
        r = std::string("threw: ") + e.what();
    }
    g_case_device = Device(DeviceType::CPU);
    EXPECT_EQ(r, "") << describe(c) << " on " << device.str();
  }
  return compared;
}

// The comparison itself, on copies of the inputs on the CPU: every case runs
// and matches.
TEST(Gradcheck, EveryCaseMatchesOnFreshCopies) {
  std::set<std::string> missing;
  EXPECT_EQ(compare_cases_on(Device(DeviceType::CPU), &missing), int(cases().size()));
  EXPECT_TRUE(missing.empty());
}

// Every case on CUDA. The entries whose ops have no CUDA kernel yet are
// counted and named (tools/cuda_ops.py lists those ops as CPU-only).
// Skipped, saying why, without a usable CUDA device.
TEST(Gradcheck, EveryCaseOnCudaMatchesTheCpu) {
  std::string why;
  int devices = 0;
  try {
    devices = cuda::device_count();
  } catch (const std::exception& e) {
    why = e.what();
  }
  if (devices == 0) GTEST_SKIP() << "needs a CUDA device: " << (why.empty() ? "none present" : why);
  std::set<std::string> cpu_only;
  const int compared = compare_cases_on(Device(DeviceType::CUDA, 0), &cpu_only);
  std::string list;
  for (const std::string& e : cpu_only) list += " " + e;
  std::cout << "CUDA: " << compared << " cases compared with the CPU; entries without a CUDA kernel yet ("
            << cpu_only.size() << "):" << list << "\n";
  RecordProperty("cuda_cases_compared", compared);
}

// ---- coverage against schema/derivatives.yaml ----

struct Schema {
  std::vector<codegen::NativeFunction> nfs;  // the model points into these
  codegen::Model model;
  codegen::Derivatives derivatives;
  std::vector<std::string> errors;
};

const Schema& schema() {
  static const Schema* s = [] {
    auto* out = new Schema;
    const std::filesystem::path dir = std::filesystem::path(TC_SOURCE_DIR) / "schema";
    std::vector<codegen::LoadError> errors =
        codegen::load_native_functions_file((dir / "ops.yaml").string(), codegen::LoadOptions{}, &out->nfs);
    if (errors.empty()) out->model = codegen::build_model(out->nfs, &errors);
    if (errors.empty()) {
      std::ifstream in(dir / "derivatives.yaml");
      std::stringstream ss;
      ss << in.rdbuf();
      errors = codegen::load_derivatives(ss.str(), "schema/derivatives.yaml", out->model, &out->derivatives);
    }
    for (const auto& e : errors) out->errors.push_back(e.str());
    return out;
  }();
  return *s;
}

// The generated node class of each entry ("mul.Tensor" -> "MulBackward0"),
// numbered as schema/codegen/gen_autograd.cpp does: per base name, in file order.
std::map<std::string, std::string> node_classes(const codegen::Derivatives& d) {
  std::map<std::string, std::string> out;
  std::map<std::string, int> counter;
  for (const auto& e : d.entries) {
    const std::string base = e.op->nf->func.name.base_name();
    std::string camel;
    bool up = true;
    for (char ch : base) {
      if (ch == '_') {
        up = true;
        continue;
      }
      camel += up ? char(std::toupper(static_cast<unsigned char>(ch))) : ch;
      up = false;
    }
    out[e.name] = camel + "Backward" + std::to_string(counter[base]++);
  }
  return out;
}

// Names of every node reachable from the outputs' grad_fns.
std::set<std::string> graph_nodes(const V& outputs) {
  std::set<std::string> names;
  std::vector<std::shared_ptr<ag::Node>> todo;
  std::set<ag::Node*> seen;
  for (const Tensor& o : outputs)
    if (o.defined() && ag::grad_fn(o)) todo.push_back(ag::grad_fn(o));
  while (!todo.empty()) {
    auto n = todo.back();
    todo.pop_back();
    if (!seen.insert(n.get()).second) continue;
    names.insert(n->name());
    for (const ag::Edge& e : n->next_edges())
      if (e.is_valid()) todo.push_back(e.function);
  }
  return names;
}

TEST(Gradcheck, CoversEveryDifferentiableEntry) {
  const Schema& s = schema();
  ASSERT_TRUE(s.errors.empty()) << s.errors.front();
  std::set<std::string> covered;
  for (const Case& c : cases()) covered.insert(c.entry);
  std::vector<std::string> with_formula, missing;
  for (const auto& e : s.derivatives.entries) {
    if (e.formulas.empty()) continue;  // non_differentiable / not_implemented only
    with_formula.push_back(e.name);
    if (!covered.count(e.name)) missing.push_back(e.name);
  }
  std::string list;
  for (const auto& m : missing) list += " " + m;
  EXPECT_TRUE(missing.empty()) << missing.size() << " differentiable entries have no gradcheck case:" << list;
  const size_t n = with_formula.size() - missing.size();
  std::cout << "gradcheck covers " << n << " of " << with_formula.size() << " differentiable entries ("
            << cases().size() << " cases)\n";
  RecordProperty("covered_entries", int(n));
  RecordProperty("differentiable_entries", int(with_formula.size()));
  // Every case names a real entry with formulas.
  std::set<std::string> known(with_formula.begin(), with_formula.end());
  for (const Case& c : cases()) EXPECT_TRUE(known.count(c.entry)) << describe(c) << ": no such differentiable entry";
}

// Each case really exercises its entry's overload: the entry's node is in the graph.
TEST(Gradcheck, CasesReachTheirEntry) {
  const Schema& s = schema();
  ASSERT_TRUE(s.errors.empty()) << s.errors.front();
  const auto classes = node_classes(s.derivatives);
  for (const Case& c : cases()) {
    auto it = classes.find(c.entry);
    if (it == classes.end()) continue;  // reported by CoversEveryDifferentiableEntry
    const std::set<std::string> nodes = graph_nodes(c.fn(c.inputs));
    std::string seen;
    for (const auto& n : nodes) seen += " " + n;
    EXPECT_TRUE(nodes.count(it->second)) << describe(c) << ": " << it->second << " not in the graph:" << seen;
  }
}

}  // namespace
