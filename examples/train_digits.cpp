// SPDX-License-Identifier: BSD-3-Clause
// Trains a 2-layer MLP (64 -> 64 -> 10) on the handwritten digits set with
// SGD + momentum, through the C++ wrapper (tensorc.hpp): the C++ port of
// train_digits.c, with the same data, split, shuffle and hyper-parameters.
//
//   train_digits_cpp [path/to/digits.csv.gz] [--epochs N] [--seed S] [--min-accuracy A]
//
// Exit codes: 0 trained (and reached --min-accuracy when given); 1 tensorc
// error; 2 bad arguments or an unreadable/corrupt data file; 3 accuracy below
// --min-accuracy.
#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include <tensorc.hpp>

namespace {

constexpr int kPixels = 64, kClasses = 10, kHidden = 64;

struct Dataset {
  std::vector<float> pixels;    // rows x 64, scaled to [0, 1]
  std::vector<int64_t> labels;  // rows
  int rows() const { return int(labels.size()); }
};

struct DataError {
  std::string message;
};

// Reads "p0,...,p63,label" lines.
Dataset load_digits(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw DataError{"cannot open '" + path + "': " + (errno ? std::strerror(errno) : "gzopen failed")};
  struct Closer {
    gzFile f;
    ~Closer() { gzclose(f); }
  } closer{f};
  Dataset d;
  char line[1024];
  int lineno = 0;
  auto zerror = [&]() -> std::string {
    int err = 0;
    const char* msg = gzerror(f, &err);
    return err != Z_OK && err != Z_STREAM_END ? msg : "";
  };
  while (gzgets(f, line, sizeof line)) {
    ++lineno;
    if (line[0] == '\n' || line[0] == '\0') continue;
    const char* p = line;
    for (int k = 0; k <= kPixels; ++k) {
      char* end = nullptr;
      const long v = std::strtol(p, &end, 10);
      const long hi = k < kPixels ? 16 : kClasses - 1;
      const char want = k < kPixels ? ',' : '\n';
      if (end == p || v < 0 || v > hi || (*end != want && !(k == kPixels && (*end == '\0' || *end == '\r')))) {
        const std::string z = zerror();
        if (!z.empty()) throw DataError{"'" + path + "' is corrupt at line " + std::to_string(lineno) + ": " + z};
        throw DataError{"'" + path + "' line " + std::to_string(lineno) +
                        " is not a digits row (expected 64 pixels in 0..16 and a label in 0..9, comma-separated; "
                        "field " +
                        std::to_string(k + 1) + " is wrong)"};
      }
      if (k < kPixels)
        d.pixels.push_back(float(v) / 16.0f);
      else
        d.labels.push_back(v);
      p = end + 1;
    }
  }
  const std::string z = zerror();
  if (!z.empty()) throw DataError{"'" + path + "' is corrupt: " + z};
  if (d.rows() < 20)
    throw DataError{"'" + path + "' holds " + std::to_string(d.rows()) + " rows; expected the 1797 digits"};
  return d;
}

// Deterministic shuffle (xorshift), the same stream as train_digits.c.
uint64_t g_rng = 88172645463325252ull;
uint64_t next_random() {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return g_rng;
}
void shuffle(int* a, int n) {
  for (int i = n - 1; i > 0; --i) std::swap(a[i], a[int(next_random() % uint64_t(i + 1))]);
}

// The rows idx[0..n) as an (n, 64) float32 batch and their (n) int64 labels.
std::pair<tensorc::Tensor, tensorc::Tensor> batch(const Dataset& d, const int* idx, int n) {
  std::vector<float> xb(size_t(n) * kPixels);
  std::vector<int64_t> yb(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    std::memcpy(&xb[size_t(i) * kPixels], &d.pixels[size_t(idx[i]) * kPixels], sizeof(float) * kPixels);
    yb[size_t(i)] = d.labels[size_t(idx[i])];
  }
  return {tensorc::from_data(xb.data(), {n, kPixels}), tensorc::tensor(yb)};
}

struct Mlp {
  tensorc::Tensor w1, b1, w2, b2;
  // logits = relu(x @ w1 + b1) @ w2 + b2
  tensorc::Tensor forward(const tensorc::Tensor& x) const {
    return tensorc::addmm(b2, tensorc::addmm(b1, x, w1).relu(), w2);
  }
  std::vector<tensorc::Tensor*> params() { return {&w1, &b1, &w2, &b2}; }
};

}  // namespace

int main(int argc, char** argv) {
  std::string path = "examples/data/digits.csv.gz";
  int epochs = 30, seed = 0;
  double min_accuracy = -1.0;
  const float lr = 0.1f, momentum = 0.9f;
  const int batch_size = 32;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--epochs" && i + 1 < argc)
      epochs = std::atoi(argv[++i]);
    else if (a == "--seed" && i + 1 < argc)
      seed = std::atoi(argv[++i]);
    else if (a == "--min-accuracy" && i + 1 < argc)
      min_accuracy = std::atof(argv[++i]);
    else if (a[0] == '-') {
      std::cerr << "usage: train_digits_cpp [digits.csv.gz] [--epochs N] [--seed S] [--min-accuracy A]\n";
      return 2;
    } else
      path = a;
  }
  if (epochs < 1) {
    std::cerr << "train_digits_cpp: --epochs must be at least 1\n";
    return 2;
  }
  Dataset d;
  try {
    d = load_digits(path);
  } catch (const DataError& e) {
    std::cerr << "train_digits_cpp: " << e.message << "\n";
    return 2;
  }

  try {
    g_rng += uint64_t(seed) * 0x9E3779B97F4A7C15ull;
    std::vector<int> order(size_t(d.rows()));
    for (int i = 0; i < d.rows(); ++i) order[size_t(i)] = i;
    shuffle(order.data(), d.rows());
    const int n_test = d.rows() / 5;  // hold out 20 %
    const int n_train = d.rows() - n_test;
    std::printf("digits: %d images from %s; training on %d, holding out %d\n", d.rows(), path.c_str(), n_train, n_test);

    // Parameters: w ~ N(0, 1/fan_in), b = 0; momentum buffers zero.
    tensorc::manual_seed(uint64_t(seed));
    Mlp net;
    net.w1 = tensorc::randn({kPixels, kHidden}, std::nullopt, tensorc::kFloat32) * 0.125f;  // 1/sqrt(64)
    net.b1 = tensorc::randn({kHidden}, std::nullopt, tensorc::kFloat32) * 0.0f;
    net.w2 = tensorc::randn({kHidden, kClasses}, std::nullopt, tensorc::kFloat32) * 0.125f;
    net.b2 = tensorc::randn({kClasses}, std::nullopt, tensorc::kFloat32) * 0.0f;
    std::vector<tensorc::Tensor> velocity;
    for (tensorc::Tensor* p : net.params()) {
      p->requires_grad_();
      velocity.push_back(tensorc::zeros_like(*p));
    }

    for (int epoch = 1; epoch <= epochs; ++epoch) {
      double total = 0.0;
      int batches = 0;
      shuffle(order.data(), n_train);  // the held-out tail stays put
      for (int start = 0; start < n_train; start += batch_size) {
        const int n = std::min(batch_size, n_train - start);
        auto [x, y] = batch(d, order.data() + start, n);
        tensorc::Tensor loss = tensorc::cross_entropy_loss(net.forward(x), y);  // mean over the batch
        loss.backward();
        total += loss.item<double>();
        ++batches;
        // v = momentum * v + g; p -= lr * v; under no_grad, in place.
        tensorc::NoGradGuard no_grad;
        std::vector<tensorc::Tensor*> ps = net.params();
        for (size_t i = 0; i < ps.size(); ++i) {
          velocity[i].mul_(momentum).add_(ps[i]->grad());
          ps[i]->add_(velocity[i], -lr);
          ps[i]->set_grad(tensorc::Tensor());
        }
      }
      std::printf("epoch %2d  loss %.4f\n", epoch, total / batches);
    }

    // Held-out accuracy, without recording.
    tensorc::NoGradGuard no_grad;
    auto [x, y] = batch(d, order.data() + n_train, n_test);
    const int64_t correct = (net.forward(x).argmax(1) == y).sum().item<int64_t>();
    const double accuracy = double(correct) / n_test;
    std::printf("held-out accuracy: %.4f (%lld of %d)\n", accuracy, static_cast<long long>(correct), n_test);
    if (min_accuracy >= 0 && accuracy < min_accuracy) {
      std::fprintf(stderr, "train_digits_cpp: accuracy %.4f is below --min-accuracy %.4f\n", accuracy, min_accuracy);
      return 3;
    }
    return 0;
  } catch (const tensorc::Error& e) {
    std::cerr << "train_digits_cpp: tensorc error (" << tensorc::status_name(e.code()) << "): " << e.what() << "\n";
    return 1;
  }
}
