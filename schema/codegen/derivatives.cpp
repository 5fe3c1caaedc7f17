// SPDX-License-Identifier: BSD-3-Clause
#include "codegen/derivatives.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <regex>
#include <set>

namespace tc::codegen {

const DerivativeInfo* Derivatives::find(const std::string& qualified) const {
  for (const auto& e : entries)
    if (e.name == qualified) return &e;
  return nullptr;
}

namespace {

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

std::vector<std::string> split_names(const std::string& key) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t comma = key.find(',', start);
    out.push_back(trim(key.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

bool parse_bool(const YAML::Node& n, bool* v) {
  if (!n.IsScalar()) return false;
  const std::string s = n.Scalar();
  if (s == "True" || s == "true") return *v = true, true;
  if (s == "False" || s == "false") return *v = false, true;
  return false;
}

}  // namespace

std::vector<LoadError> load_derivatives(const std::string& yaml_text, const std::string& file_name, const Model& model,
                                        Derivatives* out) {
  std::vector<LoadError> errors;
  auto fail = [&](int line, const std::string& rule, const std::string& msg) {
    errors.push_back(LoadError{file_name, line, rule, msg, ""});
  };
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    fail(e.mark.line + 1, "yaml", e.msg);
    return errors;
  }
  if (!root.IsSequence()) {
    if (!root.IsNull()) fail(1, "yaml", "the file must be a list of entries");
    return errors;
  }
  std::set<std::string> seen;
  for (const auto& entry : root) {
    const int line = int(entry.Mark().line) + 1;
    if (!entry.IsMap()) {
      fail(line, "yaml", "an entry must be a mapping");
      continue;
    }
    DerivativeInfo info;
    info.file = file_name;
    info.line = line;
    if (!entry["name"] || !entry["name"].IsScalar()) {
      fail(line, "missing-name", "an entry needs `name: op.overload`");
      continue;
    }
    info.name = entry["name"].Scalar();
    for (const OpInfo& op : model.ops)
      if (op.qualified == info.name) info.op = &op;
    if (!info.op) {
      fail(line, "unknown-op", "'" + info.name + "' is not an op of ops.yaml");
      continue;
    }
    if (!seen.insert(info.name).second) {
      fail(line, "duplicate-entry", "'" + info.name + "' has two entries");
      continue;
    }
    const FunctionSchema& s = info.op->nf->func;
    if (s.kind() == SchemaKind::Out) {
      fail(line, "out-variant", "'" + info.name + "' is an out= variant; out= ops are not differentiable");
      continue;
    }
    const size_t n_out = s.returns.size();
    bool ok = true;
    std::set<std::string> given;
    bool uses_grad = false, uses_grads = false;
    for (const auto& kv : entry) {
      const std::string key = kv.first.Scalar();
      if (key == "name") continue;
      if (key == "output_differentiability") {
        if (!kv.second.IsSequence() || kv.second.size() != n_out) {
          fail(line, "bad-output-differentiability",
               "output_differentiability of '" + info.name + "' must list one True/False per output (" +
                   std::to_string(n_out) + ")");
          ok = false;
          continue;
        }
        for (const auto& b : kv.second) {
          bool v = false;
          if (!parse_bool(b, &v)) {
            fail(line, "bad-output-differentiability", "output_differentiability entries must be True or False");
            ok = false;
          }
          info.output_differentiability.push_back(v);
        }
        continue;
      }
      if (key == "non_differentiable") {
        if (!parse_bool(kv.second, &info.non_differentiable)) {
          fail(line, "yaml", "non_differentiable must be True or False");
          ok = false;
        }
        continue;
      }
      {
        // "a, b: formula" or "not_implemented: [a, b]": both name inputs.
        const bool not_impl = key == "not_implemented";
        std::vector<std::string> names;
        if (!not_impl) {
          names = split_names(key);
        } else if (kv.second.IsSequence()) {
          for (const auto& n : kv.second) names.push_back(n.Scalar());
        } else {
          fail(line, "yaml", "not_implemented must be a list of input names");
          ok = false;
          continue;
        }
        for (const std::string& n : names) {
          const Argument* a = s.find_argument(n);
          if (!a) {
            fail(line, "unknown-input", "'" + n + "' is not an argument of " + s.str());
            ok = false;
          } else if (!a->type.is_tensor()) {
            fail(line, "non-differentiable-input",
                 "'" + n + "' of " + info.name + " is a " + a->type.str() + ", which has no gradient");
            ok = false;
          } else if (!given.insert(n).second) {
            fail(line, "duplicate-input", "'" + n + "' of " + info.name + " has two formulas");
            ok = false;
          }
        }
        if (not_impl) {
          info.not_implemented = names;
          continue;
        }
        if (!kv.second.IsScalar() || trim(kv.second.Scalar()).empty()) {
          fail(line, "empty-formula", "the formula for '" + key + "' of " + info.name + " is empty");
          ok = false;
          continue;
        }
        const std::string f = kv.second.Scalar();
        static const std::regex grad_re(R"(\bgrad\b)"), grads_re(R"(\bgrads\s*\[\s*(\d+)\s*\])");
        bool g1 = std::regex_search(f, grad_re);
        bool g2 = std::regex_search(f, grads_re);
        for (const Return& r : s.returns)
          if (r.name && std::regex_search(f, std::regex("\\bgrad_" + *r.name + "\\b"))) g2 = true;
        uses_grad |= g1;
        uses_grads |= g2;
        for (std::sregex_iterator it(f.begin(), f.end(), grads_re), end; it != end; ++it)
          if (std::stoul((*it)[1].str()) >= n_out) {
            fail(line, "grad-out-of-range",
                 "'" + (*it)[0].str() + "' in " + info.name + ", which has " + std::to_string(n_out) + " output(s)");
            ok = false;
          }
        info.formulas.push_back(DerivativeFormula{names, f});
      }
    }
    if (uses_grad && uses_grads) {
      fail(line, "mixed-grad", "the formulas of " + info.name + " use both `grad` and `grads[i]`/`grad_<name>`");
      ok = false;
    }
    if (ok) out->entries.push_back(std::move(info));
  }
  return errors;
}

}  // namespace tc::codegen
