// SPDX-License-Identifier: BSD-3-Clause
// tc_codegen: reads schema/ops.yaml and writes the op surface into the build
// tree. Files are rewritten only when their content changes, so an edit to
// one op does not rebuild everything.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "codegen/derivatives.h"
#include "codegen/gen_common.h"

namespace fs = std::filesystem;
using namespace tc::codegen;

namespace {

bool write_if_changed(const fs::path& path, const std::string& content) {
  fs::create_directories(path.parent_path());
  std::ifstream in(path, std::ios::binary);
  if (in) {
    std::stringstream ss;
    ss << in.rdbuf();
    if (ss.str() == content) return true;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  return bool(out);
}

int usage() {
  std::cerr << "usage: tc_codegen --ops schema/ops.yaml [--derivatives schema/derivatives.yaml] --out DIR [--kernels "
               "DIR]... [--shards N]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string ops_path, out_dir, derivatives_path;
  int shards = kDefaultShards;
  LoadOptions opts;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) return usage();
    if (a == "--ops")
      ops_path = argv[++i];
    else if (a == "--out")
      out_dir = argv[++i];
    else if (a == "--derivatives")
      derivatives_path = argv[++i];
    else if (a == "--kernels")
      opts.kernel_source_dirs.push_back(argv[++i]);
    else if (a == "--shards")
      shards = std::max(1, std::atoi(argv[++i]));
    else
      return usage();
  }
  if (ops_path.empty() || out_dir.empty()) return usage();
  std::ifstream in(ops_path);
  if (!in) {
    std::cerr << ops_path << ": cannot open\n";
    return 1;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string file_name = fs::path(ops_path).filename().string();
  std::string shown = "schema/" + file_name;
  std::vector<NativeFunction> nfs;
  std::vector<LoadError> errors = load_native_functions(ss.str(), shown, opts, &nfs);
  Model model;
  if (errors.empty()) model = build_model(nfs, &errors, shards);
  Derivatives derivatives;
  if (errors.empty() && !derivatives_path.empty()) {
    std::ifstream din(derivatives_path);
    if (!din) {
      std::cerr << derivatives_path << ": cannot open\n";
      return 1;
    }
    std::stringstream ds;
    ds << din.rdbuf();
    auto derrors =
        load_derivatives(ds.str(), "schema/" + fs::path(derivatives_path).filename().string(), model, &derivatives);
    errors.insert(errors.end(), derrors.begin(), derrors.end());
  }
  if (!errors.empty()) {
    for (const LoadError& e : errors) std::cerr << e.str() << "\n";
    std::cerr << "tc_codegen: " << errors.size() << " error(s)\n";
    return 1;
  }
  fs::path out(out_dir);
  const auto autograd = autograd_kernels(model, derivatives);
  bool ok = true;
  for (int k = 0; k < shards && ok; ++k) {
    const std::string n = "_" + std::to_string(k) + ".cpp";
    ok = write_if_changed(out / ("capi_ops" + n), gen_c_entries(model, k)) &&
         write_if_changed(out / ("ops" + n), gen_cpp_ops_source(model, k)) &&
         write_if_changed(out / ("register_ops" + n), gen_registration_shard(model, k, shown, autograd)) &&
         write_if_changed(out / ("autograd" + n), gen_autograd_source(model, derivatives, k));
  }
  ok = ok && write_if_changed(out / "include/tensorc_ops.h", gen_c_header(model)) &&
       write_if_changed(out / "tensorc_gen/ops.h", gen_cpp_ops_header(model)) &&
       write_if_changed(out / "tensorc_gen/tensor_methods.h", gen_tensor_methods_header(model)) &&
       write_if_changed(out / "tensorc_gen/native_functions.h", gen_native_header(model)) &&
       write_if_changed(out / "register_ops.cpp", gen_registration(shards)) &&
       write_if_changed(out / "tensorc_gen/autograd.h", gen_autograd_header(model, derivatives)) &&
       write_if_changed(out / "ops.json", gen_listing(model)) &&
       write_if_changed(out / "include/tensorc_ops.hpp", gen_cpp_binding(model)) &&
       write_if_changed(out / "rust/sys_ops.rs", gen_rust_sys(model)) &&
       write_if_changed(out / "rust/ops.rs", gen_rust_ops(model));
  if (!ok) {
    std::cerr << "tc_codegen: failed to write into " << out_dir << "\n";
    return 1;
  }
  std::cout << "tc_codegen: " << model.ops.size() << " ops\n";
  return 0;
}
