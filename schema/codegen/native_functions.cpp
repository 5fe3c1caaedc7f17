// SPDX-License-Identifier: BSD-3-Clause
// ops.yaml -> NativeFunction, with the file-level rules of native_functions.h.
// Every check records an error and goes on, so one run reports everything.
#include "codegen/native_functions.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "dispatch/schema/parser.h"

namespace tc::codegen {
namespace {

const char* const kEntryKeys[] = {"func",         "variants", "dispatch",   "device_guard",
                                  "device_check", "tags",     "structured", "autocast"};
const char* const kBackendKeys[] = {"CPU", "CUDA", "PrivateUse1"};
constexpr const char* kExplicit = "CompositeExplicitAutograd";
constexpr const char* kImplicit = "CompositeImplicitAutograd";

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!is_ident_char(c)) return false;
  return true;
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// "a, b" -> {"a", "b"}; empty items are kept so that they can be reported.
std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> items;
  std::string item;
  std::istringstream in(s);
  while (std::getline(in, item, ',')) items.push_back(trim(item));
  if (!s.empty() && s.back() == ',') items.emplace_back();
  return items;
}

template <size_t N>
bool contains(const char* const (&list)[N], const std::string& s) {
  for (const char* item : list)
    if (s == item) return true;
  return false;
}

// Every identifier directly followed by `\s*(` in the kernel sources: the
// same names the regex \b<name>\s*\( finds, gathered in one pass per file.
std::set<std::string> defined_function_names(const std::vector<std::string>& dirs) {
  namespace fs = std::filesystem;
  std::set<std::string> names;
  for (const auto& dir : dirs) {
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const auto ext = it->path().extension().string();
      if (!it->is_regular_file(ec) || (ext != ".cpp" && ext != ".cu" && ext != ".h")) continue;
      std::ifstream file(it->path(), std::ios::binary);
      const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
      for (size_t i = 0; i < text.size();) {
        if (!is_ident_char(text[i])) {
          ++i;
          continue;
        }
        const size_t start = i;
        while (i < text.size() && is_ident_char(text[i])) ++i;
        size_t j = i;
        while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j]))) ++j;
        if (j < text.size() && text[j] == '(') names.insert(text.substr(start, i - start));
      }
    }
  }
  return names;
}

bool is_true_false(const std::string& s, bool* value) {
  if (s == "true" || s == "True") return *value = true, true;
  if (s == "false" || s == "False") return *value = false, true;
  return false;
}

}  // namespace

const char* autocast_policy_name(AutocastPolicy p) {
  switch (p) {
    case AutocastPolicy::LowerPrecision: return "lower_precision_fp";
    case AutocastPolicy::Fp32: return "fp32";
    case AutocastPolicy::Fp32SetOptDtype: return "fp32_set_opt_dtype";
    default: return "promote";
  }
}

std::string default_kernel_name(const schema::OperatorName& name, const std::string& backend) {
  std::string base = name.name;
  const bool inplace = !base.empty() && base.back() == '_';
  if (inplace) base.pop_back();
  std::string overload = name.overload;
  for (char& c : overload) c = char(std::tolower(static_cast<unsigned char>(c)));
  std::string lower_backend = backend;
  for (char& c : lower_backend) c = char(std::tolower(static_cast<unsigned char>(c)));
  return base + (overload.empty() ? "" : "_" + overload) + (inplace ? "_inplace" : "") + "_" + lower_backend;
}

const Family* find_family(const std::string& name) {
  for (const Family& f : kFamilies)
    if (name == f.name) return &f;
  return nullptr;
}

namespace {

std::string fill_family(const char* pattern, const std::string& name) {
  std::string s = pattern;
  const size_t at = s.find("{}");
  return at == std::string::npos ? s : s.replace(at, 2, name);
}

// The entries a structured entry derives (its family's other variants): out=
// ones get the function variant, the others the entry's variants.
std::vector<NativeFunction> derive_structured(const NativeFunction& fn) {
  const Family* family = find_family(fn.structured->family);
  std::vector<NativeFunction> derived;
  for (const char* const* p = family->derived; *p; ++p) {
    const char* pattern = *p;
    NativeFunction d = fn;
    d.func_text = fill_family(pattern, fn.func.name.name);
    d.func = std::get<schema::FunctionSchema>(schema::parse_schema(d.func_text));
    if (d.func.kind() == schema::SchemaKind::Out) d.variants = {Variant::Function};
    derived.push_back(std::move(d));
  }
  return derived;
}

class EntryLoader {
 public:
  EntryLoader(const std::string& file, std::vector<LoadError>* errors) : file_(file), errors_(errors) {}

  // Loads one `- func: ...` entry; returns false if it had any error.
  bool load(const YAML::Node& entry, NativeFunction* fn) {
    const size_t errors_before = errors_->size();
    fn->file = file_;
    fn->line = line_ = static_cast<int>(entry.Mark().line) + 1;
    fn->variants = {Variant::Function};
    if (!entry.IsMap()) {
      error("yaml", "an entry must be a mapping with a `func:` key");
      return false;
    }
    std::set<std::string> seen;
    for (const auto& kv : entry) {
      const std::string key = kv.first.Scalar();
      if (!seen.insert(key).second) error("yaml", "key '" + key + "' given twice");
      if (!contains(kEntryKeys, key)) error("unknown-key", "unknown key '" + key + "'");
    }
    const YAML::Node func = entry["func"];
    if (!func) {
      error("missing-func", "entry without `func:`");
    } else if (!func.IsScalar()) {
      error("yaml", "`func:` must be a string");
    } else {
      fn->line = line_ = static_cast<int>(func.Mark().line) + 1;
      load_func(func.Scalar(), fn);
    }
    if (const YAML::Node n = entry["variants"]) load_variants(n, fn);
    if (const YAML::Node n = entry["dispatch"]) load_dispatch(n, fn);
    if (const YAML::Node n = entry["device_guard"]) load_bool("device_guard", n, &fn->device_guard);
    if (const YAML::Node n = entry["device_check"]) load_bool("device_check", n, &fn->device_check);
    if (const YAML::Node n = entry["tags"]) load_tags(n, fn);
    if (const YAML::Node n = entry["structured"]) {
      const YAML::Node d = entry["dispatch"];
      load_structured(n, fn, d && d.IsScalar());
    }
    if (const YAML::Node n = entry["autocast"]) load_autocast(n, fn);
    return errors_->size() == errors_before;
  }

  bool func_ok() const { return func_ok_; }  // the `func:` string parsed

 private:
  const std::string& file_;
  std::vector<LoadError>* errors_;
  int line_ = 0;
  bool func_ok_ = false;

  void error(const std::string& rule, const std::string& message, const std::string& schema_rule = "") {
    errors_->push_back(LoadError{file_, line_, rule, message, schema_rule});
  }

  void load_func(const std::string& text, NativeFunction* fn) {
    fn->func_text = text;
    auto parsed = schema::parse_schema(text);
    if (const auto* e = std::get_if<schema::SchemaError>(&parsed)) {
      error("schema", e->rule + ": " + e->message + " (column " + std::to_string(e->column) + ") in '" + text + "'",
            e->rule);
      return;
    }
    fn->func = std::get<schema::FunctionSchema>(std::move(parsed));
    func_ok_ = true;
  }

  // "function, method" or [function, method].
  void load_variants(const YAML::Node& node, NativeFunction* fn) {
    std::vector<std::string> names;
    if (node.IsScalar()) {
      names = split_commas(node.Scalar());
    } else if (node.IsSequence()) {
      for (const auto& item : node) names.push_back(item.IsScalar() ? trim(item.Scalar()) : std::string());
    } else {
      return error("yaml", "`variants:` must be a string such as 'function, method'");
    }
    fn->variants.clear();
    for (const auto& name : names) {
      Variant v;
      if (name == "function")
        v = Variant::Function;
      else if (name == "method")
        v = Variant::Method;
      else {
        error("unknown-variant", "unknown variant '" + name + "' (expected function or method)");
        continue;
      }
      if (std::find(fn->variants.begin(), fn->variants.end(), v) == fn->variants.end()) fn->variants.push_back(v);
    }
    const bool has_method = std::find(fn->variants.begin(), fn->variants.end(), Variant::Method) != fn->variants.end();
    if (has_method && func_ok_) {
      const schema::Argument* self = fn->func.find_argument("self");
      if (!self || !self->type.is_tensor())
        error("method-without-self", "variant `method` needs a Tensor argument named 'self'");
    }
  }

  void load_dispatch(const YAML::Node& node, NativeFunction* fn) {
    if (node.IsScalar()) return load_default_dispatch(node.Scalar(), fn);
    if (!node.IsMap() || node.size() == 0)
      return error("yaml", "`dispatch:` must map keys to kernel names, e.g. `CPU: add_cpu`, or list backends");
    fn->dispatch_given = true;
    for (const auto& kv : node) {
      const std::string kernel = kv.second.IsScalar() ? trim(kv.second.Scalar()) : std::string();
      if (!is_identifier(kernel)) error("bad-kernel-name", "kernel name '" + kernel + "' is not a C++ identifier");
      for (const auto& key : split_commas(kv.first.Scalar())) {
        const bool known = contains(kBackendKeys, key) || key == kExplicit || key == kImplicit;
        if (!known) {
          error("unknown-dispatch-key", "unknown dispatch key '" + key +
                                            "' (expected CPU, CUDA, PrivateUse1, CompositeExplicitAutograd or "
                                            "CompositeImplicitAutograd)");
        } else if (!fn->dispatch.emplace(key, kernel).second) {
          error("duplicate-dispatch-key", "dispatch key '" + key + "' given twice");
        }
      }
    }
    const bool has_explicit = fn->dispatch.count(kExplicit) > 0, has_implicit = fn->dispatch.count(kImplicit) > 0;
    bool has_backend = false;
    for (const char* key : kBackendKeys) has_backend |= fn->dispatch.count(key) > 0;
    if (has_explicit && has_implicit)
      error("both-composite", "CompositeExplicitAutograd and CompositeImplicitAutograd on one op");
    else if (has_implicit && has_backend)
      error("composite-with-backend",
            "CompositeImplicitAutograd together with a backend key: a decomposition runs on every backend");
  }

  // `dispatch: CPU` (or `CPU, CUDA`): each backend's kernel by the default name.
  void load_default_dispatch(const std::string& text, NativeFunction* fn) {
    fn->dispatch_given = true;
    for (const auto& key : split_commas(text)) {
      if (!contains(kBackendKeys, key)) {
        error("unknown-dispatch-key",
              "`dispatch: <backends>` lists backend keys (CPU, CUDA, PrivateUse1); got '" + key + "'");
      } else if (func_ok_ && !fn->dispatch.emplace(key, default_kernel_name(fn->func.name, key)).second) {
        error("duplicate-dispatch-key", "dispatch key '" + key + "' given twice");
      }
    }
  }

  // dispatch_list: `dispatch:` was a list of backends (`CPU, CUDA`): each
  // gets the loop <name>_loop_<backend>, not the default kernel name.
  void load_structured(const YAML::Node& node, NativeFunction* fn, bool dispatch_list) {
    if (!node.IsScalar()) return error("yaml", "`structured:` must name a family");
    const Family* family = find_family(trim(node.Scalar()));
    if (!family) {
      std::string known;
      for (const Family& f : kFamilies) known += std::string(known.empty() ? "" : ", ") + f.name;
      return error("unknown-family", "unknown family '" + trim(node.Scalar()) + "' (expected one of: " + known + ")");
    }
    StructuredInfo info;
    info.family = family->name;
    if (!func_ok_) return;
    const std::string want =
        std::get<schema::FunctionSchema>(schema::parse_schema(fill_family(family->functional, fn->func.name.name)))
            .str();
    if (fn->func.str() != want)
      return error("family-signature",
                   "a `" + info.family + "` entry must be `" + want + "`, got `" + fn->func.str() + "`");
    if (fn->dispatch_given) {
      for (const auto& [key, loop] : fn->dispatch) {
        if (!contains(kBackendKeys, key))
          error("structured-dispatch",
                "a structured entry's `dispatch:` maps backends to loops; '" + key + "' is not a backend key");
        std::string lower_key = key;
        for (char& c : lower_key) c = char(std::tolower(static_cast<unsigned char>(c)));
        info.loops[key] = dispatch_list ? fn->func.name.name + "_loop_" + lower_key : loop;
      }
      fn->dispatch.clear();
    } else {
      info.loops["CPU"] = fn->func.name.name + "_loop_cpu";
      fn->dispatch_given = true;
    }
    fn->structured = std::move(info);
  }

  // {cpu: lower_precision_fp, cuda: fp32}
  void load_autocast(const YAML::Node& node, NativeFunction* fn) {
    if (!node.IsMap() || node.size() == 0)
      return error("autocast", "`autocast:` must map device types (cpu, cuda) to policies, e.g. `{cpu: fp32}`");
    for (const auto& kv : node) {
      const std::string device = kv.first.Scalar();
      const std::string name = kv.second.IsScalar() ? trim(kv.second.Scalar()) : std::string();
      if (device != "cpu" && device != "cuda") {
        error("autocast", "unknown autocast device type '" + device + "' (expected cpu or cuda)");
        continue;
      }
      AutocastPolicy p;
      if (name == "lower_precision_fp")
        p = AutocastPolicy::LowerPrecision;
      else if (name == "fp32")
        p = AutocastPolicy::Fp32;
      else if (name == "fp32_set_opt_dtype")
        p = AutocastPolicy::Fp32SetOptDtype;
      else if (name == "promote")
        p = AutocastPolicy::Promote;
      else {
        error("autocast", "unknown autocast policy '" + name +
                              "' (expected lower_precision_fp, fp32, fp32_set_opt_dtype or promote)");
        continue;
      }
      if (p == AutocastPolicy::Fp32SetOptDtype && func_ok_) {
        const schema::Argument* dt = fn->func.find_argument("dtype");
        if (!dt || dt->type.base != schema::BaseType::ScalarType || !dt->type.optional)
          error("autocast", "policy fp32_set_opt_dtype needs a `ScalarType? dtype` argument");
      }
      fn->autocast[device] = p;
    }
    if (func_ok_ && fn->func.kind() != schema::SchemaKind::Functional && !fn->structured)
      error("autocast", "only a functional op is autocast; put `autocast:` on its functional entry");
  }

  void load_bool(const char* key, const YAML::Node& node, bool* value) {
    if (!node.IsScalar() || !is_true_false(node.Scalar(), value))
      error("bad-bool", std::string("`") + key + ":` must be true or false");
  }

  // `tags: pointwise` or `tags: [core, pointwise]`.
  void load_tags(const YAML::Node& node, NativeFunction* fn) {
    std::vector<std::string> tags;
    if (node.IsScalar()) {
      tags = split_commas(node.Scalar());
    } else if (node.IsSequence()) {
      for (const auto& item : node) {
        if (!item.IsScalar()) return error("yaml", "`tags:` items must be strings");
        tags.push_back(trim(item.Scalar()));
      }
    } else {
      return error("yaml", "`tags:` must be a string or a list of strings");
    }
    for (const auto& tag : tags) {
      if (is_identifier(tag))
        fn->tags.push_back(tag);
      else
        error("bad-tag", "tag '" + tag + "' is not an identifier");
    }
  }
};

}  // namespace

bool NativeFunction::has_composite_implicit() const { return !dispatch_given || dispatch.count(kImplicit) > 0; }
bool NativeFunction::has_composite_explicit() const { return dispatch.count(kExplicit) > 0; }

std::string LoadError::str() const { return file + ":" + std::to_string(line) + ": [" + rule + "] " + message; }

std::vector<LoadError> load_native_functions(const std::string& yaml_text, const std::string& file_name,
                                             const LoadOptions& opts, std::vector<NativeFunction>* out) {
  std::vector<LoadError> errors;
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    errors.push_back(LoadError{file_name, e.mark.line + 1, "yaml", e.msg, ""});
    return errors;
  }
  if (root.IsNull()) return errors;  // an empty file declares nothing
  if (!root.IsSequence()) {
    errors.push_back(LoadError{file_name, static_cast<int>(root.Mark().line) + 1, "yaml",
                               "the file must be a list of `- func: ...` entries", ""});
    return errors;
  }

  std::set<std::string> known_kernels(opts.generated_kernels.begin(), opts.generated_kernels.end());
  if (!opts.kernel_source_dirs.empty()) {
    const auto defined = defined_function_names(opts.kernel_source_dirs);
    known_kernels.insert(defined.begin(), defined.end());
  }
  std::map<std::string, std::string> first_definition;  // qualified name -> "file:line"
  for (const auto& fn : *out)
    first_definition.emplace(fn.func.name.qualified(), fn.file + ":" + std::to_string(fn.line));
  std::vector<NativeFunction> loaded;

  // The checks that look across entries; `ok`: the entry itself loaded cleanly.
  auto finish = [&](NativeFunction fn, bool ok, bool func_ok) -> bool {
    if (func_ok) {
      const std::string qualified = fn.func.name.qualified();
      const auto [it, inserted] = first_definition.emplace(qualified, file_name + ":" + std::to_string(fn.line));
      if (!inserted) {
        ok = false;
        errors.push_back(LoadError{file_name, fn.line, "duplicate-overload",
                                   "'" + qualified + "' is already defined at " + it->second, ""});
      }
    }
    if (!opts.kernel_source_dirs.empty()) {
      std::set<std::string> reported;
      const auto& named = fn.structured ? fn.structured->loops : fn.dispatch;
      for (const auto& [key, kernel] : named) {
        if (known_kernels.count(kernel) || !reported.insert(kernel).second) continue;
        ok = false;
        errors.push_back(LoadError{file_name, fn.line, "undefined-kernel",
                                   "kernel '" + kernel + "' (" + key + ") is not defined in the kernel sources", ""});
      }
    }
    if (ok) loaded.push_back(std::move(fn));
    return ok;
  };
  for (const auto& entry : root) {
    NativeFunction fn;
    EntryLoader loader(file_name, &errors);
    bool ok = false;
    try {
      ok = loader.load(entry, &fn);
    } catch (const YAML::Exception& e) {  // a node of an unexpected kind deep inside the entry
      errors.push_back(LoadError{file_name, static_cast<int>(entry.Mark().line) + 1, "yaml", e.msg, ""});
      continue;
    }
    std::vector<NativeFunction> derived;
    if (ok && fn.structured) derived = derive_structured(fn);
    finish(std::move(fn), ok, loader.func_ok());
    // A derived variant's loops were checked with its entry.
    for (NativeFunction& d : derived) {
      const StructuredInfo info = *d.structured;
      d.structured->loops.clear();
      if (finish(std::move(d), true, true)) loaded.back().structured = info;
    }
  }
  for (auto& fn : loaded) out->push_back(std::move(fn));
  return errors;
}

std::vector<LoadError> load_native_functions_file(const std::string& path, const LoadOptions& opts,
                                                  std::vector<NativeFunction>* out) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return {LoadError{path, 0, "io", "cannot read the file", ""}};
  std::ostringstream text;
  text << file.rdbuf();
  return load_native_functions(text.str(), path, opts, out);
}

}  // namespace tc::codegen
