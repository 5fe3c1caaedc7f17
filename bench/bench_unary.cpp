// SPDX-License-Identifier: BSD-3-Clause
// Benchmark: the transcendental unary ops (exp ... atanh, sigmoid, gelu) on
// contiguous float32 and float64 tensors, out= into a preallocated tensor,
// tensorc's C ABI against libtorch's at::*_out, at the thread count given by
// --threads (default 1) and --numel elements (default 1M). Both sides use
// SLEEF's vector functions (tensorc: src/cpu/vec_math.cpp; libtorch: its
// Vectorized<T> kernels; asinh, acosh and atanh are scalar libm in libtorch
// 1.13). Results are checked against libtorch first.
// Options: --threads N, --numel N, --ops exp,tanh,... (default all),
//          --dtypes float32,float64 (default both).
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <cmath>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include <tensorc.h>

#include "bench_common.h"

using bench::Contestant;

namespace {

struct Op {
  const char* name;
  double lo, hi;  // inputs uniform in [lo, hi]
  tc_status (*tc_out)(tc_tensor out, tc_tensor self);
  std::function<void(at::Tensor&, const at::Tensor&)> at_out;
};

#define TC_BENCH_OP(name, lo, hi)                                                                     \
  Op {                                                                                                \
#name, lo, hi, tc_##name##_out, [](at::Tensor & o, const at::Tensor& x) { at::name##_out(o, x); } \
  }

const std::vector<Op>& ops() {
  static const std::vector<Op> v = {
      TC_BENCH_OP(exp, -10, 10),
      TC_BENCH_OP(expm1, -10, 10),
      TC_BENCH_OP(log, 0.01, 100),
      TC_BENCH_OP(log1p, -0.99, 100),
      TC_BENCH_OP(log2, 0.01, 100),
      TC_BENCH_OP(log10, 0.01, 100),
      TC_BENCH_OP(sin, -10, 10),
      TC_BENCH_OP(cos, -10, 10),
      TC_BENCH_OP(tan, -10, 10),
      TC_BENCH_OP(asin, -1, 1),
      TC_BENCH_OP(acos, -1, 1),
      TC_BENCH_OP(atan, -10, 10),
      TC_BENCH_OP(sinh, -10, 10),
      TC_BENCH_OP(cosh, -10, 10),
      TC_BENCH_OP(tanh, -5, 5),
      TC_BENCH_OP(sigmoid, -10, 10),
      TC_BENCH_OP(erf, -3, 3),
      TC_BENCH_OP(asinh, -10, 10),
      TC_BENCH_OP(acosh, 1, 100),
      TC_BENCH_OP(atanh, -0.99, 0.99),
      Op{"gelu", -5, 5, [](tc_tensor o, tc_tensor x) { return tc_gelu_out(o, x, "none"); },
         [](at::Tensor& o, const at::Tensor& x) { at::gelu_out(o, x, "none"); }},
      Op{"gelu(tanh)", -5, 5, [](tc_tensor o, tc_tensor x) { return tc_gelu_out(o, x, "tanh"); },
         [](at::Tensor& o, const at::Tensor& x) { at::gelu_out(o, x, "tanh"); }},
  };
  return v;
}

// Max error of tensorc's result against libtorch's, relative to max(1, |y|).
double max_err(const at::Tensor& x, const at::Tensor& y) {
  const at::Tensor a = x.to(at::kDouble), b = y.to(at::kDouble);
  const double* p = a.data_ptr<double>();
  const double* q = b.data_ptr<double>();
  double e = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (std::isnan(p[i]) && std::isnan(q[i])) continue;
    const double d = std::fabs(p[i] - q[i]) / std::max(1.0, std::fabs(q[i]));
    if (!(d <= e)) e = d;  // NaN-safe
  }
  return e;
}

bool listed(const std::string& list, const std::string& name) {
  if (list.empty()) return true;
  size_t b = 0;
  while (b <= list.size()) {
    size_t e = list.find(',', b);
    if (e == std::string::npos) e = list.size();
    if (list.compare(b, e - b, name) == 0) return true;
    b = e + 1;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = bench::arg_int(argc, argv, "--threads", 1);
  const int64_t n = bench::arg_int(argc, argv, "--numel", 1 << 20);
  const std::string only = bench::arg_str(argc, argv, "--ops", "");
  const std::string dtypes = bench::arg_str(argc, argv, "--dtypes", "");
  TC_OK_OR_DIE(tc_set_num_threads(threads));
  at::set_num_threads(threads);
  at::manual_seed(0);

  std::printf("| %.0fM elements, out=, %d thread%s | tensorc | libtorch | libtorch/tensorc |\n", double(n) / (1 << 20),
              threads, threads == 1 ? "" : "s");
  std::printf("|---|---|---|---|\n");
  const int64_t shape[1] = {n};
  for (const auto& [dt, tdt, dname] :
       {std::tuple{at::kFloat, TC_FLOAT32, "float32"}, std::tuple{at::kDouble, TC_FLOAT64, "float64"}}) {
    if (!listed(dtypes, dname)) continue;
    for (const Op& op : ops()) {
      if (!listed(only, op.name)) continue;
      const at::Tensor px = (at::rand({n}, at::kDouble) * (op.hi - op.lo) + op.lo).to(dt);
      at::Tensor pout = at::empty({n}, dt), tcres = at::empty({n}, dt);
      tc_tensor tx = nullptr, tout = nullptr;
      TC_OK_OR_DIE(tc_tensor_from_data(&tx, px.data_ptr(), tdt, shape, 1));
      TC_OK_OR_DIE(tc_tensor_from_data(&tout, pout.data_ptr(), tdt, shape, 1));

      // Correctness first: tensorc's result against libtorch's.
      TC_OK_OR_DIE(op.tc_out(tout, tx));
      void* p = nullptr;
      TC_OK_OR_DIE(tc_tensor_data_ptr(&p, tout));
      std::memcpy(tcres.data_ptr(), p, size_t(n) * tcres.element_size());
      op.at_out(pout, px);
      const double err = max_err(tcres, pout), tol = dt == at::kFloat ? 1e-5 : 1e-12;
      if (!(err <= tol)) {
        std::fprintf(stderr, "bench_unary: %s %s: tensorc disagrees with libtorch (max err %g > %g)\n", op.name, dname,
                     err, tol);
        return 3;
      }

      const std::string name = std::string(op.name) + " " + dname;
      bench::PairRow row{name, {"tensorc", [&] { op.tc_out(tout, tx); }}, {"libtorch", [&, o = pout] {
                                                                             at::Tensor out = o;
                                                                             op.at_out(out, px);
                                                                           }}};
      bench::run_and_print(row);
      tc_tensor_release(tx);
      tc_tensor_release(tout);
    }
  }
  return 0;
}
