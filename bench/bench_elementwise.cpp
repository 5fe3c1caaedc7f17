// SPDX-License-Identifier: BSD-3-Clause
// Benchmark 2: memory-bound element-wise ops and a reduction on 16M float32
// elements (64 MiB per tensor), tensorc's C ABI against libtorch, at the thread
// count given by --threads. Prints one markdown table with times, GB/s and ratios.
// GB/s counts the bytes the op must move (reads + writes, no write-allocate):
// add 3 x 64 MiB, exp 2 x 64 MiB, sum 1 x 64 MiB. The fresh-output add runs
// twice: as libtorch ships, and with libtorch keeping freed memory
// (bench_torch_alloc.h), which removes its page faults. The "same buffers"
// rows run libtorch on tensorc's memory, which removes the page-size
// difference between the two allocators.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <cmath>

#include <tensorc.h>

#include "bench_common.h"
#include "bench_torch_alloc.h"

using bench::Contestant;

namespace {

const float* tc_floats(tc_tensor t) {
  void* p = nullptr;
  TC_OK_OR_DIE(tc_tensor_data_ptr(&p, t));
  return static_cast<const float*>(p);
}

// Max relative error of tensorc's result against libtorch's (absolute near 0).
double max_rel_err(const float* x, const float* y, int64_t n) {
  double e = 0;
  for (int64_t i = 0; i < n; ++i) {
    double d = std::fabs(double(x[i]) - double(y[i])) / std::max(1.0, std::fabs(double(y[i])));
    if (!(d <= e)) e = d;  // NaN-safe
  }
  return e;
}

void check(const char* what, double err, double tol) {
  if (!(err <= tol)) {
    std::fprintf(stderr, "bench_elementwise: %s: tensorc disagrees with libtorch (max rel err %g > %g)\n", what, err,
                 tol);
    std::exit(3);
  }
}

struct Row {
  std::string name;
  double bytes;
  Contestant tc, peer;
};

}  // namespace

int main(int argc, char** argv) {
  const int threads = bench::arg_int(argc, argv, "--threads", 1);
  const int64_t n = bench::arg_int(argc, argv, "--numel", 16 << 20);
  TC_OK_OR_DIE(tc_set_num_threads(threads));
  at::set_num_threads(threads);
  at::manual_seed(0);

  const int64_t shape[1] = {n};
  at::Tensor pa = at::rand({n}, at::kFloat), pb = at::rand({n}, at::kFloat);
  at::Tensor pout = at::empty({n}, at::kFloat), pacc = pa.clone();
  tc_tensor ta = nullptr, tb = nullptr, tout = nullptr, tacc = nullptr;
  TC_OK_OR_DIE(tc_tensor_from_data(&ta, pa.data_ptr<float>(), TC_FLOAT32, shape, 1));
  TC_OK_OR_DIE(tc_tensor_from_data(&tb, pb.data_ptr<float>(), TC_FLOAT32, shape, 1));
  TC_OK_OR_DIE(tc_tensor_from_data(&tout, pout.data_ptr<float>(), TC_FLOAT32, shape, 1));
  TC_OK_OR_DIE(tc_tensor_from_data(&tacc, pa.data_ptr<float>(), TC_FLOAT32, shape, 1));

  // Correctness first.
  {
    at::Tensor want = at::add(pa, pb);
    tc_tensor c = nullptr;
    TC_OK_OR_DIE(tc_add_Tensor(&c, ta, tb, nullptr));
    check("add", max_rel_err(tc_floats(c), want.data_ptr<float>(), n), 0);
    tc_tensor_release(c);
    TC_OK_OR_DIE(tc_add_out(tout, ta, tb, nullptr));
    check("add_out", max_rel_err(tc_floats(tout), want.data_ptr<float>(), n), 0);
    TC_OK_OR_DIE(tc_add_inplace_Tensor(tacc, tb, nullptr));
    pacc.add_(pb);
    check("add_", max_rel_err(tc_floats(tacc), pacc.data_ptr<float>(), n), 0);
    at::Tensor e = at::exp(pa);
    TC_OK_OR_DIE(tc_exp_out(tout, ta));
    check("exp_out", max_rel_err(tc_floats(tout), e.data_ptr<float>(), n), 1e-6);
    double ref = pa.to(at::kDouble).sum().item<double>();
    tc_tensor s = nullptr;
    TC_OK_OR_DIE(tc_sum(&s, ta, nullptr));
    float got = NAN;
    TC_OK_OR_DIE(tc_tensor_copy_to_buffer(&got, sizeof got, s));
    tc_tensor_release(s);
    check("sum", std::fabs(got - ref) / ref, 1e-5);
  }

  const double mb = double(n) * sizeof(float);
  std::vector<Row> rows;
  rows.push_back({"c = a + b, new output",
                  3 * mb,
                  {"tensorc",
                   [&] {
                     tc_tensor c = nullptr;
                     tc_add_Tensor(&c, ta, tb, nullptr);
                     tc_tensor_release(c);
                   }},
                  {"libtorch", [&] { at::Tensor c = at::add(pa, pb); }}});
  // The same again with libtorch keeping freed memory (bench_torch_alloc.h):
  // what is left of the fresh-output gap without libtorch's page faults.
  rows.push_back({"c = a + b, new output; libtorch keeps freed memory",
                  3 * mb,
                  {"tensorc",
                   [&] {
                     tc_tensor c = nullptr;
                     tc_add_Tensor(&c, ta, tb, nullptr);
                     tc_tensor_release(c);
                   }},
                  {"libtorch", bench::keeping_memory([&] { at::Tensor c = at::add(pa, pb); })}});
  rows.push_back({"add_out (preallocated)",
                  3 * mb,
                  {"tensorc", [&] { tc_add_out(tout, ta, tb, nullptr); }},
                  {"libtorch", [&] { at::add_out(pout, pa, pb); }}});
  rows.push_back(
      {"a.add_(b) in place", 3 * mb, {"tensorc", [&] { tc_add_inplace_Tensor(tacc, tb, nullptr); }}, {"libtorch", [&] {
                                                                                                        pacc.add_(pb);
                                                                                                      }}});
  rows.push_back({"exp_out (preallocated)", 2 * mb, {"tensorc", [&] { tc_exp_out(tout, ta); }}, {"libtorch", [&] {
                                                                                                   at::exp_out(pout,
                                                                                                               pa);
                                                                                                 }}});
  rows.push_back({"sum of all elements",
                  mb,
                  {"tensorc",
                   [&] {
                     tc_tensor s = nullptr;
                     tc_sum(&s, ta, nullptr);
                     tc_tensor_release(s);
                   }},
                  {"libtorch", [&] { at::Tensor s = at::sum(pa); }}});

  // The same ops with libtorch working on tensorc's buffers (at::from_blob):
  // each library's own rows above have its operands in its own allocator's
  // memory, and tensorc's large blocks are on transparent huge pages, which
  // this kernel's THP setting ("madvise") gives only to memory that asks.
  // These rows remove that page-size difference and compare the loops alone.
  float* sa = const_cast<float*>(tc_floats(ta));
  float* sb = const_cast<float*>(tc_floats(tb));
  float* sout = const_cast<float*>(tc_floats(tout));
  float* sacc = const_cast<float*>(tc_floats(tacc));
  at::Tensor qa = at::from_blob(sa, {n}, at::kFloat), qb = at::from_blob(sb, {n}, at::kFloat);
  at::Tensor qout = at::from_blob(sout, {n}, at::kFloat), qacc = at::from_blob(sacc, {n}, at::kFloat);
  rows.push_back({"add_out, same buffers",
                  3 * mb,
                  {"tensorc", [&] { tc_add_out(tout, ta, tb, nullptr); }},
                  {"libtorch", [&] { at::add_out(qout, qa, qb); }}});
  rows.push_back({"a.add_(b), same buffers",
                  3 * mb,
                  {"tensorc", [&] { tc_add_inplace_Tensor(tacc, tb, nullptr); }},
                  {"libtorch", [&] { qacc.add_(qb); }}});
  rows.push_back({"sum, same buffers",
                  mb,
                  {"tensorc",
                   [&] {
                     tc_tensor s = nullptr;
                     tc_sum(&s, ta, nullptr);
                     tc_tensor_release(s);
                   }},
                  {"libtorch", [&] { at::Tensor s = at::sum(qa); }}});

  std::printf("| %.0fM float32, %d thread%s | tensorc | libtorch | tensorc GB/s | libtorch GB/s | libtorch/tensorc |\n",
              double(n) / (1 << 20), threads, threads == 1 ? "" : "s");
  std::printf("|---|---|---|---|---|---|\n");
  for (Row& r : rows) {
    std::vector<Contestant> cs{r.tc, r.peer};
    bench::run(cs);
    std::printf("| %s | %s | %s | %s | %s | %s |\n", r.name.c_str(), bench::fmt_stat(cs[0]).c_str(),
                bench::fmt_stat(cs[1]).c_str(), bench::fmt_num(r.bytes / cs[0].med() * 1e-9).c_str(),
                bench::fmt_num(r.bytes / cs[1].med() * 1e-9).c_str(),
                bench::fmt_ratio(bench::ratio(cs[1], cs[0])).c_str());
    std::fflush(stdout);
  }

  tc_tensor_release(ta);
  tc_tensor_release(tb);
  tc_tensor_release(tout);
  tc_tensor_release(tacc);
  return 0;
}
