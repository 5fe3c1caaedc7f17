// SPDX-License-Identifier: BSD-3-Clause
// Built against the installed tree as a separate project, through
// find_package(tensorc) + tensorc::cpp and through pkg-config, with
// -Wall -Wextra -Wpedantic -Werror: the header-only C++ wrapper works from an
// install (ops, operators, autograd, a custom function, errors).
#include <tensorc.hpp>

#include <cstdio>
#include <stdexcept>

namespace {
struct Twice : tensorc::autograd::Function<Twice> {
  static tensorc::Tensor forward(tensorc::AutogradContext*, const tensorc::Tensor& x) { return x * 2; }
  static tensorc::variable_list backward(tensorc::AutogradContext*, tensorc::variable_list g) { return {g[0] * 2}; }
};
}  // namespace

int main() {
  try {
    tensorc::Tensor a = tensorc::tensor({1.0f, 2.0f, 3.0f}), b = tensorc::full({3}, 10.0f);
    tensorc::Tensor c = a + b * 2;
    if (c.to_vector<float>() != std::vector<float>{21, 22, 23}) throw std::runtime_error("wrong sum: " + c.to_string());
    tensorc::Tensor w = tensorc::ones({3}).requires_grad_();
    Twice::apply(w * a).sum().backward();
    if (w.grad().to_vector<float>() != std::vector<float>{2, 4, 6})
      throw std::runtime_error("wrong gradient: " + w.grad().to_string());
    bool threw = false;
    try {
      (void)a.view({2});
    } catch (const tensorc::Error& e) {
      threw = e.code() != tensorc::Status::Ok;
    }
    if (!threw) throw std::runtime_error("no tensorc::Error for a bad view");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "failed: %s\n", e.what());
    return 1;
  }
  std::printf("installed tensorc %s works from C++\n", tensorc::version());
  return 0;
}
