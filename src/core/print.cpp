// SPDX-License-Identifier: BSD-3-Clause
// Printing in PyTorch's repr format (torch/_tensor_str.py with the default
// print options: precision 4, threshold 1000, edgeitems 3, linewidth 80).
// The rules below mirror _Formatter, _vector_str, _tensor_str_with_formatter
// and _add_suffixes, so strings compare equal to what PyTorch prints.
#include <atomic>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace tc {

// Backends whose memory the host cannot read (CUDA) register a copy to CPU
// here so their tensors print; declared where the backend can see it.
using PrintHostCopyFn = Tensor (*)(const Tensor&);
void set_print_host_copy(DeviceType type, PrintHostCopyFn fn);

namespace {

constexpr int kPrecision = 4;
constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;
constexpr int kLineWidth = 80;

std::atomic<PrintHostCopyFn> g_host_copy[16];

// --- number formatting as Python's str.format does it ---

std::string py_float(double v, char conv, int prec) {
  // Python never prints "-nan" and spells infinities "inf".
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[512];
  char fmt[8] = {'%', '.', '*', conv, 0};
  std::snprintf(buf, sizeof buf, fmt, prec, v);
  return buf;
}

std::string py_value(const Scalar& s) {
  if (s.is_bool()) return s.to_bool() ? "True" : "False";
  return std::to_string(s.to_int());
}

class Formatter {
 public:
  Formatter(bool floating, const std::vector<Scalar>& vals) : floating_(floating) {
    if (!floating_) {
      for (const Scalar& v : vals) max_width_ = std::max(max_width_, py_value(v).size());
      return;
    }
    std::vector<double> nz;  // nonzero finite values
    for (const Scalar& v : vals) {
      double d = v.to_double();
      if (std::isfinite(d) && d != 0) nz.push_back(d);
    }
    if (nz.empty()) return;
    double mn = std::fabs(nz[0]), mx = mn;
    for (double d : nz) {
      mn = std::min(mn, std::fabs(d));
      mx = std::max(mx, std::fabs(d));
      if (d != std::ceil(d)) int_mode_ = false;
    }
    if (int_mode_) {
      sci_mode_ = mx / mn > 1000.0 || mx > 1.0e8;
      for (double d : nz)
        max_width_ =
            std::max(max_width_, sci_mode_ ? py_float(d, 'e', kPrecision).size() : py_float(d, 'f', 0).size() + 1);
    } else {
      sci_mode_ = mx / mn > 1000.0 || mx > 1.0e8 || mn < 1.0e-4;
      for (double d : nz) max_width_ = std::max(max_width_, py_float(d, sci_mode_ ? 'e' : 'f', kPrecision).size());
    }
  }

  size_t width() const { return max_width_; }

  std::string format(const Scalar& v) const {
    std::string s;
    if (!floating_) {
      s = py_value(v);
    } else {
      double d = v.to_double();
      if (sci_mode_) {
        s = py_float(d, 'e', kPrecision);
      } else if (int_mode_) {
        s = py_float(d, 'f', 0);
        if (std::isfinite(d)) s += ".";
      } else {
        s = py_float(d, 'f', kPrecision);
      }
    }
    if (s.size() < max_width_) s.insert(0, max_width_ - s.size(), ' ');
    return s;
  }

 private:
  bool floating_;
  bool int_mode_ = true;
  bool sci_mode_ = false;
  size_t max_width_ = 1;
};

// A strided walk over a CPU tensor, one dimension at a time.
struct View {
  const char* data;
  ScalarType dtype;
  int64_t itemsize;
  IntArrayRef sizes, strides;

  Scalar at(int64_t offset) const { return read_scalar(data + offset * itemsize, dtype); }
};

// The indices printed along a dimension of size n.
std::vector<int64_t> shown(int64_t n, bool summarize) {
  std::vector<int64_t> idx;
  if (summarize && n > 2 * kEdgeItems) {
    for (int64_t i = 0; i < kEdgeItems; ++i) idx.push_back(i);
    for (int64_t i = n - kEdgeItems; i < n; ++i) idx.push_back(i);
  } else {
    for (int64_t i = 0; i < n; ++i) idx.push_back(i);
  }
  return idx;
}

// get_summarized_data: the values the formatter sizes itself on.
void collect(const View& v, size_t dim, int64_t offset, bool summarize, std::vector<Scalar>* out) {
  if (dim == v.sizes.size()) {
    out->push_back(v.at(offset));
    return;
  }
  for (int64_t i : shown(v.sizes[dim], summarize)) collect(v, dim + 1, offset + i * v.strides[dim], summarize, out);
}

bool is_summarized_gap(bool summarize, int64_t n, size_t k) {
  return summarize && n > 2 * kEdgeItems && k == size_t(kEdgeItems);
}

std::string vector_str(const View& v, size_t dim, int64_t offset, int indent, bool summarize, const Formatter& f) {
  int64_t n = v.sizes[dim];
  size_t element_length = f.width() + 2;
  int per_line = std::max(1, int(std::floor(double(kLineWidth - indent) / double(element_length))));
  std::vector<std::string> data;
  std::vector<int64_t> idx = shown(n, summarize);
  for (size_t k = 0; k < idx.size(); ++k) {
    if (is_summarized_gap(summarize, n, k)) data.push_back(" ...");
    data.push_back(f.format(v.at(offset + idx[k] * v.strides[dim])));
  }
  std::string out = "[";
  for (size_t i = 0; i < data.size(); ++i) {
    if (i) out += i % size_t(per_line) == 0 ? ",\n" + std::string(size_t(indent + 1), ' ') : ", ";
    out += data[i];
  }
  return out + "]";
}

std::string tensor_str(const View& v, size_t dim, int64_t offset, int indent, bool summarize, const Formatter& f) {
  size_t nd = v.sizes.size() - dim;
  if (nd == 0) return f.format(v.at(offset));
  if (nd == 1) return vector_str(v, dim, offset, indent, summarize, f);
  int64_t n = v.sizes[dim];
  std::vector<int64_t> idx = shown(n, summarize);
  std::string sep = "," + std::string(nd - 1, '\n') + std::string(size_t(indent + 1), ' ');
  std::string out = "[";
  for (size_t k = 0; k < idx.size(); ++k) {
    if (k) out += sep;
    if (is_summarized_gap(summarize, n, k)) out += "..." + sep;
    out += tensor_str(v, dim + 1, offset + idx[k] * v.strides[dim], indent + 1, summarize, f);
  }
  return out + "]";
}

std::string size_tuple(IntArrayRef sizes) {
  std::string s = "(";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + (sizes.size() == 1 ? ",)" : ")");
}

// _add_suffixes: a suffix that would pass the line width starts a new line.
std::string add_suffixes(std::string s, const std::vector<std::string>& suffixes, int indent) {
  size_t nl = s.rfind('\n');
  int64_t last_line_len = int64_t(s.size()) - (nl == std::string::npos ? -1 : int64_t(nl)) + 1;
  for (const std::string& suffix : suffixes) {
    int64_t len = int64_t(suffix.size());
    if (last_line_len + len + 2 > kLineWidth) {
      s += ",\n" + std::string(size_t(indent), ' ') + suffix;
      last_line_len = indent + len;
    } else {
      s += ", " + suffix;
      last_line_len += len + 2;
    }
  }
  return s + ")";
}

Tensor host_copy(const Tensor& t) {
  if (t.is_cpu()) return t;
  int code = int(t.device().type);
  PrintHostCopyFn fn = code >= 0 && code < 16 ? g_host_copy[code].load() : nullptr;
  TC_CHECK(fn, Device, "print: cannot read a tensor on ", t.device(), " (no host copy registered for ",
           device_type_name(t.device().type), ")");
  Tensor h = fn(t);
  TC_CHECK(h.defined() && h.is_cpu(), Internal, "print: the host copy of a ", t.device(),
           " tensor is not a cpu tensor");
  return h;
}

}  // namespace

void set_print_host_copy(DeviceType type, PrintHostCopyFn fn) {
  int code = int(type);
  TC_CHECK_ARG(code >= 0 && code < 16, "set_print_host_copy: argument 'type' is not a device type: ", code);
  g_host_copy[code].store(fn);
}

std::string tensor_to_string(const Tensor& t) {
  if (!t.defined()) return "tensor(undefined)";
  const std::string prefix = "tensor(";
  const int indent = int(prefix.size());
  std::vector<std::string> suffixes;
  if (!t.is_cpu()) suffixes.push_back("device='" + t.device().str() + "'");
  std::string dtype_suffix = std::string("dtype=torch.") + dtype_name(t.dtype());
  std::string body;
  if (t.numel() == 0) {
    // No element shows the dtype, so anything but the default float is named.
    if (t.dim() != 1) suffixes.push_back("size=" + size_tuple(t.sizes()));
    if (t.dtype() != ScalarType::Float32) suffixes.push_back(dtype_suffix);
    body = "[]";
  } else {
    ScalarType dt = t.dtype();
    // float32 (the default), int64 and bool are recognisable from the values.
    if (dt != ScalarType::Float32 && dt != ScalarType::Int64 && dt != ScalarType::Bool)
      suffixes.push_back(dtype_suffix);
    Tensor h = host_copy(t);
    View v{static_cast<const char*>(h.data_ptr()), dt, int64_t(h.element_size()), h.sizes(), h.strides()};
    bool summarize = h.numel() > kThreshold;
    std::vector<Scalar> vals;
    collect(v, 0, 0, summarize, &vals);
    Formatter f(is_floating(dt), vals);
    body = tensor_str(v, 0, 0, indent, summarize, f);
  }
  if (t.requires_grad()) suffixes.push_back("requires_grad=True");
  return add_suffixes(prefix + body, suffixes, indent);
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << tensor_to_string(t); }

}  // namespace tc
