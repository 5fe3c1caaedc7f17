// SPDX-License-Identifier: BSD-3-Clause
// The derivatives.yaml loader: the real file loads cleanly, and every rule of
// schema/codegen/derivatives.h rejects its malformed entry, naming the file,
// the entry's line and the rule.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "codegen/derivatives.h"

namespace {

using namespace tc::codegen;

struct Ops {
  std::vector<NativeFunction> nfs;
  Model model;
};

const Ops& ops() {
  static const Ops* o = [] {
    auto* out = new Ops;
    const auto path = std::filesystem::path(TC_SOURCE_DIR) / "schema" / "ops.yaml";
    auto errors = load_native_functions_file(path.string(), LoadOptions{}, &out->nfs);
    if (errors.empty()) out->model = build_model(out->nfs, &errors);
    EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors[0].str());
    return out;
  }();
  return *o;
}

std::vector<LoadError> load(const std::string& yaml, Derivatives* d = nullptr) {
  Derivatives local;
  return load_derivatives(yaml, "derivatives.yaml", ops().model, d ? d : &local);
}

TEST(Derivatives, RealFileLoads) {
  const auto path = std::filesystem::path(TC_SOURCE_DIR) / "schema" / "derivatives.yaml";
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  Derivatives d;
  auto errors = load(ss.str(), &d);
  for (const auto& e : errors) ADD_FAILURE() << e.str();
  EXPECT_GT(d.entries.size(), 100u);
  const DerivativeInfo* mul = d.find("mul.Tensor");
  ASSERT_NE(mul, nullptr);
  ASSERT_EQ(mul->formulas.size(), 2u);
  EXPECT_EQ(mul->formulas[0].inputs, std::vector<std::string>{"self"});
}

TEST(Derivatives, ValidForms) {
  const char* yaml = R"(
- name: exp
  self: tc::mul(grad, result)
- name: max.dim
  self: value_selecting_reduction_backward(grad_values, dim, indices, self.sizes(), keepdim)
  output_differentiability: [True, False]
- name: addmm
  "self, mat1, mat2": f(grads[0], grad_input_mask)
- name: argmax
  non_differentiable: True
- name: as_strided
  not_implemented: [self]
)";
  Derivatives d;
  auto errors = load(yaml, &d);
  for (const auto& e : errors) ADD_FAILURE() << e.str();
  ASSERT_EQ(d.entries.size(), 5u);
  EXPECT_EQ(d.entries[2].formulas[0].inputs, (std::vector<std::string>{"self", "mat1", "mat2"}));
  EXPECT_EQ(d.entries[1].output_differentiability, (std::vector<bool>{true, false}));
  EXPECT_TRUE(d.entries[3].non_differentiable);
  EXPECT_EQ(d.entries[4].not_implemented, std::vector<std::string>{"self"});
}

struct Bad {
  const char* rule;
  int line;
  const char* yaml;
};

TEST(Derivatives, EveryRuleRejects) {
  const Bad cases[] = {
      {"yaml", 3, "- name: exp\n  self: [unclosed\n"},  // a parse error: the parser's position
      {"yaml", 1, "name: exp\n"},
      {"missing-name", 3, "- name: exp\n  self: grad\n- self: grad\n"},
      {"unknown-op", 1, "- name: no_such_op\n  self: grad\n"},
      {"unknown-op", 1, "- name: add.NoSuchOverload\n  self: grad\n"},
      {"duplicate-entry", 3, "- name: exp\n  self: grad\n- name: exp\n  self: grad\n"},
      {"out-variant", 1, "- name: add.out\n  self: grad\n"},
      {"unknown-input", 1, "- name: mul.Tensor\n  input: grad\n"},
      {"unknown-input", 1, "- name: mul.Tensor\n  not_implemented: [selff]\n"},
      {"non-differentiable-input", 1, "- name: add.Tensor\n  alpha: grad\n"},
      {"non-differentiable-input", 1, "- name: sum.dim_IntList\n  dim: grad\n"},
      {"duplicate-input", 1, "- name: mul.Tensor\n  self: grad\n  \"self, other\": f(grad)\n"},
      {"mixed-grad", 1, "- name: max.dim\n  self: f(grad, grads[0])\n"},
      {"mixed-grad", 1, "- name: max.dim\n  self: f(grad, grad_values)\n"},
      {"grad-out-of-range", 1, "- name: exp\n  self: grads[1]\n"},
      {"bad-output-differentiability", 1, "- name: max.dim\n  self: grad\n  output_differentiability: [True]\n"},
      {"bad-output-differentiability", 1, "- name: max.dim\n  self: grad\n  output_differentiability: [yes, no]\n"},
      {"empty-formula", 1, "- name: exp\n  self: \"\"\n"},
  };
  int n = 0;
  for (const Bad& c : cases) {
    auto errors = load(c.yaml);
    ASSERT_FALSE(errors.empty()) << "accepted: " << c.yaml;
    EXPECT_EQ(errors[0].rule, c.rule) << c.yaml << "\n" << errors[0].str();
    EXPECT_EQ(errors[0].line, c.line) << c.yaml << "\n" << errors[0].str();
    EXPECT_EQ(errors[0].file, "derivatives.yaml");
    EXPECT_NE(errors[0].str().find("derivatives.yaml:"), std::string::npos) << errors[0].str();
    ++n;
  }
  EXPECT_GE(n, 18);
}

}  // namespace
