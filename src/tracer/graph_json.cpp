// SPDX-License-Identifier: BSD-3-Clause
// The graph's file format (JSON, nlohmann::json), version 1:
//
//   {"format": "tensorc-graph", "version": 1,
//    "values":    [{"dtype": "float32", "shape": [8, 64], "device": "cpu"}, ...],   by id
//    "inputs":    [0, ...],                                  value ids, in call order
//    "constants": [{"value": 1, "kind": "parameter" | "constant",
//                   "data": "<base64 of the contiguous little-endian bytes>"}, ...],
//    "nodes":     [{"op": "aten::linear", "args": [ARG, ...], "outputs": [3, ...]}, ...],
//    "outputs":   [4, ...],
//    "warnings":  ["...", ...]}
//
// ARG, one per schema argument: {"value": id}, {"values": [id, ...]},
// {"optional_values": [id or null, ...]}, {"none": null}, {"int": n},
// {"float": x}, {"bool": b}, {"str": s}, {"ints": [...]}, {"floats": [...]},
// {"bools": [...]}, {"scalar": {"int"|"float"|"bool": x}}, {"dtype": "float32"},
// {"device": "cpu"}. Floats that JSON cannot spell are "inf", "-inf", "nan".
// An output id of -1 is an output the traced call did not compute.
//
// The loader trusts nothing: a malformed file names its line, a wrong field
// names its path (nodes[3].args[1]), nesting deeper than 32 is refused before
// parsing, and every allocation is bounded by the file's own size (a
// constant's bytes are in the file; shapes are checked against them).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "autograd/variable.h"
#include "core/error.h"
#include "core/shape.h"
#include "dispatch/dispatcher.h"
#include "tensorc_gen/ops.h"
#include "tracer/graph.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the graph format stores little-endian bytes");

namespace tc::tracer {
namespace {

using json = nlohmann::json;
constexpr int kFormatVersion = 1;
constexpr int kMaxDepth = 32;
constexpr const char* kWhere = "graph load";

// ---- base64 (RFC 4648, with padding) ----
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(const unsigned char* p, size_t n) {
  std::string out;
  out.reserve((n + 2) / 3 * 4);
  for (size_t i = 0; i < n; i += 3) {
    const uint32_t b = uint32_t(p[i]) << 16 | (i + 1 < n ? uint32_t(p[i + 1]) << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
    out += kAlphabet[b >> 18 & 63];
    out += kAlphabet[b >> 12 & 63];
    out += i + 1 < n ? kAlphabet[b >> 6 & 63] : '=';
    out += i + 2 < n ? kAlphabet[b & 63] : '=';
  }
  return out;
}

bool base64_decode(const std::string& s, std::vector<unsigned char>* out) {
  if (s.size() % 4) return false;
  auto digit = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
  };
  out->clear();
  out->reserve(s.size() / 4 * 3);
  for (size_t i = 0; i < s.size(); i += 4) {
    const bool last = i + 4 == s.size();
    const int pad = last ? (s[i + 3] == '=') + (s[i + 2] == '=') : 0;
    if (pad == 1 && s[i + 2] == '=') return false;
    uint32_t b = 0;
    for (int k = 0; k < 4; ++k) {
      const int d = k >= 4 - pad ? 0 : digit(s[i + size_t(k)]);
      if (d < 0) return false;
      b = b << 6 | uint32_t(d);
    }
    out->push_back(uint8_t(b >> 16));
    if (pad < 2) out->push_back(uint8_t(b >> 8));
    if (pad < 1) out->push_back(uint8_t(b));
  }
  return true;
}

// ---- writing ----
json float_json(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  return d;
}

json arg_json(const NodeArg& a) {
  using K = NodeArg::Kind;
  if (a.kind == K::Value) return {{"value", a.values[0]}};
  if (a.kind == K::ValueList) return {{"values", a.values}};
  if (a.kind == K::OptionalValueList) {
    json ids = json::array();
    for (int64_t id : a.values) ids.push_back(id < 0 ? json(nullptr) : json(id));
    return {{"optional_values", ids}};
  }
  const IValue& v = a.constant;
  switch (v.tag()) {
    case IValue::Tag::None: return {{"none", nullptr}};
    case IValue::Tag::Int: return {{"int", v.to_int()}};
    case IValue::Tag::Double: return {{"float", float_json(v.to_double())}};
    case IValue::Tag::Bool: return {{"bool", v.to_bool()}};
    case IValue::Tag::String: return {{"str", std::string(v.to_string_view())}};
    case IValue::Tag::IntList: return {{"ints", v.to_int_list().vec()}};
    case IValue::Tag::DoubleList: {
      json xs = json::array();
      for (double d : v.to_double_list()) xs.push_back(float_json(d));
      return {{"floats", xs}};
    }
    case IValue::Tag::BoolList: return {{"bools", v.to_bool_list()}};
    case IValue::Tag::ScalarType: return {{"dtype", dtype_name(v.to_scalar_type())}};
    case IValue::Tag::Device: return {{"device", v.to_device().str()}};
    case IValue::Tag::Scalar: {
      const Scalar s = v.to_scalar();
      if (s.is_bool()) return {{"scalar", {{"bool", s.to<bool>()}}}};
      if (s.is_integral()) return {{"scalar", {{"int", s.to<int64_t>()}}}};
      return {{"scalar", {{"float", float_json(s.to<double>())}}}};
    }
    default: TC_FAIL(Runtime, "graph save: an argument of type ", v.tag_name(), " cannot be saved");
  }
}

// ---- reading ----
// Nesting depth, counted outside strings; refused above kMaxDepth before the
// parser sees the text.
void check_depth(std::string_view text) {
  int depth = 0, line = 1;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (c == '\n') ++line;
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '[' || c == '{') {
      TC_CHECK_ARG(++depth <= kMaxDepth, kWhere, ": line ", line, ": nesting deeper than ", kMaxDepth, " levels");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

[[noreturn]] void bad(const std::string& field, const std::string& what) {
  TC_FAIL(InvalidArgument, kWhere, ": ", field, ": ", what);
}

const json& member(const json& j, const char* key, const std::string& field) {
  if (!j.is_object()) bad(field, "expected an object");
  auto it = j.find(key);
  if (it == j.end()) bad(field, std::string("missing \"") + key + "\"");
  return *it;
}

int64_t as_int(const json& j, const std::string& field) {
  if (!j.is_number_integer()) bad(field, "expected an integer");
  if (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t(INT64_MAX)) bad(field, "an integer beyond int64");
  return j.get<int64_t>();
}

double as_float(const json& j, const std::string& field) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (s == "inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
    if (s == "nan") return NAN;
  }
  bad(field, "expected a number (or \"inf\", \"-inf\", \"nan\")");
}

const std::string& as_string(const json& j, const std::string& field) {
  if (!j.is_string()) bad(field, "expected a string");
  return j.get_ref<const std::string&>();
}

const json& as_array(const json& j, const std::string& field) {
  if (!j.is_array()) bad(field, "expected an array");
  return j;
}

std::string at(const std::string& field, size_t i) { return field + "[" + std::to_string(i) + "]"; }

ScalarType parse_dtype(const json& j, const std::string& field) {
  const std::string& name = as_string(j, field);
  for (int code = 0; is_valid_dtype(code); ++code)
    if (name == dtype_name(ScalarType(code))) return ScalarType(code);
  bad(field, "unknown dtype \"" + name + "\"");
}

Device parse_device(const json& j, const std::string& field) {
  const std::string& s = as_string(j, field);
  if (s == "cpu") return Device(DeviceType::CPU);
  for (DeviceType t : {DeviceType::CUDA, DeviceType::PrivateUse1}) {
    if (s == device_type_name(t)) return Device(t);  // the current device of that type
    const std::string prefix = std::string(device_type_name(t)) + ":";
    if (s.rfind(prefix, 0) == 0 && s.size() > prefix.size() && s.size() - prefix.size() <= 4 &&
        s.find_first_not_of("0123456789", prefix.size()) == std::string::npos)
      return Device(t, std::stoi(s.substr(prefix.size())));
  }
  bad(field, "unknown device \"" + s + "\" (expected \"cpu\", \"cuda:N\" or \"privateuseone:N\")");
}

std::vector<int64_t> parse_ids(const json& j, const std::string& field, bool allow_null) {
  std::vector<int64_t> ids;
  for (size_t i = 0; i < as_array(j, field).size(); ++i)
    ids.push_back(allow_null && j[i].is_null() ? -1 : as_int(j[i], at(field, i)));
  return ids;
}

NodeArg parse_arg(const json& j, const std::string& field) {
  if (!j.is_object() || j.size() != 1) bad(field, "expected an object with one member");
  const std::string& key = j.begin().key();
  const json& v = j.begin().value();
  NodeArg a;
  using K = NodeArg::Kind;
  if (key == "value") {
    a.kind = K::Value;
    a.values.push_back(as_int(v, field + ".value"));
  } else if (key == "values") {
    a.kind = K::ValueList;
    a.values = parse_ids(v, field + ".values", false);
  } else if (key == "optional_values") {
    a.kind = K::OptionalValueList;
    a.values = parse_ids(v, field + ".optional_values", true);
  } else if (key == "none") {
    a.constant = IValue();
  } else if (key == "int") {
    a.constant = IValue(as_int(v, field + ".int"));
  } else if (key == "float") {
    a.constant = IValue(as_float(v, field + ".float"));
  } else if (key == "bool") {
    if (!v.is_boolean()) bad(field + ".bool", "expected true or false");
    a.constant = IValue(v.get<bool>());
  } else if (key == "str") {
    a.constant = IValue(as_string(v, field + ".str"));
  } else if (key == "ints") {
    a.constant = IValue(parse_ids(v, field + ".ints", false));
  } else if (key == "floats") {
    std::vector<double> xs;
    for (size_t i = 0; i < as_array(v, field + ".floats").size(); ++i)
      xs.push_back(as_float(v[i], at(field + ".floats", i)));
    a.constant = IValue(std::move(xs));
  } else if (key == "bools") {
    std::vector<bool> xs;
    for (size_t i = 0; i < as_array(v, field + ".bools").size(); ++i) {
      if (!v[i].is_boolean()) bad(at(field + ".bools", i), "expected true or false");
      xs.push_back(v[i].get<bool>());
    }
    a.constant = IValue(std::move(xs));
  } else if (key == "dtype") {
    a.constant = IValue(parse_dtype(v, field + ".dtype"));
  } else if (key == "device") {
    a.constant = IValue(parse_device(v, field + ".device"));
  } else if (key == "scalar") {
    const std::string f = field + ".scalar";
    if (!v.is_object() || v.size() != 1) bad(f, "expected {\"int\"|\"float\"|\"bool\": x}");
    const std::string& kind = v.begin().key();
    if (kind == "int")
      a.constant = IValue(Scalar(as_int(v.begin().value(), f + ".int")));
    else if (kind == "float")
      a.constant = IValue(Scalar(as_float(v.begin().value(), f + ".float")));
    else if (kind == "bool" && v.begin().value().is_boolean())
      a.constant = IValue(Scalar(v.begin().value().get<bool>()));
    else
      bad(f, "expected {\"int\"|\"float\"|\"bool\": x}");
  } else {
    bad(field, "unknown argument kind \"" + key + "\"");
  }
  return a;
}

const OperatorEntry& parse_op(const json& j, const std::string& field) {
  std::string name = as_string(j, field);
  if (name.rfind("aten::", 0) == 0) name = name.substr(6);
  const OperatorEntry* op = Dispatcher::singleton().find(name);
  if (!op) bad(field, "no operator \"" + as_string(j, field) + "\" is defined");
  return *op;
}

int64_t numel_of(const std::vector<int64_t>& sizes, const std::string& field) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    if (s < 0) bad(field, "a negative size");
    if (__builtin_mul_overflow(n, s, &n)) bad(field, "the shape's element count overflows int64");
  }
  return n;
}

Tensor parse_constant_data(const json& j, const ValueInfo& info, const std::string& field) {
  std::vector<unsigned char> bytes;
  if (!base64_decode(as_string(j, field), &bytes)) bad(field, "is not base64");
  const int64_t numel = numel_of(info.sizes, field);
  uint64_t expected = 0;
  if (__builtin_mul_overflow(uint64_t(numel), uint64_t(element_size(info.dtype)), &expected))
    bad(field, "the value's size in bytes overflows");
  if (expected != bytes.size())
    bad(field, "holds " + std::to_string(bytes.size()) + " bytes; the value's dtype and shape need " +
                   std::to_string(expected));
  Tensor t = empty_tensor(IntArrayRef(info.sizes), info.dtype, Device(DeviceType::CPU));
  if (!bytes.empty()) std::memcpy(t.data_ptr(), bytes.data(), bytes.size());
  return info.device.is_cpu() ? t : tc::_to_copy(t, std::nullopt, info.device);
}

}  // namespace

std::string Graph::to_json() const {
  json j;
  j["format"] = "tensorc-graph";
  j["version"] = kFormatVersion;
  j["values"] = json::array();
  for (const ValueInfo& v : values)
    j["values"].push_back({{"dtype", dtype_name(v.dtype)}, {"shape", v.sizes}, {"device", v.device.str()}});
  j["inputs"] = inputs;
  j["constants"] = json::array();
  for (const Captured& c : captured) {
    const Tensor host =
        tc::contiguous(c.data.device().is_cpu() ? c.data : tc::_to_copy(c.data, std::nullopt, Device(DeviceType::CPU)));
    const auto* p = static_cast<const unsigned char*>(host.data_ptr());
    j["constants"].push_back({{"value", c.value},
                              {"kind", c.parameter ? "parameter" : "constant"},
                              {"data", base64_encode(p, size_t(host.numel()) * element_size(host.dtype()))}});
  }
  j["nodes"] = json::array();
  for (const Node& n : nodes) {
    json args = json::array();
    for (const NodeArg& a : n.args) args.push_back(arg_json(a));
    j["nodes"].push_back({{"op", printed_op_name(*n.op)}, {"args", args}, {"outputs", n.outputs}});
  }
  j["outputs"] = outputs;
  j["warnings"] = warnings;
  return j.dump(1);
}

Graph Graph::from_json(std::string_view text) {
  check_depth(text);
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    const size_t byte = std::min(size_t(e.byte), text.size());
    const auto line = 1 + std::count(text.begin(), text.begin() + std::ptrdiff_t(byte), '\n');
    TC_FAIL(InvalidArgument, kWhere, ": line ", line, ": not JSON (", e.what(), ")");
  }
  if (as_string(member(j, "format", "(top level)"), "format") != "tensorc-graph")
    bad("format", "expected \"tensorc-graph\"");
  const int64_t version = as_int(member(j, "version", "(top level)"), "version");
  if (version != kFormatVersion)
    bad("version", "this library reads version " + std::to_string(kFormatVersion) + ", the file is version " +
                       std::to_string(version));
  Graph g;
  const json& values = as_array(member(j, "values", "(top level)"), "values");
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string f = at("values", i);
    ValueInfo v;
    v.dtype = parse_dtype(member(values[i], "dtype", f), f + ".dtype");
    v.sizes = parse_ids(member(values[i], "shape", f), f + ".shape", false);
    numel_of(v.sizes, f + ".shape");
    v.device = parse_device(member(values[i], "device", f), f + ".device");
    g.values.push_back(std::move(v));
  }
  auto value_info = [&](int64_t id, const std::string& f) -> const ValueInfo& {
    if (id < 0 || id >= int64_t(g.values.size()))
      bad(f, "value " + std::to_string(id) + " is out of range (the graph has " + std::to_string(g.values.size()) +
                 " values)");
    return g.values[size_t(id)];
  };
  g.inputs = parse_ids(member(j, "inputs", "(top level)"), "inputs", false);
  const json& constants = as_array(member(j, "constants", "(top level)"), "constants");
  for (size_t i = 0; i < constants.size(); ++i) {
    const std::string f = at("constants", i);
    Captured c;
    c.value = as_int(member(constants[i], "value", f), f + ".value");
    const std::string& kind = as_string(member(constants[i], "kind", f), f + ".kind");
    if (kind != "parameter" && kind != "constant") bad(f + ".kind", "expected \"parameter\" or \"constant\"");
    c.parameter = kind == "parameter";
    c.data = parse_constant_data(member(constants[i], "data", f), value_info(c.value, f + ".value"), f + ".data");
    if (c.parameter && is_floating(c.data.dtype())) autograd::set_requires_grad(c.data, true);
    g.captured.push_back(std::move(c));
  }
  const json& nodes = as_array(member(j, "nodes", "(top level)"), "nodes");
  for (size_t k = 0; k < nodes.size(); ++k) {
    const std::string f = at("nodes", k);
    Node n;
    n.op = &parse_op(member(nodes[k], "op", f), f + ".op");
    const json& args = as_array(member(nodes[k], "args", f), f + ".args");
    for (size_t i = 0; i < args.size(); ++i) n.args.push_back(parse_arg(args[i], at(f + ".args", i)));
    n.outputs = parse_ids(member(nodes[k], "outputs", f), f + ".outputs", false);
    g.nodes.push_back(std::move(n));
  }
  g.outputs = parse_ids(member(j, "outputs", "(top level)"), "outputs", false);
  if (j.contains("warnings")) {
    const json& w = as_array(j["warnings"], "warnings");
    for (size_t i = 0; i < w.size(); ++i) g.warnings.push_back(as_string(w[i], at("warnings", i)));
  }
  g.validate(kWhere);
  g.finish();
  return g;
}

}  // namespace tc::tracer
