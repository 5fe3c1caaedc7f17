// SPDX-License-Identifier: BSD-3-Clause
#include "autograd/saved_variable.h"

#include <sstream>

#include "autograd/variable.h"

namespace tc::autograd {

SavedVariable::SavedVariable(const Tensor& t, bool is_output) {
  if (!t.defined()) return;
  was_defined_ = true;
  is_output_ = is_output;
  requires_grad_ = t.requires_grad();
  saved_version_ = t.version();
  output_nr_ = output_nr(t);
  sizes_ = DimVector(t.sizes());
  dtype_ = t.dtype();
  data_ = is_output ? detach(t) : t;
}

void SavedVariable::reset() {
  data_ = Tensor();
  released_ = true;
}

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& owner) const {
  if (!was_defined_) return Tensor();
  if (released_) throw_released(*owner);
  if (data_.version() != saved_version_) {
    std::ostringstream shape;
    shape << "[";
    for (size_t i = 0; i < sizes_.size(); ++i) shape << (i ? ", " : "") << sizes_[i];
    shape << "]";
    TC_FAIL(Runtime,
            "one of the variables needed for gradient computation has been modified by an inplace "
            "operation: [",
            dtype_, " ", shape.str(), "], which is ", is_output_ ? "output " : "an input of ",
            is_output_ ? std::to_string(output_nr_) + " of " : "", owner->name(), ", is at version ", data_.version(),
            "; expected version ", saved_version_, " instead.");
  }
  if (!is_output_ || !requires_grad_) return data_;
  // An output: a fresh alias whose history is the owner node, so formulas
  // that use the result are differentiable again (create_graph).
  Tensor t = detach(data_);
  AutogradMeta& m = materialize_meta(t);
  m.grad_fn_ = owner;
  m.output_nr_ = output_nr_;
  t.impl()->add_key(DispatchKey::Autograd);
  return t;
}

}  // namespace tc::autograd
