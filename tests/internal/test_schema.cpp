// SPDX-License-Identifier: BSD-3-Clause
// The schema parser (signatures) and the ops.yaml loader (file-level rules),
// table-driven: every valid signature must print back to its exact text, and
// every invalid input must fail with the expected rule (and column / line).
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "codegen/gen_common.h"
#include "codegen/native_functions.h"
#include "dispatch/boxing.h"
#include "dispatch/schema/parser.h"

namespace {

using tc::codegen::Family;
using tc::codegen::kFamilies;
using tc::codegen::LoadError;
using tc::codegen::LoadOptions;
using tc::codegen::NativeFunction;
using tc::codegen::Variant;
using namespace tc::schema;

FunctionSchema parse_ok(const std::string& text) {
  auto result = parse_schema(text);
  if (const auto* e = std::get_if<SchemaError>(&result))
    ADD_FAILURE() << text << "\n  -> " << e->rule << ": " << e->message << " (column " << e->column << ")";
  return std::holds_alternative<FunctionSchema>(result) ? std::get<FunctionSchema>(result) : FunctionSchema{};
}

// ---------------------------------------------------------------------------
// Valid signatures: canonical text, parsed and printed, must be unchanged.

const char* const kCanonicalSignatures[] = {
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "split.Tensor(Tensor(a -> *) self, int split_size, int dim=0) -> Tensor(a)[]",
    "cat(Tensor[] tensors, int dim=0) -> Tensor",
    "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "empty(int[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
    "rand(int[] size, *, Generator? generator=None, ScalarType? dtype=None, Device? device=None) -> Tensor",
    "myops::myadd(Tensor self, Tensor other) -> Tensor",
    "index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
    "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
    "nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, int ignore_index=-100) -> Tensor",
    "_foo(Tensor self, bool[3] output_mask=[True, True, True], float eps=1e-05, str reduce=\"mean\") -> ()",
    "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    "mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) -> "
    "(Tensor(a!) values, Tensor(b!) indices)",
    "relu_(Tensor(a!) self) -> Tensor(a!)",
    "view(Tensor(a) self, int[] size) -> Tensor(a)",
    "transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
    "unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]",
    "chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]",
    "max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, "
    "bool ceil_mode=False) -> Tensor",
    "native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
    "bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
    "native_layer_norm_backward(Tensor grad_out, Tensor input, int[] normalized_shape, Tensor mean, Tensor rstd, "
    "Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
    "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    "arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, Device? device=None) -> "
    "Tensor",
    "full(int[] size, Scalar fill_value, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
    "item(Tensor self) -> Scalar",
    "dim(Tensor self) -> int",
    "is_nonzero(Tensor self) -> bool",
    "dropout(Tensor input, float p, bool train) -> Tensor",
    "bernoulli.p(Tensor self, float p=0.5, *, Generator? generator=None) -> Tensor",
    "leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
    "softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
    "index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)",
    "copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
    "to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False) -> Tensor(a)",
    "sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)",
    "topk.values(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True, *, Tensor(a!) values, "
    "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    "std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
    "nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor",
    "upsample_nearest2d.vec(Tensor input, int[]? output_size, float[]? scale_factors) -> Tensor",
    "__and__.Tensor(Tensor self, Tensor other) -> Tensor",
    "normal_(Tensor(a!) self, float mean=0, float std=1, *, Generator? generator=None) -> Tensor(a!)",
    "myops::scale.out(Tensor self, float factor, *, Tensor(a!) out) -> Tensor(a!)",
    "_foreach_add.List(Tensor[] self, Tensor[] other, *, Scalar alpha=1) -> Tensor[]",
    "alias_pair(Tensor(a|b) self) -> Tensor(a|b)",
    "print_op(str message=\"hi, (there)\") -> ()",
    "pad(Tensor self, int[] pad, str mode='constant', float? value=None) -> Tensor",
    "_fused.out(Tensor self, *, Tensor(a!) out0, Tensor(b!) out1) -> ()",
    "as_strided(Tensor(a) self, int[] size, int[] stride, int? storage_offset=None) -> Tensor(a)",
    "conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, int[2] dilation=1, "
    "int groups=1) -> Tensor",
    "float_list(float[] xs=[0.5, 1e-05, -2, 3E+2]) -> ()",
    "tensor_list_default(Tensor[] xs=[]) -> ()",
    "clamp_.Tensor(Tensor(a!) self, Tensor? min=None, Tensor? max=None) -> Tensor(a!)",
    "fill_.Scalar(Tensor(a!) self, Scalar value) -> ()",
    "optional_list(Tensor?[]? xs=None, bool? flag=None, str s=\"\") -> ()",
    "clamp_min(Tensor self, float lo=-inf) -> Tensor",
    "mutable_view(Tensor(a! -> *) self) -> Tensor(a)[]",
    "device_of(Tensor self) -> Device",
    "zeros(int[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
    // ATen's named int constant (at::Reduction), kept as written.
    "nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean, int ignore_index=-100) -> Tensor",
    "mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor",
    "sum_loss(Tensor self, int? reduction=Sum) -> Tensor",
};

TEST(SchemaParse, CanonicalSignaturesRoundTrip) {
  EXPECT_GE(std::size(kCanonicalSignatures), 45u);
  for (const char* text : kCanonicalSignatures) EXPECT_EQ(parse_ok(text).str(), text);
}

TEST(SchemaParse, NonCanonicalSpacingPrintsCanonically) {
  const std::pair<const char*, const char*> cases[] = {
      {"  add.Tensor ( Tensor  self ,Tensor other,*,Scalar alpha = 1 )->Tensor ",
       "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"},
      {"split.Tensor(Tensor( a->* ) self, int[2] x=[0,1]) -> Tensor( a )[]",
       "split.Tensor(Tensor(a -> *) self, int[2] x=[0, 1]) -> Tensor(a)[]"},
      {"f(bool[3] m=[ True,True , True ]) -> ( Tensor a ,Tensor b )",
       "f(bool[3] m=[True, True, True]) -> (Tensor a, Tensor b)"},
      {"f(Tensor self) -> (Tensor)", "f(Tensor self) -> Tensor"},
      {"f(Tensor self)\n  -> ( )", "f(Tensor self) -> ()"},
      {"f(Tensor(a|b!) self) -> Tensor( a | b !)", "f(Tensor(a|b!) self) -> Tensor(a|b!)"},
  };
  for (const auto& [input, canonical] : cases) EXPECT_EQ(parse_ok(input).str(), canonical) << input;
}

// ---------------------------------------------------------------------------
// Structure of parsed schemas.

TEST(SchemaParse, KindsAndOutArguments) {
  const auto add = parse_ok("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  EXPECT_EQ(add.kind(), SchemaKind::Functional);
  EXPECT_FALSE(add.is_factory());
  EXPECT_TRUE(add.out_arguments().empty());
  EXPECT_TRUE(add.arguments[2].kwarg_only);
  EXPECT_FALSE(add.arguments[1].kwarg_only);

  const auto add_ = parse_ok("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
  EXPECT_EQ(add_.kind(), SchemaKind::Inplace);
  EXPECT_TRUE(add_.name.is_inplace());
  EXPECT_EQ(add_.name.base_name(), "add");
  EXPECT_TRUE(add_.arguments[0].is_write());

  const auto add_out = parse_ok("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_EQ(add_out.kind(), SchemaKind::Out);
  ASSERT_EQ(add_out.out_arguments().size(), 1u);
  EXPECT_EQ(add_out.out_arguments()[0]->name, "out");
  EXPECT_EQ(add_out.name.qualified(), "add.out");

  const auto topk = parse_ok(kCanonicalSignatures[40]);
  ASSERT_EQ(topk.out_arguments().size(), 2u);
  EXPECT_EQ(topk.out_arguments()[1]->name, "indices");
  EXPECT_EQ(topk.returns[1].annotation->alias_sets, std::vector<std::string>{"b"});

  const auto dunder = parse_ok("__and__.Tensor(Tensor self, Tensor other) -> Tensor");
  EXPECT_FALSE(dunder.name.is_inplace());
  EXPECT_EQ(dunder.name.base_name(), "__and__");
  EXPECT_EQ(dunder.kind(), SchemaKind::Functional);
}

TEST(SchemaParse, FactoriesAndNames) {
  EXPECT_TRUE(parse_ok("empty(int[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor").is_factory());
  EXPECT_TRUE(parse_ok(kCanonicalSignatures[26]).is_factory());  // arange.start_step
  EXPECT_FALSE(parse_ok("cat(Tensor[] tensors, int dim=0) -> Tensor").is_factory());
  EXPECT_FALSE(parse_ok("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor").is_factory());
  EXPECT_FALSE(parse_ok("f(Tensor? x=None) -> ()").is_factory());

  const auto my = parse_ok("myops::myadd(Tensor self, Tensor other) -> Tensor");
  EXPECT_EQ(my.name.ns, "myops");
  EXPECT_EQ(my.name.name, "myadd");
  EXPECT_EQ(my.name.overload, "");
  EXPECT_EQ(my.name.qualified(), "myops::myadd");
  EXPECT_EQ(parse_ok("myops::scale.out(Tensor self, float factor, *, Tensor(a!) out) -> Tensor(a!)").name.qualified(),
            "myops::scale.out");
  EXPECT_NE(my.find_argument("other"), nullptr);
  EXPECT_EQ(my.find_argument("alpha"), nullptr);
}

TEST(SchemaParse, TypesAndAnnotations) {
  const auto sum = parse_ok(kCanonicalSignatures[6]);
  const Type& dim = sum.arguments[1].type;
  EXPECT_EQ(dim.base, BaseType::Int);
  EXPECT_TRUE(dim.is_list);
  EXPECT_EQ(dim.list_size, 1);
  EXPECT_TRUE(dim.optional);
  EXPECT_EQ(dim.str(), "int[1]?");
  EXPECT_TRUE(sum.arguments[3].type.optional);
  EXPECT_EQ(sum.arguments[3].type.base, BaseType::ScalarType);

  const Type indices = parse_ok("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor").arguments[1].type;
  EXPECT_TRUE(indices.is_list);
  EXPECT_TRUE(indices.elem_optional);
  EXPECT_FALSE(indices.optional);
  EXPECT_FALSE(indices.list_size.has_value());

  const auto split = parse_ok("split.Tensor(Tensor(a -> *) self, int split_size, int dim=0) -> Tensor(a)[]");
  const Annotation& self_annotation = *split.arguments[0].annotation;
  EXPECT_EQ(self_annotation.alias_sets, std::vector<std::string>{"a"});
  EXPECT_EQ(self_annotation.alias_sets_after, std::vector<std::string>{"*"});
  EXPECT_FALSE(self_annotation.is_write);
  EXPECT_EQ(self_annotation.str(), "a -> *");
  ASSERT_EQ(split.returns.size(), 1u);
  EXPECT_TRUE(split.returns[0].type.is_list);
  EXPECT_EQ(split.returns[0].annotation->str(), "a");
  EXPECT_FALSE(split.returns[0].name.has_value());

  const auto pair = parse_ok("alias_pair(Tensor(a|b) self) -> Tensor(a|b)");
  EXPECT_EQ(pair.arguments[0].annotation->alias_sets, (std::vector<std::string>{"a", "b"}));

  const auto max = parse_ok("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  ASSERT_EQ(max.returns.size(), 2u);
  EXPECT_EQ(max.returns[0].name, "values");
  EXPECT_EQ(max.returns[1].name, "indices");
  EXPECT_TRUE(parse_ok("_foo(Tensor self) -> ()").returns.empty());
}

TEST(SchemaParse, DefaultsKeepSourceText) {
  const auto foo = parse_ok(kCanonicalSignatures[13]);
  EXPECT_EQ(foo.arguments[1].type.list_size, 3);
  EXPECT_EQ(foo.arguments[1].default_value, "[True, True, True]");
  EXPECT_EQ(foo.arguments[2].default_value, "1e-05");
  EXPECT_EQ(foo.arguments[3].default_value, "\"mean\"");
  const auto nll = parse_ok(kCanonicalSignatures[12]);
  EXPECT_EQ(nll.arguments[2].default_value, "None");
  EXPECT_EQ(nll.arguments[4].default_value, "-100");
  EXPECT_FALSE(nll.arguments[0].default_value.has_value());
  EXPECT_EQ(parse_ok("f(int[2] stride=[]) -> ()").arguments[0].default_value, "[]");
  EXPECT_EQ(parse_ok("f(int[1] dim=1) -> ()").arguments[0].default_value, "1");
  EXPECT_EQ(parse_ok("f(int reduction=Mean) -> ()").arguments[0].default_value, "Mean");
}

// The value behind an int default's text: literals, and ATen's Reduction names.
TEST(SchemaParse, IntDefaultValues) {
  EXPECT_EQ(int_default_value("Mean"), 1);
  EXPECT_EQ(int_default_value("Sum"), 2);
  EXPECT_EQ(int_default_value("0"), 0);
  EXPECT_EQ(int_default_value("-100"), -100);
  EXPECT_EQ(int_default_value("None"), std::nullopt);
  EXPECT_EQ(int_default_value("mean"), std::nullopt);
  EXPECT_EQ(int_default_value("1.5"), std::nullopt);
  EXPECT_EQ(int_default_value("-"), std::nullopt);
  EXPECT_EQ(int_default_value(""), std::nullopt);
  // Boxed calls (tc_op_call, C-registered kernels) fill the same values in.
  const auto mse = parse_ok("mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor");
  EXPECT_EQ(tc::default_ivalue(mse.arguments[2], "mse_loss").to_int(), 1);
  const auto sum = parse_ok("f(int reduction=Sum, int other=-3) -> ()");
  EXPECT_EQ(tc::default_ivalue(sum.arguments[0], "f").to_int(), 2);
  EXPECT_EQ(tc::default_ivalue(sum.arguments[1], "f").to_int(), -3);
}

// ---------------------------------------------------------------------------
// Invalid signatures: each fails with exactly this rule (and column, if given).

struct InvalidSignature {
  const char* text;
  const char* rule;
  int column;  // 0: not checked
};

const InvalidSignature kInvalidSignatures[] = {
    // syntax
    {"add.Tensor(Tensor self, Tensor other", "syntax", 0},
    {"add(Tensor self) Tensor", "syntax", 18},
    {"(Tensor self) -> Tensor", "syntax", 1},
    {"add(Tensor self, ) -> Tensor", "syntax", 18},
    {"add(Tensor) -> Tensor", "syntax", 11},
    {"add(Tensor self) -> Tensor out", "syntax", 28},
    {"add(Tensor self) -> (Tensor) junk", "syntax", 30},
    {"add(Tensor self, *) -> Tensor", "syntax", 0},
    {"add(Tensor self, *, int a, *, int x) -> Tensor", "syntax", 28},
    {"add(int(a) x) -> int", "syntax", 0},
    {"add(Tensor(a! self) -> Tensor", "syntax", 0},
    {"add(Tensor self, str s=\"abc) -> Tensor", "syntax", 0},
    {"add(Tensor self) -> (Tensor a, Tensor b", "syntax", 0},
    {"add(Tensor?? self) -> Tensor", "syntax", 0},
    {"add(int[][] x) -> Tensor", "syntax", 0},
    {"add(int[x] x) -> Tensor", "syntax", 0},
    {"add(int x=) -> Tensor", "syntax", 0},
    {"", "syntax", 1},
    {"myops::(Tensor self) -> Tensor", "syntax", 0},
    // unknown-type
    {"add(Tensorr self) -> Tensor", "unknown-type", 5},
    {"add(Tensor self, SymInt x) -> Tensor", "unknown-type", 18},
    {"add(Tensor self) -> Tensr", "unknown-type", 21},
    {"add(int?[] x) -> Tensor", "unknown-type", 0},
    {"add(str[] x) -> Tensor", "unknown-type", 0},
    // bad-default
    {"add(int x=\"a\") -> Tensor", "bad-default", 11},
    {"add(Tensor t=1) -> Tensor", "bad-default", 0},
    {"add(int x=None) -> Tensor", "bad-default", 0},
    {"add(bool b=true) -> Tensor", "bad-default", 0},
    {"add(float f=abc) -> Tensor", "bad-default", 0},
    {"add(int[2] x=[1, 2, 3]) -> Tensor", "bad-default", 0},
    {"add(int[] x=0) -> Tensor", "bad-default", 0},
    {"add(ScalarType dtype=float) -> Tensor", "bad-default", 0},
    {"add(str s=mean) -> Tensor", "bad-default", 0},
    {"add(int x=1.5) -> ()", "bad-default", 0},
    {"add(Tensor[] xs=[1]) -> ()", "bad-default", 0},
    {"add(int x=Meen) -> ()", "bad-default", 11},
    {"add(float f=Mean) -> ()", "bad-default", 0},
    {"add(int[] x=[Mean]) -> ()", "bad-default", 0},
    {"add(int[1] x=Mean) -> ()", "bad-default", 0},
    {"add(str s=Mean) -> ()", "bad-default", 0},
    // default-order
    {"add(Tensor self, int a=1, int b) -> Tensor", "default-order", 27},
    // duplicate-arg
    {"add(Tensor self, Tensor self) -> Tensor", "duplicate-arg", 18},
    {"f(Tensor a) -> (Tensor x, Tensor x)", "duplicate-arg", 27},
    // out-annotation
    {"add.out(Tensor self, Tensor other, *, Tensor out) -> Tensor", "out-annotation", 39},
    {"add.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor", "out-annotation", 0},
    {"f.out(Tensor self, *, Tensor(a!) out, int flag=0) -> Tensor(a!)", "out-annotation", 0},
    {"f.out(Tensor self, *, Tensor(a!) a, Tensor(a!) b) -> (Tensor(a!), Tensor(a!))", "out-annotation", 0},
    {"f.out(Tensor self) -> Tensor", "out-annotation", 0},
    {"f.grad_out(Tensor self) -> Tensor", "out-annotation", 0},
    {"f(Tensor self, *, Tensor(a!) out) -> (Tensor(a!), Tensor)", "out-annotation", 0},
    {"f(Tensor self, *, int out=0) -> Tensor", "out-annotation", 0},
    {"f(Tensor self, *, Tensor(a!) out0, Tensor(b!) out1) -> (Tensor(b!), Tensor(a!))", "out-annotation", 0},
    // inplace-self
    {"add_(Tensor self, Tensor other) -> Tensor(a!)", "inplace-self", 6},
    {"add_(Tensor(a!) x) -> Tensor(a!)", "inplace-self", 0},
    {"add_(Tensor(a!) self) -> Tensor", "inplace-self", 0},
    {"add_(Tensor(a!) self) -> Tensor(b!)", "inplace-self", 0},
    {"add_() -> ()", "inplace-self", 0},
    {"f_(Tensor(a!)[] self) -> Tensor(a!)[]", "inplace-self", 0},  // a foreach op returns nothing
    {"f_(Tensor[] self) -> ()", "inplace-self", 0},
    // bad-overload
    {"add.(Tensor self) -> Tensor", "bad-overload", 5},
    {"add.1x(Tensor self) -> Tensor", "bad-overload", 5},
    {"add.a-b(Tensor self) -> Tensor", "bad-overload", 0},
    // bad-list-size
    {"f(int[0] x) -> ()", "bad-list-size", 7},
    {"f(int[-2] x) -> ()", "bad-list-size", 0},
};

TEST(SchemaParse, InvalidSignaturesNameTheRule) {
  EXPECT_GE(std::size(kInvalidSignatures), 30u);
  for (const auto& c : kInvalidSignatures) {
    auto result = parse_schema(c.text);
    const auto* error = std::get_if<SchemaError>(&result);
    if (!error) {
      ADD_FAILURE() << "accepted: " << c.text;
      continue;
    }
    EXPECT_EQ(error->rule, c.rule) << c.text << "\n  message: " << error->message;
    EXPECT_FALSE(error->message.empty());
    if (c.column) {
      EXPECT_EQ(error->column, c.column) << c.text << "\n  message: " << error->message;
    }
  }
}

TEST(SchemaParse, ForeachInplaceOpTakesAListSelf) {
  const FunctionSchema s = parse_schema_or_throw(
      "_amp_foreach_non_finite_check_and_unscale_(Tensor(a!)[] self, Tensor(b!) found_inf, Tensor inv_scale) -> ()");
  ASSERT_EQ(s.arguments.size(), 3u);
  EXPECT_TRUE(s.arguments[0].type.is_list);
  EXPECT_TRUE(s.arguments[0].is_write());
  EXPECT_TRUE(s.returns.empty());
}

TEST(SchemaParse, ThrowingVariant) {
  EXPECT_EQ(parse_schema_or_throw("cat(Tensor[] tensors, int dim=0) -> Tensor").name.name, "cat");
  try {
    parse_schema_or_throw("add(Tensorr self) -> Tensor");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("unknown-type: ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("(column 5)"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------
// ops.yaml loading.

std::vector<LoadError> load(const std::string& yaml, std::vector<NativeFunction>* out,
                            const LoadOptions& opts = LoadOptions{}) {
  return load_native_functions(yaml, "ops.yaml", opts, out);
}

const char* const kValidYaml = R"(# header comment
- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  variants: function, method
  dispatch:
    CPU: add_cpu
    CUDA: add_cuda
  tags: pointwise

- func: add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
  variants: method
- func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
- func: mm(Tensor self, Tensor mat2) -> Tensor
  dispatch:
    CPU, CUDA: mm_kernel
  device_guard: false
  device_check: True
  tags: [core, linear_algebra]
- func: neg(Tensor self) -> Tensor
  variants: [function, method]
  dispatch:
    CompositeExplicitAutograd: neg
- func: softplus(Tensor self) -> Tensor
  dispatch:
    CompositeImplicitAutograd: softplus_decomposed
- func: fill_(Tensor(a!) self, Scalar value) -> ()
  dispatch:
    CPU: fill_cpu
    CompositeExplicitAutograd: fill_any
)";

TEST(OpsYaml, LoadsValidEntries) {
  std::vector<NativeFunction> fns;
  const auto errors = load(kValidYaml, &fns);
  for (const auto& e : errors) ADD_FAILURE() << e.str();
  ASSERT_EQ(fns.size(), 7u);

  const NativeFunction& add = fns[0];
  EXPECT_EQ(add.line, 2);
  EXPECT_EQ(add.file, "ops.yaml");
  EXPECT_EQ(add.func_text, "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  EXPECT_EQ(add.func.str(), add.func_text);
  EXPECT_EQ(add.variants, (std::vector<Variant>{Variant::Function, Variant::Method}));
  EXPECT_TRUE(add.dispatch_given);
  EXPECT_EQ(add.dispatch.at("CPU"), "add_cpu");
  EXPECT_EQ(add.dispatch.at("CUDA"), "add_cuda");
  EXPECT_FALSE(add.has_composite_implicit());
  EXPECT_EQ(add.tags, std::vector<std::string>{"pointwise"});
  EXPECT_TRUE(add.device_guard);

  EXPECT_EQ(fns[1].line, 9);
  EXPECT_EQ(fns[1].variants, std::vector<Variant>{Variant::Method});
  EXPECT_EQ(fns[2].line, 11);
  EXPECT_EQ(fns[2].variants, std::vector<Variant>{Variant::Function});  // the default
  EXPECT_FALSE(fns[2].dispatch_given);
  EXPECT_TRUE(fns[2].has_composite_implicit());  // by default
  EXPECT_EQ(fns[2].func.kind(), SchemaKind::Out);

  const NativeFunction& mm = fns[3];
  EXPECT_EQ(mm.dispatch.size(), 2u);
  EXPECT_EQ(mm.dispatch.at("CPU"), "mm_kernel");
  EXPECT_EQ(mm.dispatch.at("CUDA"), "mm_kernel");
  EXPECT_FALSE(mm.device_guard);
  EXPECT_TRUE(mm.device_check);
  EXPECT_EQ(mm.tags, (std::vector<std::string>{"core", "linear_algebra"}));

  EXPECT_TRUE(fns[4].has_composite_explicit());
  EXPECT_FALSE(fns[4].has_composite_implicit());
  EXPECT_EQ(fns[4].variants, (std::vector<Variant>{Variant::Function, Variant::Method}));
  EXPECT_TRUE(fns[5].has_composite_implicit());
  EXPECT_TRUE(fns[6].has_composite_explicit());  // explicit + backend is allowed
}

TEST(OpsYaml, EmptyFileDeclaresNothing) {
  std::vector<NativeFunction> fns;
  EXPECT_TRUE(load("", &fns).empty());
  EXPECT_TRUE(load("# only a comment\n", &fns).empty());
  EXPECT_TRUE(fns.empty());
}

struct InvalidYaml {
  const char* yaml;
  const char* rule;
  int line;
};

// Each snippet has exactly one error. A leading valid entry checks that the
// line is that of the offending entry, not of the file's start.
const InvalidYaml kInvalidYaml[] = {
    {"- func: f(Tensor self) -> Tensor\n  dispatch: [CPU\n", "yaml", 3},
    {"func: f(Tensor self) -> Tensor\n", "yaml", 1},
    {"- func: ok(Tensor self) -> Tensor\n- just a string\n", "yaml", 2},
    {"- func: f(Tensor self) -> Tensor\n  func: g(Tensor self) -> Tensor\n", "yaml", 1},
    {"- func: f(Tensor self) -> Tensor\n  dispatch: add_cpu\n", "unknown-dispatch-key", 1},
    {"- func: f(Tensor self) -> Tensor\n  dispatch: {}\n", "yaml", 1},
    {"- func: [f]\n", "yaml", 1},
    {"- func: ok(Tensor self) -> Tensor\n\n- func: f(Tensor self) -> Tensor\n  python_module: nn\n", "unknown-key", 3},
    {"- func: ok(Tensor self) -> Tensor\n- variants: function\n", "missing-func", 2},
    {"- func: ok(Tensor self) -> Tensor\n- func: f(Tensorr self) -> Tensor\n", "schema", 2},
    {"- func: f(Tensor self) -> Tensor\n  variants: function, static\n", "unknown-variant", 1},
    {"- func: ok(Tensor self) -> Tensor\n- func: empty(int[] size) -> Tensor\n  variants: method\n",
     "method-without-self", 2},
    {"- func: f(Tensor self) -> Tensor\n  dispatch:\n    Meta: f_meta\n", "unknown-dispatch-key", 1},
    {"- func: f(Tensor self) -> Tensor\n  dispatch:\n    CPU, : f_cpu\n", "unknown-dispatch-key", 1},
    {"- func: f(Tensor self) -> Tensor\n  dispatch:\n    CompositeExplicitAutograd: a\n"
     "    CompositeImplicitAutograd: b\n",
     "both-composite", 1},
    {"- func: f(Tensor self) -> Tensor\n  dispatch:\n    CPU: a\n    CompositeImplicitAutograd: b\n",
     "composite-with-backend", 1},
    {"- func: ok(Tensor self) -> Tensor\n- func: f.x(Tensor self) -> Tensor\n- func: f.x(Tensor self, int a) -> "
     "Tensor\n",
     "duplicate-overload", 3},
    {"- func: f(Tensor self) -> Tensor\n  device_guard: yes\n", "bad-bool", 1},
    {"- func: f(Tensor self) -> Tensor\n  device_check: [true]\n", "bad-bool", 1},
    {"- func: f(Tensor self) -> Tensor\n  dispatch:\n    CPU: a\n    CPU, CUDA: b\n", "duplicate-dispatch-key", 1},
    {"- func: f(Tensor self) -> Tensor\n  dispatch:\n    CPU: add-cpu\n", "bad-kernel-name", 1},
    {"- func: f(Tensor self) -> Tensor\n  tags: [core, not a tag]\n", "bad-tag", 1},
    {"- func: f(Tensor self) -> Tensor\n  structured: unary_nope\n", "unknown-family", 1},
    {"- func: f(Tensor self, Tensor other) -> Tensor\n  structured: unary_float\n", "family-signature", 1},
    {"- func: f.x(Tensor self) -> Tensor\n  structured: unary_float\n", "family-signature", 1},
    {"- func: f(Tensor self) -> Tensor\n  structured: unary_same\n  dispatch:\n    CompositeExplicitAutograd: g\n",
     "structured-dispatch", 1},
    {"- func: f_(Tensor(a!) self) -> Tensor(a!)\n- func: f(Tensor self) -> Tensor\n  structured: unary_same\n",
     "duplicate-overload", 2},
};

TEST(OpsYaml, BackendListUsesTheDefaultKernelNames) {
  std::vector<NativeFunction> fns;
  const auto errors = load(
      "- func: add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor\n  dispatch: CPU, CUDA\n"
      "- func: add_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)\n  dispatch: CPU\n"
      "- func: abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  dispatch: CPU\n",
      &fns);
  for (const auto& e : errors) ADD_FAILURE() << e.str();
  ASSERT_EQ(fns.size(), 3u);
  EXPECT_EQ(fns[0].dispatch,
            (std::map<std::string, std::string>{{"CPU", "add_scalar_cpu"}, {"CUDA", "add_scalar_cuda"}}));
  EXPECT_EQ(fns[1].dispatch.at("CPU"), "add_scalar_inplace_cpu");
  EXPECT_EQ(fns[2].dispatch.at("CPU"), "abs_out_cpu");
  EXPECT_TRUE(fns[2].dispatch_given);
  EXPECT_FALSE(fns[2].has_composite_implicit());
  std::vector<NativeFunction> bad;
  const auto e2 = load("- func: f(Tensor self) -> Tensor\n  dispatch: CPU, CompositeExplicitAutograd\n", &bad);
  ASSERT_EQ(e2.size(), 1u);
  EXPECT_EQ(e2[0].rule, "unknown-dispatch-key");
}

TEST(OpsYaml, StructuredEntryYieldsThreeVariants) {
  std::vector<NativeFunction> fns;
  const auto errors = load(
      "- func: exp(Tensor self) -> Tensor\n  variants: function, method\n  structured: unary_float\n"
      "- func: sin(Tensor self) -> Tensor\n  structured: unary_float\n  dispatch:\n    CPU: sin_loop\n"
      "    CUDA: sin_loop_gpu\n"
      "- func: cos(Tensor self) -> Tensor\n  structured: unary_float\n  dispatch: CPU, CUDA\n",
      &fns);
  for (const auto& e : errors) ADD_FAILURE() << e.str();
  ASSERT_EQ(fns.size(), 9u);
  EXPECT_EQ(fns[0].func.str(), "exp(Tensor self) -> Tensor");
  EXPECT_EQ(fns[1].func.str(), "exp_(Tensor(a!) self) -> Tensor(a!)");
  EXPECT_EQ(fns[2].func.str(), "exp.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_EQ(fns[1].variants, (std::vector<Variant>{Variant::Function, Variant::Method}));
  EXPECT_EQ(fns[2].variants, std::vector<Variant>{Variant::Function});
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(fns[i].structured) << i;
    EXPECT_EQ(fns[i].structured->family, "unary_float");
    EXPECT_EQ(fns[i].structured->loops, (std::map<std::string, std::string>{{"CPU", "exp_loop_cpu"}}));
    EXPECT_EQ(fns[i].line, 1);  // errors in any variant point at the one entry
    EXPECT_TRUE(fns[i].dispatch.empty());
    EXPECT_FALSE(fns[i].has_composite_implicit());
  }
  EXPECT_EQ(fns[3].structured->loops,
            (std::map<std::string, std::string>{{"CPU", "sin_loop"}, {"CUDA", "sin_loop_gpu"}}));
  EXPECT_EQ(fns[5].func.str(), "sin.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)");
  // A list of backends: each gets <name>_loop_<backend>, in every variant.
  for (int i = 6; i < 9; ++i)
    EXPECT_EQ(fns[size_t(i)].structured->loops,
              (std::map<std::string, std::string>{{"CPU", "cos_loop_cpu"}, {"CUDA", "cos_loop_cuda"}}))
        << i;
}

TEST(OpsYaml, BinaryFamiliesYieldTheirOverloads) {
  std::vector<NativeFunction> fns;
  const auto errors = load(
      "- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n  variants: function, method\n"
      "  structured: binary_alpha\n  dispatch: CPU, CUDA\n"
      "- func: sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n  structured: binary_sub\n"
      "  dispatch:\n    CPU: add_loop_cpu\n"
      "- func: eq.Tensor(Tensor self, Tensor other) -> Tensor\n  structured: comparison\n",
      &fns);
  for (const auto& e : errors) ADD_FAILURE() << e.str();
  ASSERT_EQ(fns.size(), 16u);  // 5 + 5 + 6
  const char* const add[] = {
      "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
      "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
      "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
      "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
      "add_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)",
  };
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(fns[i].func.str(), add[i]);
    ASSERT_TRUE(fns[i].structured) << i;
    EXPECT_EQ(fns[i].structured->loops,
              (std::map<std::string, std::string>{{"CPU", "add_loop_cpu"}, {"CUDA", "add_loop_cuda"}}));
    // out= is a function only; every other variant has the entry's variants
    const std::vector<Variant> want =
        i == 2 ? std::vector<Variant>{Variant::Function} : std::vector<Variant>{Variant::Function, Variant::Method};
    EXPECT_EQ(fns[i].variants, want) << i;
  }
  // sub names add's loop: one loop, two families
  for (size_t i = 5; i < 10; ++i) {
    EXPECT_EQ(fns[i].structured->family, "binary_sub");
    EXPECT_EQ(fns[i].structured->loops, (std::map<std::string, std::string>{{"CPU", "add_loop_cpu"}}));
  }
  EXPECT_EQ(fns[12].func.str(), "eq.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_EQ(fns[15].func.str(), "eq.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_EQ(fns[15].structured->loops, (std::map<std::string, std::string>{{"CPU", "eq_loop_cpu"}}));

  // The entry must be the family's first schema, overload included.
  std::vector<NativeFunction> bad;
  const auto e2 = load("- func: mul(Tensor self, Tensor other) -> Tensor\n  structured: binary\n", &bad);
  ASSERT_EQ(e2.size(), 1u);
  EXPECT_EQ(e2[0].rule, "family-signature");
  EXPECT_NE(e2[0].message.find("mul.Tensor(Tensor self, Tensor other) -> Tensor"), std::string::npos) << e2[0].str();
}

// Every family's schemas parse, name their variants as the C++ family
// functions expect (kind by kind), and end the derived list in time.
TEST(OpsYaml, FamilyRowsAreWellFormed) {
  for (const Family& f : kFamilies) {
    const auto parse = [&](const char* pattern) {
      std::string text = pattern;
      text.replace(text.find("{}"), 2, "op");
      const auto parsed = tc::schema::parse_schema(text);
      EXPECT_TRUE(std::holds_alternative<tc::schema::FunctionSchema>(parsed)) << f.name << ": " << text;
      return std::holds_alternative<tc::schema::FunctionSchema>(parsed) ? std::get<tc::schema::FunctionSchema>(parsed)
                                                                        : tc::schema::FunctionSchema{};
    };
    EXPECT_EQ(parse(f.functional).kind(), tc::schema::SchemaKind::Functional) << f.name;
    int n = 0;
    for (const char* const* d = f.derived; *d; ++d) {
      parse(*d);
      ++n;
    }
    EXPECT_GE(n, 2) << f.name;  // an in-place and an out= variant at least
  }
}

TEST(OpsYaml, InvalidFilesNameFileLineAndRule) {
  for (const auto& c : kInvalidYaml) {
    std::vector<NativeFunction> fns;
    const auto errors = load(c.yaml, &fns);
    ASSERT_EQ(errors.size(), 1u) << c.yaml << (errors.empty() ? "" : "\n  first: " + errors[0].str());
    EXPECT_EQ(errors[0].rule, c.rule) << c.yaml << "\n  " << errors[0].str();
    EXPECT_EQ(errors[0].line, c.line) << c.yaml << "\n  " << errors[0].str();
    EXPECT_EQ(errors[0].file, "ops.yaml");
    EXPECT_EQ(errors[0].str().rfind("ops.yaml:" + std::to_string(c.line) + ": [" + c.rule + "] ", 0), 0u)
        << errors[0].str();
  }
}

TEST(OpsYaml, SchemaErrorsCarryTheParserRule) {
  std::vector<NativeFunction> fns;
  const auto errors = load("- func: add.out(Tensor self, *, Tensor out) -> Tensor\n", &fns);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].rule, "schema");
  EXPECT_EQ(errors[0].schema_rule, "out-annotation");
  EXPECT_NE(errors[0].message.find("out-annotation"), std::string::npos);
  EXPECT_TRUE(fns.empty());
}

TEST(OpsYaml, ReportsEveryErrorInFileOrder) {
  std::vector<NativeFunction> fns;
  const auto errors = load(
      "- func: a(Tensor self) -> Tensor\n"
      "  bogus: 1\n"
      "- func: b(Tensor self) -> Tensor\n"
      "- func: c(Tensor self) -> Tensor\n"
      "  variants: static\n"
      "  device_guard: maybe\n",
      &fns);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].rule, "unknown-key");
  EXPECT_EQ(errors[0].line, 1);
  EXPECT_EQ(errors[1].rule, "unknown-variant");
  EXPECT_EQ(errors[1].line, 4);
  EXPECT_EQ(errors[2].rule, "bad-bool");
  ASSERT_EQ(fns.size(), 1u);  // only the clean entry
  EXPECT_EQ(fns[0].func.name.name, "b");
}

TEST(OpsYaml, DuplicateOverloadAcrossFiles) {
  std::vector<NativeFunction> fns;
  EXPECT_TRUE(load_native_functions("- func: relu(Tensor self) -> Tensor\n", "a.yaml", {}, &fns).empty());
  const auto errors = load_native_functions(
      "- func: gelu(Tensor self) -> Tensor\n- func: relu(Tensor self) -> Tensor\n", "b.yaml", {}, &fns);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].rule, "duplicate-overload");
  EXPECT_EQ(errors[0].file, "b.yaml");
  EXPECT_EQ(errors[0].line, 2);
  EXPECT_NE(errors[0].message.find("a.yaml:1"), std::string::npos) << errors[0].message;
  EXPECT_EQ(fns.size(), 2u);
}

// A scratch kernel tree, removed at the end of the test.
class KernelSources : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    root_ = std::filesystem::temp_directory_path() /
            ("tc_test_schema_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(root_ / "cpu" / "nested");
    write("cpu/nested/add.cpp",
          "Tensor add_cpu (const Tensor& self,\n  const Tensor& other) { return mul_cpu_impl(self); }\n");
    write("cpu/mm.cu", "Tensor mm_kernel\n(const Tensor& a);\n");
    write("cpu/decl.h", "// fill_cpu( is mentioned in a comment, which the rule counts\n");
    write("cpu/notes.txt", "sub_cpu(x)\n");  // not a source file
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void write(const std::string& rel, const std::string& text) { std::ofstream(root_ / rel) << text; }
  std::filesystem::path root_;
};

TEST_F(KernelSources, UndefinedKernelIsReported) {
  LoadOptions opts;
  opts.kernel_source_dirs = {root_.string()};
  opts.generated_kernels = {"gen_wrapper"};
  const std::string yaml =
      "- func: add(Tensor self, Tensor other) -> Tensor\n"
      "  dispatch:\n"
      "    CPU: add_cpu\n"
      "    CUDA: mm_kernel\n"
      "- func: mul(Tensor self, Tensor other) -> Tensor\n"
      "  dispatch:\n"
      "    CPU, CUDA: mul_cpu\n"
      "- func: fill_(Tensor(a!) self, Scalar value) -> Tensor(a!)\n"
      "  dispatch:\n"
      "    CPU: fill_cpu\n"
      "- func: sub(Tensor self, Tensor other) -> Tensor\n"
      "  dispatch:\n"
      "    CPU: sub_cpu\n"
      "    CUDA: gen_wrapper\n";
  std::vector<NativeFunction> fns;
  const auto errors = load(yaml, &fns, opts);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].rule, "undefined-kernel");
  EXPECT_EQ(errors[0].line, 5);
  EXPECT_NE(errors[0].message.find("'mul_cpu'"), std::string::npos);  // mul_cpu_impl( does not count; reported once
  EXPECT_EQ(errors[1].rule, "undefined-kernel");
  EXPECT_EQ(errors[1].line, 11);
  EXPECT_NE(errors[1].message.find("'sub_cpu'"), std::string::npos);  // only .cpp/.cu/.h are scanned
  EXPECT_EQ(fns.size(), 2u);

  // No directories: the check is skipped.
  std::vector<NativeFunction> unchecked;
  EXPECT_TRUE(load(yaml, &unchecked).empty());
}

// A Scalar given as a tensor goes to the overload that takes a Tensor in its
// place: the one turning the most Scalars into Tensors, never for a Scalar
// with a number default (alpha), never across names or kinds.
TEST(CodegenModel, ScalarArgumentsFindTheirTensorOverload) {
  std::vector<NativeFunction> fns;
  const auto errors = load(R"(
- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
- func: add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor
- func: where.self(Tensor condition, Tensor self, Tensor other) -> Tensor
- func: where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor
- func: where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor
- func: scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor
- func: scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor
- func: sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor
)",
                           &fns);
  for (const auto& e : errors) ADD_FAILURE() << e.str();
  std::vector<tc::codegen::LoadError> model_errors;
  const tc::codegen::Model m = tc::codegen::build_model(fns, &model_errors);
  EXPECT_TRUE(model_errors.empty());
  auto find = [&](const std::string& q) -> const tc::codegen::OpInfo& {
    for (const auto& op : m.ops)
      if (op.qualified == q) return op;
    throw std::runtime_error("no op " + q);
  };
  const auto& add = find("add.Scalar");
  ASSERT_NE(add.tensor_overload, nullptr);
  EXPECT_EQ(add.tensor_overload->qualified, "add.Tensor");
  EXPECT_EQ(add.scalar_to_tensor, (std::vector<bool>{false, true, false}));  // alpha stays a Scalar
  const auto& where = find("where.Scalar");
  ASSERT_NE(where.tensor_overload, nullptr);
  EXPECT_EQ(where.tensor_overload->qualified, "where.self");
  EXPECT_EQ(where.scalar_to_tensor, (std::vector<bool>{false, true, true}));
  EXPECT_EQ(find("scatter.value").tensor_overload, nullptr);  // 'value' and 'src' are different arguments
  EXPECT_EQ(find("sub.Scalar").tensor_overload, nullptr);     // no sub.Tensor
  EXPECT_EQ(find("add.Tensor").tensor_overload, nullptr);
}

#ifdef TC_SOURCE_DIR
// The real schema loads without errors (kernels are checked by the generator's own run).
TEST(OpsYaml, RepositorySchemaLoads) {
  const std::filesystem::path path = std::filesystem::path(TC_SOURCE_DIR) / "schema" / "ops.yaml";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " does not exist yet";
  std::vector<NativeFunction> fns;
  const auto errors = tc::codegen::load_native_functions_file(path.string(), LoadOptions{}, &fns);
  for (const auto& e : errors) ADD_FAILURE() << e.str();
  EXPECT_FALSE(fns.empty());
  for (const auto& fn : fns) EXPECT_EQ(fn.func.str(), fn.func_text) << fn.file << ":" << fn.line;
}
#endif

}  // namespace
