// SPDX-License-Identifier: BSD-3-Clause
// Traced graphs from C++: record with Trace, run, save and load; errors as
// tensorc::Error.
#include <gtest/gtest.h>

#include <tensorc.hpp>

#include <cstdio>
#include <string>

using tensorc::Tensor;

namespace {

float max_abs_diff(const Tensor& a, const Tensor& b) { return (a - b).abs().max().item<float>(); }

Tensor layer(const Tensor& x, const Tensor& w, const Tensor& b) { return tensorc::relu(tensorc::linear(x, w, b)); }

}  // namespace

TEST(Jit, TraceRunSaveLoad) {
  tensorc::manual_seed(1);
  Tensor x = tensorc::randn({3, 4}), w = tensorc::randn({5, 4}), b = tensorc::randn({5});
  tensorc::Graph g = [&] {
    tensorc::Trace trace;
    trace.input(x);
    Tensor y = layer(x, w, b);
    return trace.end(y);
  }();
  EXPECT_EQ(g.num_inputs(), 1u);
  EXPECT_EQ(g.num_outputs(), 1u);
  EXPECT_EQ(g.num_nodes(), 2u);  // linear (one node, a composite) and relu
  EXPECT_NE(g.text().find("aten::linear(%0"), std::string::npos) << g.text();
  EXPECT_TRUE(g.warnings().empty());

  Tensor x2 = tensorc::randn({3, 4});
  std::vector<Tensor> out = g.run({x2});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(max_abs_diff(out[0], layer(x2, w, b)), 0.0f);
  EXPECT_EQ(out[0].use_count(), 1);  // the graph's result is the caller's alone

  const std::string path = "cpp_test_jit_graph.json";
  g.save(path);
  tensorc::Graph loaded = tensorc::Graph::load(path);
  std::remove(path.c_str());
  EXPECT_EQ(loaded.text(), g.text());
  EXPECT_EQ(max_abs_diff(loaded.run({x2})[0], out[0]), 0.0f);
  EXPECT_EQ(tensorc::Graph::from_json(g.to_json()).text(), g.text());
}

TEST(Jit, ErrorsAreExceptions) {
  Tensor x = tensorc::ones({2});  // made before the trace: a tensor a traced op made cannot be an input
  tensorc::Graph g = [&] {
    tensorc::Trace trace;
    trace.input(x);
    return trace.end(tensorc::exp(x));
  }();
  try {
    g.run({tensorc::ones({3})});
    FAIL() << "a wrong shape ran";
  } catch (const tensorc::Error& e) {
    EXPECT_NE(std::string(e.what()).find("input 0 expected float32[2]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(tensorc::Graph::from_json("{\n\n  nope"), tensorc::Error);
  try {
    tensorc::Graph::from_json("{\n\n  nope");
  } catch (const tensorc::Error& e) {
    EXPECT_NE(std::string(e.what()).find("line 3"), std::string::npos) << e.what();
  }
}

TEST(Jit, ATraceLeftWithoutEndStopsTracing) {
  {
    tensorc::Trace trace;
    EXPECT_THROW(tensorc::Trace(), tensorc::Error);  // tracing does not nest
  }
  Tensor x = tensorc::ones({2});
  tensorc::Trace again;  // the first one ended when it went out of scope
  again.input(x);
  EXPECT_EQ(again.end(x * 2).num_nodes(), 1u);
}
