// SPDX-License-Identifier: BSD-3-Clause
// Replaying a traced graph from C (tc_graph_run) against making the same C
// calls one by one: the MLP forward of the autograd benchmark (784-256-10,
// batch 64: linear, relu, linear, log_softmax) and a chain of ten 1-element
// adds (where the per-op cost of a replay shows). One thread, interleaved.
#include <cmath>
#include <vector>

#include <tensorc.h>

#include "bench_common.h"

namespace {

tc_tensor randn(std::vector<int64_t> shape) {
  tc_tensor t = nullptr;
  TC_OK_OR_DIE(tc_randn(&t, shape.data(), shape.size(), nullptr, nullptr, nullptr));
  return t;
}

struct Mlp {
  tc_tensor w1 = randn({256, 784}), b1 = randn({256}), w2 = randn({10, 256}), b2 = randn({10});
  tc_tensor forward(tc_tensor x) const {
    tc_tensor h = nullptr, r = nullptr, o = nullptr, y = nullptr;
    TC_OK_OR_DIE(tc_linear(&h, x, w1, b1));
    TC_OK_OR_DIE(tc_relu(&r, h));
    TC_OK_OR_DIE(tc_linear(&o, r, w2, b2));
    TC_OK_OR_DIE(tc_log_softmax_int(&y, o, 1, nullptr));
    tc_tensor_release(h);
    tc_tensor_release(r);
    tc_tensor_release(o);
    return y;
  }
};

tc_tensor add_chain(tc_tensor x) {
  tc_tensor y = nullptr;
  TC_OK_OR_DIE(tc_add_Tensor(&y, x, x, nullptr));
  for (int i = 1; i < 10; ++i) {
    tc_tensor z = nullptr;
    TC_OK_OR_DIE(tc_add_Tensor(&z, y, x, nullptr));
    tc_tensor_release(y);
    y = z;
  }
  return y;
}

template <class F>
tc_graph trace(tc_tensor x, F f) {
  TC_OK_OR_DIE(tc_trace_begin());
  TC_OK_OR_DIE(tc_trace_input(x));
  tc_tensor y = f(x);
  tc_graph g = nullptr;
  TC_OK_OR_DIE(tc_trace_end(&g, &y, 1));
  tc_tensor_release(y);
  return g;
}

tc_tensor replay(tc_graph g, tc_tensor x) {
  tc_tensor y = nullptr;
  size_t n = 0;
  TC_OK_OR_DIE(tc_graph_run(&y, 1, &n, g, &x, 1));
  return y;
}

// The replay must give what the calls give, bit for bit.
void check_same(tc_tensor a, tc_tensor b, const char* what) {
  size_t n = 0;
  TC_OK_OR_DIE(tc_tensor_numel(reinterpret_cast<int64_t*>(&n), a));
  std::vector<float> x(n), y(n);
  TC_OK_OR_DIE(tc_tensor_copy_to_buffer(x.data(), n * sizeof(float), a));
  TC_OK_OR_DIE(tc_tensor_copy_to_buffer(y.data(), n * sizeof(float), b));
  if (x != y) {
    std::fprintf(stderr, "bench_trace: %s: the replay differs from the calls\n", what);
    std::exit(3);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = bench::arg_int(argc, argv, "--threads", 1);
  TC_OK_OR_DIE(tc_set_num_threads(threads));
  TC_OK_OR_DIE(tc_manual_seed(0));
  const Mlp mlp;
  tc_tensor x = randn({64, 784}), one = randn({1});
  tc_graph mlp_graph = trace(x, [&](tc_tensor t) { return mlp.forward(t); });
  tc_graph chain_graph = trace(one, add_chain);
  {
    tc_tensor a = replay(mlp_graph, x), b = mlp.forward(x);
    check_same(a, b, "MLP forward");
    tc_tensor_release(a);
    tc_tensor_release(b);
    a = replay(chain_graph, one);
    b = add_chain(one);
    check_same(a, b, "add chain");
    tc_tensor_release(a);
    tc_tensor_release(b);
  }

  std::vector<bench::PairRow> rows;
  rows.push_back({"MLP forward 784-256-10, batch 64 (4 ops)",
                  {"replay", [&] { tc_tensor_release(replay(mlp_graph, x)); }},
                  {"calls", [&] { tc_tensor_release(mlp.forward(x)); }}});
  rows.push_back({"ten chained 1-element adds",
                  {"replay", [&] { tc_tensor_release(replay(chain_graph, one)); }},
                  {"calls", [&] { tc_tensor_release(add_chain(one)); }}});
  std::printf("| float32, %d thread | tc_graph_run | the C calls one by one | calls/replay |\n", threads);
  std::printf("|---|---|---|---|\n");
  for (const bench::PairRow& r : rows) bench::run_and_print(r);

  tc_graph_release(mlp_graph);
  tc_graph_release(chain_graph);
  for (tc_tensor t : {x, one, mlp.w1, mlp.b1, mlp.w2, mlp.b2}) tc_tensor_release(t);
  return 0;
}
