// SPDX-License-Identifier: BSD-3-Clause
#include "autograd/gradcheck.h"

#include <cmath>
#include <sstream>

#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "autograd/variable.h"
#include "core/sanitize.h"
#include "tensorc_gen/ops.h"

namespace tc::autograd {
namespace {

// Address of logical element i (row-major) of a float64 tensor of any strides.
double* element(const Tensor& t, int64_t i) { return t.data_ptr<double>() + strided_offset(t.sizes(), t.strides(), i); }

double value(const Tensor& t, int64_t i) { return read_element(t, i).to_double(); }

// One step of a 64-bit LCG (Knuth's MMIX constants), modulo 2^64 by design.
TC_NO_SANITIZE_INTEGER uint64_t lcg_next(uint64_t s) { return s * 6364136223846793005ull + 1442695040888963407ull; }

bool differentiable_input(const Tensor& t) { return t.defined() && t.requires_grad(); }

void check_inputs(const variable_list& inputs, const char* api) {
  bool any = false;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Tensor& t = inputs[k];
    if (!differentiable_input(t)) continue;
    any = true;
    TC_CHECK_TYPE(t.dtype() == ScalarType::Float64, api, ": input ", k,
                  " requires grad but is not float64 (finite differences need double precision), got ", t.dtype());
    TC_CHECK(t.device().is_cpu(), Device, api, ": input ", k, " must be on the CPU, got ", t.device());
  }
  TC_CHECK_ARG(any, api, ": argument 'inputs' has no tensor that requires grad");
}

variable_list floating_outputs(const variable_list& outs) {
  variable_list r;
  for (const Tensor& o : outs)
    if (o.defined() && is_floating(o.dtype())) r.push_back(o);
  return r;
}

std::string mismatch(size_t out_i, size_t in_i, int64_t out_e, int64_t in_e, double numeric, double analytic,
                     const char* what) {
  std::ostringstream os;
  os << what << ": Jacobian mismatch for output " << out_i << " with respect to input " << in_i
     << " at (output element " << out_e << ", input element " << in_e << "): numerical " << numeric << ", analytical "
     << analytic;
  return os.str();
}

}  // namespace

std::string gradcheck(const DifferentiableFn& fn, const variable_list& inputs, const GradcheckOptions& opts) {
  check_inputs(inputs, "gradcheck");
  variable_list outs = floating_outputs(fn(inputs));
  TC_CHECK_ARG(!outs.empty(), "gradcheck: the function returned no floating-point output");
  for (size_t o = 0; o < outs.size(); ++o) {
    const int64_t n_out = outs[o].numel();
    // Analytical Jacobian, one row per output element (a one-hot grad_output).
    std::vector<variable_list> rows;
    variable_list diff_inputs;
    std::vector<size_t> diff_index;
    for (size_t k = 0; k < inputs.size(); ++k)
      if (differentiable_input(inputs[k])) {
        diff_inputs.push_back(inputs[k]);
        diff_index.push_back(k);
      }
    for (int64_t e = 0; e < n_out; ++e) {
      // One-hot at logical element e (contiguous, whatever the output's strides).
      Tensor go = tc::zeros(outs[o].sizes(), outs[o].dtype(), outs[o].device());
      write_scalar(static_cast<char*>(go.data_ptr()) + e * int64_t(go.element_size()), go.dtype(), Scalar(1.0));
      variable_list fresh = floating_outputs(fn(inputs));
      if (fresh[o].requires_grad())
        rows.push_back(grad({fresh[o]}, diff_inputs, {go}, false, false, true));
      else
        rows.push_back(variable_list(diff_inputs.size()));  // a constant output: all zero
    }
    // Numerical Jacobian, one column per input element.
    for (size_t j = 0; j < diff_inputs.size(); ++j) {
      const Tensor& x = diff_inputs[j];
      for (int64_t i = 0; i < x.numel(); ++i) {
        double* p = element(x, i);
        const double orig = *p;
        Tensor plus, minus;
        {
          NoGradGuard g;
          *p = orig + opts.eps;
          plus = tc::clone(floating_outputs(fn(inputs))[o]);
          *p = orig - opts.eps;
          minus = tc::clone(floating_outputs(fn(inputs))[o]);
          *p = orig;
        }
        for (int64_t e = 0; e < n_out; ++e) {
          const double numeric = (value(plus, e) - value(minus, e)) / (2 * opts.eps);
          const Tensor& g = rows[size_t(e)][j];
          const double analytic = g.defined() ? value(g, i) : 0.0;
          if (!(std::fabs(analytic - numeric) <= opts.atol + opts.rtol * std::fabs(numeric)))
            return mismatch(o, diff_index[j], e, i, numeric, analytic, "gradcheck");
        }
      }
    }
  }
  return "";
}

std::string gradgradcheck(const DifferentiableFn& fn, const variable_list& inputs, const GradcheckOptions& opts) {
  check_inputs(inputs, "gradgradcheck");
  variable_list outs = floating_outputs(fn(inputs));
  // Fixed pseudo-random grad_outputs that require grad themselves.
  variable_list grad_outputs;
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (const Tensor& o : outs) {
    Tensor g = tc::empty(o.sizes(), ScalarType::Float64);
    for (int64_t i = 0; i < g.numel(); ++i) {
      state = lcg_next(state);
      g.data_ptr<double>()[i] = double(state >> 11) / double(1ull << 53) * 2.0 - 1.0;
    }
    set_requires_grad(g, true);
    grad_outputs.push_back(g);
  }
  const size_t n_in = inputs.size();
  auto first_derivative = [&](const variable_list& all) {
    AutoGradMode enable(true);  // the numerical pass calls this under no_grad
    variable_list xs(all.begin(), all.begin() + long(n_in));
    variable_list gos(all.begin() + long(n_in), all.end());
    variable_list diff;
    for (const Tensor& x : xs)
      if (differentiable_input(x)) diff.push_back(x);
    variable_list result = floating_outputs(fn(xs));
    variable_list gs = grad(result, diff, gos, true, true, true);
    variable_list defined;
    for (Tensor& g : gs)
      if (g.defined()) defined.push_back(g);
    return defined;
  };
  variable_list all = inputs;
  all.insert(all.end(), grad_outputs.begin(), grad_outputs.end());
  std::string r = gradcheck(first_derivative, all, opts);
  return r.empty() ? r : "gradgradcheck: " + r;
}

}  // namespace tc::autograd
